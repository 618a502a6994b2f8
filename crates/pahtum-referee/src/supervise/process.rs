//! Bot processes: the one module that owns the operating-system and tokio
//! details.
//!
//! * Each bot runs in its own process group, so that signals reach whatever
//!   it forked, and ending a bot kills the whole group; and in its own
//!   containment (`contain`: a cgroup where possible, and an environment
//!   marker), so that ending it also kills what left the group (`setsid`, a
//!   double fork), and a guard process kills it all if the referee dies.
//! * On Linux each bot gets `PR_SET_PDEATHSIG = SIGKILL`, so it dies with the
//!   referee, even if the referee is killed with SIGKILL. Linux ties that
//!   signal to the *thread* that forked, so every bot is forked by one
//!   dedicated spawner thread that lives as long as the referee; after the
//!   `prctl` the child checks that its parent is still the referee (it may
//!   have died between the fork and the `prctl`) and fails otherwise.
//! * A bot whose stdout ends is given a moment to exit
//!   ([`EXIT_AFTER_EOF`]) before the verdict is written, so that a crash is
//!   reported with its exit code or signal, not as a closed stdout.
//! * Reading stdout is bounded ([`LineReader`]); stderr is drained by a task
//!   ([`StderrDrain`]); every wait on a bot races its output, its exit and a
//!   deadline in one `select!`, so that a dead bot is noticed at once and a
//!   silent one at its deadline; every write has a deadline, and a broken
//!   pipe is an error value, never a signal that kills the referee (Rust
//!   ignores SIGPIPE).
//! * Fair mode freezes and thaws the bot's freezer cgroup (`freezer`), every
//!   process at once; where the machine has none, it stops and continues the
//!   whole group (SIGSTOP, SIGCONT), which the bot's processes can undo.
//! * A sandboxed bot (`crate::sandbox`) is spawned as `bwrap ... -- BOT`, as
//!   the sandbox's user, with its rlimits set and its limit cgroups entered
//!   before `exec`. Its processes live in their own session and PID
//!   namespace, so signals go to each process its cgroup lists as well;
//!   its death by the memory limit becomes the `memory` verdict, and
//!   bubblewrap's exit code 128 + N is told as the signal N it stands for.
//! * The bot's CPU time, of all its processes and threads, is measured by
//!   `cputime` (its cgroup's `cpu.stat`, else its process tree), before and
//!   after every answer and while a CPU-time clock runs.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process_group};
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::runtime::Handle;
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::cgroup::{self, LimitCgroups};
use super::contain::Contained;
use super::cputime::CpuMeter;
use super::sandbox;
use crate::BotSpec;
use crate::lines::{LineReader, ReadError};
use crate::stderr::StderrDrain;
use crate::verdict::{Asked, Failure};
use pahtum_protocol::{MAX_LINE_BYTES, Reason};

/// How long the stderr drain may take to reach the end of the stream once the
/// bot's group is dead (only a process that left the group can hold it open).
const STDERR_FLUSH: Duration = Duration::from_millis(500);

/// At most this many rounds of signals to a sandboxed bot's processes (a
/// round signals those that appeared since the last).
const SIGNAL_ROUNDS: usize = 8;

/// How long a bot whose stdout or stdin closed may take to exit before the
/// verdict is written without its exit status. A crashing process closes its
/// pipes a moment before it can be reaped.
const EXIT_AFTER_EOF: Duration = Duration::from_secs(1);

/// A running bot process and its pipes.
#[derive(Debug)]
pub(crate) struct BotProcess {
    child: Child,
    pid: u32,
    group: Option<Pid>,
    stdin: Option<ChildStdin>,
    stdout: LineReader<ChildStdout>,
    pub(crate) stderr: StderrDrain,
    cpu: Option<CpuMeter>,
    exit: Option<ExitStatus>,
    /// How the bot was paused (fair mode), if it is.
    paused: Option<Paused>,
    /// `None` once every process of the bot was killed.
    contained: Option<Contained>,
}

/// How a paused bot was stopped.
#[derive(Debug, Clone, Copy)]
enum Paused {
    /// Its freezer cgroup is frozen.
    Frozen,
    /// Its processes got SIGSTOP.
    Stopped,
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
    /// Launches `spec` with piped stdio, in its own process group, on `core`
    /// only if given (`affinity`).
    pub(crate) async fn spawn(
        spec: &BotSpec,
        log: Option<File>,
        stderr_cap: u64,
        core: Option<usize>,
    ) -> io::Result<BotProcess> {
        let contained = match &spec.sandbox {
            Some(sandbox) => Contained::limited(sandbox)?,
            None => Contained::new(),
        };
        let (mut command, finish) = match &spec.sandbox {
            Some(settings) => {
                let (command, finish) = sandbox::launch(settings, spec, contained.marker())?;
                (Command::from(command), Some(finish))
            }
            None => {
                let mut command = Command::new(&spec.program);
                command
                    .args(&spec.args)
                    .envs(spec.env.iter().map(|(key, value)| (key, value)));
                if let Some(dir) = &spec.dir {
                    command.current_dir(dir);
                }
                let (key, value) = contained.marker();
                command.env(key, value);
                (command, None)
            }
        };
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let mut cgroup_procs = contained.procs_files();
        if let Some(limits) = contained.limits() {
            cgroup_procs.extend(limits.procs_files()?);
        }
        for procs in cgroup_procs.iter().map(AsRawFd::as_raw_fd) {
            // SAFETY: the closure makes one write(2) between fork and exec;
            // the descriptor stays open until the spawn has returned.
            unsafe {
                command.pre_exec(move || {
                    cgroup::enter(procs);
                    Ok(())
                });
            }
        }
        if let Some(finish) = finish {
            finish.register(command.as_std_mut());
        }
        die_with_the_referee(&mut command);
        if let Some(core) = core {
            super::affinity::pin(&mut command, core);
        }
        let spawned = spawn_from_the_spawner_thread(command).await;
        drop(cgroup_procs);
        let mut child = spawned?;
        let pid = child.id().expect("a child that was just spawned has a pid");
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(io::Error::other("a piped stream of the bot is missing"));
        };
        Ok(BotProcess {
            group: Pid::from_raw(pid as i32),
            pid,
            stdin: Some(stdin),
            stdout: LineReader::eager(stdout, MAX_LINE_BYTES),
            stderr: StderrDrain::start(stderr, log, stderr_cap),
            cpu: CpuMeter::of(pid, contained.cgroup()),
            exit: None,
            paused: None,
            contained: Some(contained),
            child,
        })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.pid
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
        let exit = match self.exit {
            Some(status) => Some(status),
            None => exit_soon(&mut self.child).await,
        };
        self.exit = exit;
        let how = match exit {
            Some(status) => format!(
                "the bot {}",
                crate::verdict::describe_exit(as_the_bot_ended(self.contained.as_ref(), status))
            ),
            None if error.kind() == io::ErrorKind::BrokenPipe => "the bot closed its stdin".to_owned(),
            None => format!("writing to the bot failed ({error})"),
        };
        let failure = Failure::new(
            Reason::Disconnect,
            format!("{how} before the referee's request was written"),
        );
        blame_memory(self.contained.as_ref(), failure)
    }

    /// The next line before `deadline` (or the bot's exit, or the end of its
    /// stdout), and when its newline was read. `what` names the awaited
    /// answer in messages.
    pub(crate) async fn receive(&mut self, deadline: Instant, what: &Asked) -> Result<(&[u8], Instant), Silence> {
        let BotProcess {
            child,
            stdout,
            exit,
            contained,
            ..
        } = self;
        let contained = contained.as_ref();
        let known_exit = *exit;
        let exited = async {
            match known_exit {
                Some(status) => status,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            line = stdout.next_line() => match line {
                Ok(line) => Ok(line),
                Err(ReadError::TooLong { head }) => Err(Silence::Failed(
                    Failure::new(
                        Reason::ProtocolError,
                        format!("printed a line longer than {MAX_LINE_BYTES} bytes (the limit) while the referee waited for {what}"),
                    )
                    .with_line(&head),
                )),
                Err(ReadError::Eof { partial }) => {
                    let status = match known_exit {
                        Some(status) => Some(status),
                        None => exit_soon(child).await,
                    };
                    *exit = status;
                    let failure = match status {
                        Some(status) => Failure::exited(as_the_bot_ended(contained, status), what),
                        None => Failure::new(
                            Reason::Disconnect,
                            format!("the bot closed its stdout while the referee waited for {what}"),
                        ),
                    };
                    let failure = blame_memory(contained, failure);
                    Err(Silence::Failed(if partial.is_empty() { failure } else { failure.with_line(&partial) }))
                }
                Err(ReadError::Io(error)) => Err(Silence::Failed(Failure::new(
                    Reason::Disconnect,
                    format!("reading the bot's stdout failed ({error}) while the referee waited for {what}"),
                ))),
            },
            status = child.wait(), if known_exit.is_none() => {
                let failure = match status {
                    Ok(status) => {
                        *exit = Some(status);
                        Failure::exited(as_the_bot_ended(contained, status), what)
                    }
                    Err(error) => Failure::new(Reason::Disconnect, format!("waiting for the bot failed: {error}")),
                };
                Err(Silence::Failed(blame_memory(contained, failure)))
            }
            status = exited => Err(Silence::Failed(blame_memory(
                contained,
                Failure::exited(as_the_bot_ended(contained, status), what)
            ))),
            () = tokio::time::sleep_until(deadline) => Err(Silence::Deadline),
        }
    }

    /// Output printed although nothing was asked, if any (does not wait).
    pub(crate) fn unsolicited(&mut self) -> Option<Vec<u8>> {
        self.stdout.unsolicited()
    }

    /// The bot's CPU time so far, where the system tells it.
    pub(crate) fn cpu_time(&self) -> Option<Duration> {
        self.cpu.as_ref()?.read()
    }

    /// Stops every process of the bot (fair mode): freezes its freezer, or
    /// where it has none, stops its processes with SIGSTOP.
    pub(crate) fn pause(&mut self) {
        if self.paused.is_none() {
            let frozen = self.contained.as_ref().is_some_and(Contained::freeze);
            self.paused = Some(if frozen {
                Paused::Frozen
            } else {
                self.signal(Signal::STOP);
                Paused::Stopped
            });
        }
    }

    /// Continues every process of the bot, as [`pause`](Self::pause) stopped them.
    pub(crate) fn resume(&mut self) {
        match self.paused.take() {
            Some(Paused::Frozen) => {
                if let Some(contained) = &self.contained {
                    contained.thaw();
                }
            }
            Some(Paused::Stopped) => self.signal(Signal::CONT),
            None => {}
        }
    }

    /// SIGKILL to the group, reap, and collect the rest of stderr. The group
    /// is signalled once: afterwards its id is forgotten, because once the
    /// group is empty the system may give the id to an unrelated process.
    /// Every other process the bot started is killed too, wherever it went
    /// (`contain`).
    pub(crate) async fn kill(&mut self) {
        self.signal(Signal::KILL);
        if let Some(mut contained) = self.contained.take() {
            // A sweep of /proc: blocking system calls, off the runtime's threads.
            let _ = tokio::task::spawn_blocking(move || contained.kill_and_remove()).await;
        }
        if self.exit.is_none() {
            self.exit = self.child.wait().await.ok();
        }
        self.group = None;
        self.stdin = None;
        self.stderr.finish(STDERR_FLUSH).await;
    }

    /// The polite end: `quit`, `grace`, SIGTERM to the group, `grace`, then
    /// [`kill`](Self::kill), which also ends whatever the bot left behind.
    pub(crate) async fn shutdown(&mut self, quit: &[u8], grace: Duration) {
        self.resume();
        if self.exit.is_none() {
            let deadline = Instant::now() + grace;
            let _ = self.send(quit, deadline).await;
            self.stdin = None;
            if !self.exits_before(deadline).await {
                self.signal(Signal::TERM);
                self.exits_before(Instant::now() + grace).await;
            }
        }
        self.kill().await;
    }

    async fn exits_before(&mut self, deadline: Instant) -> bool {
        match tokio::time::timeout_at(deadline, self.child.wait()).await {
            Ok(status) => {
                self.exit = status.ok();
                true
            }
            Err(_) => false,
        }
    }

    /// Signals the bot's process group. After the leader is reaped, the group
    /// id cannot be taken by a new process while any member lives, so the
    /// signal reaches the bot's leftovers or nobody. A sandboxed bot's
    /// processes are in a PID namespace and a session of their own: they are
    /// signalled one by one, from the list of the bot's cgroup.
    fn signal(&self, signal: Signal) {
        if let Some(group) = self.group {
            // ESRCH (the group is empty) is the expected outcome once the bot is gone.
            let _ = kill_process_group(group, signal);
            if let Some(limits) = self.contained.as_ref().and_then(Contained::limits) {
                limits.signal_all(signal.as_raw(), SIGNAL_ROUNDS);
            }
        }
    }
}

impl Drop for BotProcess {
    /// A bot that was neither shut down nor killed (a panic, a cancelled
    /// task) is killed with its group and every process it started; tokio
    /// reaps it in the background.
    fn drop(&mut self) {
        if self.exit.is_none() {
            self.signal(Signal::KILL);
        }
        if let Some(contained) = &self.contained {
            contained.kill_now();
        }
    }
}

/// The memory verdict instead of `failure`, when the bot's processes were
/// killed for its sandbox's memory limit.
fn blame_memory(contained: Option<&Contained>, failure: Failure) -> Failure {
    match contained
        .and_then(Contained::limits)
        .and_then(LimitCgroups::memory_exceeded)
    {
        Some(used) => Failure::memory(used, &failure),
        None => failure,
    }
}

/// How the bot itself ended, from the status of the spawned process: for a
/// sandboxed bot that is bubblewrap, which exits with 128 + N when the bot
/// was killed by signal N.
fn as_the_bot_ended(contained: Option<&Contained>, status: ExitStatus) -> ExitStatus {
    match status.code() {
        Some(code @ 129..=192) if contained.and_then(Contained::limits).is_some() => ExitStatus::from_raw(code - 128),
        _ => status,
    }
}

/// The exit status of `child` if it exits within [`EXIT_AFTER_EOF`].
async fn exit_soon(child: &mut Child) -> Option<ExitStatus> {
    tokio::time::timeout(EXIT_AFTER_EOF, child.wait()).await.ok()?.ok()
}

/// Sets the child to die with the referee (Linux).
fn die_with_the_referee(command: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        let referee = std::process::id() as libc::pid_t;
        // SAFETY: the closure runs in the child between fork and exec and only
        // makes async-signal-safe system calls, without allocating.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(io::Error::last_os_error());
                }
                if libc::getppid() != referee {
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// A spawn request for the spawner thread.
struct SpawnJob {
    command: Command,
    runtime: Handle,
    reply: oneshot::Sender<io::Result<Child>>,
}

/// Forks `command` from the one thread that lives as long as the referee, in
/// the context of the caller's runtime (which then drives the child's I/O).
async fn spawn_from_the_spawner_thread(command: Command) -> io::Result<Child> {
    static SPAWNER: OnceLock<mpsc::Sender<SpawnJob>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (jobs, queue) = mpsc::channel::<SpawnJob>();
        std::thread::Builder::new()
            .name("arena-spawner".into())
            .spawn(move || {
                for mut job in queue {
                    let _runtime = job.runtime.enter();
                    let _ = job.reply.send(job.command.spawn());
                }
            })
            .expect("the referee cannot start its spawner thread");
        jobs
    });
    let (reply, answer) = oneshot::channel();
    let job = SpawnJob {
        command,
        runtime: Handle::current(),
        reply,
    };
    spawner
        .send(job)
        .map_err(|_| io::Error::other("the spawner thread is gone"))?;
    answer
        .await
        .map_err(|_| io::Error::other("the spawner thread dropped the request"))?
}
