//! `arena report JOURNAL_OR_RUN_DIR`: the HTML report of any journal.
//!
//! The page is `pahtum-report`'s, the same that `arena run` and `arena match`
//! write as `report.html` beside their journals.

use std::path::PathBuf;
use std::process::ExitCode;

use pahtum_report::files::REPORT_HTML;
use pahtum_report::html::{DEFAULT_MAX_REPLAYS, Options};
use pahtum_report::run_report::write_report;
use pahtum_tournament::strength::AnchorSpec;

use crate::inputs::{journal_path, one_journal};
use crate::output::errln;

/// Write the HTML report (standings, crosstable, games and their replays) of a journal.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example: arena report runs/quickstart, then open runs/quickstart/report.html in a browser")]
pub struct Args {
    /// The journal, or a run's output folder (which holds journal.jsonl); several journals or folders
    /// (e.g. the shards of a run) are merged first, as `arena merge` does.
    #[arg(required = true)]
    pub journals: Vec<PathBuf>,
    /// Where to write the page [default: report.html beside the (first) journal].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Embed the replays of at most N games (every forfeit is embedded within the byte budget, the rest sampled by game id).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_REPLAYS)]
    pub max_replays: usize,
    /// Fix one bot's Elo, e.g. heuristic=1500 [default: Elo relative to the pool's average].
    #[arg(long, value_name = "NAME=ELO")]
    pub anchor: Option<AnchorSpec>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let out = args
        .out
        .unwrap_or_else(|| journal_path(&args.journals[0]).with_file_name(REPORT_HTML));
    let (journal, _merged) = one_journal(&args.journals)?;
    let options = Options {
        max_replays: args.max_replays,
        ..Options::default()
    };
    let games = write_report(&journal, &out, args.anchor.as_ref(), options)?;
    errln!("arena: report {} ({} games)", out.display(), games);
    Ok(ExitCode::SUCCESS)
}
