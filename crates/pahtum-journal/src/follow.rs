//! Following a journal while another process writes it: each look reads only
//! the bytes written since the last one.
//!
//! A page that shows a run as it plays (`arena serve`) looks at the run's
//! journal again and again. Reading the whole file each time costs in
//! proportion to the games played, so a long run's page grows slower with
//! every game, and so do the games it shares the machine with. A [`Follower`]
//! keeps where its reading stopped ([`Place`]: the line, the offset, and the
//! line of each game's first record, so that a game recorded twice is still
//! found) and reads from there, checking every new record as every reader
//! does.
//!
//! Only complete lines are read: the bytes after the last newline may be a
//! record still being written, so they wait for the next look (a record is
//! never trusted before it is complete and checked). A journal that was
//! replaced or cut shorter than what was read (a `--fresh` run, `arena
//! verify --repair`'s rewrite) is not the file that was followed:
//! [`Growth::Replaced`] says to start again.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use pahtum_record::GameRecord;

use crate::audit::Fault;
use pahtum_tournament::schedule::Schedule;

use super::check::Moves;
use super::error::JournalError;
use super::header::Header;
use super::read::{JournalReader, Place, Span, record_or_fault};
use pahtum_tournament::config::tournament_hash;

/// How far back from the end of the file a look searches at a time for the last newline.
const TAIL_STEP: u64 = 64 * 1024;

/// A journal followed as it grows.
#[derive(Debug)]
pub struct Follower {
    path: PathBuf,
    header: Header,
    place: Place,
    /// The file's device and inode when it was opened: another file at the same path is another journal.
    identity: (u64, u64),
}

/// What a look at a followed journal found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Growth {
    /// No complete line since the last look.
    Same,
    /// This many new records (and maybe blank lines).
    Grew(usize),
    /// The file at the path is no longer the one followed, or is shorter than what was read: follow it
    /// afresh.
    Replaced,
}

impl Follower {
    /// Opens the journal at `path` and reads its header (checking its hash); no record is read yet.
    pub fn open(path: &Path) -> Result<Follower, JournalError> {
        let reader = JournalReader::open(path)?;
        let header = reader.header().clone();
        if header.hash != tournament_hash(&header.tournament) {
            return Err(JournalError::Fault {
                path: path.to_owned(),
                line: 1,
                source: Fault::HeaderEdited { hash: header.hash },
            });
        }
        let place = Place::after_header(&header, reader.header_len());
        let identity = identity(&metadata(path)?);
        Ok(Follower {
            path: path.to_owned(),
            header,
            place,
            identity,
        })
    }

    /// The journal's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The journal's schedule, grown by the `joined` lines read so far.
    pub fn schedule(&self) -> &Schedule {
        &self.place.ending.schedule
    }

    /// The bytes read so far: the header and every complete line after it.
    pub fn bytes_read(&self) -> u64 {
        self.place.ending.valid_len
    }

    /// Reads the complete lines written since the last look and calls `on_record` with each new record, as
    /// [`JournalReader::for_each_kept`] does. Fails at a faulty line; the follower is then spent (open it
    /// again to read the fault anew).
    pub fn read_new<T: Send>(
        &mut self,
        moves: Moves,
        keep: impl Fn(GameRecord) -> T + Sync,
        mut on_record: impl FnMut(T, Span),
    ) -> Result<Growth, JournalError> {
        let io_error = |source| JournalError::Io {
            action: "read",
            path: self.path.clone(),
            source,
        };
        let mut file = File::open(&self.path).map_err(io_error)?;
        let meta = file.metadata().map_err(io_error)?;
        let read = self.bytes_read();
        if identity(&meta) != self.identity || meta.len() < read {
            return Ok(Growth::Replaced);
        }
        let complete = last_line_end(&mut file, read, meta.len()).map_err(io_error)?;
        if complete == read {
            return Ok(Growth::Same);
        }
        file.seek(SeekFrom::Start(read)).map_err(io_error)?;
        let records = self.place.ending.records;
        let path = self.path.clone();
        self.place.scan(
            &path,
            file.take(complete - read),
            moves,
            |record, _| keep(record),
            |item| record_or_fault(&path, item, &mut |kept, _, span| on_record(kept, span)),
        )?;
        Ok(Growth::Grew(self.place.ending.records - records))
    }
}

fn metadata(path: &Path) -> Result<std::fs::Metadata, JournalError> {
    std::fs::metadata(path).map_err(|source| JournalError::Io {
        action: "read",
        path: path.to_owned(),
        source,
    })
}

fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    (meta.dev(), meta.ino())
}

/// The offset just past the last newline of `file` between `from` and `len` (its length), or `from` if
/// there is none: what may be read of it now.
fn last_line_end(file: &mut File, from: u64, len: u64) -> std::io::Result<u64> {
    let mut end = len;
    let mut chunk = Vec::new();
    while end > from {
        let start = end.saturating_sub(TAIL_STEP).max(from);
        chunk.resize((end - start) as usize, 0);
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut chunk)?;
        if let Some(at) = chunk.iter().rposition(|&byte| byte == b'\n') {
            return Ok(start + at as u64 + 1);
        }
        end = start;
    }
    Ok(from)
}
