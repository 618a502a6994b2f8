//! The standings of a journal, derived from it alone.
//!
//! Every report of a run (the files and the HTML page of the `pahtum-report`
//! crate, `arena standings JOURNAL`) starts here, so that they all count the
//! same games: the records of the journal, checked against its schedule.

use std::path::Path;

use crate::journal::{self, JournalReader, Moves};
use crate::resume::{Plan, ResumeError, plan};
use crate::standings::{Standings, standings};
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
    /// The tournament of the journal's header, its schedule, and the games played (in journal order) and not.
    pub plan: Plan,
    /// The standings of the games done.
    pub standings: Standings,
}

/// The games and standings of the journal at `path`, with the ratings relative to the pool's average or to
/// `anchor`, after checking that every record is a distinct game of its schedule.
/// The records keep their moves.
pub fn results_of_journal(path: &Path, anchor: Option<&AnchorSpec>) -> Result<JournalResults, ReportError> {
    results_of(journal::read(path), path, anchor)
}

/// The standings of the journal at `path` (see [`results_of_journal`]): its records streamed without
/// their moves ([`JournalReader`], which checks each as it comes).
pub fn standings_of_journal(path: &Path, anchor: Option<&AnchorSpec>) -> Result<Standings, ReportError> {
    let reader = JournalReader::open(path).map_err(ResumeError::from)?;
    let bots = reader.header().tournament.bot_names();
    let mut records = Vec::new();
    reader
        .for_each(Moves::Drop, |record| records.push(record))
        .map_err(ResumeError::from)?;
    Ok(standings(&records, &bots, anchor)?)
}

fn results_of(
    contents: Result<journal::Contents, journal::JournalError>,
    path: &Path,
    anchor: Option<&AnchorSpec>,
) -> Result<JournalResults, ReportError> {
    let contents = contents.map_err(ResumeError::from)?;
    let plan = plan(&contents.header.tournament, contents.records, path)?;
    let standings = standings(&plan.done, &plan.tournament.bot_names(), anchor)?;
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
