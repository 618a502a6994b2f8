//! `arena merge OUT JOURNAL_OR_DIR...`: the journals of a sharded run joined into one run folder.
//!
//! The shards of `arena run --shard K/N` each leave `OUT/shard-K-of-N/journal.jsonl`; this command
//! merges them (pahtum-tournament's merge module: same tournament, no disagreeing overlap) into
//! `OUT/journal.jsonl` (every record checked, each of a shard's journal a game of the shard its header
//! names) and writes the standings, ratings and report beside it through the same call as
//! `arena run` (`pahtum_report::run_report::write_run_reports`), so a merged run's files are those of an unsharded
//! run. Games still missing are listed by shard (a shard that never ran is named), and the exit code
//! is then 1, so that a dependent job notices. The shards of a league's round (`arena league run --shard`)
//! merge into a league's folder (`arena league`'s merge).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use pahtum_journal::merge::{Merged, merge};
use pahtum_league::is_league_journal;
use pahtum_report::run_report::write_run_reports;
use pahtum_report::sources::journals;
use pahtum_run::events::RunEnding;
use pahtum_run::resume::JOURNAL;
use pahtum_tournament::shard::Shard;

use super::flow;
use crate::output::errln;

/// How many ids of a shard's missing games are printed.
const MISSING_SHOWN: usize = 10;

/// Merge the journals of a sharded run into one run folder, with its standings and report.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "Examples:
  arena merge runs/big runs/big                      (the shard-K-of-N folders in runs/big)
  arena merge runs/all a/journal.jsonl b/journal.jsonl")]
pub struct Args {
    /// The output folder: journal.jsonl, the standings files and report.html are written there.
    pub out: PathBuf,
    /// Journals, run folders (holding journal.jsonl), or folders holding shard-K-of-N run folders.
    #[arg(required = true)]
    pub journals: Vec<PathBuf>,
    #[command(flatten)]
    pub wide: crate::flags::WideFlag,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let inputs = journals(&args.journals)?;
    if inputs.first().is_some_and(|journal| is_league_journal(journal)) {
        return super::league::merge(&args.out, &inputs, args.wide);
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create the output folder {}", args.out.display()))?;
    let journal = args.out.join(JOURNAL);
    if inputs.contains(&journal) {
        bail!(
            "{} is both an input and the merged journal; merge into another folder",
            journal.display()
        );
    }
    let merged = merge(&inputs, &journal)?;
    if merged.agreeing_duplicates > 0 {
        errln!(
            "arena: {} games were recorded twice the same (kept once)",
            merged.agreeing_duplicates
        );
    }
    if merged.torn > 0 {
        errln!(
            "arena: dropped {} torn last lines (games cut off by a crash)",
            merged.torn
        );
    }
    let (standings, written) = write_run_reports(&args.out, &journal, None, None)?;
    let lead = format!(
        "{} of {} games, from {} journals\n",
        merged.games,
        merged.scheduled,
        inputs.len()
    );
    let code = flow::report(
        &lead,
        &standings,
        args.wide.fit(),
        &journal,
        &written,
        RunEnding::Finished,
        "",
    );
    if merged.missing.is_empty() {
        return Ok(code);
    }
    report_missing(&merged, &inputs);
    Ok(ExitCode::FAILURE)
}

/// Says on stderr which games are missing, by shard when the journals' headers (or, for journals from
/// before headers named their shards, their folders) name their shards.
fn report_missing(merged: &Merged, inputs: &[PathBuf]) {
    errln!(
        "arena: the merged journal is incomplete: {} of {} games are missing",
        merged.missing.len(),
        merged.scheduled
    );
    let mut shards = merged.shards.clone();
    shards.extend(inputs.iter().filter_map(|path| shard_of(path)));
    let Some(count) = shards.first().map(|shard| shard.count()) else {
        return;
    };
    for (shard, ids) in merged.missing_by_shard(count) {
        let given = if shards.contains(&shard) {
            "its journal lacks them; run the shard again to finish it"
        } else {
            "no journal of this shard was given; run it, or give its journal"
        };
        let shown: Vec<&str> = ids.iter().take(MISSING_SHOWN).map(String::as_str).collect();
        let more = if ids.len() > MISSING_SHOWN { ", ..." } else { "" };
        errln!(
            "  {}: {} games missing ({}{more}): {given}",
            shard.folder_name(),
            ids.len(),
            shown.join(", ")
        );
    }
}

/// The shard whose run folder holds the journal at `path`, by the folder's name.
fn shard_of(path: &Path) -> Option<Shard> {
    Shard::from_folder_name(path.parent()?.file_name()?.to_str()?)
}
