//! The runs of the served folder: each folder in it that holds a journal.
//!
//! A run is named by its folder's name inside the served folder, and found
//! by listing that folder, never by joining a path from a request: a name
//! with a separator, `..`, a leading dot or a NUL is refused before any
//! look-up, and a folder that is a link leading out of the served folder is
//! not a run. What a run's summary says comes from its journal, folded as
//! every other command folds it, and from the kernel's
//! table of file locks: a journal that an arena holds locked is being
//! played now.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use pahtum_report::fold::Folded;

/// The journal's name in a run's folder.
pub const JOURNAL: &str = "journal.jsonl";

/// What the runs page says of one run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunSummary {
    /// The folder's name in the served folder.
    pub name: String,
    /// The tournament's name, from the journal's header.
    pub tournament: String,
    /// Games in the journal.
    pub games: usize,
    /// Games of the schedule.
    pub scheduled: usize,
    /// The first of the standings, once a game is in.
    pub leader: Option<String>,
    /// Playing, finished or interrupted.
    pub state: RunState,
    /// When the journal last changed, in seconds since the Unix epoch.
    pub changed: Option<u64>,
}

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// An arena holds its journal now.
    Playing,
    /// Every game of its schedule is in the journal.
    Finished,
    /// Neither: stopped before its end (resumable).
    Interrupted,
}

/// The journal of the run `name` in `dir`, if `name` is the name of a folder
/// of `dir` that holds one and lies inside `dir`.
pub fn journal_of(dir: &Path, name: &str) -> Option<PathBuf> {
    let plain = !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\', '\0']) && name.len() <= 255;
    if !plain {
        return None;
    }
    let listed = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .any(|entry| entry.file_name() == name);
    if !listed {
        return None;
    }
    let root = dir.canonicalize().ok()?;
    let journal = root.join(name).join(JOURNAL).canonicalize().ok()?;
    (journal.starts_with(&root) && journal.is_file()).then_some(journal)
}

/// The runs of `dir`, by name, with their journals.
pub fn list(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|entry| entry.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
        .into_iter()
        .filter_map(|name| {
            let journal = journal_of(dir, &name)?;
            Some((name, journal))
        })
        .collect()
}

/// What the runs page says of the run `name`, whose journal at `journal` holds what `folded` counts.
pub fn summary(name: String, journal: &Path, folded: &Folded) -> RunSummary {
    let standings = &folded.standings;
    let playing = locked(journal);
    let state = if playing {
        RunState::Playing
    } else if standings.games >= folded.scheduled {
        RunState::Finished
    } else {
        RunState::Interrupted
    };
    let changed = std::fs::metadata(journal)
        .and_then(|meta| meta.modified())
        .ok()
        .and_then(|time| time.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map(|since| since.as_secs());
    RunSummary {
        name,
        tournament: folded.tournament.name.clone(),
        games: standings.games,
        scheduled: folded.scheduled,
        leader: (standings.games > 0)
            .then(|| standings.bots.first().map(|bot| bot.bot.clone()))
            .flatten(),
        state,
        changed,
    }
}

/// Whether a process holds a `flock` on `path`: the kernel's `/proc/locks`
/// lists it by device and inode. Read, not taken: taking even a shared lock
/// for a moment would make an arena that starts then find the journal locked.
pub fn locked(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    let dev = meta.dev();
    let id = format!(
        "{:02x}:{:02x}:{}",
        rustix::fs::major(dev),
        rustix::fs::minor(dev),
        meta.ino()
    );
    std::fs::read_to_string("/proc/locks").is_ok_and(|locks| {
        locks
            .lines()
            .any(|line| line.contains("FLOCK") && line.split_whitespace().any(|field| field == id))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_found_by_a_plain_name_inside_the_folder_only() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        for folder in [dir.path().join("m"), outside.path().join("x")] {
            std::fs::create_dir(&folder).unwrap();
            std::fs::write(folder.join(JOURNAL), "").unwrap();
        }
        std::os::unix::fs::symlink(outside.path().join("x"), dir.path().join("away")).unwrap();
        assert!(journal_of(dir.path(), "m").is_some());
        for name in [
            "", ".", "..", "../m", "m/", "/etc", "m\\x", ".hidden", "away", "nothing", "m\0",
        ] {
            assert_eq!(journal_of(dir.path(), name), None, "{name:?}");
        }
    }

    #[test]
    fn a_locked_journal_is_seen_as_locked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL);
        let file = std::fs::File::create(&path).unwrap();
        assert!(!locked(&path));
        rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).unwrap();
        assert!(locked(&path));
        drop(file);
        assert!(!locked(&path));
    }
}
