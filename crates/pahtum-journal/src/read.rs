//! Reading a journal: its header, then every record checked, streamed in
//! bounded memory on every core ([`super::lines`]), in file order.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use pahtum_record::GameRecord;

use crate::audit::Fault;

use super::check::{Checker, Line, Moves};
use super::error::JournalError;
use super::header::{FORMAT, Header, Joined};
use super::lines;
use pahtum_tournament::config::tournament_hash;
use pahtum_tournament::schedule::Schedule;

/// What a journal holds.
#[derive(Debug, Clone)]
pub struct Contents {
    /// The first line.
    pub header: Header,
    /// The complete records, in the order they were written.
    pub records: Vec<GameRecord>,
    /// The length of the valid part of the file, in bytes (without a torn last line).
    pub valid_len: u64,
    /// Whether a torn last line was dropped.
    pub torn: bool,
    /// Whether the last record lacks its newline (complete, but its newline was not written).
    pub unterminated: bool,
    /// The `joined` lines, in order.
    pub joins: Vec<Joined>,
    /// The schedule of the header's tournament grown by every `joined` line.
    pub schedule: Schedule,
}

/// Reads a journal without changing it, checking every record ([`crate::audit`]); stops at the first fault.
/// It holds every record in memory: [`JournalReader`] streams them instead.
pub fn read(path: &Path) -> Result<Contents, JournalError> {
    let reader = JournalReader::open(path)?;
    let header = reader.header().clone();
    let mut records = Vec::new();
    let ending = reader.for_each(Moves::Keep, |record| records.push(record))?;
    Ok(Contents {
        header,
        records,
        valid_len: ending.valid_len,
        torn: ending.torn,
        unterminated: ending.unterminated,
        joins: ending.joins,
        schedule: ending.schedule,
    })
}

/// Checks every line of a journal and lists every fault, instead of stopping at the first as
/// [`read`] does; every adjudicated game's adjudication is proven again ([`crate::audit::reprove`]). Fails only when there is no header to check the records against, or the file
/// cannot be read.
pub fn verify(path: &Path) -> Result<Verified, JournalError> {
    JournalReader::open(path)?.verify()
}

/// A faulty line of a journal.
#[derive(Debug)]
pub struct LineFault {
    /// Its number, from 1 (the header).
    pub line: usize,
    /// What is wrong with it.
    pub fault: Fault,
}

/// Every fault of a journal, as [`verify`] found them.
#[derive(Debug)]
pub struct Verified {
    /// The first line.
    pub header: Header,
    /// The records that passed every check.
    pub good: usize,
    /// Of those, the adjudicated games, each adjudication proven again.
    pub adjudicated: usize,
    /// The faulty lines, in file order.
    pub faults: Vec<LineFault>,
    /// Whether a torn last line was dropped (not a fault).
    pub torn: bool,
    /// The sound `joined` lines, in order, each with its line's number (from 1, the header).
    pub joins: Vec<(usize, Joined)>,
}

/// How a journal's lines end, as a reader found them.
#[derive(Debug, Clone)]
pub struct Ending {
    /// The records that passed every check.
    pub records: usize,
    /// The length of the valid part of the file, in bytes (without a torn last line).
    pub valid_len: u64,
    /// Whether a torn last line was dropped.
    pub torn: bool,
    /// Whether the last line lacks its newline (complete, but its newline was not written).
    pub unterminated: bool,
    /// The `joined` lines, in order.
    pub joins: Vec<Joined>,
    /// The schedule of the header's tournament grown by every `joined` line: the journal's schedule.
    pub schedule: Schedule,
}

/// How the lines of a journal of any kind ended, as its reader found them: what repairing its end needs
/// ([`super::Journal::open_read`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinesEnd {
    /// The records that passed every check.
    pub records: usize,
    /// The length of the valid part of the file, in bytes (without a torn last line).
    pub valid_len: u64,
    /// Whether a torn last line was dropped.
    pub torn: bool,
    /// Whether the last line lacks its newline (complete, but its newline was not written).
    pub unterminated: bool,
}

/// What a reader of a journal says of how its lines ended.
pub trait Ended {
    /// How its lines ended.
    fn lines(&self) -> LinesEnd;
}

impl Ended for LinesEnd {
    fn lines(&self) -> LinesEnd {
        *self
    }
}

impl Ended for Ending {
    fn lines(&self) -> LinesEnd {
        LinesEnd {
            records: self.records,
            valid_len: self.valid_len,
            torn: self.torn,
            unterminated: self.unterminated,
        }
    }
}

/// A journal being read: its header, then its records one by one, in bounded memory.
///
/// The records stream through (`lines`): the file is read a piece at a time, every core parses
/// and checks a piece's records ([`crate::audit`]), and they come back in file order, so that
/// memory holds a few pieces, never the file, and the one check that needs the order (a game
/// recorded twice) is made as they come. That check keeps the line of each game's first record by
/// the game's schedule index (4 bytes a game of the schedule), not the ids read.
#[derive(Debug)]
pub struct JournalReader {
    path: PathBuf,
    header: Header,
    /// The length of the header's line, newline included.
    header_len: u64,
    /// The file, just past the header's line.
    rest: BufReader<File>,
}

/// Where a record lies in its journal: what [`read_line_at`] reads back, so that a reader can keep the
/// place of a record instead of the record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Span {
    /// The offset of its line's first byte in the file.
    pub offset: u64,
    /// The length of its line, without the newline.
    pub len: usize,
}

/// Reads back the line at `span` of the journal `file` at `path`: the record's JSON, as a reader found it
/// there (unless the file was changed since).
pub fn read_line_at(mut file: &File, path: &Path, span: Span) -> Result<Vec<u8>, JournalError> {
    let mut line = vec![0; span.len];
    file.seek(SeekFrom::Start(span.offset))
        .and_then(|_| file.read_exact(&mut line))
        .map_err(|source| JournalError::Io {
            action: "read",
            path: path.to_owned(),
            source,
        })?;
    Ok(line)
}

/// What the checking reader hands on, in file order.
#[derive(Debug)]
pub(crate) enum Item<'a, T> {
    /// A sound record, the first of its game.
    Record {
        /// Its line's number, from 1 (the header).
        line: usize,
        /// Its line, without the newline.
        text: &'a [u8],
        /// The offset of its line in the file.
        offset: u64,
        /// Its game's schedule index.
        index: usize,
        /// What was kept of it.
        kept: T,
    },
    /// A sound `joined` line.
    Joined {
        /// Its line's number, from 1 (the header).
        line: usize,
        /// Its line, without the newline.
        text: &'a [u8],
        /// The schedule grown by it.
        schedule: &'a Schedule,
    },
    /// A faulty line.
    Fault(LineFault),
}

impl JournalReader {
    /// Opens the journal at `path` and reads its header.
    pub fn open(path: &Path) -> Result<JournalReader, JournalError> {
        let (line, rest) = open_first_line(path)?;
        Ok(JournalReader {
            path: path.to_owned(),
            header: parse_header(path, &line)?,
            header_len: line.len() as u64 + 1,
            rest,
        })
    }

    /// The journal's header (its hash not yet checked: the records' reading does that).
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The length of the header's line, newline included.
    pub(crate) fn header_len(&self) -> u64 {
        self.header_len
    }

    /// Calls `on_record` with each record, in file order, each checked first ([`crate::audit`]);
    /// stops at the first faulty line (a header whose hash is not its tournament's is line 1's
    /// fault). A torn last line is dropped, blank lines skipped.
    pub fn for_each(self, moves: Moves, mut on_record: impl FnMut(GameRecord)) -> Result<Ending, JournalError> {
        self.for_each_indexed(moves, |_, record| on_record(record))
    }

    /// [`for_each`](Self::for_each), with each record's schedule index (in the schedule grown by the
    /// `joined` lines before it, which the [`Ending`] has).
    pub fn for_each_indexed(
        self,
        moves: Moves,
        mut on_record: impl FnMut(usize, GameRecord),
    ) -> Result<Ending, JournalError> {
        self.for_each_placed(moves, |record| record, |record, index, _| on_record(index, record))
    }

    /// [`for_each`](Self::for_each), with where each record lies in the file, each record first made into
    /// what `keep` keeps of it on the reading threads (which parse the records in parallel, a piece of the file
    /// at a time): so that a caller that needs the moves only to compute something small from them does not
    /// hold the moves of every record in flight.
    pub fn for_each_kept<T: Send>(
        self,
        moves: Moves,
        keep: impl Fn(GameRecord) -> T + Sync,
        mut on_record: impl FnMut(T, Span),
    ) -> Result<Ending, JournalError> {
        self.for_each_placed(moves, keep, |kept, _, span| on_record(kept, span))
    }

    /// Each record, made into what `keep` keeps of it, with its schedule index and where it lies in the file;
    /// stops at the first faulty line.
    fn for_each_placed<T: Send>(
        self,
        moves: Moves,
        keep: impl Fn(GameRecord) -> T + Sync,
        mut on_record: impl FnMut(T, usize, Span),
    ) -> Result<Ending, JournalError> {
        let path = self.path.clone();
        self.scan(
            moves,
            |record, _| keep(record),
            |item| record_or_fault(&path, item, &mut on_record),
        )
    }

    /// Checks every line and lists every fault, adjudications proven again (see [`verify`]).
    pub fn verify(self) -> Result<Verified, JournalError> {
        let header = self.header.clone();
        let (mut faults, mut join_lines) = (Vec::new(), Vec::new());
        // Each adjudication is proven again, on the cores that check the records: `None` for a record
        // without one, else whether it holds.
        let (mut adjudicated, mut unproven) = (0, 0);
        let ending = self.scan(
            Moves::Drop,
            |record, text| {
                record
                    .termination
                    .adjudicated
                    .is_some()
                    .then(|| crate::audit::reprove(text))
            },
            |item| {
                match item {
                    Item::Fault(fault) => faults.push(fault),
                    Item::Joined { line, .. } => join_lines.push(line),
                    Item::Record {
                        line,
                        kept: Some(Some(fault)),
                        ..
                    } => {
                        unproven += 1;
                        faults.push(LineFault { line, fault });
                    }
                    Item::Record { kept: Some(None), .. } => adjudicated += 1,
                    Item::Record { kept: None, .. } => {}
                }
                Ok::<(), JournalError>(())
            },
        )?;
        Ok(Verified {
            header,
            good: ending.records - unproven,
            adjudicated,
            faults,
            torn: ending.torn,
            joins: join_lines.into_iter().zip(ending.joins).collect(),
        })
    }

    /// Reads every line after the header as [`Place::scan`] does, a header that was edited being the first
    /// fault handed to `each`.
    pub(crate) fn scan<T: Send, E: From<JournalError>>(
        self,
        moves: Moves,
        keep: impl Fn(GameRecord, &[u8]) -> T + Sync,
        mut each: impl FnMut(Item<'_, T>) -> Result<(), E>,
    ) -> Result<Ending, E> {
        let JournalReader {
            path,
            header,
            header_len,
            rest,
        } = self;
        if header.hash != tournament_hash(&header.tournament) {
            each(Item::Fault(LineFault {
                line: 1,
                fault: Fault::HeaderEdited {
                    hash: header.hash.clone(),
                },
            }))?;
        }
        let mut place = Place::after_header(&header, header_len);
        place.scan(&path, rest, moves, keep, each)?;
        Ok(place.ending)
    }
}

/// How far a reading of a journal's lines has come: the line it reached, where in the file, the line of
/// each game's first record (to find a game recorded twice), and the schedule as the `joined` lines read
/// so far grew it. A reading resumed from its place ([`Place::scan`] again, on the bytes after
/// [`Ending::valid_len`]) goes on as if it had never stopped: what [`super::Follower`] does with a journal
/// that grows.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    /// The checker of the header's schedule: every core checks records with it first.
    first: Arc<Checker>,
    /// The checker of the schedule grown by the `joined` lines read so far; `None` before the first.
    grown: Option<Arc<Checker>>,
    /// The line of each game's first record, 0 for a game not seen yet: 4 bytes a game of the schedule
    /// (a line past the 4,294,967,295th, which no journal reaches, is named as that one).
    first_lines: Vec<u32>,
    /// The number of the last line read, from 1 (the header).
    number: usize,
    /// The records, bytes and joins read so far.
    pub(crate) ending: Ending,
}

impl Place {
    /// The place just after `header`, of `header_len` bytes, newline included.
    pub(crate) fn after_header(header: &Header, header_len: u64) -> Place {
        let schedule = Schedule::new(&header.tournament);
        Place {
            first_lines: vec![0; schedule.len()],
            number: 1,
            ending: Ending {
                records: 0,
                valid_len: header_len,
                torn: false,
                unterminated: false,
                joins: Vec::new(),
                schedule: schedule.clone(),
            },
            first: Arc::new(Checker::new(schedule)),
            grown: None,
        }
    }

    /// Reads the lines of `source` (the journal at `path` from this place on), checks each record against
    /// the schedule of the header's tournament as grown by the `joined` lines before it, with its moves,
    /// which it keeps as `moves` says, and hands `each` the first record of each game, what `keep` keeps of
    /// it, each sound `joined` line and every fault, in file order. A torn last line is dropped and blank
    /// lines skipped, as the module documentation says. Stops at the first error of `each`, this place then
    /// being that of the line before.
    ///
    /// Every core checks records against the header's schedule, and a record that fails there against the
    /// schedule grown by the `joined` lines handed on so far, all before it: by the
    /// [schedule's growth](pahtum_tournament::schedule), a game of a schedule is the same game in any schedule grown
    /// from it, so that a record that passes is sound where it lies. A record that fails both is checked
    /// again in file order against the schedule grown by every `joined` line before it (a join read in the
    /// same piece of the file as the record was not handed on yet).
    pub(crate) fn scan<T: Send, E: From<JournalError>>(
        &mut self,
        path: &Path,
        source: impl Read + Send,
        moves: Moves,
        keep: impl Fn(GameRecord, &[u8]) -> T + Sync,
        mut each: impl FnMut(Item<'_, T>) -> Result<(), E>,
    ) -> Result<(), E> {
        let Place {
            first,
            grown,
            first_lines,
            number,
            ending,
        } = self;
        // The grown checker for the workers: a line they read comes after every line handed on, so that
        // the joins before it are at least those.
        let published: RwLock<Option<Arc<Checker>>> = RwLock::new(grown.clone());
        let read = |text: &[u8]| -> Result<Line<T>, Fault> {
            // A game of a bot that joined, perhaps: checked against the schedule with it.
            let grown = || published.read().expect("no thread panics holding it").clone();
            Ok(match first.read(text, moves, grown)? {
                Line::Record(index, record) => Line::Record(index, keep(record, text)),
                Line::Joined(joined) => Line::Joined(joined),
            })
        };
        lines::for_each_line(
            source,
            read,
            |line| {
                *number += 1;
                let fault = |fault| Item::Fault(LineFault { line: *number, fault });
                let checker = grown.as_deref().unwrap_or(first);
                let read = match line.read {
                    Some(Err(Fault::NotARecord(_))) if !line.terminated => {
                        ending.torn = true;
                        return Ok(());
                    }
                    // Read before the joins before it were handed on (in the same piece of the file): checked
                    // again, here, against the schedule they grew.
                    Some(Err(fault)) if grown.is_some() && !matches!(fault, Fault::NotARecord(_)) => Some(
                        checker
                            .check(line.text, moves)
                            .map(|(index, record)| Line::Record(index, keep(record, line.text))),
                    ),
                    read => read,
                };
                match read {
                    None => {}
                    Some(Err(error)) => each(fault(error))?,
                    Some(Ok(Line::Joined(joined))) => match checker.join(&joined) {
                        Ok(checker) => {
                            first_lines.resize(checker.shape().games(), 0);
                            ending.joins.push(joined);
                            ending.schedule = checker.schedule().clone();
                            let checker = grown.insert(Arc::new(checker));
                            *published.write().expect("no thread panics holding it") = Some(Arc::clone(checker));
                            each(Item::Joined {
                                line: *number,
                                text: line.text,
                                schedule: checker.schedule(),
                            })?;
                        }
                        Err(error) => each(fault(error))?,
                    },
                    Some(Ok(Line::Record(index, kept))) => match first_lines[index] {
                        0 => {
                            first_lines[index] = u32::try_from(*number).unwrap_or(u32::MAX);
                            ending.records += 1;
                            each(Item::Record {
                                line: *number,
                                text: line.text,
                                offset: ending.valid_len,
                                index,
                                kept,
                            })?;
                        }
                        first_line => each(fault(Fault::Duplicate {
                            id: checker.shape().id_of(index),
                            first_line: first_line as usize,
                        }))?,
                    },
                }
                ending.valid_len += line.text.len() as u64 + u64::from(line.terminated);
                ending.unterminated = !line.terminated;
                Ok(())
            },
            |source| {
                E::from(JournalError::Io {
                    action: "read",
                    path: path.to_owned(),
                    source,
                })
            },
        )
    }
}

/// Opens the journal at `path` and reads its first line, without its newline (a header, in every kind of
/// journal); returns it and the file just past it.
pub fn open_first_line(path: &Path) -> Result<(Vec<u8>, BufReader<File>), JournalError> {
    let io_error = |source| JournalError::Io {
        action: "read",
        path: path.to_owned(),
        source,
    };
    let mut rest = BufReader::new(File::open(path).map_err(io_error)?);
    let mut line = Vec::new();
    rest.read_until(b'\n', &mut line).map_err(io_error)?;
    if line.pop() != Some(b'\n') {
        return Err(JournalError::NoHeader { path: path.to_owned() });
    }
    Ok((line, rest))
}

/// What a reader that stops at the first faulty line does with an `item` of the journal at `path`: a record
/// goes to `on_record` with its schedule index and its place, a sound `joined` line is passed over, and a
/// fault is the error.
pub(super) fn record_or_fault<T>(
    path: &Path,
    item: Item<'_, T>,
    on_record: &mut impl FnMut(T, usize, Span),
) -> Result<(), JournalError> {
    match item {
        Item::Record {
            kept,
            text,
            offset,
            index,
            ..
        } => {
            on_record(
                kept,
                index,
                Span {
                    offset,
                    len: text.len(),
                },
            );
            Ok(())
        }
        Item::Joined { .. } => Ok(()),
        Item::Fault(LineFault { line, fault }) => Err(JournalError::Fault {
            path: path.to_owned(),
            line,
            source: fault,
        }),
    }
}

/// Parses the first line of the journal at `path` (named in errors): a header of this format.
pub fn parse_header(path: &Path, line: &[u8]) -> Result<Header, JournalError> {
    let header: Header = serde_json::from_slice(line).map_err(|source| JournalError::BadHeader {
        path: path.to_owned(),
        source,
    })?;
    if header.journal != FORMAT {
        return Err(JournalError::Format {
            path: path.to_owned(),
            found: header.journal,
        });
    }
    Ok(header)
}
