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
use crate::schedule::Schedule;
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
#[derive(Debug, Clone)]
pub struct Folded {
    /// The tournament of the journal's header, with the bots that joined it.
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
    let mut tallies = Tallies::new(&reader.header().tournament.bot_names());
    let ending = reader
        .for_each_kept(moves, without_moves(keep), |(record, kept), span| {
            tallies.add(&record);
            each(&record, kept, span);
        })
        .map_err(ResumeError::from)?;
    folded(&ending.schedule, tallies, anchor)
}

/// The standings of `tallies`, of the records of a journal of `schedule` (grown by its `joined` lines):
/// every bot of the journal listed, those that joined after the header's, in the journal's order.
fn folded(schedule: &Schedule, tallies: Tallies, anchor: Option<&AnchorSpec>) -> Result<Folded, ReportError> {
    let tournament = schedule.tournament().clone();
    let mut listed = Tallies::new(&tournament.bot_names());
    listed.merge(tallies);
    Ok(Folded {
        scheduled: schedule.len(),
        tournament,
        standings: listed.finish(anchor)?,
    })
}

/// `keep`, made to hand on the record without its moves with what it kept of them.
fn without_moves<T>(keep: impl Fn(&GameRecord) -> T + Sync) -> impl Fn(GameRecord) -> (GameRecord, T) + Sync {
    move |mut record: GameRecord| {
        let kept = keep(&record);
        record.moves = Vec::new();
        record.swap_move = None;
        (record, kept)
    }
}

/// [`fold_journal`] of a journal that grows while it is read (a run being played): each
/// [`update`](FollowedFold::update) folds only the records written since the last ([`journal::Follower`]), so
/// that following a run costs in proportion to its new games, not to all of them.
#[derive(Debug)]
pub struct FollowedFold {
    follower: journal::Follower,
    tallies: Tallies,
}

impl FollowedFold {
    /// Starts following the journal at `path` (its header read, no record yet).
    pub fn open(path: &Path) -> Result<FollowedFold, ReportError> {
        let follower = journal::Follower::open(path).map_err(ResumeError::from)?;
        let tallies = Tallies::new(&follower.header().tournament.bot_names());
        Ok(FollowedFold { follower, tallies })
    }

    /// Folds the records written since the last update, as [`fold_journal`] folds every record; a journal
    /// that was replaced is [`journal::Growth::Replaced`], and nothing is folded: open it again.
    pub fn update<T: Send>(
        &mut self,
        moves: Moves,
        keep: impl Fn(&GameRecord) -> T + Sync,
        mut each: impl FnMut(&GameRecord, T, Span),
    ) -> Result<journal::Growth, ReportError> {
        let tallies = &mut self.tallies;
        let growth = self
            .follower
            .read_new(moves, without_moves(keep), |(record, kept), span| {
                tallies.add(&record);
                each(&record, kept, span);
            })
            .map_err(ResumeError::from)?;
        Ok(growth)
    }

    /// The bytes of the journal folded so far.
    pub fn bytes_read(&self) -> u64 {
        self.follower.bytes_read()
    }

    /// The standings of the records folded so far, as [`fold_journal`] makes them.
    pub fn folded(&self, anchor: Option<&AnchorSpec>) -> Result<Folded, ReportError> {
        folded(self.follower.schedule(), self.tallies.clone(), anchor)
    }
}

/// The tournament of a journal and its records.
#[derive(Debug)]
pub struct JournalGames {
    /// The tournament of the journal's header, with the bots that joined it.
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
    let tournament = contents.schedule.tournament().clone();
    let standings = standings(&contents.records, &tournament.bot_names(), anchor)?;
    let plan = JournalGames {
        scheduled: contents.schedule.len(),
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

    /// The standings of `path` folded whole, as text to compare.
    fn folded_whole(path: &Path) -> String {
        let folded = fold_journal(path, Moves::Drop, None, |_| (), |_, (), _| {}).unwrap();
        format!("{:?}", folded.standings)
    }

    #[test]
    fn a_followed_journal_folds_each_complete_line_once_as_it_comes() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut journal = Journal::create(&path, &tournament()).unwrap();
        let mut followed = FollowedFold::open(&path).unwrap();
        let mut seen = Vec::new();
        let mut look = |followed: &mut FollowedFold| {
            followed
                .update(Moves::Drop, |_| (), |record, (), _| seen.push(record.id.clone()))
                .unwrap()
        };
        assert_eq!(look(&mut followed), journal::Growth::Same);
        journal.append(&played("000-00-a")).unwrap();
        journal.append(&played("001-00-b")).unwrap();
        assert_eq!(look(&mut followed), journal::Growth::Grew(2));
        assert_eq!(
            format!("{:?}", followed.folded(None).unwrap().standings),
            folded_whole(&path)
        );

        // A record being written (no newline yet) waits for its newline.
        let line = serde_json::to_string(&played("002-00-a")).unwrap();
        let (head, tail) = line.split_at(line.len() / 2);
        let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(head.as_bytes()).unwrap();
        assert_eq!(look(&mut followed), journal::Growth::Same);
        file.write_all(format!("{tail}\n").as_bytes()).unwrap();
        assert_eq!(look(&mut followed), journal::Growth::Grew(1));
        assert_eq!(seen, ["000-00-a", "001-00-b", "002-00-a"]);
        assert_eq!(followed.bytes_read(), std::fs::metadata(&path).unwrap().len());
        assert_eq!(
            format!("{:?}", followed.folded(None).unwrap().standings),
            folded_whole(&path)
        );
    }

    #[test]
    fn a_followed_journal_reads_only_its_new_bytes_and_still_finds_a_game_recorded_twice() {
        use std::io::{Seek, SeekFrom, Write};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut journal = Journal::create(&path, &tournament()).unwrap();
        let first = journal.append(&played("000-00-a")).unwrap();
        let mut followed = FollowedFold::open(&path).unwrap();
        let look = |followed: &mut FollowedFold| followed.update(Moves::Drop, |_| (), |_, (), _| {});
        assert_eq!(look(&mut followed).unwrap(), journal::Growth::Grew(1));
        // Spoil the line already read, in place: a look that read the file again would refuse it.
        let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.seek(SeekFrom::Start(first.offset)).unwrap();
        file.write_all(b"#").unwrap();
        journal.append(&played("001-00-b")).unwrap();
        assert_eq!(look(&mut followed).unwrap(), journal::Growth::Grew(1));
        journal.append(&played("000-00-a")).unwrap();
        let error = look(&mut followed).unwrap_err();
        assert!(
            matches!(
                &error,
                ReportError::Resume(ResumeError::Journal(journal::JournalError::Fault { line: 4, .. }))
            ),
            "{error:?}"
        );
    }

    #[test]
    fn a_journal_replaced_or_cut_is_followed_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut journal = Journal::create(&path, &tournament()).unwrap();
        journal.append(&played("000-00-a")).unwrap();
        let mut followed = FollowedFold::open(&path).unwrap();
        let look = |followed: &mut FollowedFold| followed.update(Moves::Drop, |_| (), |_, (), _| {}).unwrap();
        assert_eq!(look(&mut followed), journal::Growth::Grew(1));
        drop(journal);
        let header_only = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_owned()
            + "\n";
        std::fs::write(&path, &header_only).unwrap();
        assert_eq!(look(&mut followed), journal::Growth::Replaced, "cut");
        let mut followed = FollowedFold::open(&path).unwrap();
        let aside = dir.path().join("other.jsonl");
        Journal::create(&aside, &tournament()).unwrap();
        std::fs::rename(&aside, &path).unwrap();
        assert_eq!(look(&mut followed), journal::Growth::Replaced, "another file");
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

    /// A followed journal that a bot joins: the join is followed too, its games are folded, and the
    /// standings are those of the whole journal, the new bot listed.
    #[test]
    fn a_followed_journal_follows_a_join_and_the_games_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let t = tournament();
        let mut journal = Journal::create(&path, &t).unwrap();
        journal.append(&played("000-00-a")).unwrap();
        let mut followed = FollowedFold::open(&path).unwrap();
        let look = |followed: &mut FollowedFold| followed.update(Moves::Drop, |_| (), |_, (), _| {}).unwrap();
        assert_eq!(look(&mut followed), journal::Growth::Grew(1));
        let mut d = t.bots[0].clone();
        d.name = "d".to_owned();
        let grown = Schedule::new(&t).join(&[d]);
        journal.join(&crate::testing::joined_line(&grown)).unwrap();
        for index in [6, 7, 9] {
            let game = grown.game(index);
            journal
                .append(&crate::testing::won_by(
                    &game,
                    &game.spec(grown.tournament()),
                    &game.first,
                ))
                .unwrap();
        }
        assert_eq!(look(&mut followed), journal::Growth::Grew(3));
        let folded = followed.folded(None).unwrap();
        assert_eq!((folded.scheduled, folded.standings.games), (grown.len(), 4));
        assert_eq!(folded.tournament.bot_names(), ["a", "b", "c", "d"]);
        assert_eq!(format!("{:?}", folded.standings), folded_whole(&path));
    }
}
