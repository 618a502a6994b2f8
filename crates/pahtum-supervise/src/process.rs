//! A supervised process: the one place that owns the operating-system and
//! tokio details of a child, whoever asked for it (a bot, a build, a check).
//!
//! * Each process runs in its own process group, so that signals reach
//!   whatever it forked, and ending it kills the whole group; and in its own
//!   containment ([`contain`](crate::contain): a cgroup where possible, and
//!   an environment marker), so that ending it also kills what left the
//!   group (`setsid`, a double fork), and a guard process kills it all if the
//!   supervisor dies.
//! * On Linux each child gets `PR_SET_PDEATHSIG = SIGKILL`, so it dies with
//!   the supervisor, even if the supervisor is killed with SIGKILL. Linux
//!   ties that signal to the *thread* that forked, so every child is forked
//!   by one dedicated spawner thread that lives as long as the supervisor;
//!   after the `prctl` the child checks that its parent is still the
//!   supervisor (it may have died between the fork and the `prctl`) and
//!   fails otherwise.
//! * A sandboxed process ([`sandbox`](crate::sandbox)) is spawned as
//!   `bwrap ... -- PROGRAM`, as the sandbox's user, with its rlimits set and
//!   its limit cgroups entered before `exec`. Its processes live in their own
//!   session and PID namespace, so signals go to each process its cgroup
//!   lists as well; bubblewrap's exit code 128 + N is told as the signal N it
//!   stands for ([`Process::wait`]).
//! * Pausing (fair mode) freezes the process's freezer cgroup, every process
//!   at once; where the machine has none, it stops and continues the whole
//!   group (SIGSTOP, SIGCONT), which the process's children can undo.
//! * The CPU time of all its processes and threads is measured by `cputime`
//!   (its cgroup's `cpu.stat`, else its process tree).

use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process_group};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout};
use tokio::runtime::Handle;
use tokio::sync::oneshot;

use crate::cgroup::{self, LimitCgroups, MemoryUse};
use crate::contain::Contained;
use crate::cputime::CpuMeter;
use crate::policy::{Command, Output, Policy};
use crate::sandbox;

/// At most this many rounds of signals to a sandboxed process's processes (a
/// round signals those that appeared since the last).
const SIGNAL_ROUNDS: usize = 8;

/// Starts `command` under `policy`: the one way a process of the arena's
/// starts. In its own process group and containment, dying with the
/// supervisor, in the policy's sandbox if it has one, with its output where
/// the policy says.
pub async fn start(command: &Command, policy: &Policy) -> io::Result<Process> {
    let contained = match &policy.sandbox {
        Some(sandbox) => Contained::limited(sandbox)?,
        None => Contained::new(),
    };
    let (mut child_command, finish) = match &policy.sandbox {
        Some(settings) => {
            let (launched, finish) = sandbox::launch(settings, command, contained.marker())?;
            (tokio::process::Command::from(launched), Some(finish))
        }
        None => {
            let mut plain = tokio::process::Command::new(&command.program);
            plain
                .args(&command.args)
                .envs(command.env.iter().map(|(key, value)| (key, value)));
            if let Some(dir) = &command.dir {
                plain.current_dir(dir);
            }
            let (key, value) = contained.marker();
            plain.env(key, value);
            (plain, None)
        }
    };
    match &policy.output {
        Output::Piped => {
            child_command
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
        }
        Output::Log(path) => {
            let log = std::fs::File::create(path)?;
            child_command.stdin(Stdio::null()).stdout(log.try_clone()?).stderr(log);
        }
    }
    child_command.process_group(0).kill_on_drop(true);
    let mut cgroup_procs = contained.procs_files();
    if let Some(limits) = contained.limits() {
        cgroup_procs.extend(limits.procs_files()?);
    }
    for procs in cgroup_procs {
        // SAFETY: the closure makes one write(2) between fork and exec. It
        // owns the descriptor, which so lives as long as the command: the
        // spawner thread drops it only after the fork, even when the caller
        // stopped waiting for the spawn (a stopped round). A raw number
        // closed earlier could be the spawn's own error pipe by the time of
        // the fork, and the child's write a short report that std answers by
        // waiting for the child forever.
        unsafe {
            child_command.pre_exec(move || {
                cgroup::enter(procs.as_raw_fd());
                Ok(())
            });
        }
    }
    if let Some(finish) = finish {
        finish.register(child_command.as_std_mut());
    }
    die_with_the_supervisor(&mut child_command);
    if let Some(core) = policy.core {
        crate::affinity::pin(&mut child_command, core);
    }
    let child = spawn_from_the_spawner_thread(child_command).await?;
    let pid = child.id().expect("a child that was just spawned has a pid");
    Ok(Process {
        group: Pid::from_raw(pid as i32),
        pid,
        cpu: CpuMeter::of(pid, contained.cgroup()),
        exit: None,
        paused: None,
        contained: Some(contained),
        time_limit: policy.time_limit,
        child,
    })
}

/// A running process and everything it started.
#[derive(Debug)]
pub struct Process {
    child: Child,
    pid: u32,
    group: Option<Pid>,
    cpu: Option<CpuMeter>,
    /// How it ended, once known (as [`Process::wait`] tells it).
    exit: Option<ExitStatus>,
    /// How it was paused, if it is.
    paused: Option<Paused>,
    /// `None` once every process of it was killed.
    contained: Option<Contained>,
    time_limit: Option<Duration>,
}

/// The pipes of a process started with [`Output::Piped`].
#[derive(Debug)]
pub struct Pipes {
    /// Its standard input.
    pub stdin: ChildStdin,
    /// Its standard output.
    pub stdout: ChildStdout,
    /// Its standard error.
    pub stderr: ChildStderr,
}

/// How a paused process was stopped.
#[derive(Debug, Clone, Copy)]
enum Paused {
    /// Its freezer cgroup is frozen.
    Frozen,
    /// Its processes got SIGSTOP.
    Stopped,
}

/// How a process run to its end ([`Process::finish`]) ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// It exited, or was killed by a signal, by itself.
    Exited(ExitStatus),
    /// It ran past its policy's time limit and was killed with all it started.
    TimedOut(Duration),
    /// The kernel killed a process of it at its sandbox's memory limit.
    OutOfMemory(MemoryUse),
}

impl Ended {
    /// Whether it exited with 0.
    pub fn success(&self) -> bool {
        matches!(self, Ended::Exited(status) if status.success())
    }
}

impl std::fmt::Display for Ended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ended::Exited(status) => match (status.code(), status.signal()) {
                (Some(code), _) => write!(f, "exited with {code}"),
                (None, Some(signal)) => write!(f, "was killed by signal {signal}"),
                (None, None) => write!(f, "ended ({status})"),
            },
            Ended::TimedOut(limit) => write!(f, "took longer than {} s and was stopped", limit.as_secs_f64()),
            Ended::OutOfMemory(used) => write!(f, "was killed for using more than its {} MiB of memory", used.limit_mb),
        }
    }
}

impl Process {
    /// Its process id (bubblewrap's, when sandboxed).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Its pipes, once, when started with [`Output::Piped`].
    pub fn pipes(&mut self) -> Option<Pipes> {
        Some(Pipes {
            stdin: self.child.stdin.take()?,
            stdout: self.child.stdout.take()?,
            stderr: self.child.stderr.take()?,
        })
    }

    /// How it ended, if that is known.
    pub fn exit(&self) -> Option<ExitStatus> {
        self.exit
    }

    /// Waits for it to exit (cancel-safe), and tells how the program itself
    /// ended: for a sandboxed one, bubblewrap's 128 + N is signal N.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        if let Some(status) = self.exit {
            return Ok(status);
        }
        let status = self.child.wait().await?;
        let status = match status.code() {
            Some(code @ 129..=192) if self.limits().is_some() => ExitStatus::from_raw(code - 128),
            _ => status,
        };
        self.exit = Some(status);
        Ok(status)
    }

    /// Its exit status if it exits within `time`.
    pub async fn exits_within(&mut self, time: Duration) -> Option<ExitStatus> {
        tokio::time::timeout(time, self.wait()).await.ok()?.ok()
    }

    /// What a sandboxed process used when the kernel killed a process of it
    /// at its memory limit, if that happened.
    pub fn memory_exceeded(&self) -> Option<MemoryUse> {
        self.limits().and_then(LimitCgroups::memory_exceeded)
    }

    fn limits(&self) -> Option<&LimitCgroups> {
        self.contained.as_ref().and_then(Contained::limits)
    }

    /// Its CPU time so far, all its processes and threads, where the system
    /// tells it.
    pub fn cpu_time(&self) -> Option<Duration> {
        self.cpu.as_ref()?.read()
    }

    /// Stops every process of it (fair mode): freezes its freezer, or where
    /// it has none, stops its processes with SIGSTOP.
    pub fn pause(&mut self) {
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

    /// Continues every process of it, as [`pause`](Self::pause) stopped them.
    pub fn resume(&mut self) {
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

    /// Signals its process group. After the leader is reaped, the group id
    /// cannot be taken by a new process while any member lives, so the
    /// signal reaches the process's leftovers or nobody. A sandboxed
    /// process's processes are in a PID namespace and a session of their
    /// own: they are signalled one by one, from the list of its cgroup.
    pub fn signal(&self, signal: Signal) {
        if let Some(group) = self.group {
            // ESRCH (the group is empty) is the expected outcome once it is gone.
            let _ = kill_process_group(group, signal);
            if let Some(limits) = self.limits() {
                limits.signal_all(signal.as_raw(), SIGNAL_ROUNDS);
            }
        }
    }

    /// SIGKILL to the group, every other process it started killed wherever
    /// it went ([`contain`](crate::contain)), its cgroups removed, and the
    /// process reaped. The group is signalled once: afterwards its id is
    /// forgotten, because once the group is empty the system may give the id
    /// to an unrelated process.
    pub async fn kill(&mut self) {
        self.signal(Signal::KILL);
        if let Some(mut contained) = self.contained.take() {
            // A sweep of /proc: blocking system calls, off the runtime's threads.
            let _ = tokio::task::spawn_blocking(move || contained.kill_and_remove()).await;
        }
        if self.exit.is_none() {
            self.exit = self.child.wait().await.ok();
        }
        self.group = None;
    }

    /// Runs it to its end, at most its policy's time limit: then, or once
    /// it has exited, whatever it left running is killed with it.
    pub async fn finish(mut self) -> io::Result<Ended> {
        let exited = match self.time_limit {
            Some(limit) => tokio::time::timeout(limit, self.wait()).await.ok(),
            None => Some(self.wait().await),
        };
        let memory = self.memory_exceeded();
        self.kill().await;
        Ok(match (exited.transpose()?, memory) {
            (_, Some(used)) => Ended::OutOfMemory(used),
            (Some(status), None) => Ended::Exited(status),
            (None, None) => Ended::TimedOut(self.time_limit.unwrap_or_default()),
        })
    }
}

impl Drop for Process {
    /// A process that was neither finished nor killed (a panic, a cancelled
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

/// Sets the child to die with the supervisor (Linux).
fn die_with_the_supervisor(command: &mut tokio::process::Command) {
    #[cfg(target_os = "linux")]
    {
        let supervisor = std::process::id() as libc::pid_t;
        // SAFETY: the closure runs in the child between fork and exec and only
        // makes async-signal-safe system calls, without allocating.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(io::Error::last_os_error());
                }
                if libc::getppid() != supervisor {
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
    command: tokio::process::Command,
    runtime: Handle,
    reply: oneshot::Sender<io::Result<Child>>,
}

/// Forks `command` from the one thread that lives as long as the
/// supervisor, in the context of the caller's runtime (which then drives the
/// child's I/O).
async fn spawn_from_the_spawner_thread(command: tokio::process::Command) -> io::Result<Child> {
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
            .expect("the supervisor cannot start its spawner thread");
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
