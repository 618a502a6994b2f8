//! The model of a tournament file once checked: what decides the games
//! ([`Tournament`]), how they are run ([`RunSettings`]), and what can be
//! wrong with a file ([`ConfigError`]). Plain data; [`super::resolve`] makes it
//! from the file's keys.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pahtum::Cell;
use pahtum_protocol::TimeControl;
use pahtum_record::AdjudicationRule;
use serde::{Deserialize, Serialize};

use crate::durability::Durability;

/// The default block counts drawn from for each layout.
pub const DEFAULT_BLOCK_COUNTS: [usize; 5] = [5, 7, 9, 11, 13];
/// The default time control: one second per move.
pub const DEFAULT_MOVE_MS: u64 = 1000;
/// The longest value of a time key: a day, the referee's longest limit of an
/// answer (so that no clock arithmetic can overflow).
pub const MAX_TIME_MS: u64 = pahtum_protocol::UNLIMITED_MOVE_MS;
/// The default number of games per pair of bots.
pub const DEFAULT_GAMES_PER_PAIR: u32 = 2;

/// Everything that decides the games of a tournament, with every default filled in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Tournament {
    /// The tournament's name, as the file gives it.
    pub name: String,
    /// The seed all layouts are derived from (see [`crate::schedule`]).
    pub seed: u64,
    /// Who meets whom.
    pub format: Format,
    /// Even: each layout is played twice with seats swapped.
    pub games_per_pair: u32,
    /// The rules of every game.
    pub rules: RulesConfig,
    /// The time control of every bot without one of its own ([`BotConfig::time`]).
    pub time: TimeControl,
    /// Fair mode: in every game, the bot that owes no answer is stopped
    /// (SIGSTOP) while its opponent thinks. Left out of the JSON when off
    /// (like a bot's `time` when it has none), so that a tournament that uses
    /// neither keeps the hash it had before they existed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub pause_idle: bool,
    /// The bots, in file order.
    pub bots: Vec<BotConfig>,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// Who meets whom.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Format {
    /// Every bot meets every other bot.
    RoundRobin,
    /// The challenger meets every other bot; the others do not meet.
    Gauntlet {
        /// The challenger's name (one of the bots).
        challenger: String,
    },
    /// A Swiss: `rounds` rounds, each paired from the scores so far, so it has no schedule fixed in advance.
    /// It is played as a league in the output folder (the league's `[swiss]` rule, `pahtum-league`'s
    /// `swiss`): each round is decided from the journal and written to it before it is played.
    Swiss {
        /// The rounds it plays.
        rounds: u32,
    },
    /// A knockout: a seeded bracket, each match `pairs` layout pairs, one more a round while level up to
    /// `max_pairs`, then the higher seed. Played as a league in the output folder, like a Swiss (the
    /// league's `[knockout]` rule, `pahtum-league`'s `knockout`).
    Knockout {
        /// The layout pairs of a match.
        pairs: u32,
        /// The most layout pairs of a match.
        max_pairs: u32,
        /// The journal of an earlier run whose ratings seed the bots (the best first; bots it did not rate
        /// after them, in file order), relative to the file's folder; `None`: the bots in file order.
        seeds_from: Option<String>,
    },
}

/// The default layout pairs of a knockout's match.
pub const DEFAULT_KNOCKOUT_PAIRS: u32 = 1;
/// The default most layout pairs of a knockout's match.
pub const DEFAULT_KNOCKOUT_MAX_PAIRS: u32 = 3;
/// The most layout pairs of a knockout's match: a pair's layout rounds are a 64-bit set.
pub const MAX_KNOCKOUT_PAIRS: u32 = 64;

/// The most rounds of a Swiss: a pair's layout rounds are a 64-bit set, and Swiss round `r` plays layout
/// round `r - 1`.
pub const MAX_SWISS_ROUNDS: u32 = 64;

impl Format {
    /// Whether its rounds are paired as they are played (a Swiss, a knockout), so that it is played as a
    /// league.
    pub fn is_paired_as_played(&self) -> bool {
        matches!(self, Format::Swiss { .. } | Format::Knockout { .. })
    }
}

/// The rules every game of the tournament is played by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RulesConfig {
    /// Whether the second player may swap after White's first stone.
    pub pie: bool,
    /// Where each layout's blocks come from.
    pub blocks: BlockSource,
    /// The block counts are used in turn, layout round `r` taking `counts[r % counts.len()]`, so that the
    /// games are balanced over the counts (`arena match --blocks`); otherwise each round draws its count
    /// from its digest (tournament files; see [`crate::schedule`]). Left out of the JSON when off, so that
    /// a tournament that draws keeps the hash it had before this existed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub cycle_counts: bool,
    /// The rule by which a game ends before its board is full (`adjudicate = "decided"`: once its result
    /// can no longer change; RECORD.md, "Adjudication"); `None` (`"off"`): every game is played out. Left
    /// out of the JSON when off, so that a tournament without it keeps the hash it had before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudicate: Option<AdjudicationRule>,
}

/// Where the blocks of each layout come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "placement", rename_all = "snake_case")]
pub enum BlockSource {
    /// Drawn by the referee from the layout's seed; the count is drawn from `counts` (or cycles through
    /// them: [`RulesConfig::cycle_counts`]).
    Random {
        /// The block counts (odd) to draw from.
        counts: Vec<usize>,
    },
    /// Placed by the players; the count is drawn from `counts` (or cycles through them).
    Players {
        /// The block counts (odd) to draw from.
        counts: Vec<usize>,
    },
    /// Given in the file; layout round `r` uses `layouts[r % layouts.len()]`.
    Fixed {
        /// The layouts, each a list of blocked cells.
        layouts: Vec<Vec<Cell>>,
    },
    /// An opening book's (`openings = "FILE"`; RECORD.md, "Opening books"): layout round `r` starts from its
    /// opening `order[r % n]`, its blocks and its given plies; the book is held whole, so that the journal's
    /// hash of the tournament covers every opening and a book changed under a run is noticed.
    Book(crate::book::Openings),
}

/// One bot of the tournament.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BotConfig {
    /// The bot's name in records and tables (unique in the tournament).
    pub name: String,
    /// How the bot is started (flattened: the file's `command` or `builtin`).
    #[serde(flatten)]
    pub launch: Launch,
    /// The working directory as written in the file (relative to the file's folder); `None` for the file's folder.
    pub dir: Option<String>,
    /// Added to the referee's environment.
    pub env: BTreeMap<String, String>,
    /// The bot's own time control, instead of the tournament's, for its own
    /// clock in every game it plays (its opponents keep theirs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<TimeControl>,
    /// The bot's sandbox, if it runs in one (`sandbox = true` at the top of
    /// the file or in its entry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxConfig>,
}

/// A sandboxed bot's limits and extra paths as the file gives them; a limit
/// the file leaves out is the referee's default
/// (`pahtum_referee::Sandbox::default`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SandboxConfig {
    /// The memory of all the bot's processes, in MiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mb: Option<u64>,
    /// The most processes and threads the bot may run at once, all counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_processes: Option<u64>,
    /// The files each of its processes may hold open at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_files: Option<u64>,
    /// The largest file it may write, in MiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_size_mb: Option<u64>,
    /// The size of its private `/tmp`, in MiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tmp_mb: Option<u64>,
    /// More paths it may read, relative to the file's folder.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ro_paths: Vec<String>,
    /// Paths it may read and write, relative to the file's folder.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rw_paths: Vec<String>,
}

/// How a bot is started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Launch {
    /// A program and its arguments (the file's `command`, split like a shell would, without a shell).
    Command(Vec<String>),
    /// A bot built into the arena executable, run as `arena bot NAME`.
    Builtin(String),
}

impl Tournament {
    /// The names of the bots, in file order.
    pub fn bot_names(&self) -> Vec<String> {
        self.bots.iter().map(|bot| bot.name.clone()).collect()
    }

    /// The bot named `name`.
    pub fn bot(&self, name: &str) -> Option<&BotConfig> {
        self.bots.iter().find(|bot| bot.name == name)
    }

    /// The time control the bot named `name` plays by: its own, else the tournament's.
    pub fn time_of(&self, name: &str) -> TimeControl {
        self.bot(name).and_then(|bot| bot.time).unwrap_or(self.time)
    }
}

/// How a tournament is run; free to change between a run and its resume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSettings {
    /// Games played at once.
    pub concurrency: usize,
    /// The output folder (journal, standings, logs).
    pub out: PathBuf,
    /// When bot processes are restarted.
    pub restart: Restart,
    /// Limits off the game clock (startup, `ready`, `ping`, quit, stderr).
    pub limits: LimitOverrides,
    /// What a timeout under overload does (`on_overload`).
    pub on_overload: OnOverload,
    /// Core pinning (`affinity`): each concurrent game's bots run on a core
    /// of their own. `None` (the default) pins exactly when the games at
    /// once are as many as the usable cores.
    pub affinity: Option<bool>,
    /// When the journal is synced to the disk.
    pub durability: Durability,
}

/// What a forfeit on time under overload (`pahtum_record::Forfeit::overloaded`) does.
///
/// The default is [`OnOverload::Count`]: the game is journaled like any
/// other, marked, and counted in the standings' note. Replaying on a machine
/// that is still overloaded mostly loses on time again and makes the run
/// longer; the cure is a CPU-time clock, fewer games at once or `pause_idle`,
/// which the warning and the note name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnOverload {
    /// The forfeit stands (the behaviour before overload detection).
    #[default]
    Count,
    /// The game is played again at once, up to [`OVERLOAD_REPLAYS`] times;
    /// the discarded records are not journaled. The last try stands.
    Replay,
}

/// How often one game is replayed after forfeits under overload, at most.
pub const OVERLOAD_REPLAYS: u32 = 3;

/// When bot processes are restarted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restart {
    /// Processes are reused between games and replaced after a failure.
    OnFailure,
    /// Every game starts fresh processes.
    EveryGame,
}

/// Limits off the game clock that the file sets; `None` keeps the referee's
/// default (the runner maps them onto the referee's limits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LimitOverrides {
    /// From the spawn to the bot's `hello`, in milliseconds (`startup_ms`).
    pub startup_ms: Option<u64>,
    /// From `new_game` to `ready`, in milliseconds (`ready_ms`).
    pub ready_ms: Option<u64>,
    /// From `ping` to `pong`, in milliseconds (`ping_ms`).
    pub ping_ms: Option<u64>,
    /// From `quit` to the exit before SIGTERM, and from SIGTERM before
    /// SIGKILL, in milliseconds (`quit_grace_ms`).
    pub quit_grace_ms: Option<u64>,
    /// The bytes of a bot's stderr logged per game (`stderr_cap_bytes`).
    pub stderr_cap_bytes: Option<u64>,
}

/// A tournament file, read and checked.
#[derive(Debug, Clone)]
pub struct TournamentFile {
    /// The file as given.
    pub path: PathBuf,
    /// The folder relative bot paths start from.
    pub base_dir: PathBuf,
    /// What decides the games (hashed into the journal).
    pub tournament: Tournament,
    /// How the games are run.
    pub settings: RunSettings,
}

/// What is wrong with a tournament file.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read the tournament file {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The read error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid TOML, or does not fit the keys of a tournament file.
    #[error("{}: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The TOML parser's message.
        message: String,
    },
    /// A key's value is not allowed.
    #[error("{}: key `{key}`: {problem}; {fix}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The key, as the file spells it (`bots[2].dir`, `rules.layouts[0]`).
        key: String,
        /// What is wrong with the value.
        problem: String,
        /// What to write instead.
        fix: String,
    },
}

impl TournamentFile {
    /// An error about `key` of this file.
    pub fn invalid(&self, key: impl Into<String>, problem: impl Into<String>, fix: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.clone(),
            key: key.into(),
            problem: problem.into(),
            fix: fix.into(),
        }
    }

    /// The key of the bot at `index`, for error messages: `bots[2]` (the third `[[bots]]`).
    pub fn bot_key(index: usize) -> String {
        format!("bots[{index}]")
    }
}
