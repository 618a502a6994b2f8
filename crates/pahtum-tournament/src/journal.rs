//! The journal: the one source of truth of a tournament.
//!
//! A JSON Lines file, append-only. The first line is a [`Header`]: the format,
//! the resolved tournament (every default filled in) and its hash, and for the
//! journal of one shard of a sharded run, the shard. Every other
//! line is one [`GameRecord`], written whole with its newline in one `write`
//! as its game ends, so that a killed referee loses nothing; it reaches the
//! disk as the journal's [`Durability`] says (group commit: one sync for the
//! games of up to 200 ms by default), which bounds what a power cut loses. Standings, tables and resume are all derived
//! from the journal, never from state kept elsewhere.
//!
//! A crash in the middle of a write leaves a *torn* last line: no newline at
//! its end, and not a valid record. Reading drops exactly that line (and
//! [`Journal::open`] truncates it away before appending). Blank lines (empty
//! or only whitespace, a trailing one too) are harmless and skipped, since
//! editors and `echo >>` leave them. Anything else is a record, and every
//! reader checks every record as it reads it ([`crate::audit`]: the rules
//! replay it, and the schedule of the header's tournament must have it): a
//! line that does not parse or does not pass is an error naming the line and
//! the fault, and [`verify`] lists every such line at once. A
//! [`JournalReader`] streams the records in bounded memory, on every core, in
//! file order; [`read`] is that stream collected.
//!
//! A [`Journal`] holds an exclusive lock (`flock`) on its file for as long as
//! it lives, so that two arenas never append to the same journal: the second
//! one fails with [`JournalError::Locked`] instead of interleaving its records
//! with the first one's.
//!
//! The hash is `"sha256:"` and the lowercase hex SHA-256 of the compact JSON of
//! the tournament (`serde_json`, keys in the order of the Rust structs, bot
//! environments sorted by key), as written in the header. Fair mode and a
//! bot's own time control are left out when unused, so a tournament without
//! them keeps the hash it had before they existed.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use pahtum_record::{BareMove, GameRecord, MoveRecord};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::audit::{Audit, Fault};
use crate::config::Tournament;
use crate::durability::{BATCH_INTERVAL, Durability};
use crate::shard::{ScheduleShape, Shard};

mod fast;
mod lines;

/// The value of the header's `journal` key for this format.
pub const FORMAT: &str = "pahtum-arena/journal/1";

/// The journal's first line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The journal format, [`FORMAT`].
    pub journal: String,
    /// [`tournament_hash`] of `tournament`.
    pub hash: String,
    /// The resolved tournament the journal's games belong to.
    pub tournament: Tournament,
    /// The shard whose games the journal holds (`arena run --shard K/N`); absent for a journal of
    /// every game, and in journals written before shards were named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

impl Header {
    /// The header of a new journal of `tournament`, of every game.
    pub fn new(tournament: &Tournament) -> Header {
        Header {
            journal: FORMAT.to_owned(),
            hash: tournament_hash(tournament),
            tournament: tournament.clone(),
            shard: None,
        }
    }

    /// This header, naming `shard` (`None`: a journal of every game).
    pub fn of_shard(self, shard: Option<Shard>) -> Header {
        Header { shard, ..self }
    }
}

/// The hash of a resolved tournament, as the module documentation defines it.
pub fn tournament_hash(tournament: &Tournament) -> String {
    let json = serde_json::to_vec(tournament).expect("a tournament serializes to JSON");
    let digest = Sha256::digest(&json);
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

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

/// A journal that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// An I/O operation on the file failed.
    #[error("cannot {action} the journal {}", path.display())]
    Io {
        /// What was being done, as a verb (`read`, `open`, `repair`, `append to`, `lock`).
        action: &'static str,
        /// The journal.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// Another process holds the journal's lock.
    #[error(
        "another arena is running this tournament: its journal {} is locked; \
         wait for that run to end (or stop it) before running this one",
        path.display()
    )]
    Locked {
        /// The journal.
        path: PathBuf,
    },
    /// The file has no complete first line.
    #[error("the journal {} is empty or its first line was torn; start afresh", path.display())]
    NoHeader {
        /// The journal.
        path: PathBuf,
    },
    /// The first line is not a journal header.
    #[error("{} is not a pahtum-arena journal: its first line is not a journal header", path.display())]
    BadHeader {
        /// The file.
        path: PathBuf,
        /// Why the line does not parse as a header.
        #[source]
        source: serde_json::Error,
    },
    /// The header names a journal format this arena does not read.
    #[error("the journal {} has format {found:?}; this arena reads {FORMAT:?}", path.display())]
    Format {
        /// The journal.
        path: PathBuf,
        /// The header's format (untrusted text: escape it for a terminal).
        found: String,
    },
    /// A line after the header is faulty, so no result of the journal is trusted.
    #[error(
        "line {line} of the journal {} is damaged or was edited, so none of its results is trusted \
         (only a torn last line is dropped; repair or remove that line, and `arena verify {}` lists every \
         such line)",
        path.display(), path.display()
    )]
    Fault {
        /// The journal.
        path: PathBuf,
        /// The faulty line's number, from 1 (the header).
        line: usize,
        /// What is wrong with the line.
        #[source]
        source: Fault,
    },
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

/// Whether a reader keeps the records' moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moves {
    /// The records as written, every move with its timing.
    Keep,
    /// The records without their moves (`moves` empty, `swap_move` `None`), which are checked all
    /// the same: all that standings need, in a fraction of the memory, and faster, since the
    /// moves' timings (most of a record's bytes) are skipped.
    Drop,
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
/// The records stream through ([`lines`]): the file is read a piece at a time, every core parses
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
        let shape = checker.shape;
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

/// The check of each record of one tournament's journals.
#[derive(Debug)]
pub(crate) struct Checker {
    audit: Audit,
    shape: ScheduleShape,
}

impl Checker {
    /// The checker of records of `tournament`.
    pub(crate) fn new(tournament: &Tournament) -> Checker {
        Checker {
            audit: Audit::new(tournament),
            shape: ScheduleShape::of(tournament),
        }
    }

    /// The shape of the tournament's schedule.
    pub(crate) fn shape(&self) -> ScheduleShape {
        self.shape
    }

    /// Reads one line as a record (without its moves for [`Moves::Drop`]) and checks it
    /// ([`crate::audit`]); returns its game's schedule index with it.
    fn check(&self, text: &[u8], moves: Moves) -> Result<(usize, GameRecord), Fault> {
        fn parse<T: serde::de::DeserializeOwned>(text: &[u8]) -> Result<T, Fault> {
            // A `&str` is parsed without checking each string's UTF-8 again: a fifth faster.
            match std::str::from_utf8(text) {
                Ok(text) => serde_json::from_str(text),
                Err(_) => serde_json::from_slice(text),
            }
            .map_err(Fault::NotARecord)
        }
        let record = match moves {
            Moves::Keep => {
                let record: GameRecord = parse(text)?;
                self.audit.check(&record, record.moves.iter().map(MoveRecord::bare))?;
                record
            }
            Moves::Drop => {
                let fast = fast::split(text).and_then(|(rest, moves)| {
                    let record = serde_json::from_slice::<WithoutMoves>(&rest).ok()?.split().0;
                    Some((record, moves))
                });
                // Anything the hand reader does not take, serde reads whole (and names its fault).
                let (record, moves) = match fast {
                    Some(read) => read,
                    None => parse::<WithoutMoves>(text)?.split(),
                };
                self.audit.check(&record, moves)?;
                record
            }
        };
        let index = self
            .shape
            .index_of(&record.id)
            .ok_or_else(|| Fault::UnknownGame { id: record.id.clone() })?;
        Ok((index, record))
    }
}

/// A [`GameRecord`] as read without its moves' timings; unknown keys, `swap_move` among them, are skipped.
#[derive(Deserialize)]
struct WithoutMoves {
    id: String,
    #[serde(default)]
    layout: Option<String>,
    #[serde(default)]
    seed: Option<u64>,
    rules: pahtum_protocol::Rules,
    time: pahtum_protocol::TimeControl,
    #[serde(default)]
    time_by_seat: Option<pahtum_record::SeatTimes>,
    #[serde(default)]
    pause_idle: bool,
    players: pahtum_record::Players,
    white: String,
    black: String,
    blocks: Vec<pahtum::Cell>,
    moves: Vec<BareMove>,
    swap: Option<bool>,
    score: pahtum::Score,
    result: pahtum::Outcome,
    termination: pahtum_record::Termination,
    started_unix_ms: u64,
    ended_unix_ms: u64,
}

impl WithoutMoves {
    /// The record without its moves, and its bare moves.
    fn split(self) -> (GameRecord, Vec<BareMove>) {
        let r = self;
        let record = GameRecord {
            id: r.id,
            layout: r.layout,
            seed: r.seed,
            rules: r.rules,
            time: r.time,
            time_by_seat: r.time_by_seat,
            pause_idle: r.pause_idle,
            players: r.players,
            white: r.white,
            black: r.black,
            blocks: r.blocks,
            moves: Vec::new(),
            swap: r.swap,
            swap_move: None,
            score: r.score,
            result: r.result,
            termination: r.termination,
            started_unix_ms: r.started_unix_ms,
            ended_unix_ms: r.ended_unix_ms,
        };
        (record, r.moves)
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

/// A journal open for appending.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
    durability: Durability,
    /// When the oldest write not yet synced was made; `None` when everything written is synced.
    unsynced_since: Option<Instant>,
    /// The line being written, kept between appends so that an append does not allocate.
    line: Vec<u8>,
    /// The file's length, as far as this journal knows: where the next line starts.
    len: u64,
}

impl Journal {
    /// Creates a new journal at `path` with the header of `tournament` (of every game); fails if the file exists.
    pub fn create(path: &Path, tournament: &Tournament) -> Result<Journal, JournalError> {
        Journal::create_with(path, &Header::new(tournament))
    }

    /// Creates a new journal at `path` with `header`; fails if the file exists.
    pub fn create_with(path: &Path, header: &Header) -> Result<Journal, JournalError> {
        let io_error = |action| {
            move |source| JournalError::Io {
                action,
                path: path.to_owned(),
                source,
            }
        };
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(path)
            .map_err(io_error("create"))?;
        lock(&file, path)?;
        let mut journal = Journal::new(path, file);
        journal.write_line(header)?;
        journal.sync()?;
        // Make the new file's name durable too.
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            File::open(dir)
                .and_then(|dir| dir.sync_all())
                .map_err(io_error("sync the folder of"))?;
        }
        Ok(journal)
    }

    /// Opens an existing journal for appending: reads it, showing each record (without its moves) to
    /// `on_record` as it streams by, so that resuming a journal of any length takes bounded memory;
    /// then truncates a torn last line, and ends an unterminated last record with its newline.
    /// Returns the journal and how its lines ended before the repair.
    pub fn open(path: &Path, on_record: impl FnMut(GameRecord)) -> Result<(Journal, Ending), JournalError> {
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|source| JournalError::Io {
                action: "open",
                path: path.to_owned(),
                source,
            })?;
        lock(&file, path)?;
        let ending = JournalReader::open(path)?.for_each(Moves::Drop, on_record)?;
        let io_error = |source| JournalError::Io {
            action: "repair",
            path: path.to_owned(),
            source,
        };
        let mut journal = Journal::new(path, file);
        if ending.torn {
            journal.file.set_len(ending.valid_len).map_err(io_error)?;
            journal.file.sync_data().map_err(io_error)?;
        }
        if ending.unterminated {
            journal.write_bytes(b"\n")?;
            journal.sync()?;
        }
        journal.len = journal.file.metadata().map_err(io_error)?.len();
        Ok((journal, ending))
    }

    fn new(path: &Path, file: File) -> Journal {
        Journal {
            path: path.to_owned(),
            file,
            durability: Durability::default(),
            unsynced_since: None,
            line: Vec::new(),
            len: 0,
        }
    }

    /// Sets when appends are synced to the disk (the default is [`Durability::Batch`]).
    pub fn set_durability(&mut self, durability: Durability) {
        self.durability = durability;
    }

    /// Appends one record: the whole line in one write, then synced as the durability says: at once
    /// (`game`), once [`BATCH_INTERVAL`] has passed since the oldest unsynced write (`batch`), or not
    /// (`none`). The caller syncs the rest: at [`Journal::sync_due`] and with [`Journal::sync`] at the end.
    /// Returns where the record's line lies in the file, for reading it back ([`read_line_at`]).
    pub fn append(&mut self, record: &GameRecord) -> Result<Span, JournalError> {
        let span = self.write_line(record)?;
        match self.durability {
            Durability::Game => self.sync()?,
            Durability::Batch if self.sync_due().is_some_and(|due| Instant::now() >= due) => self.sync()?,
            Durability::Batch | Durability::None => {}
        }
        Ok(span)
    }

    /// When the writes not yet synced are due to be: `None` when there are none, or when only the end of
    /// the run syncs them (`none`).
    pub fn sync_due(&self) -> Option<Instant> {
        match self.durability {
            Durability::None => None,
            Durability::Game | Durability::Batch => self.unsynced_since.map(|since| since + BATCH_INTERVAL),
        }
    }

    /// Syncs every write not yet synced to the disk (`fdatasync`); nothing to do when there is none.
    pub fn sync(&mut self) -> Result<(), JournalError> {
        if self.unsynced_since.is_some() {
            self.file.sync_data().map_err(|source| self.io_error("sync", source))?;
            self.unsynced_since = None;
        }
        Ok(())
    }

    /// Writes `value` as one JSON line, in one write, not synced; returns where the line lies.
    fn write_line(&mut self, value: &impl Serialize) -> Result<Span, JournalError> {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        serde_json::to_writer(&mut line, value).expect("a journal line serializes");
        let span = Span {
            offset: self.len,
            len: line.len(),
        };
        line.push(b'\n');
        let written = self.write_bytes(&line);
        self.line = line;
        written.map(|()| span)
    }

    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), JournalError> {
        self.file
            .write_all(bytes)
            .map_err(|source| self.io_error("append to", source))?;
        self.len += bytes.len() as u64;
        self.unsynced_since.get_or_insert_with(Instant::now);
        Ok(())
    }

    fn io_error(&self, action: &'static str, source: io::Error) -> JournalError {
        JournalError::Io {
            action,
            path: self.path.clone(),
            source,
        }
    }

    /// The journal's file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Journal {
    /// A journal on Linux's `/dev/full`: every append fails as on a full disk (for the runner's tests).
    #[doc(hidden)]
    pub fn on_a_full_disk() -> Journal {
        let path = PathBuf::from("/dev/full");
        let file = OpenOptions::new().append(true).open(&path).expect("/dev/full opens");
        Journal::new(&path, file)
    }
}

/// Takes the exclusive lock of the journal at `path`, open as `file`, without
/// waiting: the lock lasts as long as `file` is open.
pub fn lock(file: &File, path: &Path) -> Result<(), JournalError> {
    use rustix::fs::{FlockOperation, flock};
    flock(file, FlockOperation::NonBlockingLockExclusive).map_err(|errno| {
        if errno == rustix::io::Errno::WOULDBLOCK {
            JournalError::Locked { path: path.to_owned() }
        } else {
            JournalError::Io {
                action: "lock",
                path: path.to_owned(),
                source: errno.into(),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{played, tournament};

    /// The ids of the test tournament's games, in schedule order.
    const GAMES: [&str; 6] = ["000-00-a", "000-00-b", "001-00-a", "001-00-b", "002-00-a", "002-00-b"];

    fn journal_with(records: usize) -> (tempfile::TempDir, PathBuf, Vec<GameRecord>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut journal = Journal::create(&path, &tournament()).unwrap();
        let records: Vec<GameRecord> = GAMES[..records].iter().map(|id| played(id)).collect();
        for r in &records {
            journal.append(r).unwrap();
        }
        (dir, path, records)
    }

    #[test]
    fn records_round_trip_after_the_header() {
        let (_dir, path, records) = journal_with(3);
        let contents = read(&path).unwrap();
        assert_eq!(contents.header, Header::new(&tournament()));
        assert_eq!(contents.records, records);
        assert!(!contents.torn && !contents.unterminated);
        assert!(
            Journal::create(&path, &tournament()).is_err(),
            "create must not overwrite"
        );
    }

    #[test]
    fn results_are_the_records_without_their_moves() {
        let (_dir, path, records) = journal_with(2);
        assert!(records.iter().all(|r| !r.moves.is_empty() && r.swap_move.is_some()));
        let without_moves: Vec<GameRecord> = records
            .iter()
            .map(|r| GameRecord {
                moves: Vec::new(),
                swap_move: None,
                ..r.clone()
            })
            .collect();
        assert_eq!(read(&path).unwrap().records, records);
        let mut results = Vec::new();
        let reader = JournalReader::open(&path).unwrap();
        reader.for_each(Moves::Drop, |record| results.push(record)).unwrap();
        assert_eq!(results, without_moves);
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_truncated_before_appending() {
        let (_dir, path, records) = journal_with(2);
        let full_len = std::fs::metadata(&path).unwrap().len();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend_from_slice(br#"{"id":"000-05-a","lay"#);
        std::fs::write(&path, &bytes).unwrap();

        let contents = read(&path).unwrap();
        assert!(contents.torn);
        assert_eq!(contents.records, records);
        assert_eq!(contents.valid_len, full_len);

        let (mut journal, _) = Journal::open(&path, drop).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), full_len);
        let extra = played(GAMES[5]);
        journal.append(&extra).unwrap();
        let contents = read(&path).unwrap();
        assert_eq!(contents.records.len(), 3);
        assert_eq!(contents.records[2], extra);
        assert!(!contents.torn);
    }

    #[test]
    fn a_complete_record_without_its_newline_is_kept() {
        let (_dir, path, records) = journal_with(2);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        let mut opened = Vec::new();
        let (mut journal, _) = Journal::open(&path, |record| opened.push(record.id)).unwrap();
        assert_eq!(
            opened,
            records.iter().map(|record| record.id.clone()).collect::<Vec<_>>()
        );
        journal.append(&played(GAMES[5])).unwrap();
        assert_eq!(read(&path).unwrap().records.len(), 3);
    }

    /// `game` syncs at once; `batch` leaves the write due within the batch interval; `none` never asks.
    #[test]
    fn each_durability_syncs_when_it_says() {
        let (_dir, path, _) = journal_with(0);
        let (mut journal, _) = Journal::open(&path, drop).unwrap();
        let expected = [
            (Durability::Game, false),
            (Durability::Batch, true),
            (Durability::None, false),
        ];
        for ((durability, due), id) in expected.into_iter().zip(GAMES) {
            journal.set_durability(durability);
            let before = Instant::now();
            journal.append(&played(id)).unwrap();
            let sync_due = journal.sync_due();
            assert_eq!(sync_due.is_some(), due, "{durability}");
            assert!(sync_due.is_none_or(|at| at >= before + BATCH_INTERVAL), "{durability}");
            journal.sync().unwrap();
            assert_eq!(journal.sync_due(), None, "{durability}: synced");
        }
        assert_eq!(read(&path).unwrap().records.len(), 3, "every mode writes at once");
    }

    #[test]
    fn a_journal_in_use_cannot_be_opened_again() {
        let (_dir, path, _) = journal_with(1);
        let (first, _) = Journal::open(&path, drop).unwrap();
        let error = Journal::open(&path, drop).unwrap_err();
        assert!(matches!(error, JournalError::Locked { .. }), "{error}");
        assert!(
            error
                .to_string()
                .starts_with("another arena is running this tournament: "),
            "{error}"
        );
        drop(first);
        assert!(Journal::open(&path, drop).is_ok(), "the lock ends with the journal");
    }

    #[test]
    fn damage_before_the_last_line_is_an_error_naming_the_line() {
        let (_dir, path, _) = journal_with(2);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.insert_str(text.find("\n{").unwrap() + 1, "garbage\n");
        std::fs::write(&path, text).unwrap();
        let error = read(&path).unwrap_err().to_string();
        assert!(error.contains("line 2 of the journal"), "{error}");
    }

    #[test]
    fn blank_lines_are_skipped_and_every_fault_is_listed() {
        let (_dir, path, records) = journal_with(3);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines.insert(2, "");
        lines.insert(3, " \t ");
        std::fs::write(&path, lines.join("\n") + "\n\n").unwrap();
        assert_eq!(read(&path).unwrap().records, records);

        let second = lines[4].to_owned();
        lines.insert(4, "not json");
        lines.push(&second);
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let error = read(&path).unwrap_err();
        assert!(matches!(error, JournalError::Fault { line: 5, .. }), "{error}");
        let verified = verify(&path).unwrap();
        let faults: Vec<(usize, String)> = verified
            .faults
            .iter()
            .map(|fault| (fault.line, fault.fault.to_string()))
            .collect();
        assert_eq!(
            faults,
            [
                (5, "not a game record".to_owned()),
                (8, "game \"000-00-b\" was already recorded on line 6".to_owned())
            ]
        );
        assert_eq!(verified.good, 3);
    }

    /// A journal of more than a piece: its lines keep their numbers, and a
    /// game recorded in two pieces is seen twice.
    #[test]
    fn a_journal_read_in_pieces_keeps_its_line_numbers() {
        let (_dir, path, records) = journal_with(2);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let blanks = 2 * lines::PIECE_BYTES / 128 + 1;
        let blank = " ".repeat(127);
        let mut long: Vec<&str> = vec![lines[0], lines[1]];
        long.extend(std::iter::repeat_n(blank.as_str(), blanks));
        long.extend([lines[2], "not json", lines[1]]);
        std::fs::write(&path, long.join("\n") + "\n").unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() as usize > 2 * lines::PIECE_BYTES);
        let faults: Vec<(usize, String)> = verify(&path)
            .unwrap()
            .faults
            .iter()
            .map(|fault| (fault.line, fault.fault.to_string()))
            .collect();
        let after = blanks + 3;
        assert_eq!(
            faults,
            [
                (after + 1, "not a game record".to_owned()),
                (after + 2, "game \"000-00-a\" was already recorded on line 2".to_owned())
            ]
        );
        let mut sound = long;
        sound.truncate(sound.len() - 2);
        std::fs::write(&path, sound.join("\n") + "\n").unwrap();
        assert_eq!(read(&path).unwrap().records, records);
    }

    #[test]
    fn a_missing_or_foreign_header_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        std::fs::write(&path, "").unwrap();
        assert!(matches!(read(&path), Err(JournalError::NoHeader { .. })));
        std::fs::write(&path, "{\"hello\":1}\n").unwrap();
        assert!(matches!(read(&path), Err(JournalError::BadHeader { .. })));
    }

    #[test]
    fn the_hash_follows_the_tournament() {
        let t = tournament();
        assert_eq!(tournament_hash(&t), tournament_hash(&t.clone()));
        assert!(tournament_hash(&t).starts_with("sha256:"));
        assert_eq!(tournament_hash(&t).len(), "sha256:".len() + 64);
        let other = Tournament {
            seed: t.seed + 1,
            ..t.clone()
        };
        assert_ne!(tournament_hash(&other), tournament_hash(&t));
    }

    /// The hash is part of the journal format: a journal written by an older
    /// arena must keep its hash, or it could not be resumed. These are the
    /// hashes of the test tournament as written before this test existed,
    /// without and with the keys that are left out when unused.
    #[test]
    fn the_hash_of_a_tournament_is_pinned() {
        let t = tournament();
        assert_eq!(
            tournament_hash(&t),
            "sha256:c9beddc68838a536c8560570a5389a197bfcfdc1042826830c29802ff7ef6c8d"
        );
        let mut used = Tournament {
            pause_idle: true,
            ..t.clone()
        };
        used.bots[0].time = Some(pahtum_protocol::move_time(std::time::Duration::from_millis(250)));
        assert_eq!(
            tournament_hash(&used),
            "sha256:5793d148919065f5126bee3b9c89c3e830699227f10af77c557ffa3167e0027b"
        );
    }

    /// Journals written before fair mode and per-bot time existed must resume:
    /// a tournament that uses neither serializes (and hashes) as it did then.
    #[test]
    fn unused_fair_mode_and_bot_time_stay_out_of_the_hash() {
        let t = tournament();
        let json = serde_json::to_string(&t).unwrap();
        assert!(!json.contains("pause_idle"), "{json}");
        assert_eq!(json.matches("\"time\"").count(), 1, "only the tournament's: {json}");
        let fair = Tournament {
            pause_idle: true,
            ..t.clone()
        };
        assert_ne!(tournament_hash(&fair), tournament_hash(&t));
        let mut own_time = t.clone();
        own_time.bots[0].time = Some(pahtum_protocol::move_time(std::time::Duration::from_millis(250)));
        assert_ne!(tournament_hash(&own_time), tournament_hash(&t));
    }

    /// A wall clock (the default) stays out of the JSON, so that journals
    /// written before CPU-time clocks existed resume; a CPU clock changes the hash.
    #[test]
    fn a_wall_clock_stays_out_of_the_hash() {
        let t = tournament();
        assert_eq!(t.time.clock, pahtum_protocol::ClockKind::Wall);
        let json = serde_json::to_string(&t).unwrap();
        assert!(!json.contains("clock"), "{json}");
        let mut cpu = t.clone();
        cpu.time.clock = pahtum_protocol::ClockKind::Cpu;
        assert!(serde_json::to_string(&cpu).unwrap().contains(r#""clock":"cpu""#));
        assert_ne!(tournament_hash(&cpu), tournament_hash(&t));
    }
}
