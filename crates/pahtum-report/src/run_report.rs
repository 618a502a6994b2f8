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

use crate::fold::{Folded, FollowedFold, ReportError, fold_journal};
use pahtum_journal::sink::{Keep, Sink};
use pahtum_journal::{Growth, JournalError, Moves, Span, read_line_at};
use pahtum_league::history::{self, Checkpoints};
use pahtum_league::table::table;
use pahtum_league::{LeagueState, is_league_journal};
use pahtum_record::GameRecord;
use pahtum_record::annotations::{GameAnalysis, beside, record_hash};
use pahtum_run::events::{Event, Observer};
use pahtum_standings::standings::{Standings, Tallies};
use pahtum_standings::strength::{AnchorSpec, StrengthError};
use pahtum_tournament::config::Tournament;

use crate::files::{REPORT_HTML, write_atomically_with, write_standings};
use crate::html::analysis::AnalysisIndex;
use crate::html::data::ReplaySize;
use crate::html::league::LeaguePage;
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
/// [`Observer`] of the run, made before the run opens its journal. It folds from [`Event::Opened`] on, and
/// nothing when the run's journal held games already (see the module's doc).
#[derive(Debug, Default)]
pub struct LiveReport(Option<Fold>);

#[derive(Debug)]
struct Fold {
    tournament: Tournament,
    scheduled: usize,
    tallies: Tallies,
    report: ReportBuilder<Span>,
}

impl LiveReport {
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
        match event {
            Event::Opened {
                tournament,
                scheduled,
                done,
            } => {
                self.0 = (done == 0).then(|| Fold {
                    tallies: Tallies::new(&tournament.bot_names()),
                    report: ReportBuilder::new(Options::default()),
                    tournament: tournament.clone(),
                    scheduled,
                });
            }
            Event::GameFinished { record, at } => {
                if let Some(fold) = &mut self.0 {
                    fold.tallies.add(record);
                    fold.report.add(record, ReplaySize::of(record), at);
                }
            }
            _ => {}
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
    let (report, folded, league) = match folded {
        Some((report, folded)) => (report, folded, None),
        None => fold_report(journal, anchor, Options::default())?,
    };
    let mut written = write_standings(out, &folded.standings).map_err(|source| RunReportError::Standings {
        dir: out.to_owned(),
        source,
    })?;
    let page = out.join(REPORT_HTML);
    write_page(report, &folded, league.as_ref(), journal, &page)?;
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
    let (report, folded, league) = fold_report(journal, anchor, options)?;
    write_page(report, &folded, league.as_ref(), journal, page)?;
    Ok(folded.standings.games)
}

/// One pass over the journal at `journal`: its records stream into the standings and the report's samples
/// at once, which keep where each sampled record lies in the file; the moves are read only to size each
/// game's replay (and to hash the record, when an analysis lies beside the journal), on the threads that read
/// the journal, and dropped there. A league's journal is folded with its checkpoints into its sections too.
fn fold_report(
    journal: &Path,
    anchor: Option<&AnchorSpec>,
    options: Options,
) -> Result<(ReportBuilder<Span>, Folded, Option<LeaguePage>), RunReportError> {
    let mut report = new_report(journal, options)?;
    if !is_league_journal(journal) {
        let folded = fold_journal(journal, Moves::Keep, anchor, &mut report)?;
        return Ok((report, folded, None));
    }
    let (state, tallies, checkpoints) =
        history::fold(journal, Moves::Keep, &mut report).map_err(|error| ReportError::from(Box::new(error)))?;
    let (folded, league) = league_sections(&state, tallies, checkpoints, anchor)?;
    Ok((report, folded, Some(league)))
}

/// A league's standings and its page's sections (the ladder, the rating history), from its state, the
/// tallies of its games and their checkpoints.
fn league_sections(
    state: &LeagueState,
    tallies: Tallies,
    checkpoints: Checkpoints,
    anchor: Option<&AnchorSpec>,
) -> Result<(Folded, LeaguePage), RunReportError> {
    let table = table(state, tallies, anchor)?;
    let history = checkpoints.fit(state, &table.standings.strength, anchor)?;
    let league = LeaguePage::of(&table, state.entrants(), &history);
    let folded = Folded {
        tournament: state.tournament(),
        scheduled: state.decided_games(),
        standings: table.standings,
    };
    Ok((folded, league))
}

/// The report of no game yet of the journal at `journal`, with the analysis beside it if there is one.
fn new_report(journal: &Path, options: Options) -> Result<ReportBuilder<Span>, RunReportError> {
    let path = beside(journal);
    let analyses = AnalysisIndex::open(&path).map_err(|source| RunReportError::Analysis { path, source })?;
    Ok(ReportBuilder::new(options).with_analyses(analyses))
}

/// What a report needs of a record's moves, kept on the threads that read the journal: its replay's size,
/// and its hash if the report shows analyses.
#[derive(Debug)]
pub struct KeepForReport {
    hashed: bool,
}

impl Keep for KeepForReport {
    type Kept = (ReplaySize, Option<String>);

    fn keep(&self, record: &GameRecord) -> Self::Kept {
        (ReplaySize::of(record), self.hashed.then(|| record_hash(record)))
    }
}

/// A report takes each record, with what [`KeepForReport`] kept of it and where it lies.
impl Sink for ReportBuilder<Span> {
    type Keep = KeepForReport;

    fn keeper(&self) -> KeepForReport {
        KeepForReport {
            hashed: self.has_analyses(),
        }
    }

    fn record(&mut self, record: GameRecord, (size, hash): (ReplaySize, Option<String>), span: Span) {
        self.add_hashed(&record, size, span, hash.as_deref());
    }
}

/// The page of a journal that grows while it is shown (`arena serve`), as [`write_report`] writes it: each
/// [`update`](FollowedReport::update) folds only the records written since the last ([`FollowedFold`], a
/// tournament's journal or a league's), so that a page made again and again as its run plays costs in
/// proportion to its new games. A league's ladder and rating history are fitted from its followed state,
/// tallies and checkpoints when the page is made.
#[derive(Debug)]
pub struct FollowedReport {
    journal: PathBuf,
    options: Options,
    fold: FollowedFold,
    report: ReportBuilder<Span>,
}

impl FollowedReport {
    /// Starts following the journal at `journal` for a page made with `options`; nothing is folded yet.
    pub fn open(journal: &Path, options: Options) -> Result<FollowedReport, RunReportError> {
        Ok(FollowedReport {
            journal: journal.to_owned(),
            options,
            fold: FollowedFold::open(journal)?,
            report: new_report(journal, options)?,
        })
    }

    /// Folds what the journal gained since the last update; a journal that was replaced is followed afresh.
    pub fn update(&mut self) -> Result<(), RunReportError> {
        if self.fold.update(Moves::Keep, &mut self.report)? == Growth::Replaced {
            *self = FollowedReport::open(&self.journal, self.options)?;
            self.fold.update(Moves::Keep, &mut self.report)?;
        }
        Ok(())
    }

    /// The bytes of the journal folded so far.
    pub fn bytes_read(&self) -> u64 {
        self.fold.bytes_read()
    }

    /// The standings of the games folded so far.
    pub fn folded(&self) -> Result<Folded, RunReportError> {
        Ok(self.sections()?.0)
    }

    /// The standings folded so far, and a league's sections if the journal is a league's.
    fn sections(&self) -> Result<(Folded, Option<LeaguePage>), RunReportError> {
        match self.fold.league() {
            None => Ok((self.fold.folded(None)?, None)),
            Some(league) => {
                let (folded, page) =
                    league_sections(league.state(), league.tallies(), league.checkpoints().clone(), None)?;
                Ok((folded, Some(page)))
            }
        }
    }

    /// The page of the games folded so far.
    pub fn page(&self) -> Result<Vec<u8>, RunReportError> {
        let file = open_journal(&self.journal)?;
        let (folded, league) = self.sections()?;
        let mut page = Vec::new();
        finish_page(&self.report, &folded, league.as_ref(), &file, &self.journal, &mut page).map_err(|source| {
            RunReportError::Page {
                path: self.journal.clone(),
                source: Box::new(source),
            }
        })?;
        Ok(page)
    }
}

/// Writes the page of `report` to `page`, reading the sampled records back from `journal`.
fn write_page(
    report: ReportBuilder<Span>,
    folded: &Folded,
    league: Option<&LeaguePage>,
    journal: &Path,
    page: &Path,
) -> Result<(), RunReportError> {
    let file = open_journal(journal)?;
    write_atomically_with(page, |out| finish_page(&report, folded, league, &file, journal, out)).map_err(|source| {
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
    report: &ReportBuilder<Span>,
    folded: &Folded,
    league: Option<&LeaguePage>,
    file: &File,
    journal: &Path,
    out: &mut impl std::io::Write,
) -> Result<(), PageError<JournalError>> {
    let read = |span| read_line_at(file, journal, span);
    match league {
        Some(league) => report.finish_league(league, folded.scheduled, &folded.standings, read, out),
        None => report.finish(&folded.tournament.name, folded.scheduled, &folded.standings, read, out),
    }
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

#[cfg(test)]
mod tests {
    use pahtum_journal::Journal;
    use pahtum_tournament::testing::{played, tournament};

    use super::*;

    /// The part of `page` from the element that starts with `from` to the one that starts with `to`.
    fn between<'a>(page: &'a str, from: &str, to: &str) -> &'a str {
        let start = page.find(from).unwrap_or_else(|| panic!("no {from} in the page"));
        &page[start..start + page[start..].find(to).unwrap()]
    }

    #[test]
    fn a_followed_leagues_page_is_its_written_page_with_its_ladder_as_it_grows() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("journal.jsonl");
        let written = dir.path().join(REPORT_HTML);
        let entrants = [("ann", "1"), ("bob", "1"), ("ann", "2")];
        // The journal grows as a league's does, by lines appended: its first 12 games, then 24.
        let full = dir.path().join("full.jsonl");
        pahtum_league::testing::synthetic_league_of(&full, &entrants, 24);
        let text = std::fs::read_to_string(&full).unwrap();
        let ends: Vec<usize> = text.match_indices('\n').map(|(at, _)| at + 1).collect();
        let games_before = |end: usize| text[..end].lines().filter(|line| line.starts_with(r#"{"id""#)).count();
        let after_twelve = *ends.iter().find(|&&end| games_before(end) == 12).unwrap();
        std::fs::write(&journal, &text[..after_twelve]).unwrap();
        let mut followed = FollowedReport::open(&journal, Options::default()).unwrap();
        for games in [12, 24] {
            let end = if games == 12 { after_twelve } else { text.len() };
            std::fs::write(&journal, &text[..end]).unwrap();
            followed.update().unwrap();
            write_report(&journal, &written, None, Options::default()).unwrap();
            let page = String::from_utf8(followed.page().unwrap()).unwrap();
            assert_eq!(page, std::fs::read_to_string(&written).unwrap(), "at {games} games");
            assert!(page.contains("id=\"ladder\""), "the league's ladder");
            assert_eq!(followed.folded().unwrap().standings.games, games);
        }
    }

    #[test]
    fn a_leagues_page_has_its_ladder_and_each_bots_rating_history() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("journal.jsonl");
        // Two versions of ann and one of bob: eight layout rounds of their three pairs.
        let entrants = [("ann", "1"), ("bob", "1"), ("ann", "2")];
        pahtum_league::testing::synthetic_league_of(&journal, &entrants, 48);
        let written = dir.path().join(REPORT_HTML);
        assert_eq!(write_report(&journal, &written, None, Options::default()).unwrap(), 48);
        let page = std::fs::read_to_string(&written).unwrap();
        assert!(page.contains("<title>bench: Pah Tum league</title>"));

        // The ladder is the table's, cell for cell.
        let (state, tallies) =
            pahtum_league::table::fold(&journal, Moves::Drop, &mut pahtum_journal::sink::Counts).unwrap();
        let table = pahtum_league::table::table(&state, tallies, None).unwrap();
        let ladder = between(&page, "<section id=\"ladder\">", "<section id=\"history\">")
            .replace("<td class=\"name\">", "<td>");
        assert!(ladder.contains("League bench: 48 games in 8 rounds"), "{ladder}");
        let cells = |rows: Vec<Vec<String>>| {
            let rows: Vec<String> = rows.iter().map(|row| row.join("</td><td>")).collect();
            rows.join("</td></tr><tr><td>")
        };
        let text = crate::league::entrant_rows(&table.active, true)
            .skip(1)
            .collect::<Vec<_>>();
        assert!(
            ladder.contains(&cells(text)),
            "the active rows as `arena league table` has them: {ladder}"
        );
        let change = crate::league::version_rows(&table.versions).skip(1).collect::<Vec<_>>();
        assert_eq!(change[0][..3], ["ann", "ann@1", "ann@2"]);
        assert!(ladder.contains(&cells(change)), "{ladder}");

        let history = between(&page, "<section id=\"history\">", "<section id=\"games\">");
        let bots: Vec<&str> = history
            .split("<h3 class=\"name\">")
            .skip(1)
            .map(|part| &part[..part.find('<').unwrap()])
            .collect();
        assert_eq!(bots, ["ann", "bob"], "each bot once, its versions together");
        let ann = between(history, "<h3 class=\"name\">ann", "<h3 class=\"name\">bob");
        assert_eq!(ann.matches("<polyline").count(), 2, "a line per version of ann");
        // A checkpoint after each of the eight rounds (the last the table's fit), each version rated at each.
        assert_eq!(ann.matches("<circle").count(), 16);
        assert!(ann.contains("ann@1 → ann@2: "), "{ann}");
        assert!(history.contains("(8 fits in all"), "{history}");
        let final_fit = table.standings.strength.rating("ann@2").unwrap();
        let label = format!(
            "ann@2 after round 8: {} [{}, {}]",
            crate::strength_render::elo(final_fit.elo, true),
            crate::strength_render::elo(final_fit.lower, true),
            crate::strength_render::elo(final_fit.upper, true)
        );
        assert!(
            ann.contains(&label),
            "the last point is the table's fit: {label} in {ann}"
        );
        insta::assert_snapshot!(crate::html::tests::structure(
            &page[page.find("<section id=\"ladder\">").unwrap()..page.find("<section id=\"games\">").unwrap()]
        ));
    }

    #[test]
    fn a_followed_page_is_the_page_of_the_journal_as_it_grows() {
        let dir = tempfile::tempdir().unwrap();
        let journal_path = dir.path().join("journal.jsonl");
        let written = dir.path().join(REPORT_HTML);
        let mut journal = Journal::create(&journal_path, &tournament()).unwrap();
        let mut followed = FollowedReport::open(&journal_path, Options::default()).unwrap();
        for id in ["000-00-a", "001-00-b", "002-00-a"] {
            journal.append(&played(id)).unwrap();
            followed.update().unwrap();
            write_report(&journal_path, &written, None, Options::default()).unwrap();
            let page = String::from_utf8(followed.page().unwrap()).unwrap();
            assert_eq!(page, std::fs::read_to_string(&written).unwrap(), "after {id}");
            assert_eq!(followed.bytes_read(), std::fs::metadata(&journal_path).unwrap().len());
        }
        assert_eq!(followed.folded().unwrap().standings.games, 3);
    }
}
