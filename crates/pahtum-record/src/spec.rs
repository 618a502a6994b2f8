//! Everything about one game except the bots: the rules, the blocks, the
//! time control. Plain data, which a schedule, the command line or a test
//! builds; the referee plays it and [`GameSpec::record`] turns its end into a
//! [`GameRecord`]. It lives beside the record so that the data side (the
//! tournament's schedule and checks) needs no referee.

use pahtum::{Action, Cell, Color, Game, IllegalAction, Seat, SetupError};
use pahtum_protocol::{Placement, Rules, TimeControl};

use crate::{
    AdjudicationRule, GameRecord, MoveKind, MoveRecord, Opening, Players, SeatTimes, Source, Termination, Timing,
    unix_ms,
};

/// Everything about one game except the bots.
#[derive(Debug, Clone, PartialEq)]
pub struct GameSpec {
    /// The game's stable id (unique within a tournament).
    pub id: String,
    /// The key shared by the two games of a layout pair, if any.
    pub layout: Option<String>,
    /// The seed of a random layout.
    pub seed: Option<u64>,
    /// The rules sent to both bots: the pie rule, the block count and who chose the blocks.
    pub rules: Rules,
    /// The blocks; empty when the players place them.
    pub blocks: Vec<Cell>,
    /// The time control of both seats, unless `time_by_seat` says otherwise.
    pub time: TimeControl,
    /// Each seat's own time control, when the bots do not both play by
    /// `time` (see [`GameSpec::with_seat_times`]). Clocks belong to seats:
    /// a pie swap changes the bots' colours, not their clocks.
    pub time_by_seat: Option<SeatTimes>,
    /// Fair mode: the bot that is not to move is paused, all its processes
    /// (frozen by a cgroup freezer, or stopped by SIGSTOP where the machine
    /// has none), until it is asked, so that it cannot think on its
    /// opponent's CPU.
    pub pause_idle: bool,
    /// The plies given before the bots play (blocks placed by the players,
    /// stones, the pie decision), checked by [`GameSpec::with_opening`]: the
    /// referee plays them by the rules before its first request, and the
    /// requests' `moves` include them. Empty for a game from its layout.
    pub opening: Vec<Action>,
    /// Where the opening was taken from (a recorded game, a book's line), for the record.
    pub origin: Option<Source>,
    /// The rule by which the referee ends the game before its board is full (see [`crate::Adjudication`]);
    /// `None`: every game is played out.
    pub adjudicate: Option<AdjudicationRule>,
}

/// Why the plies given to [`GameSpec::with_opening`] cannot start the game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpeningError {
    /// A ply the rules do not allow where it stands.
    #[error("ply {ply} ({action})")]
    Illegal {
        /// Its number, from 1.
        ply: usize,
        /// The ply.
        action: Action,
        /// Why the rules refuse it.
        #[source]
        illegal: IllegalAction,
    },
    /// The plies fill the board: the bots would have nothing to play.
    #[error("the {plies} plies given fill the board, which leaves the bots nothing to play: give fewer")]
    Finished {
        /// How many plies were given.
        plies: usize,
    },
}

/// Plays the given plies `opening` on `game` by the rules, which must leave the bots something to play.
pub fn play_opening(game: &mut Game, opening: &[Action]) -> Result<(), OpeningError> {
    for (index, &action) in opening.iter().enumerate() {
        game.play(action).map_err(|illegal| OpeningError::Illegal {
            ply: index + 1,
            action,
            illegal,
        })?;
    }
    if game.is_finished() {
        return Err(OpeningError::Finished { plies: opening.len() });
    }
    Ok(())
}

impl GameSpec {
    /// The game before its first action.
    ///
    /// # Panics
    ///
    /// If the spec contradicts itself (blocks that are not a legal layout, or
    /// that disagree with the rules); the constructors check this.
    pub fn initial_game(&self) -> Game {
        assert!(
            self.rules.placement != Placement::Players || self.blocks.is_empty(),
            "a game whose players place the blocks has none to start with"
        );
        let game = self
            .rules
            .start(&self.blocks)
            .unwrap_or_else(|error| panic!("game {}: invalid layout: {error}", self.id));
        assert_eq!(
            game.blocks_total(),
            self.rules.blocks,
            "game {}: the rules' block count differs from the blocks",
            self.id
        );
        game
    }

    /// The record of this game between `players` as `game` stands at its
    /// end, with the moves' timings and how it ended; it ends now. The
    /// bots' greetings are the caller's to add (`hello`).
    pub fn record(
        &self,
        players: Players,
        game: &Game,
        moves: Vec<MoveRecord>,
        swap_move: Option<Timing>,
        termination: Termination,
        started_unix_ms: u64,
    ) -> GameRecord {
        let score = game.score();
        let name_of = |color: Color| players.of(game.seat_of(color)).to_owned();
        GameRecord {
            id: self.id.clone(),
            layout: self.layout.clone(),
            seed: self.seed,
            rules: self.rules,
            time: self.time,
            time_by_seat: self.time_by_seat,
            pause_idle: self.pause_idle,
            white: name_of(Color::White),
            black: name_of(Color::Black),
            blocks: game.position().blocks().cells().collect(),
            opening: (!self.opening.is_empty() || self.origin.is_some()).then(|| Opening {
                plies: self.opening.len(),
                from: match &self.origin {
                    Some(Source::Game(origin)) => Some(origin.clone()),
                    _ => None,
                },
                book: match &self.origin {
                    Some(Source::Book(line)) => Some(line.clone()),
                    _ => None,
                },
            }),
            moves,
            swap: game.swapped(),
            swap_move,
            score,
            result: termination.result(score),
            termination,
            players,
            started_unix_ms,
            ended_unix_ms: unix_ms(),
            hello: None,
        }
    }

    /// The record of this game between `players`, played to its end by
    /// `choose` (the action to play in the game as it stands, the given
    /// opening's plies first), untimed and ended normally: real records
    /// without bots, for tests and tools.
    ///
    /// # Panics
    ///
    /// If `choose` returns an illegal action.
    pub fn play_out(&self, players: Players, mut choose: impl FnMut(&Game) -> Action) -> GameRecord {
        let mut game = self.initial_game();
        let mut moves = Vec::new();
        while let (Some(seat), Some(color)) = (game.seat_to_act(), game.color_to_act()) {
            let action = choose(&game);
            game.play(action).expect("a legal move");
            let (kind, cell) = match action {
                Action::Block(cell) => (MoveKind::Block, cell),
                Action::Stone(cell) => (MoveKind::Stone, cell),
                Action::Pie(_) => continue,
            };
            moves.push(MoveRecord {
                kind,
                seat: Some(seat),
                color,
                cell,
                timing: Timing::default(),
            });
        }
        // A given pie decision has no timing.
        let pie = game
            .history()
            .iter()
            .position(|action| matches!(action, Action::Pie(_)));
        let swap_move = pie
            .filter(|&index| index >= self.opening.len())
            .map(|_| Timing::default());
        self.record(players, &game, moves, swap_move, Termination::normal(), 0)
    }

    /// A game on `count` blocks drawn from `seed`.
    pub fn random(
        id: impl Into<String>,
        count: usize,
        seed: u64,
        pie: bool,
        time: TimeControl,
    ) -> Result<Self, SetupError> {
        let blocks = pahtum::setup::random_blocks(count, seed)?.cells().collect();
        Ok(GameSpec {
            seed: Some(seed),
            ..GameSpec::with_blocks(id, blocks, Placement::Random, pie, time)
        })
    }

    /// A game on the given blocks.
    pub fn fixed(id: impl Into<String>, blocks: &[Cell], pie: bool, time: TimeControl) -> Result<Self, SetupError> {
        let blocks = pahtum::setup::fixed_blocks(blocks)?.cells().collect();
        Ok(GameSpec::with_blocks(id, blocks, Placement::Fixed, pie, time))
    }

    /// A game whose `count` blocks the players place, Black first and last.
    pub fn placed(id: impl Into<String>, count: usize, pie: bool, time: TimeControl) -> Result<Self, SetupError> {
        pahtum::setup::check_count(count)?;
        Ok(GameSpec {
            rules: Rules {
                pie,
                blocks: count,
                placement: Placement::Players,
            },
            ..GameSpec::with_blocks(id, Vec::new(), Placement::Players, pie, time)
        })
    }

    fn with_blocks(
        id: impl Into<String>,
        blocks: Vec<Cell>,
        placement: Placement,
        pie: bool,
        time: TimeControl,
    ) -> Self {
        GameSpec {
            id: id.into(),
            layout: None,
            seed: None,
            rules: Rules {
                pie,
                blocks: blocks.len(),
                placement,
            },
            blocks,
            time,
            time_by_seat: None,
            pause_idle: false,
            opening: Vec::new(),
            origin: None,
            adjudicate: None,
        }
    }

    /// The game of `record` again, as it stood before its first ply: its
    /// layout, rules and time controls (fair mode too), under the id `id`.
    pub fn of_record(id: impl Into<String>, record: &GameRecord) -> GameSpec {
        GameSpec {
            id: id.into(),
            layout: None,
            seed: record.seed,
            rules: record.rules,
            blocks: record.first_blocks(),
            time: record.time,
            time_by_seat: record.time_by_seat,
            pause_idle: record.pause_idle,
            opening: Vec::new(),
            origin: None,
            adjudicate: None,
        }
    }

    /// The same game started from the plies `opening` (given before the bots
    /// play; see [`GameSpec::opening`]), taken from `origin` (a recorded game, a book's line)
    /// if any. The rules check each ply; the game must not end with them.
    ///
    /// # Panics
    ///
    /// If the spec contradicts itself, as [`GameSpec::initial_game`].
    pub fn with_opening(self, opening: Vec<Action>, origin: Option<Source>) -> Result<GameSpec, OpeningError> {
        play_opening(&mut self.initial_game(), &opening)?;
        Ok(GameSpec {
            opening,
            origin,
            ..self
        })
    }

    /// The same game with a time control for each seat (`time_by_seat` stays
    /// `None` when both are `time`).
    pub fn with_seat_times(self, first: TimeControl, second: TimeControl) -> Self {
        GameSpec {
            time_by_seat: SeatTimes::differing_from(self.time, first, second),
            ..self
        }
    }

    /// The time control the bot in `seat` plays by.
    pub fn time_of(&self, seat: Seat) -> TimeControl {
        self.time_by_seat.map_or(self.time, |times| times.of(seat))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use pahtum_protocol::move_time;

    use super::*;

    #[test]
    fn game_specs_follow_the_rules() {
        let time = move_time(Duration::from_millis(100));
        let game = GameSpec::random("g", 7, 42, true, time).unwrap();
        assert_eq!(game.blocks.len(), 7);
        assert_eq!(game.rules.blocks, 7);
        assert_eq!(game.seed, Some(42));
        assert!(GameSpec::random("g", 8, 42, true, time).is_err());
        let placed = GameSpec::placed("g", 5, false, time).unwrap();
        assert!(placed.blocks.is_empty());
        assert_eq!(placed.rules.placement, Placement::Players);
        let a1: Cell = "a1".parse().unwrap();
        assert!(GameSpec::fixed("g", &[a1, a1, a1], false, time).is_err());
    }

    #[test]
    fn seats_play_by_the_game_time_unless_given_their_own() {
        let time = move_time(Duration::from_millis(100));
        let slow = move_time(Duration::from_millis(400));
        let game = GameSpec::random("g", 7, 42, true, time).unwrap();
        assert_eq!(game.time_by_seat, None);
        let same = game.clone().with_seat_times(time, time);
        assert_eq!(same.time_by_seat, None);
        let own = game.with_seat_times(time, slow);
        assert_eq!((own.time_of(Seat::First), own.time_of(Seat::Second)), (time, slow));
        assert_eq!(own.time, time);
    }
}
