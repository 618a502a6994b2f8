//! How long does the analysis of a game take? The records of a journal (or
//! of any file of one record a line) analysed one after the other on one
//! thread, with the CPU time of each game, and the median, mean and worst.
//!
//! ```text
//! taskset -c 1 cargo run --release -p pahtum-analysis --example time_games -- runs/quickstart/journal.jsonl --every 12
//! ```
//!
//! Options: `--every K` (analyse every K-th record, 1), `--games N` (at
//! most N of them, all), `--exact-cells N`, `--playouts N`, `--seed N` and
//! `--table-bits N` (the analysis's settings, by default its defaults),
//! `--out FILE` (write the analyses there, one JSON line a game, to compare
//! two builds' output). One [`Analyzer`] serves every game, as one worker
//! of `arena analyze` does. Times are the CPU time of the analysing thread:
//! unlike wall time they do not grow while other work on a busy machine
//! keeps the thread waiting; still, run it pinned (`taskset`) and compare
//! medians of builds run alternately.

use std::io::{BufRead, Write};
use std::time::Duration;

use cpu_time::ThreadTime;

use pahtum_analysis::analyze::{Analyzer, Settings};
use pahtum_record::GameRecord;

fn main() {
    let mut source = None;
    let mut every = 1;
    let mut games = usize::MAX;
    let mut settings = Settings::default();
    let mut out = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{arg} takes a value"));
        let mut number = || -> u64 { value().parse().expect("a number") };
        match arg.as_str() {
            "--every" => every = number() as usize,
            "--games" => games = number() as usize,
            "--exact-cells" => settings.exact_from = number() as u32,
            "--playouts" => settings.playouts = number(),
            "--seed" => settings.seed = number(),
            "--table-bits" => settings.table_bits = number() as u32,
            "--out" => out = Some(std::fs::File::create(value()).expect("the output file")),
            _ => source = Some(arg),
        }
    }
    let source = source.expect("a journal or a file of records");
    let file = std::io::BufReader::new(std::fs::File::open(&source).expect("the journal"));
    let records: Vec<GameRecord> = file
        .lines()
        .map(|line| line.expect("a line"))
        .filter_map(|line| serde_json::from_str(&line).ok())
        .step_by(every.max(1))
        .take(games)
        .collect();
    let mut analyzer = Analyzer::new(settings);
    let mut times = Vec::new();
    for record in &records {
        let start = ThreadTime::now();
        let analysis = analyzer.analyze(record).expect("the record replays");
        let time = start.elapsed();
        let exact = analysis.moves.iter().filter(|entry| entry.before.exact).count();
        println!(
            "{:<12} {:>3} plies {:>3} exact {:>8.3} s",
            record.id,
            analysis.moves.len(),
            exact,
            time.as_secs_f64()
        );
        times.push(time);
        if let Some(out) = &mut out {
            let line = serde_json::to_string(&analysis).expect("an analysis serializes");
            writeln!(out, "{line}").expect("the output file is written");
        }
    }
    times.sort();
    let total: Duration = times.iter().sum();
    println!(
        "{} games, exact from {} free cells, {} playouts: CPU per game median {:.3} s, mean {:.3} s, worst {:.3} s, total {:.1} s",
        times.len(),
        settings.exact_from,
        settings.playouts,
        times[times.len() / 2].as_secs_f64(),
        total.as_secs_f64() / times.len() as f64,
        times.last().expect("a game").as_secs_f64(),
        total.as_secs_f64()
    );
}
