//! A league's rounds played on a cluster: each round's games dealt to shards,
//! each shard a task of one Slurm job array, merged back into the league's
//! journal once every record of every shard has been checked.
//!
//! It is today's shards (`arena league run DIR --shard K/N`, and the league's
//! merge of shards' journals) submitted to the cluster's own scheduler; the
//! arena runs no worker fleet of its own:
//! * the server decides the round in the league's journal, as it does when it
//!   plays it itself, and copies the league (its rules, that journal, the
//!   entrants' built snapshots) into the round's folder on the shared storage;
//! * `sbatch --array=1-N` runs the round's batch script ([`SCRIPT`]): task `K`
//!   copies the league (the snapshots hard-linked) into `shard-K/` and plays
//!   shard `K` of `N` into its journal, the games the machine failed played
//!   again, then writes its exit status beside it;
//! * the server asks `squeue` what is left. A task that ended without success,
//!   or left the queue without a status (cancelled with `scancel`, lost with
//!   its node), is submitted again and resumes its journal: nothing it played
//!   is lost, and its games count for no one until they are played;
//! * once every task has ended well, what each shard added to its copy of the
//!   journal is checked (`pahtum_league::take`: every record replayed by the
//!   rules, of a game the round decided and not played before, with the
//!   entrants' content hashes); a shard with a faulty line is refused, named by
//!   its task and job in the round's `round.json` and the server's log, its
//!   folder dropped and the task submitted again; once every shard is sound,
//!   their games are appended to the league's journal as they are.
//!
//! What the round's folder holds (`round.json`: the job of each task) lets a
//! server started again watch the same jobs: a stop never submits a round
//! twice.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pahtum_league::folder;
use pahtum_league::take::{Taken, take_shards};
use pahtum_run::events::{Observer, Quiet};
use pahtum_run::resume::JOURNAL;
use pahtum_runner::league::{Ended, Options, PlayLeagueError, Show, play};
use pahtum_runner::live::Live;
use pahtum_runner::live_socket::LiveSocket;
use pahtum_supervise::{Command, Ended as Exit, Output, Policy};
use pahtum_tournament::config::OnOverload;
use serde::{Deserialize, Serialize};

use crate::config::ClusterSettings;
use crate::locks::{locked, open_league};
use pahtum_protocol::untrusted::escape;

/// The batch script of a round's tasks: `{arena}`, `{round}` and `{tasks}` are filled in, quoted.
pub const SCRIPT: &str = r#"#!/bin/sh
# One shard of a league's round, as task K of a Slurm job array (sbatch --array=1-N):
# the league copied into shard-K (its entrants' snapshots hard-linked), shard K of N
# played into its journal, and the exit status written beside it for the server.
set -u
round={round}
k=$SLURM_ARRAY_TASK_ID
shard="$round/shard-$k"
if [ ! -d "$shard" ]; then
    rm -rf "$shard.new" && mkdir "$shard.new" &&
        cp "$round/league/league.toml" "$round/league/journal.jsonl" "$shard.new/" &&
        cp -al "$round/league/entrants" "$shard.new/entrants" &&
        mv "$shard.new" "$shard" || exit 1
fi
{arena} league run "$shard" --shard "$k/{tasks}" --replay-overloaded --concurrency "${SLURM_CPUS_PER_TASK:-1}"
echo $? > "$round/exit-$k.new" && mv "$round/exit-$k.new" "$round/exit-$k"
"#;

/// The longest a scheduler's command may take.
const SCHEDULER_PATIENCE: Duration = Duration::from_secs(60);

/// Why a league's round could not be played on the cluster.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// The league could not be played (deciding its round, or opening it).
    #[error(transparent)]
    Play(Box<PlayLeagueError>),
    /// The league's folder or journal.
    #[error(transparent)]
    League(#[from] pahtum_league::LeagueError),
    /// The round's folder on the shared storage.
    #[error("cannot {what} {}", path.display())]
    Io {
        /// What was done.
        what: &'static str,
        /// Where.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A scheduler's command failed.
    #[error("`{command}` failed: {output}; check the cluster's settings in contest.toml ([cluster])")]
    Scheduler {
        /// The command.
        command: String,
        /// What it printed, or how it ended.
        output: String,
    },
    /// A task failed more often than the settings allow.
    #[error(
        "task {task} of round {round} failed {tries} times (its output: {}); the round stops",
        output.display()
    )]
    TaskFailed {
        /// The round.
        round: u32,
        /// The task.
        task: u32,
        /// How often it was submitted.
        tries: u32,
        /// Its last output.
        output: PathBuf,
    },
}

impl ClusterError {
    /// Whether it is a league's journal locked elsewhere for a moment ([`crate::locks`]): try again.
    pub(crate) fn is_locked(&self) -> bool {
        match self {
            ClusterError::Play(play) => matches!(&**play, PlayLeagueError::League(error) if locked(error)),
            ClusterError::League(error) => locked(error),
            _ => false,
        }
    }
}

impl From<PlayLeagueError> for ClusterError {
    fn from(error: PlayLeagueError) -> ClusterError {
        ClusterError::Play(Box::new(error))
    }
}

/// An `std::io::Error` about `path`.
fn io_error<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> ClusterError + 'a {
    move |source| ClusterError::Io {
        what,
        path: path.to_owned(),
        source,
    }
}

/// A cluster, as the contest's settings and folder make it.
#[derive(Debug, Clone)]
pub struct Cluster {
    /// The settings.
    pub settings: ClusterSettings,
    /// The shared folder the rounds are played in.
    pub folder: PathBuf,
    /// The `arena` executable the tasks run.
    pub arena: PathBuf,
}

impl Cluster {
    /// The cluster of `settings`, for the contest in `dir`, its tasks running `arena` unless the settings
    /// name another.
    pub fn new(settings: &ClusterSettings, dir: &Path, arena: &Path) -> Cluster {
        Cluster {
            folder: dir.join(&settings.folder),
            arena: if settings.arena.is_empty() {
                arena.to_owned()
            } else {
                PathBuf::from(&settings.arena)
            },
            settings: settings.clone(),
        }
    }
}

/// What a round's folder records of its tasks: each task's jobs, the latest last.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Submitted {
    /// The length of the league's journal when the round was decided: where each shard's own lines start.
    #[serde(default)]
    from: u64,
    /// Of each task, its submissions' job ids.
    tasks: BTreeMap<u32, Vec<String>>,
    /// The tasks whose shard was refused, with why (the organiser reads it in the round's folder).
    #[serde(default)]
    refused: Vec<String>,
}

/// What the shown rounds need: no progress and no live games (the games are on the cluster's nodes).
struct Unshown;

impl Show for Unshown {
    fn progress(&mut self) -> Box<dyn Observer> {
        Box::new(Quiet)
    }

    fn share(&mut self, _: &Path, _: &std::sync::Arc<Live>) -> Option<LiveSocket> {
        None
    }
}

/// Plays the league in `league` (its rounds' folders named after `stage`) on `cluster` until it is settled
/// or `stop` completes; each round is decided here and played by the cluster's tasks.
pub async fn play_league<S: std::future::Future<Output = ()>>(
    league: &Path,
    stage: &str,
    cluster: &Cluster,
    mut stop: std::pin::Pin<&mut S>,
) -> Result<Ended, ClusterError> {
    loop {
        match play_next_round(league, stage, cluster, stop.as_mut()).await? {
            Ended::Played => {}
            other => return Ok(other),
        }
    }
}

/// Plays one round of the league in `league` on `cluster`: the round decided before and not played yet,
/// else the next the league decides; [`Ended::Played`] once it is merged, [`Ended::Settled`] when the league
/// needs none, [`Ended::Interrupted`] when `stop` came first.
pub async fn play_next_round<S: std::future::Future<Output = ()>>(
    league: &Path,
    stage: &str,
    cluster: &Cluster,
    mut stop: std::pin::Pin<&mut S>,
) -> Result<Ended, ClusterError> {
    // The next round decided and recorded (or the one decided before found), no game played here.
    let options = Options {
        games: Some(0),
        until: None,
        concurrency: 1,
        shard: None,
        arena: &cluster.arena,
        builtins: &[],
        on_overload: OnOverload::Replay,
    };
    match play(league, &options, &mut Unshown, stop.as_mut()).await? {
        Ended::Played => {}
        other => return Ok(other),
    }
    let round = open_league(league).await?.state.rounds();
    let dir = cluster.folder.join(stage).join(format!("round-{round:05}"));
    Ok(if play_round(league, &dir, round, cluster, stop).await? {
        Ended::Interrupted
    } else {
        Ended::Played
    })
}

/// Plays round `round` of the league in `league` in the folder `dir` on `cluster` and takes its shards into
/// the league's journal; `true` when `stop` came first (the tasks play on, and a server started again
/// watches them).
async fn play_round<S: std::future::Future<Output = ()>>(
    league: &Path,
    dir: &Path,
    round: u32,
    cluster: &Cluster,
    mut stop: std::pin::Pin<&mut S>,
) -> Result<bool, ClusterError> {
    let tasks = cluster.settings.tasks;
    let record = dir.join("round.json");
    let mut submitted: Submitted = match std::fs::read(&record) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_default(),
        Err(_) => Submitted::default(),
    };
    if submitted.tasks.is_empty() {
        submitted.from = prepare(league, dir, cluster)?;
        let job = submit(dir, cluster, &format!("1-{tasks}")).await?;
        submitted.tasks = (1..=tasks).map(|task| (task, vec![job.clone()])).collect();
        save(&record, &submitted)?;
    }
    loop {
        let queued = queued(&submitted).await?;
        let mut again = Vec::new();
        let mut finished = 0;
        for task in 1..=tasks {
            if queued.contains(&task_id(&submitted, task)) {
                continue;
            }
            match std::fs::read_to_string(dir.join(format!("exit-{task}"))) {
                Ok(status) if status.trim() == "0" => finished += 1,
                // Failed, cancelled or lost: submitted again, resuming its journal.
                _ => again.push(task),
            }
        }
        if finished == tasks {
            let shards: Vec<PathBuf> = (1..=tasks)
                .map(|task| dir.join(format!("shard-{task}")).join(JOURNAL))
                .collect();
            let mut opened = open_league(league).await?;
            let outcomes = take_shards(&mut opened, &league.join(JOURNAL), &shards, submitted.from)?;
            for (task, outcome) in (1..=tasks).zip(outcomes) {
                if let Taken::Refused(line, fault) = outcome {
                    let refused = refusal(task, &task_id(&submitted, task), line, &fault);
                    eprintln!("round {round}: the shard of {refused}; refused, it plays again");
                    submitted.refused.push(refused);
                    let shard = dir.join(format!("shard-{task}"));
                    std::fs::remove_dir_all(&shard).map_err(io_error("drop", &shard))?;
                    again.push(task);
                }
            }
            if again.is_empty() {
                return Ok(false);
            }
        }
        for task in again {
            let tries = submitted.tasks.get(&task).map_or(0, Vec::len) as u32;
            if tries > cluster.settings.retries {
                return Err(ClusterError::TaskFailed {
                    round,
                    task,
                    tries,
                    output: dir.join(format!("task-{task}.out")),
                });
            }
            let _ = std::fs::remove_file(dir.join(format!("exit-{task}")));
            let job = submit(dir, cluster, &task.to_string()).await?;
            submitted.tasks.entry(task).or_default().push(job);
            save(&record, &submitted)?;
        }
        tokio::select! {
            () = stop.as_mut() => return Ok(true),
            () = tokio::time::sleep(Duration::from_secs(u64::from(cluster.settings.poll_s))) => {}
        }
    }
}

/// The round's folder: the league copied as it is now (its rules, its journal with the round decided, its
/// entrants' snapshots), and the batch script; the length of the journal copied, where each shard's own
/// lines will start.
fn prepare(league: &Path, dir: &Path, cluster: &Cluster) -> Result<u64, ClusterError> {
    let copy = dir.join("league");
    let aside = dir.join("league.new");
    if aside.exists() {
        std::fs::remove_dir_all(&aside).map_err(io_error("clear", &aside))?;
    }
    if copy.exists() {
        std::fs::remove_dir_all(&copy).map_err(io_error("clear", &copy))?;
    }
    std::fs::create_dir_all(&aside).map_err(io_error("create", &aside))?;
    folder::copy_league(league, &aside)?;
    let from = std::fs::copy(league.join(JOURNAL), aside.join(JOURNAL)).map_err(io_error("copy", &aside))?;
    let quote = |path: &Path| shlex::try_quote(&path.to_string_lossy()).map(|quoted| quoted.into_owned());
    let script = SCRIPT
        .replace("{round}", &quote(dir).unwrap_or_default())
        .replace("{arena}", &quote(&cluster.arena).unwrap_or_default())
        .replace("{tasks}", &cluster.settings.tasks.to_string());
    let path = dir.join("shard.sbatch");
    std::fs::write(&path, script).map_err(io_error("write", &path))?;
    std::fs::rename(&aside, &copy).map_err(io_error("put in place", &copy))?;
    Ok(from)
}

/// Why the shard of `task` (its job `job`) is refused: its faulty line `line` and what is wrong with it. The
/// shard's journal is the cluster's writing, which the server does not trust: what it says of its line is
/// shown escaped, control characters visible, in the server's log and in `round.json`.
fn refusal(task: u32, job: &str, line: usize, fault: &pahtum_league::LeagueFault) -> String {
    let why = crate::causes::chain(fault);
    format!("task {task} (job {job}): line {line}: {}", escape(&why))
}

/// Writes what was submitted to `record`.
fn save(record: &Path, submitted: &Submitted) -> Result<(), ClusterError> {
    let aside = record.with_extension("json.new");
    let bytes = serde_json::to_vec_pretty(submitted).expect("what was submitted serializes");
    std::fs::write(&aside, bytes).map_err(io_error("write", &aside))?;
    std::fs::rename(&aside, record).map_err(io_error("write", record))
}

/// The id `JOB_TASK` that `squeue` names task `task` by, at its latest submission.
fn task_id(submitted: &Submitted, task: u32) -> String {
    let job = submitted
        .tasks
        .get(&task)
        .and_then(|jobs| jobs.last())
        .cloned()
        .unwrap_or_default();
    format!("{job}_{task}")
}

/// Submits tasks `array` (`1-4`, or `3`) of the round in `dir`: the job's id.
async fn submit(dir: &Path, cluster: &Cluster, array: &str) -> Result<String, ClusterError> {
    let settings = &cluster.settings;
    let mut args = vec![
        "--parsable".to_owned(),
        format!("--array={array}"),
        format!(
            "--job-name=arena-{}",
            dir.file_name().unwrap_or_default().to_string_lossy()
        ),
        format!("--cpus-per-task={}", settings.cpus_per_task),
        format!("--output={}", dir.join("task-%a.out").display()),
        format!("--chdir={}", dir.display()),
    ];
    if !settings.partition.is_empty() {
        args.push(format!("--partition={}", settings.partition));
    }
    if !settings.account.is_empty() {
        args.push(format!("--account={}", settings.account));
    }
    args.extend(settings.sbatch_args.iter().cloned());
    args.push(dir.join("shard.sbatch").display().to_string());
    let printed = scheduler("sbatch", args, dir).await?;
    // `--parsable` prints `JOB` or `JOB;CLUSTER`.
    let job = printed.trim().split(';').next().unwrap_or_default().to_owned();
    if job.is_empty() || !job.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(ClusterError::Scheduler {
            command: "sbatch".to_owned(),
            output: printed,
        });
    }
    Ok(job)
}

/// The tasks still queued or running, as `squeue` names them (`JOB_TASK`, one a line).
async fn queued(submitted: &Submitted) -> Result<Vec<String>, ClusterError> {
    let mut jobs: Vec<&String> = submitted.tasks.values().flatten().collect();
    jobs.sort();
    jobs.dedup();
    let list = jobs.iter().map(|job| job.as_str()).collect::<Vec<_>>().join(",");
    let args = vec![
        "-h".to_owned(),
        "-r".to_owned(),
        "-o".to_owned(),
        "%i".to_owned(),
        "-j".to_owned(),
        list,
    ];
    match scheduler("squeue", args, Path::new("/")).await {
        Ok(printed) => Ok(printed.lines().map(|line| line.trim().to_owned()).collect()),
        // `squeue -j` of jobs it no longer knows fails: none of them is queued.
        Err(ClusterError::Scheduler { output, .. }) if output.contains("Invalid job id") => Ok(Vec::new()),
        Err(error) => Err(error),
    }
}

/// Runs the scheduler's `program` with `args` through the one supervisor (the organiser's trusted program,
/// outside the sandbox, with a time limit): what it printed, or why it failed.
async fn scheduler(program: &str, args: Vec<String>, dir: &Path) -> Result<String, ClusterError> {
    let log = tempfile::NamedTempFile::new().map_err(io_error("create a log for", Path::new(program)))?;
    let command = Command {
        program: program.to_owned(),
        args,
        dir: Some(dir.to_owned()),
        env: Vec::new(),
    };
    let policy = Policy {
        sandbox: None,
        output: Output::Log(log.path().to_owned()),
        time_limit: Some(SCHEDULER_PATIENCE),
        core: None,
    };
    let failed = |output: String| ClusterError::Scheduler {
        command: command.line(),
        output,
    };
    let ended = match pahtum_supervise::start(&command, &policy).await {
        Ok(process) => process.finish().await.map_err(|error| failed(error.to_string()))?,
        Err(error) => return Err(failed(error.to_string())),
    };
    let printed = std::fs::read_to_string(log.path()).unwrap_or_default();
    match ended {
        Exit::Exited(status) if status.success() => Ok(printed),
        other => Err(failed(format!("{}; it printed: {}", describe(&other), printed.trim()))),
    }
}

/// How a scheduler's command ended, in words.
fn describe(ended: &Exit) -> String {
    match ended {
        Exit::Exited(status) => format!("it ended with {status}"),
        Exit::TimedOut(limit) => format!("it took longer than {} s", limit.as_secs()),
        Exit::OutOfMemory(_) => "it ran out of memory".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shard's faulty line names the game as its journal wrote it: a terminal's controls in it are shown,
    /// not obeyed.
    #[test]
    fn a_refusal_shows_what_the_shard_wrote_escaped() {
        let fault = pahtum_league::LeagueFault::NotDecided {
            id: "000-001-00-a\u{1b}[2J\u{7}".to_owned(),
        };
        let said = refusal(2, "17_2", 9, &fault);
        assert!(said.starts_with("task 2 (job 17_2): line 9: "), "{said}");
        assert!(!said.contains('\u{1b}') && !said.contains('\u{7}'), "{said:?}");
        assert!(said.contains("[2J"), "{said}");
    }
}
