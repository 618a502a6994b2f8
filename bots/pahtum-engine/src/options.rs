//! The engine's command line, shared by its own binary and by `arena bot
//! engine`, which flattens [`Options`] into its own arguments.

use clap::Parser;
use pahtum_search::mcts::Settings;

use crate::budget::Plan;

/// How the engine plays.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct Options {
    /// Strength, 0 to 8. Level 0 plays the best cell of the one-ply knowledge
    /// without searching; levels 1 to 7 cap the playouts per move at
    /// 100, 400, ..., 409600 (times 4 a level) and solve the endgame exactly
    /// from 4, 6, ..., 16 free cells; level 8 uses all its time.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(0..=8))]
    pub level: u32,

    /// Run exactly this many playouts per move (unless the clock runs out
    /// first), for reproducible tests; with --seed, identical requests get
    /// identical answers.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub playouts: Option<u64>,

    /// Seed of the engine's random numbers [default: a fresh one each run].
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,

    /// Solve the endgame exactly from this many free cells (capped by the
    /// level).
    #[arg(long, value_name = "CELLS", default_value_t = 18, value_parser = clap::value_parser!(u32).range(0..=44))]
    pub exact_cells: u32,

    /// From this many free cells (capped by the level), before the tree
    /// search, find out whether the position is won, drawn or lost with best
    /// play (a null-window exact search, cheaper than the exact margin): a
    /// won position is played by the winning move, and in a drawn one the
    /// tree's move is kept only if it is proven to keep the draw.
    #[arg(long, value_name = "CELLS", default_value_t = 20, value_parser = clap::value_parser!(u32).range(0..=44))]
    pub outcome_cells: u32,

    /// With this many free cells or fewer (where the endgame is solved), choose
    /// among the moves that keep the exact value the one that leaves the
    /// opponent the most replies that give some of it away (0: the solver's
    /// first best move). Off by default: against a fallible opponent it did
    /// not win more (bots/pahtum-engine/EXPERIMENTS.md).
    #[arg(long, value_name = "CELLS", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=44))]
    pub trap_cells: u32,

    /// The share of the allowed time the engine uses; the rest is a safety
    /// margin for the referee's measurement.
    #[arg(long, value_name = "SHARE", default_value_t = 0.85, value_parser = parse_share)]
    pub time_share: f64,

    /// Milliseconds kept back for the process and the pipes, on top of the
    /// share.
    #[arg(long, value_name = "MS", default_value_t = 3)]
    pub overhead_ms: u64,

    /// Think time per move when the referee sets no clock.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub unlimited_ms: u64,

    /// PUCT exploration constant of the tree search.
    #[arg(long, value_name = "C", default_value_t = Settings::default().exploration)]
    pub exploration: f32,

    /// Temperature of the tree's priors, in points of stake (higher is flatter).
    #[arg(long, value_name = "T", default_value_t = Settings::default().temperature)]
    pub temperature: f32,

    /// The probability of a random cell at each ply of a playout; the other
    /// plies play the cell of the highest stake.
    #[arg(long, value_name = "P", default_value_t = Settings::default().epsilon, value_parser = parse_probability)]
    pub epsilon: f32,

    /// RAVE equivalence parameter of the tree search: the visits at which a
    /// move's own mean and its all-moves-as-first mean weigh the same (0 turns
    /// RAVE off).
    #[arg(long, value_name = "K", default_value_t = Settings::default().rave, value_parser = parse_non_negative)]
    pub rave: f32,

    /// The share of a playout's value that comes from its final margin (0:
    /// the result alone, win 1, draw 1/2, loss 0), so that between lines that
    /// look equally drawn the search prefers the one that keeps more points.
    #[arg(long, value_name = "W", default_value_t = Settings::default().margin_weight, value_parser = parse_probability)]
    pub margin_weight: f32,

    /// How much less than one half a draw is worth to the engine in its tree
    /// search (not in its pie decision), so that it plays on for a win.
    #[arg(long, value_name = "C", default_value_t = Settings::default().contempt, value_parser = parse_contempt)]
    pub contempt: f32,

    /// When a tree search stops before its time once the most visited move
    /// can no longer change: `clock` only with a game clock, where the time
    /// saved is spent on later moves (under a per-move limit the search uses
    /// its time, growing the subtree the next move keeps); `always` also
    /// under a per-move limit (what the engine did before this option existed).
    #[arg(long, value_name = "WHEN", value_enum, default_value_t = StopDecided::Clock)]
    pub stop_decided: StopDecided,

    /// Start every tree search afresh instead of keeping the subtree of the
    /// position from the previous move (with --playouts or a level below 8,
    /// searches always start afresh, so that an answer depends on the request
    /// alone).
    #[arg(long)]
    pub fresh_tree: bool,
}

/// When a tree search may stop early (see `--stop-decided`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StopDecided {
    /// Only with a game clock (remaining time), where saved time is used later.
    Clock,
    /// Under any clock.
    Always,
}

impl Options {
    /// The options of `args` (the arguments only, without a program name).
    pub fn parse_args(args: &[String]) -> Result<Options, clap::Error> {
        let cli = Cli::try_parse_from(std::iter::once("pahtum-engine").chain(args.iter().map(String::as_str)))?;
        Ok(cli.options)
    }

    /// The time plan of these options.
    pub fn plan(&self) -> Plan {
        Plan {
            share: self.time_share,
            overhead_ms: self.overhead_ms,
            unlimited_ms: self.unlimited_ms,
        }
    }

    /// The search settings of these options.
    pub fn settings(&self) -> Settings {
        Settings {
            exploration: self.exploration,
            temperature: self.temperature,
            epsilon: self.epsilon,
            rave: self.rave,
            margin_weight: self.margin_weight,
            contempt: self.contempt,
            keep_tree: !self.fresh_tree && self.playouts.is_none() && self.level_playouts().is_none(),
            ..Settings::default()
        }
    }

    /// The playout cap of the level (none at the top level).
    pub fn level_playouts(&self) -> Option<u64> {
        (self.level < 8).then(|| 100 << (2 * (self.level.max(1) - 1)))
    }

    /// The number of free cells from which the endgame is solved exactly.
    pub fn exact_from(&self) -> u32 {
        self.capped_by_level(self.exact_cells)
    }

    /// The number of free cells from which the result with best play is
    /// searched before the tree search (see `--outcome-cells`).
    pub fn outcome_from(&self) -> u32 {
        self.capped_by_level(self.outcome_cells)
    }

    /// A number of free cells for the exact searches, capped by the level.
    fn capped_by_level(&self, cells: u32) -> u32 {
        if self.level < 8 {
            cells.min(2 + 2 * self.level)
        } else {
            cells
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options::parse_args(&[]).expect("the defaults parse")
    }
}

/// The engine's command line: the options, and nothing else.
#[derive(Debug, Parser)]
#[command(
    name = "pahtum-engine",
    version,
    about = "The reference Pah Tum engine, a bot of the pahtum-arena protocol on stdin and stdout."
)]
pub struct Cli {
    /// Every option of the engine.
    #[command(flatten)]
    pub options: Options,
}

fn parse_probability(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!(
            "{text:?} is not a probability: expected a number from 0 to 1, like 0.03"
        )),
    }
}

fn parse_non_negative(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(k) if k >= 0.0 && k.is_finite() => Ok(k),
        _ => Err(format!(
            "{text:?} is not a number of visits: expected 0 or more, like 500"
        )),
    }
}

fn parse_contempt(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(c) if (0.0..=0.5).contains(&c) => Ok(c),
        _ => Err(format!(
            "{text:?} is not a contempt: expected a number from 0 to 0.5, like 0.1"
        )),
    }
}

fn parse_share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(share) if share > 0.0 && share <= 1.0 => Ok(share),
        _ => Err(format!(
            "{text:?} is not a share of the time: expected a number above 0 and at most 1, like 0.85"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    /// clap's own consistency checks of the definitions (names, defaults, conflicts), which it makes only
    /// in debug builds and only for the arguments a parse meets.
    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn levels_set_caps_and_the_exact_endgame() {
        let top = Options::default();
        assert_eq!((top.level, top.level_playouts(), top.exact_from()), (8, None, 18));
        let one = Options::parse_args(&args("--level 1")).unwrap();
        assert_eq!((one.level_playouts(), one.exact_from()), (Some(100), 4));
        let seven = Options::parse_args(&args("--level 7 --exact-cells 10")).unwrap();
        assert_eq!((seven.level_playouts(), seven.exact_from()), (Some(409_600), 10));
    }

    #[test]
    fn bad_values_are_refused_with_a_reason() {
        assert!(Options::parse_args(&args("--level 9")).is_err());
        assert!(Options::parse_args(&args("--playouts 0")).is_err());
        let error = Options::parse_args(&args("--time-share 1.5")).unwrap_err().to_string();
        assert!(error.contains("at most 1"), "{error}");
        assert!(Options::parse_args(&args("--bogus")).is_err());
    }
}
