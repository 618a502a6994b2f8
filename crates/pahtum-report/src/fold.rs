//! The standings of a journal, derived from it alone.
//!
//! Every report of a run (the files and the HTML page of this crate,
//! `arena standings JOURNAL`) starts here, so that they all count the
//! same games: the records of the journal, checked against its schedule.
//!
//! [`fold_journal`] is one pass over the journal in bounded memory: the
//! records stream from the reader ([`JournalReader`], which checks each, and a
//! game recorded twice, as they come) into the standings' [`Tallies`], and to
//! whatever else the caller builds from them (the HTML report), never all in
//! memory at once. A league's journal folds the same way ([`pahtum_league`]).

use std::path::Path;

use pahtum_record::GameRecord;

use pahtum_journal::sink::{Counts, Keep, Sink};
use pahtum_journal::{self as journal, JournalReader, Moves};
use pahtum_league as league;
use pahtum_league::follow::LeagueFollower;
use pahtum_run::resume::ResumeError;
use pahtum_standings::standings::{Standings, Tallies, standings};
use pahtum_standings::strength::{AnchorSpec, StrengthError};
use pahtum_tournament::config::Tournament;
use pahtum_tournament::schedule::Schedule;

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
    League(#[from] Box<pahtum_league::LeagueError>),
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
    fold_journal(path, Moves::Drop, anchor, &mut Counts).map(|folded| folded.standings)
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
/// replays), with its moves as `moves` says, is made into what the sink's [`Keep`] keeps of it on the threads
/// that read the journal, then counted and handed to `sink` without its moves, in file order, with what was
/// kept and where it lies in the file (for a caller that reads a few records back later, [`journal::read_line_at`], instead of
/// keeping them). So no more than a few pieces of the file's records are in memory at once, and of those only
/// what is kept of their moves.
pub fn fold_journal(
    path: &Path,
    moves: Moves,
    anchor: Option<&AnchorSpec>,
    sink: &mut impl Sink,
) -> Result<Folded, ReportError> {
    if league::is_league_journal(path) {
        // A league's journal: its entrants are the bots, the games of its rounds the schedule.
        let (state, tallies) = league::table::fold(path, moves, sink).map_err(Box::new)?;
        return Ok(Folded {
            tournament: state.tournament(),
            scheduled: state.decided_games(),
            standings: tallies.finish(anchor)?,
        });
    }
    let reader = JournalReader::open(path).map_err(ResumeError::from)?;
    let mut tallies = Tallies::new(&reader.header().tournament.bot_names());
    let keeper = sink.keeper();
    let ending = reader
        .for_each_kept(moves, without_moves(&keeper), |(record, kept), span| {
            tallies.add(&record);
            sink.record(record, kept, span);
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

/// `keeper`, made to hand on the record without its moves with what it kept of them.
fn without_moves<K: Keep>(keeper: &K) -> impl Fn(GameRecord) -> (GameRecord, K::Kept) + Sync {
    move |mut record: GameRecord| {
        let kept = keeper.keep(&record);
        record.moves = Vec::new();
        record.swap_move = None;
        (record, kept)
    }
}

/// [`fold_journal`] of a journal that grows while it is read (a run or a league being played): each
/// [`update`](FollowedFold::update) folds only the records written since the last ([`journal::Follower`] for
/// a tournament's journal, [`LeagueFollower`] for a league's; both find the new lines with the journal's
/// [`Tail`](pahtum_journal::tail::Tail)), so that following a run costs in proportion to its new games, not
/// to all of them.
#[derive(Debug)]
pub struct FollowedFold {
    following: Following,
}

#[derive(Debug)]
enum Following {
    Tournament(Box<(journal::Follower, Tallies)>),
    League(Box<LeagueFollower>),
}

impl FollowedFold {
    /// Starts following the journal at `path` (its header read, no record yet).
    pub fn open(path: &Path) -> Result<FollowedFold, ReportError> {
        let following = if league::is_league_journal(path) {
            Following::League(Box::new(LeagueFollower::open(path).map_err(Box::new)?))
        } else {
            let follower = journal::Follower::open(path).map_err(ResumeError::from)?;
            let tallies = Tallies::new(&follower.header().tournament.bot_names());
            Following::Tournament(Box::new((follower, tallies)))
        };
        Ok(FollowedFold { following })
    }

    /// Folds the records written since the last update, as [`fold_journal`] folds every record; a journal
    /// that was replaced is [`journal::Growth::Replaced`], and nothing is folded: open it again.
    pub fn update(&mut self, moves: Moves, sink: &mut impl Sink) -> Result<journal::Growth, ReportError> {
        let (follower, tallies) = match &mut self.following {
            Following::Tournament(followed) => {
                let (follower, tallies) = &mut **followed;
                (follower, tallies)
            }
            Following::League(follower) => return Ok(follower.read_new(moves, sink).map_err(Box::new)?),
        };
        let keeper = sink.keeper();
        let growth = follower
            .read_new(moves, without_moves(&keeper), |(record, kept), span| {
                tallies.add(&record);
                sink.record(record, kept, span);
            })
            .map_err(ResumeError::from)?;
        Ok(growth)
    }

    /// The bytes of the journal folded so far.
    pub fn bytes_read(&self) -> u64 {
        match &self.following {
            Following::Tournament(followed) => followed.0.bytes_read(),
            Following::League(follower) => follower.bytes_read(),
        }
    }

    /// The standings of the records folded so far, as [`fold_journal`] makes them.
    pub fn folded(&self, anchor: Option<&AnchorSpec>) -> Result<Folded, ReportError> {
        match &self.following {
            Following::Tournament(followed) => folded(followed.0.schedule(), followed.1.clone(), anchor),
            Following::League(follower) => Ok(Folded {
                tournament: follower.state().tournament(),
                scheduled: follower.state().decided_games(),
                standings: follower.tallies().finish(anchor)?,
            }),
        }
    }

    /// The league followed, if the journal is a league's.
    pub fn league(&self) -> Option<&LeagueFollower> {
        match &self.following {
            Following::Tournament(_) => None,
            Following::League(follower) => Some(follower),
        }
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
    use pahtum_journal::Journal;
    use pahtum_journal::sink::Records;
    use pahtum_tournament::testing::{played, tournament};

    #[test]
    fn a_fold_hands_on_what_keep_made_of_the_moves_and_where_each_record_lies() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut journal = Journal::create(&path, &tournament()).unwrap();
        let games = [played("000-00-a"), played("001-00-b")];
        for game in &games {
            journal.append(game).unwrap();
        }
        /// Keeps the number of each record's moves.
        struct MoveCount;
        impl Keep for MoveCount {
            type Kept = usize;
            fn keep(&self, record: &GameRecord) -> usize {
                record.moves.len()
            }
        }
        /// Each record read back from where it lies, with its number of moves.
        struct ReadBack<'a> {
            file: std::fs::File,
            path: &'a Path,
            seen: Vec<(GameRecord, usize)>,
        }
        impl Sink for ReadBack<'_> {
            type Keep = MoveCount;
            fn keeper(&self) -> MoveCount {
                MoveCount
            }
            fn record(&mut self, record: GameRecord, moves: usize, span: journal::Span) {
                assert!(record.moves.is_empty(), "handed on without its moves");
                let line = journal::read_line_at(&self.file, self.path, span).unwrap();
                self.seen
                    .push((serde_json::from_slice::<GameRecord>(&line).unwrap(), moves));
            }
        }
        let mut read_back = ReadBack {
            file: std::fs::File::open(&path).unwrap(),
            path: &path,
            seen: Vec::new(),
        };
        fold_journal(&path, Moves::Keep, None, &mut read_back).unwrap();
        let seen = read_back.seen;
        let expected: Vec<_> = games.iter().map(|game| (game.clone(), game.moves.len())).collect();
        assert_eq!(seen, expected);
        assert!(expected[0].1 > 0);
    }

    /// The standings of `path` folded whole, as text to compare.
    fn folded_whole(path: &Path) -> String {
        let folded = fold_journal(path, Moves::Drop, None, &mut Counts).unwrap();
        format!("{:?}", folded.standings)
    }

    #[test]
    fn a_followed_journal_folds_each_complete_line_once_as_it_comes() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut journal = Journal::create(&path, &tournament()).unwrap();
        let mut followed = FollowedFold::open(&path).unwrap();
        let mut seen = Records::default();
        let mut look = |followed: &mut FollowedFold| followed.update(Moves::Drop, &mut seen).unwrap();
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
        let seen: Vec<&str> = seen.0.iter().map(|record| record.id.as_str()).collect();
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
        let look = |followed: &mut FollowedFold| followed.update(Moves::Drop, &mut Counts);
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
        let look = |followed: &mut FollowedFold| followed.update(Moves::Drop, &mut Counts).unwrap();
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
        let look = |followed: &mut FollowedFold| followed.update(Moves::Drop, &mut Counts).unwrap();
        assert_eq!(look(&mut followed), journal::Growth::Grew(1));
        let mut d = t.bots[0].clone();
        d.name = "d".to_owned();
        let grown = Schedule::new(&t).join(&[d]);
        journal.join(&pahtum_journal::testing::joined_line(&grown)).unwrap();
        for index in [6, 7, 9] {
            let game = grown.game(index);
            journal
                .append(&pahtum_tournament::testing::won_by(
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

/// Shards' journals merged ([`pahtum_journal::merge`]) fold into the standings one machine's journal does.
#[cfg(test)]
mod merged_shards {
    use std::path::{Path, PathBuf};

    use pahtum_journal::merge::{MergeError, merge};
    use pahtum_journal::{Journal, read};
    use pahtum_tournament::config::Tournament;
    use pahtum_tournament::schedule::ScheduledGame;
    use pahtum_tournament::shard::Shard;
    use pahtum_tournament::testing::{tournament, won_by};

    /// Appends `game` of `file`, won by its first seat's bot.
    fn append_won_by_first(journal: &mut Journal, file: &Tournament, game: &ScheduledGame) {
        journal.append(&won_by(game, &game.spec(file), &game.first)).unwrap();
    }

    /// A run of `tournament()` (shard `shard`, or every game) in `dir`, then again with a bot `joining` added
    /// to the file (none: not run again); every game won by its first seat. Returns its journal.
    fn grown_run(dir: &Path, shard: Option<Shard>, joining: Option<&str>) -> PathBuf {
        use pahtum_run::events::Quiet;
        use pahtum_run::resume::{Existing, open};
        let play = |t: &Tournament| {
            let mut opened = open(dir, t, shard, Existing::Resume, &mut Quiet).unwrap();
            if let Some(shard) = shard {
                opened.plan.only(shard);
            }
            let games: Vec<ScheduledGame> = opened.plan.pending_games().collect();
            for game in &games {
                append_won_by_first(&mut opened.journal, opened.plan.tournament(), game);
            }
        };
        let mut t = tournament();
        play(&t);
        if let Some(name) = joining {
            let mut bot = t.bots[0].clone();
            bot.name = name.to_owned();
            t.bots.push(bot);
            play(&t);
        }
        dir.join(pahtum_run::resume::JOURNAL)
    }

    fn standings_json(path: &Path) -> String {
        let standings = crate::fold::standings_of_journal(path, None).unwrap();
        serde_json::to_string(&standings).unwrap()
    }

    /// Shards that each gained the same bot merge into the journal one machine would have written: the same
    /// join, every game once, the same standings.
    #[test]
    fn shards_grown_by_the_same_bot_merge_as_one_machine() {
        let dir = tempfile::tempdir().unwrap();
        let whole = grown_run(&dir.path().join("whole"), None, Some("d"));
        let shards: Vec<PathBuf> = (1..=3)
            .map(|k| {
                let shard = Shard::new(k, 3).unwrap();
                grown_run(&dir.path().join(shard.folder_name()), Some(shard), Some("d"))
            })
            .collect();
        let out = dir.path().join("merged.jsonl");
        let merged = merge(&shards, &out).unwrap();
        let one = read(&whole).unwrap();
        assert_eq!((merged.games, merged.scheduled, merged.joins), (12, 12, 1));
        assert!(merged.missing.is_empty());
        let contents = read(&out).unwrap();
        assert_eq!(contents.joins.len(), 1);
        assert_eq!(contents.joins[0].joined, one.joins[0].joined);
        assert_eq!(contents.schedule.tournament(), one.schedule.tournament());
        assert_eq!(standings_json(&out), standings_json(&whole));
    }

    /// A shard not run again since the join lacks only the new games of its shard; a shard that another bot
    /// joined is refused.
    #[test]
    fn a_shard_without_the_join_lacks_its_new_games_and_one_with_another_join_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let [one, two, three] = [1, 2, 3].map(|k| Shard::new(k, 3).unwrap());
        let joined = grown_run(&dir.path().join("one"), Some(one), Some("d"));
        let behind = grown_run(&dir.path().join("two"), Some(two), None);
        let out = dir.path().join("merged.jsonl");
        for inputs in [[&behind, &joined], [&joined, &behind]] {
            let merged = merge(&inputs.map(PathBuf::clone), &out).unwrap();
            assert_eq!((merged.joins, merged.scheduled), (1, 12));
            let missing = merged.missing_by_shard(3);
            let new_of_two: Vec<String> = (6..12)
                .filter(|&i| two.contains(i))
                .map(|i| merged.shape.id_of(i))
                .collect();
            assert_eq!(missing[0].0, two);
            assert_eq!(missing[0].1, new_of_two);
            assert_eq!(missing[1].0, three);
            assert!(read(&out).is_ok());
        }
        let other = grown_run(&dir.path().join("three"), Some(three), Some("e"));
        let error = merge(&[joined, other.clone()], &out).unwrap_err();
        assert!(
            matches!(error, MergeError::OtherJoin { ref path, line, join: 1 } if *path == other && line > 1),
            "{error}"
        );
        assert!(
            error
                .to_string()
                .contains("other bots joined the tournament than an earlier journal's 1st"),
            "{error}"
        );
    }
}
