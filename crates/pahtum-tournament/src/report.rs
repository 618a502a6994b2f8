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
//! memory at once. A league's journal folds the same way ([`crate::league`]).

use std::path::Path;

use pahtum_record::GameRecord;

use crate::config::Tournament;
use crate::journal::{self, JournalReader, Moves, Span};
use crate::league;
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
    /// The journal is a league's, and cannot be read.
    #[error(transparent)]
    League(#[from] Box<crate::league::LeagueError>),
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
    fold_journal(path, Moves::Drop, anchor, |_| (), |_, (), _| {}).map(|folded| folded.standings)
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
/// replays), with its moves as `moves` says, is made into what `keep` keeps of it on the threads that read the
/// journal, then counted and handed to `each` without its moves, in file order, with what `keep` kept and where
/// it lies in the file (for a caller that reads a few records back later, [`journal::read_line_at`], instead of
/// keeping them). So no more than a few pieces of the file's records are in memory at once, and of those only
/// what `keep` keeps of their moves.
pub fn fold_journal<T: Send>(
    path: &Path,
    moves: Moves,
    anchor: Option<&AnchorSpec>,
    keep: impl Fn(&GameRecord) -> T + Sync,
    mut each: impl FnMut(&GameRecord, T, Span),
) -> Result<Folded, ReportError> {
    if league::is_league_journal(path) {
        // A league's journal: its entrants are the bots, the games of its rounds the schedule.
        let (state, tallies) = league::table::fold(path, moves, keep, each).map_err(Box::new)?;
        return Ok(Folded {
            tournament: state.tournament(),
            scheduled: state.decided_games(),
            standings: tallies.finish(anchor)?,
        });
    }
    let reader = JournalReader::open(path).map_err(ResumeError::from)?;
    let tournament = reader.header().tournament.clone();
    let mut tallies = Tallies::new(&tournament.bot_names());
    let keep = |mut record: GameRecord| {
        let kept = keep(&record);
        record.moves = Vec::new();
        record.swap_move = None;
        (record, kept)
    };
    reader
        .for_each_kept(moves, keep, |(record, kept), span| {
            tallies.add(&record);
            each(&record, kept, span);
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
    fn a_fold_hands_on_what_keep_made_of_the_moves_and_where_each_record_lies() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut journal = Journal::create(&path, &tournament()).unwrap();
        let games = [played("000-00-a"), played("001-00-b")];
        for game in &games {
            journal.append(game).unwrap();
        }
        let file = std::fs::File::open(&path).unwrap();
        let mut seen = Vec::new();
        fold_journal(
            &path,
            Moves::Keep,
            None,
            |record| record.moves.len(),
            |record, moves, span| {
                assert!(record.moves.is_empty(), "handed on without its moves");
                let line = journal::read_line_at(&file, &path, span).unwrap();
                seen.push((serde_json::from_slice::<GameRecord>(&line).unwrap(), moves));
            },
        )
        .unwrap();
        let expected: Vec<_> = games.iter().map(|game| (game.clone(), game.moves.len())).collect();
        assert_eq!(seen, expected);
        assert!(expected[0].1 > 0);
    }

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
