//! The reports of a run, derived from its journal alone.
//!
//! The output folder holds `standings.md`, `standings.csv`, `standings.json`
//! and `pairs.csv` (the pair table of the strength report) beside
//! `journal.jsonl`; they are rewritten from the journal at the end of every run
//! (finished or interrupted), and `arena standings JOURNAL` computes the same
//! from any journal.

use std::path::{Path, PathBuf};

use crate::journal;
use crate::render::{Format, render};
use crate::resume::{ResumeError, plan};
use crate::standings::{Standings, standings};
use crate::strength::{AnchorSpec, StrengthError};
use crate::strength_render::pairs_csv;

/// Why the standings of a journal cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Resume(#[from] ResumeError),
    #[error(transparent)]
    Strength(#[from] StrengthError),
}

/// The standings of the journal at `path`, with the ratings relative to the pool's average or to `anchor`,
/// after checking that every record is a distinct game of its schedule.
pub fn standings_of_journal(path: &Path, anchor: Option<&AnchorSpec>) -> Result<Standings, ReportError> {
    let contents = journal::read_results(path).map_err(ResumeError::from)?;
    let tournament = &contents.header.tournament;
    let plan = plan(tournament, contents.records, path)?;
    Ok(standings(&plan.done, &tournament.bot_names(), anchor)?)
}

/// Writes the standings as Markdown, CSV and JSON, and the pair table as CSV, into `out`; returns the files
/// written.
pub fn write_standings(out: &Path, standings: &Standings) -> std::io::Result<Vec<PathBuf>> {
    let files = [Format::Markdown, Format::Csv, Format::Json]
        .into_iter()
        .map(|format| {
            let extension = if format == Format::Markdown {
                "md"
            } else {
                format.name()
            };
            (format!("standings.{extension}"), render(standings, format))
        })
        .chain([("pairs.csv".to_owned(), pairs_csv(&standings.strength))]);
    files
        .map(|(name, contents)| {
            let path = out.join(name);
            std::fs::write(&path, contents)?;
            Ok(path)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::Journal;
    use crate::testing::{played, tournament};

    #[test]
    fn standings_files_come_from_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut journal = Journal::create(&path, &tournament()).unwrap();
        journal.append(&played("000-00-a")).unwrap();
        let standings = standings_of_journal(&path, None).unwrap();
        assert_eq!(standings.games, 1);
        assert_eq!(standings.bots.len(), 3, "every bot of the header is listed");
        let written = write_standings(dir.path(), &standings).unwrap();
        let names: Vec<_> = written
            .iter()
            .map(|path| path.file_name().unwrap().to_str().unwrap())
            .collect();
        assert_eq!(names, ["standings.md", "standings.csv", "standings.json", "pairs.csv"]);
        let json = std::fs::read_to_string(dir.path().join("standings.json")).unwrap();
        assert_eq!(serde_json::from_str::<Standings>(&json).unwrap(), standings);

        let anchor: AnchorSpec = "c=1500".parse().unwrap();
        let error = standings_of_journal(&path, Some(&anchor)).unwrap_err();
        assert!(
            matches!(error, ReportError::Strength(StrengthError::AnchorWithoutGames { .. })),
            "{error}"
        );
    }
}
