//! What can go wrong with a journal, each error naming the file and saying
//! what to do.

use std::io;
use std::path::PathBuf;

use crate::audit::Fault;

use super::header::FORMAT;

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
