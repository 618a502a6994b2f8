//! The referee's per-move cost and timing accuracy, beside the floor.
//!
//! `cargo bench -p pahtum-referee --bench referee` prints, all measured in
//! one run:
//!
//! 1. the floor: a raw pipe ping-pong between this process and an echoing
//!    child (blocking reads and writes), with a 100-byte line both ways (the
//!    definition in `measuring.md`) and with the protocol's sizes (a mid-game
//!    request out, an answer back), and this process's CPU time per round
//!    trip (the floor for the referee's CPU per move in the same placement);
//! 2. games between two instant fixture bots, on a current-thread runtime, on
//!    a two-worker multi-thread runtime with the games in a spawned task (as
//!    in a tournament), and on that runtime inside `block_on`: the median and
//!    99th percentile round trip per move (from the start of the request's
//!    write to the read of the answer's newline, the time the referee
//!    charges), the wall time per move, and the referee's own CPU time
//!    and heap allocations per move (`getrusage` and a counting allocator of
//!    this process, which is only the referee: bots are children);
//! 3. timing accuracy (module `timing`): 2,000 answers at 90% and 2,000 at
//!    110% of a 50 ms limit with margin 0, where the target is that the first
//!    are never flagged and the second always are. For every answer, the
//!    bot's own measurements (its time from its read of the request to its
//!    write of the answer, and how long it waited for a CPU before and during
//!    it) are set beside the referee's, so that a bot that slept late can be
//!    told from a referee that read late; a run under
//!    `perf sched record -k CLOCK_MONOTONIC` shows what the scheduler did
//!    when a flagged game ended (the time is printed).
//!
//! Sizes come from the environment: `BENCH_GAMES` (default 1000),
//! `BENCH_PINGS` (20000), `BENCH_TIMING_MOVES` (2000; 0 skips part 3),
//! `BENCH_TIMING_LANES` (games played at once in part 3, default 4),
//! `BENCH_TIMING_MARGIN_MS` (the referee's margin in part 3, default 0);
//! `BENCH_CLOCK=cpu` plays part 2 on CPU-time clocks (the referee's cost of
//! CPU accounting is the difference from a run without it).
//! The run prints its CPU placement and the load average: pin it to one core
//! (`taskset -c 0`) to compare like with like, since a pipe round trip across
//! cores costs ten times more than on one core.

use std::alloc::{GlobalAlloc, Layout, System};
use std::future::Future;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use pahtum::{Cell, Game};
use pahtum_protocol::{Clock, ClockKind, FromBot, Placement, Reason, Rules, TimeControl, ToBot, encode, move_time};
use pahtum_record::GameSpec;
use pahtum_referee::{Bot, BotSpec, GameEvent, Limits, play_game};

mod timing;

/// The fixture bot (`pahtum-testkit`'s, built for this profile on first use).
fn fixture_bot() -> String {
    pahtum_testkit::fixture_bot().to_string_lossy().into_owned()
}

/// Counts this process's heap allocations.
struct CountingAllocator;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed on to the system allocator unchanged.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's guarantees are those of `System.alloc`.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's guarantees are those of `System.dealloc`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's guarantees are those of `System.realloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn main() {
    let games = size("BENCH_GAMES", 1000);
    let pings = size("BENCH_PINGS", 20_000);
    let timing_moves = size("BENCH_TIMING_MOVES", 2000);
    let lanes = size("BENCH_TIMING_LANES", 4);
    let margin_ms = size("BENCH_TIMING_MARGIN_MS", 0);
    println!("placement: {}; load average: {}", placement(), load_average());

    let (request_bytes, answer_bytes) = (mid_game_request_bytes(), answer_bytes());
    let floors = [
        (
            format!("{FLOOR_LINE} bytes both ways"),
            ping_pong(pings, FLOOR_LINE, FLOOR_LINE),
        ),
        (
            format!("{request_bytes} bytes out, {answer_bytes} back"),
            ping_pong(pings, request_bytes, answer_bytes),
        ),
    ];
    println!("raw pipe ping-pong, {pings} round trips:");
    for (name, floor) in &floors {
        println!(
            "  {name:<26} median {:6.1} us, p99 {:6.1} us; this process's CPU per round trip {:5.1} us",
            percentile(&floor.trips, 0.5),
            percentile(&floor.trips, 0.99),
            floor.cpu_per_trip.as_secs_f64() * 1e6
        );
    }

    println!("referee, {games} games between two instant bots:");
    for setup in [Setup::CurrentThread, Setup::Spawned, Setup::BlockOn] {
        let run = setup.run(referee_games(games));
        let median = percentile(&run.round_trips, 0.5);
        let ratios: Vec<String> = floors
            .iter()
            .map(|(_, floor)| format!("{:.2}x", median / percentile(&floor.trips, 0.5)))
            .collect();
        let moves = run.round_trips.len() as f64;
        println!(
            "  {:<26} round trip median {median:5.1} us ({} the floors), p99 {:5.1} us; per move: \
             wall {:5.1} us, referee CPU {:4.1} us and {:.2} allocations, bot CPU median {:4.1} us",
            setup.name(),
            ratios.join(", "),
            percentile(&run.round_trips, 0.99),
            run.wall.as_secs_f64() * 1e6 / moves,
            run.cpu.as_secs_f64() * 1e6 / moves,
            run.allocations as f64 / moves,
            percentile(&run.bot_cpu, 0.5),
        );
    }

    if timing_moves > 0 {
        let limit = Duration::from_millis(50);
        for percent in [90, 110] {
            let trial = timing::Trial {
                limit,
                margin: Duration::from_millis(margin_ms as u64),
                delay: limit * percent / 100,
                moves: timing_moves,
                lanes,
            };
            let load_before = load_average();
            let samples = Setup::Spawned.run(timing::play(trial));
            timing::report(&trial, &samples, &load_before);
        }
    }
}

fn size(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// The line length of `measuring.md`'s ping-pong.
const FLOOR_LINE: usize = 100;

/// The CPUs this process may run on.
fn placement() -> String {
    // SAFETY: an all-zero cpu_set_t is a valid empty set, and sched_getaffinity
    // writes at most the size it is given.
    let cpus: Vec<usize> = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return "unknown".to_owned();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&cpu| libc::CPU_ISSET(cpu, &set))
            .collect()
    };
    // SAFETY: sysconf has no preconditions.
    let online = usize::try_from(unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }).unwrap_or(0);
    let list: Vec<String> = cpus.iter().map(ToString::to_string).collect();
    if cpus.len() < online {
        format!("pinned to CPU {}", list.join(","))
    } else {
        format!("unpinned (CPUs {})", list.join(","))
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| text.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// How the referee's tasks run.
#[derive(Debug, Clone, Copy)]
enum Setup {
    CurrentThread,
    /// Two workers; the games run in a spawned task, as in a tournament.
    Spawned,
    /// Two workers; the games run in `block_on` on the main thread, while a
    /// worker thread waits for the I/O events.
    BlockOn,
}

impl Setup {
    fn name(self) -> &'static str {
        match self {
            Setup::CurrentThread => "current-thread",
            Setup::Spawned => "multi-thread, spawned task",
            Setup::BlockOn => "multi-thread, block_on",
        }
    }

    fn run<F>(self, future: F) -> F::Output
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let runtime = match self {
            Setup::CurrentThread => tokio::runtime::Builder::new_current_thread(),
            Setup::Spawned | Setup::BlockOn => {
                let mut builder = tokio::runtime::Builder::new_multi_thread();
                builder.worker_threads(2);
                builder
            }
        }
        .enable_all()
        .build()
        .expect("a runtime");
        match self {
            Setup::Spawned => runtime.block_on(async { tokio::spawn(future).await.expect("the task finishes") }),
            Setup::CurrentThread | Setup::BlockOn => runtime.block_on(future),
        }
    }
}

fn fixture(mode: &str) -> BotSpec {
    BotSpec {
        name: mode.to_owned(),
        program: fixture_bot(),
        args: vec![mode.to_owned()],
        dir: None,
        env: Vec::new(),
        sandbox: None,
    }
}

/// The round trips of a raw ping-pong, and this process's CPU time per trip
/// (the floor for the referee's CPU per move in the same placement).
struct PingPong {
    trips: Vec<f64>,
    cpu_per_trip: Duration,
}

/// Sends `count` lines of `out` bytes to an echo child that answers each with
/// `back` bytes; returns each round trip in microseconds.
fn ping_pong(count: usize, out: usize, back: usize) -> PingPong {
    let mut child = Command::new(fixture_bot())
        .arg(format!("echo={back}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the echo fixture starts");
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let line = format!("{}\n", "x".repeat(out - 1));
    let mut answer = String::new();
    let mut trips = Vec::with_capacity(count);
    let cpu_before = own_cpu_time();
    for _ in 0..count {
        let started = Instant::now();
        stdin.write_all(line.as_bytes()).expect("the echo fixture reads");
        answer.clear();
        stdout.read_line(&mut answer).expect("the echo fixture answers");
        trips.push(started.elapsed().as_secs_f64() * 1e6);
    }
    let cpu_per_trip = (own_cpu_time() - cpu_before) / count as u32;
    drop(stdin);
    child.wait().expect("the echo fixture exits");
    PingPong { trips, cpu_per_trip }
}

struct RefereeRun {
    round_trips: Vec<f64>,
    /// The bots' CPU time per answer, as the referee measured it.
    bot_cpu: Vec<f64>,
    wall: Duration,
    cpu: Duration,
    allocations: u64,
}

/// Plays `games` games between two instant bots.
async fn referee_games(games: usize) -> RefereeRun {
    let limits = Limits::default();
    let clock = match std::env::var("BENCH_CLOCK").as_deref() {
        Ok("cpu") => ClockKind::Cpu,
        _ => ClockKind::Wall,
    };
    let mut first = Bot::start(&fixture("first-free"), &limits, None).await.expect("starts");
    let mut second = Bot::start(&fixture("first-free"), &limits, None).await.expect("starts");
    let specs: Vec<GameSpec> = (0..games)
        .map(|game| {
            GameSpec::random(
                format!("bench-{game}"),
                7,
                game as u64,
                true,
                TimeControl {
                    clock,
                    ..move_time(Duration::from_secs(1))
                },
            )
            .expect("a valid layout")
        })
        .collect();
    let mut records = Vec::with_capacity(games);
    let mut round_trips = Vec::with_capacity(games * pahtum::CELLS);
    let mut observe = |event| {
        if let GameEvent::Played { ms, .. } = event {
            round_trips.push(ms * 1000.0);
        }
    };
    let allocations_before = ALLOCATIONS.load(Ordering::Relaxed);
    let cpu_before = own_cpu_time();
    let started = Instant::now();
    for spec in &specs {
        records.push(play_game(spec, &mut first, &mut second, &mut observe).await);
    }
    let wall = started.elapsed();
    let cpu = own_cpu_time() - cpu_before;
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - allocations_before;
    first.shutdown().await;
    second.shutdown().await;
    assert!(records.iter().all(|record| record.termination.reason == Reason::Normal));
    let bot_cpu = records
        .iter()
        .flat_map(|record| record.moves.iter().filter_map(|m| m.timing.cpu_ms))
        .map(|ms| ms * 1000.0)
        .collect();
    RefereeRun {
        round_trips,
        bot_cpu,
        wall,
        cpu,
        allocations,
    }
}

/// The length of a play_stone request halfway through a 7-block game with
/// the pie rule, newline included.
fn mid_game_request_bytes() -> usize {
    let blocks = pahtum::setup::random_blocks(7, 123).expect("a layout");
    let mut game = Game::with_blocks(blocks, true).expect("a game");
    for _ in 0..22 {
        game.play(game.legal_moves()[0]).expect("a legal move");
    }
    let rules = Rules {
        pie: true,
        blocks: 7,
        placement: Placement::Random,
    };
    let clock = Clock::per_move(1000);
    let request = ToBot::request(43, "bench-123", rules, &game, clock).expect("a move is due");
    encode(&request).len()
}

/// The length of a stone, newline included.
fn answer_bytes() -> usize {
    let cell: Cell = "d4".parse().expect("a cell");
    encode(&FromBot::Stone {
        id: 43,
        cell,
        info: None,
    })
    .len()
}

/// This process's user plus system CPU time.
fn own_cpu_time() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: getrusage fills the struct it is given and cannot fail for RUSAGE_SELF.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

fn percentile(values: &[f64], fraction: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * fraction).round() as usize]
}
