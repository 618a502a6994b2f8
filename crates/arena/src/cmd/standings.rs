//! `arena standings JOURNAL`: the standings of any journal, in any format.
//!
//! The journal alone is enough: its header holds the tournament (so the
//! schedule, to check the records against, and the bots, so that a bot
//! without a game still shows); a torn last line and blank lines are
//! ignored, and any other faulty line (a record that does not replay, or that
//! the schedule does not have) is an error naming it: `arena verify` lists
//! them all. The standings
//! carry each bot's Elo (joint fit, 95% interval, LOS over the next row), the
//! LOS matrix and the pair table; `--anchor NAME=ELO` fixes one bot's Elo.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::LazyLock;

use clap::builder::PossibleValue;

use crate::output::out;
use pahtum_report::fold;
use pahtum_report::render::{Format, render};
use pahtum_standings::strength::AnchorSpec;

/// Print the standings of a tournament journal.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "Examples:
  arena standings runs/quickstart/journal.jsonl
  arena standings runs/quickstart/journal.jsonl --format markdown > standings.md
  arena standings runs/heuristic-vs-first-free/journal.jsonl --anchor first-free=0")]
pub struct Args {
    /// The journal (journal.jsonl in a run's output folder); several journals or folders (e.g. the
    /// shards of a run) are merged first, as `arena merge` does.
    #[arg(required = true)]
    pub journals: Vec<PathBuf>,
    /// The format (OUTPUTS.md documents the JSON, key by key).
    #[arg(long, default_value = "table")]
    pub format: FormatArg,
    /// Fix one bot's Elo, e.g. heuristic=1500 [default: Elo relative to the pool's average].
    #[arg(long, value_name = "NAME=ELO")]
    pub anchor: Option<AnchorSpec>,
    #[command(flatten)]
    pub wide: crate::flags::WideFlag,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let journal = crate::inputs::one_journal(&args.journals)?;
    let standings = fold::standings_of_journal(&journal.path, args.anchor.as_ref())?;
    out!("{}", render(&standings, args.format.0, args.wide.fit()));
    Ok(ExitCode::SUCCESS)
}

/// A [`Format`] as a clap value, so that the help and the completions list the formats.
#[derive(Debug, Clone, Copy)]
pub struct FormatArg(pub Format);

static FORMATS: LazyLock<Vec<FormatArg>> = LazyLock::new(|| Format::ALL.map(FormatArg).to_vec());

impl clap::ValueEnum for FormatArg {
    fn value_variants<'a>() -> &'a [Self] {
        &FORMATS
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()))
    }
}
