//! Merge: the journals of a tournament's shards into one journal.
//!
//! A sharded run leaves one journal per shard ([`pahtum_tournament::shard`]), whose header
//! names the tournament's hash and the shard; [`merge`] joins them into the
//! journal an unsharded run would have written (the same header, without a
//! shard, and every record once), from which the standings, ratings and report
//! follow as for any journal. It checks that every journal belongs to the same
//! tournament (the same hash in its header), that every record of a shard's
//! journal is a game of that shard, refuses two records of a game that
//! disagree, counts the ones that agree (a journal given twice), and lists the
//! games still missing.
//!
//! Every record is read as [`crate`] reads it and checked as every
//! record read from a journal is ([`crate::audit`]: replayed by the rules,
//! compared with the schedule): a merged journal is then sound by
//! construction, and a fault is named with its journal and line, not found
//! later in a journal that no longer says where the record came from. A light
//! parse of the ids alone would be cheaper, but would let an edited record
//! through to the merged journal. The check costs no more than reading the
//! shards for their standings would, and runs on every core
//! ([`JournalReader`]).
//!
//! It streams: each journal's records come one by one and are copied as they
//! come, so memory does not grow with the journals. Per game it keeps only the
//! offset in the merged journal of the record it copied, indexed by the
//! game's schedule index (computed from its id by [`ScheduleShape`], without
//! building the schedule): 8 bytes a game, 8 MB for a million games. A second
//! record of a game is compared byte for byte with the one copied, read back
//! from the merged journal; they agree only when their lines are the same.
//! That output ([`Output`]) is a league's merge's too (`pahtum-league`), with
//! a game's slot computed from its layout pair instead of its schedule index.
//!
//! Bots that joined the tournament (`joined` lines) are merged too: each
//! journal's joins must be the same bots in the same order as the other
//! journals' as far as it has any (a shard not run again since a join has
//! fewer, and lacks only the new games); the merged journal has each join
//! once, written before the first record of its games, so that its schedule
//! is the one every shard played.
//!
//! Lines are read as [`crate`] reads them: a torn last line (no
//! newline, not a record) is dropped, blank lines are skipped, and anything
//! else that is not a sound record (a line that is not a record, a record that
//! does not replay, a game twice in one journal) is an error naming it.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::{Header, Item, JournalError, JournalReader, LineFault, Moves};
use pahtum_tournament::config::tournament_hash;
use pahtum_tournament::schedule::Schedule;
use pahtum_tournament::shard::{ScheduleShape, Shard};

/// What a merge found.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    /// The header of the first journal, which every other journal's agrees with.
    pub header: Header,
    /// The shape of the merged journal's schedule (grown by every join).
    pub shape: ScheduleShape,
    /// The `joined` lines of the merged journal.
    pub joins: usize,
    /// Games in the merged journal.
    pub games: usize,
    /// Games in the schedule.
    pub scheduled: usize,
    /// Records that were written twice the same (e.g. a journal given twice), written once.
    pub agreeing_duplicates: usize,
    /// Torn last lines dropped (games cut off by a crash, not yet played again).
    pub torn: usize,
    /// The schedule indexes of the games no journal holds, in schedule order.
    pub missing: Vec<usize>,
    /// The shards that the journals' headers name, in the order of the journals, each once.
    pub shards: Vec<Shard>,
}

impl Merged {
    /// The missing games of each shard of `count` that lacks some: the shard, and the ids.
    pub fn missing_by_shard(&self, count: usize) -> Vec<(Shard, Vec<String>)> {
        let shape = &self.shape;
        let mut by_shard: Vec<(Shard, Vec<String>)> = Vec::new();
        for &index in &self.missing {
            let shard = Shard::of_game(index, count);
            match by_shard.iter_mut().find(|(s, _)| *s == shard) {
                Some((_, ids)) => ids.push(shape.id_of(index)),
                None => by_shard.push((shard, vec![shape.id_of(index)])),
            }
        }
        by_shard.sort_by_key(|(shard, _)| shard.index());
        by_shard
    }
}

/// Why journals cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A journal could not be read, or one of its lines is not a record.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// No journal was given (or the folders given hold none).
    #[error("no journal to merge: give the shards' journals or the folders that hold them")]
    Nothing,
    #[error(
        "{} belongs to another tournament than {} (hash {theirs} instead of {ours}); \
         merge only the shards of one tournament file",
        path.display(), first.display()
    )]
    /// A journal's header names another tournament than the first journal's.
    OtherTournament {
        /// The journal of the other tournament.
        path: PathBuf,
        /// The first journal, whose tournament the merge is of.
        first: PathBuf,
        /// The hash in `path`'s header.
        theirs: String,
        /// The hash in the first journal's header.
        ours: String,
    },
    #[error(
        "line {line} of {} is game {id:?}, which is not a game of shard {shard} that its header names",
        path.display()
    )]
    /// A record of a shard's journal is a game of another shard.
    NotInShard {
        /// The journal.
        path: PathBuf,
        /// The line's number, from 1 (the header).
        line: usize,
        /// The record's game.
        id: String,
        /// The shard the journal's header names.
        shard: Shard,
    },
    #[error(
        "line {line} of {} records game {id:?} differently from an earlier journal; \
         remove one of the two records (or the journal that should not be there) and merge again",
        path.display()
    )]
    /// Two journals hold different records of one game.
    Disagreement {
        /// The journal of the later record.
        path: PathBuf,
        /// The later record's line, from 1 (the header).
        line: usize,
        /// The game.
        id: String,
    },
    #[error(
        "line {line} of {} says that other bots joined the tournament than an earlier journal's {} `joined` \
         line; merge only the shards of one run, each run with the same tournament file after each join",
        path.display(), ordinal(*join)
    )]
    /// A journal's bots joined otherwise than an earlier journal's.
    OtherJoin {
        /// The journal.
        path: PathBuf,
        /// The `joined` line's number, from 1 (the header).
        line: usize,
        /// Which join of the journal it is, from 1.
        join: usize,
    },
    #[error("cannot write the merged journal {}", path.display())]
    /// The merged journal could not be written.
    Write {
        /// The merged journal.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
}

/// Merges the journals at `inputs` into a new journal at `out` (replacing it; written to a temporary
/// file beside it, then renamed).
pub fn merge(inputs: &[PathBuf], out: &Path) -> Result<Merged, MergeError> {
    let first = inputs.first().ok_or(MergeError::Nothing)?;
    let mut merged: Option<(Header, Output)> = None;
    // Each join of the merged journal: the joins and the hash of the schedule it grew.
    let mut joins: Vec<(Vec<usize>, String)> = Vec::new();
    let mut schedule: Option<Schedule> = None;
    let (mut agreeing_duplicates, mut torn, mut shards) = (0, 0, Vec::new());
    for path in inputs {
        let reader = JournalReader::open(path)?;
        let header = reader.header().clone();
        let (ours, output) = match &mut merged {
            Some(merged) => merged,
            None => {
                let unsharded = header.clone().of_shard(None);
                let grown = schedule.insert(Schedule::new(&header.tournament));
                let line = serde_json::to_vec(&unsharded).expect("a header serializes");
                let output = Output::create(out, &line, grown.len())?;
                merged.insert((unsharded, output))
            }
        };
        if header.hash != ours.hash {
            return Err(MergeError::OtherTournament {
                path: path.clone(),
                first: first.clone(),
                theirs: header.hash,
                ours: ours.hash.clone(),
            });
        }
        if let Some(shard) = header.shard.filter(|shard| !shards.contains(shard)) {
            shards.push(shard);
        }
        let mut joined = 0;
        let ending = reader.scan(
            Moves::Drop,
            |_, _| (),
            |item| match item {
                Item::Fault(LineFault { line, fault }) => Err(MergeError::from(JournalError::Fault {
                    path: path.clone(),
                    line,
                    source: fault,
                })),
                Item::Joined {
                    line,
                    text,
                    schedule: theirs,
                } => {
                    joined += 1;
                    let join = (theirs.joins().to_vec(), tournament_hash(theirs.tournament()));
                    match joins.get(joined - 1) {
                        Some(ours) if *ours == join => Ok(()),
                        Some(_) => Err(MergeError::OtherJoin {
                            path: path.clone(),
                            line,
                            join: joined,
                        }),
                        None => {
                            joins.push(join);
                            schedule = Some(theirs.clone());
                            output.grow(theirs.len());
                            Ok(output.line(text)?)
                        }
                    }
                }
                Item::Record { line, text, index, .. } => {
                    let shape = schedule.as_ref().expect("the first journal made it").shape();
                    if let Some(shard) = header.shard.filter(|shard| !shard.contains(index)) {
                        return Err(MergeError::NotInShard {
                            path: path.clone(),
                            line,
                            id: shape.id_of(index),
                            shard,
                        });
                    }
                    match output.add(index, text)? {
                        Added::Copied => Ok(()),
                        Added::Agrees => {
                            agreeing_duplicates += 1;
                            Ok(())
                        }
                        Added::Disagrees => Err(MergeError::Disagreement {
                            path: path.clone(),
                            line,
                            id: shape.id_of(index),
                        }),
                    }
                }
            },
        )?;
        torn += usize::from(ending.torn);
    }
    let (header, output) = merged.expect("the first journal starts the merge");
    let offsets = output.finish()?;
    Ok(Merged {
        header,
        shape: schedule.expect("the first journal made it").shape().clone(),
        joins: joins.len(),
        games: offsets.iter().filter(|&&offset| offset != 0).count(),
        scheduled: offsets.len(),
        agreeing_duplicates,
        torn,
        missing: (0..offsets.len()).filter(|&i| offsets[i] == 0).collect(),
        shards,
    })
}

/// `1st`, `2nd`, `3rd`, `4th`...
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// What adding a game's line to the merged journal did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// It was its game's first: copied.
    Copied,
    /// Its game's line is already there, the same line.
    Agrees,
    /// Its game's line is already there, a different line.
    Disagrees,
}

/// The merged journal could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the merged journal {}", path.display())]
pub struct OutputError {
    /// The merged journal.
    pub path: PathBuf,
    /// The I/O error.
    #[source]
    pub source: io::Error,
}

impl From<OutputError> for MergeError {
    fn from(OutputError { path, source }: OutputError) -> MergeError {
        MergeError::Write { path, source }
    }
}

/// The journal a merge writes, a tournament's or a league's: a temporary file beside it until it is whole,
/// then synced and renamed into place, so that a merge cut short leaves no half journal under the name.
/// Games are copied as they come; per game *slot* (a dense number the caller gives each game: a
/// tournament's schedule index, a league's layout pair and seat) it keeps only the offset of the line
/// copied, 8 bytes a game, and a second line of a game is compared byte for byte with the first, read back.
#[derive(Debug)]
pub struct Output {
    /// The merged journal's final path, named in errors.
    out: PathBuf,
    partial: PathBuf,
    writer: BufWriter<File>,
    /// The bytes written so far.
    written: u64,
    /// The offset of each slot's line; 0 (the header's) for a slot without one yet.
    offsets: Vec<u64>,
}

impl Output {
    /// Starts the merged journal `out` at a temporary path beside it, with the `header` line (without its
    /// newline) and room for `slots` games.
    pub fn create(out: &Path, header: &[u8], slots: usize) -> Result<Output, OutputError> {
        let partial = out.with_extension("jsonl.partial");
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&partial)
            .map_err(|source| OutputError {
                path: out.to_owned(),
                source,
            })?;
        let mut output = Output {
            out: out.to_owned(),
            partial,
            writer: BufWriter::with_capacity(1 << 20, file),
            written: 0,
            offsets: vec![0; slots],
        };
        output.line(header)?;
        Ok(output)
    }

    /// Makes room for `slots` games in all (a tournament that bots joined, a league with a new entrant).
    pub fn grow(&mut self, slots: usize) {
        if slots > self.offsets.len() {
            self.offsets.resize(slots, 0);
        }
    }

    /// Adds a line that is not a game (`text`, without its newline): a join, a league's event.
    pub fn line(&mut self, text: &[u8]) -> Result<(), OutputError> {
        self.write(text)?;
        self.write(b"\n")
    }

    /// Adds the line `text` (without its newline) of the game in `slot`, unless the game's line is there
    /// already: then says whether the two lines agree.
    pub fn add(&mut self, slot: usize, text: &[u8]) -> Result<Added, OutputError> {
        let offset = self.offsets[slot];
        if offset == 0 {
            self.offsets[slot] = self.written;
            self.line(text)?;
            return Ok(Added::Copied);
        }
        let mut copied = vec![0; text.len() + 1];
        self.writer
            .flush()
            .and_then(|()| self.writer.get_ref().read_exact_at(&mut copied, offset))
            .map_err(|source| self.error(source))?;
        Ok(if copied[..text.len()] == *text && copied[text.len()] == b'\n' {
            Added::Agrees
        } else {
            Added::Disagrees
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), OutputError> {
        self.writer.write_all(bytes).map_err(|source| self.error(source))?;
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// Makes the merged journal durable under its final name; returns where each slot's line is (0: none).
    pub fn finish(self) -> Result<Vec<u64>, OutputError> {
        let error = |source| OutputError {
            path: self.out.clone(),
            source,
        };
        let file = self
            .writer
            .into_inner()
            .map_err(|error| error.into_error())
            .map_err(error)?;
        file.sync_all().map_err(error)?;
        std::fs::rename(&self.partial, &self.out).map_err(error)?;
        Ok(self.offsets)
    }

    fn error(&self, source: io::Error) -> OutputError {
        OutputError {
            path: self.out.clone(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::Fault;
    use crate::{Journal, read};
    use pahtum_tournament::config::Tournament;
    use pahtum_tournament::schedule::{ScheduledGame, schedule};
    use pahtum_tournament::testing::{record, tournament, won_by};

    /// Writes a journal of `tournament()` at `dir/name` with the games at `indexes` (won by their first bot).
    fn journal(dir: &Path, name: &str, indexes: impl IntoIterator<Item = usize>) -> PathBuf {
        let path = dir.join(name);
        let file = tournament();
        let games = schedule(&file);
        let mut journal = Journal::create(&path, &file).unwrap();
        for index in indexes {
            append_won_by_first(&mut journal, &file, &games[index]);
        }
        path
    }

    /// Appends `game` of `file`, won by its first seat's bot.
    fn append_won_by_first(journal: &mut Journal, file: &Tournament, game: &ScheduledGame) {
        journal.append(&won_by(game, &game.spec(file), &game.first)).unwrap();
    }

    #[test]
    fn shards_merge_into_every_game_once_and_agreeing_duplicates_are_counted() {
        let dir = tempfile::tempdir().unwrap();
        let total = schedule(&tournament()).len();
        let shards: Vec<Shard> = (1..=3).map(|k| Shard::new(k, 3).unwrap()).collect();
        let mut inputs: Vec<PathBuf> = shards
            .iter()
            .map(|s| journal(dir.path(), &s.folder_name(), (0..total).filter(|&i| s.contains(i))))
            .collect();
        inputs.push(inputs[0].clone());
        let out = dir.path().join("merged.jsonl");
        let merged = merge(&inputs, &out).unwrap();
        assert_eq!(
            (merged.games, merged.scheduled, merged.missing.len()),
            (total, total, 0)
        );
        let in_first = (0..total).filter(|&i| shards[0].contains(i)).count();
        assert_eq!(merged.agreeing_duplicates, in_first);
        let contents = read(&out).unwrap();
        assert_eq!(contents.header, Header::new(&tournament()));
        let mut ids: Vec<String> = contents.records.into_iter().map(|r| r.id).collect();
        ids.sort();
        let mut expected: Vec<String> = schedule(&tournament()).into_iter().map(|g| g.id).collect();
        expected.sort();
        assert_eq!(ids, expected);
    }

    #[test]
    fn missing_games_are_listed_by_shard() {
        let dir = tempfile::tempdir().unwrap();
        let total = schedule(&tournament()).len();
        let first = Shard::new(1, 2).unwrap();
        let input = journal(dir.path(), "one", (0..total).filter(|&i| first.contains(i)));
        let merged = merge(&[input], &dir.path().join("merged.jsonl")).unwrap();
        let missing = merged.missing_by_shard(2);
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].0, Shard::new(2, 2).unwrap());
        let expected: Vec<String> = schedule(&tournament())
            .into_iter()
            .filter(|g| !first.contains(g.index))
            .map(|g| g.id)
            .collect();
        assert_eq!(missing[0].1, expected);
    }

    #[test]
    fn records_of_one_game_that_disagree_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let one = journal(dir.path(), "one", [0]);
        let games = schedule(&tournament());
        let two = journal(dir.path(), "two", []);
        let mut other = Journal::open(&two, |_, _| {}).unwrap().0;
        other
            .append(&won_by(&games[0], &games[0].spec(&tournament()), &games[0].second))
            .unwrap();
        let error = merge(&[one, two], &dir.path().join("merged.jsonl")).unwrap_err();
        assert!(matches!(error, MergeError::Disagreement { line: 2, .. }), "{error:?}");
    }

    #[test]
    fn journals_of_another_tournament_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ours = journal(dir.path(), "ours", [0]);
        let theirs = dir.path().join("theirs");
        let mut other = tournament();
        other.seed += 1;
        Journal::create(&theirs, &other).unwrap();
        let error = merge(&[ours, theirs], &dir.path().join("merged.jsonl")).unwrap_err();
        assert!(matches!(error, MergeError::OtherTournament { .. }), "{error}");
    }

    #[test]
    fn a_game_outside_the_schedule_is_refused_and_a_torn_last_line_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = journal(dir.path(), "one", [0]);
        let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"\n{\"id\":\"000-00-b\",\"la").unwrap();
        let merged = merge(std::slice::from_ref(&path), &dir.path().join("merged.jsonl")).unwrap();
        assert_eq!((merged.games, merged.torn), (1, 1));
        let stranger = journal(dir.path(), "two", []);
        Journal::open(&stranger, |_, _| {})
            .unwrap()
            .0
            .append(&record("999-00-a", "a", "b"))
            .unwrap();
        let error = merge(&[stranger], &dir.path().join("merged.jsonl")).unwrap_err();
        assert!(
            matches!(
                error,
                MergeError::Journal(JournalError::Fault {
                    line: 2,
                    source: Fault::UnknownGame { .. },
                    ..
                })
            ),
            "{error}"
        );
    }

    /// Every record is checked as any reader checks it: one that does not replay is refused, named
    /// with its journal and line.
    #[test]
    fn an_edited_record_is_refused_with_its_journal_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = journal(dir.path(), "one", [0, 1]);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("\"result\":\"white\"", "\"result\":\"black\"")).unwrap();
        let error = merge(std::slice::from_ref(&path), &dir.path().join("merged.jsonl")).unwrap_err();
        assert!(
            matches!(
                &error,
                MergeError::Journal(JournalError::Fault {
                    path: faulty,
                    line: 2,
                    source: Fault::DoesNotReplay { .. },
                }) if *faulty == path
            ),
            "{error}"
        );
    }

    /// A shard's journal names its shard; the merged journal, of every game, names none. A record
    /// of another shard's game in a shard's journal is refused, naming the game and the journal.
    #[test]
    fn a_shard_journal_holds_only_its_shard_and_the_merge_names_no_shard() {
        let dir = tempfile::tempdir().unwrap();
        let file = tournament();
        let games = schedule(&file);
        let shard = Shard::new(1, 2).unwrap();
        let path = dir.path().join("shard.jsonl");
        let mut journal = Journal::create_with(&path, &Header::new(&file).of_shard(Some(shard))).unwrap();
        let append = |journal: &mut Journal, index: usize| append_won_by_first(journal, &file, &games[index]);
        append(&mut journal, 0);
        let out = dir.path().join("merged.jsonl");
        let merged = merge(std::slice::from_ref(&path), &out).unwrap();
        assert_eq!((merged.games, merged.shards.as_slice()), (1, [shard].as_slice()));
        assert_eq!(
            read(&out).unwrap().header,
            Header::new(&file),
            "no shard in the merged header"
        );
        assert_eq!(read(&path).unwrap().header.shard, Some(shard));

        assert!(!shard.contains(2));
        append(&mut journal, 2);
        let error = merge(std::slice::from_ref(&path), &out).unwrap_err();
        assert!(
            matches!(&error, MergeError::NotInShard { line: 3, id, .. } if id == "001-00-a"),
            "{error}"
        );
        let message = error.to_string();
        assert!(
            message.contains("shard.jsonl") && message.contains("\"001-00-a\"") && message.contains("shard 1/2"),
            "{message}"
        );
    }

    /// A game recorded twice in one journal is that journal's fault, as any reader says.
    #[test]
    fn a_game_twice_in_one_journal_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = journal(dir.path(), "one", [0, 1, 0]);
        let error = merge(std::slice::from_ref(&path), &dir.path().join("merged.jsonl")).unwrap_err();
        assert!(
            matches!(
                error,
                MergeError::Journal(JournalError::Fault {
                    line: 4,
                    source: Fault::Duplicate { first_line: 2, .. },
                    ..
                })
            ),
            "{error}"
        );
    }
}
