//! `arena analyze SOURCE [GAME_ID...]`: where each game was lost.
//!
//! The analysis itself is `pahtum_analysis` (records in, values out, no
//! processes); this wires it to the games a user names and to a file:
//! `analysis.jsonl` beside a run's `journal.jsonl` (`NAME.analysis.jsonl`
//! beside any other journal or record `NAME.EXT`), one line per game,
//! appended as each game is done. It resumes like a tournament: a line whose
//! game, record hash and effort (`--exact-cells`, `--playouts`, `--seed`)
//! match a chosen game is kept and the game skipped; a line whose hash no
//! longer matches its record, or made with another effort, is ignored and the
//! game analysed again (a reader takes a game's last line). A torn last line (an interrupted write) is cut off first.
//! The journal is only read. Games are analysed `--concurrency` at once on
//! threads, each with its own solver table, and only the finished lines are
//! passed on, so memory grows with the table, not with the games.

use std::collections::HashSet;
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, bail};
use pahtum_analysis::analyze::{Analyzer, Settings};
use pahtum_record::GameRecord;
use pahtum_record::annotations::{Effort, GameAnalysis, record_hash};
use pahtum_report::progress::{PLAIN_EVERY, Tally};

use super::flow::live_status;
use crate::duration::parse_duration;
use crate::flags::parse_concurrency;
use crate::inputs::{analysis_path, source};
use crate::output::outln;

/// Analyse games: each move's value before and after it (exact in the endgame, estimated before), the best
/// moves, mistakes and each side's losing move, into `analysis.jsonl` beside the journal.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  arena analyze runs/mine --lost-by mybot\n  arena analyze runs/quickstart 003-01-b\n  \
                  arena analyze game.json --exact-cells 20\n\n\
                  The file's lines are documented in RECORD.md (analysis.jsonl)."
)]
pub struct Args {
    /// A journal (or a run's or a league's folder), or a game's record (what `arena game --out` and `arena play
    /// --out` write).
    pub source: PathBuf,
    /// The games to analyse [default: all those chosen by --bot or --lost-by, or every game].
    pub games: Vec<String>,
    /// Only the games this bot played.
    #[arg(long, value_name = "BOT", conflicts_with = "lost_by")]
    pub bot: Option<String>,
    /// Only the games this bot lost.
    #[arg(long, value_name = "BOT")]
    pub lost_by: Option<String>,
    /// The time the exact solver may spend on one game; the positions it has not solved by then are estimated
    /// [default: no limit, so that an analysis is the same on every machine].
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub budget: Option<Duration>,
    /// Games analysed at once, each on a thread with its own solver table.
    #[arg(long, value_name = "N", default_value = "1", value_parser = parse_concurrency)]
    pub concurrency: usize,
    /// Solve positions with at most this many free cells exactly.
    #[arg(long, value_name = "N", default_value_t = Settings::default().exact_from)]
    pub exact_cells: u32,
    /// The tree search's playouts per estimated position.
    #[arg(long, value_name = "N", default_value_t = Settings::default().playouts,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub playouts: u64,
    /// The tree search's seed.
    #[arg(long, value_name = "N", default_value_t = Settings::default().seed)]
    pub seed: u64,
    /// The solver's table has 2^BITS entries of 24 bytes, per game analysed at once.
    #[arg(long, value_name = "BITS", default_value_t = Settings::default().table_bits,
          value_parser = clap::value_parser!(u32).range(10..=30))]
    pub table_bits: u32,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let source = source(std::slice::from_ref(&args.source))?;
    let out = analysis_path(&args.source, &source);
    let games = source.games()?;
    let select = games.select(args.bot, args.lost_by, &args.source)?;
    for id in &args.games {
        games.game(id, &args.source)?;
    }
    let chosen = games
        .records
        .iter()
        .filter(|record| args.games.is_empty() || args.games.contains(&record.id))
        .filter(|record| select.takes(record));
    let settings = Settings {
        table_bits: args.table_bits,
        exact_from: args.exact_cells,
        playouts: args.playouts,
        seed: args.seed,
        budget: args.budget,
    };
    let done = analysed(&out, settings.effort())?;
    let mut kept = 0;
    let mut work = Vec::new();
    for record in chosen {
        if done.contains(&(record.id.clone(), record_hash(record))) {
            kept += 1;
        } else {
            work.push(record);
        }
    }
    let analysed = analyse_into(&out, &work, settings, args.concurrency)?;
    outln!("{}: {analysed} game(s) analysed, {kept} already there", out.display());
    Ok(ExitCode::SUCCESS)
}

/// The games and record hashes that `out` already holds with `effort`, after cutting off a torn last line.
fn analysed(out: &Path, effort: Effort) -> anyhow::Result<HashSet<(String, String)>> {
    let mut done = HashSet::new();
    let Ok(file) = std::fs::File::open(out) else {
        return Ok(done);
    };
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let mut whole = 0u64;
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .with_context(|| format!("cannot read {}", out.display()))?;
        if read == 0 || line.last() != Some(&b'\n') {
            break;
        }
        whole += read as u64;
        if let Ok(analysis) = serde_json::from_slice::<GameAnalysis>(&line)
            && analysis.effort == effort
        {
            done.insert((analysis.game, analysis.record));
        }
    }
    if !line.is_empty() {
        OpenOptions::new()
            .write(true)
            .open(out)
            .and_then(|file| file.set_len(whole))
            .with_context(|| format!("cannot cut the torn last line of {}", out.display()))?;
    }
    Ok(done)
}

/// Analyses `work` on `concurrency` threads and appends each game's line to `out` as it is done; the
/// number of games analysed.
fn analyse_into(out: &Path, work: &[&GameRecord], settings: Settings, concurrency: usize) -> anyhow::Result<usize> {
    if work.is_empty() {
        return Ok(0);
    }
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .with_context(|| format!("cannot write {}", out.display()))?;
    let mut progress = if live_status() {
        Tally::bar(work.len())
    } else {
        Tally::lines(Box::new(std::io::stderr()), PLAIN_EVERY, work.len())
    };
    progress.note(&format!(
        "arena: analysing {} game(s) into {}, {concurrency} at once",
        work.len(),
        out.display()
    ));
    let next = AtomicUsize::new(0);
    let (sender, results) = mpsc::channel();
    std::thread::scope(|scope| -> anyhow::Result<usize> {
        for _ in 0..concurrency.min(work.len()) {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || {
                let mut analyzer = Analyzer::new(settings);
                while let Some(record) = work.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if sender.send(analyzer.analyze(record)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut failed = Vec::new();
        let mut written = 0;
        for result in results {
            match result {
                Ok(analysis) => {
                    let mut line = serde_json::to_string(&analysis).expect("an analysis serializes to JSON");
                    line.push('\n');
                    file.write_all(line.as_bytes())
                        .with_context(|| format!("cannot write {}", out.display()))?;
                    written += 1;
                }
                Err(error) => {
                    progress.note(&format!(
                        "arena: {}",
                        pahtum_protocol::untrusted::escape(&format!("{error:#}"))
                    ));
                    failed.push(error.game);
                }
            }
            progress.advance();
        }
        if !failed.is_empty() {
            bail!(
                "{} game(s) could not be analysed: {}; check the journal with `arena verify`",
                failed.len(),
                failed.join(", ")
            );
        }
        Ok(written)
    })
}
