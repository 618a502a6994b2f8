//! What a command does to a league's folder without starting a process: write a
//! new league, retire entrants, compute the table, join the folders of a
//! sharded round.
//!
//! These are the league's commands as library calls (`arena league init`,
//! `retire`, `table` and `arena merge` of league folders), so that the command
//! line only parses its flags and prints what they return; they live here, in
//! the crate without processes, because none of them plays a game (adding an
//! entrant and playing a round are `pahtum-runner`'s). Each error says what
//! went wrong and what to do, its cause kept as its source.

use std::io;
use std::path::{Path, PathBuf};

use pahtum_journal::Moves;
use pahtum_journal::sink::Counts;
use pahtum_record::unix_ms;
use pahtum_run::resume::JOURNAL;
use pahtum_standings::strength::StrengthError;

use super::decide::to_retire;
use super::folder;
use super::lines::{Event, Retirement};
use super::merge::{Merged, merge};
use super::read::LeagueError;
use super::table::{Table, fold, table};

/// Why a league's command failed.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The league's folder, journal or rules.
    #[error(transparent)]
    League(#[from] LeagueError),
    /// The rating fit of the table.
    #[error(transparent)]
    Fit(#[from] StrengthError),
    /// The league's folder has no name to take (it cannot be made absolute).
    #[error(transparent)]
    Folder(io::Error),
    /// The league's folder has no name to take (it is `/`).
    #[error("give the league a name with --name")]
    Unnamed,
    /// A retirement names no active entrant.
    #[error("no active entrant is {entrant:?}; `arena league table {}` lists them", dir.display())]
    NotActive {
        /// What the retirement named.
        entrant: String,
        /// The league's folder.
        dir: PathBuf,
    },
    /// The journal whose ratings seed a knockout cannot be read.
    #[error("cannot read the ratings of {} to seed the knockout", path.display())]
    Seeds {
        /// The journal.
        path: PathBuf,
        /// Why.
        #[source]
        source: Box<pahtum_journal::JournalError>,
    },
    /// The output folder of a merge cannot be created.
    #[error("cannot create the output folder {}", path.display())]
    Output {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

/// The bots `names` in seed order by the ratings of the earlier run whose journal is `path` (a tournament's,
/// or a league's, whose entrant `NAME@VERSION` rates the bot `NAME` by its best-rated version): the best
/// rated first, then those it did not rate, in the order given.
pub fn seeds_by_rating(path: &Path, names: &[String]) -> Result<Vec<String>, ServiceError> {
    let ratings: Vec<(String, f64)> = if super::read::is_league_journal(path) {
        let dir = path.parent().unwrap_or(Path::new("."));
        let table = table_of(dir)?;
        table
            .active
            .iter()
            .chain(&table.retired)
            .filter_map(|row| {
                let name = row
                    .entrant
                    .split_once('@')
                    .map_or(row.entrant.as_str(), |(name, _)| name);
                Some((name.to_owned(), row.elo?))
            })
            .collect()
    } else {
        let seeds = |source| ServiceError::Seeds {
            path: path.to_owned(),
            source: Box::new(source),
        };
        let mut tallies = pahtum_standings::standings::Tallies::new(&[]);
        pahtum_journal::JournalReader::open(path)
            .map_err(seeds)?
            .for_each(Moves::Drop, |record| tallies.add(&record))
            .map_err(seeds)?;
        let standings = tallies.finish(None)?;
        names
            .iter()
            .filter_map(|name| Some((name.clone(), standings.strength.rating(name)?.elo)))
            .collect()
    };
    let best = |name: &str| {
        ratings
            .iter()
            .filter(|(rated, _)| rated == name)
            .map(|&(_, elo)| elo)
            .max_by(f64::total_cmp)
    };
    let mut order: Vec<(usize, Option<f64>)> = names.iter().enumerate().map(|(i, name)| (i, best(name))).collect();
    // Stable: the rated by Elo, best first; then the unrated, in the order given.
    order.sort_by(|(_, a), (_, b)| match (a, b) {
        (Some(a), Some(b)) => b.total_cmp(a),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    Ok(order.into_iter().map(|(i, _)| names[i].clone()).collect())
}

/// Writes a new league in `dir` (created if missing), named `name` or else after its folder, with every rule
/// at its default and an empty journal ([`folder::init`]); its name.
pub fn init(dir: &Path, name: Option<&str>) -> Result<String, ServiceError> {
    let name = match name {
        Some(name) => name.to_owned(),
        None => std::path::absolute(dir)
            .map_err(ServiceError::Folder)?
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .ok_or(ServiceError::Unnamed)?,
    };
    folder::init(dir, &name)?;
    Ok(name)
}

/// Retires the active entrant `entrant` (`NAME@VERSION`), or every active version of the bot `entrant`
/// (`NAME`), of the league in `dir`, handing `retired` each label once its retirement is in the journal.
pub fn retire(dir: &Path, entrant: &str, mut retired: impl FnMut(&str)) -> Result<(), ServiceError> {
    let mut opened = folder::open(dir)?;
    let labels = to_retire(&opened.state, entrant);
    if labels.is_empty() {
        return Err(ServiceError::NotActive {
            entrant: entrant.to_owned(),
            dir: dir.to_owned(),
        });
    }
    for label in labels {
        opened.record(Event::Retired(Retirement {
            entrant: label.clone(),
            unix_ms: unix_ms(),
        }))?;
        retired(&label);
    }
    Ok(())
}

/// The table of the league in `dir`: one joint fit of every game of its journal.
pub fn table_of(dir: &Path) -> Result<Table, ServiceError> {
    let (state, tallies) = fold(&dir.join(JOURNAL), Moves::Drop, &mut Counts)?;
    Ok(table(&state, tallies, None)?)
}

/// What [`merge_folders`] did.
#[derive(Debug)]
pub struct FolderMerge {
    /// The merge of the journals.
    pub merged: Merged,
    /// The merged journal.
    pub journal: PathBuf,
    /// The merged league's table.
    pub table: Table,
}

/// Joins the league journals `inputs` (the shards of a round, each in its league's folder) into the folder
/// `out` (created if missing): the merged journal ([`merge`]), with the rules and the entrants' snapshots
/// of the first input's folder when `out` has none ([`folder::copy_league`]), and its table.
pub fn merge_folders(out: &Path, inputs: &[PathBuf]) -> Result<FolderMerge, ServiceError> {
    std::fs::create_dir_all(out).map_err(|source| ServiceError::Output {
        path: out.to_owned(),
        source,
    })?;
    let journal = out.join(JOURNAL);
    let merged = merge(inputs, &journal)?;
    if let Some(first) = inputs[0].parent() {
        folder::copy_league(first, out)?;
    }
    Ok(FolderMerge {
        merged,
        table: table_of(out)?,
        journal,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_league_takes_its_folders_name_and_refuses_a_second_start() {
        let dir = tempfile::tempdir().unwrap();
        let league = dir.path().join("class-of-25");
        assert_eq!(init(&league, None).unwrap(), "class-of-25");
        let again = init(&league, Some("other")).unwrap_err();
        assert!(again.to_string().contains("holds a league already"), "{again}");
        assert_eq!(init(&dir.path().join("b"), Some("named")).unwrap(), "named");
        let table = table_of(&league).unwrap();
        assert_eq!((table.league.as_str(), table.games), ("class-of-25", 0));
    }

    #[test]
    fn a_retirement_is_recorded_for_each_active_version_or_refused() {
        let dir = tempfile::tempdir().unwrap();
        init(dir.path(), Some("test")).unwrap();
        let mut opened = folder::open(dir.path()).unwrap();
        for (number, (name, version)) in [("a", "1"), ("a", "2"), ("b", "1")].into_iter().enumerate() {
            let entrant = crate::testing::entrant(number, name, version);
            opened.record(Event::Entrant(entrant)).unwrap();
        }
        drop(opened);
        let mut retired = Vec::new();
        retire(dir.path(), "a", |label| retired.push(label.to_owned())).unwrap();
        assert_eq!(retired, ["a@1", "a@2"]);
        let error = retire(dir.path(), "a@1", |_| panic!("none to retire")).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "no active entrant is \"a@1\"; `arena league table {}` lists them",
                dir.path().display()
            )
        );
        let table = table_of(dir.path()).unwrap();
        let retired: Vec<&str> = table.retired.iter().map(|row| row.entrant.as_str()).collect();
        assert_eq!(retired, ["a@1", "a@2"]);
    }
}
