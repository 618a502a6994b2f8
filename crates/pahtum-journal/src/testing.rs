//! Fixtures for the tests and benchmarks: large synthetic journals, of a tournament and of one that grew.
//! Compiled for this crate's tests and, with the `testing` feature, for other crates'; never into a
//! release build.

use std::ops::Range;
use std::path::Path;

use pahtum_tournament::config;
use pahtum_tournament::schedule::Schedule;
use pahtum_tournament::testing::random_game;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::{Joined, Journal, JournalReader};
use pahtum_tournament::config::tournament_hash;

/// Writes a journal at `path` of a 12-bot round-robin with enough games per pair for `games`, its first
/// `games` games played at random (full games with timings, as long as real records); returns its size in bytes.
pub fn synthetic_journal(path: &Path, games: usize) -> u64 {
    let per_pair = games.div_ceil(66).next_multiple_of(2);
    let mut text = format!("name = \"bench\"\ngames_per_pair = {per_pair}\n");
    for i in 0..12 {
        text.push_str(&format!("[[bots]]\nname = \"bot{i:02}\"\nbuiltin = \"first-free\"\n"));
    }
    let tournament = config::parse(Path::new("bench.toml"), &text)
        .expect("a valid file")
        .tournament;
    Journal::create(path, &tournament).expect("a new journal");
    let schedule = Schedule::new(&tournament);
    append_random_games(path, Vec::new(), &schedule, 0..games.min(schedule.len()), 1)
}

/// Appends `lead` and the games of `schedule` at `indices`, played at random (from `seed`), to the journal
/// at `path`; returns its size in bytes.
fn append_random_games(path: &Path, mut lines: Vec<u8>, schedule: &Schedule, indices: Range<usize>, seed: u64) -> u64 {
    // Syncing each of 100,000 lines would time the disk, not the standings: append the records in one go.
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for game in schedule.games(indices) {
        let spec = game.spec(schedule.tournament());
        serde_json::to_writer(&mut lines, &random_game(&game, spec, &mut rng)).expect("a record serializes");
        lines.push(b'\n');
    }
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("the journal");
    std::io::Write::write_all(&mut file, &lines).expect("the records are written");
    std::fs::metadata(path).expect("the journal").len()
}

/// The `joined` line of the last join of `grown`.
pub fn joined_line(grown: &Schedule) -> Joined {
    let first = grown.joins().last().copied().expect("a schedule grown by a join");
    Joined {
        joined: grown.tournament().bots[first..].to_vec(),
        unix_ms: 1_700_000_000_000,
        games: grown.len(),
        hash: tournament_hash(grown.tournament()),
    }
}

/// [`synthetic_journal`] of `games` games, then `joining` bots (`joined1`, ...) that join it (a `joined`
/// line) and every game of theirs, played at random: the lines of a journal of a tournament that grew.
/// Returns the grown schedule and the journal's size in bytes.
pub fn synthetic_grown_journal(path: &Path, games: usize, joining: usize) -> (Schedule, u64) {
    synthetic_journal(path, games);
    let tournament = JournalReader::open(path)
        .expect("the journal")
        .header()
        .tournament
        .clone();
    let bots: Vec<config::BotConfig> = (1..=joining)
        .map(|i| config::BotConfig {
            name: format!("joined{i}"),
            ..tournament.bots[0].clone()
        })
        .collect();
    let old = Schedule::new(&tournament).len();
    let grown = Schedule::new(&tournament).join(&bots);
    let mut join = serde_json::to_vec(&joined_line(&grown)).expect("a line serializes");
    join.push(b'\n');
    let size = append_random_games(path, join, &grown, old..grown.len(), 2);
    (grown, size)
}
