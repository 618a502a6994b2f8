//! A bot for the referee's tests and benchmark: conforming, or misbehaving in
//! exactly one way, chosen by its first argument.
//!
//! `fixture-bot MODE`, where MODE is one of:
//!
//! * `first-free`: conforming and instant; plays the first free cell, and
//!   always swaps.
//! * `echo=N`: answers every line with a line of N bytes, newline included
//!   (the raw pipe ping-pong of the benchmark).
//! * `delay=MS`: conforming, but answers MS milliseconds after it read the
//!   request, and reports its own timing (see [`Delayed`]), so that the
//!   benchmark can tell a late bot from a late referee.
//! * `silent`: never greets.
//! * `hang`: greets and gets ready, never answers a move.
//! * `exit-at-start`: greets, then exits when the game starts.
//! * `crash`: answers two moves, then aborts (SIGABRT).
//! * `segfault`: answers two moves, then dies of SIGSEGV.
//! * `exit-mid-game`: answers two moves, then exits with code 3.
//! * `setsid-helper`: conforming, but when greeted starts a helper that
//!   calls `setsid` (leaving the bot's session and process group) and sleeps.
//! * `orphan-helper`: conforming, but when greeted starts a helper by a double
//!   fork: the middle process starts a sleeper and exits, so the sleeper is
//!   an orphan, no longer the bot's descendant.
//! * `non-json`: answers a move with a line that is not JSON.
//! * `huge-line`: answers a move with 100 MB without a newline.
//! * `stderr-flood`: conforming, while another thread floods stderr.
//! * `no-read`: greets without reading its stdin, then never reads it.
//! * `closed-stdin`: greets, then closes its stdin.
//! * `fork-grandchild`: greets; when the game starts, forks a grandchild
//!   that keeps the pipes open, and exits.
//! * `ignore-term`: conforming, but ignores SIGTERM and `quit`.
//! * `wrong-id`, `stale-id`: answers moves with the next or the previous id.
//! * `occupied`, `blocked`, `off-board`: plays a stone there.
//!
//! `wrong-id`, `stale-id`, `occupied` and `blocked` add `info` and an unknown
//! field to their faulty answers ([`EXTRA`]).
//! * `chatty`: conforming, but prints a line nobody asked for after each move.
//! * `twice-at-the-end`: conforming, but answers the last move twice.
//! * `burner`: conforming, while another thread burns CPU all the time.
//! * `attack=NAME`: tries one attack of [`attacks`] (on the network, the
//!   files, the other processes, the machine's resources) when a game
//!   starts, reports the outcome on stderr, and then plays as `first-free`.
//! * `burn=MS`: conforming, but burns MS milliseconds of its own CPU time
//!   before each answer to a move (a bot that uses its CPU budget).
//! * `child-burn=MS`: conforming, but before each answer to a move runs a
//!   child process (`spin=MS`) that burns MS milliseconds of CPU, and waits
//!   for it (a bot whose child does the thinking).
//! * `slow`: conforming until a move, which it never answers, while
//!   [`SLOW_THREADS`] threads burn CPU all the time (a genuinely slow bot,
//!   with enough threads to get more than half a core on a busy machine).
//! * `spin=MS`: not a bot: burns MS milliseconds of CPU and exits.
//! * `bloat`: conforming, but its `hello` name, version and author are
//!   [`BLOAT_HELLO_BYTES`] each, and every answer to a move carries an `info`
//!   of some 60 KB (see [`bloat_info`]): a bot that would bloat the
//!   organiser's journal.
//! * `hostile-text`, `hostile-hello`: write terminal attacks ([`HOSTILE`])
//!   to stderr, into the `hello` name and version, and as the answer to the
//!   first move (`hostile-text`) or as the greeting itself (`hostile-hello`);
//!   see [`hostile`].
//!
//! The benchmark measures the referee with this bot, so the bot does as
//! little as a bot can: it parses each request (only the fields it needs, into
//! bitboards, without allocating) and answers from the request's blocks and
//! stones, without replaying the moves through the rules; one read and one
//! write per request. Every process (a grandchild too) appends its pid to the
//! file named by `FIXTURE_PID_FILE`, if set, so that tests can check that none
//! is left.

use std::io::{self, BufRead, Write};
use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

use pahtum::{Bitboard, Cell};
use pahtum_protocol::PROTOCOL_VERSION;
use serde::Deserialize;
use serde::de::{Deserializer, SeqAccess, Visitor};

#[path = "fixture-bot/attacks.rs"]
mod attacks;

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "first-free".to_owned());
    record_pid();
    if let Some(bytes) = mode.strip_prefix("echo=") {
        return echo(bytes.parse().expect("echo=N"));
    }
    if let Some(ms) = mode.strip_prefix("spin=") {
        return burn_cpu(ms);
    }
    if mode.starts_with("hostile-") {
        return hostile(&mode);
    }
    match mode.as_str() {
        "silent" => return io::stdin().lock().lines().map_while(Result::ok).for_each(drop),
        "sleeper" => sleep_forever(),
        "setsid-sleeper" => {
            // SAFETY: setsid has no preconditions.
            unsafe { libc::setsid() };
            sleep_forever();
        }
        "orphan-maker" => {
            start_helper("sleeper");
            return;
        }
        "no-read" => {
            Out::new().hello();
            sleep_forever();
        }
        "ignore-term" => {
            // SAFETY: setting a signal to be ignored has no preconditions.
            unsafe { libc::signal(libc::SIGTERM, libc::SIG_IGN) };
        }
        "stderr-flood" => {
            std::thread::spawn(|| {
                let line = "flooding stderr with a line of text that nobody reads\n".repeat(100);
                loop {
                    let _ = io::stderr().write_all(line.as_bytes());
                }
            });
        }
        "burner" => burn_on_threads(1),
        "slow" => burn_on_threads(SLOW_THREADS),
        _ => {}
    }
    let mut delayed = mode
        .strip_prefix("delay=")
        .map(|ms| Delayed::new(Duration::from_millis(ms.parse().expect("delay=MS"))));
    let mut stdin = io::stdin().lock();
    let mut line = String::new();
    let mut out = Out::new();
    let mut moves = 0;
    loop {
        line.clear();
        match stdin.read_line(&mut line) {
            Ok(1..) => {}
            _ => return,
        }
        let read_at = Instant::now();
        let Ok(message) = serde_json::from_str::<Message>(&line) else {
            eprintln!("fixture-bot: cannot decode {line:?}");
            continue;
        };
        match message.kind {
            "hello" if mode == "closed-stdin" => {
                // Closed before the greeting, so that the referee's next write fails.
                // SAFETY: closing our own stdin; nothing uses it afterwards.
                unsafe { libc::close(0) };
                out.hello();
                sleep_forever();
            }
            "hello" if mode == "setsid-helper" => {
                start_helper("setsid-sleeper");
                out.hello();
            }
            "hello" if mode == "orphan-helper" => {
                // The middle process exits at once; its zombie is reaped with the bot.
                start_helper("orphan-maker");
                out.hello();
            }
            "hello" if mode == "bloat" => {
                let text = "n".repeat(BLOAT_HELLO_BYTES);
                out.send(format_args!(
                    "{{\"type\":\"hello\",\"protocol\":{PROTOCOL_VERSION},\"name\":\"{text}\",\"version\":\"{text}\",\"author\":\"{text}\"}}\n"
                ));
            }
            "hello" => out.hello(),
            "new_game" => match mode.as_str() {
                "exit-at-start" => std::process::exit(3),
                "fork-grandchild" => {
                    let me = std::env::current_exe().expect("the fixture knows its path");
                    let grandchild = std::process::Command::new(me)
                        .arg("sleeper")
                        .spawn()
                        .expect("the fixture can fork");
                    record_pid_of(grandchild.id());
                    std::process::exit(0);
                }
                attack if attack.starts_with("attack=") => {
                    attacks::run(&attack["attack=".len()..]);
                    out.send(format_args!("{{\"type\":\"ready\",\"id\":{}}}\n", message.id));
                    attacks::sigcont_answered();
                }
                _ => out.send(format_args!("{{\"type\":\"ready\",\"id\":{}}}\n", message.id)),
            },
            "ping" => out.send(format_args!("{{\"type\":\"pong\",\"id\":{}}}\n", message.id)),
            "place_block" | "play_stone" | "pie_decision" => {
                moves += 1;
                match &mut delayed {
                    Some(delayed) => delayed.answer(&message, read_at, &mut out),
                    None if mode == "attack=sigcont" => {
                        let report = attacks::sigcont_report();
                        out.answer(message.kind, message.id, message.first_free(), &report);
                        attacks::sigcont_answered();
                    }
                    None => misbehave_or_answer(&mode, &message, moves, &mut out),
                }
            }
            "quit" if mode == "ignore-term" => sleep_forever(),
            "quit" => return,
            _ => {}
        }
        if let Some(delayed) = &mut delayed {
            delayed.done_with_message();
        }
    }
}

/// The `delay=MS` bot: answers MS after it read each request, and reports on
/// stderr and in the answer's `info.comment`:
///
/// * `bot-us`: its own time, from its read of the request to its write of
///   the answer;
/// * `queued-us`: how long it waited for a CPU during that time (run queue
///   wait, from the kernel's scheduler statistics of its thread);
/// * `delivery-queued-us`: how long it waited for a CPU between its previous
///   write and its read of this request, which the referee's clock includes.
///
/// The part about the delivery also goes to stderr as soon as the request is
/// read, so that it is known even when the referee gives up on the answer.
struct Delayed {
    delay: Duration,
    schedstat: Option<std::fs::File>,
    /// The run queue wait when the bot last finished with a message.
    wait_mark: Duration,
}

impl Delayed {
    fn new(delay: Duration) -> Delayed {
        let mut delayed = Delayed {
            delay,
            schedstat: std::fs::File::open("/proc/thread-self/schedstat").ok(),
            wait_mark: Duration::ZERO,
        };
        delayed.done_with_message();
        delayed
    }

    /// The time this thread has spent runnable but waiting for a CPU (the
    /// second field of its `schedstat`), or zero where unknown.
    fn run_queue_wait(&self) -> Duration {
        let mut text = [0u8; 128];
        let Some(Ok(n)) = self.schedstat.as_ref().map(|file| file.read_at(&mut text, 0)) else {
            return Duration::ZERO;
        };
        let nanos = std::str::from_utf8(&text[..n])
            .ok()
            .and_then(|text| text.split_whitespace().nth(1)?.parse().ok());
        Duration::from_nanos(nanos.unwrap_or(0))
    }

    /// Marks the end of a message's handling: the wait for the next request
    /// starts here.
    fn done_with_message(&mut self) {
        self.wait_mark = self.run_queue_wait();
    }

    fn answer(&mut self, request: &Message, read_at: Instant, out: &mut Out) {
        let queued_at_read = self.run_queue_wait();
        let delivery = (queued_at_read - self.wait_mark).as_micros();
        eprintln!("read id={} delivery-queued-us={delivery}", request.id);
        std::thread::sleep(self.delay.saturating_sub(read_at.elapsed()));
        let took = read_at.elapsed().as_micros();
        let queued = (self.run_queue_wait() - queued_at_read).as_micros();
        let report = format!("bot-us={took} queued-us={queued} delivery-queued-us={delivery}");
        eprintln!("{report} id={}", request.id);
        let extra = format!(",\"info\":{{\"comment\":\"{report}\"}}");
        out.answer(request.kind, request.id, request.first_free(), &extra);
    }
}

/// The fields of a message from the referee that the fixture reads; the rest
/// are skipped.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(default)]
    id: u64,
    #[serde(default)]
    blocks: Cells,
    #[serde(default)]
    white: Cells,
    #[serde(default)]
    black: Cells,
}

impl Message<'_> {
    /// How many cells are free.
    fn free_cells(&self) -> u32 {
        (!(self.blocks.0 | self.white.0 | self.black.0)).cells().count() as u32
    }

    /// The first free cell of the board, `a1` first.
    fn first_free(&self) -> Cell {
        let taken = self.blocks.0 | self.white.0 | self.black.0;
        (!taken).cells().next().expect("a request has a free cell")
    }
}

/// A JSON list of cells, read into a bitboard.
#[derive(Default)]
struct Cells(Bitboard);

impl<'de> Deserialize<'de> for Cells {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CellsVisitor;
        impl<'de> Visitor<'de> for CellsVisitor {
            type Value = Cells;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of cells")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Cells, A::Error> {
                let mut cells = Bitboard::EMPTY;
                while let Some(text) = seq.next_element::<&'de str>()? {
                    cells = cells.with(text.parse().map_err(serde::de::Error::custom)?);
                }
                Ok(Cells(cells))
            }
        }
        deserializer.deserialize_seq(CellsVisitor)
    }
}

/// The fields after the cell of the answers whose verdict keeps the line:
/// the record must hold them as the bot wrote them.
const EXTRA: &str = r#","info":{"comment":"mine"},"extra":[1]"#;

/// The size of each text of the `bloat` bot's `hello`: the three fit in one line.
const BLOAT_HELLO_BYTES: usize = 20_000;

/// The `bloat` bot's `info`, as a field to add to an answer: a comment of
/// 58 000 bytes and a principal variation of 600 moves led by one of 500
/// bytes, some 62 KB in all (under the line limit of 64 KiB).
fn bloat_info() -> String {
    let pv = std::iter::once("y".repeat(500))
        .chain(std::iter::repeat_n("d4".to_owned(), 599))
        .collect::<Vec<_>>()
        .join("\",\"");
    format!(r#","info":{{"comment":"{}","pv":["{pv}"]}}"#, "x".repeat(58_000))
}

fn misbehave_or_answer(mode: &str, request: &Message, moves: u32, out: &mut Out) {
    if let Some(ms) = mode.strip_prefix("burn=") {
        burn_cpu(ms);
    }
    if let Some(ms) = mode.strip_prefix("child-burn=") {
        let me = std::env::current_exe().expect("the fixture knows its path");
        let status = std::process::Command::new(me)
            .arg(format!("spin={ms}"))
            .status()
            .expect("the fixture can fork");
        assert!(status.success(), "the spinning child failed: {status}");
    }
    match mode {
        "hang" | "slow" => sleep_forever(),
        "crash" if moves > 2 => std::process::abort(),
        "segfault" if moves > 2 => {
            // SAFETY: restoring the default action (Rust's handler would
            // return from a raised signal), then raising it.
            unsafe {
                libc::signal(libc::SIGSEGV, libc::SIG_DFL);
                libc::raise(libc::SIGSEGV);
            }
        }
        "exit-mid-game" if moves > 2 => std::process::exit(3),
        "non-json" => return out.raw(b"e4 please\n"),
        "huge-line" => {
            let chunk = vec![b'x'; 1 << 16];
            for _ in 0..(100 << 20) / chunk.len() {
                out.raw(&chunk);
            }
            return;
        }
        "off-board" => {
            return out.send(format_args!(
                "{{\"type\":\"stone\",\"id\":{},\"cell\":\"h9\"}}\n",
                request.id
            ));
        }
        "wrong-id" => return out.answer(request.kind, request.id + 1, request.first_free(), EXTRA),
        "stale-id" => return out.answer(request.kind, request.id - 1, request.first_free(), EXTRA),
        "occupied" => {
            if let Some(cell) = (request.white.0 | request.black.0).cells().next() {
                return out.answer(request.kind, request.id, cell, EXTRA);
            }
        }
        "blocked" => {
            if let Some(cell) = request.blocks.0.cells().next() {
                return out.answer(request.kind, request.id, cell, EXTRA);
            }
        }
        "bloat" => return out.answer(request.kind, request.id, request.first_free(), &bloat_info()),
        "twice-at-the-end" if request.free_cells() == 1 => {
            // Both in one write, so that the referee surely has the second
            // when it looks, right after the last move.
            let answer = format!(
                "{{\"type\":\"stone\",\"id\":{},\"cell\":\"{}\"}}\n",
                request.id,
                request.first_free()
            );
            return out.raw(answer.repeat(2).as_bytes());
        }
        _ => {}
    }
    out.answer(request.kind, request.id, request.first_free(), "");
    if mode == "chatty" {
        out.raw(b"thinking about the next move...\n");
    }
}

/// Stdout, written one whole line per call, from a reused buffer.
struct Out {
    stdout: io::StdoutLock<'static>,
    line: Vec<u8>,
}

impl Out {
    fn new() -> Out {
        Out {
            stdout: io::stdout().lock(),
            line: Vec::with_capacity(256),
        }
    }

    fn hello(&mut self) {
        self.send(format_args!(
            "{{\"type\":\"hello\",\"protocol\":{PROTOCOL_VERSION},\"name\":\"fixture-bot\"}}\n"
        ));
    }

    /// The answer to a request of type `kind`: a block or a stone on `cell`,
    /// or a swap; `extra` (more fields, each after a comma) goes at the end.
    fn answer(&mut self, kind: &str, id: u64, cell: Cell, extra: &str) {
        match kind {
            "place_block" => self.send(format_args!(
                "{{\"type\":\"block\",\"id\":{id},\"cell\":\"{cell}\"{extra}}}\n"
            )),
            "pie_decision" => self.send(format_args!("{{\"type\":\"pie\",\"id\":{id},\"swap\":true{extra}}}\n")),
            _ => self.send(format_args!(
                "{{\"type\":\"stone\",\"id\":{id},\"cell\":\"{cell}\"{extra}}}\n"
            )),
        }
    }

    fn send(&mut self, line: std::fmt::Arguments) {
        self.line.clear();
        self.line.write_fmt(line).expect("formatting into a Vec cannot fail");
        write_now(&mut self.stdout, &self.line);
    }

    fn raw(&mut self, bytes: &[u8]) {
        write_now(&mut self.stdout, bytes);
    }
}

/// Writes `bytes` and flushes; a chunk that ends in a newline is one write
/// (stdout is line-buffered). A bot whose referee is gone exits.
fn write_now(stdout: &mut io::StdoutLock, bytes: &[u8]) {
    if stdout.write_all(bytes).and_then(|()| stdout.flush()).is_err() {
        std::process::exit(1);
    }
}

fn echo(answer_bytes: usize) {
    let mut stdin = io::stdin().lock();
    let mut out = Out::new();
    let mut line = String::new();
    let answer = format!("{}\n", "x".repeat(answer_bytes.saturating_sub(1)));
    while stdin.read_line(&mut line).is_ok_and(|n| n > 0) {
        out.raw(answer.as_bytes());
        line.clear();
    }
}

/// The burning threads of `slow`.
const SLOW_THREADS: usize = 8;

/// Starts `count` threads that burn CPU until the process ends.
fn burn_on_threads(count: usize) {
    for _ in 0..count {
        std::thread::spawn(|| {
            let mut x = 0u64;
            loop {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        });
    }
}

/// Burns `ms` (a number of milliseconds) of this process's CPU time.
fn burn_cpu(ms: &str) {
    let amount = Duration::from_millis(ms.parse().expect("MS, a number of milliseconds"));
    let cpu_time = || {
        let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: the call writes the time into the struct it is given.
        unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut time) };
        Duration::new(time.tv_sec as u64, time.tv_nsec as u32)
    };
    let end = cpu_time() + amount;
    let mut x = 1u64;
    while cpu_time() < end {
        for _ in 0..1000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }
}

/// Starts this fixture in `mode` as a helper, with its stdio on /dev/null
/// (as a daemon has it), so that only containment can find it. It is not
/// waited for: it is meant to outlive its parent.
#[expect(clippy::zombie_processes, reason = "a helper is left running on purpose")]
fn start_helper(mode: &str) {
    let me = std::env::current_exe().expect("the fixture knows its path");
    std::process::Command::new(me)
        .arg(mode)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the fixture can fork");
}

fn record_pid() {
    record_pid_of(std::process::id());
}

fn record_pid_of(pid: u32) {
    if let Some(path) = std::env::var_os("FIXTURE_PID_FILE") {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("the pid file can be opened");
        writeln!(file, "{pid}").expect("the pid file can be written");
    }
}

fn sleep_forever() -> ! {
    loop {
        std::thread::park();
    }
}

/// Text that attacks a terminal printing it raw: it clears the screen, sets
/// the window title, plants an OSC 8 link, returns the carriage to overwrite
/// the line, reverses text with a bidi override, and uses a C1 control.
const HOSTILE: &str =
    "\x1b[2J\x1b]0;pwned\x07\x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\\rgone\u{202e}desrever\u{9b}31m";

/// The `hostile-*` bots: [`HOSTILE`] on stderr, in the greeting (as the
/// name and version, or as the whole line) and as the answer to a move.
fn hostile(mode: &str) {
    eprintln!("{HOSTILE}");
    let mut out = Out::new();
    for line in io::stdin().lock().lines().map_while(Result::ok) {
        let Ok(message) = serde_json::from_str::<Message>(&line) else {
            continue;
        };
        match message.kind {
            "hello" if mode == "hostile-hello" => out.send(format_args!("{HOSTILE}\n")),
            "hello" => {
                let text = serde_json::to_string(HOSTILE).expect("a string serializes");
                out.send(format_args!(
                    "{{\"type\":\"hello\",\"protocol\":{PROTOCOL_VERSION},\"name\":{text},\"version\":{text}}}\n"
                ));
            }
            "new_game" => out.send(format_args!("{{\"type\":\"ready\",\"id\":{}}}\n", message.id)),
            "ping" => out.send(format_args!("{{\"type\":\"pong\",\"id\":{}}}\n", message.id)),
            "place_block" | "play_stone" | "pie_decision" => {
                eprintln!("{HOSTILE}");
                out.send(format_args!("{HOSTILE}\n"));
            }
            "quit" => return,
            _ => {}
        }
    }
}
