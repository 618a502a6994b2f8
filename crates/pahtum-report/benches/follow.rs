//! Benchmark: what a look at a growing journal costs, followed
//! (`report::FollowedFold`, which reads only the new complete lines) or folded
//! whole (`report::fold_journal`, what a server without it does each time).
//!
//! Writes a synthetic journal of GAMES games (12-bot round-robin, full games
//! with timings), starts from all but the last LOOKS of them, and then appends
//! them one at a time, timing each look both ways. Prints the medians: the
//! followed look's cost should not depend on GAMES, the whole fold's grows
//! with it.
//!
//! `cargo bench -p pahtum-report --bench follow [-- GAMES]`

use std::io::Write;
use std::time::{Duration, Instant};

use pahtum_journal::sink::Counts;
use pahtum_journal::testing;
use pahtum_journal::{Growth, Moves};
use pahtum_report::fold::{FollowedFold, fold_journal};

/// The games appended, one look after each.
const LOOKS: usize = 50;

fn main() {
    let games: usize = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(100_000);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let whole = dir.path().join("whole.jsonl");
    testing::synthetic_journal(&whole, games);
    let text = std::fs::read_to_string(&whole).expect("the journal");
    let lines: Vec<&str> = text.lines().collect();
    let (start, appended) = lines.split_at(lines.len() - LOOKS);
    let path = dir.path().join("journal.jsonl");
    std::fs::write(&path, start.join("\n") + "\n").expect("the journal's start");

    let started = Instant::now();
    let mut followed = FollowedFold::open(&path).expect("a journal");
    followed.update(Moves::Drop, &mut Counts).expect("a valid journal");
    println!(
        "first look at {} games: {:.3} s",
        games - LOOKS,
        started.elapsed().as_secs_f64()
    );
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("the journal");
    let (mut follow, mut fold) = (Vec::new(), Vec::new());
    for line in appended {
        writeln!(file, "{line}").expect("a line appended");
        let started = Instant::now();
        let growth = followed.update(Moves::Drop, &mut Counts).expect("a valid journal");
        follow.push(started.elapsed());
        assert_eq!(growth, Growth::Grew(1));
        let started = Instant::now();
        fold_journal(&path, Moves::Drop, None, &mut Counts).expect("a valid journal");
        fold.push(started.elapsed());
    }
    let median = |times: &mut Vec<Duration>| {
        times.sort();
        times[times.len() / 2]
    };
    println!(
        "a look after one more game, median of {LOOKS}: followed {:.3} ms, folded whole {:.1} ms",
        median(&mut follow).as_secs_f64() * 1e3,
        median(&mut fold).as_secs_f64() * 1e3
    );
}
