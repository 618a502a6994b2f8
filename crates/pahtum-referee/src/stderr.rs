//! Draining a bot's stderr: continuously, into a log capped per game, with the
//! last lines kept for the game record.
//!
//! A bot whose stderr pipe fills up blocks on its next write, so a task reads
//! the pipe for as long as the bot lives, whatever the referee is doing. The
//! log gets at most the cap per game, then one line saying that the rest was
//! cut, and at the next game (or the end) how many bytes were; the rest is read
//! and dropped, so a bot that floods stderr fills neither the disk nor the
//! referee's memory. The log is a regular file written directly from the task:
//! each write is a few kilobytes into the page cache.

use std::collections::VecDeque;
use std::fs::File;
use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::ChildStderr;
use tokio::task::JoinHandle;

/// How many of the last lines are kept for the record.
const TAIL_LINES: usize = 20;
/// How much of each kept line.
const LINE_BYTES: usize = 200;

/// The drain task of one bot and what it has seen.
#[derive(Debug)]
pub(crate) struct StderrDrain {
    state: Arc<Mutex<State>>,
    task: Option<JoinHandle<()>>,
}

#[derive(Debug)]
struct State {
    log: Option<File>,
    cap: u64,
    game: String,
    logged: u64,
    cut: u64,
    tail: VecDeque<String>,
    partial: Vec<u8>,
}

impl StderrDrain {
    /// Starts draining `stderr` into `log` (if any) with `cap` bytes per game.
    pub(crate) fn start(mut stderr: ChildStderr, log: Option<File>, cap: u64) -> Self {
        let state = Arc::new(Mutex::new(State {
            log,
            cap,
            game: "start-up".to_owned(),
            logged: 0,
            cut: 0,
            tail: VecDeque::with_capacity(TAIL_LINES),
            partial: Vec::new(),
        }));
        let shared = Arc::clone(&state);
        let task = tokio::spawn(async move {
            let mut chunk = vec![0; 64 * 1024];
            while let Ok(n @ 1..) = stderr.read(&mut chunk).await {
                lock(&shared).absorb(&chunk[..n]);
            }
        });
        StderrDrain {
            state,
            task: Some(task),
        }
    }

    /// A new game: the cap starts again and the log gets a header line.
    pub(crate) fn begin_game(&self, game: &str) {
        let mut state = lock(&self.state);
        state.close_game();
        state.game = game.to_owned();
        state.logged = 0;
        state.cut = 0;
        state.tail.clear();
        state.partial.clear();
        state.write(format!("[arena] game {game}\n").as_bytes());
    }

    /// The last lines, the unfinished one included.
    pub(crate) fn tail(&self) -> Vec<String> {
        let state = lock(&self.state);
        let mut lines: Vec<String> = state.tail.iter().cloned().collect();
        if !state.partial.is_empty() {
            lines.push(String::from_utf8_lossy(&state.partial).into_owned());
        }
        lines
    }

    /// Waits up to `wait` for the end of the stream (all writers gone), then
    /// stops draining and notes any cut bytes in the log.
    pub(crate) async fn finish(&mut self, wait: Duration) {
        if let Some(mut task) = self.task.take() {
            if tokio::time::timeout(wait, &mut task).await.is_err() {
                task.abort();
            }
        }
        lock(&self.state).close_game();
    }
}

impl Drop for StderrDrain {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl State {
    fn absorb(&mut self, bytes: &[u8]) {
        let room = self.cap.saturating_sub(self.logged);
        let logged = room.min(bytes.len() as u64);
        if logged > 0 {
            self.write(&bytes[..logged as usize]);
            self.logged += logged;
        }
        if logged < bytes.len() as u64 {
            if self.cut == 0 {
                let note = format!(
                    "\n[arena] stderr cut: the cap of {} bytes for game {} is reached; the rest is dropped\n",
                    self.cap, self.game
                );
                self.write(note.as_bytes());
            }
            self.cut += bytes.len() as u64 - logged;
        }
        self.keep_tail(bytes);
    }

    /// Keeps the last [`TAIL_LINES`] lines, looking only at the newlines that
    /// matter (a flood of short lines costs no allocation per line).
    fn keep_tail(&mut self, bytes: &[u8]) {
        let mut newlines: Vec<usize> = memchr::memrchr_iter(b'\n', bytes).take(TAIL_LINES).collect();
        newlines.reverse();
        let Some(&first) = newlines.first() else {
            self.push_partial(bytes);
            return;
        };
        let mut start = match memchr::memrchr(b'\n', &bytes[..first]) {
            Some(before) => {
                self.partial.clear();
                before + 1
            }
            None => 0,
        };
        for &end in &newlines {
            self.push_partial(&bytes[start..end]);
            let line = String::from_utf8_lossy(&self.partial).into_owned();
            self.partial.clear();
            if self.tail.len() == TAIL_LINES {
                self.tail.pop_front();
            }
            self.tail.push_back(line);
            start = end + 1;
        }
        self.push_partial(&bytes[start..]);
    }

    fn push_partial(&mut self, bytes: &[u8]) {
        let room = LINE_BYTES.saturating_sub(self.partial.len());
        self.partial.extend_from_slice(&bytes[..room.min(bytes.len())]);
    }

    fn close_game(&mut self) {
        if self.cut > 0 {
            let note = format!(
                "[arena] {} bytes of stderr were cut from game {}\n",
                self.cut, self.game
            );
            self.write(note.as_bytes());
            self.cut = 0;
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        if let Some(log) = &mut self.log
            && log.write_all(bytes).is_err()
        {
            self.log = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(cap: u64, log: Option<File>) -> State {
        State {
            log,
            cap,
            game: "g1".into(),
            logged: 0,
            cut: 0,
            tail: VecDeque::new(),
            partial: Vec::new(),
        }
    }

    #[test]
    fn keeps_the_last_lines_across_chunks() {
        let mut state = state(10, None);
        state.absorb(b"one\ntw");
        state.absorb(b"o\nthree");
        assert_eq!(state.tail, ["one", "two"]);
        assert_eq!(state.partial, b"three");
        let flood: Vec<u8> = (0..1000).flat_map(|i| format!("line {i}\n").into_bytes()).collect();
        state.absorb(&flood);
        assert_eq!(state.tail.len(), TAIL_LINES);
        assert_eq!(state.tail.back().unwrap(), "line 999");
        assert_eq!(state.tail.front().unwrap(), "line 980");
        assert!(state.partial.is_empty());
    }

    #[test]
    fn cuts_the_log_at_the_cap_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot.log");
        let mut state = state(10, Some(File::create(&path).unwrap()));
        state.absorb(b"0123456789abcdef\n");
        state.absorb(b"more\n");
        state.close_game();
        let log = std::fs::read_to_string(&path).unwrap();
        assert!(log.starts_with("0123456789\n[arena] stderr cut"), "{log}");
        assert!(
            log.ends_with("[arena] 12 bytes of stderr were cut from game g1\n"),
            "{log}"
        );
    }
}
