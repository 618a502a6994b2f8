//! A run's report: its standings files and `report.html`, folded from the
//! run's own events as its games end, or from its journal.
//!
//! `arena run`, `arena match` and `arena merge` write their tables and
//! `report.html` through [`write_run_reports`], `arena report` writes the same
//! page from any journal through [`write_report`], and `arena game --html`
//! (and `arena report` of a game's record) writes one game's page through
//! [`write_game_page`]: one code path for a tournament, a match and a single
//! game.
//!
//! A run that starts on an empty journal folds its standings and the report's
//! samples from its own events as the games end ([`LiveReport`], an observer of
//! the run), so that its files need no second pass over the journal (at 4,700
//! games of instant bots that pass was about a tenth of the run's CPU); the
//! page is then written from the same builder, reading the sampled records
//! back, exactly as [`write_report`] writes it from the journal (a test holds
//! the two pages equal). A resumed run's earlier records come without their
//! moves, which the replays' sizes need, so its files are folded from the
//! journal.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use pahtum_analysis::file::beside;
use pahtum_analysis::format::{GameAnalysis, record_hash};
use pahtum_record::GameRecord;
use pahtum_tournament::config::Tournament;
use pahtum_tournament::events::{Event, Observer};
use pahtum_tournament::journal::{JournalError, Moves, Span, read_line_at};
use pahtum_tournament::report::{Folded, ReportError, fold_journal};
use pahtum_tournament::resume::Opened;
use pahtum_tournament::standings::{Standings, Tallies};
use pahtum_tournament::strength::{AnchorSpec, StrengthError};

use crate::files::{REPORT_HTML, write_atomically_with, write_standings};
use crate::html::analysis::AnalysisIndex;
use crate::html::data::ReplaySize;
use crate::html::{self, Options, PageError, ReportBuilder};

/// Why a run's report could not be made or written.
#[derive(Debug, thiserror::Error)]
pub enum RunReportError {
    /// The journal could not be folded.
    #[error(transparent)]
    Fold(#[from] ReportError),
    /// The ratings could not be fitted.
    #[error(transparent)]
    Strength(#[from] StrengthError),
    /// The standings files could not be written.
    #[error("cannot write the standings into {}", dir.display())]
    Standings {
        /// The output folder.
        dir: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The journal could not be opened to read the sampled records back.
    #[error("cannot read the journal {}", path.display())]
    Journal {
        /// The journal.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The analysis beside the journal could not be read.
    #[error("cannot read the analysis {}", path.display())]
    Analysis {
        /// The analysis file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The page could not be written.
    #[error("cannot write the report to {}", path.display())]
    Page {
        /// The page.
        path: PathBuf,
        /// Why.
        #[source]
        source: Box<PageError<JournalError>>,
    },
    /// One game's page could not be written.
    #[error("cannot write the game's page to {}", path.display())]
    GamePage {
        /// The page.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

/// The standings and the report's samples of a run, folded from its events as its games end: an
/// [`Observer`] of the run. It folds nothing when the run's journal held games already (see the module's
/// doc).
#[derive(Debug)]
pub struct LiveReport(Option<Fold>);

#[derive(Debug)]
struct Fold {
    tournament: Tournament,
    scheduled: usize,
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
            scheduled: opened.plan.schedule.len(),
        }))
    }

    /// The report's builder and the standings, if the run folded every record of its journal.
    fn finish(self, anchor: Option<&AnchorSpec>) -> Result<Option<(ReportBuilder<Span>, Folded)>, RunReportError> {
        let Some(fold) = self.0 else { return Ok(None) };
        let folded = Folded {
            scheduled: fold.scheduled,
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

/// Writes the standings files and `report.html` of the journal at `journal` into `out` (for `arena run`,
/// `arena match` and `arena merge`), from the run's `live` fold when it folded every record of the
/// journal (and no analysis lies beside it: the run's events do not hash their records), else from the
/// journal; returns the standings and the files written.
pub fn write_run_reports(
    out: &Path,
    journal: &Path,
    anchor: Option<&AnchorSpec>,
    live: Option<LiveReport>,
) -> Result<(Standings, Vec<PathBuf>), RunReportError> {
    let folded = match live {
        Some(live) if !beside(journal).exists() => live.finish(anchor)?,
        _ => None,
    };
    let (report, folded) = match folded {
        Some(folded) => folded,
        None => fold_report(journal, anchor, Options::default())?,
    };
    let mut written = write_standings(out, &folded.standings).map_err(|source| RunReportError::Standings {
        dir: out.to_owned(),
        source,
    })?;
    let page = out.join(REPORT_HTML);
    write_page(report, &folded, journal, &page)?;
    written.push(page);
    Ok((folded.standings, written))
}

/// Writes the page of the journal at `journal` to `page` with `options` (`arena report`); returns the
/// games it counts.
pub fn write_report(
    journal: &Path,
    page: &Path,
    anchor: Option<&AnchorSpec>,
    options: Options,
) -> Result<usize, RunReportError> {
    let (report, folded) = fold_report(journal, anchor, options)?;
    write_page(report, &folded, journal, page)?;
    Ok(folded.standings.games)
}

/// One pass over the journal at `journal`: its records stream into the standings and the report's samples
/// at once, which keep where each sampled record lies in the file; the moves are read only to size each
/// game's replay (and to hash the record, when an analysis lies beside the journal), on the threads that read
/// the journal, and dropped there.
fn fold_report(
    journal: &Path,
    anchor: Option<&AnchorSpec>,
    options: Options,
) -> Result<(ReportBuilder<Span>, Folded), RunReportError> {
    let path = beside(journal);
    let analyses = AnalysisIndex::open(&path).map_err(|source| RunReportError::Analysis { path, source })?;
    let mut report = ReportBuilder::new(options).with_analyses(analyses);
    let hashed = report.has_analyses();
    let keep = |record: &GameRecord| (ReplaySize::of(record), hashed.then(|| record_hash(record)));
    let folded = fold_journal(journal, Moves::Keep, anchor, keep, |record, (size, hash), span| {
        report.add_hashed(record, size, span, hash.as_deref())
    })?;
    Ok((report, folded))
}

/// The page of the journal at `journal`, in memory, as [`write_report`] writes it (for `arena serve`).
pub fn report_page(journal: &Path, options: Options) -> Result<Vec<u8>, RunReportError> {
    let (report, folded) = fold_report(journal, None, options)?;
    let file = open_journal(journal)?;
    let mut page = Vec::new();
    finish_page(report, &folded, (&file, journal), &mut page).map_err(|source| RunReportError::Page {
        path: journal.to_owned(),
        source: Box::new(source),
    })?;
    Ok(page)
}

/// Writes the page of `report` to `page`, reading the sampled records back from `journal`.
fn write_page(report: ReportBuilder<Span>, folded: &Folded, journal: &Path, page: &Path) -> Result<(), RunReportError> {
    let file = open_journal(journal)?;
    write_atomically_with(page, |out| finish_page(report, folded, (&file, journal), out)).map_err(|source| {
        RunReportError::Page {
            path: page.to_owned(),
            source: Box::new(source),
        }
    })
}

fn open_journal(journal: &Path) -> Result<File, RunReportError> {
    File::open(journal).map_err(|source| RunReportError::Journal {
        path: journal.to_owned(),
        source,
    })
}

/// Writes the page of `report` to `out`, reading the sampled records back from the journal, open as `file`.
fn finish_page(
    report: ReportBuilder<Span>,
    folded: &Folded,
    (file, journal): (&File, &Path),
    out: &mut impl std::io::Write,
) -> Result<(), PageError<JournalError>> {
    let read = |span| read_line_at(file, journal, span);
    report.finish(&folded.tournament.name, folded.scheduled, &folded.standings, read, out)
}

/// Writes the page of one game (the replay viewer alone) to `path`, for `arena game --html` and `arena report`
/// of a record, with `analysis`, the record's analysis, if there is one.
pub fn write_game_page(
    path: &Path,
    record: &GameRecord,
    analysis: Option<&GameAnalysis>,
) -> Result<(), RunReportError> {
    write_atomically_with(path, |out| html::write_game_page(record, analysis, out)).map_err(|source| {
        RunReportError::GamePage {
            path: path.to_owned(),
            source,
        }
    })
}
