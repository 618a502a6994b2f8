//! `arena book --count N`: an opening book made from random layouts and plies, kept near an even game.
//!
//! The openings are chosen by `pahtum_analysis::book` (drawn from the seed, estimated by the analysis's tree
//! search) and written in the book's line format (`pahtum_tournament::book`), under a header of comments
//! that says how the book was made, so that anyone can make it again. The text is read back by the same
//! reader a tournament uses before it is written: a book this command makes is a book every tournament and
//! match plays.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use pahtum_analysis::book::{BookSettings, TRIES_PER_OPENING, make};
use pahtum_tournament::book::{BookOpening, parse};

use crate::flags::{PieFlag, parse_block_count};
use crate::output::{errln, outln};

/// Make an opening book: random layouts and plies, optionally only those whose estimate is near an even game.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  arena book --count 50 --plies 3 --balanced 0.05 --out openings.txt\n  \
                  arena match engine heuristic --games 100 --openings openings.txt\n\n\
                  The format is documented in RECORD.md (Opening books)."
)]
pub struct Args {
    /// The openings to make.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    count: u32,
    /// The plies of each opening, after its layout (stones, and the pie decision with the pie rule).
    #[arg(long, value_name = "N", default_value_t = 2)]
    plies: usize,
    /// The block counts the layouts take in turn.
    #[arg(
        long,
        value_name = "N[,N...]",
        value_delimiter = ',',
        value_parser = parse_block_count,
        default_value = "5,7,9,11,13"
    )]
    blocks: Vec<usize>,
    /// Keep only the openings whose estimated expected result for the first seat lies within 0.5 ± BAND
    /// (e.g. 0.05) [default: keep every opening drawn].
    #[arg(long, value_name = "BAND", value_parser = parse_band)]
    balanced: Option<f64>,
    /// The tree search's playouts per estimate.
    #[arg(long, value_name = "N", default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..))]
    playouts: u64,
    /// What the layouts, the plies and the estimates are drawn from: the same flags make the same book.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    pie: PieFlag,
    /// Write the book here [default: print it].
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// A band around an even game: from 0 to 0.5.
fn parse_band(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(band) if (0.0..=0.5).contains(&band) => Ok(band),
        _ => Err(format!("{text:?} is no band: give a number from 0 to 0.5, e.g. 0.05")),
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let count = args.count as usize;
    let settings = BookSettings {
        count,
        plies: args.plies,
        block_counts: args.blocks.clone(),
        pie: args.pie.pie(),
        band: args.balanced,
        playouts: args.playouts,
        seed: args.seed,
        tries: count.saturating_mul(TRIES_PER_OPENING),
    };
    let book = make(&settings, |_, _| {})?;
    let mut text = header(&args, book.openings.len(), book.tried);
    for opening in &book.openings {
        let line = BookOpening {
            line: 0,
            blocks: opening.blocks.clone(),
            plies: opening.plies.clone(),
        };
        text += &format!("# expected {:.3}\n{}\n", opening.expected, line.to_line());
    }
    let read = parse(&text, settings.pie).context("the book made does not read back (a bug: please report it)")?;
    anyhow::ensure!(
        read.len() == count,
        "the book made reads back {} openings of {count}",
        read.len()
    );
    match &args.out {
        Some(path) => {
            std::fs::write(path, &text).with_context(|| format!("cannot write the book {}", path.display()))?;
            errln!("arena: {count} openings ({} tried) into {}", book.tried, path.display());
        }
        None => outln!("{}", text.trim_end()),
    }
    Ok(ExitCode::SUCCESS)
}

/// The book's header: how it was made, as the flags that make it again, and what its lines mean.
fn header(args: &Args, kept: usize, tried: usize) -> String {
    let blocks: Vec<String> = args.blocks.iter().map(ToString::to_string).collect();
    let mut flags = format!(
        "--count {} --plies {} --blocks {} --playouts {} --seed {}",
        args.count,
        args.plies,
        blocks.join(","),
        args.playouts,
        args.seed
    );
    if let Some(band) = args.balanced {
        flags += &format!(" --balanced {band}");
    }
    if !args.pie.pie() {
        flags += " --no-pie";
    }
    let kept_how = match args.balanced {
        Some(band) => format!(
            "kept when the tree search's estimate of the first seat's expected result ({} playouts) lies \
             within 0.5 ± {band}: {kept} of {tried} tried",
            args.playouts
        ),
        None => format!(
            "every one kept ({kept}), each with its estimate ({} playouts)",
            args.playouts
        ),
    };
    format!(
        "# An opening book made by `arena book {flags}` (pahtum-arena {}).\n\
         # Each opening: a random layout (its block count in turn from --blocks), then {} plies drawn at random\n\
         # among the legal ones; {kept_how}.\n\
         # A line: the blocked cells, `|`, the given plies (RECORD.md, \"Opening books\").\n",
        env!("CARGO_PKG_VERSION"),
        args.plies
    )
}
