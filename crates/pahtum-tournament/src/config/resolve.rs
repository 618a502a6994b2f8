//! The second layer: each key checked and every default filled in, so that
//! an error names the key, what is wrong and what would be right.

use std::collections::BTreeSet;
use std::path::Path;

use pahtum::Cell;
use pahtum_protocol::{ClockKind, DEFAULT_MARGIN_MS, TimeControl};
use pahtum_record::{AdjudicationRule, DEFAULT_SOLVED_CELLS, MAX_SOLVED_CELLS};

use crate::durability::Durability;

use crate::book;

use super::keys::{BotKeys, FileKeys, KeyError, RulesKeys, TimeKeys, key_error};
use super::model::*;
use super::names::check_name;

/// The sandbox keys at the top of the file: the default of every bot.
#[derive(Debug, Clone, Copy)]
pub(super) struct SandboxDefaults {
    pub(super) sandbox: bool,
    pub(super) limits: SandboxLimits,
}

/// A sandbox's limits as the file gives them, at its top or in a bot's entry.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct SandboxLimits {
    memory_mb: Option<u64>,
    max_processes: Option<u64>,
    open_files: Option<u64>,
    file_size_mb: Option<u64>,
    tmp_mb: Option<u64>,
}

/// Each limit's key, what it counts and the referee's default
/// (`pahtum_referee::Sandbox::default`), for the errors that say what is right.
const LIMITS: [(&str, &str, u64); 5] = [
    ("memory_mb", "the MiB of memory of all its processes", 1024),
    ("max_processes", "its processes and threads, all counted", 256),
    ("open_files", "the files each of its processes may hold open", 1024),
    ("file_size_mb", "the MiB of the largest file it may write", 1024),
    ("tmp_mb", "the MiB of its private /tmp", 64),
];

/// The largest `open_files`: Linux's default `fs.nr_open`, above which the
/// sandbox cannot set the limit and the bot would not start.
const MAX_OPEN_FILES: u64 = 1 << 20;

impl SandboxLimits {
    fn of_file(file: &FileKeys) -> SandboxLimits {
        SandboxLimits {
            memory_mb: file.memory_mb,
            max_processes: file.max_processes,
            open_files: file.open_files,
            file_size_mb: file.file_size_mb,
            tmp_mb: file.tmp_mb,
        }
    }

    fn of_bot(keys: &BotKeys) -> SandboxLimits {
        SandboxLimits {
            memory_mb: keys.memory_mb,
            max_processes: keys.max_processes,
            open_files: keys.open_files,
            file_size_mb: keys.file_size_mb,
            tmp_mb: keys.tmp_mb,
        }
    }

    /// Each limit given here, else the one of `defaults`.
    fn or(self, defaults: SandboxLimits) -> SandboxLimits {
        SandboxLimits {
            memory_mb: self.memory_mb.or(defaults.memory_mb),
            max_processes: self.max_processes.or(defaults.max_processes),
            open_files: self.open_files.or(defaults.open_files),
            file_size_mb: self.file_size_mb.or(defaults.file_size_mb),
            tmp_mb: self.tmp_mb.or(defaults.tmp_mb),
        }
    }

    /// The limits in the order of [`LIMITS`].
    fn values(self) -> [Option<u64>; 5] {
        [
            self.memory_mb,
            self.max_processes,
            self.open_files,
            self.file_size_mb,
            self.tmp_mb,
        ]
    }

    /// The key of the first limit given, if any.
    fn first_given(self) -> Option<&'static str> {
        LIMITS
            .iter()
            .zip(self.values())
            .find_map(|(&(key, ..), value)| value.is_some().then_some(key))
    }

    /// Every limit given must be one the sandbox can set: not 0, a size in
    /// MiB that counts in bytes, open files up to [`MAX_OPEN_FILES`]. `prefix`
    /// is the key of the entry (`bots[0].`, or empty at the top).
    fn check(self, prefix: &str, whose: &str) -> Result<(), KeyError> {
        for (&(key, what, default), value) in LIMITS.iter().zip(self.values()) {
            let too_large = match key {
                "open_files" => MAX_OPEN_FILES,
                _ if key.ends_with("_mb") => u64::MAX >> 20,
                _ => u64::MAX,
            };
            let Some(value) = value.filter(|&value| value == 0 || value > too_large) else {
                continue;
            };
            return Err(key_error(
                format!("{prefix}{key}"),
                format!("{whose}a limit `{key} = {value}` that the sandbox cannot set"),
                format!("give {what}, from 1 to {too_large} (default {default})"),
            ));
        }
        Ok(())
    }

    fn config(self, ro_paths: Vec<String>, rw_paths: Vec<String>) -> SandboxConfig {
        SandboxConfig {
            memory_mb: self.memory_mb,
            max_processes: self.max_processes,
            open_files: self.open_files,
            file_size_mb: self.file_size_mb,
            tmp_mb: self.tmp_mb,
            ro_paths,
            rw_paths,
        }
    }
}

/// The tournament and settings that `file` gives, a book it names read by `read_book` (its path as written).
pub(super) fn resolve(file: FileKeys, read_book: ReadBook) -> Result<(Tournament, RunSettings), KeyError> {
    if let Some(format @ ("swiss" | "knockout")) = file.format.as_deref() {
        paired_keys(&file, if format == "swiss" { "a Swiss" } else { "a knockout" })?;
    }
    let limits = SandboxLimits::of_file(&file);
    let name = file
        .name
        .ok_or_else(|| key_error("name", "missing", "add a name such as `name = \"my-tournament\"`"))?;
    check_name("name", &name)?;
    let defaults = SandboxDefaults {
        sandbox: file.sandbox.unwrap_or(false),
        limits,
    };
    if let (false, Some(key)) = (defaults.sandbox, defaults.limits.first_given()) {
        return Err(key_error(
            key,
            "a sandbox limit without the sandbox",
            "add `sandbox = true` (limits hold only in the sandbox), or set it in the sandboxed bots' entries",
        ));
    }
    defaults.limits.check("", "")?;
    let bots = file
        .bots
        .into_iter()
        .enumerate()
        .map(|(index, keys)| resolve_bot(index, keys, defaults))
        .collect::<Result<Vec<_>, _>>()?;
    check_bots(&bots)?;
    let paired = PairedKeys {
        rounds: file.rounds,
        pairs: file.pairs,
        max_pairs: file.max_pairs,
        seeds_from: file.seeds_from,
    };
    let format = resolve_format(file.format.as_deref(), file.challenger, paired, &bots)?;
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
        rules: resolve_rules(file.rules, read_book)?,
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

pub(super) fn resolve_bot(index: usize, keys: BotKeys, defaults: SandboxDefaults) -> Result<BotConfig, KeyError> {
    let key = TournamentFile::bot_key(index);
    let limits = SandboxLimits::of_bot(&keys);
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
    let sandbox_key = limits.first_given().or_else(|| {
        [("ro_paths", &keys.ro_paths), ("rw_paths", &keys.rw_paths)]
            .into_iter()
            .find_map(|(key, paths)| (!paths.is_empty()).then_some(key))
    });
    let sandboxed = keys.sandbox.unwrap_or(defaults.sandbox);
    if let (false, Some(sandbox_key)) = (sandboxed, sandbox_key) {
        return Err(key_error(
            format!("{key}.{sandbox_key}"),
            format!("bot {name}: a sandbox setting for a bot that runs without the sandbox"),
            "add `sandbox = true` to the bot (or at the top of the file)",
        ));
    }
    limits.check(&format!("{key}."), &format!("bot {name}: "))?;
    let sandbox = sandboxed.then(|| limits.or(defaults.limits).config(keys.ro_paths, keys.rw_paths));
    Ok(BotConfig {
        name,
        launch,
        dir: keys.dir,
        env: keys.env,
        time,
        sandbox,
    })
}

pub(super) fn check_bots(bots: &[BotConfig]) -> Result<(), KeyError> {
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

/// Refuses the keys of `file` that a tournament paired as it is played (`what`: a Swiss, a knockout) does
/// not play by: it is played as a league, whose entrants all play by the tournament's time control and
/// limits in one journal of its own (each key's error says so).
fn paired_keys(file: &FileKeys, what: &str) -> Result<(), KeyError> {
    let whole = [
        (
            "games_per_pair",
            file.games_per_pair.is_some(),
            "its pairings decide how many games a pair plays",
        ),
        (
            "pause_idle",
            file.pause_idle.is_some(),
            "its bots are not paused while their opponent thinks",
        ),
        (
            "restart",
            file.restart.is_some(),
            "its bot processes are reused while they work",
        ),
        (
            "durability",
            file.durability.is_some(),
            "its journal is synced in batches",
        ),
        ("affinity", file.affinity.is_some(), "its games are not pinned to cores"),
        (
            "limits",
            file.limits.is_given(),
            "its bots have the referee's default limits",
        ),
    ];
    if let Some((key, _, why)) = whole.iter().find(|(_, given, _)| *given) {
        return Err(key_error(*key, format!("given in {what}"), format!("remove it: {why}")));
    }
    if let Some(key) = SandboxLimits::of_file(file).first_given() {
        return Err(key_error(
            key,
            format!("a sandbox limit in {what}"),
            "remove it: its bots run in the sandbox with its default limits",
        ));
    }
    for (index, bot) in file.bots.iter().enumerate() {
        let program = |bot: &BotKeys| (bot.builtin.clone(), bot.command.clone(), bot.dir.clone());
        if let Some(same) = file.bots[..index]
            .iter()
            .position(|other| program(other) == program(bot))
        {
            return Err(key_error(
                TournamentFile::bot_key(index),
                format!("the same program as bots[{same}]"),
                format!(
                    "give it other options or another folder: {what}'s bots are copied into a league, which tells \
                     its entrants apart by their files and command (a built-in bot's --seed, say)"
                ),
            ));
        }
        let limit = SandboxLimits::of_bot(bot).first_given();
        let own = [
            ("time", bot.time.is_some()),
            ("env", !bot.env.is_empty()),
            ("ro_paths", !bot.ro_paths.is_empty()),
            ("rw_paths", !bot.rw_paths.is_empty()),
            (limit.unwrap_or_default(), limit.is_some()),
        ];
        if let Some((key, _)) = own.iter().find(|(_, given)| *given) {
            return Err(key_error(
                format!("{}.{key}", TournamentFile::bot_key(index)),
                format!("a bot's own setting in {what}"),
                "remove it: every bot plays by the tournament's [time] and the sandbox's defaults, in the arena's \
                 environment",
            ));
        }
        if bot
            .sandbox
            .is_some_and(|sandbox| sandbox != file.sandbox.unwrap_or(false))
        {
            return Err(key_error(
                format!("{}.sandbox", TournamentFile::bot_key(index)),
                format!("a bot's own sandbox setting in {what}"),
                "set `sandbox` once at the top of the file: its bots all run in the sandbox or none does",
            ));
        }
    }
    Ok(())
}

/// The keys of the formats paired as they are played, as written.
#[derive(Debug, Default)]
pub(super) struct PairedKeys {
    rounds: Option<i64>,
    pairs: Option<i64>,
    max_pairs: Option<i64>,
    seeds_from: Option<String>,
}

/// A knockout's layout pairs a match and its most, the keys `pairs` and `max_pairs` (each after `prefix`:
/// `knockout.` in a `league.toml`), every default filled in: from 1 to [`MAX_KNOCKOUT_PAIRS`], the most at
/// least the first.
pub fn knockout_pairs(prefix: &str, pairs: Option<i64>, max_pairs: Option<i64>) -> Result<(u32, u32), KeyError> {
    let count = |key: &str, value: Option<i64>, default: u32| match value {
        None => Ok(default),
        Some(n) if (1..=i64::from(MAX_KNOCKOUT_PAIRS)).contains(&n) => Ok(n as u32),
        Some(n) => Err(key_error(
            format!("{prefix}{key}"),
            n,
            format!("give a number of layout pairs from 1 to {MAX_KNOCKOUT_PAIRS}"),
        )),
    };
    let pairs = count("pairs", pairs, DEFAULT_KNOCKOUT_PAIRS)?;
    let max_pairs = count("max_pairs", max_pairs, DEFAULT_KNOCKOUT_MAX_PAIRS.max(pairs))?;
    if max_pairs < pairs {
        return Err(key_error(
            format!("{prefix}max_pairs"),
            format!("{max_pairs}, fewer than pairs = {pairs}"),
            "give at least as many as `pairs`: a level match plays more layout pairs up to it, then the higher seed \
             goes on",
        ));
    }
    Ok((pairs, max_pairs))
}

/// A knockout's keys, every default filled in.
fn knockout(paired: PairedKeys) -> Result<Format, KeyError> {
    let (pairs, max_pairs) = knockout_pairs("", paired.pairs, paired.max_pairs)?;
    Ok(Format::Knockout {
        pairs,
        max_pairs,
        seeds_from: paired.seeds_from,
    })
}

pub(super) fn resolve_format(
    format: Option<&str>,
    challenger: Option<String>,
    paired: PairedKeys,
    bots: &[BotConfig],
) -> Result<Format, KeyError> {
    let format = format.unwrap_or("round-robin");
    let knockout_keys = [
        ("pairs", paired.pairs.is_some()),
        ("max_pairs", paired.max_pairs.is_some()),
        ("seeds_from", paired.seeds_from.is_some()),
    ];
    if let Some((key, _)) = knockout_keys
        .iter()
        .find(|(_, given)| *given)
        .filter(|_| format != "knockout")
    {
        return Err(key_error(
            *key,
            "only meaningful in a knockout",
            format!("set `format = \"knockout\"` or remove `{key}`"),
        ));
    }
    if format == "knockout" {
        return match (challenger, paired.rounds) {
            (None, None) => knockout(paired),
            (Some(_), _) => Err(key_error(
                "challenger",
                "only meaningful in a gauntlet",
                "remove `challenger`",
            )),
            (_, Some(_)) => Err(key_error("rounds", "only meaningful in a Swiss", "remove `rounds`")),
        };
    }
    let rounds = paired.rounds;
    match (format, rounds) {
        ("swiss", Some(n)) if (1..=i64::from(MAX_SWISS_ROUNDS)).contains(&n) => {
            return match challenger {
                None => Ok(Format::Swiss { rounds: n as u32 }),
                Some(_) => Err(key_error(
                    "challenger",
                    "a challenger is only meaningful in a gauntlet",
                    "remove `challenger`",
                )),
            };
        }
        ("swiss", Some(n)) => {
            return Err(key_error(
                "rounds",
                n,
                format!("give the rounds of the Swiss, from 1 to {MAX_SWISS_ROUNDS}"),
            ));
        }
        ("swiss", None) => {
            return Err(key_error(
                "rounds",
                "missing: a Swiss needs its number of rounds",
                "add `rounds = N`: about log2 of the bots, plus a few to tell the first from the rest",
            ));
        }
        (_, Some(_)) => {
            return Err(key_error(
                "rounds",
                "rounds are only meaningful in a Swiss",
                "set `format = \"swiss\"` or remove `rounds`",
            ));
        }
        (_, None) => {}
    }
    match (format, challenger) {
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
            "use \"round-robin\", \"gauntlet\", \"swiss\" or \"knockout\"",
        )),
    }
}

/// How a file's opening book is read: its text, from the book's path as the file writes it.
pub type ReadBook<'a> = &'a dyn Fn(&str) -> std::io::Result<String>;

/// The rules of play that `keys` give, each default filled in, or the first key that is wrong; the book of
/// `openings`, if any, read by `read_book` and checked opening by opening.
pub fn resolve_rules(keys: RulesKeys, read_book: ReadBook) -> Result<RulesConfig, KeyError> {
    let adjudicate = resolve_adjudicate(keys.adjudicate.as_deref(), keys.solved_cells)?;
    Ok(RulesConfig {
        adjudicate,
        ..resolve_layouts_and_pie(keys, read_book)?
    })
}

/// The rule of `adjudicate = "..."`: `None` for `"off"`, the default; `"solved"` from `solved_cells` free
/// cells (default [`DEFAULT_SOLVED_CELLS`]), a key only `"solved"` takes.
pub fn resolve_adjudicate(
    value: Option<&str>,
    solved_cells: Option<i64>,
) -> Result<Option<AdjudicationRule>, KeyError> {
    let rule = match value.unwrap_or("off") {
        "off" => None,
        "decided" => Some(AdjudicationRule::Decided),
        "solved" => {
            let cells = match solved_cells {
                None => DEFAULT_SOLVED_CELLS,
                Some(n) if (1..=i64::from(MAX_SOLVED_CELLS)).contains(&n) => n as u32,
                Some(n) => {
                    return Err(key_error(
                        "rules.solved_cells",
                        n,
                        format!(
                            "give the free cells from which the solver ends a game, from 1 to {MAX_SOLVED_CELLS} \
                             (default {DEFAULT_SOLVED_CELLS})"
                        ),
                    ));
                }
            };
            return Ok(Some(AdjudicationRule::Solved { cells }));
        }
        other => {
            return Err(key_error(
                "rules.adjudicate",
                format!("\"{other}\" is not an adjudication rule"),
                "use \"off\" (every game played out), \"decided\" (a game ends once its result can no longer \
                 change) or \"solved\" (an assumption of perfect play: a game ends with the solver's result from \
                 `solved_cells` free cells)",
            ));
        }
    };
    if solved_cells.is_some() {
        return Err(key_error(
            "rules.solved_cells",
            "given without adjudicate = \"solved\"",
            "set `adjudicate = \"solved\"`, or remove `solved_cells`",
        ));
    }
    Ok(rule)
}

/// The rules of `keys` but adjudication: the blocks (or the book) and the pie rule.
fn resolve_layouts_and_pie(keys: RulesKeys, read_book: ReadBook) -> Result<RulesConfig, KeyError> {
    let pie = keys.pie.unwrap_or(true);
    if let Some(file) = &keys.openings {
        return resolve_book(&keys, file, pie, read_book);
    }
    if keys.openings_order.is_some() {
        return Err(key_error(
            "rules.openings_order",
            "an order of openings without `openings`",
            "name the book with `openings = \"FILE\"`, or remove `openings_order`",
        ));
    }
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
        adjudicate: None,
    })
}

/// The rules of a tournament whose layouts come from the book `file` (`keys.openings`).
fn resolve_book(keys: &RulesKeys, file: &str, pie: bool, read_book: ReadBook) -> Result<RulesConfig, KeyError> {
    let others = [
        ("rules.placement", keys.placement.is_some()),
        ("rules.blocks", keys.blocks.is_some()),
        ("rules.layouts", keys.layouts.is_some()),
    ];
    if let Some((key, _)) = others.iter().find(|(_, set)| *set) {
        return Err(key_error(
            *key,
            "not used with `openings`: the book gives each game's blocks",
            "remove it, or remove `openings`",
        ));
    }
    let shuffled = match keys.openings_order.as_deref().unwrap_or("sequence") {
        "sequence" => false,
        "shuffled" => true,
        other => {
            return Err(key_error(
                "rules.openings_order",
                format!("\"{other}\" is not an order"),
                "use \"sequence\" (the book's order) or \"shuffled\" (an order drawn from the seed)",
            ));
        }
    };
    let openings = book::Openings::read(file, shuffled, pie, read_book).map_err(|error| {
        let fix = match error {
            book::ReadBookError::Read { .. } => "give the book's path, relative to this file's folder",
            book::ReadBookError::Line { .. } => {
                "correct or remove the line (RECORD.md, \"Opening books\", says the format)"
            }
            book::ReadBookError::Empty { .. } => "add an opening to the book, or remove `openings`",
        };
        key_error("rules.openings", book::chain(&error), fix)
    })?;
    Ok(RulesConfig {
        pie,
        blocks: BlockSource::Book(openings),
        cycle_counts: false,
        adjudicate: None,
    })
}

pub(super) fn resolve_layouts(layouts: Option<&[Vec<String>]>) -> Result<Vec<Vec<Cell>>, KeyError> {
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
pub fn resolve_time(key: &str, keys: &TimeKeys) -> Result<TimeControl, KeyError> {
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
