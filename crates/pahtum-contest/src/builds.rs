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
//!
//! The upload is unpacked where its build runs: where the league runs its
//! entrants in the sandbox (a contest's does, by default), by a child
//! process in that sandbox, started through the one supervisor as a build
//! is ([`pahtum_runner::league::build`]): the `arena` executable's hidden
//! `upload-unpack` command ([`unpack_as_ordered`]), as `nobody`, without
//! network, seeing a copy of the upload and the fresh folder it unpacks to
//! and nothing else of the server, within a time and a memory limit. Its
//! report (`pahtum_upload::Report`) comes back as a line of its log, a
//! refusal in the words `pahtum-upload` gave it. So the code that reads a
//! stranger's archive runs with none of the server's rights.

use crate::causes::chain;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pahtum_journal::Moves;
use pahtum_journal::sink::Counts;
use pahtum_league::read::read;
use pahtum_league::{LEAGUE_FILE, League, LeagueError, LeagueState};
use pahtum_referee::Sandbox;
use pahtum_runner::league::{
    AdmitError, BuildPolicy, Checker, Naming, NoSandbox, Prepared, Step, Submission as LeagueSubmission, build,
    command_line, prepare, require_sandbox,
};
use pahtum_upload::{Caps, Order, Report, Unpacked, unpack_file};
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
    /// The games the organiser voided, to be played again: each id and why.
    voided: Mutex<Vec<(String, String)>>,
    /// Told when one is ready, or when the organiser changed who plays.
    pub arrived: Arc<Notify>,
}

impl Ready {
    /// None ready yet; `arrived` rings the ladder.
    pub fn new(arrived: Arc<Notify>) -> Ready {
        Ready {
            prepared: Mutex::new(Vec::new()),
            activated: Mutex::new(Vec::new()),
            voided: Mutex::new(Vec::new()),
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

    /// Asks the ladder to void game `game` (the arena failed it, `why`): it counts for no one and is played
    /// again.
    pub fn void(&self, game: String, why: String) {
        self.voided
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push((game, why));
        self.arrived.notify_one();
    }

    /// The games to void, taken.
    pub fn take_voided(&self) -> Vec<(String, String)> {
        std::mem::take(&mut *self.voided.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
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
/// its entrant to `ready`. `arena` is the executable whose `upload-unpack` unpacks an upload in the sandbox.
pub async fn work(
    dir: &Path,
    store: &Store,
    limits: &Limits,
    checker: &Checker<'_>,
    arena: &Path,
    queued: &Notify,
    ready: &Ready,
) {
    let builder = || async {
        loop {
            match store.claim_next(now_ms()).unwrap_or_default() {
                Some(submission) => build_one(dir, store, limits, checker, arena, &submission, ready).await,
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
    arena: &Path,
    submission: &Submission,
    ready: &Ready,
) {
    let set = |state, error: Option<&str>| {
        let _ = store.set_submission(submission.id, state, None, error, now_ms());
    };
    match admit(dir, store, limits, checker, arena, submission, &|step| {
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
    arena: &Path,
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
    let league = dir.join(LEAGUE);
    let state = league_state(&league).map_err(|error| chain(&error))?;
    let unpacking = Unpacking {
        archive: dir.join(UPLOADS).join(&submission.archive),
        file_name: submission.file_name.as_deref(),
        caps: caps(limits),
        upload_bytes: limits.upload_bytes,
    };
    unpacking
        .unpack(&own, state.league(), arena)
        .await
        .map_err(|error| chain(&error))?;
    if let Some(name) = &submission.file_name {
        let toml = bot_file_for(name).ok_or_else(|| {
            format!(
                "a single file named {name:?} says nothing of how to run it: name it .py, .js, .java, .go, .c, \
                 .cpp or .rs, or send a folder with its bot.toml"
            )
        })?;
        std::fs::write(files.join("bot.toml"), toml).map_err(|error| format!("cannot write its bot.toml: {error}"))?;
    }
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

/// The state of the league in `league` as its next join will find it, read without its lock: its
/// journal's, but under the rules of its `league.toml` where the journal holds only a header those rules
/// have changed since, as [`pahtum_league::folder::open`] reads it. A contest's league is made so (its
/// sandbox turned on after the header is written), and until its first entrant joins, its journal's
/// header alone would have the first submission unpacked, built and checked outside the sandbox.
fn league_state(league: &Path) -> Result<LeagueState, LeagueError> {
    let state = read(&league.join(pahtum_run::resume::JOURNAL), Moves::Drop, &mut Counts)?.state;
    let rules = pahtum_league::rules::load(&league.join(LEAGUE_FILE))?;
    if state.entrants().is_empty() && *state.league() != rules {
        return Ok(LeagueState::new(&rules));
    }
    Ok(state)
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

/// The folder of a submission's that a sandboxed unpacking may write: a copy of the upload and the fresh
/// folder it unpacks to; removed once the unpacking ends, its folder of files moved out first if it
/// unpacked.
const UNPACKING: &str = "unpacking";
/// The upload's copy in [`UNPACKING`], which the sandbox's user may read: the stored upload is the server's
/// own (`0600`), and its folder holds every author's.
const UPLOAD_COPY: &str = "upload";
/// The log of a sandboxed unpacking, in the submission's folder: its report, and whatever else it or the
/// sandbox printed. The organiser's, not shown to the author (the refusal is, in the submission's error).
const UNPACK_LOG: &str = "unpack.log";
/// The hidden command of the `arena` executable that unpacks in the sandbox ([`unpack_as_ordered`]).
pub const UNPACK_COMMAND: &str = "upload-unpack";
/// The longest a sandboxed unpacking may take: the caps bound its work, this stops one that hangs.
const UNPACK_TIME_LIMIT: Duration = Duration::from_secs(120);
/// The memory of a sandboxed unpacking beside the upload, which it may hold whole (a zip's directory is at
/// its end), in MiB: the executable, the decompressor, the buffers.
const UNPACK_MEMORY_MB: u64 = 256;
/// The most of an unpacking's log read for its report, which is one line near its start.
const LOG_BYTES: u64 = 64 * 1024;
const MIB: u64 = 1024 * 1024;

/// One stored upload to unpack.
#[derive(Debug)]
struct Unpacking<'a> {
    /// The stored upload.
    archive: PathBuf,
    /// The name it was sent under (a single source file's).
    file_name: Option<&'a str>,
    /// The caps it is held to.
    caps: Caps,
    /// The most bytes an upload may have as sent: the most a zip held whole takes.
    upload_bytes: u64,
}

impl Unpacking<'_> {
    /// Unpacks the upload into `own`'s (a submission's folder) `files`: in the sandbox by a child process
    /// ([`Unpacking::in_sandbox`]) where `league` runs its entrants in it. A league that does not (`sandbox =
    /// false`, its bots trusted) has it unpacked in this process, by the same code and caps.
    async fn unpack(&self, own: &Path, league: &League, arena: &Path) -> Result<Unpacked, UnpackError> {
        if league.sandbox.is_none() {
            return unpack_file(&self.archive, self.file_name, &own.join(FILES), &self.caps)
                .map_err(|refused| UnpackError::Refused(refused.into()));
        }
        require_sandbox(true)?;
        self.in_sandbox(own, arena, league.build_cpu_percent).await
    }

    /// Unpacks the upload into `own`'s `files` by `arena upload-unpack`, in the sandbox, at most
    /// `cpu_percent` of a core ([`Unpacking::run`]), in a fresh folder of its own ([`UNPACKING`]) that is
    /// removed however it ends: only what it unpacked, reported as unpacked, is kept.
    async fn in_sandbox(&self, own: &Path, arena: &Path, cpu_percent: u64) -> Result<Unpacked, UnpackError> {
        let work = own.join(UNPACKING);
        let _ = std::fs::remove_dir_all(&work);
        let unpacked = self
            .run(&work, &own.join(UNPACK_LOG), arena, cpu_percent)
            .await
            .and_then(|unpacked| {
                std::fs::rename(work.join(FILES), own.join(FILES)).map_err(UnpackError::Keep)?;
                Ok(unpacked)
            });
        let _ = std::fs::remove_dir_all(&work);
        unpacked
    }

    /// Unpacks a copy of the upload in the fresh folder `work` into `work`'s `files`, by `arena
    /// upload-unpack` run in the sandbox through the supervisor ([`build`], which lends `work` to the
    /// sandbox's user for the run and takes it back), its output into `log`.
    async fn run(&self, work: &Path, log: &Path, arena: &Path, cpu_percent: u64) -> Result<Unpacked, UnpackError> {
        std::fs::create_dir(work).map_err(UnpackError::Prepare)?;
        std::fs::copy(&self.archive, work.join(UPLOAD_COPY)).map_err(UnpackError::Read)?;
        let order = Order {
            archive: PathBuf::from(UPLOAD_COPY),
            file_name: self.file_name.map(str::to_owned),
            into: PathBuf::from(FILES),
            caps: self.caps,
        };
        // JSON escapes every control character: the author's file name reaches the shell quoted, whole.
        let order = serde_json::to_string(&order).map_err(|error| UnpackError::Prepare(error.into()))?;
        let line = command_line(&[arena.to_string_lossy().into_owned(), UNPACK_COMMAND.to_owned(), order]);
        let sandbox = Sandbox {
            memory_mb: self.upload_bytes.div_ceil(MIB) + UNPACK_MEMORY_MB,
            file_size_mb: self.caps.file_bytes.div_ceil(MIB).max(1),
            ..Sandbox::default()
        };
        let policy = BuildPolicy {
            sandbox: Some(sandbox.running_own_program(arena.to_owned())),
            time_limit: UNPACK_TIME_LIMIT,
            env: Vec::new(),
            cpu_percent,
        };
        match build(work, &line, &policy, log).await {
            Ok(()) => {}
            Err(AdmitError::Build { outcome, .. }) => return Err(UnpackError::Ended(outcome.to_string())),
            Err(error) => return Err(UnpackError::Start(error)),
        }
        let report = report_in(log).ok_or_else(|| UnpackError::NoReport(log.to_owned()))?;
        report
            .into_result()
            .map_err(|reported| UnpackError::Refused(reported.into()))
    }
}

/// The report in the log of an unpacking: its last line that is one (bubblewrap may have spoken first).
fn report_in(log: &Path) -> Option<Report> {
    let mut text = Vec::new();
    std::fs::File::open(log)
        .ok()?
        .take(LOG_BYTES)
        .read_to_end(&mut text)
        .ok()?;
    String::from_utf8_lossy(&text)
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str(line).ok())
}

/// What `arena upload-unpack ORDER` does in the sandbox that [`Unpacking::run`] starts it in: the
/// order (a `pahtum_upload::Order`, as JSON) carried out in this process; its report, one line of JSON to
/// print.
pub fn unpack_as_ordered(order: &str) -> Result<String, serde_json::Error> {
    let order: Order = serde_json::from_str(order)?;
    serde_json::to_string(&order.carry_out())
}

/// Why an upload could not be unpacked.
#[derive(Debug, thiserror::Error)]
enum UnpackError {
    /// The stored upload cannot be read.
    #[error("the stored upload cannot be read")]
    Read(#[source] std::io::Error),
    /// The upload was refused: `pahtum_upload`'s refusal, or the one the sandboxed unpacking reported.
    #[error("the upload was refused")]
    Refused(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The league runs its entrants in the sandbox, which cannot run here.
    #[error(transparent)]
    NoSandbox(#[from] NoSandbox),
    /// The folder of the sandboxed unpacking cannot be made.
    #[error("cannot make a fresh folder to unpack the upload in")]
    Prepare(#[source] std::io::Error),
    /// The sandboxed unpacking could not start.
    #[error("the upload's unpacking could not start in the sandbox: a fault on the server's side; submit again")]
    Start(#[source] AdmitError),
    /// The sandboxed unpacking failed, or was killed at its limits.
    #[error(
        "the upload's unpacking in the sandbox {0}; nothing of it was kept: send an upload within the contest's \
         caps, or ask the organiser"
    )]
    Ended(String),
    /// The sandboxed unpacking ended without its report.
    #[error("the upload's unpacking in the sandbox ended without saying how it went; nothing of it was kept (its log: {})", .0.display())]
    NoReport(PathBuf),
    /// The unpacked folder cannot be moved into the submission's.
    #[error("the unpacked upload cannot be moved into its submission's folder")]
    Keep(#[source] std::io::Error),
}

/// `text` with the contest's folder taken off the paths in it: an author learns nothing of the server's
/// files (`submissions/7/build.log`, not `/srv/contests/spring/submissions/7/build.log`).
pub fn without_folder(text: &str, dir: &Path) -> String {
    let mut shown = text.to_owned();
    for folder in [
        std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned()),
        dir.to_owned(),
    ] {
        shown = shown.replace(&format!("{}/", folder.display()), "");
    }
    shown
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

    /// A sandboxed unpacking that is killed halfway, or that ends without its report, leaves nothing of it
    /// in the submission's folder but its log, and the submission's error says how it ended. Passes where
    /// the sandbox cannot run, as the sandbox's tests do.
    #[tokio::test]
    async fn an_unpacking_that_fails_leaves_only_its_log() {
        use std::os::unix::fs::PermissionsExt;
        if pahtum_runner::league::require_sandbox(true).is_err() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("stored");
        std::fs::write(&archive, "print()\n").unwrap();
        let unpacking = super::Unpacking {
            archive,
            file_name: Some("bot.py"),
            caps: pahtum_upload::Caps::DEFAULT,
            upload_bytes: 1 << 20,
        };
        // Stand-ins for `arena upload-unpack`: each writes part of the folder, then is killed or says nothing.
        for (name, end, said) in [
            ("killed", "kill -KILL $$", "was killed by signal 9"),
            ("silent", "exit 0", "ended without saying how it went"),
        ] {
            let arena = dir.path().join(name);
            let script = format!("#!/bin/sh\nmkdir files && echo half > files/bot.py && {end}\n");
            std::fs::write(&arena, script).unwrap();
            std::fs::set_permissions(&arena, PermissionsExt::from_mode(0o755)).unwrap();
            let own = dir.path().join(format!("submission-{name}"));
            std::fs::create_dir(&own).unwrap();
            let error = unpacking.in_sandbox(&own, &arena, 100).await.unwrap_err();
            let text = super::chain(&error);
            assert!(text.contains(said) && text.contains("nothing of it was kept"), "{text}");
            let left: Vec<_> = std::fs::read_dir(&own)
                .unwrap()
                .map(|entry| entry.unwrap().file_name())
                .collect();
            assert_eq!(left, [super::UNPACK_LOG], "{name}");
        }
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
