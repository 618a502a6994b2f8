//! The journals a command reads: a journal, a run's folder (which holds
//! `journal.jsonl`), or a folder of a sharded run's `shard-K-of-N` folders;
//! several of them are merged into one first, as `arena merge` does.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use pahtum_tournament::merge::merge;
use pahtum_tournament::resume::JOURNAL;
use pahtum_tournament::shard::Shard;

use crate::output::errln;

/// A run's folder names its journal; anything else is the journal itself.
pub fn journal_path(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join(JOURNAL)
    } else {
        path.to_owned()
    }
}

/// The journals that `paths` name: a journal is itself, a run folder its journal.jsonl, and a folder
/// of shards the journals of its `shard-K-of-N` folders, in shard order.
pub fn journals(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut journals = Vec::new();
    for path in paths {
        if !path.is_dir() {
            journals.push(path.clone());
            continue;
        }
        if path.join(JOURNAL).exists() {
            journals.push(path.join(JOURNAL));
            continue;
        }
        let mut shards: Vec<(Shard, PathBuf)> = std::fs::read_dir(path)
            .with_context(|| format!("cannot list the folder {}", path.display()))?
            .filter_map(|entry| {
                let entry = entry.ok()?;
                let shard = Shard::from_folder_name(entry.file_name().to_str()?)?;
                Some((shard, entry.path().join(JOURNAL)))
            })
            .filter(|(_, journal)| journal.exists())
            .collect();
        if shards.is_empty() {
            bail!(
                "{} holds neither {JOURNAL} nor shard-K-of-N folders with one; give a journal or a run folder",
                path.display()
            );
        }
        shards.sort_by_key(|(shard, _)| (shard.count(), shard.index()));
        journals.extend(shards.into_iter().map(|(_, journal)| journal));
    }
    Ok(journals)
}

/// One journal for `paths` (see [`journals`]): the journal itself when there is one, else the
/// journals merged into a temporary folder, which lives as long as the folder returned.
pub fn one_journal(paths: &[PathBuf]) -> anyhow::Result<(PathBuf, Option<tempfile::TempDir>)> {
    let inputs = journals(paths)?;
    if let [journal] = inputs.as_slice() {
        return Ok((journal.clone(), None));
    }
    let folder = tempfile::tempdir().context("cannot create a temporary folder to merge the journals in")?;
    let journal = folder.path().join(JOURNAL);
    let merged = merge(&inputs, &journal)?;
    if !merged.missing.is_empty() {
        errln!(
            "arena: {} of {} games are missing from these journals (arena merge lists them)",
            merged.missing.len(),
            merged.scheduled
        );
    }
    Ok((journal, Some(folder)))
}
