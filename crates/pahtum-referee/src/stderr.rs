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
//!
//! A flood must not cost the referee a core either (one flooding bot would
//! slow every other game): once the cap is reached, the pipe is enlarged to
//! [`FLOOD_PIPE`] bytes, and at each wake-up all but the last [`CHUNK`] bytes
//! waiting in it are moved to `/dev/null` by `splice`, which copies nothing;
//! only the last chunk is read, and only its end is looked at, for the tail.
//! Between two such drains the task pauses [`FLOOD_PAUSE`], so that the
//! referee wakes up 200 times a second for a flooding bot, not once per write
//! of the bot; the bot blocks only if it writes more than 200 MB/s. What a
//! flood costs the referee, measured with the test kit's `fixture-game
//! stderr-flood delay=50`, is in docs/performance.md ("A bot that floods its
//! stderr").
//! The tail keeps its lines as raw bytes in reused buffers (text is made only
//! when asked for), so that draining allocates nothing.

use std::collections::VecDeque;
use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::ChildStderr;
use tokio::task::JoinHandle;

/// How many of the last lines are kept for the record.
const TAIL_LINES: usize = 20;
/// How much of each kept line.
const LINE_BYTES: usize = 200;
/// The size of a read.
const CHUNK: usize = 64 * 1024;
/// The pipe's size while a bot writes more than its cap.
const FLOOD_PIPE: usize = 1 << 20;
/// The pause between two drains of a pipe while its bot writes more than its cap.
const FLOOD_PAUSE: Duration = Duration::from_millis(5);

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
    /// The last whole lines, each cut to [`LINE_BYTES`].
    tail: VecDeque<Vec<u8>>,
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
            let mut chunk = vec![0; CHUNK];
            let mut sink = None;
            while let Ok(n @ 1..) = stderr.read(&mut chunk).await {
                if !lock(&shared).absorb(&chunk[..n]) {
                    continue;
                }
                let sink = sink.get_or_insert_with(|| {
                    enlarge_pipe(&stderr);
                    std::fs::OpenOptions::new().write(true).open("/dev/null").ok()
                });
                if let Some(skipped @ 1..) = sink.as_ref().map(|sink| skip_all_but_a_chunk(&stderr, sink)) {
                    lock(&shared).skipped(skipped);
                }
                // Let the pipe fill: one wake-up per pause, not one per write
                // of the bot, which blocks only if it writes more than the
                // pipe holds per pause (over 200 MB/s).
                tokio::time::sleep(FLOOD_PAUSE).await;
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
        lock(&self.state).tail_lines()
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

/// Asks for a pipe of [`FLOOD_PIPE`] bytes (the system's limit for
/// unprivileged users, `/proc/sys/fs/pipe-max-size`, is 1 MiB by default); a
/// refusal leaves the pipe as it is.
fn enlarge_pipe(stderr: &ChildStderr) {
    // SAFETY: fcntl(2) on the open descriptor of the pipe.
    unsafe { libc::fcntl(stderr.as_raw_fd(), libc::F_SETPIPE_SZ, FLOOD_PIPE as libc::c_int) };
}

/// Moves all but the last [`CHUNK`] bytes waiting in the pipe to `sink`
/// (`/dev/null`) without copying them; returns how many. Never blocks: the
/// next read then finds the rest, or waits for more as usual.
fn skip_all_but_a_chunk(stderr: &ChildStderr, sink: &std::fs::File) -> u64 {
    let mut waiting: libc::c_int = 0;
    // SAFETY: FIONREAD writes the number of waiting bytes into the integer.
    if unsafe { libc::ioctl(stderr.as_raw_fd(), libc::FIONREAD, &mut waiting) } != 0 {
        return 0;
    }
    let Some(bulk) = (waiting as usize).checked_sub(CHUNK).filter(|&bulk| bulk > 0) else {
        return 0;
    };
    // SAFETY: splice(2) between two open descriptors, without offsets.
    let moved = unsafe {
        libc::splice(
            stderr.as_raw_fd(),
            std::ptr::null_mut(),
            sink.as_raw_fd(),
            std::ptr::null_mut(),
            bulk,
            libc::SPLICE_F_NONBLOCK,
        )
    };
    u64::try_from(moved).unwrap_or(0)
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl State {
    /// Takes in a chunk of stderr; returns whether the cap of this game is
    /// passed (the bot floods).
    fn absorb(&mut self, bytes: &[u8]) -> bool {
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
        self.cut > 0
    }

    /// Keeps the last [`TAIL_LINES`] lines, looking only at the end of the
    /// chunk that holds them (a flood of short lines costs no allocation per
    /// line).
    fn keep_tail(&mut self, bytes: &[u8]) {
        // Only the last TAIL_LINES lines of the chunk can be kept: start after
        // the newline that ends the one before them.
        let mut start = match memchr::memrchr_iter(b'\n', bytes).nth(TAIL_LINES) {
            Some(before) => {
                self.partial.clear();
                before + 1
            }
            None => 0,
        };
        let first = start;
        for end in memchr::memchr_iter(b'\n', &bytes[first..]).map(|at| first + at) {
            self.push_partial(&bytes[start..end]);
            self.end_line();
            start = end + 1;
        }
        self.push_partial(&bytes[start..]);
    }

    /// `bytes` more were dropped unread: they count as cut, and the line in
    /// progress is broken.
    fn skipped(&mut self, bytes: u64) {
        self.cut += bytes;
        self.partial.clear();
    }

    /// Moves the unfinished line into the tail, reusing the buffer of the
    /// line that falls out.
    fn end_line(&mut self) {
        let mut line = match self.tail.len() {
            TAIL_LINES => self.tail.pop_front().expect("the tail is full"),
            _ => Vec::with_capacity(LINE_BYTES),
        };
        line.clear();
        std::mem::swap(&mut line, &mut self.partial);
        self.tail.push_back(line);
    }

    fn push_partial(&mut self, bytes: &[u8]) {
        let room = LINE_BYTES.saturating_sub(self.partial.len());
        self.partial.extend_from_slice(&bytes[..room.min(bytes.len())]);
    }

    /// The kept lines as text, the unfinished one included.
    fn tail_lines(&self) -> Vec<String> {
        let unfinished = (!self.partial.is_empty()).then_some(&self.partial);
        self.tail
            .iter()
            .chain(unfinished)
            .map(|line| String::from_utf8_lossy(line).into_owned())
            .collect()
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
        assert_eq!(state.tail_lines(), ["one", "two", "three"]);
        let flood: Vec<u8> = (0..1000).flat_map(|i| format!("line {i}\n").into_bytes()).collect();
        state.absorb(&flood);
        let tail = state.tail_lines();
        assert_eq!(tail.len(), TAIL_LINES);
        assert_eq!(tail.last().unwrap(), "line 999");
        assert_eq!(tail.first().unwrap(), "line 980");
        assert!(state.partial.is_empty());
    }

    #[test]
    fn bytes_skipped_in_a_flood_count_as_cut_and_break_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot.log");
        let mut state = state(4, Some(File::create(&path).unwrap()));
        assert!(state.absorb(b"0123456789 the start of a line"));
        state.skipped(1000);
        state.absorb(b"ine\nlast line\n");
        // The line broken by the skip is not glued to its start.
        assert_eq!(state.tail_lines(), ["ine", "last line"]);
        state.close_game();
        let log = std::fs::read_to_string(&path).unwrap();
        // 30 + 14 bytes absorbed, 4 of them logged, and 1000 skipped.
        assert!(
            log.ends_with("[arena] 1040 bytes of stderr were cut from game g1\n"),
            "{log}"
        );
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
