//! What the referee is asked to do: how to launch a bot, the limits off the
//! game clock, and everything about one game except the bots.
//!
//! These are plain data with public fields, so that a tournament file, the
//! command line or a test can build them directly; the constructors check the
//! combinations that the rules forbid.

use std::path::PathBuf;
use std::time::Duration;

use crate::sandbox::Sandbox;
use pahtum::{Cell, Color, Game, Seat, SetupError};
use pahtum_protocol::{ClockKind, Placement, Rules, TimeControl};
use pahtum_record::{GameRecord, MoveRecord, Players, SeatTimes, Termination, Timing, unix_ms};

/// The referee's tolerance beyond a move's limit before it calls a timeout.
pub const DEFAULT_MARGIN_MS: u64 = 20;

/// The limit of one answer when a game has neither a per-move limit nor a
/// Fischer clock: a day, so that a dead or silent bot still ends the game.
pub const UNLIMITED_MOVE_MS: u64 = 24 * 60 * 60 * 1000;

/// How to launch a bot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotSpec {
    /// The bot's name in records and tables (the greeting's self-reported
    /// name is kept apart, see [`Bot::identity`](crate::Bot::identity)).
    pub name: String,
    /// The program to run: a path, or a name looked up on the `PATH`.
    pub program: String,
    /// The program's arguments, passed as they are (no shell).
    pub args: Vec<String>,
    /// The working directory; the referee's own when `None`.
    pub dir: Option<PathBuf>,
    /// Added to the referee's environment (to an empty one in a sandbox).
    pub env: Vec<(String, String)>,
    /// Run the bot in this sandbox (`crate::sandbox`); `None`: with the
    /// referee's rights.
    pub sandbox: Option<Sandbox>,
}

/// Why a command line cannot be split into a program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// The command is empty or only blanks.
    #[error("the bot command is empty: give a program and its arguments, e.g. \"python3 bot.py\"")]
    Empty,
    /// A quote is never closed or a backslash ends the command (the command is kept).
    #[error("the bot command {0:?} has an unclosed quote or a trailing backslash")]
    Unbalanced(String),
}

impl BotSpec {
    /// A bot launched by a shell-like `command` (`"python3 bots/x/bot.py"`,
    /// with quotes for arguments holding spaces; no shell is involved).
    pub fn from_command(name: impl Into<String>, command: &str) -> Result<BotSpec, CommandError> {
        let mut words = shlex::split(command).ok_or_else(|| CommandError::Unbalanced(command.to_owned()))?;
        if words.is_empty() {
            return Err(CommandError::Empty);
        }
        let program = words.remove(0);
        Ok(BotSpec {
            name: name.into(),
            program,
            args: words,
            dir: None,
            env: Vec::new(),
            sandbox: None,
        })
    }

    /// The command as one line, for messages.
    pub fn command_line(&self) -> String {
        shlex::try_join(std::iter::once(self.program.as_str()).chain(self.args.iter().map(String::as_str)))
            .unwrap_or_else(|_| format!("{} {}", self.program, self.args.join(" ")))
    }
}

/// Limits off the game clock. The defaults are those of `protocol.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// From the spawn to the bot's `hello` (10 s: an interpreter or a model
    /// may load slowly).
    pub startup: Duration,
    /// From `new_game` to `ready` (5 s).
    pub ready: Duration,
    /// From `ping` to `pong` (2 s).
    pub ping: Duration,
    /// From `quit` to the exit before SIGTERM, and again from SIGTERM before
    /// SIGKILL (1 s).
    pub quit_grace: Duration,
    /// The bytes of a bot's stderr written to its log per game (1 MiB); the
    /// rest is counted and cut.
    pub stderr_cap: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            startup: Duration::from_secs(10),
            ready: Duration::from_secs(5),
            ping: Duration::from_secs(2),
            quit_grace: Duration::from_secs(1),
            stderr_cap: 1 << 20,
        }
    }
}

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
    /// Fair mode: the bot that is not to move is stopped (SIGSTOP) until it
    /// is asked, so that it cannot think on its opponent's CPU.
    pub pause_idle: bool,
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
    /// end, with the moves' timings and how it ended; it ends now.
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
            moves,
            swap: game.swapped(),
            swap_move,
            score,
            result: termination.result(score),
            termination,
            players,
            started_unix_ms,
            ended_unix_ms: unix_ms(),
        }
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
        }
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

/// A per-move limit with the default margin.
pub fn move_time(limit: Duration) -> TimeControl {
    TimeControl {
        move_ms: Some(limit.as_millis() as u64),
        base_ms: None,
        increment_ms: 0,
        margin_ms: DEFAULT_MARGIN_MS,
        clock: ClockKind::Wall,
    }
}

/// A Fischer clock (base plus increment per answer) with the default margin.
pub fn fischer(base: Duration, increment: Duration) -> TimeControl {
    TimeControl {
        move_ms: None,
        base_ms: Some(base.as_millis() as u64),
        increment_ms: increment.as_millis() as u64,
        margin_ms: DEFAULT_MARGIN_MS,
        clock: ClockKind::Wall,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_like_a_shell() {
        let spec = BotSpec::from_command("x", "python3 'my bots/bot.py' --depth 3").unwrap();
        assert_eq!(spec.program, "python3");
        assert_eq!(spec.args, ["my bots/bot.py", "--depth", "3"]);
        assert_eq!(spec.command_line(), "python3 'my bots/bot.py' --depth 3");
        assert_eq!(BotSpec::from_command("x", "  "), Err(CommandError::Empty));
        assert!(matches!(
            BotSpec::from_command("x", "bot 'open"),
            Err(CommandError::Unbalanced(_))
        ));
    }

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
