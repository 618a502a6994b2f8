//! The sandbox's cost, sandboxed against unsandboxed in the same run:
//!
//! 1. start-up: from the spawn to the bot's `hello`, and the whole life of a
//!    bot process (start, `quit`, reaped, its cgroups removed), for the
//!    instant fixture bot, `BENCH_STARTS` times each (default 40),
//!    alternating plain and sandboxed so that the machine's load falls on
//!    both alike;
//! 2. the round trip per move (the time the referee charges: from the start
//!    of the request's write to the answer's newline) over `BENCH_GAMES`
//!    games each (default 200) between two instant fixture bots, both plain
//!    or both sandboxed, alternating game by game.
//!
//! `cargo bench -p pahtum-referee --bench sandbox` (pin it with
//! `taskset -c 0` to compare like with like). Without the sandbox on the
//! machine it says why and stops.

use std::time::{Duration, Instant};

use pahtum_protocol::{Reason, move_time};
use pahtum_record::GameSpec;
use pahtum_referee::{Bot, BotSpec, GameEvent, Limits, Sandbox, play_game};

/// The fixture bot (`pahtum-testkit`'s, built for this profile on first use).
fn fixture_bot() -> String {
    pahtum_testkit::fixture_bot().to_string_lossy().into_owned()
}

fn main() {
    if let Err(error) = pahtum_referee::sandbox::check() {
        println!("the sandbox cannot run here: {error}");
        return;
    }
    let starts = size("BENCH_STARTS", 40);
    let games = size("BENCH_GAMES", 200);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let (plain, sandboxed) = start_ups(starts).await;
        println!("start-up, spawn to hello, {starts} each (median, p90):");
        report("  plain    ", &plain.greeted);
        report("  sandboxed", &sandboxed.greeted);
        println!(
            "  extra per sandboxed bot process: {:.1} ms (median)",
            percentile(&sandboxed.greeted, 0.5) - percentile(&plain.greeted, 0.5)
        );
        println!("a bot process's whole life (start, quit, reaped, cleaned up):");
        report("  plain    ", &plain.life);
        report("  sandboxed", &sandboxed.life);
        let (plain, sandboxed) = round_trips(games).await;
        println!("round trip per move over {games} games each, in µs (median, p90, p99):");
        report_us("  plain    ", &plain);
        report_us("  sandboxed", &sandboxed);
    });
}

fn size(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn spec(sandboxed: bool) -> BotSpec {
    let mut spec = BotSpec::from_command("first-free", &fixture_bot()).expect("a command");
    spec.args.push("first-free".to_owned());
    spec.sandbox = sandboxed.then(Sandbox::default);
    spec
}

/// Milliseconds to the greeting and of the whole life, per start.
#[derive(Default)]
struct Starts {
    greeted: Vec<f64>,
    life: Vec<f64>,
}

async fn start_ups(count: usize) -> (Starts, Starts) {
    let (mut plain, mut sandboxed) = (Starts::default(), Starts::default());
    for round in 0..count * 2 {
        let sandbox = round % 2 == 1;
        let started = Instant::now();
        let bot = Bot::start(&spec(sandbox), &Limits::default(), None)
            .await
            .expect("starts");
        let greeted = started.elapsed();
        bot.shutdown().await;
        let life = started.elapsed();
        let starts = if sandbox { &mut sandboxed } else { &mut plain };
        starts.greeted.push(ms(greeted));
        starts.life.push(ms(life));
    }
    (plain, sandboxed)
}

/// Round trips per move in µs: plain, sandboxed.
async fn round_trips(games: usize) -> (Vec<f64>, Vec<f64>) {
    let limits = Limits::default();
    let mut bots = Vec::new();
    for sandbox in [false, true] {
        let first = Bot::start(&spec(sandbox), &limits, None).await.expect("starts");
        let second = Bot::start(&spec(sandbox), &limits, None).await.expect("starts");
        bots.push((first, second, Vec::new()));
    }
    for game in 0..games * 2 {
        let (first, second, trips) = &mut bots[game % 2];
        let spec = GameSpec::random(
            format!("g{game}"),
            7,
            (game / 2) as u64,
            true,
            move_time(Duration::from_secs(1)),
        )
        .expect("a valid layout");
        let record = play_game(&spec, first, second, &mut |event| {
            if let GameEvent::Played { ms, .. } = event {
                trips.push(ms * 1000.0);
            }
        })
        .await;
        assert_eq!(record.termination.reason, Reason::Normal);
    }
    let mut trips = Vec::new();
    for (first, second, round_trips) in bots {
        first.shutdown().await;
        second.shutdown().await;
        trips.push(round_trips);
    }
    let sandboxed = trips.pop().expect("two runs");
    (trips.pop().expect("two runs"), sandboxed)
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn report(label: &str, values: &[f64]) {
    println!(
        "{label} {:7.1} ms {:7.1} ms",
        percentile(values, 0.5),
        percentile(values, 0.9)
    );
}

fn report_us(label: &str, values: &[f64]) {
    println!(
        "{label} {:7.1} {:7.1} {:7.1}",
        percentile(values, 0.5),
        percentile(values, 0.9),
        percentile(values, 0.99)
    );
}

fn percentile(values: &[f64], fraction: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * fraction).round() as usize]
}
