//! `analysis.jsonl` on disk: where it lies beside the games it analyses, and
//! its lines read back, for `arena analyze` (resume), `arena show` and the
//! report, which all find and read it the same way.
//!
//! A line that does not parse (a torn last line, a line of a newer format) is
//! skipped: an analysis is a help to read games, never a reason to refuse
//! them. A game may have several lines (its record changed, or it was
//! analysed again with another effort): [`latest`] takes the last line whose
//! hash is its record's.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use pahtum_record::GameRecord;

use crate::format::{GameAnalysis, record_hash};

/// The analysis file of the games in the file `games` (a journal or a
/// record): `analysis.jsonl` beside a `journal.jsonl`, else
/// `NAME.analysis.jsonl` beside `NAME.EXT`.
pub fn beside(games: &Path) -> PathBuf {
    if games.file_name().is_some_and(|name| name == "journal.jsonl") {
        return games.with_file_name("analysis.jsonl");
    }
    let stem = games.file_stem().unwrap_or_default().to_string_lossy();
    games.with_file_name(format!("{stem}.analysis.jsonl"))
}

/// Every line of the analysis file at `path` that parses, in order; nothing
/// when there is no such file.
pub fn lines(path: &Path) -> std::io::Result<impl Iterator<Item = GameAnalysis>> {
    let file = match std::fs::File::open(path) {
        Ok(file) => Some(std::io::BufReader::new(file)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => return Err(error),
    };
    Ok(file
        .into_iter()
        .flat_map(|reader| reader.split(b'\n'))
        .map_while(Result::ok)
        .filter_map(|line| serde_json::from_slice(&line).ok()))
}

/// The analysis of each of `records` that the file at `path` holds: for each,
/// its last line of the record's hash; records without one are left out.
/// Only the lines of `records` are kept, so a caller that wants a few games
/// keeps a few analyses, whatever the size of the file.
pub fn latest<'a>(
    path: &Path,
    records: impl IntoIterator<Item = &'a GameRecord>,
) -> std::io::Result<HashMap<String, GameAnalysis>> {
    let wanted: HashMap<String, String> = records
        .into_iter()
        .map(|record| (record.id.clone(), record_hash(record)))
        .collect();
    let mut found = HashMap::new();
    for analysis in lines(path)? {
        if wanted.get(&analysis.game) == Some(&analysis.record) {
            found.insert(analysis.game.clone(), analysis);
        }
    }
    Ok(found)
}
