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
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;

use tokio::process::Command;

use super::contain;
use crate::spec::{BotSpec, Sandbox};

/// The user that runs sandboxed bots when the arena runs as root: `nobody`.
pub(crate) const SANDBOX_USER: u32 = 65534;

/// The `PATH` inside the sandbox: the system's folders only.
pub(crate) const SYSTEM_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// The system's folders, bound read-only (or recreated as the links they are).
pub(crate) const SYSTEM_DIRS: [&str; 7] = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/// What of `/etc` a program needs to start: the dynamic loader's cache, the
/// names of users and groups, the time zone, the alternatives (`java`), the
/// Java runtime's configuration, the certificates. Nothing else (no
/// `shadow`, no host names: there is no network).
const ETC_FILES: [&str; 10] = [
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
        "bubblewrap could not build an empty sandbox here: {0}. It needs user namespaces \
         (`sysctl -w user.max_user_namespaces=10000`; on Debian before 11 also \
         `sysctl -w kernel.unprivileged_userns_clone=1`; in a container, a seccomp profile that allows \
         them) and bubblewrap 0.7 or later, not installed setuid (for the size of /tmp)"
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
    if find_on_path("bwrap").is_none() {
        return Err(SandboxError::NoBubblewrap);
    }
    contain::cgroups().limits_available().map_err(SandboxError::NoCgroups)?;
    // In `/`, which the sandbox has of its own: the probe binds no folder of the host.
    let probe = BotSpec {
        dir: Some(PathBuf::from("/")),
        ..BotSpec::from_command("sandbox-check", "true").expect("a valid command")
    };
    let mut command = std::process::Command::new("bwrap");
    command
        .args(bwrap_args(&Sandbox::default(), &probe, ("PAHTUM_ARENA_CHECK", "1")))
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    if let Some(user) = sandbox_user() {
        std::os::unix::process::CommandExt::uid(&mut command, user);
        std::os::unix::process::CommandExt::gid(&mut command, user);
    }
    let output = command
        .output()
        .map_err(|error| SandboxError::Unusable(format!("`bwrap` did not start ({error})")))?;
    if output.status.success() {
        Ok(())
    } else {
        let said = String::from_utf8_lossy(&output.stderr);
        Err(SandboxError::Unusable(format!(
            "`bwrap` said {:?}",
            pahtum_protocol::untrusted::escape(said.trim())
        )))
    }
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

/// The command that runs `spec` in `sandbox`: `bwrap ARGS -- PROGRAM ARGS`,
/// as the sandbox's user, with the rlimits set before `exec`. `marker` is
/// the containment's environment variable.
pub(crate) fn command(sandbox: &Sandbox, spec: &BotSpec, marker: (&str, &str)) -> Command {
    let mut command = Command::new("bwrap");
    command.args(bwrap_args(sandbox, spec, marker));
    if let Some(user) = sandbox_user() {
        command.uid(user).gid(user);
    }
    let (open_files, file_size) = (sandbox.open_files, sandbox.file_size_mb << 20);
    // SAFETY: the closure makes setrlimit calls only, between fork and exec.
    unsafe {
        command.pre_exec(move || set_rlimits(open_files, file_size));
    }
    command
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

/// bubblewrap's arguments for `spec` in `sandbox`, up to and including the
/// bot's command.
fn bwrap_args(sandbox: &Sandbox, spec: &BotSpec, marker: (&str, &str)) -> Vec<OsString> {
    let mut args = Args::default();
    args.words([
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "pahtum-bot",
    ]);
    args.words([
        "--clearenv",
        "--setenv",
        "PATH",
        SYSTEM_PATH,
        "--setenv",
        "HOME",
        "/tmp",
    ]);
    args.words(["--setenv", "TMPDIR", "/tmp", "--setenv", marker.0, marker.1]);
    for key in ["LANG", "LC_ALL", "TZ"] {
        if let Some(value) = std::env::var_os(key) {
            args.words(["--setenv", key]);
            args.0.push(value);
        }
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
    args.words(["--proc", "/proc", "--dev", "/dev"]);
    args.words(["--size", &(sandbox.tmp_mb << 20).to_string(), "--tmpfs", "/tmp"]);
    let seen = Seen::of(sandbox, spec);
    for dir in &seen.read_only {
        args.paths("--ro-bind", dir, dir);
    }
    for path in &seen.writable {
        args.paths("--bind", path, path);
    }
    for hidden in &sandbox.hidden {
        let hidden = absolute(hidden);
        if seen.all().any(|dir| hidden.starts_with(dir)) && hidden.is_dir() {
            args.path("--tmpfs", &hidden);
            args.path("--remount-ro", &hidden);
        }
    }
    if !seen.read_only.contains(&seen.work) {
        args.path("--dir", &seen.work);
    }
    args.path("--chdir", &seen.work);
    args.words(["--", &spec.program]);
    args.words(spec.args.iter().map(String::as_str));
    args.0
}

/// The folders of the host that a sandboxed bot sees, besides the system's,
/// each at its own path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seen {
    /// The bot's working directory (absolute), bound read-only unless the
    /// sandbox has its own ([`own_folder`]) or the sandbox's user may not
    /// enter it (then the bot works in an empty folder of that name).
    pub work: PathBuf,
    /// The folder that the sandbox's user may not enter, at or above the
    /// working directory, and its mode, when that is why the working
    /// directory is not bound.
    pub work_closed: Option<(PathBuf, u32)>,
    /// Read-only: the working directory, the folders of its program and
    /// of its path arguments, the sandbox's `ro_paths`.
    pub read_only: Vec<PathBuf>,
    /// Read and write: the sandbox's `rw_paths`.
    pub writable: Vec<PathBuf>,
}

impl Seen {
    pub fn of(sandbox: &Sandbox, spec: &BotSpec) -> Seen {
        let work = working_dir(spec);
        let closed = sandbox_user().and_then(|_| closed_to_others(&work));
        let mut read_only = own_dirs(spec, &work, closed.is_none());
        read_only.extend(sandbox.ro_paths.iter().cloned());
        // Named by a path of the command or in `ro_paths`, it is bound all the same.
        let work_closed = closed.filter(|_| !read_only.contains(&work));
        Seen {
            work,
            work_closed,
            read_only,
            writable: sandbox.rw_paths.clone(),
        }
    }

    pub fn all(&self) -> impl Iterator<Item = &PathBuf> {
        self.read_only.iter().chain(&self.writable)
    }
}

/// The bot's working directory: its `dir`, or the referee's own.
fn working_dir(spec: &BotSpec) -> PathBuf {
    spec.dir.as_deref().map_or_else(
        || std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
        absolute,
    )
}

/// Whether `dir` is a folder the sandbox makes of its own (`/`, `/tmp`,
/// `/proc`, `/dev`), which the host's must not cover: a bot started there
/// works in the sandbox's.
pub(crate) fn own_folder(dir: &Path) -> bool {
    ["/", "/tmp", "/proc", "/dev"].iter().any(|own| dir == Path::new(own))
}

/// The first folder from `/` down to `dir` (itself included) that others
/// may not enter, and its mode.
pub(crate) fn closed_to_others(dir: &Path) -> Option<(PathBuf, u32)> {
    let mut folders: Vec<&Path> = dir.ancestors().collect();
    folders.reverse();
    folders.into_iter().find_map(|folder| {
        let mode = std::fs::metadata(folder).ok()?.mode() & 0o7777;
        (mode & 0o001 == 0).then(|| (folder.to_owned(), mode))
    })
}

/// The bot's own folders, which it sees read-only: its working directory
/// `work` if `with_work` (`python3 bot.py` run from the bot's folder sees
/// the folder), and the folder of its program and of every argument that
/// names a file by a path (`python3 bots/x/bot.py` sees `bots/x`).
fn own_dirs(spec: &BotSpec, work: &Path, with_work: bool) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Some(work.to_owned())
        .filter(|work| with_work && !own_folder(work))
        .into_iter()
        .collect();
    for word in std::iter::once(&spec.program).chain(&spec.args) {
        if !word.contains('/') {
            continue;
        }
        let path = work.join(word);
        if path.is_file()
            && let Some(parent) = absolute(&path).parent()
            && !dirs.iter().any(|dir| parent.starts_with(dir))
        {
            dirs.push(parent.to_owned());
        }
    }
    dirs
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

    fn spec(command: &str, dir: Option<&str>) -> BotSpec {
        let mut spec = BotSpec::from_command("b", command).unwrap();
        spec.dir = dir.map(PathBuf::from);
        spec
    }

    fn text(args: &[OsString]) -> String {
        args.iter()
            .map(|arg| arg.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Every namespace, a clean environment, the bot's command at the end.
    #[test]
    fn the_bot_runs_in_every_namespace_with_a_clean_environment() {
        let args = text(&bwrap_args(
            &Sandbox::default(),
            &spec("python3 -u bot.py", Some("/")),
            ("M", "1/2"),
        ));
        assert!(
            args.starts_with("--unshare-all --die-with-parent --new-session"),
            "{args}"
        );
        assert!(args.contains("--clearenv --setenv PATH /usr/local/sbin"), "{args}");
        assert!(args.contains("--setenv M 1/2"), "{args}");
        assert!(args.contains(&format!("--size {} --tmpfs /tmp", 64 << 20)), "{args}");
        assert!(args.ends_with("--chdir / -- python3 -u bot.py"), "{args}");
    }

    /// The bot works in its working directory, the referee's by default,
    /// bound read-only at its own path; but not in the host's `/` or `/tmp`,
    /// which the sandbox has of its own.
    #[test]
    fn the_bot_sees_its_working_directory() {
        let here = std::env::current_dir().unwrap();
        let args = text(&bwrap_args(
            &Sandbox::default(),
            &spec("python3 bot.py", None),
            ("M", "1"),
        ));
        assert!(args.contains(&format!("--ro-bind {0} {0}", here.display())), "{args}");
        assert!(
            args.ends_with(&format!("--chdir {} -- python3 bot.py", here.display())),
            "{args}"
        );
        for own in ["/", "/tmp"] {
            let args = text(&bwrap_args(
                &Sandbox::default(),
                &spec("python3 bot.py", Some(own)),
                ("M", "1"),
            ));
            assert!(!args.contains(&format!("--ro-bind {own} {own} ")), "{args}");
            assert!(args.ends_with(&format!("--chdir {own} -- python3 bot.py")), "{args}");
        }
    }

    /// The folder that keeps others out is the first from the top.
    #[test]
    fn a_closed_folder_is_found_from_the_top() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("a/b");
        std::fs::create_dir_all(&inner).unwrap();
        let mode = |path: &Path, mode| {
            std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(mode)).unwrap();
        };
        mode(dir.path(), 0o755);
        mode(&dir.path().join("a"), 0o700);
        mode(&inner, 0o700);
        assert_eq!(closed_to_others(&inner), Some((dir.path().join("a"), 0o700)));
        mode(&dir.path().join("a"), 0o711);
        assert_eq!(closed_to_others(&inner), Some((inner.clone(), 0o700)));
        mode(&inner, 0o755);
        assert_eq!(closed_to_others(&inner), None);
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
        let args = text(&bwrap_args(&sandbox, &spec, ("M", "1")));
        let root = dir.path().display();
        assert!(args.contains(&format!("--ro-bind {root} {root}")), "{args}");
        assert!(
            args.contains(&format!("--tmpfs {0} --remount-ro {0}", out.display())),
            "{args}"
        );
        assert!(!args.contains("/elsewhere"), "{args}");
        assert!(args.contains("--bind /srv/scratch /srv/scratch"), "{args}");
    }
}
