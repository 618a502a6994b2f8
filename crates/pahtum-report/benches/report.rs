//! Benchmark: the HTML report of a 10,000-game journal (targets: at most 8 MB, written in under 2 s).
//!
//! Writes a synthetic journal (full games of random legal moves with timings, see
//! `pahtum_journal::testing::synthetic_journal`), then times what `arena report` does: read and check the
//! journal with its moves, compute the standings, and write the page atomically, its games read back from the
//! journal. Prints the page's size and the median and range of five runs.
//!
//! `cargo bench -p pahtum-report --bench report [-- GAMES]`

use std::fs::File;
use std::time::{Duration, Instant};

use pahtum_journal::testing;
use pahtum_journal::{Moves, read_line_at};
use pahtum_report::files::write_atomically_with;
use pahtum_report::fold::fold_journal;
use pahtum_report::html::{Options, ReportBuilder};

const RUNS: usize = 5;

fn main() {
    let games: usize = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(10_000);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let journal = dir.path().join("journal.jsonl");
    let bytes = testing::synthetic_journal(&journal, games);
    println!("journal: {games} games, {:.1} MB", bytes as f64 / 1e6);
    let page = dir.path().join("report.html");
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            let mut report = ReportBuilder::new(Options::default());
            let folded =
                fold_journal(&journal, Moves::Keep, None, &mut report).expect("the synthetic journal is valid");
            let file = File::open(&journal).expect("the journal opens");
            let read = |span| read_line_at(&file, &journal, span);
            write_atomically_with(&page, |out| {
                report.finish(&folded.tournament.name, folded.scheduled, &folded.standings, read, out)
            })
            .expect("the page is written");
            started.elapsed()
        })
        .collect();
    times.sort();
    let size = std::fs::metadata(&page).expect("the page").len();
    println!(
        "report of {games} games: {:.2} MB; written in median {:.3} s (min {:.3} s, max {:.3} s, {RUNS} runs)",
        size as f64 / 1e6,
        times[RUNS / 2].as_secs_f64(),
        times[0].as_secs_f64(),
        times[RUNS - 1].as_secs_f64()
    );
    if let Some(keep) = std::env::var_os("KEEP_REPORT") {
        std::fs::copy(&page, keep).expect("the page is copied");
    }
}
