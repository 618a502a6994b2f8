//! The cgroups of the referee and of its bots: where they are, what they are
//! called, and how they are made, limited, killed and removed. The
//! containment ([`crate::contain`]) holds them and decides when; this module
//! knows the files.
//!
//! * **A cgroup v2 per bot**, where the machine lets the referee create one
//!   below its own (root, or a delegated subtree): `bot-N` under
//!   `pahtum-arena-ID` in the referee's cgroup ([`Cgroups::set_up`]), made
//!   only where the kernel has `cgroup.kill`. Writing `1` to `cgroup.kill`
//!   kills every process in it at once, and nothing in it can leave without
//!   the right to write to another cgroup. A bot enters its cgroup between
//!   `fork` and `exec` ([`enter`]); its CPU time is read there (`cputime`).
//! * **The resource limits of a sandboxed bot** (`crate::sandbox`): memory
//!   and processes. A memory or process limit must hold for the bot's whole
//!   process tree, so it is a cgroup limit, not an rlimit (`RLIMIT_AS`
//!   counts address space, not memory, and breaks Java and Node, which
//!   reserve gigabytes they never touch; `RLIMIT_NPROC` counts every process
//!   of the user, other bots' included). Two cgroup layouts are supported:
//!
//!   * **cgroup v2**: the bot's own cgroup above (which already gives the
//!     atomic kill) gets `memory.max`, `memory.swap.max = 0` and
//!     `pids.max`, when the arena's cgroup may enable the `memory` and
//!     `pids` controllers for its children;
//!   * **cgroup v1** (hosts that mount the controllers one by one at
//!     `/sys/fs/cgroup/memory` and `/sys/fs/cgroup/pids`, with an empty v2
//!     hierarchy beside them): the bot gets `pahtum-arena-ID/bot-N` in the
//!     referee's own memory and pids cgroups, with `memory.limit_in_bytes`,
//!     `memory.memsw.limit_in_bytes` (where swap is accounted) and
//!     `pids.max`, and enters them between `fork` and `exec` like the v2
//!     cgroup; the containment's guard removes the referee's v1 folders when
//!     it ends.
//!
//!   The kernel's out-of-memory killer acts inside the cgroup; the cgroup's
//!   `oom_kill` counter then tells the referee that the bot died of its
//!   memory limit (verdict `memory`), and its peak usage (`memory.peak`,
//!   `memory.max_usage_in_bytes`) goes into the record's detail. The list of
//!   a cgroup's processes also lets the referee signal every process of a
//!   bot that lives in its own PID namespace ([`LimitCgroups::signal_all`]).
//!
//! The guard, which runs after `fork` in a multi-threaded process, kills and
//! removes the referee's cgroups with raw system calls on stack buffers only
//! ([`kill_raw`], [`remove_raw`]).

use std::ffi::CStr;
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::getdents::for_each_entry;
use crate::policy::Sandbox;

const MIB: u64 = 1 << 20;

/// How long ending a bot waits for its cgroup to empty before leaving the
/// cgroup's removal to the guard.
const EMPTY_WAIT: Duration = Duration::from_secs(2);

/// The referee's cgroups: its cgroup v2 `pahtum-arena-ID`, if it could be
/// made, and where its sandboxed bots' limits go (found on first need).
#[derive(Debug)]
pub(crate) struct Cgroups {
    /// The referee's id, which names its cgroups.
    id: String,
    /// `pahtum-arena-ID` in the referee's cgroup v2.
    v2: Option<PathBuf>,
    /// The layout of the limits; the error says what is missing.
    layout: OnceLock<Result<Layout, String>>,
}

impl Cgroups {
    /// The cgroups of the referee `id`: its cgroup v2 is made here if
    /// `wanted` and the machine allows it.
    pub(crate) fn set_up(id: &str, wanted: bool) -> Cgroups {
        let v2 = if wanted {
            own_cgroup_dir().and_then(|parent| make_arena_cgroup(&parent, id))
        } else {
            None
        };
        Cgroups {
            id: id.to_owned(),
            v2,
            layout: OnceLock::new(),
        }
    }

    /// The referee's cgroup v2 (`pahtum-arena-ID`), where it could be made.
    pub(crate) fn v2(&self) -> Option<&Path> {
        self.v2.as_deref()
    }

    /// Where the referee's v1 memory, pids and freezer folders are (if it
    /// makes them), for the guard to remove when the referee ends.
    pub(crate) fn v1_dirs(&self) -> Vec<PathBuf> {
        v1_arena_dirs(&self.id)
    }

    /// The layout of this machine, found once; the error says what is missing.
    fn layout(&self) -> Result<&Layout, &str> {
        self.layout
            .get_or_init(|| find_layout(self.v2(), &self.id))
            .as_ref()
            .map_err(String::as_str)
    }

    /// Whether the limits can be set on this machine; the error says what is
    /// missing, in words for [`crate::sandbox::SandboxError::NoCgroups`].
    pub(crate) fn limits_available(&self) -> Result<(), String> {
        self.layout().map(drop).map_err(str::to_owned)
    }

    /// Kills every process in the referee's cgroup v2, if it has one.
    pub(crate) fn kill_all(&self) {
        if let Some(cgroup) = &self.v2 {
            kill(cgroup);
        }
    }

    /// Makes the cgroup v2 `bot-N` of the bot numbered `serial`, where the
    /// referee has a cgroup v2.
    pub(crate) fn make_bot(&self, serial: u64) -> Option<PathBuf> {
        self.v2.as_ref().and_then(|dir| {
            let bot = dir.join(format!("bot-{serial}"));
            std::fs::create_dir(&bot).ok().map(|()| bot)
        })
    }

    /// Sets `sandbox`'s limits on the bot's v2 cgroup `bot_v2`
    /// ([`make_bot`](Self::make_bot)'s), or makes its v1 cgroups `bot-N`.
    pub(crate) fn limit_bot(&self, sandbox: &Sandbox, bot_v2: Option<&Path>, serial: u64) -> io::Result<LimitCgroups> {
        LimitCgroups::new(self.layout().map_err(io::Error::other)?, sandbox, bot_v2, serial)
    }
}

/// The bot's `cgroup.procs` in `cgroup`, opened close-on-exec, for the child
/// to write `0` into (itself) before `exec`.
pub(crate) fn procs_file(cgroup: &Path) -> Option<OwnedFd> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(cgroup.join("cgroup.procs"))
        .ok()
        .map(OwnedFd::from)
}

/// Writes this process into the cgroup whose `cgroup.procs` is `procs`. Runs
/// in the child between `fork` and `exec`: one system call. A failure is
/// ignored: the marker still tracks the bot.
pub(crate) fn enter(procs: libc::c_int) {
    // SAFETY: write(2) on a file descriptor with a static buffer.
    unsafe { libc::write(procs, b"0".as_ptr().cast(), 1) };
}

/// Kills every process in `cgroup` at once (`cgroup.kill`).
pub(crate) fn kill(cgroup: &Path) {
    // The cgroup may be gone already (removed after an earlier kill).
    let _ = std::fs::write(cgroup.join("cgroup.kill"), b"1");
}

/// Waits (bounded) until the bot's cgroup is empty, and removes it.
pub(crate) fn remove_when_empty(cgroup: &Path) {
    let deadline = Instant::now() + EMPTY_WAIT;
    while is_populated(cgroup) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    // A cgroup that is still busy is left to the guard, which removes
    // every bot cgroup when the referee ends.
    remove_tree(cgroup, NESTING);
}

/// How deep the cgroups that a bot's own processes make inside its cgroup are removed.
const NESTING: usize = 4;

/// Removes the cgroup `dir` with the cgroups nested in it, deepest first, `depth` levels at most: a bot
/// that runs an arena of its own (or anything that makes cgroups) makes them inside its bot cgroup, and a
/// cgroup with another in it cannot be removed.
fn remove_tree(dir: &Path, depth: usize) {
    if depth > 0 {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                remove_tree(&entry.path(), depth - 1);
            }
        }
    }
    let _ = std::fs::remove_dir(dir);
}

fn is_populated(cgroup: &Path) -> bool {
    std::fs::read_to_string(cgroup.join("cgroup.events"))
        .map(|events| events.lines().any(|line| line == "populated 1"))
        .unwrap_or(false)
}

/// The cgroup v2 directory of this process, from `/proc/self/mountinfo` and
/// `/proc/self/cgroup`.
fn own_cgroup_dir() -> Option<PathBuf> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mount = mountinfo.lines().find_map(|line| {
        let (mount, fs) = line.split_once(" - ")?;
        (fs.split_whitespace().next()? == "cgroup2").then(|| mount.split_whitespace().nth(4).map(PathBuf::from))?
    })?;
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let own = cgroups.lines().find_map(|line| line.strip_prefix("0::"))?;
    Some(mount.join(own.trim_start_matches('/')))
}

/// Makes `pahtum-arena-ID` in `parent` if this process may create cgroups
/// there and move processes into them, and the kernel has `cgroup.kill`.
fn make_arena_cgroup(parent: &Path, id: &str) -> Option<PathBuf> {
    let dir = parent.join(format!("pahtum-arena-{id}"));
    std::fs::create_dir(&dir).ok()?;
    let movable = std::fs::OpenOptions::new()
        .write(true)
        .open(parent.join("cgroup.procs"))
        .is_ok();
    if movable && dir.join("cgroup.kill").exists() {
        Some(dir)
    } else {
        let _ = std::fs::remove_dir(&dir);
        None
    }
}

/// Where the memory and pids limits of this referee's bots go.
#[derive(Debug)]
enum Layout {
    /// In each bot's cgroup v2 ([`Cgroups::make_bot`]'s), under the referee's arena cgroup.
    V2,
    /// In `pahtum-arena-ID` of the referee's own v1 memory and pids cgroups,
    /// and its v1 cpu cgroup where there is one (for a CPU cap).
    V1 {
        memory: PathBuf,
        pids: PathBuf,
        cpu: Option<PathBuf>,
    },
}

/// Where the limits go: in the bots' v2 cgroups under `arena` (the referee's
/// v2 cgroup, if it could be made), else in v1 folders named after `id`.
fn find_layout(arena: Option<&Path>, id: &str) -> Result<Layout, String> {
    if let Some(arena) = arena
        && enable_v2_controllers(arena)
    {
        return Ok(Layout::V2);
    }
    let memory = v1_arena_dir("memory", id);
    let pids = v1_arena_dir("pids", id);
    match (memory, pids) {
        (Ok(memory), Ok(pids)) => Ok(Layout::V1 {
            memory,
            pids,
            cpu: v1_arena_dir("cpu", id).ok(),
        }),
        (memory, pids) => {
            for dir in [memory.ok(), pids.ok()].into_iter().flatten() {
                let _ = std::fs::remove_dir(dir);
            }
            Err(format!(
                "no cgroup v2 with the memory and pids controllers that the arena may enable for its bots ({}), \
                 and no writable cgroup v1 memory and pids controllers",
                match arena {
                    Some(arena) => format!("{} offers no memory and pids", arena.display()),
                    None => "the arena may not create a cgroup v2".to_owned(),
                }
            ))
        }
    }
}

/// Enables `memory` and `pids` for the children of the arena's v2 cgroup,
/// and `cpu` where it is offered (for a CPU cap).
fn enable_v2_controllers(arena: &Path) -> bool {
    let offered = std::fs::read_to_string(arena.join("cgroup.controllers")).unwrap_or_default();
    let has = |name| offered.split_whitespace().any(|controller| controller == name);
    let enabled =
        has("memory") && has("pids") && std::fs::write(arena.join("cgroup.subtree_control"), "+memory +pids").is_ok();
    if enabled && has("cpu") {
        let _ = std::fs::write(arena.join("cgroup.subtree_control"), "+cpu");
    }
    enabled
}

/// `pahtum-arena-ID` in the referee's own v1 cgroup of `controller`, made
/// here if it is not yet.
pub(crate) fn v1_arena_dir(controller: &str, id: &str) -> Result<PathBuf, ()> {
    let dir = v1_arena_path(controller, id).ok_or(())?;
    match std::fs::create_dir(&dir) {
        Ok(()) => Ok(dir),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(dir),
        Err(_) => Err(()),
    }
}

/// Where the referee `id`'s v1 memory, pids and freezer folders are (if it
/// makes them), for the guard to remove when the referee ends.
fn v1_arena_dirs(id: &str) -> Vec<PathBuf> {
    ["memory", "pids", "cpu", "freezer"]
        .into_iter()
        .filter_map(|controller| v1_arena_path(controller, id))
        .collect()
}

/// `pahtum-arena-ID` in the referee's own v1 cgroup of `controller`, from
/// `/proc/self/mountinfo` and `/proc/self/cgroup`.
fn v1_arena_path(controller: &str, id: &str) -> Option<PathBuf> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mount = mountinfo.lines().find_map(|line| {
        let (mount, fs) = line.split_once(" - ")?;
        let mut fs = fs.split_whitespace();
        let is_controller = fs.next()? == "cgroup" && fs.nth(1)?.split(',').any(|option| option == controller);
        is_controller.then(|| mount.split_whitespace().nth(4).map(PathBuf::from))?
    })?;
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let own = cgroups.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        controllers.split(',').any(|name| name == controller).then_some(path)
    })?;
    Some(
        mount
            .join(own.trim_start_matches('/'))
            .join(format!("pahtum-arena-{id}")),
    )
}

/// The period of a CPU cap, in microseconds: the cap is a share of each
/// tenth of a second.
const CPU_PERIOD_US: u64 = 100_000;

/// The error of a CPU cap that `cgroup` refused.
fn no_cpu_cap(cgroup: &Path, error: io::Error) -> io::Error {
    io::Error::new(
        error.kind(),
        format!(
            "the sandbox's CPU cap could not be set in {} ({error}): the arena needs the cgroup cpu controller",
            cgroup.display()
        ),
    )
}

/// How much memory a process that hit its sandbox's limit used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryUse {
    /// The limit, in MiB.
    pub limit_mb: u64,
    /// The most the bot's cgroup held, in bytes, where the kernel tells it.
    pub peak: Option<u64>,
}

/// The limit cgroups of one sandboxed bot.
#[derive(Debug)]
pub(crate) struct LimitCgroups {
    limit_mb: u64,
    /// The cgroup with the memory limit, and the one with the process limit
    /// (the same directory under v2).
    memory: PathBuf,
    pids: PathBuf,
    /// The cgroup with the CPU cap, where the sandbox has one.
    cpu: Option<PathBuf>,
    /// v1 cgroups are made (and removed) here; a v2 cgroup is the bot's own
    /// ([`Cgroups::make_bot`]).
    own_dirs: bool,
}

impl LimitCgroups {
    /// Sets `sandbox`'s limits on the bot's v2 cgroup `bot_v2`
    /// ([`Cgroups::make_bot`]'s), or makes its v1 cgroups `bot-N`, as
    /// `layout` says.
    fn new(layout: &Layout, sandbox: &Sandbox, bot_v2: Option<&Path>, serial: u64) -> io::Result<LimitCgroups> {
        let memory_bytes = (sandbox.memory_mb * MIB).to_string();
        let pids_max = sandbox.max_processes.to_string();
        // The CPU time allowed per period: a hundredth of a period per percent of a core.
        let quota = sandbox.cpu_percent.map(|percent| percent * CPU_PERIOD_US / 100);
        let cgroups = match layout {
            Layout::V2 => {
                let bot = bot_v2
                    .ok_or_else(|| io::Error::other("the bot has no cgroup v2 to put its limits on"))?
                    .to_owned();
                std::fs::write(bot.join("memory.max"), &memory_bytes)?;
                // Absent where swap is not accounted: then there is no swap to limit.
                let _ = std::fs::write(bot.join("memory.swap.max"), "0");
                std::fs::write(bot.join("pids.max"), &pids_max)?;
                if let Some(quota) = quota {
                    std::fs::write(bot.join("cpu.max"), format!("{quota} {CPU_PERIOD_US}"))
                        .map_err(|error| no_cpu_cap(&bot, error))?;
                }
                LimitCgroups {
                    limit_mb: sandbox.memory_mb,
                    memory: bot.clone(),
                    pids: bot.clone(),
                    cpu: quota.map(|_| bot),
                    own_dirs: false,
                }
            }
            Layout::V1 { memory, pids, cpu } => {
                let name = format!("bot-{serial}");
                let cpu = match (quota, cpu) {
                    (Some(_), Some(cpu)) => Some(cpu.join(&name)),
                    (Some(_), None) => {
                        return Err(io::Error::other(
                            "the sandbox's CPU cap needs a cgroup cpu controller, and this machine offers the arena none",
                        ));
                    }
                    (None, _) => None,
                };
                let cgroups = LimitCgroups {
                    limit_mb: sandbox.memory_mb,
                    memory: memory.join(&name),
                    pids: pids.join(&name),
                    cpu,
                    own_dirs: true,
                };
                std::fs::create_dir(&cgroups.memory)?;
                std::fs::create_dir(&cgroups.pids)?;
                std::fs::write(cgroups.memory.join("memory.limit_in_bytes"), &memory_bytes)?;
                // Memory plus swap, where swap is accounted: no swap beyond the limit.
                let _ = std::fs::write(cgroups.memory.join("memory.memsw.limit_in_bytes"), &memory_bytes);
                std::fs::write(cgroups.pids.join("pids.max"), &pids_max)?;
                if let (Some(cpu), Some(quota)) = (&cgroups.cpu, quota) {
                    std::fs::create_dir(cpu)?;
                    std::fs::write(cpu.join("cpu.cfs_period_us"), CPU_PERIOD_US.to_string())
                        .and_then(|()| std::fs::write(cpu.join("cpu.cfs_quota_us"), quota.to_string()))
                        .map_err(|error| no_cpu_cap(cpu, error))?;
                }
                cgroups
            }
        };
        Ok(cgroups)
    }

    /// Its v1 cgroups, which it made.
    fn own_v1_dirs(&self) -> Vec<&Path> {
        [Some(&self.memory), Some(&self.pids), self.cpu.as_ref()]
            .into_iter()
            .flatten()
            .map(PathBuf::as_path)
            .collect()
    }

    /// The v1 cgroups' `cgroup.procs`, opened close-on-exec, for the child to
    /// enter before `exec` (with [`enter`]); none under v2, where the bot's
    /// cgroup is its own ([`procs_file`]).
    pub(crate) fn procs_files(&self) -> io::Result<Vec<OwnedFd>> {
        if !self.own_dirs {
            return Ok(Vec::new());
        }
        self.own_v1_dirs()
            .into_iter()
            .map(|dir| {
                let file = std::fs::OpenOptions::new().write(true).open(dir.join("cgroup.procs"))?;
                Ok(OwnedFd::from(file))
            })
            .collect()
    }

    /// Sends `signal` to every process of the bot, round after round until a
    /// round finds no process it has not signalled (one forked meanwhile),
    /// at most `rounds` times. A bot in its own PID namespace has no process
    /// group that the referee could signal; its cgroup lists all of it.
    pub(crate) fn signal_all(&self, signal: libc::c_int, rounds: usize) {
        signal_members(&self.pids, signal, rounds);
    }

    /// The bot's memory use, if the kernel killed a process of the bot for
    /// its memory limit.
    pub(crate) fn memory_exceeded(&self) -> Option<MemoryUse> {
        let (events, peak) = if self.own_dirs {
            ("memory.oom_control", "memory.max_usage_in_bytes")
        } else {
            ("memory.events", "memory.peak")
        };
        let events = std::fs::read_to_string(self.memory.join(events)).ok()?;
        let kills: u64 = events
            .lines()
            .find_map(|line| line.strip_prefix("oom_kill "))?
            .trim()
            .parse()
            .ok()?;
        let peak = std::fs::read_to_string(self.memory.join(peak))
            .ok()
            .and_then(|text| text.trim().parse().ok());
        (kills > 0).then_some(MemoryUse {
            limit_mb: self.limit_mb,
            peak,
        })
    }

    /// Removes the v1 cgroups once the bot's processes are gone (waiting a
    /// bounded time for the kernel to finish the kills).
    pub(crate) fn remove(&self) {
        if self.own_dirs {
            kill_and_remove_v1(&self.own_v1_dirs());
        }
    }
}

/// The processes in the cgroup `dir` (its `cgroup.procs`).
fn members(dir: &Path) -> Vec<libc::pid_t> {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.parse().ok())
        .collect()
}

/// Sends `signal` to every process in the cgroup `dir`, round after round
/// until a round finds no process it has not signalled (one forked
/// meanwhile), at most `rounds` times.
pub(crate) fn signal_members(dir: &Path, signal: libc::c_int, rounds: usize) {
    let mut signalled = Vec::new();
    for _ in 0..rounds {
        let fresh: Vec<_> = members(dir)
            .into_iter()
            .filter(|pid| !signalled.contains(pid))
            .collect();
        if fresh.is_empty() {
            return;
        }
        for pid in fresh {
            // SAFETY: kill(2) with a pid read from the cgroup.
            unsafe { libc::kill(pid, signal) };
            signalled.push(pid);
        }
    }
}

/// Kills what is left in the v1 cgroups `dirs` and removes them once they
/// are empty (waiting a bounded time for the kernel to finish the kills).
pub(crate) fn kill_and_remove_v1(dirs: &[&Path]) {
    let deadline = Instant::now() + EMPTY_WAIT;
    while dirs.iter().any(|dir| !members(dir).is_empty()) && Instant::now() < deadline {
        for dir in dirs {
            signal_members(dir, libc::SIGKILL, 1);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    for dir in dirs {
        let _ = std::fs::remove_dir(dir);
    }
}

/// Kills every process in the cgroup `dir` (raw, for the guard).
pub(crate) fn kill_raw(dir: &CStr) {
    write_at(dir, c"cgroup.kill", b"1");
}

/// Writes `bytes` to the file `name` in the directory `dir` (raw, for the guard).
fn write_at(dir: &CStr, name: &CStr, bytes: &[u8]) {
    // SAFETY: plain system calls on NUL-terminated paths and a borrowed buffer.
    unsafe {
        let dir_fd = libc::open(dir.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC);
        if dir_fd < 0 {
            return;
        }
        write_in(dir_fd, name, bytes);
        libc::close(dir_fd);
    }
}

/// Writes `bytes` to the file `name` (a relative path) in the open directory
/// `dir_fd` (raw, for the guard).
pub(crate) fn write_in(dir_fd: libc::c_int, name: &CStr, bytes: &[u8]) {
    // SAFETY: plain system calls on a NUL-terminated path and a borrowed buffer.
    unsafe {
        let fd = libc::openat(dir_fd, name.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd >= 0 {
            libc::write(fd, bytes.as_ptr().cast(), bytes.len());
            libc::close(fd);
        }
    }
}

/// Removes the bot cgroups in the referee's cgroup `dir` and `dir` itself,
/// once the kill has emptied them (waiting up to two seconds; raw, for the
/// guard).
pub(crate) fn remove_raw(dir: &CStr) {
    // SAFETY: plain system calls on a NUL-terminated path and stack values.
    unsafe {
        let dir_fd = libc::open(dir.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC);
        if dir_fd < 0 {
            return;
        }
        for _ in 0..2000 {
            let mut removed_all = true;
            for_each_entry(dir_fd, &mut |name| {
                if name.to_bytes().starts_with(b"bot-") && !remove_tree_at(dir_fd, name, NESTING) {
                    removed_all = false;
                }
            });
            if removed_all && libc::rmdir(dir.as_ptr()) == 0 {
                break;
            }
            let pause = libc::timespec {
                tv_sec: 0,
                tv_nsec: 1_000_000,
            };
            libc::nanosleep(&pause, std::ptr::null_mut());
        }
        libc::close(dir_fd);
    }
}

/// [`remove_tree`] of the folder `name` in the folder `parent_fd` (raw, for the guard); whether it is gone.
fn remove_tree_at(parent_fd: libc::c_int, name: &CStr, depth: usize) -> bool {
    // SAFETY: plain system calls on a NUL-terminated name and descriptors this function opens and closes.
    unsafe {
        if depth > 0 {
            let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
            let fd = libc::openat(parent_fd, name.as_ptr(), flags);
            if fd >= 0 {
                for_each_entry(fd, &mut |child| {
                    // A cgroup's files are no folders: opening them as one fails, and they are left.
                    if child.to_bytes() != b"." && child.to_bytes() != b".." {
                        remove_tree_at(fd, child, depth - 1);
                    }
                });
                libc::close(fd);
            }
        }
        libc::unlinkat(parent_fd, name.as_ptr(), libc::AT_REMOVEDIR) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The v1 layout's cgroups are found from this process's own files; on a
    /// machine without them the error says what is missing.
    #[test]
    fn the_layout_is_found_or_named() {
        let cgroups = crate::contain::cgroups();
        match cgroups.layout() {
            Ok(Layout::V1 { memory, pids, cpu }) => {
                assert!(memory.is_dir() && pids.is_dir(), "{memory:?} {pids:?}");
                assert!(cpu.as_ref().is_none_or(|cpu| cpu.is_dir()), "{cpu:?}");
            }
            Ok(Layout::V2) => assert!(cgroups.v2().is_some()),
            Err(missing) => assert!(missing.contains("memory and pids"), "{missing}"),
        }
    }
}
