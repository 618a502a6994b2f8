//! The sandbox for untrusted bots: what a bot may see and do, and the check
//! that the machine can enforce it.
//!
//! A sandboxed bot runs under **bubblewrap** (`bwrap`, the sandbox of
//! Flatpak), an audited setuid-free tool that builds the namespaces and the
//! mounts, rather than under code of our own:
//!
//! * `--unshare-all`: its own user, PID, network, IPC, UTS and cgroup
//!   namespaces. No network at all (not even the host's loopback); it sees
//!   and can signal only its own processes, so it cannot touch the referee or
//!   its opponent (`/proc/PID/fd/1` of the opponent does not exist for it);
//!   when the namespace's first process dies, the kernel kills every other
//!   one, `setsid` or not. `--die-with-parent` and `--new-session` (no
//!   terminal to inject keystrokes into) as well.
//! * A file system of its own: the system read-only (`/usr`, the `/bin` and
//!   `/lib` links or folders, the few files of `/etc` that programs need to
//!   start: the loader's cache, users, time zone, alternatives, Java's
//!   configuration), the bot's own folders read-only (`Seen`: its working
//!   directory, where it runs, so that `python3 bot.py` started in the bot's
//!   folder finds `bot.py`; and the folders of the files its command names by
//!   a path), a fresh `/proc` and `/dev`, a private `/tmp` of bounded size
//!   (`--size`, bubblewrap 0.7 or later) that vanishes with the bot, and
//!   nothing else: not the output folder, the journal, the logs, the home
//!   directory or the other bots' folders. A tournament names extra
//!   read-only or writable paths per bot ([`Sandbox::ro_paths`],
//!   [`Sandbox::rw_paths`]); folders inside a bound one that the bot must not
//!   see are covered by an empty read-only tmpfs ([`Sandbox::hidden`]).
//! * A clean environment: `PATH` of the system folders, `HOME=/tmp`, the
//!   bot's own variables and the containment marker; no variable of the
//!   organiser's (tokens, keys) reaches the bot.
//! * As another user where the arena runs as root: bubblewrap is started as
//!   `nobody` (65534), so that the bot owns no file of the host, even those
//!   it can see.
//! * Resource limits: memory and processes by cgroup (the `cgroup` module),
//!   open files and file size by rlimit (set here, before `exec`).
//!
//! [`check`] runs an empty sandbox once and says what is missing (bubblewrap,
//! user namespaces, cgroups) and how to get it: the arena refuses to start a
//! sandboxed bot without one, never running it unsandboxed instead.

use std::ffi::OsString;
use std::io::{self, Write as _};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use crate::policy::{self, Sandbox};
use crate::stage::Stage;
use crate::{contain, sandbox_setup, seccomp};

/// The user that runs sandboxed bots when the arena runs as root: `nobody`.
pub const SANDBOX_USER: u32 = 65534;

/// The `PATH` inside the sandbox: the system's folders only.
pub const SYSTEM_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// The whole environment of a sandboxed process, before the variables of
/// its [`Command`](crate::Command) (the organiser's) and the containment's
/// marker: none of the supervisor's own variables (tokens, keys) reaches it.
pub const SANDBOX_ENVIRONMENT: [(&str, &str); 4] = [
    ("PATH", SYSTEM_PATH),
    ("HOME", "/tmp"),
    ("TMPDIR", "/tmp"),
    ("LANG", "C.UTF-8"),
];

/// The system's folders, bound read-only (or recreated as the links they are).
pub const SYSTEM_DIRS: [&str; 7] = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/// What of `/etc` a program needs to start: the dynamic loader's cache, the
/// names of users and groups, the time zone, the alternatives (`java`), the
/// Java runtime's configuration, the certificates. Nothing else (no
/// `shadow`, no host names: there is no network).
pub const ETC_FILES: [&str; 10] = [
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/localtime",
    "/etc/alternatives",
    "/etc/ssl",
    "/etc/ca-certificates",
];

/// Why this machine cannot sandbox a bot, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    /// `bwrap` (bubblewrap) is not on the `PATH`.
    #[error(
        "the sandbox needs bubblewrap, and `bwrap` is not on the PATH: install it (Debian, Ubuntu: \
         `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`; Arch: `pacman -S bubblewrap`), \
         or run without the sandbox only bots you trust"
    )]
    NoBubblewrap,
    /// No writable cgroup v2 subtree with the memory and pids controllers; the text says what is missing.
    #[error(
        "the sandbox needs cgroups for the bots' memory and process limits, and this machine offers none \
         the arena may use: {0}. Run the arena as root, or in a delegated cgroup v2 subtree with the memory \
         and pids controllers (`systemd-run --user --scope -p Delegate=yes arena ...`)"
    )]
    NoCgroups(String),
    /// `bwrap` is there but cannot start an empty sandbox; the text is its error.
    #[error(
        "bubblewrap could not build an empty sandbox here: {0} The sandbox needs user namespaces and \
         bubblewrap 0.8 or later (for `--disable-userns` and the size of /tmp), not installed setuid"
    )]
    Unusable(String),
}

/// Whether a bot can be sandboxed here: bubblewrap on the `PATH`, cgroups
/// for the limits, and an empty sandbox that starts. Checked once per
/// process (it runs `bwrap` once, some milliseconds); the result is kept.
pub fn check() -> Result<(), SandboxError> {
    static CHECKED: OnceLock<Result<(), SandboxError>> = OnceLock::new();
    CHECKED.get_or_init(check_now).clone()
}

fn check_now() -> Result<(), SandboxError> {
    if bubblewrap().is_none() {
        return Err(SandboxError::NoBubblewrap);
    }
    contain::cgroups().limits_available().map_err(SandboxError::NoCgroups)?;
    // In `/`, which the sandbox has of its own: the probe binds no folder of the host.
    let probe = policy::Command {
        program: "true".to_owned(),
        args: Vec::new(),
        dir: Some(PathBuf::from("/")),
        env: Vec::new(),
    };
    let unusable = |said: String| SandboxError::Unusable(said);
    let (mut command, finish) = launch(&Sandbox::default(), &probe, ("PAHTUM_ARENA_CHECK", "1"))
        .map_err(|error| unusable(format!("its setup failed ({error})")))?;
    finish.register(&mut command);
    let output = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output()
        .map_err(|error| unusable(format!("`bwrap` did not start ({error})")))?;
    if output.status.success() {
        Ok(())
    } else {
        let said = String::from_utf8_lossy(&output.stderr);
        let said = said.trim();
        Err(unusable(format!(
            "`bwrap` said {:?}. {}",
            pahtum_protocol::untrusted::escape(said),
            sandbox_setup::advice(said, &sandbox_setup::Host::read())
        )))
    }
}

/// bubblewrap's absolute path, found on the arena's `PATH` once: the
/// sandbox is started by that path, with an empty environment.
pub(crate) fn bubblewrap() -> Option<&'static Path> {
    static BWRAP: OnceLock<Option<PathBuf>> = OnceLock::new();
    BWRAP
        .get_or_init(|| find_on_path("bwrap").map(|path| absolute(&path)))
        .as_deref()
}

/// The uid and gid that run sandboxed bots, when not the arena's own: the
/// arena runs as root.
pub(crate) fn sandbox_user() -> Option<u32> {
    // SAFETY: geteuid has no preconditions.
    (unsafe { libc::geteuid() } == 0).then_some(SANDBOX_USER)
}

pub(crate) fn find_on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}

/// The command that runs `spec` in `sandbox`: `bwrap ARGS -- PROGRAM ARGS`
/// by bubblewrap's absolute path and with an empty environment (bubblewrap
/// is the sandbox's first process, whose environment a bot can read), the
/// rlimits set before `exec`; and its last step between `fork` and `exec`,
/// for the caller to register after its own ([`Finish::register`]).
/// `marker` is the containment's environment variable.
pub(crate) fn launch(sandbox: &Sandbox, spec: &policy::Command, marker: (&str, &str)) -> io::Result<(Command, Finish)> {
    let program = bubblewrap().ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "`bwrap` is not on the PATH"))?;
    let seen = Seen::of(sandbox, spec);
    let binds: Vec<PathBuf> = seen.all().cloned().collect();
    let stage = sandbox_user().map(|user| Stage::open(&binds, user)).transpose()?;
    let filters = seccomp::programs()
        .iter()
        .map(|program| filter_pipe(program))
        .collect::<io::Result<Vec<OwnedFd>>>()?;
    let sources = Sources {
        staged: stage.is_some(),
        filters: filters.iter().map(AsRawFd::as_raw_fd).collect(),
    };
    let mut command = Command::new(program);
    command
        .env_clear()
        .args(bwrap_args(sandbox, spec, marker, &seen, &sources));
    let (open_files, file_size) = (sandbox.open_files, sandbox.file_size_mb << 20);
    // SAFETY: the closure makes setrlimit calls only, between fork and exec.
    unsafe {
        command.pre_exec(move || set_rlimits(open_files, file_size));
    }
    Ok((command, Finish { filters, stage }))
}

/// The last step of a sandboxed bot's child before bubblewrap runs: the
/// filters' descriptors opened for bubblewrap, and as root the stage and
/// the drop to the sandbox's user ([`Stage`]). Last, because the steps
/// before it (entering the cgroups) need root.
#[derive(Debug)]
pub(crate) struct Finish {
    /// Read ends of pipes that hold the seccomp filters.
    filters: Vec<OwnedFd>,
    stage: Option<Stage>,
}

impl Finish {
    /// Registers the step; the descriptors live as long as `command`.
    pub(crate) fn register(self, command: &mut Command) {
        // SAFETY: fcntl, and the stage's system calls, between fork and exec,
        // without allocating.
        unsafe {
            command.pre_exec(move || {
                // Whatever the arena inherited and did not mark close-on-exec
                // (a jobserver's pipe, a launcher's leak) does not reach the
                // sandbox: every descriptor but 0, 1, 2 and the filters closes.
                if libc::syscall(libc::SYS_close_range, 3, u32::MAX, libc::CLOSE_RANGE_CLOEXEC) != 0 {
                    return Err(io::Error::last_os_error());
                }
                for filter in &self.filters {
                    if libc::fcntl(filter.as_raw_fd(), libc::F_SETFD, 0) != 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                match &self.stage {
                    Some(stage) => stage.enter(),
                    None => Ok(()),
                }
            });
        }
    }
}

/// A pipe whose read end holds `program` and then its end (the filters are
/// a few KiB, well within a pipe's buffer).
fn filter_pipe(program: &[u8]) -> io::Result<OwnedFd> {
    let (reader, writer) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    std::fs::File::from(writer).write_all(program)?;
    Ok(reader)
}

/// How bubblewrap's arguments name what the bot gets from the host.
struct Sources {
    /// The bound folders come through the stage (`/tmp/bind-N`, in the order
    /// of [`Seen::all`]) rather than by their paths.
    staged: bool,
    /// The descriptors of the seccomp filters.
    filters: Vec<i32>,
}

/// Sets the bot's rlimits: open files, file size, no core files. Runs in the
/// child between `fork` and `exec`: `setrlimit` calls only, no allocation.
fn set_rlimits(open_files: u64, file_size_bytes: u64) -> io::Result<()> {
    for (resource, value) in [
        (libc::RLIMIT_NOFILE, open_files),
        (libc::RLIMIT_FSIZE, file_size_bytes),
        (libc::RLIMIT_CORE, 0),
    ] {
        let limit = libc::rlimit {
            rlim_cur: value,
            rlim_max: value,
        };
        // SAFETY: setrlimit reads the struct it is given.
        if unsafe { libc::setrlimit(resource, &limit) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// bubblewrap's arguments for `spec` in `sandbox`, which sees `seen`, up
/// to and including the bot's command.
fn bwrap_args(
    sandbox: &Sandbox,
    spec: &policy::Command,
    marker: (&str, &str),
    seen: &Seen,
    sources: &Sources,
) -> Vec<OsString> {
    let mut args = Args::default();
    args.words([
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "pahtum-bot",
    ]);
    for fd in &sources.filters {
        args.words(["--add-seccomp-fd", &fd.to_string()]);
    }
    args.words(["--clearenv"]);
    for (key, value) in SANDBOX_ENVIRONMENT.into_iter().chain([marker]) {
        args.words(["--setenv", key, value]);
    }
    for (key, value) in &spec.env {
        args.words(["--setenv", key, value]);
    }
    for dir in SYSTEM_DIRS {
        let path = Path::new(dir);
        match std::fs::read_link(path) {
            Ok(target) => args.paths("--symlink", &target, path),
            Err(_) if path.is_dir() => args.paths("--ro-bind", path, path),
            Err(_) => {}
        }
    }
    for file in ETC_FILES
        .iter()
        .map(Path::new)
        .chain(java_configuration().iter().map(PathBuf::as_path))
    {
        args.paths("--ro-bind-try", file, file);
    }
    let scratch = (sandbox.tmp_mb << 20).to_string();
    args.words(["--proc", "/proc", "--dev", "/dev"]);
    args.words([
        "--size", &scratch, "--tmpfs", "/tmp", "--size", &scratch, "--tmpfs", "/dev/shm",
    ]);
    let writable = seen.read_only.len()..;
    for (index, dir) in seen.all().enumerate() {
        let option = if writable.contains(&index) {
            "--bind"
        } else {
            "--ro-bind"
        };
        let source = if sources.staged {
            Stage::source(index)
        } else {
            dir.clone()
        };
        args.paths(option, &source, dir);
    }
    for hidden in seen.hidden(sandbox) {
        args.path("--tmpfs", &hidden);
        args.path("--remount-ro", &hidden);
    }
    if !seen.all().any(|dir| *dir == seen.work) {
        args.path("--dir", &seen.work);
    }
    // Nothing but /tmp, /dev/shm and the `rw_paths` is writable: not the
    // sandbox's root (and so its /etc), not its /dev.
    args.words(["--remount-ro", "/", "--remount-ro", "/dev"]);
    args.path("--chdir", &seen.work);
    args.words(["--", &spec.program]);
    args.words(spec.args.iter().map(String::as_str));
    args.0
}

/// The folders of the host that a sandboxed process sees, besides the
/// system's, each at its own path; and those its command names that it does
/// not see, with the reason.
///
/// What it sees comes from the organiser: its working directory when that is
/// its own folder ([`Sandbox::sees_working_dir`]: a tournament bot's `dir`,
/// an entrant's snapshot, a build's snapshot), the `ro_paths` and
/// `rw_paths`, and a private `/tmp`. Only where [`Sandbox::named_folders`]
/// allows it (the organiser's own command lines) does it also see the folder
/// of each file its command names, with two limits that no word can get
/// around:
///
/// * a folder that lies in one of [`Sandbox::hidden`] (the output folder,
///   another bot's folder) is not shown, even when named;
/// * when the supervisor runs as root, its binds reach any folder, so a named
///   folder that `nobody` could not reach by itself (from the working
///   directory for a folder inside it, where the organiser started the
///   process; from `/` for any other) is not shown. The organiser who wants
///   it shown names it in `ro_paths`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    /// The working directory (absolute), bound read-only unless the
    /// sandbox has its own ([`own_folder`]) or the sandbox's user may not
    /// enter it (then the process works in an empty folder of that name).
    pub work: PathBuf,
    /// The folder that the sandbox's user may not enter, at or above the
    /// working directory, and its mode, when that is why the working
    /// directory is not bound.
    pub work_closed: Option<(PathBuf, u32)>,
    /// Its own folders: the working directory if it is its own, and the
    /// named folders that are shown; one inside another or not.
    pub own: Vec<PathBuf>,
    /// Read-only: its own folders and the sandbox's `ro_paths`, none
    /// inside another.
    pub read_only: Vec<PathBuf>,
    /// Read and write: the sandbox's `rw_paths`.
    pub writable: Vec<PathBuf>,
    /// The folders its command names that are not shown, and why.
    pub not_shown: Vec<NotShown>,
}

/// A folder named by a command and not shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotShown {
    /// The folder (canonical).
    pub folder: PathBuf,
    /// Why it is not shown.
    pub why: Withheld,
}

/// Why a named folder is not shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Withheld {
    /// It lies in this hidden folder (the output folder, another bot's).
    Hidden(PathBuf),
    /// `nobody` could not pass this folder on its way there; its mode.
    Closed(PathBuf, u32),
}

impl std::fmt::Display for NotShown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let folder = self.folder.display();
        match &self.why {
            Withheld::Hidden(hidden) => write!(
                f,
                "{folder}, which its command names, is not shown: it lies in {}, which the sandbox hides \
                 (the output folder or another bot's folder)",
                hidden.display()
            ),
            Withheld::Closed(closed, mode) => write!(
                f,
                "{folder}, which its command names, is not shown: `nobody` may not enter {} (mode {mode:04o}); \
                 name it in the sandbox's ro_paths to show it",
                closed.display()
            ),
        }
    }
}

impl Seen {
    /// What a process of `command` sees in `sandbox`.
    pub fn of(sandbox: &Sandbox, command: &policy::Command) -> Seen {
        let work = working_dir(command);
        let closed = sandbox_user().and_then(|_| closed_to_others(&work));
        let whole_work = sandbox.sees_working_dir && closed.is_none() && !own_folder(&work);
        let hidden: Vec<PathBuf> = sandbox.hidden.iter().map(|path| canonical(path)).collect();
        let mut own: Vec<PathBuf> = whole_work.then(|| work.clone()).into_iter().collect();
        let mut not_shown = Vec::new();
        let named = if sandbox.named_folders {
            named_dirs(command, &work)
        } else {
            Vec::new()
        };
        for folder in named {
            let why = match hidden.iter().find(|hidden| folder.starts_with(hidden)) {
                Some(hidden) => Some(Withheld::Hidden(hidden.clone())),
                None => sandbox_user()
                    .and_then(|_| closed_on_the_way(&work, &folder))
                    .map(|(closed, mode)| Withheld::Closed(closed, mode)),
            };
            match why {
                Some(why) => not_shown.push(NotShown { folder, why }),
                None => own.push(folder),
            }
        }
        let organisers: Vec<PathBuf> = sandbox.ro_paths.iter().map(|path| canonical(path)).collect();
        let read_only = outermost(own.iter().chain(&organisers).cloned());
        // Shown by `ro_paths`, it is bound all the same.
        let writable: Vec<PathBuf> = sandbox.rw_paths.iter().map(|path| canonical(path)).collect();
        let work_closed = closed.filter(|_| !read_only.contains(&work) && !writable.contains(&work));
        not_shown.retain(|withheld| !organisers.iter().any(|seen| withheld.folder.starts_with(seen)));
        Seen {
            work,
            work_closed,
            own,
            read_only,
            writable,
            not_shown,
        }
    }

    /// Every folder bound: the read-only ones, then the writable ones.
    pub fn all(&self) -> impl Iterator<Item = &PathBuf> {
        self.read_only.iter().chain(&self.writable)
    }

    /// The folders of `sandbox.hidden` to cover, by their canonical paths
    /// (`..` and links resolved, so that `dir = ".."` cannot uncover the
    /// output folder): those that lie inside a folder the process sees, do
    /// not hold one of its own, and that the sandbox's user can reach (one
    /// it cannot reach, the process cannot see either).
    fn hidden(&self, sandbox: &Sandbox) -> Vec<PathBuf> {
        sandbox
            .hidden
            .iter()
            .map(|hidden| canonical(hidden))
            .filter(|hidden| hidden.is_dir())
            .filter(|hidden| !self.own.iter().any(|own| own.starts_with(hidden)))
            .filter(|hidden| {
                self.all()
                    .any(|seen| hidden.starts_with(seen) && (sandbox_user().is_none() || reachable_below(seen, hidden)))
            })
            .collect()
    }
}

/// What the organiser is told before `command` starts in `sandbox`: each
/// folder its command names that is not shown, and each of the `ro_paths`
/// that `nobody` could not reach by itself and is shown because the
/// organiser named it.
pub fn start_notes(sandbox: &Sandbox, command: &policy::Command) -> Vec<String> {
    let seen = Seen::of(sandbox, command);
    let named_by_organiser = sandbox_user()
        .map(|_| {
            sandbox
                .ro_paths
                .iter()
                .map(|path| canonical(path))
                // The program itself, shown by the arena ([`Sandbox::running_own_program`]).
                .filter(|path| *path != canonical(Path::new(&command.program)))
                .filter_map(|path| {
                    let (closed, mode) = closed_on_the_way(Path::new("/"), &path)?;
                    Some(format!(
                        "{} is shown because ro_paths names it, though `nobody` may not enter {} (mode {mode:04o})",
                        path.display(),
                        closed.display()
                    ))
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    seen.not_shown
        .iter()
        .map(ToString::to_string)
        .chain(named_by_organiser)
        .collect()
}

/// Whether others may go from `top` down into every folder above `path`
/// (`path` lies inside `top`).
fn reachable_below(top: &Path, path: &Path) -> bool {
    path.ancestors()
        .skip(1)
        .take_while(|folder| folder.starts_with(top))
        .all(|folder| std::fs::metadata(folder).is_ok_and(|meta| meta.mode() & 0o001 != 0))
}

/// The first folder, going down to `folder` (itself included), that others
/// may not pass, and its mode: from `work` (not included) when `folder` lies
/// inside it, from `/` otherwise.
fn closed_on_the_way(work: &Path, folder: &Path) -> Option<(PathBuf, u32)> {
    let top = if folder.starts_with(work) { work } else { Path::new("/") };
    let mut way: Vec<&Path> = folder
        .ancestors()
        .take_while(|step| step.starts_with(top) && (*step != top || top == Path::new("/")))
        .collect();
    way.reverse();
    way.into_iter().find_map(closed_to_others)
}

/// The process's working directory: its `dir`, or the supervisor's own.
fn working_dir(command: &policy::Command) -> PathBuf {
    command.dir.as_deref().map_or_else(
        || std::env::current_dir().map_or_else(|_| PathBuf::from("/"), |dir| canonical(&dir)),
        canonical,
    )
}

/// Whether `dir` is a folder the sandbox makes of its own (`/`, `/tmp`,
/// `/proc`, `/dev`), which the host's must not cover: a process started
/// there works in the sandbox's.
pub(crate) fn own_folder(dir: &Path) -> bool {
    ["/", "/tmp", "/proc", "/dev"].iter().any(|own| dir == Path::new(own))
}

/// `dir` and its mode, if others may not enter it. Only the folder itself
/// counts: the folders above it are reached as root ([`Stage`]).
pub(crate) fn closed_to_others(dir: &Path) -> Option<(PathBuf, u32)> {
    let mode = std::fs::metadata(dir).ok()?.mode() & 0o7777;
    (mode & 0o001 == 0).then(|| (dir.to_owned(), mode))
}

/// The folders that `command`'s words name, in order: the folder of its
/// program (when named by a path) and of every argument that names a file
/// (`python3 bots/x/bot.py` names `bots/x`; `python3 bot.py`, the working
/// directory), or that names a folder (`go run .`), that folder. Canonical
/// paths, not the sandbox's own folders ([`own_folder`]).
fn named_dirs(command: &policy::Command, work: &Path) -> Vec<PathBuf> {
    let program = Some(&command.program).filter(|program| program.contains('/'));
    program
        .into_iter()
        .chain(&command.args)
        .filter_map(|word| {
            let path = work.join(word);
            if path.is_file() {
                Some(canonical(&path).parent()?.to_owned())
            } else if path.is_dir() {
                Some(canonical(&path))
            } else {
                None
            }
        })
        .filter(|dir| !own_folder(dir))
        .collect()
}

/// The folder of the host that `command`, run in `sandbox`, sees as its
/// very own: its working directory when that is its own, else the first
/// folder its command names. A tournament hides the others' from it, never
/// this one nor a folder above it.
pub fn main_folder(sandbox: &Sandbox, command: &policy::Command) -> Option<PathBuf> {
    let work = working_dir(command);
    if sandbox.sees_working_dir {
        return Some(work);
    }
    if !sandbox.named_folders {
        return None;
    }
    named_dirs(command, &work).into_iter().next()
}

/// What a process among others (the bots of one tournament or game) must
/// not see: `output`, and each of `others` (the other bots' own folders),
/// except those that hold its own main folder `main` ([`main_folder`]: two
/// bots of one folder share it, and a bot in a folder of another's still
/// sees its own).
pub fn hidden_for(
    main: Option<&Path>,
    output: Option<&Path>,
    others: impl IntoIterator<Item = PathBuf>,
) -> Vec<PathBuf> {
    output
        .map(Path::to_owned)
        .into_iter()
        .chain(others)
        .filter(|folder| !main.is_some_and(|main| main.starts_with(folder)))
        .collect()
}

/// The folders of the host that `command`, run in `sandbox`, may see as its
/// own (its working directory when that is its own, and the folders its
/// command names): what the other bots of a tournament must not see
/// ([`Sandbox::hidden`]).
pub fn own_folders(sandbox: &Sandbox, command: &policy::Command) -> Vec<PathBuf> {
    let work = working_dir(command);
    let named = if sandbox.named_folders {
        named_dirs(command, &work)
    } else {
        Vec::new()
    };
    sandbox
        .sees_working_dir
        .then_some(work)
        .into_iter()
        .chain(named)
        .filter(|dir| !own_folder(dir))
        .collect()
}

/// `paths` without those inside another, and without repeats.
fn outermost(paths: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    let mut kept: Vec<PathBuf> = Vec::new();
    for path in paths {
        if kept.iter().any(|outer| path.starts_with(outer)) {
            continue;
        }
        kept.retain(|inner| !inner.starts_with(&path));
        kept.push(path);
    }
    kept
}

/// The Java runtime's configuration folders in `/etc` (`/etc/java-17-openjdk`),
/// which its files in `/usr/lib/jvm` link to.
fn java_configuration() -> Vec<PathBuf> {
    std::fs::read_dir("/etc")
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|entry| entry.file_name().to_string_lossy().starts_with("java"))
                .map(|entry| entry.path())
                .collect()
        })
        .unwrap_or_default()
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

/// `path` with `..` and links resolved where it exists, else absolute.
pub(crate) fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| absolute(path))
}

/// bubblewrap's argument list as it grows.
#[derive(Default)]
struct Args(Vec<OsString>);

impl Args {
    fn words<'a>(&mut self, words: impl IntoIterator<Item = &'a str>) {
        self.0.extend(words.into_iter().map(OsString::from));
    }

    /// An option with a source and a destination (`--ro-bind SRC DEST`).
    fn paths(&mut self, option: &str, source: &Path, destination: &Path) {
        self.0.extend([option.into(), source.into(), destination.into()]);
    }

    /// An option with one path (`--chdir DIR`).
    fn path(&mut self, option: &str, path: &Path) {
        self.0.extend([option.into(), path.into()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(command: &str, dir: Option<&str>) -> policy::Command {
        policy::Command::split(command, dir.map(PathBuf::from)).unwrap()
    }

    /// bubblewrap's arguments, by the folders' own paths (not staged).
    fn text(sandbox: &Sandbox, spec: &policy::Command) -> String {
        let seen = Seen::of(sandbox, spec);
        let sources = Sources {
            staged: false,
            filters: vec![7],
        };
        bwrap_args(sandbox, spec, ("M", "1/2"), &seen, &sources)
            .iter()
            .map(|arg| arg.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Every namespace, no nested user namespace, the filters, a clean
    /// environment, nothing writable but the scratch space, the bot's
    /// command at the end.
    #[test]
    fn the_bot_runs_in_every_namespace_with_a_clean_environment() {
        let args = text(&Sandbox::default(), &spec("python3 -u bot.py", Some("/")));
        assert!(
            args.starts_with(
                "--unshare-all --unshare-user --disable-userns --die-with-parent --new-session \
                 --hostname pahtum-bot --add-seccomp-fd 7 --clearenv"
            ),
            "{args}"
        );
        assert!(args.contains("--clearenv --setenv PATH /usr/local/sbin"), "{args}");
        assert!(args.contains("--setenv M 1/2"), "{args}");
        let scratch = 64 << 20;
        assert!(
            args.contains(&format!(
                "--size {scratch} --tmpfs /tmp --size {scratch} --tmpfs /dev/shm"
            )),
            "{args}"
        );
        assert!(
            args.ends_with("--remount-ro / --remount-ro /dev --chdir / -- python3 -u bot.py"),
            "{args}"
        );
    }

    /// The bot sees the folder of the file its command names, its working
    /// directory here; a command that names none does not show the working
    /// directory (the bot works in an empty folder of that name), unless the
    /// working directory is the bot's own; never the host's `/` or `/tmp`.
    #[test]
    fn the_bot_sees_the_folders_its_command_names() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bot.py"), "").unwrap();
        let work = dir.path().display().to_string();
        let bound = format!("--ro-bind {work} {work}");
        let args = text(&Sandbox::default(), &spec("python3 bot.py", Some(&work)));
        assert!(args.contains(&bound), "{args}");
        assert!(args.ends_with(&format!("--chdir {work} -- python3 bot.py")), "{args}");
        let args = text(&Sandbox::default(), &spec("python3 -m bot", Some(&work)));
        assert!(!args.contains(&bound), "{args}");
        assert!(args.contains(&format!("--dir {work}")), "{args}");
        let own = Sandbox {
            sees_working_dir: true,
            ..Sandbox::default()
        };
        assert!(text(&own, &spec("python3 -m bot", Some(&work))).contains(&bound));
        for own in ["/", "/tmp"] {
            let args = text(&Sandbox::default(), &spec("python3 bot.py", Some(own)));
            assert!(!args.contains(&format!("--ro-bind {own} {own} ")), "{args}");
            assert!(args.ends_with(&format!("--chdir {own} -- python3 bot.py")), "{args}");
        }
    }

    /// A folder closed to others is found by its own mode only.
    #[test]
    fn a_closed_folder_is_found_by_its_own_mode() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("a/b");
        std::fs::create_dir_all(&inner).unwrap();
        let mode = |path: &Path, mode| {
            std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(mode)).unwrap();
        };
        mode(&dir.path().join("a"), 0o700);
        mode(&inner, 0o755);
        assert_eq!(closed_to_others(&inner), None);
        mode(&inner, 0o710);
        assert_eq!(closed_to_others(&inner), Some((inner.clone(), 0o710)));
    }

    /// A path argument's folder is seen read-only; a hidden folder inside a
    /// seen one is covered; writable paths are bound as such.
    #[test]
    fn the_bot_sees_its_own_folder_and_no_hidden_one() {
        let dir = tempfile::tempdir().unwrap();
        let bot = dir.path().join("bot");
        let out = dir.path().join("runs");
        std::fs::create_dir_all(&bot).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(bot.join("bot.py"), "").unwrap();
        let sandbox = Sandbox {
            rw_paths: vec![PathBuf::from("/srv/scratch")],
            hidden: vec![out.clone(), PathBuf::from("/elsewhere")],
            ..Sandbox::default()
        };
        let spec = spec("python3 bot/bot.py", Some(dir.path().to_str().unwrap()));
        let args = text(&sandbox, &spec);
        let root = dir.path().display();
        // `bot/bot.py` names bot/: the folder above it is not seen.
        assert!(!args.contains(&format!("--ro-bind {root} {root}")), "{args}");
        let sandbox = Sandbox {
            sees_working_dir: true,
            hidden: vec![dir.path().join("bot/../runs"), bot.clone(), PathBuf::from("/elsewhere")],
            ..sandbox
        };
        let args = text(&sandbox, &spec);
        assert!(args.contains(&format!("--ro-bind {root} {root}")), "{args}");
        assert!(
            args.contains(&format!("--tmpfs {0} --remount-ro {0}", out.display())),
            "{args}"
        );
        // Named by the command and hidden (another bot's folder): covered all the same.
        assert!(args.contains(&format!("--tmpfs {}", bot.display())), "{args}");
        assert_eq!(
            Seen::of(&sandbox, &spec).not_shown,
            [NotShown {
                folder: bot.canonicalize().unwrap(),
                why: Withheld::Hidden(bot.canonicalize().unwrap())
            }]
        );
        assert!(!args.contains("/elsewhere"), "{args}");
        assert!(args.contains("--bind /srv/scratch /srv/scratch"), "{args}");
        let own = Sandbox {
            hidden: vec![out.clone()],
            ..sandbox
        };
        assert!(!text(&own, &spec).contains(&format!("--tmpfs {}", bot.display())));
    }

    /// A named folder is shown only where `nobody` could reach it by itself
    /// (as root): from the working directory for one inside it, from `/`
    /// for any other; a closed one named in `ro_paths` is shown.
    #[test]
    fn a_named_folder_closed_to_others_is_not_shown() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (work, secret) = (root.join("work"), root.join("x"));
        for folder in [&work, &secret, &work.join("closed")] {
            std::fs::create_dir_all(folder).unwrap();
            std::fs::write(folder.join("f"), "").unwrap();
        }
        let mode = |path: &Path, mode| {
            std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(mode)).unwrap();
        };
        mode(&root, 0o700);
        mode(&work.join("closed"), 0o700);
        let command = policy::Command::split(
            &format!("python3 f {}/f closed/f", secret.display()),
            Some(work.clone()),
        )
        .unwrap();
        let seen = Seen::of(&Sandbox::default(), &command);
        if sandbox_user().is_none() {
            assert!(seen.not_shown.is_empty(), "{seen:?}");
            return;
        }
        assert_eq!(seen.own, std::slice::from_ref(&work));
        assert_eq!(
            seen.not_shown,
            [
                NotShown {
                    folder: secret.clone(),
                    why: Withheld::Closed(root.clone(), 0o700)
                },
                NotShown {
                    folder: work.join("closed"),
                    why: Withheld::Closed(work.join("closed"), 0o700)
                },
            ]
        );
        let named = Sandbox {
            ro_paths: vec![secret.clone()],
            ..Sandbox::default()
        };
        let seen = Seen::of(&named, &command);
        assert!(seen.read_only.contains(&secret), "{seen:?}");
        assert_eq!(seen.not_shown.len(), 1, "{seen:?}");
        let notes = start_notes(&named, &command);
        assert!(
            notes.iter().any(|note| note.contains("because ro_paths names it")),
            "{notes:?}"
        );
    }
}
