//! What to run and under which policy: plain data that the organiser's
//! configuration fills in, and that [`start`](crate::start) alone turns into
//! a process.
//!
//! A [`Command`] is a program with its arguments, working directory and
//! variables. A [`Policy`] is everything else: what the process sees and
//! may use (a [`Sandbox`], or the organiser's own rights), where its output
//! goes, how long it may run and on which core. Keeping the two apart is what
//! lets one supervisor serve a bot (piped, for the whole of its games), a
//! build (logged, time-limited) and an admission check alike.

use std::path::PathBuf;
use std::time::Duration;

/// A program to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The program: a path, or a name looked up on the `PATH`.
    pub program: String,
    /// Its arguments, passed as they are (no shell).
    pub args: Vec<String>,
    /// The working directory; the supervisor's own when `None`.
    pub dir: Option<PathBuf>,
    /// Variables added to its environment: to the supervisor's own
    /// environment outside a sandbox, to the sandbox's fixed one inside
    /// ([`SANDBOX_ENVIRONMENT`](crate::sandbox::SANDBOX_ENVIRONMENT)).
    pub env: Vec<(String, String)>,
}

impl Command {
    /// `sh -c LINE` in `dir`: a build's or a script's shell command line.
    pub fn shell(line: &str, dir: PathBuf) -> Command {
        Command {
            program: "sh".to_owned(),
            args: vec!["-c".to_owned(), line.to_owned()],
            dir: Some(dir),
            env: Vec::new(),
        }
    }

    /// A shell-like command line split into a program and its arguments, in
    /// `dir` (no shell is involved); `None` when it is empty or a quote is
    /// never closed.
    pub fn split(line: &str, dir: Option<PathBuf>) -> Option<Command> {
        let mut words = shlex::split(line)?.into_iter();
        Some(Command {
            program: words.next()?,
            args: words.collect(),
            dir,
            env: Vec::new(),
        })
    }

    /// The command as one line, for messages.
    pub fn line(&self) -> String {
        shlex::try_join(std::iter::once(self.program.as_str()).chain(self.args.iter().map(String::as_str)))
            .unwrap_or_else(|_| format!("{} {}", self.program, self.args.join(" ")))
    }
}

/// How a process is run: what it sees, where its output goes, its limits.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Policy {
    /// Run it in this sandbox; `None`: with the supervisor's own rights (a
    /// program the organiser trusts).
    pub sandbox: Option<Sandbox>,
    /// Where its standard streams go.
    pub output: Output,
    /// The longest it may run before [`Process::finish`](crate::Process::finish)
    /// kills it; `None`: no limit (a bot, whose clock the referee keeps).
    pub time_limit: Option<Duration>,
    /// The one core it may run on, if pinned.
    pub core: Option<usize>,
}

/// Where a process's standard streams go.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Output {
    /// stdin, stdout and stderr are pipes for the caller
    /// ([`Process::pipes`](crate::Process::pipes)): a bot.
    #[default]
    Piped,
    /// No stdin; stdout and stderr together into this file, created or
    /// emptied: a build's or a check's log, kept whole.
    Log(PathBuf),
}

/// The sandbox of one process: what it sees beyond the system's folders,
/// and its limits. Plain settings: [`sandbox`](crate::sandbox) says how a
/// process is run in them, and checks that the machine can.
///
/// What it sees comes from these settings, given by the organiser, and from
/// the command's words only where [`Sandbox::named_folders`] allows it (the
/// organiser's own command lines), within the limits that
/// [`sandbox::Seen`](crate::sandbox::Seen) applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// The memory of all its processes, in MiB (1024): past it the kernel
    /// kills a process, and a bot killed so loses with `memory`.
    pub memory_mb: u64,
    /// Its processes and threads, all counted (256).
    pub max_processes: u64,
    /// Open files per process (1024).
    pub open_files: u64,
    /// The largest file it may write, in MiB (1024).
    pub file_size_mb: u64,
    /// The size of its private `/tmp`, in MiB (64).
    pub tmp_mb: u64,
    /// The CPU it may use, in percent of one core, all its processes
    /// together (a cgroup's CPU quota); `None`: no cap (a bot, whose clock
    /// and fair mode keep it in bounds).
    pub cpu_percent: Option<u64>,
    /// More paths it may read (absolute), given by the organiser: shown
    /// even where the sandbox's user could not reach them by itself.
    pub ro_paths: Vec<PathBuf>,
    /// Paths it may read and write (absolute), given by the organiser.
    pub rw_paths: Vec<PathBuf>,
    /// Folders it must not see even where they lie inside a path it sees,
    /// or where its command names them (the output folder, the other bots'
    /// folders).
    pub hidden: Vec<PathBuf>,
    /// Whether its working directory is its own folder, seen whole (a
    /// tournament bot's `dir`, an entrant's snapshot).
    pub sees_working_dir: bool,
    /// Whether the folders of the files and folders its command names are
    /// shown too (`python3 bots/x/bot.py` sees `bots/x`): for the
    /// organiser's own command lines (a tournament file, `arena game`),
    /// never for an entrant's, whose words must not widen what it sees.
    pub named_folders: bool,
}

impl Default for Sandbox {
    fn default() -> Sandbox {
        Sandbox {
            memory_mb: 1024,
            max_processes: 256,
            open_files: 1024,
            file_size_mb: 1024,
            tmp_mb: 64,
            cpu_percent: None,
            ro_paths: Vec::new(),
            rw_paths: Vec::new(),
            hidden: Vec::new(),
            sees_working_dir: false,
            named_folders: true,
        }
    }
}

impl Sandbox {
    /// This sandbox for a program of the organiser's own at `program` (the
    /// arena executable, for its built-in bots): that one file is shown
    /// (wherever it lies, 0700 folders included), and no folder by the
    /// command's words.
    pub fn running_own_program(self, program: PathBuf) -> Sandbox {
        let mut sandbox = Sandbox {
            named_folders: false,
            ..self
        };
        sandbox.ro_paths.push(program);
        sandbox
    }
}
