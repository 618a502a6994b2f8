//! Benchmark: the strength tables of 100 bots from 100,000 games (target: under 1 s).
//!
//! Builds the records in memory (no journal: reading one is the standings
//! benchmark's business): 50,000 layout pairs between random pairs of 100 bots
//! with spread-out true ratings, each game won, drawn or lost with the
//! probabilities of its Elo difference (seeded). Then times
//! the standings' `Tallies` of the records, finished: the joint fit with its 100
//! profile-likelihood intervals and the LOS matrix, and the pentanomial table
//! of every pair.
//! Prints the median and the range of five runs.
//!
//! `cargo bench -p pahtum-standings --bench strength [-- GAMES]`

use std::time::{Duration, Instant};

use pahtum::Outcome;
use pahtum_record::GameRecord;
use pahtum_standings::standings::standings;
use pahtum_standings::strength::Ratings;
use pahtum_tournament::testing;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const RUNS: usize = 5;
const BOTS: usize = 100;
/// Draws are this likely between equal bots.
const DRAWS: f64 = 0.1;

fn main() {
    let games: usize = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(100_000);
    let names: Vec<String> = (0..BOTS).map(|bot| format!("bot-{bot:03}")).collect();
    let records = records(&names, games);
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            let strength = standings(&records, &names, None)
                .expect("the synthetic games rate")
                .strength;
            let elapsed = started.elapsed();
            assert!(matches!(strength.ratings, Ratings::Fitted { .. }));
            elapsed
        })
        .collect();
    times.sort();
    println!(
        "strength of {BOTS} bots from {} games: median {:.3} s (min {:.3} s, max {:.3} s, {RUNS} runs)",
        records.len(),
        times[RUNS / 2].as_secs_f64(),
        times[0].as_secs_f64(),
        times[RUNS - 1].as_secs_f64(),
    );
}

/// `games` games (rounded down to whole layout pairs) between random pairs of bots rated 0 to 990 Elo.
fn records(names: &[String], games: usize) -> Vec<GameRecord> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut records = Vec::with_capacity(games);
    for layout in 0..games / 2 {
        let a = rng.random_range(0..names.len());
        let b = (a + rng.random_range(1..names.len())) % names.len();
        let expected = 1.0 / (1.0 + 10f64.powf((b as f64 - a as f64) * 10.0 / 400.0));
        for (side, first, second) in [("a", a, b), ("b", b, a)] {
            let first_expected = if first == a { expected } else { 1.0 - expected };
            let roll: f64 = rng.random();
            let outcome = if roll < first_expected - DRAWS / 2.0 {
                Outcome::White
            } else if roll < first_expected + DRAWS / 2.0 {
                Outcome::Draw
            } else {
                Outcome::Black
            };
            records.push(record(
                format!("{layout}-{side}"),
                &names[first],
                &names[second],
                outcome,
            ));
        }
    }
    records
}

/// A game won by `outcome`'s colour, the first seat playing White (no pie swap).
fn record(id: String, first: &str, second: &str, outcome: Outcome) -> GameRecord {
    let mut record = testing::record(&id, first, second);
    record.result = outcome;
    record
}
