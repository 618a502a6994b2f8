//! Reading a journal: its header, then every record checked, streamed in
//! bounded memory on every core ([`super::lines`]), in file order.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use pahtum_record::GameRecord;

use crate::audit::Fault;

use super::check::{Checker, Moves};
use super::error::JournalError;
use super::header::{FORMAT, Header, tournament_hash};
use super::lines;

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
    })
}

/// Checks every line of a journal and lists every fault, instead of stopping at the first as
/// [`read`] does. Fails only when there is no header to check the records against, or the file
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
    /// The faulty lines, in file order.
    pub faults: Vec<LineFault>,
    /// Whether a torn last line was dropped (not a fault).
    pub torn: bool,
}

/// How a journal's lines end, as a reader found them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ending {
    /// The records that passed every check.
    pub records: usize,
    /// The length of the valid part of the file, in bytes (without a torn last line).
    pub valid_len: u64,
    /// Whether a torn last line was dropped.
    pub torn: bool,
    /// Whether the last line lacks its newline (complete, but its newline was not written).
    pub unterminated: bool,
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

    /// Calls `on_record` with each record, in file order, each checked first ([`crate::audit`]);
    /// stops at the first faulty line (a header whose hash is not its tournament's is line 1's
    /// fault). A torn last line is dropped, blank lines skipped.
    pub fn for_each(self, moves: Moves, mut on_record: impl FnMut(GameRecord)) -> Result<Ending, JournalError> {
        self.for_each_kept(moves, |record| record, |record, _| on_record(record))
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
        let path = self.path.clone();
        let checker = Checker::new(&self.header.tournament);
        self.scan(
            &checker,
            moves,
            |record, _| keep(record),
            |item| match item {
                Item::Record { kept, text, offset, .. } => {
                    let len = text.len();
                    on_record(kept, Span { offset, len });
                    Ok(())
                }
                Item::Fault(LineFault { line, fault }) => Err(JournalError::Fault {
                    path: path.clone(),
                    line,
                    source: fault,
                }),
            },
        )
    }

    /// Checks every line and lists every fault (see [`verify`]).
    pub fn verify(self) -> Result<Verified, JournalError> {
        let header = self.header.clone();
        let checker = Checker::new(&header.tournament);
        let mut faults = Vec::new();
        let ending = self.scan(
            &checker,
            Moves::Drop,
            |_, _| (),
            |item| {
                if let Item::Fault(fault) = item {
                    faults.push(fault);
                }
                Ok::<(), JournalError>(())
            },
        )?;
        Ok(Verified {
            header,
            good: ending.records,
            faults,
            torn: ending.torn,
        })
    }

    /// Reads every line after the header, checks each record with `checker` (made for the header's
    /// tournament) with its moves, which it keeps as `moves` says, and hands `each` the first record
    /// of each game, what `keep` keeps of it, and every fault, in file order (a header that was
    /// edited first). A torn last line is dropped and blank lines skipped, as the module
    /// documentation says. Stops at the first error of `each`.
    pub(crate) fn scan<T: Send, E: From<JournalError>>(
        self,
        checker: &Checker,
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
                fault: Fault::HeaderEdited { hash: header.hash },
            }))?;
        }
        let shape = checker.shape();
        let check = |text: &[u8]| -> Result<(usize, T), Fault> {
            let (index, record) = checker.check(text, moves)?;
            Ok((index, keep(record, text)))
        };
        // The line of each game's first record, 0 for a game not seen yet: 4 bytes a game of the schedule
        // (a line past the 4,294,967,295th, which no journal reaches, is named as that one).
        let mut first_lines: Vec<u32> = vec![0; shape.games()];
        let mut ending = Ending {
            records: 0,
            valid_len: header_len,
            torn: false,
            unterminated: false,
        };
        let mut number = 1;
        lines::for_each_line(
            rest,
            check,
            |line| {
                number += 1;
                let fault = |fault| Item::Fault(LineFault { line: number, fault });
                match line.read {
                    None => {}
                    Some(Err(Fault::NotARecord(_))) if !line.terminated => {
                        ending.torn = true;
                        return Ok(());
                    }
                    Some(Err(error)) => each(fault(error))?,
                    Some(Ok((index, kept))) => match first_lines[index] {
                        0 => {
                            first_lines[index] = u32::try_from(number).unwrap_or(u32::MAX);
                            ending.records += 1;
                            each(Item::Record {
                                line: number,
                                text: line.text,
                                offset: ending.valid_len,
                                index,
                                kept,
                            })?;
                        }
                        first_line => each(fault(Fault::Duplicate {
                            id: shape.id_of(index),
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
                    path: path.clone(),
                    source,
                })
            },
        )?;
        Ok(ending)
    }
}

/// Opens the journal at `path` and reads its first line, without its newline (a header, in every kind of
/// journal); returns it and the file just past it.
pub(crate) fn open_first_line(path: &Path) -> Result<(Vec<u8>, BufReader<File>), JournalError> {
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
