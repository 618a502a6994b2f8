//! Benchmark: standings from a journal of 100,000 games (target: under 2 s).
//!
//! Writes a synthetic journal of a 12-bot round-robin (full games of random
//! legal moves with timings, so the records are as long as real ones), then
//! times `report::standings_of_journal`: reading, parsing, replaying every
//! record and checking it against the schedule (`pahtum_journal::audit`),
//! and counting. Prints the median and the range of
//! five runs.
//!
//! `cargo bench -p pahtum-report --bench standings [-- GAMES]`

use std::time::{Duration, Instant};

use pahtum_journal::testing;
use pahtum_report::fold::standings_of_journal;

const RUNS: usize = 5;

fn main() {
    let games: usize = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(100_000);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("journal.jsonl");
    let started = Instant::now();
    let bytes = testing::synthetic_journal(&path, games);
    println!(
        "journal: {games} games, {:.1} MB, written in {:.1} s",
        bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            let standings = standings_of_journal(&path, None).expect("the synthetic journal is valid");
            let elapsed = started.elapsed();
            assert_eq!(standings.games, games);
            elapsed
        })
        .collect();
    times.sort();
    println!(
        "standings of {games} games: median {:.3} s (min {:.3} s, max {:.3} s, {RUNS} runs); {:.2} µs per game",
        times[RUNS / 2].as_secs_f64(),
        times[0].as_secs_f64(),
        times[RUNS - 1].as_secs_f64(),
        times[RUNS / 2].as_secs_f64() * 1e6 / games as f64
    );
}
