//! The standings of a journal, derived from it alone.
//!
//! Every report of a run (the files and the HTML page of the `pahtum-report`
//! crate, `arena standings JOURNAL`) starts here, so that they all count the
//! same games: the records of the journal, checked against its schedule.
//!
//! [`fold_journal`] is one pass over the journal in bounded memory: the
//! records stream from the reader ([`JournalReader`], which checks each, and a
//! game recorded twice, as they come) into the standings' [`Tallies`], and to
//! whatever else the caller builds from them (the HTML report), never all in
//! memory at once.

use std::path::Path;

use pahtum_record::GameRecord;

use crate::config::Tournament;
use crate::journal::{self, JournalReader, Moves, Span};
use crate::resume::ResumeError;
use crate::schedule;
use crate::standings::{Standings, Tallies, standings};
use crate::strength::{AnchorSpec, StrengthError};

/// Why the standings of a journal cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The journal cannot be read or does not match its schedule.
    #[error(transparent)]
    Resume(#[from] ResumeError),
    /// The ratings cannot be computed (such as an anchor that is not a bot).
    #[error(transparent)]
    Strength(#[from] StrengthError),
}

/// The games of a journal, checked against its schedule, and their standings.
#[derive(Debug)]
pub struct JournalResults {
    /// The tournament of the journal's header and the games played.
    pub plan: JournalGames,
    /// The standings of the games done.
    pub standings: Standings,
}

/// The games and standings of the journal at `path`, with the ratings relative to the pool's average or to
/// `anchor`, after checking that every record is a distinct game of its schedule.
/// The records keep their moves.
pub fn results_of_journal(path: &Path, anchor: Option<&AnchorSpec>) -> Result<JournalResults, ReportError> {
    results_of(journal::read(path), anchor)
}

/// The standings of the journal at `path` (see [`fold_journal`]), its records read without their moves.
pub fn standings_of_journal(path: &Path, anchor: Option<&AnchorSpec>) -> Result<Standings, ReportError> {
    fold_journal(path, Moves::Drop, anchor, |_, _| {}).map(|folded| folded.standings)
}

/// What one pass over a journal found (see [`fold_journal`]).
#[derive(Debug)]
pub struct Folded {
    /// The tournament of the journal's header.
    pub tournament: Tournament,
    /// The number of games of its schedule.
    pub scheduled: usize,
    /// The standings of the games done.
    pub standings: Standings,
}

/// The standings of the journal at `path`, with the ratings relative to the pool's average or to
/// `anchor`, in one pass in bounded memory: each record, checked (a distinct game of its schedule that
/// replays), is counted and then handed to `each`, in file order, with its moves as `moves` says and where it
/// lies in the file (for a caller that reads a few records back later, [`journal::read_line_at`], instead
/// of keeping them).
pub fn fold_journal(
    path: &Path,
    moves: Moves,
    anchor: Option<&AnchorSpec>,
    mut each: impl FnMut(&GameRecord, Span),
) -> Result<Folded, ReportError> {
    let reader = JournalReader::open(path).map_err(ResumeError::from)?;
    let tournament = reader.header().tournament.clone();
    let mut tallies = Tallies::new(&tournament.bot_names());
    reader
        .for_each_spanned(moves, |record, span| {
            tallies.add(&record);
            each(&record, span);
        })
        .map_err(ResumeError::from)?;
    Ok(Folded {
        scheduled: schedule::len(&tournament),
        tournament,
        standings: tallies.finish(anchor)?,
    })
}

/// The tournament of a journal and its records.
#[derive(Debug)]
pub struct JournalGames {
    /// The tournament of the journal's header.
    pub tournament: Tournament,
    /// The number of games of its schedule.
    pub scheduled: usize,
    /// The records, in journal order.
    pub done: Vec<GameRecord>,
}

fn results_of(
    contents: Result<journal::Contents, journal::JournalError>,
    anchor: Option<&AnchorSpec>,
) -> Result<JournalResults, ReportError> {
    let contents = contents.map_err(ResumeError::from)?;
    // Reading checked that every record is a distinct game of the schedule (the audit).
    let tournament = contents.header.tournament;
    let standings = standings(&contents.records, &tournament.bot_names(), anchor)?;
    let plan = JournalGames {
        scheduled: schedule::len(&tournament),
        tournament,
        done: contents.records,
    };
    Ok(JournalResults { plan, standings })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::Journal;
    use crate::testing::{played, tournament};

    #[test]
    fn standings_come_from_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut journal = Journal::create(&path, &tournament()).unwrap();
        journal.append(&played("000-00-a")).unwrap();
        let standings = standings_of_journal(&path, None).unwrap();
        assert_eq!(standings.games, 1);
        assert_eq!(standings.bots.len(), 3, "every bot of the header is listed");

        let anchor: AnchorSpec = "c=1500".parse().unwrap();
        let error = standings_of_journal(&path, Some(&anchor)).unwrap_err();
        assert!(
            matches!(error, ReportError::Strength(StrengthError::AnchorWithoutGames { .. })),
            "{error}"
        );
    }
}
