//! A journal file followed as it grows: the part of following that does not depend on what the lines
//! are, shared by a tournament's journal ([`crate::Follower`]) and a league's.
//!
//! Each look finds the complete lines written since the last (a line still being written, without its
//! newline yet, waits for the next look), and notices a journal that was replaced (another file at the
//! path, or one shorter than what was read): the caller then follows it afresh. What the new lines mean
//! is the caller's: it reads them from the reader [`Tail::new_lines`] gives, with its own incremental scan.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::error::JournalError;

/// How far back from the end of the file a look searches at a time for the last newline.
const TAIL_STEP: u64 = 64 * 1024;

/// A journal file followed as it grows.
#[derive(Debug)]
pub struct Tail {
    path: PathBuf,
    /// The file's device and inode when it was opened: another file at the same path is another journal.
    identity: (u64, u64),
}

/// What a look at a followed journal (or file) found.
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

impl Tail {
    /// Starts following the file at `path` as it is now.
    pub fn open(path: &Path) -> Result<Tail, JournalError> {
        let meta = std::fs::metadata(path).map_err(|source| io_error(path, source))?;
        Ok(Tail {
            path: path.to_owned(),
            identity: identity(&meta),
        })
    }

    /// The file followed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The complete lines written after the first `read` bytes, as a reader of exactly their bytes; or,
    /// when there are none, what the look found ([`Growth::Same`] or [`Growth::Replaced`]).
    pub fn new_lines(&self, read: u64) -> Result<Result<std::io::Take<File>, Growth>, JournalError> {
        let error = |source| io_error(&self.path, source);
        let mut file = File::open(&self.path).map_err(error)?;
        let meta = file.metadata().map_err(error)?;
        if identity(&meta) != self.identity || meta.len() < read {
            return Ok(Err(Growth::Replaced));
        }
        let complete = last_line_end(&mut file, read, meta.len()).map_err(error)?;
        if complete == read {
            return Ok(Err(Growth::Same));
        }
        file.seek(SeekFrom::Start(read)).map_err(error)?;
        Ok(Ok(file.take(complete - read)))
    }
}

fn io_error(path: &Path, source: std::io::Error) -> JournalError {
    JournalError::Io {
        action: "read",
        path: path.to_owned(),
        source,
    }
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
