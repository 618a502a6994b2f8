//! A bot as lines in and lines out over a supervised process
//! ([`pahtum_supervise::Process`], which owns every operating-system detail:
//! groups, containment, the sandbox, signals, reaping).
//!
//! * A bot whose stdout ends is given a moment to exit
//!   ([`EXIT_AFTER_EOF`]) before the verdict is written, so that a crash is
//!   reported with its exit code or signal, not as a closed stdout.
//! * Reading stdout is bounded ([`LineReader`]); stderr is drained by a task
//!   ([`StderrDrain`]); every wait on a bot races its output, its exit and a
//!   deadline in one `select!`, so that a dead bot is noticed at once and a
//!   silent one at its deadline; every write has a deadline, and a broken
//!   pipe is an error value, never a signal that kills the referee (Rust
//!   ignores SIGPIPE).
//! * A sandboxed bot's death by the memory limit becomes the `memory`
//!   verdict.

use std::io;
use std::time::Duration;

use pahtum_supervise::{Output, Policy, Process};
use rustix::process::Signal;
use tokio::io::AsyncWriteExt;
use tokio::process::{ChildStdin, ChildStdout};
use tokio::time::Instant;

use crate::BotSpec;
use crate::lines::{LineReader, ReadError};
use crate::stderr::StderrDrain;
use crate::stderr_log::LogFiles;
use crate::verdict::{Asked, Failure};
use pahtum_protocol::{MAX_LINE_BYTES, Reason};

/// How long the stderr drain may take to reach the end of the stream once the
/// bot's group is dead (only a process that left the group can hold it open).
const STDERR_FLUSH: Duration = Duration::from_millis(500);

/// How long a bot whose stdout or stdin closed may take to exit before the
/// verdict is written without its exit status. A crashing process closes its
/// pipes a moment before it can be reaped.
const EXIT_AFTER_EOF: Duration = Duration::from_secs(1);

/// A running bot process and its pipes.
#[derive(Debug)]
pub(crate) struct BotProcess {
    process: Process,
    stdin: Option<ChildStdin>,
    stdout: LineReader<ChildStdout>,
    pub(crate) stderr: StderrDrain,
}

/// Why no line came.
#[derive(Debug)]
pub(crate) enum Silence {
    /// The deadline passed.
    Deadline,
    /// The bot failed in another way.
    Failed(Failure),
}

impl BotProcess {
    /// Launches `spec` with piped stdio through the supervisor, on `core`
    /// only if given.
    pub(crate) async fn spawn(
        spec: &BotSpec,
        log: Option<LogFiles>,
        stderr_cap: u64,
        core: Option<usize>,
    ) -> io::Result<BotProcess> {
        let policy = Policy {
            sandbox: spec.sandbox.clone(),
            output: Output::Piped,
            time_limit: None,
            core,
        };
        let mut process = pahtum_supervise::start(&spec.command(), &policy).await?;
        let pipes = process
            .pipes()
            .ok_or_else(|| io::Error::other("a piped stream of the bot is missing"))?;
        Ok(BotProcess {
            stdin: Some(pipes.stdin),
            stdout: LineReader::eager(pipes.stdout, MAX_LINE_BYTES),
            stderr: StderrDrain::start(pipes.stderr, log, stderr_cap)?,
            process,
        })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// Writes `line` completely before `deadline`.
    pub(crate) async fn send(&mut self, line: &[u8], deadline: Instant) -> Result<(), Failure> {
        let Some(stdin) = &mut self.stdin else {
            return Err(Failure::new(Reason::Disconnect, "the bot's stdin is closed"));
        };
        tokio::select! {
            biased;
            written = stdin.write_all(line) => match written {
                Ok(()) => Ok(()),
                Err(error) => Err(self.write_failed(error).await),
            },
            () = tokio::time::sleep_until(deadline) => Err(Failure::new(
                Reason::Disconnect,
                "the bot does not read its stdin: the referee could not write its request; \
                 read one line at a time and answer each request",
            )),
        }
    }

    async fn write_failed(&mut self, error: io::Error) -> Failure {
        let how = match self.process.exits_within(EXIT_AFTER_EOF).await {
            Some(status) => format!("the bot {}", crate::verdict::describe_exit(status)),
            None if error.kind() == io::ErrorKind::BrokenPipe => "the bot closed its stdin".to_owned(),
            None => format!("writing to the bot failed ({error})"),
        };
        let failure = Failure::new(
            Reason::Disconnect,
            format!("{how} before the referee's request was written"),
        );
        blame_memory(&self.process, failure)
    }

    /// The next line before `deadline` (or the bot's exit, or the end of its
    /// stdout), and when its newline was read. `what` names the awaited
    /// answer in messages.
    pub(crate) async fn receive(&mut self, deadline: Instant, what: &Asked) -> Result<(&[u8], Instant), Silence> {
        let BotProcess { process, stdout, .. } = self;
        let known_exit = process.exit();
        let exited = async {
            match known_exit {
                Some(status) => status,
                None => std::future::pending().await,
            }
        };
        let failure = tokio::select! {
            biased;
            line = stdout.next_line() => match line {
                Ok(line) => return Ok(line),
                Err(ReadError::TooLong { head }) => return Err(Silence::Failed(
                    Failure::new(
                        Reason::ProtocolError,
                        format!("printed a line longer than {MAX_LINE_BYTES} bytes (the limit) while the referee waited for {what}"),
                    )
                    .with_line(&head),
                )),
                Err(ReadError::Eof { partial }) => {
                    let failure = match process.exits_within(EXIT_AFTER_EOF).await {
                        Some(status) => Failure::exited(status, what),
                        None => Failure::new(
                            Reason::Disconnect,
                            format!("the bot closed its stdout while the referee waited for {what}"),
                        ),
                    };
                    let failure = blame_memory(process, failure);
                    return Err(Silence::Failed(if partial.is_empty() { failure } else { failure.with_line(&partial) }));
                }
                Err(ReadError::Io(error)) => return Err(Silence::Failed(Failure::new(
                    Reason::Disconnect,
                    format!("reading the bot's stdout failed ({error}) while the referee waited for {what}"),
                ))),
            },
            status = process.wait(), if known_exit.is_none() => match status {
                Ok(status) => Failure::exited(status, what),
                Err(error) => Failure::new(Reason::Disconnect, format!("waiting for the bot failed: {error}")),
            },
            status = exited => Failure::exited(status, what),
            () = tokio::time::sleep_until(deadline) => return Err(Silence::Deadline),
        };
        Err(Silence::Failed(blame_memory(process, failure)))
    }

    /// Output printed although nothing was asked, if any (does not wait).
    pub(crate) fn unsolicited(&mut self) -> Option<Vec<u8>> {
        self.stdout.unsolicited()
    }

    /// The bot's CPU time so far, where the system tells it.
    pub(crate) fn cpu_time(&self) -> Option<Duration> {
        self.process.cpu_time()
    }

    /// Stops every process of the bot (fair mode).
    pub(crate) fn pause(&mut self) {
        self.process.pause();
    }

    /// Continues every process of the bot, as [`pause`](Self::pause) stopped them.
    pub(crate) fn resume(&mut self) {
        self.process.resume();
    }

    /// Kills the bot and everything it started, and collects the rest of
    /// its stderr.
    pub(crate) async fn kill(&mut self) {
        self.process.kill().await;
        self.stdin = None;
        self.stderr.finish(STDERR_FLUSH).await;
    }

    /// The polite end: `quit`, `grace`, SIGTERM to the group, `grace`, then
    /// [`kill`](Self::kill), which also ends whatever the bot left behind.
    pub(crate) async fn shutdown(&mut self, quit: &[u8], grace: Duration) {
        self.resume();
        if self.process.exit().is_none() {
            let deadline = Instant::now() + grace;
            let _ = self.send(quit, deadline).await;
            self.stdin = None;
            let left = deadline.saturating_duration_since(Instant::now());
            if self.process.exits_within(left).await.is_none() {
                self.process.signal(Signal::TERM);
                self.process.exits_within(grace).await;
            }
        }
        self.kill().await;
    }
}

/// The memory verdict instead of `failure`, when the bot's processes were
/// killed for its sandbox's memory limit.
fn blame_memory(process: &Process, failure: Failure) -> Failure {
    match process.memory_exceeded() {
        Some(used) => Failure::memory(used, &failure),
        None => failure,
    }
}
