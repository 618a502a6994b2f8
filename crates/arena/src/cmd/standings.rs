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

use pahtum_tournament::render::{Format, render};
use pahtum_tournament::report;
use pahtum_tournament::strength::AnchorSpec;

/// Print the standings of a tournament journal.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The journal (journal.jsonl in a run's output folder).
    pub journal: PathBuf,
    /// table, markdown, csv or json (the JSON schema is documented in pahtum-tournament's standings module).
    #[arg(long, default_value = "table")]
    pub format: Format,
    /// Fix one bot's Elo, e.g. heuristic=1500 [default: Elo relative to the pool's average].
    #[arg(long, value_name = "NAME=ELO")]
    pub anchor: Option<AnchorSpec>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let standings = report::standings_of_journal(&args.journal, args.anchor.as_ref())?;
    print!("{}", render(&standings, args.format));
    Ok(ExitCode::SUCCESS)
}
