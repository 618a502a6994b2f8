//! The analysis of many games into `analysis.jsonl`: what `arena analyze`
//! runs once it knows the games and the file.
//!
//! It lives in the library so that the command line only chooses the games
//! and prints the outcome: the resume, the pool of threads and the file's
//! writes are the same for every caller, and testable without the command.
//!
//! [`run`] resumes like a tournament: a line whose game, record hash and
//! effort ([`Settings::effort`]) match a given game is kept and the game
//! skipped; a line whose hash no longer matches its record, or made with
//! another effort, is ignored and the game analysed again (a reader takes a
//! game's last line). A torn last line (an interrupted write) is cut off
//! first. Games are analysed `concurrency` at once on threads, each with its
//! own solver table, and each game's line is appended as soon as it is done,
//! so memory grows with the table, not with the games. An [`Observer`] hears
//! of each game done and of each that could not be analysed.

use std::collections::HashSet;
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use pahtum_record::GameRecord;
use pahtum_record::annotations::{Effort, GameAnalysis, record_hash};

use crate::analyze::{AnalysisError, Analyzer, Settings};

/// Why the games could not all be analysed into the file.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// The file could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file's torn last line could not be cut off.
    #[error("cannot cut the torn last line of {}", path.display())]
    Cut {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file could not be opened or written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Some games do not replay (each was told to the [`Observer`]); the others' lines are written.
    #[error(
        "{} game(s) could not be analysed: {}; check the journal with `arena verify`",
        games.len(),
        games.join(", ")
    )]
    Failed {
        /// Their ids.
        games: Vec<String>,
    },
}

/// What [`run`] tells as it goes.
pub trait Observer {
    /// The analysis of `games` games starts (not called when every game was already analysed).
    fn started(&mut self, games: usize);
    /// A game could not be analysed.
    fn failed(&mut self, error: &AnalysisError);
    /// One more game is done, analysed or not.
    fn advanced(&mut self);
}

/// How many games [`run`] analysed, and how many it found already analysed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Games analysed now, their lines appended.
    pub analysed: usize,
    /// Games whose line the file already held.
    pub kept: usize,
}

/// Analyses `games` with `settings` into `out`, `concurrency` at once, telling `observer`; the games whose
/// line `out` already holds with this effort and record are skipped (see the module docs).
pub fn run<'a>(
    out: &Path,
    games: impl IntoIterator<Item = &'a GameRecord>,
    settings: Settings,
    concurrency: usize,
    observer: &mut dyn Observer,
) -> Result<Outcome, DriverError> {
    let done = analysed(out, settings.effort())?;
    let mut kept = 0;
    let mut work = Vec::new();
    for record in games {
        if done.contains(&(record.id.clone(), record_hash(record))) {
            kept += 1;
        } else {
            work.push(record);
        }
    }
    let analysed = analyse_into(out, &work, settings, concurrency, observer)?;
    Ok(Outcome { analysed, kept })
}

/// The games and record hashes that `out` already holds with `effort`, after cutting off a torn last line.
fn analysed(out: &Path, effort: Effort) -> Result<HashSet<(String, String)>, DriverError> {
    let mut done = HashSet::new();
    let Ok(file) = std::fs::File::open(out) else {
        return Ok(done);
    };
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let mut whole = 0u64;
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .map_err(|source| DriverError::Read {
                path: out.to_owned(),
                source,
            })?;
        if read == 0 || line.last() != Some(&b'\n') {
            break;
        }
        whole += read as u64;
        if let Ok(analysis) = serde_json::from_slice::<GameAnalysis>(&line)
            && analysis.effort == effort
        {
            done.insert((analysis.game, analysis.record));
        }
    }
    if !line.is_empty() {
        OpenOptions::new()
            .write(true)
            .open(out)
            .and_then(|file| file.set_len(whole))
            .map_err(|source| DriverError::Cut {
                path: out.to_owned(),
                source,
            })?;
    }
    Ok(done)
}

/// Analyses `work` on `concurrency` threads and appends each game's line to `out` as it is done; the
/// number of games analysed.
fn analyse_into(
    out: &Path,
    work: &[&GameRecord],
    settings: Settings,
    concurrency: usize,
    observer: &mut dyn Observer,
) -> Result<usize, DriverError> {
    if work.is_empty() {
        return Ok(0);
    }
    let write_error = |source| DriverError::Write {
        path: out.to_owned(),
        source,
    };
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .map_err(write_error)?;
    observer.started(work.len());
    let next = AtomicUsize::new(0);
    let (sender, results) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..concurrency.clamp(1, work.len()) {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || {
                let mut analyzer = Analyzer::new(settings);
                while let Some(record) = work.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if sender.send(analyzer.analyze(record)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut failed = Vec::new();
        let mut written = 0;
        for result in results {
            match result {
                Ok(analysis) => {
                    let mut line = serde_json::to_string(&analysis).expect("an analysis serializes to JSON");
                    line.push('\n');
                    file.write_all(line.as_bytes()).map_err(write_error)?;
                    written += 1;
                }
                Err(error) => {
                    observer.failed(&error);
                    failed.push(error.game);
                }
            }
            observer.advanced();
        }
        if !failed.is_empty() {
            return Err(DriverError::Failed { games: failed });
        }
        Ok(written)
    })
}
