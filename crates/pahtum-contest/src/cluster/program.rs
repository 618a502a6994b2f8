//! A scheduler's command (`sbatch`, `squeue`, `kubectl`) run through the one supervisor: the organiser's
//! trusted program, outside the sandbox, with a time limit, its output kept.

use std::path::Path;
use std::time::Duration;

use pahtum_supervise::{Command, Ended, Output, Policy};

use super::error::{ClusterError, io_error};

/// The longest a scheduler's command may take.
const SCHEDULER_PATIENCE: Duration = Duration::from_secs(60);

/// Runs `program` with `args` in `dir`: what it printed, or why it failed (what it printed included).
pub(super) async fn run(program: &str, args: Vec<String>, dir: &Path) -> Result<String, ClusterError> {
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
        Ended::Exited(status) if status.success() => Ok(printed),
        other => Err(failed(format!("{}; it printed: {}", describe(&other), printed.trim()))),
    }
}

/// How a scheduler's command ended, in words.
fn describe(ended: &Ended) -> String {
    match ended {
        Ended::Exited(status) => format!("it ended with {status}"),
        Ended::TimedOut(limit) => format!("it took longer than {} s", limit.as_secs()),
        Ended::OutOfMemory(_) => "it ran out of memory".to_owned(),
    }
}
