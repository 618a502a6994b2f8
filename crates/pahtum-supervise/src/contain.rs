//! Containment: every process a bot starts is known, and dies at the end of
//! the bot's life and, at the latest, with the referee, whatever it did to its
//! session or process group and however the referee ends (SIGKILL included).
//!
//! A process group is not enough: a grandchild that calls `setsid`, or a
//! double fork whose middle process exits, leaves the group, and the death
//! signal (`PR_SET_PDEATHSIG`) reaches only the bot itself. So each bot's
//! processes are tracked by two marks that they inherit and cannot shed by
//! forking or by `setsid`:
//!
//! * **a cgroup v2 per bot**, where the machine lets the referee create one
//!   below its own (root, or a delegated subtree): `ARENA/bot-N` under
//!   `pahtum-arena-ID` in the referee's cgroup. Writing `1` to `cgroup.kill`
//!   kills every process in it at once, and nothing in it can leave without
//!   the right to write to another cgroup. This is the base that the sandbox
//!   (`crate::sandbox`, bubblewrap plus the cgroup limits) puts its memory
//!   and process limits on. The cgroups' files, v2 and v1, are `cgroup`'s
//!   business; this module holds them and decides when they are made and
//!   killed.
//! * **a marker in the environment**, always: `PAHTUM_ARENA_BOT=ID/N`, which
//!   every descendant inherits unless it clears or replaces its environment.
//!   A sweep reads `/proc/PID/environ` of every process and kills those with
//!   the marker, round after round until a round finds none. This works on any
//!   Linux without privileges, and it is the whole mechanism where cgroups are
//!   not writable (or `PAHTUM_ARENA_NO_CGROUP` is set).
//!
//! Each bot also gets fair mode's freezer where the machine has one
//! (`freezer`: its cgroup v2, or a v1 freezer cgroup entered before `exec`).
//!
//! Ending a bot kills its cgroup (and thaws its freezer, once the kill is
//! under way, for a frozen bot to receive it), then sweeps its marker, then
//! removes its cgroups once they are empty. [`kill_every_bot`] does the same for all bots of
//! the referee at once (the registry's kill-all, for an immediate exit).
//!
//! For the referee's own death, a **guard** process is forked once, before
//! the first bot: it holds the read end of a pipe whose write end only the
//! referee holds (close-on-exec, so no bot inherits it). When the referee
//! exits, however it exits, the kernel closes that end, the guard's read
//! returns end-of-file, and the guard kills the referee's cgroup, sweeps the
//! referee's marker (after thawing its v1 freezers), removes the cgroups and
//! exits. The guard ignores the
//! terminal's signals and lives in its own process group, so that Ctrl-C
//! reaches the referee (which ends its bots itself) and not the guard.
//!
//! The guard is forked without `exec` from a multi-threaded process, so the
//! code it runs (and the sweep, which the referee shares with it) makes only
//! async-signal-safe system calls on stack buffers: no allocation, no lock,
//! no panic. `SECURITY.md` says what this catches and what it does not.

use std::ffi::{CStr, CString};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::cgroup::{self, Cgroups, LimitCgroups};
use crate::freezer::{self, Freezer, Freezers};
use crate::getdents::for_each_entry;
use crate::policy::Sandbox;

/// The environment variable that marks a bot's processes.
pub const MARKER: &str = "PAHTUM_ARENA_BOT";

/// Set (to anything but the empty string) to track bots by the marker alone,
/// even where a cgroup could be created.
pub const NO_CGROUP: &str = "PAHTUM_ARENA_NO_CGROUP";

/// Set (to anything but the empty string) to stop bots in fair mode with
/// SIGSTOP and SIGCONT, even where a cgroup freezer could be used.
pub const NO_FREEZER: &str = "PAHTUM_ARENA_NO_FREEZER";

/// At most this many sweeps per kill: a process forked between a sweep's
/// reading and its killing is found by the next one.
const SWEEP_ROUNDS: usize = 50;

/// How the processes of the referee's bots are tracked on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tracking {
    /// A cgroup v2 per bot (with `cgroup.kill`), and the marker.
    Cgroup,
    /// The environment marker alone.
    Marker,
}

/// How fair mode (`pause_idle`) stops the bot that is not to move, on this
/// machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pausing {
    /// A cgroup freezer per bot (v2 `cgroup.freeze`, or the v1 `freezer`
    /// controller) freezes all its processes at once, and no signal thaws
    /// them.
    Freezer,
    /// SIGSTOP and SIGCONT, which the bot's own processes can undo by
    /// sending each other SIGCONT: no cgroup freezer here, or
    /// `PAHTUM_ARENA_NO_FREEZER` set.
    Signals,
}

/// The referee's containment: its id, its cgroups, its guard.
#[derive(Debug)]
struct Arena {
    /// Unique among referees on this machine: `PID-NANOS`.
    id: String,
    /// `pahtum-arena-ID` in the referee's cgroup, if it could be made, and
    /// the sandbox's limit cgroups.
    cgroups: Cgroups,
    /// Where its bots are frozen in fair mode.
    freezers: Freezers,
    next_bot: AtomicU64,
    /// The write end of the guard's pipe: held, never written, closed by the
    /// kernel when the referee exits.
    _guard: Option<OwnedFd>,
}

fn arena() -> &'static Arena {
    static ARENA: OnceLock<Arena> = OnceLock::new();
    ARENA.get_or_init(Arena::set_up)
}

/// How this referee tracks its bots' processes (sets the containment up on
/// first use).
pub fn tracking() -> Tracking {
    if arena().cgroups.v2().is_some() {
        Tracking::Cgroup
    } else {
        Tracking::Marker
    }
}

/// How this referee stops a bot in fair mode (sets the containment up on
/// first use).
pub fn pausing() -> Pausing {
    match arena().freezers {
        Freezers::V2 | Freezers::V1(_) => Pausing::Freezer,
        Freezers::None => Pausing::Signals,
    }
}

/// The referee's cgroups (sets the containment up on first use).
pub(crate) fn cgroups() -> &'static Cgroups {
    &arena().cgroups
}

/// Kills every process that any bot of this referee started, at once, by
/// the referee's cgroup and marker (the registry's kill-all, for an
/// immediate exit), and thaws the frozen ones for the kill to reach them. Bots that are still held are killed too; their owners
/// reap them as usual.
pub fn kill_every_bot() {
    let arena = arena();
    arena.cgroups.kill_all();
    sweep(arena.marker_prefix().as_bytes());
    arena.freezers.thaw_all();
}

impl Arena {
    fn set_up() -> Arena {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos());
        let id = format!("{}-{nanos}", std::process::id());
        let set = |name| std::env::var_os(name).is_some_and(|value| !value.is_empty());
        let cgroups = Cgroups::set_up(&id, !set(NO_CGROUP));
        let freezers = Freezers::set_up(&id, cgroups.v2(), !set(NO_FREEZER));
        let guard = start_guard(&id, cgroups.v2(), &cgroups.v1_dirs(), freezers.v1());
        Arena {
            id,
            cgroups,
            freezers,
            next_bot: AtomicU64::new(1),
            _guard: guard,
        }
    }

    /// `PAHTUM_ARENA_BOT=ID/`: the start of every marker of this referee.
    fn marker_prefix(&self) -> String {
        format!("{MARKER}={}/", self.id)
    }
}

/// The processes of one bot: its marker, its cgroup, its freezer.
#[derive(Debug)]
pub(crate) struct Contained {
    /// The marker's value, `ID/N`.
    marker: String,
    /// `N`, the bot's number in this referee.
    serial: u64,
    cgroup: Option<PathBuf>,
    /// The memory and process limits of a sandboxed bot.
    limits: Option<LimitCgroups>,
    /// Fair mode's freezer, where the machine has one.
    freezer: Option<Freezer>,
}

impl Contained {
    /// A new bot's containment: its cgroup is made here, where possible.
    pub(crate) fn new() -> Contained {
        let arena = arena();
        let serial = arena.next_bot.fetch_add(1, Ordering::Relaxed);
        let cgroup = arena.cgroups.make_bot(serial);
        let freezer = arena.freezers.make_bot(serial, cgroup.as_deref());
        Contained {
            marker: format!("{}/{serial}", arena.id),
            serial,
            cgroup,
            limits: None,
            freezer,
        }
    }

    /// A sandboxed bot's containment: [`new`](Self::new)'s, with the
    /// sandbox's memory and process limits on its cgroups.
    pub(crate) fn limited(sandbox: &Sandbox) -> std::io::Result<Contained> {
        let mut contained = Contained::new();
        contained.limits = Some(
            arena()
                .cgroups
                .limit_bot(sandbox, contained.cgroup.as_deref(), contained.serial)?,
        );
        Ok(contained)
    }

    /// The limit cgroups of a sandboxed bot.
    pub(crate) fn limits(&self) -> Option<&LimitCgroups> {
        self.limits.as_ref()
    }

    /// The bot's cgroup, if it has one (its CPU time is read there: `cputime`).
    pub(crate) fn cgroup(&self) -> Option<&Path> {
        self.cgroup.as_deref()
    }

    /// The environment variable to give the bot: `(MARKER, value)`.
    pub(crate) fn marker(&self) -> (&'static str, &str) {
        (MARKER, &self.marker)
    }

    /// The `cgroup.procs` of the bot's cgroup and of its v1 freezer cgroup
    /// (those it has), opened close-on-exec, for the child to write `0` into
    /// (itself) before `exec`.
    pub(crate) fn procs_files(&self) -> Vec<OwnedFd> {
        let own = self.cgroup.as_deref().and_then(cgroup::procs_file);
        let freezer = self.freezer.as_ref().and_then(Freezer::procs_file);
        own.into_iter().chain(freezer).collect()
    }

    /// Freezes every process of the bot (fair mode); `false` if it has no
    /// freezer or the kernel refused (then it is to be stopped by signals).
    pub(crate) fn freeze(&self) -> bool {
        self.freezer.as_ref().is_some_and(Freezer::freeze)
    }

    /// Thaws the bot that [`freeze`](Self::freeze) froze.
    pub(crate) fn thaw(&self) {
        if let Some(freezer) = &self.freezer {
            freezer.thaw();
        }
    }

    /// Kills every process of the bot now, without waiting (for `Drop`); a
    /// frozen bot is thawed once it is killed.
    pub(crate) fn kill_now(&self) {
        if let Some(cgroup) = &self.cgroup {
            cgroup::kill(cgroup);
        }
        if let Some(freezer) = &self.freezer {
            freezer.kill_and_thaw();
        }
        if let Some(limits) = &self.limits {
            limits.signal_all(libc::SIGKILL, SWEEP_ROUNDS);
        }
        sweep(self.exact_marker().as_bytes());
    }

    /// Kills every process of the bot, waits (bounded) until its cgroup is
    /// empty, and removes the cgroup. Blocking: a few system calls per
    /// process of the machine.
    pub(crate) fn kill_and_remove(&mut self) {
        self.kill_now();
        if let Some(cgroup) = self.cgroup.take() {
            cgroup::remove_when_empty(&cgroup);
        }
        if let Some(limits) = &self.limits {
            limits.remove();
        }
        if let Some(freezer) = &self.freezer {
            freezer.remove();
        }
    }

    /// `PAHTUM_ARENA_BOT=ID/N` and the NUL that ends an environment entry.
    fn exact_marker(&self) -> String {
        format!("{MARKER}={}\0", self.marker)
    }
}

/// Forks the guard (see the module's docs); returns the write end of its
/// pipe, or `None` if it could not be started (the referee then still kills
/// its bots itself, but not after a SIGKILL). `freezer`: the referee's v1
/// freezer folder, whose bots the guard thaws before it kills them.
fn start_guard(id: &str, cgroup: Option<&Path>, limit_dirs: &[PathBuf], freezer: Option<&Path>) -> Option<OwnedFd> {
    let marker = CString::new(format!("{MARKER}={id}/")).ok()?;
    let c_path = |path: &Path| CString::new(path.as_os_str().as_bytes()).ok();
    let cgroup_path = match cgroup {
        Some(path) => Some(c_path(path)?),
        None => None,
    };
    let limit_dirs: Vec<CString> = limit_dirs.iter().filter_map(|dir| c_path(dir)).collect();
    let freezer = match freezer {
        Some(path) => Some(c_path(path)?),
        None => None,
    };
    let mut ends = [0; 2];
    // SAFETY: pipe2 writes two file descriptors into the array it is given.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return None;
    }
    // SAFETY: both descriptors are fresh and owned here.
    let (read_end, write_end) = unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
    // SAFETY: the child runs only `guard`, which makes async-signal-safe
    // system calls on stack buffers and never returns.
    match unsafe { libc::fork() } {
        -1 => None,
        0 => guard(
            read_end.as_raw_fd(),
            &marker,
            cgroup_path.as_deref(),
            &limit_dirs,
            freezer.as_deref(),
        ),
        _ => Some(write_end),
    }
}

/// The guard's life: wait for the referee's end, then kill and clean up
/// (`limit_dirs`: the referee's cgroup v1 folders, made or not; `freezer`:
/// its v1 freezer folder, thawed first, for the kill to reach frozen bots).
fn guard(pipe: libc::c_int, marker: &CStr, cgroup: Option<&CStr>, limit_dirs: &[CString], freezer: Option<&CStr>) -> ! {
    // SAFETY: plain system calls on values owned by this process.
    unsafe {
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGPIPE, libc::SIGQUIT] {
            libc::signal(signal, libc::SIG_IGN);
        }
        libc::setpgid(0, 0);
        // Hold no directory busy (a mount the arena ran in).
        libc::chdir(c"/".as_ptr());
        // Keep only the pipe (as fd 0): the guard must not hold the referee's
        // other files and pipes open.
        libc::dup2(pipe, 0);
        if libc::syscall(libc::SYS_close_range, 1u32, u32::MAX, 0u32) != 0 {
            for fd in 1..1024 {
                libc::close(fd);
            }
        }
        let mut byte = 0u8;
        loop {
            let n = libc::read(0, (&raw mut byte).cast(), 1);
            if n == 0 || (n < 0 && *libc::__errno_location() != libc::EINTR) {
                break;
            }
        }
        if let Some(dir) = cgroup {
            cgroup::kill_raw(dir);
        }
        if let Some(dir) = freezer {
            freezer::thaw_all_raw(dir);
        }
        sweep(marker.to_bytes());
        for dir in cgroup.into_iter().chain(limit_dirs.iter().map(CString::as_c_str)) {
            cgroup::remove_raw(dir);
        }
        libc::_exit(0)
    }
}

/// Kills every process (but this one) whose environment has an entry that
/// starts with `needle`, round after round until a round finds none (a
/// needle that ends with the entry's NUL matches one value exactly).
/// Raw system calls on stack buffers only: the guard runs it after `fork`.
fn sweep(needle: &[u8]) {
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() };
    for _ in 0..SWEEP_ROUNDS {
        let mut found = false;
        // SAFETY: plain system calls on a static path.
        let proc_fd = unsafe { libc::open(c"/proc".as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC) };
        if proc_fd < 0 {
            return;
        }
        for_each_entry(proc_fd, &mut |name| {
            let Some(pid) = parse_pid(name.to_bytes()) else { return };
            if pid != me && environ_has(proc_fd, name, needle) {
                // SAFETY: kill(2) of a process id.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                found = true;
            }
        });
        // SAFETY: closing the descriptor opened above.
        unsafe { libc::close(proc_fd) };
        if !found {
            return;
        }
    }
}

/// Whether `/proc/NAME/environ` has an entry that starts with `needle`,
/// read in chunks (an environment can be large, and a marker can be last).
fn environ_has(proc_fd: libc::c_int, name: &CStr, needle: &[u8]) -> bool {
    let mut path = [0u8; 40];
    let name = name.to_bytes();
    let suffix = b"/environ\0";
    if name.len() + suffix.len() > path.len() {
        return false;
    }
    path[..name.len()].copy_from_slice(name);
    path[name.len()..name.len() + suffix.len()].copy_from_slice(suffix);
    // SAFETY: the path is NUL-terminated; the buffer outlives the reads.
    unsafe {
        let fd = libc::openat(proc_fd, path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return false;
        }
        let mut buf = [0u8; 4096];
        // The bytes kept from the previous chunk: a match may straddle two.
        let keep = needle.len() + 1;
        let mut filled = 0;
        let mut at_start = true;
        let mut found = false;
        loop {
            let n = libc::read(fd, buf[filled..].as_mut_ptr().cast(), buf.len() - filled);
            if n <= 0 {
                break;
            }
            filled += n as usize;
            if has_entry(&buf[..filled], needle, at_start) {
                found = true;
                break;
            }
            let kept = filled.min(keep);
            buf.copy_within(filled - kept..filled, 0);
            at_start &= kept == filled;
            filled = kept;
        }
        libc::close(fd);
        found
    }
}

/// Whether an entry of the NUL-separated `environ` starts with `needle`;
/// `at_start`: `environ[0]` begins the environment.
fn has_entry(environ: &[u8], needle: &[u8], at_start: bool) -> bool {
    environ
        .windows(needle.len())
        .enumerate()
        .any(|(at, window)| window == needle && if at == 0 { at_start } else { environ[at - 1] == 0 })
}

fn parse_pid(name: &[u8]) -> Option<libc::pid_t> {
    if name.is_empty() || name.len() > 9 || !name.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        name.iter()
            .fold(0, |pid, digit| pid * 10 + libc::pid_t::from(digit - b'0')),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_match_only_from_their_start() {
        let needle = b"PAHTUM_ARENA_BOT=1-2/3\0";
        assert!(has_entry(b"PAHTUM_ARENA_BOT=1-2/3\0", needle, true));
        assert!(!has_entry(b"PAHTUM_ARENA_BOT=1-2/3\0", needle, false));
        assert!(has_entry(b"A=b\0PAHTUM_ARENA_BOT=1-2/3\0C=d\0", needle, false));
        assert!(!has_entry(b"A=b\0PAHTUM_ARENA_BOT=1-2/33\0", needle, true));
        assert!(!has_entry(b"XPAHTUM_ARENA_BOT=1-2/3\0", needle, true));
    }

    #[test]
    fn pids_are_the_numeric_names() {
        assert_eq!(parse_pid(b"1234"), Some(1234));
        assert_eq!(parse_pid(b"self"), None);
        assert_eq!(parse_pid(b""), None);
    }

    /// A process that the referee did not start, but which carries a bot's
    /// marker (here: after `setsid`, in a session of its own), is found and
    /// killed by the sweep of that marker, and only by it.
    #[test]
    fn the_sweep_kills_exactly_the_marked_processes() {
        let spawn = |value: &str| {
            let mut command = std::process::Command::new("sleep");
            command.arg("60").env(MARKER, value);
            // SAFETY: setsid is async-signal-safe.
            unsafe {
                std::os::unix::process::CommandExt::pre_exec(&mut command, || {
                    libc::setsid();
                    Ok(())
                })
            };
            command.spawn().expect("sleep starts")
        };
        let mut marked = spawn("test-sweep/1");
        let mut other = spawn("test-sweep/10");
        sweep(format!("{MARKER}=test-sweep/1\0").as_bytes());
        let status = marked.wait().expect("the marked process is reaped");
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(libc::SIGKILL)
        );
        assert!(
            other.try_wait().expect("try_wait").is_none(),
            "an unmarked process was killed"
        );
        other.kill().unwrap();
        other.wait().unwrap();
    }
}
