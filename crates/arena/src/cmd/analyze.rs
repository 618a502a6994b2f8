//! `arena analyze SOURCE [GAME_ID...]`: where each game was lost.
//!
//! The analysis itself is `pahtum_analysis` (records in, values out, no
//! processes), and so is the analysis of many games into a file
//! ([`driver`]: the threads, the resume, the torn last line). This command
//! chooses the games a user names and the file: `analysis.jsonl` beside a
//! run's `journal.jsonl` (`NAME.analysis.jsonl` beside any other journal or
//! record `NAME.EXT`), one line per game, appended as each game is done; it
//! shows the progress on stderr and prints how many games were analysed.
//! The journal is only read.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use pahtum_analysis::analyze::{AnalysisError, Settings};
use pahtum_analysis::driver::{self, Observer, Outcome};
use pahtum_report::progress::{PLAIN_EVERY, Tally};

use super::flow::live_status;
use crate::duration::parse_duration;
use crate::flags::parse_concurrency;
use crate::inputs::source;
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
    /// The tree search's playouts through each estimated position (those the position before spent below the move
    /// played count).
    #[arg(long, value_name = "N", default_value_t = Settings::default().playouts,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub playouts: u64,
    /// The tree search's seed.
    #[arg(long, value_name = "N", default_value_t = Settings::default().seed)]
    pub seed: u64,
    /// The solver's table has 2^BITS entries of 32 bytes, per game analysed at once.
    #[arg(long, value_name = "BITS", default_value_t = Settings::default().table_bits,
          value_parser = clap::value_parser!(u32).range(10..=30))]
    pub table_bits: u32,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let source = source(std::slice::from_ref(&args.source))?;
    let out = source.analysis_path(&args.source);
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
    let mut progress = Progress {
        tally: None,
        out: &out,
        concurrency: args.concurrency,
    };
    let outcome = driver::run(&out, chosen, settings, args.concurrency, &mut progress);
    drop(progress);
    let Outcome { analysed, kept } = outcome?;
    outln!("{}: {analysed} game(s) analysed, {kept} already there", out.display());
    Ok(ExitCode::SUCCESS)
}

/// The progress on stderr: a bar on a terminal, else a line every few seconds, and the games that could not
/// be analysed.
struct Progress<'a> {
    tally: Option<Tally>,
    out: &'a std::path::Path,
    concurrency: usize,
}

impl Observer for Progress<'_> {
    fn started(&mut self, games: usize) {
        let tally = self.tally.insert(if live_status() {
            Tally::bar(games)
        } else {
            Tally::lines(Box::new(std::io::stderr()), PLAIN_EVERY, games)
        });
        tally.note(&format!(
            "arena: analysing {games} game(s) into {}, {} at once",
            self.out.display(),
            self.concurrency
        ));
    }

    fn failed(&mut self, error: &AnalysisError) {
        if let Some(tally) = &mut self.tally {
            tally.note(&format!(
                "arena: {}",
                pahtum_protocol::untrusted::escape(&format!("{error:#}"))
            ));
        }
    }

    fn advanced(&mut self) {
        if let Some(tally) = &mut self.tally {
            tally.advance();
        }
    }
}
