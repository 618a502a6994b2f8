//! The referee's per-move cost and timing accuracy, beside the floor.
//!
//! `cargo bench -p pahtum-referee --bench referee` prints:
//!
//! 1. the raw pipe ping-pong between this process and an echoing child, with
//!    a line as long as a mid-game request (the floor);
//! 2. games between two instant fixture bots: the median and 99th percentile
//!    round trip per move (request written to answer read, as recorded), the
//!    wall time per move, and the referee's own CPU time per move
//!    (`getrusage` of this process, which is only the referee: bots are
//!    children);
//! 3. timing accuracy: answers at 90% of a 50 ms limit (margin 0) are never
//!    flagged, answers at 110% always are.
//!
//! Sizes come from the environment: `BENCH_GAMES` (default 300),
//! `BENCH_PINGS` (20000), `BENCH_TIMING_MOVES` (2000; 0 skips part 3).
//! `BENCH_CURRENT_THREAD=1` runs the referee on a current-thread runtime
//! instead of a two-worker multi-thread one. Pin the run to one core
//! (`taskset -c 0`) to compare like with like: a pipe round trip across cores
//! costs ten times more than on one core.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pahtum_protocol::{Clock, Placement, Reason, Request, Rules, ToBot};
use pahtum_referee::{Bot, BotSpec, GameSpec, Limits, TimeControl, move_time, play_game};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-bot");

fn main() {
    let games = size("BENCH_GAMES", 300);
    let pings = size("BENCH_PINGS", 20_000);
    let timing_moves = size("BENCH_TIMING_MOVES", 2000);
    let runtime = if std::env::var_os("BENCH_CURRENT_THREAD").is_some() {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(2);
        builder
    }
    .enable_all()
    .build()
    .expect("a runtime");

    let (request_bytes, referee) = runtime.block_on(referee_games(games));
    let floor = ping_pong(pings, request_bytes);
    println!("raw pipe ping-pong ({pings} round trips of {request_bytes} bytes):");
    println!(
        "  median {:.1} us, p99 {:.1} us",
        percentile(&floor, 0.5),
        percentile(&floor, 0.99)
    );
    println!(
        "referee, {games} games between two instant bots ({} moves):",
        referee.round_trips.len()
    );
    let median = percentile(&referee.round_trips, 0.5);
    println!(
        "  round trip per move: median {median:.1} us, p99 {:.1} us ({:.2}x the raw median)",
        percentile(&referee.round_trips, 0.99),
        median / percentile(&floor, 0.5)
    );
    let moves = referee.round_trips.len() as f64;
    println!(
        "  wall time per move: {:.1} us",
        referee.wall.as_secs_f64() * 1e6 / moves
    );
    println!(
        "  referee CPU per move: {:.1} us",
        referee.cpu.as_secs_f64() * 1e6 / moves
    );

    if timing_moves > 0 {
        let limit = Duration::from_millis(50);
        let (flagged, answered) = runtime.block_on(timing(limit, limit * 9 / 10, timing_moves));
        println!("timing, answers at 45 ms of a 50 ms limit (margin 0): {flagged} of {answered} moves flagged");
        let (flagged, answered) = runtime.block_on(timing(limit, limit * 11 / 10, timing_moves));
        println!("timing, answers at 55 ms of a 50 ms limit (margin 0): {flagged} of {answered} moves flagged");
    }
}

fn size(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn fixture(mode: &str) -> BotSpec {
    BotSpec {
        name: mode.to_owned(),
        program: FIXTURE.to_owned(),
        args: vec![mode.to_owned()],
        dir: None,
        env: Vec::new(),
    }
}

/// The echo child answers each line; returns each round trip in microseconds.
fn ping_pong(count: usize, bytes: usize) -> Vec<f64> {
    let mut child = Command::new(FIXTURE)
        .arg("echo")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the echo fixture starts");
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let line = format!("{}\n", "x".repeat(bytes.saturating_sub(1)));
    let mut answer = String::new();
    let mut trips = Vec::with_capacity(count);
    for _ in 0..count {
        let started = Instant::now();
        stdin.write_all(line.as_bytes()).expect("the echo fixture reads");
        answer.clear();
        stdout.read_line(&mut answer).expect("the echo fixture answers");
        trips.push(started.elapsed().as_secs_f64() * 1e6);
    }
    drop(stdin);
    child.wait().expect("the echo fixture exits");
    trips
}

struct RefereeRun {
    round_trips: Vec<f64>,
    wall: Duration,
    cpu: Duration,
}

/// Plays `games` games between two instant bots; returns the size of a
/// mid-game request and the measurements.
async fn referee_games(games: usize) -> (usize, RefereeRun) {
    let limits = Limits::default();
    let mut first = Bot::start(&fixture("first-free"), &limits, None).await.expect("starts");
    let mut second = Bot::start(&fixture("first-free"), &limits, None).await.expect("starts");
    let mut round_trips = Vec::new();
    let cpu_before = own_cpu_time();
    let started = Instant::now();
    for game in 0..games {
        let spec = GameSpec::random(
            format!("bench-{game}"),
            7,
            game as u64,
            true,
            move_time(Duration::from_secs(1)),
        )
        .expect("a valid layout");
        let record = play_game(&spec, &mut first, &mut second, &mut |_| {}).await;
        assert_eq!(record.termination.reason, Reason::Normal);
        round_trips.extend(record.moves.iter().map(|m| m.timing.ms * 1000.0));
    }
    let wall = started.elapsed();
    let cpu = own_cpu_time() - cpu_before;
    first.shutdown().await;
    second.shutdown().await;
    // A request at move 21 of 42: the typical size on the wire.
    let request_bytes = mid_game_request_bytes();
    (request_bytes, RefereeRun { round_trips, wall, cpu })
}

/// The length of a play_stone request halfway through a 7-block game.
fn mid_game_request_bytes() -> usize {
    let cells: Vec<pahtum::Cell> = pahtum::Cell::all().take(28).collect();
    let mut moves: Vec<String> = cells[7..28].iter().map(ToString::to_string).collect();
    moves.insert(1, "keep".to_owned());
    let request = Request {
        id: 43,
        game: "bench-123".to_owned(),
        color: pahtum::Color::White,
        rules: Rules {
            pie: true,
            blocks: 7,
            placement: Placement::Random,
        },
        blocks: cells[..7].to_vec(),
        white: cells[7..18].to_vec(),
        black: cells[18..28].to_vec(),
        moves,
        clock: Clock {
            remaining_ms: None,
            opponent_ms: None,
            increment_ms: 0,
            move_ms: Some(1000),
            timeout_ms: 1000,
        },
    };
    pahtum_protocol::encode(&ToBot::PlayStone(request)).len()
}

/// Plays until the delayed bot has answered `moves` times (or been flagged
/// that often), four games at a time; returns (flagged, answers).
async fn timing(limit: Duration, delay: Duration, moves: usize) -> (usize, usize) {
    let strict = TimeControl {
        margin_ms: 0,
        ..move_time(limit)
    };
    let lanes = 4;
    let mut tasks = Vec::new();
    for lane in 0..lanes {
        let target = moves / lanes + usize::from(lane < moves % lanes);
        tasks.push(tokio::spawn(timing_lane(strict, delay, target, lane)));
    }
    let mut total = (0, 0);
    for task in tasks {
        let (flagged, answered) = task.await.expect("a timing lane");
        total = (total.0 + flagged, total.1 + answered);
    }
    total
}

async fn timing_lane(time: TimeControl, delay: Duration, target: usize, lane: usize) -> (usize, usize) {
    let limits = Limits::default();
    let mode = format!("delay={}", delay.as_millis());
    let mut opponent = Bot::start(&fixture("first-free"), &limits, None).await.expect("starts");
    let mut delayed = Bot::start(&fixture(&mode), &limits, None).await.expect("starts");
    let (mut flagged, mut answered, mut game) = (0, 0, 0);
    while answered < target {
        if !delayed.is_reusable() {
            delayed.shutdown().await;
            delayed = Bot::start(&fixture(&mode), &limits, None).await.expect("starts");
        }
        let spec = GameSpec::random(format!("timing-{lane}-{game}"), 7, game, false, time).expect("a layout");
        game += 1;
        let record = play_game(&spec, &mut delayed, &mut opponent, &mut |_| {}).await;
        let on_time = record.moves.iter().filter(|m| m.color == pahtum::Color::White).count();
        answered += on_time;
        if record.termination.reason == Reason::Timeout {
            flagged += 1;
            answered += 1;
        }
    }
    delayed.shutdown().await;
    opponent.shutdown().await;
    (flagged, answered)
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
