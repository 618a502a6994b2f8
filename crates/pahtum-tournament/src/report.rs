//! The reports of a run, derived from its journal alone.
//!
//! The output folder holds `standings.md`, `standings.csv` and
//! `standings.json` beside `journal.jsonl`; they are rewritten from the
//! journal at the end of every run (finished or interrupted), and
//! `arena standings JOURNAL` computes the same from any journal.

use std::path::{Path, PathBuf};

use crate::journal;
use crate::render::{Format, render};
use crate::resume::{ResumeError, plan};
use crate::standings::{Standings, standings};

/// The standings of the journal at `path`, after checking that every record is a distinct game of its schedule.
pub fn standings_of_journal(path: &Path) -> Result<Standings, ResumeError> {
    let contents = journal::read_results(path)?;
    let tournament = &contents.header.tournament;
    let plan = plan(tournament, contents.records, path)?;
    Ok(standings(&plan.done, &tournament.bot_names()))
}

/// Writes the standings as Markdown, CSV and JSON into `out`; returns the files written.
pub fn write_standings(out: &Path, standings: &Standings) -> std::io::Result<Vec<PathBuf>> {
    [(Format::Markdown, "md"), (Format::Csv, "csv"), (Format::Json, "json")]
        .into_iter()
        .map(|(format, extension)| {
            let path = out.join(format!("standings.{extension}"));
            std::fs::write(&path, render(standings, format))?;
            Ok(path)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::Journal;
    use crate::testing::{record, tournament};

    #[test]
    fn standings_files_come_from_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut journal = Journal::create(&path, &tournament()).unwrap();
        journal.append(&record("000-00-a", "a", "b")).unwrap();
        let standings = standings_of_journal(&path).unwrap();
        assert_eq!(standings.games, 1);
        assert_eq!(standings.bots.len(), 3, "every bot of the header is listed");
        let written = write_standings(dir.path(), &standings).unwrap();
        assert_eq!(written.len(), 3);
        let json = std::fs::read_to_string(dir.path().join("standings.json")).unwrap();
        assert_eq!(serde_json::from_str::<Standings>(&json).unwrap(), standings);
    }
}
