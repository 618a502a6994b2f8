//! Writing a journal: created with its header or opened to append (a torn
//! last line truncated away first), every record appended whole in one
//! write, synced as the journal's durability says, under an exclusive lock.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use pahtum_record::GameRecord;
use serde::Serialize;

use pahtum_tournament::config::Tournament;
use pahtum_tournament::durability::{BATCH_INTERVAL, Durability};

use super::check::Moves;
use super::error::JournalError;
use super::header::{Header, Joined};
use super::read::{Ended, Ending, JournalReader, Span};

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
    pub fn create_with(path: &Path, header: &impl Serialize) -> Result<Journal, JournalError> {
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
    /// `on_record` with its schedule index as it streams by, so that resuming a journal of any length takes
    /// bounded memory; then truncates a torn last line, and ends an unterminated last record with its
    /// newline. Returns the journal and how its lines ended before the repair.
    pub fn open(path: &Path, on_record: impl FnMut(usize, GameRecord)) -> Result<(Journal, Ending), JournalError> {
        Journal::open_read(path, |path| {
            JournalReader::open(path)?.for_each_indexed(Moves::Drop, on_record)
        })
    }

    /// Opens an existing journal for appending as [`Journal::open`] does, its lines read by `read` (a
    /// journal of another kind, such as a league's, reads its own lines) once the lock is taken.
    pub fn open_read<T: Ended, E: From<JournalError>>(
        path: &Path,
        read: impl FnOnce(&Path) -> Result<T, E>,
    ) -> Result<(Journal, T), E> {
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|source| JournalError::Io {
                action: "open",
                path: path.to_owned(),
                source,
            })?;
        lock(&file, path)?;
        let ending = read(path)?;
        let io_error = |source| JournalError::Io {
            action: "repair",
            path: path.to_owned(),
            source,
        };
        let mut journal = Journal::new(path, file);
        let lines = ending.lines();
        if lines.torn {
            journal.file.set_len(lines.valid_len).map_err(io_error)?;
            journal.file.sync_data().map_err(io_error)?;
        }
        if lines.unterminated {
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
    /// Returns where the record's line lies in the file, for reading it back ([`read_line_at`](super::read_line_at)).
    pub fn append(&mut self, record: &GameRecord) -> Result<Span, JournalError> {
        self.append_line(record)
    }

    /// Appends `line` as one JSON line, synced as [`Journal::append`] syncs a record: how a journal of
    /// another kind (a league's) writes its lines.
    pub fn append_line(&mut self, line: &impl Serialize) -> Result<Span, JournalError> {
        let span = self.write_line(line)?;
        match self.durability {
            Durability::Game => self.sync()?,
            Durability::Batch if self.sync_due().is_some_and(|due| Instant::now() >= due) => self.sync()?,
            Durability::Batch | Durability::None => {}
        }
        Ok(span)
    }

    /// Appends a `joined` line (bots that join the tournament) and syncs it with every write before it, so
    /// that no game of theirs reaches the disk before it.
    pub fn join(&mut self, joined: &Joined) -> Result<(), JournalError> {
        self.write_line(joined)?;
        self.sync()
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
