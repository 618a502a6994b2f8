//! `arena report JOURNAL_OR_RUN_DIR`: the HTML report of any journal, and the report files of a run.
//!
//! `arena run` and `arena match` write their tables and `report.html` through
//! [`write_run_reports`], `arena game --html` through [`write_game_page`], and
//! this command makes the same page from any journal: one code path for a
//! tournament, a match and a single game (see the `pahtum-report` crate).
//!
//! A run that starts on an empty journal folds its standings and the report's
//! samples from its own events as the games end ([`LiveReport`]), so that its
//! files need no second pass over the journal (at 4,700 games of instant bots
//! that pass was about a tenth of the run's CPU); the page is then written
//! from the same builder, reading the sampled records back, exactly as this
//! command writes it from the journal (a test holds the two pages equal). A
//! resumed run's earlier records come without their moves, which the replays'
//! sizes need, so its files are folded from the journal, as here.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use pahtum_record::GameRecord;
use pahtum_report::files::{REPORT_HTML, write_atomically_with, write_standings};
use pahtum_report::html::data::ReplaySize;
use pahtum_report::html::{self, DEFAULT_MAX_REPLAYS, Options, ReportBuilder};
use pahtum_tournament::config::Tournament;
use pahtum_tournament::events::{Event, Observer};
use pahtum_tournament::journal::{Moves, Span, read_line_at};
use pahtum_tournament::report::{Folded, fold_journal};
use pahtum_tournament::resume::Opened;
use pahtum_tournament::schedule;
use pahtum_tournament::standings::{Standings, Tallies};
use pahtum_tournament::strength::AnchorSpec;

/// The name of the journal in a run's output folder.
const JOURNAL: &str = "journal.jsonl";

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
    let (journal, _merged) = super::merge::one_journal(&args.journals)?;
    let options = Options {
        max_replays: args.max_replays,
        ..Options::default()
    };
    let (report, folded) = fold_report(&journal, args.anchor.as_ref(), options)?;
    write_page(report, &folded, &journal, &out)?;
    eprintln!("arena: report {} ({} games)", out.display(), folded.standings.games);
    Ok(ExitCode::SUCCESS)
}

/// A run's folder names its journal; anything else is the journal itself.
pub fn journal_path(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join(JOURNAL)
    } else {
        path.to_owned()
    }
}

/// The standings and the report's samples of a run, folded from its events as its games end: an
/// [`Observer`] of the run. It folds nothing when the run's journal held games already (see the module's
/// doc).
#[derive(Debug)]
pub struct LiveReport(Option<Fold>);

#[derive(Debug)]
struct Fold {
    tournament: Tournament,
    tallies: Tallies,
    report: ReportBuilder<Span>,
}

impl LiveReport {
    /// The fold of the run about to play into the journal of `opened`.
    pub fn of(opened: &Opened) -> LiveReport {
        let tournament = opened.plan.tournament();
        LiveReport(opened.plan.done.is_empty().then(|| Fold {
            tallies: Tallies::new(&tournament.bot_names()),
            report: ReportBuilder::new(Options::default()),
            tournament: tournament.clone(),
        }))
    }

    /// The report's builder and the standings, if the run folded every record of its journal.
    fn finish(self, anchor: Option<&AnchorSpec>) -> anyhow::Result<Option<(ReportBuilder<Span>, Folded)>> {
        let Some(fold) = self.0 else { return Ok(None) };
        let folded = Folded {
            scheduled: schedule::len(&fold.tournament),
            standings: fold.tallies.finish(anchor)?,
            tournament: fold.tournament,
        };
        Ok(Some((fold.report, folded)))
    }
}

impl Observer for LiveReport {
    fn on(&mut self, event: Event<'_>) {
        if let (Some(fold), Event::GameFinished { record, at }) = (&mut self.0, event) {
            fold.tallies.add(record);
            fold.report.add(record, ReplaySize::of(record), at);
        }
    }
}

/// Writes the standings files and `report.html` of the journal at `journal` into `out` (for `arena run` and
/// `arena match`), from the run's `live` fold when it folded every record of the journal, else from the
/// journal; returns the standings and the files written.
pub fn write_run_reports(
    out: &Path,
    journal: &Path,
    anchor: Option<&AnchorSpec>,
    live: Option<LiveReport>,
) -> anyhow::Result<(Standings, Vec<PathBuf>)> {
    let folded = match live {
        Some(live) => live.finish(anchor)?,
        None => None,
    };
    let (report, folded) = match folded {
        Some(folded) => folded,
        None => fold_report(journal, anchor, Options::default())?,
    };
    let mut written = write_standings(out, &folded.standings)
        .with_context(|| format!("cannot write the standings into {}", out.display()))?;
    let page = out.join(REPORT_HTML);
    write_page(report, &folded, journal, &page)?;
    written.push(page);
    Ok((folded.standings, written))
}

/// One pass over the journal at `journal`: its records stream into the standings and the report's samples
/// at once, which keep where each sampled record lies in the file; the moves are read only to size each
/// game's replay, on the threads that read the journal, and dropped there.
fn fold_report(
    journal: &Path,
    anchor: Option<&AnchorSpec>,
    options: Options,
) -> anyhow::Result<(ReportBuilder<Span>, Folded)> {
    let mut report = ReportBuilder::new(options);
    let folded = fold_journal(journal, Moves::Keep, anchor, ReplaySize::of, |record, size, span| {
        report.add(record, size, span)
    })?;
    Ok((report, folded))
}

/// Writes the page of `report` to `page`, reading the sampled records back from `journal`.
fn write_page(report: ReportBuilder<Span>, folded: &Folded, journal: &Path, page: &Path) -> anyhow::Result<()> {
    let file = File::open(journal).with_context(|| format!("cannot read the journal {}", journal.display()))?;
    let read = |span| read_line_at(&file, journal, span);
    write_atomically_with(page, |out| {
        report.finish(&folded.tournament.name, folded.scheduled, &folded.standings, read, out)
    })
    .with_context(|| format!("cannot write the report to {}", page.display()))
}

/// Writes the page of one game (the replay viewer alone) to `path`, for `arena game --html`.
pub fn write_game_page(path: &Path, record: &GameRecord) -> anyhow::Result<()> {
    write_atomically_with(path, |out| html::write_game_page(record, out))
        .with_context(|| format!("cannot write the game's page to {}", path.display()))
}
