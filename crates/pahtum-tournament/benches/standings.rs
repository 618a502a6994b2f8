//! Benchmark: standings from a journal of 100,000 games (target: under 2 s).
//!
//! Writes a synthetic journal of a 12-bot round-robin (full games of random
//! legal moves with timings, so the records are as long as real ones), then
//! times `report::standings_of_journal`: reading, parsing, replaying every
//! record and checking it against the schedule (`pahtum_tournament::audit`),
//! and counting. Prints the median and the range of
//! five runs.
//!
//! `cargo bench -p pahtum-tournament --bench standings [-- GAMES]`

use std::path::Path;
use std::time::{Duration, Instant};

use pahtum::{Bitboard, Cell, Color, Score};
use pahtum_record::{GameRecord, MoveRecord, Players, Termination, Timing};
use pahtum_tournament::config::{self, Tournament};
use pahtum_tournament::journal::Journal;
use pahtum_tournament::report::standings_of_journal;
use pahtum_tournament::runner::game_spec;
use pahtum_tournament::schedule::{ScheduledGame, schedule};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const RUNS: usize = 5;

fn main() {
    let games: usize = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(100_000);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("journal.jsonl");
    let started = Instant::now();
    let bytes = write_journal(&path, games);
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

/// A 12-bot round-robin with enough games per pair for `games`, its first `games` games played at random.
fn write_journal(path: &Path, games: usize) -> u64 {
    let per_pair = games.div_ceil(66).next_multiple_of(2);
    let mut text = format!("name = \"bench\"\ngames_per_pair = {per_pair}\n");
    for i in 0..12 {
        text.push_str(&format!("[[bots]]\nname = \"bot{i:02}\"\nbuiltin = \"first-free\"\n"));
    }
    let tournament = config::parse(Path::new("bench.toml"), &text)
        .expect("a valid file")
        .tournament;
    Journal::create(path, &tournament).expect("a new journal");
    // Syncing each of 100,000 lines would time the disk, not the standings: append the records in one go.
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut lines = Vec::new();
    for game in schedule(&tournament).iter().take(games) {
        serde_json::to_writer(&mut lines, &random_game(game, &tournament, &mut rng)).expect("a record serializes");
        lines.push(b'\n');
    }
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("the journal");
    std::io::Write::write_all(&mut file, &lines).expect("the records are written");
    std::fs::metadata(path).expect("the journal").len()
}

/// A full game of random legal stones on the scheduled blocks, without a pie swap.
fn random_game(game: &ScheduledGame, tournament: &Tournament, rng: &mut ChaCha8Rng) -> GameRecord {
    let spec = game_spec(game, tournament);
    let blocks: Bitboard = game.blocks.iter().copied().collect();
    let mut free: Vec<Cell> = Cell::all().filter(|cell| !blocks.contains(*cell)).collect();
    for i in (1..free.len()).rev() {
        free.swap(i, rng.random_range(0..=i));
    }
    let (mut white, mut black) = (Bitboard::EMPTY, Bitboard::EMPTY);
    let moves = free
        .iter()
        .enumerate()
        .map(|(ply, &cell)| {
            let color = if ply % 2 == 0 { Color::White } else { Color::Black };
            match color {
                Color::White => white = white.with(cell),
                Color::Black => black = black.with(cell),
            }
            MoveRecord {
                kind: Default::default(),
                color,
                cell,
                timing: Timing {
                    ms: microseconds(rng.random_range(0.05..5.0)),
                    cpu_ms: Some(microseconds(rng.random_range(0.01..5.0))),
                    info: None,
                },
            }
        })
        .collect();
    let score = Score::of(white, black);
    GameRecord {
        id: spec.id,
        layout: spec.layout,
        seed: spec.seed,
        rules: spec.rules,
        time: spec.time,
        time_by_seat: spec.time_by_seat,
        pause_idle: spec.pause_idle,
        players: Players {
            first: game.first.clone(),
            second: game.second.clone(),
        },
        white: game.first.clone(),
        black: game.second.clone(),
        blocks: spec.blocks,
        moves,
        swap: Some(false),
        swap_move: Some(Timing {
            ms: 0.2,
            cpu_ms: None,
            info: None,
        }),
        score,
        result: score.outcome(),
        termination: Termination::normal(),
        started_unix_ms: 1_700_000_000_000,
        ended_unix_ms: 1_700_000_000_100,
    }
}

/// Milliseconds at the referee's resolution, a microsecond.
fn microseconds(ms: f64) -> f64 {
    (ms * 1e3).round() / 1e3
}
