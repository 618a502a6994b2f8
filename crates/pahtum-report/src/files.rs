//! The report files of a run, written beside its journal.
//!
//! The output folder holds `standings.md`, `standings.csv`, `standings.json`,
//! `pairs.csv` (the pair table of the strength report) and `report.html` beside
//! `journal.jsonl`; they are rewritten from the journal at the end of every run
//! (finished or interrupted), and `arena standings JOURNAL` and `arena report
//! JOURNAL` compute the same from any journal. The HTML report is written
//! atomically (a temporary file in the same folder, then a rename), so that a
//! run interrupted while writing it never leaves half a page.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use pahtum_standings::standings::Standings;

use crate::fit::Fit;
use crate::render::{Format, render};
use crate::strength_render::pairs_csv;

/// The name of the HTML report in a run's folder.
pub const REPORT_HTML: &str = "report.html";

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
            (format!("standings.{extension}"), render(standings, format, Fit::WIDE))
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

/// Writes `contents` to `path` atomically: into a temporary file beside it, synced, then renamed over it.
pub fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    write_atomically_with(path, |out| out.write_all(contents))
}

/// Writes what `write` writes to `path` atomically, as [`write_atomically`] does, buffered: so that a page
/// can be written a piece at a time, never whole in memory.
pub fn write_atomically_with<E: From<std::io::Error>>(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<(), E>,
) -> Result<(), E> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temporary = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = File::create(&temporary).map_err(E::from).and_then(|file| {
        let mut out = BufWriter::new(file);
        write(&mut out)?;
        let file = out.into_inner().map_err(|error| E::from(error.into_error()))?;
        file.sync_all().map_err(E::from)
    });
    match written.and_then(|()| std::fs::rename(&temporary, path).map_err(E::from)) {
        Ok(()) => Ok(()),
        Err(error) => {
            // The temporary file is ours; a failure to remove it too changes nothing for the caller.
            let _ = std::fs::remove_file(&temporary);
            Err(error)
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fold::standings_of_journal;
    use pahtum_journal::Journal;
    use pahtum_tournament::testing::{played, tournament};

    use super::*;

    #[test]
    fn standings_files_come_from_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut journal = Journal::create(&path, &tournament()).unwrap();
        journal.append(&played("000-00-a")).unwrap();
        let standings = standings_of_journal(&path, None).unwrap();
        let written = write_standings(dir.path(), &standings).unwrap();
        let names: Vec<_> = written
            .iter()
            .map(|path| path.file_name().unwrap().to_str().unwrap())
            .collect();
        assert_eq!(names, ["standings.md", "standings.csv", "standings.json", "pairs.csv"]);
        let json = std::fs::read_to_string(dir.path().join("standings.json")).unwrap();
        assert_eq!(serde_json::from_str::<Standings>(&json).unwrap(), standings);
    }

    #[test]
    fn an_atomic_write_replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(REPORT_HTML);
        std::fs::write(&path, "old").unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [REPORT_HTML]);
    }

    #[test]
    fn a_failed_atomic_write_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let error = write_atomically(&dir.path().join("missing/report.html"), b"x").unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
