//! The build queue: each queued submission unpacked, staged, built and
//! checked by the league's own admission, one at a time.
//!
//! The queue is the database's (`queued` submissions, oldest first, never
//! two of one author at once), so that a server killed mid-build finds its
//! work again: at start the submissions cut off in `building` or `checking`
//! are queued again ([`crate::store::Store::requeue_interrupted`]) and build
//! from the start. A build runs while the ladder plays: the league's state
//! is read without its lock, and only the entrant's join waits for the
//! ladder's turn to end ([`crate::ladder`]).
//!
//! Everything about one submission stays in its own folder
//! (`submissions/N/`): the unpacked upload, then its build's and check's
//! logs. A refusal at any step is the submission's `error`, in plain words.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use pahtum_journal::Moves;
use pahtum_journal::sink::Counts;
use pahtum_league::read::read;
use pahtum_runner::league::{Checker, Naming, Prepared, Step, Submission as LeagueSubmission, prepare};
use pahtum_upload::{Caps, Unpacked, sniff, unpack};
use tokio::sync::Notify;

use crate::config::Limits;
use crate::service::{LEAGUE, SUBMISSIONS, UPLOADS};
use crate::store::{Store, Submission, SubmissionState, now_ms};

/// The unpacked upload's folder in a submission's.
pub const FILES: &str = "files";

/// The entrants built and checked, waiting for the ladder to let them join: each with its submission.
#[derive(Debug)]
pub struct Ready {
    prepared: Mutex<Vec<(i64, Prepared)>>,
    /// The retired versions their authors made active again, by label.
    activated: Mutex<Vec<String>>,
    /// Told when one is ready, or when the organiser changed who plays.
    pub arrived: Arc<Notify>,
}

impl Ready {
    /// None ready yet; `arrived` rings the ladder.
    pub fn new(arrived: Arc<Notify>) -> Ready {
        Ready {
            prepared: Mutex::new(Vec::new()),
            activated: Mutex::new(Vec::new()),
            arrived,
        }
    }

    fn push(&self, submission: i64, prepared: Prepared) {
        self.prepared
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push((submission, prepared));
        self.arrived.notify_one();
    }

    /// Asks the ladder to make the retired entrant `label` its bot's active version again.
    pub fn activate(&self, label: String) {
        self.activated
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(label);
        self.arrived.notify_one();
    }

    /// Takes every activation asked for.
    pub fn take_activated(&self) -> Vec<String> {
        std::mem::take(&mut *self.activated.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }

    /// Takes every entrant ready.
    pub fn take(&self) -> Vec<(i64, Prepared)> {
        std::mem::take(&mut *self.prepared.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}

/// The folder of submission `id`'s files and logs in the contest's folder `dir`.
pub fn submission_dir(dir: &Path, id: i64) -> PathBuf {
    dir.join(SUBMISSIONS).join(id.to_string())
}

/// The upload caps of the contest's limits.
pub fn caps(limits: &Limits) -> Caps {
    Caps {
        entries: limits.upload_entries,
        depth: limits.upload_depth,
        file_bytes: limits.upload_expanded_bytes,
        total_bytes: limits.upload_expanded_bytes,
        ..Caps::DEFAULT
    }
}

/// Builds queued submissions, `limits.builders` at once (each author's one at a time), until dropped: each
/// builder claims the next, or waits for `queued` to be told (or looks again every few seconds), and hands
/// its entrant to `ready`.
pub async fn work(dir: &Path, store: &Store, limits: &Limits, checker: &Checker<'_>, queued: &Notify, ready: &Ready) {
    let builder = || async {
        loop {
            match store.claim_next(now_ms()).unwrap_or_default() {
                Some(submission) => build_one(dir, store, limits, checker, &submission, ready).await,
                None => {
                    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), queued.notified()).await;
                }
            }
        }
    };
    futures_util::future::join_all((0..limits.builders.max(1)).map(|_| builder())).await;
}

/// Unpacks, stages, builds and checks one submission, recording each step and the outcome.
async fn build_one(
    dir: &Path,
    store: &Store,
    limits: &Limits,
    checker: &Checker<'_>,
    submission: &Submission,
    ready: &Ready,
) {
    let set = |state, error: Option<&str>| {
        let _ = store.set_submission(submission.id, state, None, error, now_ms());
    };
    match admit(dir, store, limits, checker, submission, &|step| {
        if step == Step::Checking {
            set(SubmissionState::Checking, None);
        }
    })
    .await
    {
        Ok(prepared) => {
            let _ = store.set_submission(
                submission.id,
                SubmissionState::Checking,
                Some(&prepared.label()),
                None,
                now_ms(),
            );
            ready.push(submission.id, prepared);
        }
        Err(error) => set(SubmissionState::Failed, Some(&without_folder(&error, dir))),
    }
    let _ = std::fs::remove_dir_all(submission_dir(dir, submission.id).join(FILES));
}

/// The steps of one submission's admission up to its join; the error, in words, of the first that refuses.
async fn admit(
    dir: &Path,
    store: &Store,
    limits: &Limits,
    checker: &Checker<'_>,
    submission: &Submission,
    step: &(dyn Fn(Step) + Sync),
) -> Result<Prepared, String> {
    let author = store
        .author(submission.author)
        .map_err(|error| chain(&error))?
        .ok_or("the author's account is gone")?;
    let own = submission_dir(dir, submission.id);
    std::fs::create_dir_all(&own).map_err(|error| format!("cannot make {}: {error}", own.display()))?;
    let files = own.join(FILES);
    let _ = std::fs::remove_dir_all(&files);
    unpacked(dir, submission, &files, limits).map_err(|error| chain(&error))?;
    if let Some(name) = &submission.file_name {
        let toml = bot_file_for(name).ok_or_else(|| {
            format!(
                "a single file named {name:?} says nothing of how to run it: name it .py, .js, .java, .go, .c, \
                 .cpp or .rs, or send a folder with its bot.toml"
            )
        })?;
        std::fs::write(files.join("bot.toml"), toml).map_err(|error| format!("cannot write its bot.toml: {error}"))?;
    }
    let league = dir.join(LEAGUE);
    let state = read(&league.join(pahtum_run::resume::JOURNAL), Moves::Drop, &mut Counts)
        .map_err(|error| chain(&error))?
        .state;
    let naming = Naming {
        name: Some(&author.name),
        version: None,
        logs: Some(&own),
    };
    let entry = LeagueSubmission::Folder(files);
    prepare(&league, &state, &entry, naming, checker, step)
        .await
        .map_err(|error| chain(&error))
}

/// The `bot.toml` of a bot sent as the single source file `name`, by its extension: how the starter kits
/// run and build each language; `None` for another extension.
fn bot_file_for(name: &str) -> Option<String> {
    let quoted = format!("{name:?}");
    let (command, build) = match name.rsplit_once('.')?.1 {
        "py" => (format!("python3 {quoted}"), None),
        "js" => (format!("node {quoted}"), None),
        "java" => (format!("java {quoted}"), None),
        "go" => ("./bot".to_owned(), Some(format!("go build -o bot {quoted}"))),
        "c" => ("./bot".to_owned(), Some(format!("cc -O2 -o bot {quoted} -lm"))),
        "cpp" | "cc" => ("./bot".to_owned(), Some(format!("g++ -O2 -std=c++17 -o bot {quoted}"))),
        "rs" => ("./bot".to_owned(), Some(format!("rustc -O -o bot {quoted}"))),
        _ => return None,
    };
    let build = build.map_or_else(String::new, |build| format!("build = {build:?}\n"));
    Some(format!("name = \"bot\"\ncommand = {command:?}\n{build}"))
}

/// Unpacks the submission's stored upload into `files`.
fn unpacked(dir: &Path, submission: &Submission, files: &Path, limits: &Limits) -> Result<Unpacked, UnpackError> {
    let archive = dir.join(UPLOADS).join(&submission.archive);
    let bytes = std::fs::read(&archive).map_err(UnpackError::Read)?;
    let kind = sniff(&bytes, submission.file_name.as_deref());
    Ok(unpack(bytes.as_slice(), &kind, files, &caps(limits))?)
}

/// Why an upload could not be unpacked.
#[derive(Debug, thiserror::Error)]
enum UnpackError {
    /// The stored upload cannot be read.
    #[error("the stored upload cannot be read")]
    Read(#[source] std::io::Error),
    /// The upload was refused.
    #[error("the upload was refused")]
    Refused(#[from] pahtum_upload::Refused),
}

/// `text` with the contest's folder taken off the paths in it: an author learns nothing of the server's
/// files (`submissions/7/build.log`, not `/srv/contests/spring/submissions/7/build.log`).
fn without_folder(text: &str, dir: &Path) -> String {
    let mut shown = text.to_owned();
    for folder in [
        std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned()),
        dir.to_owned(),
    ] {
        shown = shown.replace(&format!("{}/", folder.display()), "");
    }
    shown
}

/// An error with its causes, each on a line: what an author reads of a refusal.
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str("\n  caused by: ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_single_file_runs_as_its_language_does() {
        let python: toml::Table = toml::from_str(&super::bot_file_for("my bot.py").unwrap()).unwrap();
        assert_eq!(python["command"].as_str(), Some("python3 \"my bot.py\""));
        assert!(python.get("build").is_none());
        let cpp: toml::Table = toml::from_str(&super::bot_file_for("bot.cpp").unwrap()).unwrap();
        assert_eq!(cpp["command"].as_str(), Some("./bot"));
        assert_eq!(cpp["build"].as_str(), Some("g++ -O2 -std=c++17 -o bot \"bot.cpp\""));
        assert_eq!(super::bot_file_for("notes.txt"), None);
        assert_eq!(super::bot_file_for("Makefile"), None);
    }

    #[test]
    fn an_author_sees_no_path_of_the_server() {
        let dir = std::path::Path::new("/srv/contests/spring");
        let text = "the build failed: see /srv/contests/spring/submissions/7/build.log";
        assert_eq!(
            super::without_folder(text, dir),
            "the build failed: see submissions/7/build.log"
        );
    }
}
