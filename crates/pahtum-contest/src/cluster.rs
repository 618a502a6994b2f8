//! A league's rounds played on a cluster: each round's games dealt to shards,
//! each shard a task of one Slurm job array or one Kubernetes Indexed Job,
//! merged back into the league's journal once every record of every shard has
//! been checked.
//!
//! It is today's shards (`arena league run DIR --shard K/N`, and the league's
//! merge of shards' journals) submitted to the cluster's own scheduler; the
//! arena runs no worker fleet of its own. The round's loop is one for both
//! schedulers, which differ only in how tasks are submitted and listed
//! ([`slurm`], [`kubernetes`]); here it is told with Slurm's words:
//! * the server decides the round in the league's journal, as it does when it
//!   plays it itself, and copies the league (its rules, that journal, the
//!   entrants' built snapshots) into the round's folder on the shared storage;
//! * `sbatch --array=1-N` (or an Indexed Job of N pods) runs the round's
//!   script ([`SCRIPT`]): task `K`
//!   copies the league (the snapshots hard-linked) into `shard-K/` and plays
//!   shard `K` of `N` into its journal, the games the machine failed played
//!   again, then writes its exit status beside it;
//! * the server asks `squeue` (or `kubectl get jobs`) what is left. A task that ended without success,
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

mod error;
mod kubernetes;
mod program;
mod slurm;
mod tasks;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pahtum_league::folder;
use pahtum_league::take::{Taken, take_shards};
use pahtum_protocol::untrusted::escape;
use pahtum_run::events::{Observer, Quiet};
use pahtum_run::resume::JOURNAL;
use pahtum_runner::league::{Ended, Options, Show, play};
use pahtum_runner::live::Live;
use pahtum_runner::live_socket::LiveSocket;
use pahtum_tournament::config::OnOverload;
use serde::{Deserialize, Serialize};

pub use error::ClusterError;
use error::io_error;
pub use tasks::Cluster;
use tasks::{SCRIPT_FILE, Tasks};

use crate::config::ClusterKind;
use crate::locks::open_league;

/// The script of a round's tasks: `{arena}`, `{round}` and `{tasks}` are filled in, quoted.
pub const SCRIPT: &str = r#"#!/bin/sh
# One shard of a league's round, as task K of N: a Slurm job array's task (sbatch --array=1-N; K is
# SLURM_ARRAY_TASK_ID, its output where --output says) or a pod of a Kubernetes Indexed Job (K is
# JOB_COMPLETION_INDEX + ARENA_FIRST_TASK, its output appended to task-K.out here). The league copied
# into shard-K (its entrants' snapshots hard-linked), shard K of N played into its journal, and the
# exit status written beside it for the server.
set -u
round={round}
if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
    k=$SLURM_ARRAY_TASK_ID
    cpus=${SLURM_CPUS_PER_TASK:-1}
else
    k=$((JOB_COMPLETION_INDEX + ARENA_FIRST_TASK))
    cpus=${ARENA_CPUS:-1}
    exec >>"$round/task-$k.out" 2>&1
fi
shard="$round/shard-$k"
if [ ! -d "$shard" ]; then
    rm -rf "$shard.new" && mkdir "$shard.new" &&
        cp "$round/league/league.toml" "$round/league/journal.jsonl" "$shard.new/" &&
        cp -al "$round/league/entrants" "$shard.new/entrants" &&
        mv "$shard.new" "$shard" || exit 1
fi
{arena} league run "$shard" --shard "$k/{tasks}" --replay-overloaded --concurrency "$cpus"
echo $? > "$round/exit-$k.new" && mv "$round/exit-$k.new" "$round/exit-$k"
"#;

impl Cluster {
    /// Submits `tasks` of the round in `dir`, its `nth` submission: the job's id.
    async fn submit(&self, dir: &Path, tasks: Tasks, nth: usize) -> Result<String, ClusterError> {
        match self.settings.kind {
            ClusterKind::Slurm => slurm::submit(dir, self, tasks).await,
            ClusterKind::Kubernetes => kubernetes::submit(dir, self, tasks, nth).await,
        }
    }

    /// The tasks of the round in `dir` (`submitted`) still waiting or running, as `JOB_TASK`.
    async fn queued(&self, dir: &Path, submitted: &Submitted) -> Result<Vec<String>, ClusterError> {
        match self.settings.kind {
            ClusterKind::Slurm => {
                let mut jobs: Vec<&str> = submitted.tasks.values().flatten().map(String::as_str).collect();
                jobs.sort_unstable();
                jobs.dedup();
                slurm::queued(&jobs).await
            }
            ClusterKind::Kubernetes => kubernetes::queued(dir, self).await,
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
        let job = cluster.submit(dir, Tasks { first: 1, count: tasks }, 1).await?;
        submitted.tasks = (1..=tasks).map(|task| (task, vec![job.clone()])).collect();
        save(&record, &submitted)?;
    }
    loop {
        let queued = cluster.queued(dir, &submitted).await?;
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
            let nth = submitted
                .tasks
                .values()
                .flatten()
                .collect::<std::collections::BTreeSet<_>>()
                .len()
                + 1;
            let job = cluster.submit(dir, Tasks { first: task, count: 1 }, nth).await?;
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
    let path = dir.join(SCRIPT_FILE);
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
