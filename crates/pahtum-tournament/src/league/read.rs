//! Reading a league's journal: its header, then every line checked, streamed
//! in bounded memory on every core by the tournament journal's line reader
//! ([`crate::journal::lines`]), in file order.
//!
//! A torn last line is dropped and blank lines skipped as in a tournament
//! journal; any other line that does not pass ([`super::lines::parse`] on the
//! reading threads, then [`LeagueState`] in file order) is an error naming its
//! line, so that a line edited by hand is refused, never counted.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use pahtum_record::GameRecord;

use crate::audit::Fault;
use crate::config::ConfigError;
use crate::journal::lines::for_each_line;
use crate::journal::{Ending, JournalError, Moves, Span};

use super::lines::{FORMAT, LeagueHeader, Parsed, parse};
use super::state::{LeagueFault, LeagueState};

/// Why a league's journal cannot be read, or a league not be used.
#[derive(Debug, thiserror::Error)]
pub enum LeagueError {
    /// The journal cannot be read, written or locked (what a tournament journal can fail with).
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// `league.toml` cannot be read or is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A line of the journal does not pass.
    #[error("the league journal {}, line {line}", path.display())]
    Fault {
        /// The journal.
        path: PathBuf,
        /// The line's number, from 1 (the header).
        line: usize,
        /// What is wrong with it.
        #[source]
        source: LeagueFault,
    },
    /// `league.toml` changed since the journal was started.
    #[error(
        "{} changed since the league's journal was started; put back the rules it was started with \
         (they are in the journal's first line), or start a new league",
        path.display()
    )]
    Changed {
        /// The `league.toml`.
        path: PathBuf,
    },
    /// Something else is wrong, said in words (with what to do).
    #[error("{0}")]
    Refused(String),
}

/// Whether the journal at `path` is a league's: its first line names the league format.
pub fn is_league_journal(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    let mut line = Vec::new();
    if BufReader::new(file).take_line(&mut line).is_err() {
        return false;
    }
    #[derive(serde::Deserialize)]
    struct Format {
        journal: String,
    }
    serde_json::from_slice::<Format>(&line).is_ok_and(|format| format.journal == FORMAT)
}

/// A bounded read of a file's first line.
trait TakeLine {
    fn take_line(self, line: &mut Vec<u8>) -> std::io::Result<()>;
}

impl<R: BufRead> TakeLine for R {
    fn take_line(self, line: &mut Vec<u8>) -> std::io::Result<()> {
        // A header is a few kilobytes; a megabyte is no header.
        self.take(1 << 20).read_until(b'\n', line).map(drop)
    }
}

/// What one pass over a league's journal found.
#[derive(Debug)]
pub struct Read {
    /// The league as its lines say.
    pub state: LeagueState,
    /// How its lines ended.
    pub ending: Ending,
}

/// Reads the league journal at `path`, checking every line, and hands each game's record (with its moves
/// as `moves` says, what `keep` made of it on the reading threads, and where it lies) to `each` with the
/// league as the lines before it say.
pub fn read<T: Send>(
    path: &Path,
    moves: Moves,
    keep: impl Fn(&GameRecord) -> T + Sync,
    mut each: impl FnMut(&LeagueState, GameRecord, T, Span),
) -> Result<Read, LeagueError> {
    let io_error = |source| JournalError::Io {
        action: "read",
        path: path.to_owned(),
        source,
    };
    let mut rest = BufReader::new(File::open(path).map_err(io_error)?);
    let mut line = Vec::new();
    (&mut rest).take_line(&mut line).map_err(io_error)?;
    if line.pop() != Some(b'\n') {
        return Err(JournalError::NoHeader { path: path.to_owned() }.into());
    }
    let header: LeagueHeader = serde_json::from_slice(&line).map_err(|source| JournalError::BadHeader {
        path: path.to_owned(),
        source,
    })?;
    if header.journal != FORMAT {
        return Err(JournalError::Format {
            path: path.to_owned(),
            found: header.journal,
        }
        .into());
    }
    let fault = |line, source| LeagueError::Fault {
        path: path.to_owned(),
        line,
        source,
    };
    if header.hash != header.league.hash() {
        return Err(fault(1, LeagueFault::HeaderEdited));
    }
    let mut state = LeagueState::new(&header.league);
    let mut ending = Ending {
        records: 0,
        valid_len: line.len() as u64 + 1,
        torn: false,
        unterminated: false,
    };
    let mut number = 1;
    let read_line = |text: &[u8]| {
        parse(text, moves).map(|parsed| {
            let kept = match &parsed {
                Parsed::Game { record, .. } => Some(keep(record)),
                Parsed::Event(_) => None,
            };
            (parsed, kept)
        })
    };
    for_each_line(
        rest,
        read_line,
        |line| {
            number += 1;
            match line.read {
                None => {}
                Some(Err(Fault::NotARecord(_))) if !line.terminated => {
                    ending.torn = true;
                    return Ok(());
                }
                Some(Err(error)) => return Err(fault(number, error.into())),
                Some(Ok((Parsed::Event(event), _))) => state.apply_event(event).map_err(|error| fault(number, error))?,
                Some(Ok((Parsed::Game { record, hashes }, kept))) => {
                    state.apply_game(&record, &hashes).map_err(|error| fault(number, error))?;
                    ending.records += 1;
                    let span = Span {
                        offset: ending.valid_len,
                        len: line.text.len(),
                    };
                    each(&state, record, kept.expect("a game keeps"), span);
                }
            }
            ending.valid_len += line.text.len() as u64 + u64::from(line.terminated);
            ending.unterminated = !line.terminated;
            Ok(())
        },
        |source| io_error(source).into(),
    )?;
    Ok(Read { state, ending })
}
