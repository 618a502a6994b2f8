//! `arena report JOURNAL_OR_RUN_DIR`: the HTML report of any journal, or of one game.
//!
//! The page is `pahtum-report`'s, the same that `arena run` and `arena match`
//! write as `report.html` beside their journals. A game's record (from `arena
//! game --out` or `arena play --out`) gets the page that `arena game --html`
//! writes: the replay viewer, open at the game. The analysis that `arena
//! analyze` wrote beside the journal (`analysis.jsonl`) or the record
//! (`NAME.analysis.jsonl`) is shown when it is there.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use pahtum_protocol::untrusted::escape;
use pahtum_record::annotations::{beside, latest};
use pahtum_report::files::REPORT_HTML;
use pahtum_report::html::{DEFAULT_MAX_REPLAYS, Options};
use pahtum_report::run_report::{write_game_page, write_report};
use pahtum_report::sources::{OneJournal, Source, journal_path};
use pahtum_standings::strength::AnchorSpec;

use crate::inputs::source;
use crate::output::errln;

/// Write the HTML report (standings, crosstable, games and their replays) of a journal, or one game's page.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  arena report runs/quickstart, then open runs/quickstart/report.html in a browser\n  arena report game.json, then open game.html"
)]
pub struct Args {
    /// The journal, or a run's output folder (which holds journal.jsonl); several journals or folders
    /// (e.g. the shards of a run) are merged first, as `arena merge` does. Or a game's record alone (what
    /// `arena game --out` and `arena play --out` write).
    #[arg(required = true)]
    pub journals: Vec<PathBuf>,
    /// Where to write the page [default: report.html beside the (first) journal; for a game's record, its
    /// name with .html].
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
    let (journal, _merged) = match source(&args.journals)? {
        Source::Record { path, record } => {
            if args.anchor.is_some() {
                bail!("--anchor fixes a rating of a journal's bots; one game has no ratings");
            }
            let out = args.out.unwrap_or_else(|| path.with_extension("html"));
            let analysis = beside(&path);
            let mut analyses = latest(&analysis, [&*record])
                .with_context(|| format!("cannot read the analysis {}", analysis.display()))?;
            write_game_page(&out, &record, analyses.remove(&record.id).as_ref())?;
            errln!("arena: report {} (game {})", out.display(), escape(&record.id));
            return Ok(ExitCode::SUCCESS);
        }
        Source::Journal(OneJournal { path, merged, .. }) => (path, merged),
    };
    let out = args
        .out
        .unwrap_or_else(|| journal_path(&args.journals[0]).with_file_name(REPORT_HTML));
    let options = Options {
        max_replays: args.max_replays,
        ..Options::default()
    };
    let games = write_report(&journal, &out, args.anchor.as_ref(), options)?;
    errln!("arena: report {} ({} games)", out.display(), games);
    Ok(ExitCode::SUCCESS)
}
