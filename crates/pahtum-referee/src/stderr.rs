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
//!
//! The log marks each game and the ply during which each line was read
//! ([`crate::stderr_log`] holds the format): the referee tells the drain the
//! ply it asks for with one atomic store ([`StderrDrain::at`]), and the
//! drain writes a marker before the next line the bot writes after that. What
//! one read brings is written to the log at once, markers included.

use std::collections::VecDeque;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use std::os::fd::OwnedFd;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::process::ChildStderr;
use tokio::task::JoinHandle;

use crate::stderr_log::{LogFiles, MARK, When, game_header};

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
/// The size of a catch-up's read.
const CATCH_UP_BYTES: usize = 4096;
/// The most reads of a catch-up: a bot that writes more between two answers
/// has the rest read by the drain.
const CATCH_UP_READS: usize = 16;

/// The drain task of one bot and what it has seen.
#[derive(Debug)]
pub(crate) struct StderrDrain {
    state: Arc<Mutex<State>>,
    /// When in the game the bot is ([`When::code`]), as the referee last said.
    when: Arc<AtomicU32>,
    /// The pipe, where a log is kept (for [`StderrDrain::catch_up`]).
    pipe: Option<Arc<AsyncFd<OwnedFd>>>,
    task: Option<JoinHandle<()>>,
}

/// What one read of the pipe found.
enum Read {
    /// Bytes, now absorbed; `flooded`: past the cap of the game.
    Some { flooded: bool },
    /// Nothing waiting.
    Nothing,
    /// The end of the stream (every writer gone), or a broken pipe.
    End,
}

#[derive(Debug)]
struct State {
    log: Option<LogFiles>,
    cap: u64,
    game: String,
    logged: u64,
    cut: u64,
    /// The last whole lines, each cut to [`LINE_BYTES`].
    tail: VecDeque<Vec<u8>>,
    partial: Vec<u8>,
    /// Shared with [`StderrDrain::when`].
    when: Arc<AtomicU32>,
    /// The code of the last marker written in this game.
    marked: u32,
    /// Whether the log's next byte begins a line.
    line_start: bool,
    /// What goes to the log at the end of this read, reused.
    staged: Vec<u8>,
    /// The buffer of [`StderrDrain::catch_up`]'s reads, reused.
    catch_up_buffer: Vec<u8>,
}

impl StderrDrain {
    /// Starts draining `stderr` into `log` (if any) with `cap` bytes per game.
    pub(crate) fn start(stderr: ChildStderr, log: Option<LogFiles>, cap: u64) -> std::io::Result<Self> {
        let logged = log.is_some();
        let when = Arc::new(AtomicU32::new(When::Start.code()));
        let state = Arc::new(Mutex::new(State::new(log, cap, Arc::clone(&when))));
        let pipe = stderr.into_owned_fd()?;
        rustix::io::ioctl_fionbio(&pipe, true)?;
        // SAFETY: the descriptor is owned by the `AsyncFd`, so it stays open and the same pipe for as
        // long as it is registered.
        let pipe = Arc::new(unsafe { AsyncFd::register_with_interest(pipe, Interest::READABLE) }?);
        let (shared, read_end) = (Arc::clone(&state), Arc::clone(&pipe));
        let task = tokio::spawn(async move {
            let mut chunk = vec![0; CHUNK];
            let mut sink = None;
            loop {
                let Ok(mut ready) = read_end.readable().await else {
                    break;
                };
                let flooded = match lock(&shared).read_from(read_end.get_ref(), &mut chunk) {
                    Read::End => break,
                    Read::Nothing => {
                        ready.clear_ready();
                        continue;
                    }
                    Read::Some { flooded } => flooded,
                };
                if !flooded {
                    continue;
                }
                let sink = sink.get_or_insert_with(|| {
                    enlarge_pipe(read_end.get_ref());
                    std::fs::OpenOptions::new().write(true).open("/dev/null").ok()
                });
                if let Some(skipped @ 1..) = sink.as_ref().map(|sink| skip_all_but_a_chunk(read_end.get_ref(), sink)) {
                    lock(&shared).skipped(skipped);
                }
                // Let the pipe fill: one wake-up per pause, not one per write
                // of the bot, which blocks only if it writes more than the
                // pipe holds per pause (over 200 MB/s).
                tokio::time::sleep(FLOOD_PAUSE).await;
            }
        });
        Ok(StderrDrain {
            state,
            when,
            pipe: logged.then_some(pipe),
            task: Some(task),
        })
    }

    /// Logs at once what the bot wrote and the drain has not read yet, as
    /// written at the point of the game the bot is at: after an answer, what
    /// the bot wrote before it. A bot that floods is left to the drain.
    pub(crate) fn catch_up(&self) {
        let Some(pipe) = &self.pipe else {
            return;
        };
        let mut state = lock(&self.state);
        // A buffer made once per bot, not zeroed at each answer (that cost 4,600 instructions a move).
        let mut chunk = std::mem::take(&mut state.catch_up_buffer);
        chunk.resize(CATCH_UP_BYTES, 0);
        for _ in 0..CATCH_UP_READS {
            if !matches!(
                state.read_from(pipe.get_ref(), &mut chunk),
                Read::Some { flooded: false }
            ) {
                break;
            }
        }
        state.catch_up_buffer = chunk;
    }

    /// The bot is now at `when` of its game: the lines read from now on are marked so.
    pub(crate) fn at(&self, when: When) {
        self.when.store(when.code(), Ordering::Relaxed);
    }

    /// A new game: the cap starts again and the log gets a header line.
    pub(crate) fn begin_game(&self, game: &str) {
        // What the last game's `game_over` made the bot write, where it has been written by now: the
        // protocol has no answer to `game_over`, so a line written later is read with this game's start.
        self.catch_up();
        let mut state = lock(&self.state);
        state.close_game();
        state.game = game.to_owned();
        state.logged = 0;
        state.cut = 0;
        state.tail.clear();
        state.partial.clear();
        self.at(When::Start);
        state.marked = When::Start.code();
        state.flush();
        state.index(game);
        state.note(&game_header(game));
        state.flush();
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
fn enlarge_pipe(stderr: &OwnedFd) {
    // SAFETY: fcntl(2) on the open descriptor of the pipe.
    unsafe { libc::fcntl(stderr.as_raw_fd(), libc::F_SETPIPE_SZ, FLOOD_PIPE as libc::c_int) };
}

/// Moves all but the last [`CHUNK`] bytes waiting in the pipe to `sink`
/// (`/dev/null`) without copying them; returns how many. Never blocks: the
/// next read then finds the rest, or waits for more as usual.
fn skip_all_but_a_chunk(stderr: &OwnedFd, sink: &std::fs::File) -> u64 {
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
    fn new(log: Option<LogFiles>, cap: u64, when: Arc<AtomicU32>) -> State {
        State {
            log,
            cap,
            game: "start-up".to_owned(),
            logged: 0,
            cut: 0,
            tail: VecDeque::with_capacity(TAIL_LINES),
            partial: Vec::new(),
            marked: when.load(Ordering::Relaxed),
            when,
            line_start: true,
            staged: Vec::new(),
            catch_up_buffer: Vec::new(),
        }
    }

    /// Reads once from `pipe` into `chunk`, and takes in what came.
    fn read_from(&mut self, pipe: &OwnedFd, chunk: &mut [u8]) -> Read {
        match rustix::io::read(pipe, &mut *chunk) {
            Ok(0) => Read::End,
            Ok(n) => Read::Some {
                flooded: self.absorb(&chunk[..n]),
            },
            Err(rustix::io::Errno::AGAIN | rustix::io::Errno::INTR) => Read::Nothing,
            Err(_) => Read::End,
        }
    }

    /// Takes in a chunk of stderr; returns whether the cap of this game is
    /// passed (the bot floods).
    fn absorb(&mut self, bytes: &[u8]) -> bool {
        let room = self.cap.saturating_sub(self.logged);
        let logged = room.min(bytes.len() as u64);
        if logged > 0 {
            self.stage_bots(&bytes[..logged as usize]);
            self.logged += logged;
        }
        if logged < bytes.len() as u64 {
            if self.cut == 0 {
                let note = format!(
                    "[arena] stderr cut: the cap of {} bytes for game {} is reached; the rest is dropped\n",
                    self.cap, self.game
                );
                self.note(&note);
            }
            self.cut += bytes.len() as u64 - logged;
        }
        self.flush();
        self.keep_tail(bytes);
        self.cut > 0
    }

    /// Stages the bot's `bytes` for the log: a marker before the first line
    /// read at a new point of the game, and a space before a line that could
    /// pass for the referee's.
    fn stage_bots(&mut self, mut bytes: &[u8]) {
        if self.log.is_none() {
            return;
        }
        while !bytes.is_empty() {
            if self.line_start {
                let now = self.when.load(Ordering::Relaxed);
                if now != self.marked {
                    self.marked = now;
                    self.staged.extend_from_slice(When::of_code(now).marker().as_bytes());
                }
                let start = bytes.len().min(MARK.len());
                if bytes[..start] == MARK[..start] {
                    self.staged.push(b' ');
                }
            }
            let end = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |at| at + 1);
            self.staged.extend_from_slice(&bytes[..end]);
            self.line_start = bytes[end - 1] == b'\n';
            bytes = &bytes[end..];
        }
    }

    /// Stages a line of the referee's (`line` ends with a newline), on a line of its own.
    fn note(&mut self, line: &str) {
        if self.log.is_none() {
            return;
        }
        if !self.line_start {
            self.staged.push(b'\n');
        }
        self.staged.extend_from_slice(line.as_bytes());
        self.line_start = true;
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
            self.note(&note);
            self.cut = 0;
        }
        self.flush();
    }

    /// Writes what is staged to the log; a log that cannot be written is given up.
    fn flush(&mut self) {
        if let Some(log) = &mut self.log
            && !self.staged.is_empty()
            && log.log.write_all(&self.staged).is_err()
        {
            self.log = None;
        }
        self.staged.clear();
    }

    /// Notes in the log's index that game `game`'s part begins where the log ends now (all flushed).
    fn index(&mut self, game: &str) {
        if let Some(log) = &mut self.log
            && log.index_game(game).is_err()
        {
            self.log = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(cap: u64, log: Option<LogFiles>) -> State {
        let mut state = State::new(log, cap, Arc::new(AtomicU32::new(When::Start.code())));
        state.game = "g1".into();
        state
    }

    #[test]
    fn marks_the_plies_and_defuses_lines_that_pass_for_the_referees() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot.log");
        let mut state = state(1000, Some(LogFiles::open(&path).unwrap()));
        state.note(&game_header("g1"));
        state.absorb(b"ready\n");
        state.when.store(When::Ply(0).code(), Ordering::Relaxed);
        // Nothing read at ply 0; ply 1 comes in the middle of a line, whose end stays with ply 0's
        // part (the marker waits for the line's end).
        state.when.store(When::Ply(1).code(), Ordering::Relaxed);
        state.absorb(b"half");
        state.when.store(When::Ply(2).code(), Ordering::Relaxed);
        state.absorb(b" a line\n[arena] game g2\n[are");
        state.absorb(b"na] ply 7\n");
        state.when.store(When::End.code(), Ordering::Relaxed);
        state.absorb(b"bye\n");
        state.close_game();
        let log = std::fs::read(&path).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&log),
            "[arena] game g1\nready\n[arena] ply 1\nhalf a line\n[arena] ply 2\n [arena] game g2\n [arena] ply 7\n\
             [arena] game over\nbye\n"
        );
        let lines = crate::stderr_log::game_lines(&log, "g1").unwrap();
        let seen: Vec<_> = lines.iter().map(|line| (line.when, line.text.as_str())).collect();
        assert_eq!(
            seen,
            [
                (When::Start, "ready"),
                (When::Ply(1), "half a line"),
                (When::Ply(2), " [arena] game g2"),
                (When::Ply(2), " [arena] ply 7"),
                (When::End, "bye"),
            ]
        );
        assert!(crate::stderr_log::game_lines(&log, "g2").is_none());
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
        let mut state = state(4, Some(LogFiles::open(&path).unwrap()));
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
        let mut state = state(10, Some(LogFiles::open(&path).unwrap()));
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
