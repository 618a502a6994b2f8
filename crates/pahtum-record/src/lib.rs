//! The record of one finished game.
//!
//! The referee writes one [`GameRecord`] per game; the tournament journal is a
//! JSON Lines file of them, and standings, crosstables, ratings, replays and
//! resume are all derived from it. The record is self-contained: any program
//! can replay its `moves` from its `blocks` (or its block placements) and
//! check its `score` and `result`, without this crate. Readers must ignore
//! unknown keys; new keys may be added.
//!
//! Beside the record: the spec of one game ([`GameSpec`]) and where it
//! starts (after typed plies, or from a recorded game up to a ply:
//! [`GameSpec::after_typed_plies`], [`GameSpec::replaying`]), the replay that
//! checks a record (a [`ReplayError`] says which check failed), and the
//! [`annotations`] of `analysis.jsonl` that the analysis writes about a record
//! (its types and its file), so that whoever reads them needs no search.

#![warn(missing_docs)]

mod adjudication;
pub mod annotations;
mod replay_error;
mod spec;
mod start;

pub use adjudication::{
    Adjudication, AdjudicationRule, DEFAULT_SOLVED_CELLS, MAX_SOLVED_CELLS, PerfectPlay, Unproven, describe_rule,
    lend_perfect_play,
};
pub use replay_error::{NameMismatch, ReplayError};
pub use spec::{GameSpec, OpeningError, play_opening};
pub use start::{PlyError, ReplayingError, TypedOpeningError, parse_plies};

use pahtum::{Action, Bitboard, Cell, Color, Game, Outcome, Score, Seat};
use pahtum_protocol::bot::Identity;
use pahtum_protocol::{Info, Placement, Reason, Rules, TimeControl};
use serde::{Deserialize, Serialize};

/// One finished game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GameRecord {
    /// Stable id of the game in its schedule (unique within a tournament).
    pub id: String,
    /// The key shared by the two games that play one block layout with seats
    /// swapped (a layout pair); `null` for a lone game.
    #[serde(default)]
    pub layout: Option<String>,
    /// The seed the layout was drawn from (random placement).
    #[serde(default)]
    pub seed: Option<u64>,
    /// The pie rule, the number of blocks and who chose them.
    pub rules: Rules,
    /// The game's time control (a tournament's `[time]`).
    pub time: TimeControl,
    /// Each seat's own time control, present only when a bot did not play by
    /// `time` (a tournament gave it time of its own); see
    /// [`GameRecord::time_of`]. The clocks belong to the seats, so a pie swap
    /// does not exchange them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_by_seat: Option<SeatTimes>,
    /// Fair mode: the bot that owed no answer was paused (frozen, or stopped
    /// by SIGSTOP where the machine had no cgroup freezer) while its opponent
    /// thought. Absent when it was off.
    #[serde(default, skip_serializing_if = "is_false")]
    pub pause_idle: bool,
    /// Bot names by seat: the first seat starts as White.
    pub players: Players,
    /// The bot that played White at the end (after any swap).
    pub white: String,
    /// The bot that played Black at the end (after any swap).
    pub black: String,
    /// Every block of the final board (for players' placement, also in `moves`).
    pub blocks: Vec<Cell>,
    /// Where the game started when plies were given before the bots played
    /// (see [`Opening`]); absent for a game played from its layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening: Option<Opening>,
    /// Blocks placed by the players and stones, in order.
    pub moves: Vec<MoveRecord>,
    /// `true` or `false` after the pie decision; `null` when the pie rule was
    /// off or the game ended before the decision.
    pub swap: Option<bool>,
    /// The pie decision's wall time and info, if it was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swap_move: Option<Timing>,
    /// Both colours' points on the board at the end (which is not full after
    /// an early end).
    pub score: Score,
    /// By colour, after any swap. A forfeit is a win for the other colour; a
    /// double forfeit (both bots failed before the first move) is a draw.
    pub result: Outcome,
    /// Why the game ended, and who forfeited.
    pub termination: Termination,
    /// Unix time in milliseconds when the game started (see [`unix_ms`]).
    pub started_unix_ms: u64,
    /// Unix time in milliseconds when the game ended.
    pub ended_unix_ms: u64,
    /// What each seat's bot said about itself in its `hello` (untrusted text: escape it for display);
    /// absent in records written before it was kept, and where no bot greeted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hello: Option<Hellos>,
}

/// What the bots said in their `hello`, by seat: so that a journal tells which program played.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Hellos {
    /// The greeting of the bot in the first seat; absent when it did not greet (it could not start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<Identity>,
    /// The greeting of the bot in the second seat; absent when it did not greet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second: Option<Identity>,
}

impl Hellos {
    /// The greeting of the bot in `seat`, if it greeted.
    pub fn of(&self, seat: Seat) -> Option<&Identity> {
        match seat {
            Seat::First => self.first.as_ref(),
            Seat::Second => self.second.as_ref(),
        }
    }
}

/// The plies given before the bots played (`arena game --moves`, `--from`):
/// the game's first [`Opening::plies`] plies, in the one numbering (see
/// [`GameRecord::ply_of_move`]). They are in `moves` (and `swap`) like the
/// others, so that the record replays from its layout, but no bot chose them:
/// [`GameRecord::is_given`] tells them apart, their timing is empty (`ms` 0)
/// and a given pie decision has no `swap_move`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Opening {
    /// How many plies were given: the bots' first ply is `plies + 1`.
    pub plies: usize,
    /// The recorded game they were taken from (`--from`); absent when they
    /// were typed (`--moves`) or taken from a book.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Origin>,
    /// The opening book's line they were taken from (a tournament's, a
    /// match's or a league's `openings`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub book: Option<BookLine>,
}

/// One opening of an opening book: the book's file and the opening's line in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BookLine {
    /// The book's file, as the tournament file names it.
    pub file: String,
    /// The opening's line in it, from 1.
    pub line: usize,
}

/// Where the plies given before the bots played came from, when not typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A recorded game (`--from`).
    Game(Origin),
    /// An opening book's line.
    Book(BookLine),
}

/// A recorded game that a game started from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Origin {
    /// The file that held it (a record or a journal), as it was named.
    pub file: String,
    /// The game's id in it.
    pub game: String,
}

/// The bots by seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Players {
    /// The bot in the first seat, which starts as White.
    pub first: String,
    /// The bot in the second seat, which starts as Black and decides the pie.
    pub second: String,
}

impl Players {
    /// The name of the bot in `seat`.
    pub fn of(&self, seat: Seat) -> &str {
        match seat {
            Seat::First => &self.first,
            Seat::Second => &self.second,
        }
    }
}

/// The time control of each seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SeatTimes {
    /// The time control of the bot in the first seat.
    pub first: TimeControl,
    /// The time control of the bot in the second seat.
    pub second: TimeControl,
}

impl SeatTimes {
    /// The time controls of the seats, or `None` when both are `time`.
    pub fn differing_from(time: TimeControl, first: TimeControl, second: TimeControl) -> Option<SeatTimes> {
        (first != time || second != time).then_some(SeatTimes { first, second })
    }

    /// The time control of the bot in `seat`.
    pub fn of(&self, seat: Seat) -> TimeControl {
        match seat {
            Seat::First => self.first,
            Seat::Second => self.second,
        }
    }
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// What kind of move a [`MoveRecord`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MoveKind {
    /// A stone of the mover's colour (the default, omitted from the JSON).
    #[default]
    Stone,
    /// A block placed by a player (players' placement only).
    Block,
}

/// One block or stone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MoveRecord {
    /// A stone or a block; absent (a stone) in the JSON for stones.
    #[serde(default, skip_serializing_if = "is_stone")]
    pub kind: MoveKind,
    /// The seat of the bot that made the move (see [`GameRecord::players`]).
    /// Absent in records written before it was added; [`GameRecord::seat_of_move`]
    /// derives it from the colour and the pie decision then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    /// The colour that acted: the stone's colour, or for a block the colour
    /// whose turn it was to place (blocks have none).
    pub color: Color,
    /// Where the stone or block went.
    pub cell: Cell,
    /// How long the answer took, and its info (flattened into the move's JSON).
    #[serde(flatten)]
    pub timing: Timing,
}

impl MoveRecord {
    /// The move without its timing.
    pub fn bare(&self) -> BareMove {
        BareMove {
            kind: self.kind,
            seat: self.seat,
            color: self.color,
            cell: self.cell,
        }
    }
}

/// A move without its timing: all that a replay needs. Read from a
/// [`MoveRecord`]'s JSON, it skips the timing's keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct BareMove {
    /// A stone or a block.
    #[serde(default)]
    pub kind: MoveKind,
    /// The seat that made the move, where the record names it.
    #[serde(default)]
    pub seat: Option<Seat>,
    /// The colour that acted.
    pub color: Color,
    /// Where the stone or block went.
    pub cell: Cell,
}

fn is_stone(kind: &MoveKind) -> bool {
    *kind == MoveKind::Stone
}

/// How long an answer took, and what the bot said about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
pub struct Timing {
    /// Wall time from the start of the request's write to the read of the
    /// answer's newline, in milliseconds with microsecond resolution.
    pub ms: f64,
    /// The bot's CPU time (user + system) over the answer, where measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ms: Option<f64>,
    /// The `info` the bot attached to its answer, as it wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<Info>,
}

/// Why and how the game ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Termination {
    /// [`Reason::Normal`] for a full board or an adjudicated game; otherwise the verdict of the
    /// forfeit (of the first seat's, for a double forfeit).
    pub reason: Reason,
    /// For a forfeit: the bot that lost by it, its seat and its colour (for a
    /// double forfeit, the first seat's, whose reason is `reason`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<Forfeit>,
    /// For a double forfeit, when both bots failed before the first move: the
    /// second seat's, with its own reason. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub also: Option<OtherForfeit>,
    /// For a game the tournament's rule ended before its board was full (its reason `normal`): how, and
    /// the result as proven then. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudicated: Option<Adjudication>,
}

impl Termination {
    /// A game that ended with its board full.
    pub fn normal() -> Termination {
        Termination {
            reason: Reason::Normal,
            forfeit: None,
            also: None,
            adjudicated: None,
        }
    }

    /// A game that ended by `adjudication`, its result fixed.
    pub fn adjudicated(adjudication: Adjudication) -> Termination {
        Termination {
            adjudicated: Some(adjudication),
            ..Termination::normal()
        }
    }

    /// How the game ended, in a few words, as `arena show` and the report say it: the reason (`normal`,
    /// `timeout`, ...), or for an adjudicated game [`Adjudication::summary`].
    pub fn end(&self) -> String {
        match &self.adjudicated {
            Some(adjudication) => adjudication.summary(),
            None => self.reason.to_string(),
        }
    }

    /// Every forfeit of the game (none, one, or two for a double forfeit), each with its reason.
    pub fn forfeits(&self) -> impl Iterator<Item = (Reason, &Forfeit)> {
        let first = self.forfeit.as_ref().map(|forfeit| (self.reason, forfeit));
        let also = self.also.as_ref().map(|also| (also.reason, &also.forfeit));
        first.into_iter().chain(also)
    }

    /// The result this end gives a game whose board scores `score`: a win for
    /// the opponent of a bot that forfeited, a draw when both did, the one an
    /// adjudication's margins fix (a draw where they fix none, which the
    /// replay refuses), else the board's.
    pub fn result(&self, score: Score) -> Outcome {
        match (&self.forfeit, &self.also, &self.adjudicated) {
            (Some(_), Some(_), _) => Outcome::Draw,
            (Some(forfeit), None, _) => Outcome::win_for(forfeit.color.opponent()),
            (None, _, Some(adjudication)) => adjudication.margin.outcome().unwrap_or(Outcome::Draw),
            (None, _, None) => score.outcome(),
        }
    }
}

/// The second forfeit of a double forfeit, with its reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OtherForfeit {
    /// The second seat's verdict, which may differ from the first's.
    pub reason: Reason,
    /// Who, and the evidence (flattened into the JSON object).
    #[serde(flatten)]
    pub forfeit: Forfeit,
}

/// Who forfeited, and the evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Forfeit {
    /// The bot's name in the tournament.
    pub bot: String,
    /// The seat the bot held.
    pub seat: Seat,
    /// The colour the bot held when it forfeited (after any swap).
    pub color: Color,
    /// What happened, in a sentence for the bot's author.
    pub detail: String,
    /// The offending line, cut to a few hundred bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// The last lines of the bot's stderr.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stderr_tail: Vec<String>,
    /// A timeout on a wall clock while the machine was overloaded: the bot
    /// used less than half the wall time in CPU and, if it had not
    /// answered, one of its processes was still waiting for a CPU at the
    /// deadline; the detail says so. Left out when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub overloaded: bool,
}

impl GameRecord {
    /// The number of move `index` of [`GameRecord::moves`] in the one
    /// numbering of plies that everything shows (`arena show`, the replay
    /// viewer, `arena play`, `--ply`): a ply is every decision a player makes,
    /// in order, numbered from 1, exactly the protocol's `moves` list, so
    /// blocks placed by the players and the pie decision count. The record's
    /// `moves` leave the pie decision out (it is `swap`), so the moves after
    /// it are one further on.
    pub fn ply_of_move(&self, index: usize) -> usize {
        let first_stone = self.moves.iter().position(|m| m.kind == MoveKind::Stone);
        let after_the_pie = self.swap.is_some() && first_stone.is_some_and(|first| index > first);
        index + 1 + usize::from(after_the_pie)
    }

    /// The number of the pie decision in the one numbering of plies (see
    /// [`GameRecord::ply_of_move`]): right after White's first stone; `None`
    /// when there was none.
    pub fn pie_ply(&self) -> Option<usize> {
        let first_stone = self.moves.iter().position(|m| m.kind == MoveKind::Stone)?;
        self.swap.map(|_| first_stone + 2)
    }

    /// The blocks the game started with: [`GameRecord::blocks`] less those
    /// the players placed (in [`GameRecord::moves`]).
    pub fn first_blocks(&self) -> Vec<Cell> {
        let placed: Bitboard = self
            .moves
            .iter()
            .filter(|played| played.kind == MoveKind::Block)
            .map(|played| played.cell)
            .collect();
        self.blocks
            .iter()
            .copied()
            .filter(|&cell| !placed.contains(cell))
            .collect()
    }

    /// Whether move `index` of [`GameRecord::moves`] was given before the
    /// bots played (see [`Opening`]) rather than chosen by the bot of its seat.
    pub fn is_given(&self, index: usize) -> bool {
        self.opening
            .as_ref()
            .is_some_and(|opening| self.ply_of_move(index) <= opening.plies)
    }

    /// The time control the bot in `seat` played by.
    pub fn time_of(&self, seat: Seat) -> TimeControl {
        self.time_by_seat.map_or(self.time, |times| times.of(seat))
    }

    /// The points (1, 1/2 or 0) the bot in `seat` earned.
    pub fn points_of(&self, seat: Seat) -> f64 {
        match self.result.winner() {
            None => 0.5,
            Some(winner) if winner == self.color_of(seat) => 1.0,
            Some(_) => 0.0,
        }
    }

    /// The seat of the bot that made move `index`: the record's own, or for an
    /// old record without it the seat that held the move's colour then (the
    /// first seat is White up to the pie decision, which follows the first
    /// stone, and after it the seat that the decision gave White). For a
    /// given move ([`GameRecord::is_given`]), which no bot made, the seat
    /// whose turn it was.
    pub fn seat_of_move(&self, index: usize) -> Seat {
        self.moves[index].seat.unwrap_or_else(|| self.seat_by_color(index))
    }

    /// The seat that held the colour of move `index` when it was made.
    fn seat_by_color(&self, index: usize) -> Seat {
        let first_stone = self.moves.iter().position(|m| m.kind == MoveKind::Stone);
        self.seat_holding(self.moves[index].color, first_stone.is_some_and(|first| index > first))
    }

    /// The seat that holds `color`: the first seat is White up to the pie
    /// decision, which follows the first stone, and after it (once
    /// `after_the_first_stone`) the seat that the decision gave White.
    fn seat_holding(&self, color: Color, after_the_first_stone: bool) -> Seat {
        let swapped = self.swap == Some(true) && after_the_first_stone;
        match (color, swapped) {
            (Color::White, false) | (Color::Black, true) => Seat::First,
            _ => Seat::Second,
        }
    }

    /// The colour the bot in `seat` played at the end.
    pub fn color_of(&self, seat: Seat) -> Color {
        match (seat, self.swap == Some(true)) {
            (Seat::First, false) | (Seat::Second, true) => Color::White,
            _ => Color::Black,
        }
    }

    /// Replays the record with the rules crate and checks it: the blocks
    /// agree with the rules, every move is legal and by the colour to act (and
    /// the seat that held it, where the move names its seat), the
    /// pie decision is where the record says (and only where the game reached
    /// it), the names by colour follow the seats and the swap, the score is
    /// the board's, a normal end has a full board, and the result is the one
    /// the end gives (the board's, a win for the opponent of a bot that
    /// forfeited, a draw for a double forfeit), and the given plies of an
    /// [`Opening`] are plies of the game, a given pie decision without
    /// timing.
    pub fn replay(&self) -> Result<Game, ReplayError> {
        self.replay_moves(self.moves.iter().map(MoveRecord::bare))
    }

    /// Replays and checks the record as [`GameRecord::replay`] does, with
    /// `moves` for its own: for a reader that kept only the bare moves.
    pub fn replay_moves(&self, moves: impl IntoIterator<Item = BareMove>) -> Result<Game, ReplayError> {
        let given: Bitboard = self.blocks.iter().copied().collect();
        if self.rules.placement != Placement::Players
            && (self.rules.blocks != self.blocks.len() || given.len() as usize != self.blocks.len())
        {
            return Err(ReplayError::BlockCount {
                rules: self.rules.blocks,
                distinct: given.len() as usize,
                listed: self.blocks.len(),
            });
        }
        let mut game = self.rules.start(&self.blocks).map_err(ReplayError::Setup)?;
        let mut decided = false;
        let mut after_the_first_stone = false;
        for (index, record) in moves.into_iter().enumerate() {
            decided |= self.decide_pie(&mut game)?;
            if game.color_to_act() != Some(record.color) {
                return Err(ReplayError::WrongColour {
                    index,
                    cell: record.cell,
                });
            }
            if record
                .seat
                .is_some_and(|seat| seat != self.seat_holding(record.color, after_the_first_stone))
            {
                return Err(ReplayError::WrongSeat {
                    index,
                    cell: record.cell,
                });
            }
            after_the_first_stone |= record.kind == MoveKind::Stone;
            let action = match record.kind {
                MoveKind::Block => Action::Block(record.cell),
                MoveKind::Stone => Action::Stone(record.cell),
            };
            game.play(action)
                .map_err(|error| ReplayError::IllegalMove { index, error })?;
        }
        if self.swap.is_some() {
            decided |= self.decide_pie(&mut game)?;
        }
        if self.swap.is_some() && !decided {
            return Err(ReplayError::PieNeverReached);
        }
        if game.position().blocks() != given {
            return Err(ReplayError::BlocksDiffer);
        }
        self.check_opening(&game)?;
        self.check_names()?;
        self.check_end(&game)?;
        Ok(game)
    }

    /// Plays the recorded pie decision if the game is at it; whether it did.
    fn decide_pie(&self, game: &mut Game) -> Result<bool, ReplayError> {
        if game.phase() != pahtum::Phase::PieDecision {
            return Ok(false);
        }
        let swap = self.swap.ok_or(ReplayError::PieMissing)?;
        let ply = game.history().len() + 1;
        game.play(Action::Pie(swap))
            .map_err(|error| ReplayError::IllegalPly { ply, error })?;
        Ok(true)
    }

    /// The given plies are among the game's, and the bots were not timed on a
    /// given pie decision.
    fn check_opening(&self, game: &Game) -> Result<(), ReplayError> {
        let Some(opening) = &self.opening else {
            return Ok(());
        };
        let plies = game.history();
        if opening.plies > plies.len() {
            return Err(ReplayError::OpeningTooLong {
                given: opening.plies,
                plies: plies.len(),
            });
        }
        let pie_given = plies[..opening.plies]
            .iter()
            .any(|action| matches!(action, Action::Pie(_)));
        if pie_given && self.swap_move.is_some() {
            return Err(ReplayError::GivenPieTimed);
        }
        Ok(())
    }

    /// `white` and `black` are the players of the seats that hold the colours.
    fn check_names(&self) -> Result<(), ReplayError> {
        let white_seat = if self.swap == Some(true) {
            Seat::Second
        } else {
            Seat::First
        };
        if self.white != self.players.of(white_seat) || self.black != self.players.of(white_seat.other()) {
            return Err(ReplayError::Names(Box::new(NameMismatch {
                white: self.white.clone(),
                black: self.black.clone(),
                first: self.players.first.clone(),
                second: self.players.second.clone(),
                swap: self.swap,
            })));
        }
        Ok(())
    }

    /// The end: the score is the board's, a normal end has a full board and no
    /// forfeit, a forfeit names a bot by its seat and colour, and the result
    /// is the one the end gives.
    fn check_end(&self, game: &Game) -> Result<(), ReplayError> {
        if game.score() != self.score {
            return Err(ReplayError::Score {
                recorded: self.score,
                board: game.score(),
            });
        }
        let termination = &self.termination;
        match (termination.reason, &termination.forfeit) {
            (Reason::Normal, None) if termination.also.is_none() => match &termination.adjudicated {
                None if !game.is_finished() => return Err(ReplayError::NotFinished),
                None => {}
                Some(adjudication) => check_adjudication(adjudication, game)?,
            },
            (_, _) if termination.adjudicated.is_some() => return Err(ReplayError::AdjudicatedForfeit),
            (Reason::Normal, _) => return Err(ReplayError::NormalWithForfeit),
            (reason, None) => return Err(ReplayError::ForfeitMissing { reason }),
            (_, Some(_)) => {}
        }
        for (_, forfeit) in termination.forfeits() {
            if forfeit.bot != self.players.of(forfeit.seat) || forfeit.color != self.color_of(forfeit.seat) {
                return Err(ReplayError::ForfeitMismatch {
                    bot: forfeit.bot.clone(),
                    seat: forfeit.seat,
                    color: forfeit.color,
                });
            }
        }
        if let (Some(first), Some(also)) = (&termination.forfeit, &termination.also)
            && first.seat == also.forfeit.seat
        {
            return Err(ReplayError::DoubleForfeitOneSeat);
        }
        let result = termination.result(game.score());
        if self.result != result {
            return Err(ReplayError::Result {
                recorded: self.result,
                end: result,
            });
        }
        Ok(())
    }
}

/// An adjudication stands where the game ended (after its last ply, with free cells left, in the play of
/// stones) and its margins fix a result; whether they hold is `arena verify`'s to prove.
fn check_adjudication(adjudication: &Adjudication, game: &Game) -> Result<(), ReplayError> {
    let plies = game.history().len();
    if adjudication.ply != plies || game.phase() != pahtum::Phase::Stones {
        return Err(ReplayError::AdjudicatedElsewhere {
            ply: adjudication.ply,
            plies,
        });
    }
    if adjudication.margin.outcome().is_none() {
        return Err(ReplayError::AdjudicationUndecided {
            low: adjudication.margin.low,
            high: adjudication.margin.high,
        });
    }
    Ok(())
}

/// The time since the Unix epoch now (zero if the clock is before 1970): the one reading of the wall
/// clock, for records, file names and seeds alike.
pub fn since_the_epoch() -> std::time::Duration {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
}

/// The Unix time now in milliseconds, as records keep it (0 if the clock is before 1970).
pub fn unix_ms() -> u64 {
    since_the_epoch().as_millis() as u64
}
