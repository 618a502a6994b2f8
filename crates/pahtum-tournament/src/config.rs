//! The tournament file: TOML in, a checked [`Tournament`] and its [`RunSettings`] out.
//!
//! The file is read in two layers. The first mirrors the file, every key
//! optional and unknown keys refused (a misspelt key is reported, not silently
//! ignored); the second checks each key and fills in every default, so that an
//! error can name the file, the key, what is wrong and what would be right.
//!
//! The result is split in two on purpose. [`Tournament`] holds what decides the
//! games (bots, rules, clocks, fair mode, seed, pairing); the journal keeps it in its
//! header and refuses to resume when it changes. [`RunSettings`] holds how the
//! games are run (concurrency, output folder, limits, restarts, durability); it may change
//! between a run and its resume, and flags on the command line override it.
//!
//! Paths: a bot's `dir` is relative to the tournament file's folder (so that a
//! file works from any working directory), and a bot's program, when it
//! contains a `/`, is relative to the bot's working directory, as if typed in a
//! shell there. The output folder, like `--out`, is relative to the working
//! directory of `arena run`.
//!
//! `tournaments/reference.toml` documents every key and its default.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use pahtum::Cell;
use pahtum_protocol::{ClockKind, DEFAULT_MARGIN_MS, Placement, TimeControl};
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Format {
    /// Every bot meets every other bot.
    RoundRobin,
    /// The challenger meets every other bot; the others do not meet.
    Gauntlet {
        /// The challenger's name (one of the bots).
        challenger: String,
    },
}

/// The rules every game of the tournament is played by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
}

/// Where the blocks of each layout come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
}

impl BlockSource {
    /// The protocol's name for this kind of placement.
    pub fn placement(&self) -> Placement {
        match self {
            BlockSource::Random { .. } => Placement::Random,
            BlockSource::Players { .. } => Placement::Players,
            BlockSource::Fixed { .. } => Placement::Fixed,
        }
    }
}

/// One bot of the tournament.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxConfig {
    /// The memory of all the bot's processes, in MiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mb: Option<u64>,
    /// The most processes and threads the bot may run at once, all counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_processes: Option<u64>,
    /// More paths it may read, relative to the file's folder.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ro_paths: Vec<String>,
    /// Paths it may read and write, relative to the file's folder.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rw_paths: Vec<String>,
}

/// How a bot is started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// Reads and checks the tournament file at `path`.
pub fn load(path: &Path) -> Result<TournamentFile, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })?;
    parse(path, &text)
}

/// Checks the text of a tournament file; `path` names it in errors and anchors its relative paths.
pub fn parse(path: &Path, text: &str) -> Result<TournamentFile, ConfigError> {
    let file: FileKeys = toml::from_str(text).map_err(|error| ConfigError::Syntax {
        path: path.to_owned(),
        message: error.to_string().trim_end().to_owned(),
    })?;
    let invalid = |key: &str, problem: String, fix: &str| ConfigError::Invalid {
        path: path.to_owned(),
        key: key.to_owned(),
        problem,
        fix: fix.to_owned(),
    };
    let (tournament, settings) = resolve(file).map_err(|e| invalid(&e.key, e.problem, &e.fix))?;
    let base_dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    };
    Ok(TournamentFile {
        path: path.to_owned(),
        base_dir,
        tournament,
        settings,
    })
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

/// The file's keys as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileKeys {
    name: Option<String>,
    seed: Option<u64>,
    format: Option<String>,
    challenger: Option<String>,
    games_per_pair: Option<i64>,
    pause_idle: Option<bool>,
    sandbox: Option<bool>,
    memory_mb: Option<u64>,
    max_processes: Option<u64>,
    concurrency: Option<i64>,
    out: Option<PathBuf>,
    restart: Option<String>,
    on_overload: Option<String>,
    affinity: Option<bool>,
    durability: Option<String>,
    #[serde(default)]
    rules: RulesKeys,
    #[serde(default)]
    time: TimeKeys,
    #[serde(default)]
    limits: LimitKeys,
    #[serde(default)]
    bots: Vec<BotKeys>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesKeys {
    placement: Option<String>,
    blocks: Option<Vec<i64>>,
    layouts: Option<Vec<Vec<String>>>,
    pie: Option<bool>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct TimeKeys {
    move_ms: Option<u64>,
    base_ms: Option<u64>,
    increment_ms: Option<u64>,
    margin_ms: Option<u64>,
    clock: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitKeys {
    startup_ms: Option<u64>,
    ready_ms: Option<u64>,
    ping_ms: Option<u64>,
    quit_grace_ms: Option<u64>,
    stderr_cap_bytes: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BotKeys {
    name: Option<String>,
    command: Option<String>,
    builtin: Option<String>,
    dir: Option<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    time: Option<TimeKeys>,
    sandbox: Option<bool>,
    memory_mb: Option<u64>,
    max_processes: Option<u64>,
    #[serde(default)]
    ro_paths: Vec<String>,
    #[serde(default)]
    rw_paths: Vec<String>,
}

/// The sandbox keys at the top of the file: the default of every bot.
#[derive(Debug, Clone, Copy)]
struct SandboxDefaults {
    sandbox: bool,
    memory_mb: Option<u64>,
    max_processes: Option<u64>,
}

/// One problem with one key, before the file's path is attached.
struct KeyError {
    key: String,
    problem: String,
    fix: String,
}

fn key_error(key: impl Into<String>, problem: impl fmt::Display, fix: impl Into<String>) -> KeyError {
    KeyError {
        key: key.into(),
        problem: problem.to_string(),
        fix: fix.into(),
    }
}

fn resolve(file: FileKeys) -> Result<(Tournament, RunSettings), KeyError> {
    let name = file
        .name
        .ok_or_else(|| key_error("name", "missing", "add a name such as `name = \"my-tournament\"`"))?;
    check_name("name", &name)?;
    let defaults = SandboxDefaults {
        sandbox: file.sandbox.unwrap_or(false),
        memory_mb: file.memory_mb,
        max_processes: file.max_processes,
    };
    if !defaults.sandbox && (defaults.memory_mb.is_some() || defaults.max_processes.is_some()) {
        return Err(key_error(
            if defaults.memory_mb.is_some() {
                "memory_mb"
            } else {
                "max_processes"
            },
            "a sandbox limit without the sandbox",
            "add `sandbox = true` (limits hold only in the sandbox), or set it in the sandboxed bots' entries",
        ));
    }
    let bots = file
        .bots
        .into_iter()
        .enumerate()
        .map(|(index, keys)| resolve_bot(index, keys, defaults))
        .collect::<Result<Vec<_>, _>>()?;
    check_bots(&bots)?;
    let format = resolve_format(file.format.as_deref(), file.challenger, &bots)?;
    let games_per_pair = match file.games_per_pair {
        None => DEFAULT_GAMES_PER_PAIR,
        Some(n) if n >= 2 && n % 2 == 0 => n as u32,
        Some(n) => {
            return Err(key_error(
                "games_per_pair",
                format!("{n} games per pair"),
                "use an even number from 2 up: each layout is played twice with seats swapped",
            ));
        }
    };
    let tournament = Tournament {
        name: name.clone(),
        seed: file.seed.unwrap_or(0),
        format,
        games_per_pair,
        rules: resolve_rules(file.rules)?,
        time: resolve_time("time", &file.time)?,
        pause_idle: file.pause_idle.unwrap_or(false),
        bots,
    };
    let concurrency = match file.concurrency {
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        Some(n) if n >= 1 => n as usize,
        Some(n) => return Err(key_error("concurrency", format!("{n}"), "use 1 or more games at once")),
    };
    let restart = match file.restart.as_deref() {
        None | Some("on-failure") => Restart::OnFailure,
        Some("every-game") => Restart::EveryGame,
        Some(other) => {
            return Err(key_error(
                "restart",
                format!("\"{other}\" is not a restart policy"),
                "use \"on-failure\" (reuse bot processes) or \"every-game\"",
            ));
        }
    };
    let limits = LimitOverrides {
        startup_ms: file.limits.startup_ms,
        ready_ms: file.limits.ready_ms,
        ping_ms: file.limits.ping_ms,
        quit_grace_ms: file.limits.quit_grace_ms,
        stderr_cap_bytes: file.limits.stderr_cap_bytes,
    };
    let on_overload = match file.on_overload.as_deref() {
        None | Some("count") => OnOverload::Count,
        Some("replay") => OnOverload::Replay,
        Some(other) => {
            return Err(key_error(
                "on_overload",
                format!("\"{other}\" is not a choice"),
                "use \"count\" (a timeout under overload stands, marked) or \"replay\" (the game is played again, \
                 up to 3 times)",
            ));
        }
    };
    let durability = match file.durability.as_deref().map(str::parse::<Durability>) {
        None => Durability::default(),
        Some(Ok(durability)) => durability,
        Some(Err(error)) => {
            return Err(key_error(
                "durability",
                format!("\"{}\" is not a durability", error.0),
                crate::durability::CHOICES,
            ));
        }
    };
    let settings = RunSettings {
        concurrency,
        out: file.out.unwrap_or_else(|| Path::new("runs").join(&name)),
        restart,
        limits,
        on_overload,
        affinity: file.affinity,
        durability,
    };
    Ok((tournament, settings))
}

/// The longest plain name, in characters.
pub const MAX_NAME_LEN: usize = 64;

/// [`is_plain_name`] in words.
pub const PLAIN_NAME_RULE: &str = "1 to 64 letters, digits, '-', '_' or '.', not starting with '.'";

/// Whether `c` may be in a plain name: an ASCII letter or digit, '-', '_' or '.'.
pub fn is_plain_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// Whether `name` can name a tournament or a bot: names become file names
/// (the output folder, the bots' logs), so they must be plain:
/// [`PLAIN_NAME_RULE`].
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_NAME_LEN && name.chars().all(is_plain_char) && !name.starts_with('.')
}

fn check_name(key: &str, name: &str) -> Result<(), KeyError> {
    if !is_plain_name(name) {
        return Err(key_error(
            key,
            format!("{name:?} is not a plain name"),
            format!("use {PLAIN_NAME_RULE}"),
        ));
    }
    Ok(())
}

fn resolve_bot(index: usize, keys: BotKeys, defaults: SandboxDefaults) -> Result<BotConfig, KeyError> {
    let key = TournamentFile::bot_key(index);
    let name = keys.name.ok_or_else(|| {
        key_error(
            format!("{key}.name"),
            "missing",
            "give every [[bots]] entry a name such as `name = \"my-bot\"`",
        )
    })?;
    check_name(&format!("{key}.name"), &name)?;
    let launch = match (keys.command, keys.builtin) {
        (Some(command), None) => {
            let words = shlex::split(&command).ok_or_else(|| {
                key_error(
                    format!("{key}.command"),
                    format!("bot {name}: {command:?} has unbalanced quotes"),
                    "quote words as in a shell, e.g. `command = \"python3 'my bot.py'\"`",
                )
            })?;
            if words.is_empty() {
                return Err(key_error(
                    format!("{key}.command"),
                    format!("bot {name}: the command is empty"),
                    "give the program and its arguments, e.g. `command = \"python3 bot.py\"`",
                ));
            }
            Launch::Command(words)
        }
        (None, Some(builtin)) => Launch::Builtin(builtin),
        (Some(_), Some(_)) => {
            return Err(key_error(
                key,
                format!("bot {name} has both `command` and `builtin`"),
                "keep one of them",
            ));
        }
        (None, None) => {
            return Err(key_error(
                key,
                format!("bot {name} has neither `command` nor `builtin`"),
                "add `command = \"program args\"` or `builtin = \"heuristic\"`",
            ));
        }
    };
    let time = keys
        .time
        .map(|time| resolve_time(&format!("{key}.time"), &time))
        .transpose()
        .map_err(|error| KeyError {
            problem: format!("bot {name}: {}", error.problem),
            ..error
        })?;
    let sandbox_key = [
        ("memory_mb", keys.memory_mb.is_some()),
        ("max_processes", keys.max_processes.is_some()),
        ("ro_paths", !keys.ro_paths.is_empty()),
        ("rw_paths", !keys.rw_paths.is_empty()),
    ]
    .into_iter()
    .find_map(|(key, given)| given.then_some(key));
    let sandboxed = keys.sandbox.unwrap_or(defaults.sandbox);
    if let (false, Some(sandbox_key)) = (sandboxed, sandbox_key) {
        return Err(key_error(
            format!("{key}.{sandbox_key}"),
            format!("bot {name}: a sandbox setting for a bot that runs without the sandbox"),
            "add `sandbox = true` to the bot (or at the top of the file)",
        ));
    }
    let sandbox = sandboxed.then(|| SandboxConfig {
        memory_mb: keys.memory_mb.or(defaults.memory_mb),
        max_processes: keys.max_processes.or(defaults.max_processes),
        ro_paths: keys.ro_paths,
        rw_paths: keys.rw_paths,
    });
    if let Some(config) = &sandbox
        && (config.memory_mb == Some(0) || config.max_processes == Some(0))
    {
        return Err(key_error(
            format!("{key}.memory_mb"),
            format!("bot {name}: a memory or process limit of 0"),
            "give the MiB of memory (default 1024) and the processes and threads (default 256) the bot may use",
        ));
    }
    Ok(BotConfig {
        name,
        launch,
        dir: keys.dir,
        env: keys.env,
        time,
        sandbox,
    })
}

fn check_bots(bots: &[BotConfig]) -> Result<(), KeyError> {
    if bots.len() < 2 {
        return Err(key_error(
            "bots",
            format!("{} bot(s)", bots.len()),
            "add at least two [[bots]] entries",
        ));
    }
    let mut seen = BTreeSet::new();
    for (index, bot) in bots.iter().enumerate() {
        if !seen.insert(&bot.name) {
            return Err(key_error(
                format!("{}.name", TournamentFile::bot_key(index)),
                format!("the name {} is used twice", bot.name),
                "give every bot its own name",
            ));
        }
    }
    Ok(())
}

fn resolve_format(format: Option<&str>, challenger: Option<String>, bots: &[BotConfig]) -> Result<Format, KeyError> {
    match (format.unwrap_or("round-robin"), challenger) {
        ("round-robin", None) => Ok(Format::RoundRobin),
        ("round-robin", Some(_)) => Err(key_error(
            "challenger",
            "a challenger is only meaningful in a gauntlet",
            "set `format = \"gauntlet\"` or remove `challenger`",
        )),
        ("gauntlet", Some(challenger)) => {
            if bots.iter().any(|bot| bot.name == challenger) {
                Ok(Format::Gauntlet { challenger })
            } else {
                let names: Vec<&str> = bots.iter().map(|bot| bot.name.as_str()).collect();
                Err(key_error(
                    "challenger",
                    format!("no bot is named {challenger:?}"),
                    format!("use one of the bots' names: {}", names.join(", ")),
                ))
            }
        }
        ("gauntlet", None) => Err(key_error(
            "challenger",
            "missing: a gauntlet needs a challenger",
            "add `challenger = \"NAME\"` with the name of the bot that meets every other",
        )),
        (other, _) => Err(key_error(
            "format",
            format!("\"{other}\" is not a format"),
            "use \"round-robin\" or \"gauntlet\"",
        )),
    }
}

fn resolve_rules(keys: RulesKeys) -> Result<RulesConfig, KeyError> {
    let pie = keys.pie.unwrap_or(true);
    let placement = keys.placement.as_deref().unwrap_or("random");
    let counts = || -> Result<Vec<usize>, KeyError> {
        let Some(counts) = &keys.blocks else {
            return Ok(DEFAULT_BLOCK_COUNTS.to_vec());
        };
        if counts.is_empty() {
            return Err(key_error(
                "rules.blocks",
                "the list is empty",
                "give the block counts to draw from, e.g. `blocks = [5, 7, 9]`",
            ));
        }
        counts
            .iter()
            .map(|&count| {
                usize::try_from(count)
                    .ok()
                    .filter(|&count| pahtum::setup::check_count(count).is_ok())
                    .ok_or_else(|| {
                        key_error(
                            "rules.blocks",
                            format!("{count} blocks"),
                            "use odd counts from 1 to 47, so that both colours get as many stones",
                        )
                    })
            })
            .collect()
    };
    let no_layouts = |placement: &str| match keys.layouts {
        Some(_) => Err(key_error(
            "rules.layouts",
            format!("layouts are only used with placement = \"fixed\", not \"{placement}\""),
            "remove `layouts` or set `placement = \"fixed\"`",
        )),
        None => Ok(()),
    };
    let blocks = match placement {
        "random" => {
            no_layouts(placement)?;
            BlockSource::Random { counts: counts()? }
        }
        "players" => {
            no_layouts(placement)?;
            BlockSource::Players { counts: counts()? }
        }
        "fixed" => {
            if keys.blocks.is_some() {
                return Err(key_error(
                    "rules.blocks",
                    "block counts are not used with placement = \"fixed\" (each layout has its own)",
                    "remove `blocks`",
                ));
            }
            BlockSource::Fixed {
                layouts: resolve_layouts(keys.layouts.as_deref())?,
            }
        }
        other => {
            return Err(key_error(
                "rules.placement",
                format!("\"{other}\" is not a placement"),
                "use \"random\", \"players\" or \"fixed\"",
            ));
        }
    };
    Ok(RulesConfig {
        pie,
        blocks,
        cycle_counts: false,
    })
}

fn resolve_layouts(layouts: Option<&[Vec<String>]>) -> Result<Vec<Vec<Cell>>, KeyError> {
    let fix = "give a list of layouts, each a list of an odd number of distinct cells, e.g. `layouts = [[\"a1\", \"d4\", \"g7\"]]`";
    let layouts = layouts
        .filter(|layouts| !layouts.is_empty())
        .ok_or_else(|| key_error("rules.layouts", "missing: placement = \"fixed\" needs layouts", fix))?;
    layouts
        .iter()
        .enumerate()
        .map(|(index, layout)| {
            let key = format!("rules.layouts[{index}]");
            let cells = layout
                .iter()
                .map(|text| {
                    text.parse::<Cell>()
                        .map_err(|error| key_error(&key, format!("{text:?}: {error}"), fix))
                })
                .collect::<Result<Vec<Cell>, _>>()?;
            pahtum::setup::fixed_blocks(&cells).map_err(|error| key_error(&key, error, fix))?;
            Ok(cells)
        })
        .collect()
}

/// The time control of the `[time]` table, or of a bot's `[bots.time]` (named
/// `key` in errors): one second per move when it sets no limit.
fn resolve_time(key: &str, keys: &TimeKeys) -> Result<TimeControl, KeyError> {
    let TimeKeys {
        move_ms,
        base_ms,
        increment_ms,
        margin_ms,
        ref clock,
    } = *keys;
    let clock = match clock.as_deref() {
        None | Some("wall") => ClockKind::Wall,
        Some("cpu") => ClockKind::Cpu,
        Some(other) => {
            return Err(key_error(
                format!("{key}.clock"),
                format!("\"{other}\" is not a kind of clock"),
                "use \"wall\" (the default: wall time) or \"cpu\" (the CPU time of the bot's processes, \
                 which does not depend on what else the machine runs)",
            ));
        }
    };
    let increment_ms = increment_ms.unwrap_or(0);
    if base_ms.is_none() && increment_ms > 0 {
        return Err(key_error(
            format!("{key}.increment_ms"),
            "an increment without a Fischer clock",
            "add `base_ms` (the clock's starting time) or remove `increment_ms`",
        ));
    }
    if move_ms == Some(0) || base_ms == Some(0) {
        return Err(key_error(
            key,
            "a limit of 0 ms",
            "give every bot at least 1 ms (plus the margin) per answer",
        ));
    }
    let limits = [
        ("move_ms", move_ms),
        ("base_ms", base_ms),
        ("increment_ms", Some(increment_ms)),
        ("margin_ms", margin_ms),
    ];
    if let Some((name, ms)) = limits
        .iter()
        .find_map(|&(name, ms)| ms.filter(|&ms| ms > MAX_TIME_MS).map(|ms| (name, ms)))
    {
        return Err(key_error(
            format!("{key}.{name}"),
            format!("{ms} ms is longer than a day"),
            format!("give at most {MAX_TIME_MS} ms (a day, the referee's longest limit)"),
        ));
    }
    let move_ms = match (move_ms, base_ms) {
        (None, None) => Some(DEFAULT_MOVE_MS),
        (move_ms, _) => move_ms,
    };
    Ok(TimeControl {
        move_ms,
        base_ms,
        increment_ms,
        margin_ms: margin_ms.unwrap_or(DEFAULT_MARGIN_MS),
        clock,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
        name = "t"
        [[bots]]
        name = "a"
        command = "python3 a.py"
        [[bots]]
        name = "b"
        builtin = "heuristic"
    "#;

    fn parse_text(text: &str) -> Result<TournamentFile, ConfigError> {
        parse(Path::new("tournaments/t.toml"), text)
    }

    fn error_of(text: &str) -> String {
        parse_text(text).unwrap_err().to_string()
    }

    #[test]
    fn sandbox_settings_need_the_sandbox() {
        let error = parse_text(&MINIMAL.replace("name = \"t\"", "name = \"t\"\nmemory_mb = 100"))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("`memory_mb`") && error.contains("sandbox = true"),
            "{error}"
        );
        let bot = MINIMAL.replacen("[[bots]]\n", "[[bots]]\nrw_paths = [\"x\"]\n", 1);
        let error = parse_text(&bot).unwrap_err().to_string();
        assert!(
            error.contains("bots[0].rw_paths") && error.contains("sandbox = true"),
            "{error}"
        );
        let one = MINIMAL.replacen("[[bots]]\n", "[[bots]]\nsandbox = true\nmemory_mb = 64\n", 1);
        let bots = parse_text(&one).unwrap().tournament.bots;
        assert_eq!(bots[0].sandbox.as_ref().and_then(|sandbox| sandbox.memory_mb), Some(64));
        assert_eq!(bots[1].sandbox, None);
        let all_but_one = MINIMAL
            .replace("name = \"t\"", "name = \"t\"\nsandbox = true\nmax_processes = 9")
            .replacen("[[bots]]\n", "[[bots]]\nsandbox = false\n", 1);
        let bots = parse_text(&all_but_one).unwrap().tournament.bots;
        assert_eq!(bots[0].sandbox, None);
        assert_eq!(
            bots[1].sandbox.as_ref().and_then(|sandbox| sandbox.max_processes),
            Some(9)
        );
    }

    #[test]
    fn defaults_are_filled_in() {
        let file = parse_text(MINIMAL).unwrap();
        let t = &file.tournament;
        assert_eq!(t.seed, 0);
        assert_eq!(t.format, Format::RoundRobin);
        assert_eq!(t.games_per_pair, 2);
        assert!(t.rules.pie);
        assert_eq!(
            t.rules.blocks,
            BlockSource::Random {
                counts: DEFAULT_BLOCK_COUNTS.to_vec()
            }
        );
        assert_eq!(t.time.move_ms, Some(DEFAULT_MOVE_MS));
        assert_eq!(t.time.margin_ms, DEFAULT_MARGIN_MS);
        assert_eq!(t.bots[0].launch, Launch::Command(vec!["python3".into(), "a.py".into()]));
        assert_eq!(t.bots[1].launch, Launch::Builtin("heuristic".into()));
        assert_eq!(file.settings.out, Path::new("runs/t"));
        assert_eq!(file.settings.restart, Restart::OnFailure);
        assert_eq!(file.base_dir, Path::new("tournaments"));
    }

    /// Durability is how the run syncs, not what the games are: the key leaves the tournament's hash alone.
    #[test]
    fn durability_is_a_run_setting_outside_the_hash() {
        let plain = parse_text(MINIMAL).unwrap();
        assert_eq!(plain.settings.durability, Durability::Batch);
        let durable = parse_text(&MINIMAL.replace("name = \"t\"", "name = \"t\"\ndurability = \"game\"")).unwrap();
        assert_eq!(durable.settings.durability, Durability::Game);
        assert_eq!(
            crate::journal::tournament_hash(&durable.tournament),
            crate::journal::tournament_hash(&plain.tournament)
        );
        let error = error_of(&MINIMAL.replace("name = \"t\"", "name = \"t\"\ndurability = \"fast\""));
        assert!(
            error.contains("key `durability`: \"fast\" is not a durability; use \"game\""),
            "{error}"
        );
    }

    #[test]
    fn unknown_keys_are_refused_with_their_line() {
        let error = error_of(&format!("{MINIMAL}\nconcurency = 3\n"));
        assert!(error.contains("tournaments/t.toml"), "{error}");
        assert!(error.contains("concurency"), "{error}");
    }

    #[test]
    fn plain_names() {
        assert!(is_plain_name("a.b_c-1"));
        for bad in [".hidden", "a/b", "", "a b", &"x".repeat(65)] {
            assert!(!is_plain_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn errors_name_the_key_and_the_fix() {
        let error = error_of(&MINIMAL.replace("name = \"t\"", "name = \"t\"\ngames_per_pair = 3"));
        assert_eq!(
            error,
            "tournaments/t.toml: key `games_per_pair`: 3 games per pair; \
             use an even number from 2 up: each layout is played twice with seats swapped"
        );
        let error = error_of(&MINIMAL.replace(
            "name = \"t\"",
            "name = \"t\"\nformat = \"gauntlet\"\nchallenger = \"c\"",
        ));
        assert!(
            error.contains("key `challenger`: no bot is named \"c\"; use one of the bots' names: a, b"),
            "{error}"
        );
        let error = error_of(&MINIMAL.replace("name = \"b\"", "name = \"a\""));
        assert!(
            error.contains("key `bots[1].name`: the name a is used twice"),
            "{error}"
        );
        let error = error_of(&MINIMAL.replace("command = \"python3 a.py\"", "command = \"python3 'a.py\""));
        assert!(error.contains("key `bots[0].command`: bot a:"), "{error}");
        let error = error_of(&format!("{MINIMAL}\n[rules]\nblocks = [5, 6]\n"));
        assert!(
            error.contains("key `rules.blocks`: 6 blocks; use odd counts"),
            "{error}"
        );
        let error = error_of(&format!("{MINIMAL}\n[time]\nincrement_ms = 5\n"));
        assert!(error.contains("key `time.increment_ms`"), "{error}");
        let error = error_of(&format!(
            "{MINIMAL}\n[rules]\nplacement = \"fixed\"\nlayouts = [[\"a1\", \"a1\", \"b2\"]]\n"
        ));
        assert!(
            error.contains("key `rules.layouts[0]`: cell a1 is listed twice"),
            "{error}"
        );
    }

    #[test]
    fn the_clock_kind_and_what_overload_does_are_read() {
        let file = parse_text(MINIMAL).unwrap();
        assert_eq!(file.tournament.time.clock, ClockKind::Wall);
        assert_eq!(file.settings.on_overload, OnOverload::Count);
        let text = MINIMAL.replace(
            "command = \"python3 a.py\"",
            "command = \"python3 a.py\"\n[bots.time]\nmove_ms = 100\nclock = \"wall\"",
        );
        let file = parse_text(&format!(
            "on_overload = \"replay\"\n{text}\n[time]\nmove_ms = 100\nclock = \"cpu\"\n"
        ))
        .unwrap();
        assert_eq!(file.tournament.time.clock, ClockKind::Cpu);
        assert_eq!(file.tournament.bots[0].time.unwrap().clock, ClockKind::Wall);
        assert_eq!(file.settings.on_overload, OnOverload::Replay);
        assert_eq!(file.settings.affinity, None);
        assert_eq!(
            parse_text(&format!("affinity = true\n{MINIMAL}"))
                .unwrap()
                .settings
                .affinity,
            Some(true)
        );
        let error = error_of(&format!("{MINIMAL}\n[time]\nclock = \"thread\"\n"));
        assert!(
            error.contains("key `time.clock`: \"thread\" is not a kind of clock; use \"wall\""),
            "{error}"
        );
        let error = error_of(&format!("on_overload = \"ignore\"\n{MINIMAL}"));
        assert!(error.contains("key `on_overload`"), "{error}");
    }

    #[test]
    fn a_bot_may_have_its_own_time_control() {
        let text = MINIMAL.replace(
            "command = \"python3 a.py\"",
            "command = \"python3 a.py\"\n[bots.time]\nbase_ms = 4000\nincrement_ms = 50",
        );
        let t = parse_text(&format!("{text}\n[time]\nmove_ms = 500\nmargin_ms = 30\n"))
            .unwrap()
            .tournament;
        let own = TimeControl {
            move_ms: None,
            base_ms: Some(4000),
            increment_ms: 50,
            margin_ms: DEFAULT_MARGIN_MS,
            clock: ClockKind::Wall,
        };
        assert_eq!(
            t.bots[0].time,
            Some(own),
            "keys it leaves out take [time]'s defaults, not its values"
        );
        assert_eq!(t.bots[1].time, None);
        assert_eq!((t.time_of("a"), t.time_of("b")), (own, t.time));
        assert_eq!(t.time.move_ms, Some(500));

        let text = MINIMAL.replace("builtin = \"heuristic\"", "builtin = \"heuristic\"\n[bots.time]\n");
        assert_eq!(
            parse_text(&text).unwrap().tournament.bots[1]
                .time
                .map(|time| time.move_ms),
            Some(Some(DEFAULT_MOVE_MS))
        );
        let error = error_of(&MINIMAL.replace(
            "builtin = \"heuristic\"",
            "builtin = \"heuristic\"\n[bots.time]\nincrement_ms = 5",
        ));
        assert_eq!(
            error,
            "tournaments/t.toml: key `bots[1].time.increment_ms`: bot b: an increment without a Fischer clock; \
             add `base_ms` (the clock's starting time) or remove `increment_ms`"
        );
        let error = error_of(&MINIMAL.replace(
            "builtin = \"heuristic\"",
            "builtin = \"heuristic\"\n[bots.time]\nmove_ms = 0",
        ));
        assert!(error.contains("key `bots[1].time`: bot b: a limit of 0 ms"), "{error}");
        for key in ["move_ms", "base_ms", "margin_ms"] {
            let error = error_of(&format!("{MINIMAL}\n[time]\n{key} = {}\n", u64::MAX));
            assert!(
                error.contains(&format!("key `time.{key}`: {} ms is longer than a day", u64::MAX)),
                "{error}"
            );
        }
        let day = format!("{MINIMAL}\n[time]\nbase_ms = {MAX_TIME_MS}\nincrement_ms = {MAX_TIME_MS}\n");
        assert_eq!(parse_text(&day).unwrap().tournament.time.base_ms, Some(MAX_TIME_MS));
        let error = error_of(&MINIMAL.replace(
            "builtin = \"heuristic\"",
            "builtin = \"heuristic\"\n[bots.time]\npause_idle = true",
        ));
        assert!(error.contains("unknown field `pause_idle`"), "{error}");
    }

    #[test]
    fn fair_mode_is_off_unless_asked_for() {
        assert!(!parse_text(MINIMAL).unwrap().tournament.pause_idle);
        let fair = MINIMAL.replace("name = \"t\"", "name = \"t\"\npause_idle = true");
        assert!(parse_text(&fair).unwrap().tournament.pause_idle);
    }

    #[test]
    fn fixed_and_players_placements() {
        let file = parse_text(&format!(
            "{MINIMAL}\n[rules]\nplacement = \"fixed\"\npie = false\nlayouts = [[\"a1\", \"d4\", \"g7\"]]\n"
        ))
        .unwrap();
        let rules = &file.tournament.rules;
        assert!(!rules.pie);
        assert_eq!(rules.blocks.placement(), Placement::Fixed);
        let file = parse_text(&format!("{MINIMAL}\n[rules]\nplacement = \"players\"\nblocks = [3]\n")).unwrap();
        assert_eq!(file.tournament.rules.blocks, BlockSource::Players { counts: vec![3] });
    }

    fn bundled(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tournaments")
            .join(name)
    }

    #[test]
    fn every_bundled_tournament_file_is_valid() {
        let dir = bundled("");
        let mut count = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|ext| ext == "toml") {
                load(&path).unwrap_or_else(|error| panic!("{error}"));
                count += 1;
            }
        }
        assert!(count >= 3, "quickstart, reference and at least one more");
    }

    /// The reference file writes every default out; a file without those keys must resolve the same.
    #[test]
    fn the_reference_file_states_the_true_defaults() {
        let reference = load(&bundled("reference.toml")).unwrap();
        let text = std::fs::read_to_string(bundled("reference.toml")).unwrap();
        let bots = &text[text.find("\n[[bots]]").unwrap()..];
        let minimal = parse(&bundled("minimal.toml"), &format!("name = \"reference\"\n{bots}")).unwrap();
        assert_eq!(minimal.tournament, reference.tournament);
        assert_eq!(minimal.settings.restart, reference.settings.restart);
        assert_eq!(minimal.settings.out, reference.settings.out);
    }

    #[test]
    fn the_resolved_tournament_round_trips_through_json() {
        let tournament = parse_text(MINIMAL).unwrap().tournament;
        let json = serde_json::to_string(&tournament).unwrap();
        assert_eq!(serde_json::from_str::<Tournament>(&json).unwrap(), tournament);
    }
}
