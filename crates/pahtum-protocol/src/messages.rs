//! The messages of the protocol.
//!
//! Each direction is one enum tagged by `"type"`. Every request that needs an
//! answer carries an `id`, and the answer repeats it, so that a late answer to
//! an old request can never be taken for the answer to a new one. Unknown
//! fields are ignored in both directions, so that the protocol can grow.

use pahtum::{Action, Cell, Color, Outcome, Score};
use serde::{Deserialize, Serialize};

use crate::time::{ClockKind, TimeControl};

/// Messages from the referee to a bot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToBot {
    /// The greeting; the bot answers [`FromBot::Hello`].
    Hello {
        /// The referee's protocol major version, [`PROTOCOL_VERSION`](crate::PROTOCOL_VERSION).
        protocol: u32,
        /// The referee's name and version, such as `"pahtum-arena 0.1.0"`; for logs.
        referee: String,
    },
    /// A new game; the bot answers [`FromBot::Ready`] with the same id.
    NewGame(NewGame),
    /// Place a block (players' placement); answered by [`FromBot::Block`].
    PlaceBlock(Request),
    /// Play a stone; answered by [`FromBot::Stone`].
    PlayStone(Request),
    /// Swap or keep after White's first stone; answered by [`FromBot::Pie`].
    PieDecision(Request),
    /// Liveness check, off the clock; answered by [`FromBot::Pong`].
    Ping {
        /// The id the `pong` repeats.
        id: u64,
    },
    /// The game has ended; no answer.
    GameOver(GameOver),
    /// No more games: exit.
    Quit,
}

impl ToBot {
    /// The id the answer to this message must repeat; `None` for the
    /// messages that get no answer, and for `hello`, whose answer has no id.
    pub fn id(&self) -> Option<u64> {
        match self {
            ToBot::NewGame(NewGame { id, .. }) | ToBot::Ping { id } => Some(*id),
            ToBot::PlaceBlock(request) | ToBot::PlayStone(request) | ToBot::PieDecision(request) => Some(request.id),
            ToBot::Hello { .. } | ToBot::GameOver(_) | ToBot::Quit => None,
        }
    }

    /// The message's `"type"`.
    pub fn kind(&self) -> &'static str {
        match self {
            ToBot::Hello { .. } => "hello",
            ToBot::NewGame(_) => "new_game",
            ToBot::PlaceBlock(_) => "place_block",
            ToBot::PlayStone(_) => "play_stone",
            ToBot::PieDecision(_) => "pie_decision",
            ToBot::Ping { .. } => "ping",
            ToBot::GameOver(_) => "game_over",
            ToBot::Quit => "quit",
        }
    }

    /// The `"type"` of the one answer this message accepts (compare with
    /// [`FromBot::kind`]); `None` for `game_over` and `quit`.
    pub fn answer_kind(&self) -> Option<&'static str> {
        match self {
            ToBot::Hello { .. } => Some("hello"),
            ToBot::NewGame(_) => Some("ready"),
            ToBot::PlaceBlock(_) => Some("block"),
            ToBot::PlayStone(_) => Some("stone"),
            ToBot::PieDecision(_) => Some("pie"),
            ToBot::Ping { .. } => Some("pong"),
            ToBot::GameOver(_) | ToBot::Quit => None,
        }
    }
}

/// Messages from a bot to the referee.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromBot {
    /// The answer to [`ToBot::Hello`]: who the bot is. It has no id.
    Hello {
        /// The protocol major version the bot was written for; another one
        /// than [`PROTOCOL_VERSION`](crate::PROTOCOL_VERSION) refuses the bot.
        protocol: u32,
        /// The bot's own name, for logs (tournaments name bots by their
        /// configuration). Written by the bot: escape it before printing.
        name: String,
        /// The bot's version, if it gives one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        version: Option<String>,
        /// The bot's author, if it gives one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        author: Option<String>,
    },
    /// The answer to [`ToBot::NewGame`]: set up and ready to play (off the clock).
    Ready {
        /// The id of the `new_game` it answers.
        id: u64,
    },
    /// The answer to [`ToBot::PlaceBlock`]: where to put a block.
    Block {
        /// The id of the request it answers.
        id: u64,
        /// The cell to block; it must be free.
        cell: Cell,
        /// What the bot says about its decision, recorded with the move.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        info: Option<Info>,
    },
    /// The answer to [`ToBot::PlayStone`]: where to put a stone of the bot's colour.
    Stone {
        /// The id of the request it answers.
        id: u64,
        /// The cell for the stone; it must be free.
        cell: Cell,
        /// What the bot says about its decision, recorded with the move.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        info: Option<Info>,
    },
    /// The answer to [`ToBot::PieDecision`].
    Pie {
        /// The id of the request it answers.
        id: u64,
        /// `true` to take over White and its first stone, `false` to stay
        /// Black. Black moves next either way.
        swap: bool,
        /// What the bot says about its decision, recorded with the move.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        info: Option<Info>,
    },
    /// The answer to [`ToBot::Ping`] (off the clock).
    Pong {
        /// The id of the `ping` it answers.
        id: u64,
    },
}

impl FromBot {
    /// The id this message answers, if it answers a request.
    pub fn id(&self) -> Option<u64> {
        match self {
            FromBot::Hello { .. } => None,
            FromBot::Ready { id }
            | FromBot::Block { id, .. }
            | FromBot::Stone { id, .. }
            | FromBot::Pie { id, .. }
            | FromBot::Pong { id } => Some(*id),
        }
    }

    /// The move this message makes, for `block`, `stone` and `pie`.
    pub fn action(&self) -> Option<Action> {
        match *self {
            FromBot::Block { cell, .. } => Some(Action::Block(cell)),
            FromBot::Stone { cell, .. } => Some(Action::Stone(cell)),
            FromBot::Pie { swap, .. } => Some(Action::Pie(swap)),
            FromBot::Hello { .. } | FromBot::Ready { .. } | FromBot::Pong { .. } => None,
        }
    }

    /// The message's `"type"`.
    pub fn kind(&self) -> &'static str {
        match self {
            FromBot::Hello { .. } => "hello",
            FromBot::Ready { .. } => "ready",
            FromBot::Block { .. } => "block",
            FromBot::Stone { .. } => "stone",
            FromBot::Pie { .. } => "pie",
            FromBot::Pong { .. } => "pong",
        }
    }
}

/// Everything a bot needs to know about a new game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewGame {
    /// The id that [`FromBot::Ready`] repeats.
    pub id: u64,
    /// The game's stable id in its tournament.
    pub game: String,
    /// The colour this bot starts with (a pie swap can change it).
    pub color: Color,
    /// The rules of the game.
    pub rules: Rules,
    /// The blocks, or empty when the players place them.
    pub blocks: Vec<Cell>,
    /// This bot's time control for the game; the opponent's may differ.
    pub time: TimeControl,
}

/// The rules of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Rules {
    /// Whether the second player may swap after White's first stone.
    pub pie: bool,
    /// How many blocks the board has (odd).
    pub blocks: usize,
    /// Who chose the blocks.
    pub placement: Placement,
}

/// How the blocks were chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// Drawn by the referee from the game's seed.
    Random,
    /// Given in the tournament file.
    Fixed,
    /// Placed by the players, Black first and last.
    Players,
}

/// A request for a block, a stone or a pie decision, with the full state so
/// that a bot may be stateless.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The id the answer repeats.
    pub id: u64,
    /// The game's stable id in its tournament, as in [`NewGame::game`].
    pub game: String,
    /// The colour this bot plays now, after any swap (for `place_block`, the
    /// colour whose turn it is to place).
    pub color: Color,
    /// The rules of the game, as in [`NewGame::rules`].
    pub rules: Rules,
    /// Every block on the board now.
    pub blocks: Vec<Cell>,
    /// Every white stone, in no particular order.
    pub white: Vec<Cell>,
    /// Every black stone, in no particular order.
    pub black: Vec<Cell>,
    /// Every action so far, in order, in the rules' notation: `"#a1"` (a
    /// block), `"d4"` (a stone), `"swap"` or `"keep"` (the pie decision).
    pub moves: Vec<String>,
    /// The clocks as they stood when the request was written, and how long
    /// this answer may take.
    pub clock: Clock,
}

/// The clock as it stands for one request, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    /// This bot's remaining Fischer time; `null` without a Fischer clock.
    #[serde(default)]
    pub remaining_ms: Option<u64>,
    /// The opponent's remaining Fischer time; `null` without a Fischer clock.
    #[serde(default)]
    pub opponent_ms: Option<u64>,
    /// This bot's Fischer increment, added to its clock after each answer.
    #[serde(default)]
    pub increment_ms: u64,
    /// The per-move limit; `null` for none.
    #[serde(default)]
    pub move_ms: Option<u64>,
    /// How long this answer may take: the smaller of the remaining time and the
    /// per-move limit (the margin is not included).
    pub timeout_ms: u64,
    /// What the times measure (`time.clock` of `new_game`); left out for wall time.
    #[serde(default, skip_serializing_if = "ClockKind::is_wall")]
    pub kind: ClockKind,
}

impl Clock {
    /// The clock of a game with a limit of `ms` per answer and no Fischer clock.
    pub const fn per_move(ms: u64) -> Clock {
        Clock {
            remaining_ms: None,
            opponent_ms: None,
            increment_ms: 0,
            move_ms: Some(ms),
            timeout_ms: ms,
            kind: ClockKind::Wall,
        }
    }
}

/// Optional information a bot may attach to an answer; the referee records it
/// with the move.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Info {
    /// The bot's evaluation, from its own point of view (its own units).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval: Option<f64>,
    /// Search depth, in the bot's own sense (plies, for most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Nodes searched or playouts run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Principal variation, in the rules' notation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pv: Option<Vec<String>>,
    /// A short comment, free text. Written by the bot: escape it before printing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

impl Info {
    /// What a record keeps of it: the comment cut to
    /// [`COMMENT_BYTES`](crate::untrusted::COMMENT_BYTES), the principal
    /// variation to [`PV_MOVES`](crate::untrusted::PV_MOVES) moves of
    /// [`PV_MOVE_BYTES`](crate::untrusted::PV_MOVE_BYTES) each, each cut
    /// marked ([`untrusted::cut`](crate::untrusted::cut); a cut variation
    /// ends with `… [cut: N moves]`).
    pub fn capped(mut self) -> Info {
        use crate::untrusted::{COMMENT_BYTES, PV_MOVE_BYTES, PV_MOVES, cut_in_place};
        if let Some(comment) = &mut self.comment {
            cut_in_place(comment, COMMENT_BYTES);
        }
        if let Some(pv) = &mut self.pv {
            if pv.len() > PV_MOVES {
                let dropped = pv.len() - PV_MOVES;
                pv.truncate(PV_MOVES);
                pv.push(format!("… [cut: {dropped} moves]"));
            }
            for step in pv.iter_mut().take(PV_MOVES) {
                cut_in_place(step, PV_MOVE_BYTES);
            }
        }
        self
    }
}

/// The end of a game; the bot does not answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameOver {
    /// The game's stable id in its tournament, as in [`NewGame::game`].
    pub game: String,
    /// The colour the bot played at the end.
    pub color: Color,
    /// Who won, by colour. After a verdict, the colour that did not forfeit,
    /// whatever the score (a draw when both forfeited).
    pub result: Outcome,
    /// Both colours' points on the board as it stands (final after a normal end).
    pub score: Score,
    /// Why the game ended: [`Reason::Normal`] or a verdict.
    pub reason: Reason,
    /// For an early end: which colour forfeited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loser: Option<Color>,
    /// A sentence on what happened, for forfeits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The board is full and the scores decide, or the tournament adjudicated a game whose result could no
    /// longer change (the result is then the proven one, the score the board as it stands).
    Normal,
    /// A bot did not answer within its time (plus the margin).
    Timeout,
    /// A bot exited, crashed, or closed its stdout or stdin.
    Disconnect,
    /// A bot played a cell that is not free (blocked, or occupied by a stone)
    /// or not on the board (`"h9"`), or the wrong kind of move for the phase
    /// (a block, a stone or a pie decision where another is due).
    IllegalMove,
    /// A bot printed something that breaks the protocol: not JSON, an unknown
    /// `"type"`, a message that does not fit its type (such as a missing
    /// field), a `hello`, `ready` or `pong` where a move is due, a wrong or
    /// stale id, an answer to no request, or a line longer than
    /// [`MAX_LINE_BYTES`](crate::MAX_LINE_BYTES).
    ProtocolError,
    /// A bot did not answer `new_game` or `ping` within its bound (off the
    /// game clock).
    Stall,
    /// A sandboxed bot used more memory than its limit (its processes were
    /// killed by the kernel's out-of-memory killer in its cgroup).
    Memory,
    /// A player resigned: the person at `arena play`'s prompt quit. Not a
    /// verdict on a bot (a bot cannot resign), but a loss all the same.
    Resign,
}

impl Reason {
    /// Every reason, the normal end first.
    pub const ALL: [Reason; 8] = [
        Reason::Normal,
        Reason::Timeout,
        Reason::Disconnect,
        Reason::IllegalMove,
        Reason::ProtocolError,
        Reason::Stall,
        Reason::Memory,
        Reason::Resign,
    ];

    /// The name used in JSON and tables.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Normal => "normal",
            Reason::Timeout => "timeout",
            Reason::Disconnect => "disconnect",
            Reason::IllegalMove => "illegal_move",
            Reason::ProtocolError => "protocol_error",
            Reason::Stall => "stall",
            Reason::Memory => "memory",
            Reason::Resign => "resign",
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::untrusted::{COMMENT_BYTES, PV_MOVES};

    #[test]
    fn capping_keeps_a_short_info_whole_and_marks_what_it_cuts() {
        let short = Info {
            eval: Some(-2.5),
            depth: Some(4),
            nodes: Some(18211),
            pv: Some(vec!["d3".into(), "#d5".into(), "swap".into()]),
            comment: Some("blocking column c".into()),
        };
        assert_eq!(short.clone().capped(), short);
        let full = Info {
            pv: Some(vec!["d3".into(); PV_MOVES]),
            comment: Some("é".repeat(COMMENT_BYTES / 2)),
            ..Info::default()
        };
        assert_eq!(full.clone().capped(), full);

        let long = Info {
            pv: Some(vec!["d3".into(); PV_MOVES + 3]),
            comment: Some(format!("{}!", full.comment.as_deref().unwrap())),
            ..Info::default()
        };
        let capped = long.capped();
        let pv = capped.pv.unwrap();
        assert_eq!(pv.len(), PV_MOVES + 1);
        assert_eq!(pv[PV_MOVES], "… [cut: 3 moves]");
        assert!(capped.comment.unwrap().ends_with("é… [cut: 1 bytes]"));
    }
}
