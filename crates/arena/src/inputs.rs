//! The games a command reads: a journal, a run's folder (which holds
//! `journal.jsonl`), or a folder of a sharded run's `shard-K-of-N` folders;
//! several of them are merged into one first, as `arena merge` does. A
//! league's folder (or its shards' copies) does as well: its games are read
//! by the league's reader, its entrants are the bots. Where a
//! command reads games rather than a tournament (`arena show`, `arena
//! report`, `arena analyze`), a single game's record (what `arena game --out` and `arena play
//! --out` write) does as well: [`source`] tells the two apart.

use std::collections::BTreeSet;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use pahtum_journal::merge::merge;
use pahtum_journal::sink::Records;
use pahtum_journal::{self as journal, Moves};
use pahtum_league as league;
use pahtum_record::GameRecord;
use pahtum_record::annotations::beside;
use pahtum_report::show::{Select, bots_of};
use pahtum_run::resume::JOURNAL;
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
    if inputs.first().is_some_and(|first| league::is_league_journal(first)) {
        // The shards of a league, as `arena merge` joins them.
        league::merge::merge(&inputs, &journal)?;
        return Ok((journal, Some(folder)));
    }
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

/// Where a command's games come from: one game's record, or a journal.
#[derive(Debug)]
pub enum Source {
    /// A game's record, as `arena game --out` and `arena play --out` write it; it replays.
    Record {
        /// The record's file.
        path: PathBuf,
        /// The game.
        record: Box<GameRecord>,
    },
    /// A journal: the one given or in the run folder given, or those given merged into a temporary folder
    /// (`merged`), which lives as long as this.
    Journal {
        /// The journal.
        path: PathBuf,
        /// The temporary folder of a merged journal.
        merged: Option<tempfile::TempDir>,
    },
}

/// The games of `paths`: a game's record alone, or journals, run folders and folders of shards as
/// [`one_journal`] takes them. A file is a journal if its first line is a journal's header.
pub fn source(paths: &[PathBuf]) -> anyhow::Result<Source> {
    for path in paths {
        if path.is_dir() || is_journal(path)? {
            continue;
        }
        if paths.len() > 1 {
            bail!(
                "{} is not a journal; a game's record is read alone, not with journals",
                path.display()
            );
        }
        return Ok(Source::Record {
            path: path.clone(),
            record: Box::new(read_record(path)?),
        });
    }
    let (path, merged) = one_journal(paths)?;
    Ok(Source::Journal { path, merged })
}

/// Where the analysis of the games of `named` (which is `source`) lies: beside its journal or record
/// ([`pahtum_record::annotations::beside`]), or in the folder of shards whose journals were merged.
pub fn analysis_path(named: &Path, source: &Source) -> PathBuf {
    match source {
        Source::Journal { path, merged: None } => beside(path),
        Source::Journal { merged: Some(_), .. } => named.join("analysis.jsonl"),
        Source::Record { .. } => beside(named),
    }
}

/// Every game of a source, in memory, and the names of its bots.
#[derive(Debug)]
pub struct Games {
    /// The records, in the order of the journal.
    pub records: Vec<GameRecord>,
    /// The bots of a journal's tournament or a league's entrants (those without a game too), or a record's
    /// two.
    pub bots: BTreeSet<String>,
}

impl Source {
    /// Reads every game of the source.
    pub fn games(self) -> anyhow::Result<Games> {
        match self {
            Source::Record { record, .. } => Ok(Games {
                bots: bots_of(std::slice::from_ref(&record)),
                records: vec![*record],
            }),
            Source::Journal { path, .. } if league::is_league_journal(&path) => {
                let mut records = Records::default();
                let read = league::read(&path, Moves::Keep, &mut records)?;
                let records = records.0;
                let mut bots = bots_of(&records);
                bots.extend(read.state.entrants().iter().map(league::Entrant::label));
                Ok(Games { records, bots })
            }
            Source::Journal { path, .. } => {
                let contents = journal::read(&path)?;
                let mut bots = bots_of(&contents.records);
                bots.extend(contents.schedule.tournament().bot_names());
                Ok(Games {
                    records: contents.records,
                    bots,
                })
            }
        }
    }
}

impl Games {
    /// The games that `--bot` or `--lost-by` choose (every game without either), checked against the
    /// bots these games have; `source` is what the user named, for the error.
    pub fn select(&self, bot: Option<String>, lost_by: Option<String>, source: &Path) -> anyhow::Result<Select> {
        let select = match (bot, lost_by) {
            (Some(bot), _) => Select::Bot(bot),
            (None, Some(bot)) => Select::LostBy(bot),
            (None, None) => Select::All,
        };
        select
            .check(&self.bots)
            .with_context(|| format!("cannot list the games of {}", source.display()))?;
        Ok(select)
    }

    /// The game `id`; `source` is what the user named, for the error.
    pub fn game(&self, id: &str, source: &Path) -> anyhow::Result<&GameRecord> {
        match self.records.iter().find(|record| record.id == id) {
            Some(record) => Ok(record),
            None => bail!(
                "{} has no game {id:?}; run `arena show {}` for the list",
                source.display(),
                source.display()
            ),
        }
    }
}

/// Whether the file at `path` starts with a journal's header: a JSON object with a `journal` key on the
/// first line (a record is one object, on one line or pretty-printed).
fn is_journal(path: &Path) -> anyhow::Result<bool> {
    let file = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut first = Vec::new();
    std::io::BufReader::new(file)
        .read_until(b'\n', &mut first)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let header = serde_json::from_slice::<serde_json::Value>(&first);
    Ok(header.is_ok_and(|header| header.get("journal").is_some()))
}

/// The game record in the file at `path`, checked by replaying it.
fn read_record(path: &Path) -> anyhow::Result<GameRecord> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let record: GameRecord = serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is neither a journal nor a game's record (as `arena game --out` writes)",
            path.display()
        )
    })?;
    record
        .replay()
        .with_context(|| format!("the game in {} does not replay", path.display()))?;
    Ok(record)
}
