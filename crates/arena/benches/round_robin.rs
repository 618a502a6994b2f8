//! Benchmark: a 12-bot round-robin of instant bots (66 pairs, 2 games each).
//!
//! Runs `arena run` on a generated tournament of twelve built-in `first-free`
//! bots, three times at concurrency 1 and three times at concurrency 2, each
//! into a fresh output folder, and prints the median wall time of the whole
//! run (start-up of the 12 bot processes, 132 games, journal writes with
//! fsync, standings files) and the games per second. From the journals it
//! splits a game's cost into the bots' answers (as the referee timed them,
//! request written to answer read, so pipe round trips included) and the
//! rest, the referee's overhead per game: at concurrency 1,
//! `(wall time - all answer times) / games`.
//!
//! `cargo bench -p arena --bench round_robin`

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
const BOTS: usize = 12;
const RUNS: usize = 3;

fn main() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let file = dir.path().join("bench.toml");
    let mut text = String::from("name = \"bench\"\nseed = 1\ngames_per_pair = 2\n[time]\nmove_ms = 1000\n");
    for i in 0..BOTS {
        text.push_str(&format!(
            "[[bots]]\nname = \"instant{i:02}\"\nbuiltin = \"first-free\"\n"
        ));
    }
    std::fs::write(&file, text).expect("the tournament file is written");
    let games = BOTS * (BOTS - 1) / 2 * 2;
    for concurrency in [1, 2] {
        let mut walls = Vec::new();
        let mut answers = Vec::new();
        for run in 0..RUNS {
            let out = dir.path().join(format!("c{concurrency}-{run}"));
            let started = Instant::now();
            let output = Command::new(ARENA)
                .arg("run")
                .arg(&file)
                .arg("--out")
                .arg(&out)
                .args(["--concurrency", &concurrency.to_string()])
                .output()
                .expect("arena runs");
            walls.push(started.elapsed());
            assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
            answers.push(answer_time(&out.join("journal.jsonl"), games));
        }
        let wall = median(&mut walls);
        let answer = median(&mut answers);
        println!(
            "concurrency {concurrency}: {games} games in {:.3} s (median of {RUNS}: {}), {:.0} games/s",
            wall.as_secs_f64(),
            walls
                .iter()
                .map(|w| format!("{:.3}", w.as_secs_f64()))
                .collect::<Vec<_>>()
                .join(" "),
            games as f64 / wall.as_secs_f64()
        );
        if concurrency == 1 {
            println!(
                "  per game: {:.2} ms of wall time; bots' answers {:.2} ms; referee overhead {:.2} ms",
                wall.as_secs_f64() * 1e3 / games as f64,
                answer.as_secs_f64() * 1e3 / games as f64,
                (wall.saturating_sub(answer)).as_secs_f64() * 1e3 / games as f64
            );
        }
    }
}

/// The sum of every answer's time (moves and pie decisions) in a journal of `games` games.
fn answer_time(journal: &Path, games: usize) -> Duration {
    let text = std::fs::read_to_string(journal).expect("the journal");
    let records: Vec<Value> = text
        .lines()
        .skip(1)
        .map(|line| serde_json::from_str(line).expect("a record"))
        .collect();
    assert_eq!(records.len(), games);
    let ms: f64 = records
        .iter()
        .map(|record| {
            let moves: f64 = record["moves"]
                .as_array()
                .expect("moves")
                .iter()
                .map(|m| m["ms"].as_f64().expect("ms"))
                .sum();
            moves + record["swap_move"]["ms"].as_f64().unwrap_or(0.0)
        })
        .sum();
    Duration::from_secs_f64(ms / 1e3)
}

fn median(values: &mut [Duration]) -> Duration {
    values.sort();
    values[values.len() / 2]
}
