//! An entrant's processes before it joins a league: its build and its check.
//!
//! [`build`] runs an entrant's build command in its snapshot folder through
//! the supervisor ([`pahtum_supervise`]), under a time limit, its whole output
//! kept in a log; when the league asks for the sandbox, in the same sandbox
//! as the games (no network, the system read-only, only the snapshot and a
//! private `/tmp` writable, as `nobody`, the filter and the caps). [`check`]
//! runs the conformance suite of `arena check` on the built entrant
//! ([`crate::conformance`]: the test every bot author runs, the same code,
//! not a second one), reads its report as data (which checks failed) and
//! keeps its text in a log. They are apart from the admission itself
//! ([`super::admit`]) so that each can be run and tested alone.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::conformance::{self, ConformanceError, Report};
use crate::evidence::{chain, start_error};
use pahtum_protocol::untrusted::escape;
use pahtum_referee::BotSpec;
use pahtum_supervise::{Command, Ended, Output, Policy, Sandbox, SandboxError};

/// The sandbox that a league's entrants are to run in cannot run on this machine.
#[derive(Debug, thiserror::Error)]
#[error("a bot is to run in the sandbox (--sandbox or `sandbox = true`), which cannot run here; no bot was started")]
pub struct NoSandbox(#[source] pub SandboxError);

/// Refuses, when the sandbox is `wanted`, a machine where it cannot run, before any bot starts.
pub fn require_sandbox(wanted: bool) -> Result<(), NoSandbox> {
    if wanted {
        pahtum_supervise::sandbox::check().map_err(NoSandbox)?;
    }
    Ok(())
}
/// Why an entrant may not join.
#[derive(Debug, thiserror::Error)]
pub enum AdmitError {
    /// A program could not be started.
    #[error("cannot start {what}")]
    Start {
        /// What was started.
        what: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The build failed or took too long.
    #[error("the build `{command}` {outcome}; its output is in {}{hint}", log.display())]
    Build {
        /// The build command.
        command: String,
        /// What happened, in words.
        outcome: Ended,
        /// The build's log.
        log: PathBuf,
        /// What the sandbox may have to do with it, with a leading space, or nothing.
        hint: String,
    },
    /// `arena check` found the entrant does not speak the protocol.
    #[error("`arena check` failed {}; its report is in {}", failed.join("; "), log.display())]
    Check {
        /// The checks that failed, by title ([`Report::failed`]).
        failed: Vec<String>,
        /// The check's report.
        log: PathBuf,
    },
    /// `arena check` could not check the entrant: its program could not be started at all, or the
    /// opponent failed.
    #[error("`arena check` could not run; its report is in {}", log.display())]
    CheckError {
        /// The check's report.
        log: PathBuf,
        /// Why.
        #[source]
        source: ConformanceError,
    },
    /// `arena check` took longer than it may (the check's games have their own limits: this is a check
    /// that hangs).
    #[error("`arena check` took longer than {} s; its report is in {}", limit.as_secs(), log.display())]
    CheckTimedOut {
        /// The longest it may take.
        limit: Duration,
        /// The check's report.
        log: PathBuf,
    },
    /// The check's report could not be written.
    #[error("cannot write the check's report {}", log.display())]
    CheckLog {
        /// The check's report.
        log: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// The longest an admission check may take: the check's games have their own limits, this only stops a
/// check that hangs.
const CHECK_TIME_LIMIT: Duration = Duration::from_secs(600);

/// The size of a build's private `/tmp` at least, in MiB: compilers keep their caches there (`HOME` is
/// `/tmp`), and Go's build cache alone takes some hundred MiB.
pub const BUILD_TMP_MB: u64 = 1024;

/// How an entrant's build runs: in the sandbox or not, for how long, with which variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildPolicy {
    /// The sandbox of the league's entrants (their limits and the organiser's `ro_paths`); `None`: the
    /// build runs with the arena's rights (a league of trusted bots).
    pub sandbox: Option<Sandbox>,
    /// The longest the build may take.
    pub time_limit: Duration,
    /// Variables added to the build's environment (the organiser's: a toolchain's `PATH`).
    pub env: Vec<(String, String)>,
    /// The CPU the build may use in the sandbox, in percent of one core.
    pub cpu_percent: u64,
}

/// Runs the shell command `build` in the snapshot `dir` through the supervisor, at most the policy's time
/// limit, its whole output (stdout and stderr) into `log`. In the sandbox it runs as the entrants' games
/// do (as `nobody` where the arena runs as root, the system-call filter, the cgroup caps, no network,
/// [`pahtum_supervise::sandbox::SANDBOX_ENVIRONMENT`] and `policy.env`), and writes only its snapshot and
/// its private `/tmp`: the snapshot is lent to the sandbox's user for the build, and taken back.
pub async fn build(dir: &Path, build: &str, policy: &BuildPolicy, log: &Path) -> Result<(), AdmitError> {
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    let sandbox = policy.sandbox.clone().map(|sandbox| Sandbox {
        rw_paths: vec![dir.clone()],
        sees_working_dir: false,
        named_folders: false,
        tmp_mb: sandbox.tmp_mb.max(BUILD_TMP_MB),
        cpu_percent: Some(policy.cpu_percent),
        ..sandbox
    });
    let command = Command {
        env: policy.env.clone(),
        ..Command::shell(build, dir.clone())
    };
    let start = |source| AdmitError::Start {
        what: "the build".to_owned(),
        source,
    };
    let lent = match &sandbox {
        Some(_) => Some(pahtum_supervise::lend::lend(&dir).map_err(start)?),
        None => None,
    };
    let supervised = Policy {
        sandbox,
        output: Output::Log(log.to_owned()),
        time_limit: Some(policy.time_limit),
        core: None,
    };
    let ended = run(&command, &supervised).await;
    if let Some(lent) = lent {
        lent.take_back().map_err(start)?;
    }
    let ended = ended.map_err(start)?;
    if ended.success() {
        return Ok(());
    }
    let hint = if supervised.sandbox.is_some() && log_says_network(log) {
        " The build has no network in the sandbox: vendor its dependencies into the bot's folder (`cargo \
         vendor`, `go mod vendor`, `pip download`) and build offline."
    } else {
        ""
    };
    Err(AdmitError::Build {
        command: build.to_owned(),
        outcome: ended,
        log: log.to_owned(),
        hint: hint.to_owned(),
    })
}

/// Whether a build's log says it tried to reach the network: a name not resolved (there is no resolver),
/// no route (only the sandbox's own loopback), a connection refused (nothing listens there).
fn log_says_network(log: &Path) -> bool {
    const SIGNS: [&str; 8] = [
        "could not resolve",
        "connection refused",
        "temporary failure in name resolution",
        "network is unreachable",
        "failed to connect",
        "no address associated",
        "name or service not known",
        "dial tcp",
    ];
    std::fs::read(log).is_ok_and(|bytes| {
        let text = String::from_utf8_lossy(&bytes).to_lowercase();
        SIGNS.iter().any(|sign| text.contains(sign))
    })
}

/// The entrant's command as one line, as `arena check` and its report show it.
pub fn command_line(command: &[String]) -> String {
    shlex::try_join(command.iter().map(String::as_str)).unwrap_or_else(|_| command.join(" "))
}

/// Runs the conformance suite of `arena check` ([`crate::conformance`]) on the entrant `bot` in its
/// snapshot `dir`, against `opponent` (the built-in `first-free`), its report into `log` headed by
/// `command` ([`command_line`]); in the sandbox (as an entrant: it sees its snapshot, never a folder its
/// command names) when `bot` has one. The report, when the entrant conforms.
pub async fn check(
    mut bot: BotSpec,
    opponent: &BotSpec,
    dir: &Path,
    command: &str,
    log: &Path,
) -> Result<Report, AdmitError> {
    bot.dir = Some(std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned()));
    conformance::as_entrant(&mut bot);
    // The report's text, as `arena check --sandbox --entrant` prints it (what the sandbox hides first).
    let mut text = String::new();
    if let Some(sandbox) = &bot.sandbox {
        for note in pahtum_referee::sandbox::start_notes(sandbox, &bot.command()) {
            text += &format!("arena: bot {}: {}\n", escape(&bot.name), escape(&note));
        }
    }
    text += &conformance::header(command, bot.sandbox.as_ref(), true);
    let limit = CHECK_TIME_LIMIT;
    let ran = tokio::time::timeout(limit, conformance::run(&bot, opponent, conformance::MOVE_TIME)).await;
    text += &match &ran {
        Ok(Ok(report)) => report.to_string(),
        Ok(Err(ConformanceError::Start(error))) => format!("arena: error: {}\n", start_error(error, "  ")),
        Ok(Err(error)) => format!("arena: error: {}\n", escape(&chain(error))),
        Err(_) => format!("arena: error: the check took longer than {} s\n", limit.as_secs()),
    };
    std::fs::write(log, text).map_err(|source| AdmitError::CheckLog {
        log: log.to_owned(),
        source,
    })?;
    let report = match ran {
        Ok(Ok(report)) => report,
        Ok(Err(source)) => {
            return Err(AdmitError::CheckError {
                log: log.to_owned(),
                source,
            });
        }
        Err(_) => {
            return Err(AdmitError::CheckTimedOut {
                limit,
                log: log.to_owned(),
            });
        }
    };
    if report.conforms() {
        Ok(report)
    } else {
        Err(AdmitError::Check {
            failed: report.failed().into_iter().map(str::to_owned).collect(),
            log: log.to_owned(),
        })
    }
}

/// `command` under `policy`, to its end.
async fn run(command: &Command, policy: &Policy) -> std::io::Result<Ended> {
    pahtum_supervise::start(command, policy).await?.finish().await
}
