//! Merge: the journals of a tournament's shards into one journal.
//!
//! A sharded run leaves one journal per shard ([`crate::shard`]); [`merge`]
//! joins them into the journal an unsharded run would have written (the same
//! header line, every record once), from which the standings, ratings and
//! report follow as for any journal. It checks that every journal belongs to
//! the same tournament (the same hash in its header), refuses two records of a
//! game that disagree, counts the ones that agree (a journal given twice), and
//! lists the games still missing.
//!
//! It streams: each journal is read line by line and each record copied as it
//! is read, so memory does not grow with the records' size. Per game it keeps
//! only a 64-bit fingerprint of the record's line, indexed by the game's
//! schedule index (computed from its id by [`ScheduleShape`], without
//! building the schedule): 8 bytes a game, 8 MB for a million games.
//!
//! Lines are read as [`crate::journal`] reads them: a torn last line (no
//! newline, not a record) is dropped, blank lines are skipped, anything else
//! that is not a record is damage and an error.

use std::fs::File;
use std::hash::{DefaultHasher, Hasher};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::audit::Fault;
use crate::journal::{Header, JournalError, parse_header};
use crate::shard::{ScheduleShape, Shard};

/// What a merge found.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    /// The header of the first journal, which every other journal's agrees with.
    pub header: Header,
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
}

impl Merged {
    /// The missing games of each shard of `count` that lacks some: the shard, and the ids.
    pub fn missing_by_shard(&self, count: usize) -> Vec<(Shard, Vec<String>)> {
        let shape = ScheduleShape::of(&self.header.tournament);
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
    #[error("line {line} of {} is game {id:?}, which is not in the tournament's schedule", path.display())]
    /// A record's game is not in the schedule.
    UnknownGame {
        /// The journal.
        path: PathBuf,
        /// The line's number, from 1 (the header).
        line: usize,
        /// The record's id (untrusted text: escape it for a terminal).
        id: String,
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

/// A record's id, all that the merge reads of it (the rest is checked to be JSON and copied as is).
#[derive(Deserialize)]
struct Id {
    id: String,
}

/// Merges the journals at `inputs` into a new journal at `out` (replacing it; written to a temporary
/// file beside it, then renamed).
pub fn merge(inputs: &[PathBuf], out: &Path) -> Result<Merged, MergeError> {
    let first = inputs.first().ok_or(MergeError::Nothing)?;
    let write_error = |source| MergeError::Write {
        path: out.to_owned(),
        source,
    };
    let partial = out.with_extension("jsonl.partial");
    let mut writer = BufWriter::new(File::create(&partial).map_err(write_error)?);
    let mut merge: Option<(Header, ScheduleShape, Vec<u64>)> = None;
    let (mut games, mut agreeing_duplicates, mut torn) = (0, 0, 0);
    for path in inputs {
        let mut reader = LineReader::open(path)?;
        let (header_line, _) = reader
            .next_line()?
            .filter(|(_, terminated)| *terminated)
            .ok_or_else(|| JournalError::NoHeader { path: path.clone() })?;
        let header = parse_header(path, header_line)?;
        let (ours, shape, fingerprints) = match &mut merge {
            Some(state) => state,
            None => {
                writer.write_all(header_line).map_err(write_error)?;
                writer.write_all(b"\n").map_err(write_error)?;
                let shape = ScheduleShape::of(&header.tournament);
                merge.insert((header.clone(), shape, vec![0; shape.games()]))
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
        let mut number = 1;
        while let Some((line, terminated)) = reader.next_line()? {
            number += 1;
            if line.trim_ascii().is_empty() {
                continue;
            }
            let id = match serde_json::from_slice::<Id>(line) {
                Ok(record) => record.id,
                Err(_) if !terminated => {
                    torn += 1;
                    continue;
                }
                Err(source) => {
                    return Err(JournalError::Fault {
                        path: path.clone(),
                        line: number,
                        source: Fault::NotARecord(source),
                    }
                    .into());
                }
            };
            let index = shape.index_of(&id).ok_or_else(|| MergeError::UnknownGame {
                path: path.clone(),
                line: number,
                id: id.clone(),
            })?;
            let fingerprint = fingerprint(line);
            match fingerprints[index] {
                0 => {
                    fingerprints[index] = fingerprint;
                    writer.write_all(line).map_err(write_error)?;
                    writer.write_all(b"\n").map_err(write_error)?;
                    games += 1;
                }
                seen if seen == fingerprint => agreeing_duplicates += 1,
                _ => {
                    return Err(MergeError::Disagreement {
                        path: path.clone(),
                        line: number,
                        id,
                    });
                }
            }
        }
    }
    let (header, _, fingerprints) = merge.ok_or(MergeError::Nothing)?;
    let file = writer.into_inner().map_err(|error| write_error(error.into_error()))?;
    file.sync_all().map_err(write_error)?;
    std::fs::rename(&partial, out).map_err(write_error)?;
    Ok(Merged {
        header,
        games,
        scheduled: fingerprints.len(),
        agreeing_duplicates,
        torn,
        missing: (0..fingerprints.len()).filter(|&i| fingerprints[i] == 0).collect(),
    })
}

/// A record line's fingerprint, never 0 (0 marks a game not seen yet).
fn fingerprint(line: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    hasher.write(line);
    hasher.finish().max(1)
}

/// A journal's lines, one buffer reused.
struct LineReader {
    path: PathBuf,
    reader: BufReader<File>,
    buffer: Vec<u8>,
}

impl LineReader {
    fn open(path: &Path) -> Result<LineReader, JournalError> {
        let file = File::open(path).map_err(|source| JournalError::Io {
            action: "read",
            path: path.to_owned(),
            source,
        })?;
        Ok(LineReader {
            path: path.to_owned(),
            reader: BufReader::with_capacity(1 << 20, file),
            buffer: Vec::new(),
        })
    }

    /// The next line without its newline, and whether it had one.
    fn next_line(&mut self) -> Result<Option<(&[u8], bool)>, JournalError> {
        self.buffer.clear();
        let read = self
            .reader
            .read_until(b'\n', &mut self.buffer)
            .map_err(|source| JournalError::Io {
                action: "read",
                path: self.path.clone(),
                source,
            })?;
        if read == 0 {
            return Ok(None);
        }
        let terminated = self.buffer.last() == Some(&b'\n');
        let end = self.buffer.len() - usize::from(terminated);
        Ok(Some((&self.buffer[..end], terminated)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::{Journal, read};
    use crate::runner::game_spec;
    use crate::schedule::schedule;
    use crate::testing::{record, tournament, won_by};

    /// Writes a journal of `tournament()` at `dir/name` with the games at `indexes` (won by their first bot).
    fn journal(dir: &Path, name: &str, indexes: impl IntoIterator<Item = usize>) -> PathBuf {
        let path = dir.join(name);
        let file = tournament();
        let games = schedule(&file);
        let mut journal = Journal::create(&path, &file).unwrap();
        for index in indexes {
            journal
                .append(&won_by(
                    &games[index],
                    &game_spec(&games[index], &file),
                    &games[index].first,
                ))
                .unwrap();
        }
        path
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
        let mut other = Journal::open(&two).unwrap().0;
        other
            .append(&won_by(
                &games[0],
                &game_spec(&games[0], &tournament()),
                &games[0].second,
            ))
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
        Journal::open(&stranger)
            .unwrap()
            .0
            .append(&record("999-00-a", "a", "b"))
            .unwrap();
        let error = merge(&[stranger], &dir.path().join("merged.jsonl")).unwrap_err();
        assert!(matches!(error, MergeError::UnknownGame { line: 2, .. }), "{error}");
    }
}
