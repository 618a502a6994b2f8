//! `league.toml`: the rules every game of a league is played by, and how it is run.
//!
//! A league's rules are a tournament file's rules without the bots (they come
//! and go through the journal): the `[rules]` and `[time]` tables are read by
//! the tournament file's own code, so that a league and a tournament spell a
//! rule the same way, and a league's games are laid out by the tournament's
//! schedule (see [`League::template`]). Like a tournament, the resolved rules
//! go into the journal's header with their hash, and a `league.toml` changed
//! since is refused. `tournaments/league/league.toml` documents every key.

use std::collections::BTreeMap;
use std::path::Path;

use pahtum_protocol::TimeControl;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use pahtum_tournament::config::keys::{KeyError, RulesKeys, TimeKeys, key_error};
use pahtum_tournament::config::names::check_name;
use pahtum_tournament::config::resolve::{ReadBook, knockout_pairs, resolve_rules, resolve_time};
use pahtum_tournament::config::{
    ConfigError, Format, MAX_KNOCKOUT_PAIRS, MAX_SWISS_ROUNDS, RulesConfig, SandboxConfig, Tournament,
};

/// The file's name in a league's folder.
pub const LEAGUE_FILE: &str = "league.toml";

/// The most games one pair of entrants may play: 64 layout pairs, so that a pair's layout rounds fit a
/// 64-bit set.
pub const MAX_GAMES_PER_PAIR: u32 = 128;

/// The default most games per pair of entrants.
pub const DEFAULT_GAMES_PER_PAIR: u32 = 8;
/// The default precision aimed at: the half-width of an entrant's 95% rating interval, in Elo.
pub const DEFAULT_PRECISION_ELO: u32 = 100;
/// The default opponents an entrant in need meets per round of the league.
pub const DEFAULT_OPPONENTS: u32 = 4;
/// The default longest build, in seconds.
pub const DEFAULT_BUILD_TIMEOUT_S: u64 = 600;
/// The default CPU of a sandboxed build, in percent of one core.
pub const DEFAULT_BUILD_CPU_PERCENT: u64 = 100;
/// The default most files and folders of an entrant's folder.
pub const DEFAULT_MAX_FILES: u64 = 10_000;
/// The default most folders deep of an entrant's folder.
pub const DEFAULT_MAX_DEPTH: u64 = 32;
/// The default most MiB of an entrant's files.
pub const DEFAULT_MAX_MB: u64 = 256;

/// `N`, a key's default.
fn default<const N: u64>() -> u64 {
    N
}

/// Whether `value` is `N`, a key's default: a key at its default is left out of the journal's header,
/// so that the header of a league written before the key existed keeps its hash.
fn is_default<const N: u64>(value: &u64) -> bool {
    *value == N
}

/// What decides a league's games, with every default filled in (hashed into the journal's header).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct League {
    /// The league's name.
    pub name: String,
    /// The seed every layout is derived from, as a tournament's.
    pub seed: u64,
    /// The most games one pair of entrants plays (even: layout pairs).
    pub games_per_pair: u32,
    /// The half-width of the 95% rating interval to aim for, in Elo: an entrant whose interval is wider
    /// plays more.
    pub precision_elo: u32,
    /// The opponents an entrant in need meets per round (a layout pair each).
    pub opponents: u32,
    /// The entrants' sandbox (their builds and their games), if the league asks for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxConfig>,
    /// The longest an entrant's build may take, in seconds.
    pub build_timeout_s: u64,
    /// Variables added to an entrant's build's environment (a toolchain's `PATH`, say): the organiser's,
    /// in the sandbox on top of its own few.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub build_env: BTreeMap<String, String>,
    /// The CPU a sandboxed build may use, all its processes together, in percent of one core.
    #[serde(
        default = "default::<DEFAULT_BUILD_CPU_PERCENT>",
        skip_serializing_if = "is_default::<DEFAULT_BUILD_CPU_PERCENT>"
    )]
    pub build_cpu_percent: u64,
    /// The most files and folders an entrant's folder may hold.
    #[serde(
        default = "default::<DEFAULT_MAX_FILES>",
        skip_serializing_if = "is_default::<DEFAULT_MAX_FILES>"
    )]
    pub max_files: u64,
    /// The most folders deep a folder of an entrant's folder may lie.
    #[serde(
        default = "default::<DEFAULT_MAX_DEPTH>",
        skip_serializing_if = "is_default::<DEFAULT_MAX_DEPTH>"
    )]
    pub max_depth: u64,
    /// The most MiB of all an entrant's files, at their apparent sizes.
    #[serde(
        default = "default::<DEFAULT_MAX_MB>",
        skip_serializing_if = "is_default::<DEFAULT_MAX_MB>"
    )]
    pub max_mb: u64,
    /// The rules of every game.
    pub rules: RulesConfig,
    /// The time control of every game.
    pub time: TimeControl,
    /// The pairing rule of a final: play until the prize places are told apart (`[separate]`); `None`: the
    /// precision rule ([`super::pairing`]), every entrant played to `precision_elo`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub separate: Option<Separate>,
    /// The pairing rule of a Swiss (`[swiss]`): `rounds` rounds, each pairing entrants of equal score
    /// ([`super::swiss`]); `None`: another rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swiss: Option<Swiss>,
    /// The pairing rule of a knockout (`[knockout]`): a seeded bracket ([`super::knockout`]); `None`: another
    /// rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knockout: Option<Knockout>,
}

/// The pairing rule of a knockout, as `league.toml`'s `[knockout]` table says it: the bracket of `seeds`,
/// each match `pairs` layout pairs, one more a round while level, up to `max_pairs`, then the higher seed
/// ([`super::knockout`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Knockout {
    /// The layout pairs of a match.
    pub pairs: u32,
    /// The most layout pairs of a match, ties broken by more pairs up to it.
    pub max_pairs: u32,
    /// The field, by label (`NAME@VERSION`), the first seed first.
    pub seeds: Vec<String>,
}

impl Knockout {
    /// The stages of its bracket: one for each halving of the field down to the final.
    pub fn stages(&self) -> u32 {
        self.seeds.len().next_power_of_two().trailing_zeros()
    }

    /// The layout rounds of its schedule: `max_pairs` for each stage, so that each stage plays layouts of its
    /// own (the `j`-th layout pair of a match of stage `s`, from 0, plays layout round `s * max_pairs + j`).
    pub fn layout_rounds(&self) -> u32 {
        self.stages() * self.max_pairs
    }
}

/// The keys of `league.toml`'s `[knockout]` table, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KnockoutKeys {
    pairs: Option<i64>,
    max_pairs: Option<i64>,
    seeds: Option<Vec<String>>,
}

/// The pairing rule of a Swiss, as `league.toml`'s `[swiss]` table says it: `rounds` rounds, in each of which
/// every active entrant meets one of equal score (or near it) that it has not met, one layout pair each, and
/// an odd field's lowest-ranked entrant without a bye has one ([`super::swiss`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Swiss {
    /// The rounds the Swiss plays (each pair at most once, so at most one layout round each).
    pub rounds: u32,
}

/// The keys of `league.toml`'s `[swiss]` table, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SwissKeys {
    rounds: Option<i64>,
}

/// The pairing rule of a final, as `league.toml`'s `[separate]` table says it: the league plays until each
/// adjacent pair of its top `places` (and the last of them with the next) is apart at `confidence`, or
/// `max_games` are decided ([`super::separation`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Separate {
    /// The places that must be told apart: the prizes' (3: first, second and third, and third from fourth).
    pub places: u32,
    /// The likelihood of superiority at which two adjacent entrants are apart, in thousandths (950: 95%).
    pub confidence_permille: u32,
    /// The most games the league decides, all pairs together.
    pub max_games: u32,
    /// The layout pairs (two games each) that each pair not yet apart plays per round.
    pub pairs_per_round: u32,
}

impl Separate {
    /// The likelihood of superiority at which two adjacent entrants are apart, from 0 to 1.
    pub fn confidence(&self) -> f64 {
        f64::from(self.confidence_permille) / 1000.0
    }
}

/// The default places a final tells apart.
pub const DEFAULT_SEPARATE_PLACES: u32 = 3;
/// The default confidence of a final's separation, in thousandths.
pub const DEFAULT_SEPARATE_PERMILLE: u32 = 950;
/// The default most games of a final.
pub const DEFAULT_SEPARATE_MAX_GAMES: u32 = 2000;

/// The keys of `league.toml`'s `[separate]` table, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeparateKeys {
    places: Option<i64>,
    confidence: Option<f64>,
    max_games: Option<i64>,
    pairs_per_round: Option<i64>,
}

/// The most an entrant's folder may hold: `max_files`, `max_depth` and `max_mb` of `league.toml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// The most files and folders, counted together (the entrant's folder itself not counted).
    pub files: u64,
    /// The most folders deep a folder may lie (a folder of the entrant's folder lies 1 deep).
    pub depth: u64,
    /// The most MiB of all files together, at their apparent sizes.
    pub mb: u64,
}

impl Caps {
    /// No cap at all.
    pub const NONE: Caps = Caps {
        files: u64::MAX,
        depth: u64::MAX,
        mb: u64::MAX,
    };

    /// The most bytes of all files together.
    pub fn bytes(&self) -> u64 {
        self.mb.saturating_mul(1 << 20)
    }
}

/// The keys of `league.toml`, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LeagueKeys {
    name: Option<String>,
    seed: Option<u64>,
    games_per_pair: Option<i64>,
    precision_elo: Option<i64>,
    opponents: Option<i64>,
    sandbox: Option<bool>,
    ro_paths: Option<Vec<String>>,
    build_timeout_s: Option<u64>,
    build_env: Option<BTreeMap<String, String>>,
    build_cpu_percent: Option<i64>,
    max_files: Option<i64>,
    max_depth: Option<i64>,
    max_mb: Option<i64>,
    #[serde(default)]
    rules: RulesKeys,
    #[serde(default)]
    time: TimeKeys,
    separate: Option<SeparateKeys>,
    swiss: Option<SwissKeys>,
    knockout: Option<KnockoutKeys>,
}

/// The `league.toml` that `arena league init` writes: every key at its default, each explained.
pub fn default_file(name: &str) -> String {
    format!(
        "# A league's rules (see tournaments/league/league.toml for every key).\n\
         name = \"{name}\"\n\
         seed = 0\n\
         # The most games one pair of entrants plays (even: each layout twice, seats swapped).\n\
         games_per_pair = {DEFAULT_GAMES_PER_PAIR}\n\
         # Play until every active entrant's 95% interval is at most this wide on each side (Elo).\n\
         precision_elo = {DEFAULT_PRECISION_ELO}\n\
         # Opponents an entrant in need meets per round (a layout pair each).\n\
         opponents = {DEFAULT_OPPONENTS}\n\
         # Build and play every entrant in the sandbox.\n\
         sandbox = false\n\
         build_timeout_s = {DEFAULT_BUILD_TIMEOUT_S}\n\
         # The CPU a sandboxed build may use, in percent of one core.\n\
         build_cpu_percent = {DEFAULT_BUILD_CPU_PERCENT}\n\
         # The most an entrant's folder may hold: files and folders, folders deep, MiB of files.\n\
         max_files = {DEFAULT_MAX_FILES}\n\
         max_depth = {DEFAULT_MAX_DEPTH}\n\
         max_mb = {DEFAULT_MAX_MB}\n\
         \n\
         [rules]\n\
         pie = true\n\
         placement = \"random\"\n\
         blocks = [5, 7, 9, 11, 13]\n\
         \n\
         [time]\n\
         move_ms = 1000\n\
         clock = \"wall\"\n"
    )
}

/// Reads and checks the `league.toml` at `path`.
pub fn load(path: &Path) -> Result<League, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })?;
    parse(path, &text)
}

/// Checks the text of a `league.toml`; `path` names it in errors, and its folder holds the opening book
/// that `openings` names ([`read_beside`]).
pub fn parse(path: &Path, text: &str) -> Result<League, ConfigError> {
    let folder = path.parent().filter(|folder| !folder.as_os_str().is_empty());
    let folder = folder.unwrap_or(Path::new(".")).to_owned();
    parse_reading(path, text, &|book| read_beside(&folder, book))
}

/// Checks the text of a `league.toml`, its opening book read by `read_book` from the name `openings` gives;
/// `path` names it in errors.
pub fn parse_reading(path: &Path, text: &str, read_book: ReadBook) -> Result<League, ConfigError> {
    let keys: LeagueKeys = toml::from_str(text).map_err(|error| ConfigError::Syntax {
        path: path.to_owned(),
        message: error.to_string().trim_end().to_owned(),
    })?;
    resolve(keys, read_book).map_err(|error| ConfigError::Invalid {
        path: path.to_owned(),
        key: error.key,
        problem: error.problem,
        fix: error.fix,
    })
}

/// A league's opening book, `book`, read from the league's folder `folder`: a file of that folder named
/// without a path, so that every copy of the folder (a shard's, a cluster round's, a merge's) carries it
/// ([`super::folder::copy_league`]); the whole book is also in the journal's header, so a book changed under
/// a league is noticed.
pub fn read_beside(folder: &Path, book: &str) -> std::io::Result<String> {
    if !is_book_name(book) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "a league's book is a file in its folder, named without a path and not {LEAGUE_FILE} or {}",
                pahtum_run::resume::JOURNAL
            ),
        ));
    }
    std::fs::read_to_string(folder.join(book))
}

/// Whether `name` may name a league's book: a plain file name, not one of the league's own files.
pub fn is_book_name(name: &str) -> bool {
    let plain = !name.is_empty() && !name.contains('/') && name != "." && name != "..";
    plain && name != LEAGUE_FILE && name != pahtum_run::resume::JOURNAL
}

fn resolve(keys: LeagueKeys, read_book: ReadBook) -> Result<League, KeyError> {
    let name = keys
        .name
        .ok_or_else(|| key_error("name", "missing", "add a name such as `name = \"my-league\"`"))?;
    check_name("name", &name)?;
    let swiss = keys.swiss.map(swiss).transpose()?;
    let knockout = keys.knockout.map(knockout).transpose()?;
    let rules = [
        ("separate", keys.separate.is_some()),
        ("swiss", swiss.is_some()),
        ("knockout", knockout.is_some()),
    ];
    if rules.iter().filter(|(_, given)| *given).count() > 1 {
        return Err(key_error(
            rules.iter().rev().find(|(_, given)| *given).expect("two given").0,
            "given with another pairing rule",
            "choose one pairing rule: [separate] plays until places are apart, [swiss] a number of rounds, \
             [knockout] a bracket",
        ));
    }
    // A Swiss pair meets once: one layout pair; a knockout's match is at most `max_pairs`.
    let fixed = match (&swiss, &knockout) {
        (Some(_), _) => Some((
            2,
            "in a Swiss no pair meets twice, so each plays one layout pair (2 games)",
        )),
        (_, Some(rule)) => Some((
            2 * rule.max_pairs,
            "a knockout's match plays at most [knockout] max_pairs layout pairs",
        )),
        _ => None,
    };
    let games_per_pair = match (keys.games_per_pair, fixed) {
        (None, Some((games, _))) => games,
        (Some(n), Some((games, why))) if n != i64::from(games) => {
            return Err(key_error(
                "games_per_pair",
                format!("{n} games per pair"),
                format!("remove it: {why}"),
            ));
        }
        (given, _) => match given {
            None => DEFAULT_GAMES_PER_PAIR,
            Some(n) if n >= 2 && n % 2 == 0 && n <= i64::from(MAX_GAMES_PER_PAIR) => n as u32,
            Some(n) => {
                return Err(key_error(
                    "games_per_pair",
                    format!("{n} games per pair"),
                    format!(
                        "use an even number from 2 to {MAX_GAMES_PER_PAIR}: each layout is played twice, seats \
                         swapped"
                    ),
                ));
            }
        },
    };
    let positive = |key: &str, value: Option<i64>, default: u64, fix: &str| match value {
        None => Ok(default),
        Some(n) if n >= 1 => Ok(n as u64),
        Some(n) => Err(key_error(key, format!("{n}"), fix)),
    };
    let positive_u32 = |key: &str, value: Option<i64>, default: u32, fix: &str| match value {
        Some(n) if n > i64::from(u32::MAX) => Err(key_error(key, format!("{n}"), fix)),
        _ => positive(key, value, u64::from(default), fix).map(|n| n as u32),
    };
    Ok(League {
        name,
        seed: keys.seed.unwrap_or(0),
        games_per_pair,
        precision_elo: positive_u32(
            "precision_elo",
            keys.precision_elo,
            DEFAULT_PRECISION_ELO,
            "give the half-width of the 95% interval to aim for, in Elo, e.g. 50",
        )?,
        opponents: positive_u32(
            "opponents",
            keys.opponents,
            DEFAULT_OPPONENTS,
            "give the opponents an entrant meets per round, 1 or more",
        )?,
        sandbox: sandbox(keys.sandbox, keys.ro_paths)?,
        build_timeout_s: keys.build_timeout_s.unwrap_or(DEFAULT_BUILD_TIMEOUT_S),
        build_env: build_env(keys.build_env.unwrap_or_default())?,
        build_cpu_percent: positive(
            "build_cpu_percent",
            keys.build_cpu_percent,
            DEFAULT_BUILD_CPU_PERCENT,
            "give the CPU a build may use in percent of one core, e.g. 100 for one core, 200 for two",
        )?,
        max_files: positive(
            "max_files",
            keys.max_files,
            DEFAULT_MAX_FILES,
            "give the most files and folders an entrant's folder may hold, 1 or more",
        )?,
        max_depth: positive(
            "max_depth",
            keys.max_depth,
            DEFAULT_MAX_DEPTH,
            "give the most folders deep an entrant's folder may nest, 1 or more",
        )?,
        max_mb: positive(
            "max_mb",
            keys.max_mb,
            DEFAULT_MAX_MB,
            "give the most MiB an entrant's files may take together, 1 or more",
        )?,
        rules: resolve_rules(keys.rules, read_book)?,
        time: resolve_time("time", &keys.time)?,
        separate: keys.separate.map(separate).transpose()?,
        swiss,
        knockout,
    })
}

/// The knockout's pairing rule, every default filled in: its layout pairs a match (1 or more), at most as
/// many as `max_pairs` (up to 64, a pair's layout rounds), and its seeds (two or more labels, none twice).
fn knockout(keys: KnockoutKeys) -> Result<Knockout, KeyError> {
    let (pairs, max_pairs) = knockout_pairs("knockout.", keys.pairs, keys.max_pairs)?;
    let seeds = keys.seeds.unwrap_or_default();
    let mut seen = std::collections::BTreeSet::new();
    if seeds.len() < 2 || !seeds.iter().all(|label| seen.insert(label)) {
        return Err(key_error(
            "knockout.seeds",
            format!("{} seed(s), or one given twice", seeds.len()),
            "list the field by label, the first seed first, each once, e.g. seeds = [\"a@1\", \"b@1\"]",
        ));
    }
    let knockout = Knockout {
        pairs,
        max_pairs,
        seeds,
    };
    if knockout.layout_rounds() > MAX_KNOCKOUT_PAIRS {
        return Err(key_error(
            "knockout.max_pairs",
            format!("{max_pairs} layout pairs in each of {} stages", knockout.stages()),
            format!(
                "give at most {} layout pairs a match: each stage has layouts of its own, {MAX_KNOCKOUT_PAIRS} in all",
                MAX_KNOCKOUT_PAIRS / knockout.stages()
            ),
        ));
    }
    Ok(knockout)
}

/// The Swiss's pairing rule: its rounds, from 1 to [`MAX_SWISS_ROUNDS`].
fn swiss(keys: SwissKeys) -> Result<Swiss, KeyError> {
    match keys.rounds {
        Some(n) if (1..=i64::from(MAX_SWISS_ROUNDS)).contains(&n) => Ok(Swiss { rounds: n as u32 }),
        Some(n) => Err(key_error(
            "swiss.rounds",
            n,
            format!("give the rounds of the Swiss, from 1 to {MAX_SWISS_ROUNDS}, e.g. 5"),
        )),
        None => Err(key_error(
            "swiss.rounds",
            "missing",
            "give the rounds of the Swiss, e.g. `rounds = 5` (about log2 of the entrants, plus a few, to tell \
             the first from the rest)",
        )),
    }
}

/// The final's pairing rule, every default filled in.
fn separate(keys: SeparateKeys) -> Result<Separate, KeyError> {
    let count = |key: &str, value: Option<i64>, default: u32, least: i64, fix: &str| match value {
        None => Ok(default),
        Some(n) if (least..=i64::from(u32::MAX)).contains(&n) => Ok(n as u32),
        Some(n) => Err(key_error(format!("separate.{key}"), n, fix)),
    };
    let confidence_permille = match keys.confidence {
        None => DEFAULT_SEPARATE_PERMILLE,
        Some(p) if (0.5..1.0).contains(&p) && (p * 1000.0).fract().abs() < 1e-9 => (p * 1000.0).round() as u32,
        Some(p) => {
            return Err(key_error(
                "separate.confidence",
                p,
                "give the likelihood of superiority at which two places are apart, from 0.5 to 0.999 in \
                 thousandths, e.g. 0.95",
            ));
        }
    };
    Ok(Separate {
        places: count(
            "places",
            keys.places,
            DEFAULT_SEPARATE_PLACES,
            1,
            "give the places to tell apart (the prizes'), 1 or more, e.g. 3",
        )?,
        confidence_permille,
        max_games: count(
            "max_games",
            keys.max_games,
            DEFAULT_SEPARATE_MAX_GAMES,
            2,
            "give the most games of the final, 2 or more, e.g. 2000",
        )?,
        pairs_per_round: count(
            "pairs_per_round",
            keys.pairs_per_round,
            1,
            1,
            "give the layout pairs a pair not yet apart plays per round, 1 or more",
        )?,
    })
}

/// The entrants' sandbox: `sandbox = true`, with the organiser's `ro_paths` (which need the sandbox).
fn sandbox(wanted: Option<bool>, ro_paths: Option<Vec<String>>) -> Result<Option<SandboxConfig>, KeyError> {
    match (wanted.unwrap_or(false), ro_paths) {
        (true, ro_paths) => Ok(Some(SandboxConfig {
            ro_paths: ro_paths.unwrap_or_default(),
            ..SandboxConfig::default()
        })),
        (false, Some(paths)) if !paths.is_empty() => Err(key_error(
            "ro_paths",
            "given without the sandbox",
            "set `sandbox = true`: without it the entrants see everything the arena's user sees",
        )),
        (false, _) => Ok(None),
    }
}

/// The build's variables, each a plain name.
fn build_env(variables: BTreeMap<String, String>) -> Result<BTreeMap<String, String>, KeyError> {
    let bad = |name: &str| name.is_empty() || name.contains(['=', '\0']);
    match variables.iter().find(|(name, value)| bad(name) || value.contains('\0')) {
        Some((name, _)) => Err(key_error(
            "build_env",
            format!("the variable {name:?}"),
            "give each variable a name without `=` and a value, e.g. PATH = \"/opt/go/bin:/usr/bin:/bin\"",
        )),
        None => Ok(variables),
    }
}

impl League {
    /// The most an entrant's folder may hold.
    pub fn caps(&self) -> Caps {
        Caps {
            files: self.max_files,
            depth: self.max_depth,
            mb: self.max_mb,
        }
    }

    /// The name of the rule that decides each round from the games before it, which `arena verify` decides
    /// again (a final's, a Swiss's or a knockout's); `None` for the precision rule, whose rounds depend on
    /// when entrants joined.
    pub fn deciding_rule(&self) -> Option<&'static str> {
        if self.separate.is_some() {
            Some("the final's")
        } else if self.swiss.is_some() {
            Some("the Swiss's")
        } else if self.knockout.is_some() {
            Some("the knockout's")
        } else {
            None
        }
    }

    /// The layout rounds the league's pairs play: `games_per_pair / 2` for each pair, or in a Swiss, whose
    /// pairs meet once, one for each of its rounds (round `r` plays layout round `r - 1`, so that each round
    /// has a layout of its own).
    pub fn rounds(&self) -> u32 {
        match (&self.swiss, &self.knockout) {
            (Some(swiss), _) => swiss.rounds,
            (_, Some(knockout)) => knockout.layout_rounds(),
            _ => self.games_per_pair / 2,
        }
    }

    /// The tournament of two placeholder bots with the league's rules: its schedule lays out the
    /// league's games, layout round `k` of every pair being the game `2k` (and `2k + 1`, seats
    /// swapped) of this tournament, so that a league's layouts are derived exactly as a tournament's.
    pub fn template(&self) -> Tournament {
        self.tournament(Vec::new())
    }

    /// The league as a tournament of `bots` (the entrants): how the commands that read any journal
    /// (`arena standings`, `arena report`, `arena serve`) see it.
    pub fn tournament(&self, bots: Vec<pahtum_tournament::config::BotConfig>) -> Tournament {
        Tournament {
            name: self.name.clone(),
            seed: self.seed,
            format: Format::RoundRobin,
            // Two games a layout round: a Swiss's rounds each lay out one of the schedule's layouts.
            games_per_pair: 2 * self.rounds(),
            rules: self.rules.clone(),
            time: self.time,
            pause_idle: false,
            bots,
        }
    }

    /// The hash of the league, as a tournament's (`"sha256:"` and the hex SHA-256 of its compact JSON).
    pub fn hash(&self) -> String {
        let json = serde_json::to_vec(self).expect("a league serializes to JSON");
        let hex: String = Sha256::digest(&json).iter().map(|byte| format!("{byte:02x}")).collect();
        format!("sha256:{hex}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_file_is_a_league_with_every_default() {
        let league = parse(Path::new("league.toml"), &default_file("class")).unwrap();
        assert_eq!(league.name, "class");
        assert_eq!(league.games_per_pair, DEFAULT_GAMES_PER_PAIR);
        assert_eq!(league.precision_elo, DEFAULT_PRECISION_ELO);
        assert_eq!(league.sandbox, None);
        assert_eq!(league.time.move_ms, Some(1000));
        assert_eq!(league, parse(Path::new("l"), "name = \"class\"").unwrap());
    }

    /// A league at the default caps hashes as before they were keys, so that its journal still opens; a
    /// league that sets one hashes otherwise.
    #[test]
    fn the_caps_at_their_defaults_leave_the_hash_as_it_was() {
        let league = parse(Path::new("league.toml"), "name = \"x\"").unwrap();
        let json = serde_json::to_string(&league).unwrap();
        assert!(!json.contains("max_"), "{json}");
        let old: League = serde_json::from_str(&json).unwrap();
        assert_eq!(old, league);
        assert_eq!(
            (league.max_files, league.max_depth, league.max_mb),
            (DEFAULT_MAX_FILES, DEFAULT_MAX_DEPTH, DEFAULT_MAX_MB)
        );
        let capped = parse(Path::new("league.toml"), "name = \"x\"\nmax_mb = 1").unwrap();
        assert!(serde_json::to_string(&capped).unwrap().contains("\"max_mb\":1"));
        assert_ne!(capped.hash(), league.hash());
    }

    /// The reference file is valid and writes out the true defaults.
    #[test]
    fn the_reference_file_states_the_true_defaults() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tournaments/league/league.toml");
        let reference = load(&path).unwrap();
        assert_eq!(reference, parse(&path, "name = \"league\"").unwrap());
        assert_eq!(reference, parse(&path, &default_file("league")).unwrap());
    }

    #[test]
    fn a_bad_key_is_named_with_its_fix() {
        for (text, key) in [
            ("name = \"x\"\ngames_per_pair = 3", "games_per_pair"),
            ("name = \"x\"\ngames_per_pair = 130", "games_per_pair"),
            ("name = \"x\"\nprecision_elo = 0", "precision_elo"),
            ("name = \"x\"\nmax_files = 0", "max_files"),
            ("name = \"x\"\nmax_depth = -1", "max_depth"),
            ("name = \"x\"\nmax_mb = 0", "max_mb"),
            ("name = \"x\"\nro_paths = [\"/opt\"]", "ro_paths"),
            ("name = \"x\"\n[build_env]\n\"A=B\" = \"1\"", "build_env"),
            ("name = \"x\"\n[time]\nclock = \"sun\"", "time.clock"),
            ("name = \"../x\"", "name"),
            ("name = \"x\"\n[swiss]\nrounds = 65", "swiss.rounds"),
            ("name = \"x\"\n[swiss]", "swiss.rounds"),
            (
                "name = \"x\"\ngames_per_pair = 4\n[swiss]\nrounds = 3",
                "games_per_pair",
            ),
            ("name = \"x\"\n[separate]\n[swiss]\nrounds = 3", "swiss"),
            (
                "name = \"x\"\n[swiss]\nrounds = 3\n[knockout]\nseeds = [\"a@1\", \"b@1\"]",
                "knockout",
            ),
            ("name = \"x\"\n[knockout]\nseeds = [\"a@1\", \"a@1\"]", "knockout.seeds"),
            ("name = \"x\"\n[knockout]\nseeds = [\"a@1\"]", "knockout.seeds"),
            (
                "name = \"x\"\n[knockout]\npairs = 2\nmax_pairs = 1\nseeds = [\"a@1\", \"b@1\"]",
                "knockout.max_pairs",
            ),
            (
                // 64 seeds: 6 stages of 11 layout pairs are more than a pair's 64 layout rounds.
                &format!(
                    "name = \"x\"\n[knockout]\nmax_pairs = 11\nseeds = [{}]",
                    (0..64).map(|n| format!("\"e{n}@1\"")).collect::<Vec<_>>().join(", ")
                ),
                "knockout.max_pairs",
            ),
            ("name = \"x\"\n[rules]\nadjudicate = \"maybe\"", "rules.adjudicate"),
        ] {
            let error = parse(Path::new("league.toml"), text).unwrap_err();
            assert!(
                matches!(&error, ConfigError::Invalid { key: found, .. } if found == key),
                "{error}"
            );
        }
        let error = parse(Path::new("league.toml"), "name = \"x\"\nbots = 3").unwrap_err();
        assert!(matches!(error, ConfigError::Syntax { .. }), "{error}");
    }
}
