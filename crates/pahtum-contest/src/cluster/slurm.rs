//! A round's tasks on Slurm: one job array (`sbatch --array`), watched with `squeue`.

use std::path::Path;

use super::error::ClusterError;
use super::program::run;
use super::tasks::{Cluster, SCRIPT_FILE, Tasks};

/// Submits `tasks` of the round in `dir` as one job array: the job's id.
pub(super) async fn submit(dir: &Path, cluster: &Cluster, tasks: Tasks) -> Result<String, ClusterError> {
    let settings = &cluster.settings;
    let array = if tasks.count == 1 {
        tasks.first.to_string()
    } else {
        format!("{}-{}", tasks.first, tasks.first + tasks.count - 1)
    };
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
    args.push(dir.join(SCRIPT_FILE).display().to_string());
    let printed = run("sbatch", args, dir).await?;
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

/// The tasks of `jobs` still queued or running, as `squeue` names them (`JOB_TASK`).
pub(super) async fn queued(jobs: &[&str]) -> Result<Vec<String>, ClusterError> {
    let args = vec![
        "-h".to_owned(),
        "-r".to_owned(),
        "-o".to_owned(),
        "%i".to_owned(),
        "-j".to_owned(),
        jobs.join(","),
    ];
    match run("squeue", args, Path::new("/")).await {
        Ok(printed) => Ok(printed.lines().map(|line| line.trim().to_owned()).collect()),
        // `squeue -j` of jobs it no longer knows fails: none of them is queued.
        Err(ClusterError::Scheduler { output, .. }) if output.contains("Invalid job id") => Ok(Vec::new()),
        Err(error) => Err(error),
    }
}
