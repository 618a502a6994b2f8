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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use pahtum_record::{GameSpec, Players};

    use super::*;

    /// A game of first free cells on a layout of 37 blocks (12 free cells), its id `id`.
    fn game(id: &str, seed: u64) -> GameRecord {
        let time = pahtum_protocol::move_time(Duration::from_secs(1));
        let spec = GameSpec::random(id, 37, seed, false, time).unwrap();
        let players = Players {
            first: "a".into(),
            second: "b".into(),
        };
        spec.play_out(players, |game| game.legal_moves()[0])
    }

    fn settings(seed: u64) -> Settings {
        Settings {
            table_bits: 12,
            exact_from: 12,
            playouts: 50,
            seed,
            budget: None,
        }
    }

    /// What an observer heard, in order.
    #[derive(Default)]
    struct Heard(Vec<String>);

    impl Observer for Heard {
        fn started(&mut self, games: usize) {
            self.0.push(format!("started {games}"));
        }
        fn failed(&mut self, error: &AnalysisError) {
            self.0.push(format!("failed {}", error.game));
        }
        fn advanced(&mut self) {
            self.0.push("advanced".to_owned());
        }
    }

    fn file_lines(path: &Path) -> Vec<GameAnalysis> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    /// Every game gets its line, each told to the observer; run again, it keeps them all; with another
    /// effort, or after a torn write (cut off first), the missing ones are analysed again.
    #[test]
    fn games_are_appended_once_and_a_resume_keeps_them_and_cuts_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("analysis.jsonl");
        let games = [game("one", 1), game("two", 2), game("three", 3)];
        let mut heard = Heard::default();
        let outcome = run(&out, &games, settings(1), 2, &mut heard).unwrap();
        assert_eq!(outcome, Outcome { analysed: 3, kept: 0 });
        assert_eq!(heard.0, ["started 3", "advanced", "advanced", "advanced"]);
        let mut ids: Vec<String> = file_lines(&out).into_iter().map(|line| line.game).collect();
        ids.sort();
        assert_eq!(ids, ["one", "three", "two"]);

        let mut heard = Heard::default();
        let outcome = run(&out, &games, settings(1), 2, &mut heard).unwrap();
        assert_eq!(outcome, Outcome { analysed: 0, kept: 3 });
        assert!(heard.0.is_empty(), "nothing to do, nothing told: {:?}", heard.0);

        // A torn last line: cut off, and only the game whose line is missing analysed again.
        let text = std::fs::read_to_string(&out).unwrap();
        let kept: Vec<&str> = text.lines().filter(|line| !line.contains("\"game\":\"two\"")).collect();
        std::fs::write(&out, format!("{}\n{{\"game\":\"tw", kept.join("\n"))).unwrap();
        let outcome = run(&out, &games, settings(1), 1, &mut Heard::default()).unwrap();
        assert_eq!(outcome, Outcome { analysed: 1, kept: 2 });
        assert_eq!(file_lines(&out).len(), 3, "the torn line is gone");

        // Another effort analyses every game again, beside the old lines.
        let outcome = run(&out, &games[..1], settings(2), 1, &mut Heard::default()).unwrap();
        assert_eq!(outcome, Outcome { analysed: 1, kept: 0 });
        assert_eq!(file_lines(&out).len(), 4);
    }

    /// A game that does not replay is told to the observer and named in the error; the others' lines are
    /// written.
    #[test]
    fn a_game_that_does_not_replay_is_named_and_the_others_written() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("analysis.jsonl");
        let mut broken = game("broken", 4);
        broken.moves.truncate(3);
        broken.moves[2] = broken.moves[0].clone();
        let games = [game("fine", 5), broken];
        let mut heard = Heard::default();
        let error = run(&out, &games, settings(1), 1, &mut heard).unwrap_err();
        assert!(
            matches!(&error, DriverError::Failed { games } if games == &["broken"]),
            "{error:?}"
        );
        assert_eq!(
            error.to_string(),
            "1 game(s) could not be analysed: broken; check the journal with `arena verify`"
        );
        assert!(heard.0.contains(&"failed broken".to_owned()), "{:?}", heard.0);
        assert_eq!(file_lines(&out).len(), 1);
    }
}
