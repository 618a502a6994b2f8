//! The resource limits of a sandboxed bot: memory and processes by cgroup,
//! open files and file size by rlimit.
//!
//! A memory or process limit must hold for the bot's whole process tree, so
//! it is a cgroup limit, not an rlimit (`RLIMIT_AS` counts address space, not
//! memory, and breaks Java and Node, which reserve gigabytes they never
//! touch; `RLIMIT_NPROC` counts every process of the user, other bots'
//! included). Two cgroup layouts are supported:
//!
//! * **cgroup v2**: the bot's own cgroup from [`crate::contain`] (which
//!   already gives the atomic kill) gets `memory.max`, `memory.swap.max = 0`
//!   and `pids.max`, when the arena's cgroup may enable the `memory` and
//!   `pids` controllers for its children;
//! * **cgroup v1** (hosts that mount the controllers one by one at
//!   `/sys/fs/cgroup/memory` and `/sys/fs/cgroup/pids`, with an empty v2
//!   hierarchy beside them): the bot gets `pahtum-arena-ID/bot-N` in the
//!   referee's own memory and pids cgroups, with `memory.limit_in_bytes`,
//!   `memory.memsw.limit_in_bytes` (where swap is accounted) and `pids.max`,
//!   and enters them between `fork` and `exec` like the v2 cgroup; the
//!   containment's guard removes the referee's v1 folders when it ends.
//!
//! The kernel's out-of-memory killer acts inside the cgroup; the cgroup's
//! `oom_kill` counter then tells the referee that the bot died of its memory
//! limit (verdict `memory`), and its peak usage (`memory.peak`,
//! `memory.max_usage_in_bytes`) goes into the record's detail. The list of a
//! cgroup's processes also lets the referee signal every process of a bot
//! that lives in its own PID namespace ([`LimitCgroups::signal_all`]).

use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::sandbox::Sandbox;

const MIB: u64 = 1 << 20;

/// Where the memory and pids limits of this referee's bots go.
#[derive(Debug)]
enum Layout {
    /// In each bot's cgroup v2 (`contain`'s), under the referee's arena cgroup.
    V2,
    /// In `pahtum-arena-ID` of the referee's own v1 memory and pids cgroups.
    V1 { memory: PathBuf, pids: PathBuf },
}

/// The layout of this machine, found once; the error says what is missing.
fn layout() -> Result<&'static Layout, &'static str> {
    static LAYOUT: OnceLock<Result<Layout, String>> = OnceLock::new();
    LAYOUT.get_or_init(find_layout).as_ref().map_err(String::as_str)
}

/// Whether the limits can be set on this machine; the error says what is
/// missing, in words for [`crate::sandbox::SandboxError::NoCgroups`].
pub(crate) fn available() -> Result<(), String> {
    layout().map(drop).map_err(str::to_owned)
}

fn find_layout() -> Result<Layout, String> {
    if let Some(arena) = crate::contain::arena_cgroup()
        && enable_v2_controllers(arena)
    {
        return Ok(Layout::V2);
    }
    let memory = v1_arena_dir("memory");
    let pids = v1_arena_dir("pids");
    match (memory, pids) {
        (Ok(memory), Ok(pids)) => Ok(Layout::V1 { memory, pids }),
        (memory, pids) => {
            for dir in [memory.ok(), pids.ok()].into_iter().flatten() {
                let _ = std::fs::remove_dir(dir);
            }
            Err(format!(
                "no cgroup v2 with the memory and pids controllers that the arena may enable for its bots ({}), \
                 and no writable cgroup v1 memory and pids controllers",
                match crate::contain::arena_cgroup() {
                    Some(arena) => format!("{} offers no memory and pids", arena.display()),
                    None => "the arena may not create a cgroup v2".to_owned(),
                }
            ))
        }
    }
}

/// Enables `memory` and `pids` for the children of the arena's v2 cgroup.
fn enable_v2_controllers(arena: &Path) -> bool {
    let offered = std::fs::read_to_string(arena.join("cgroup.controllers")).unwrap_or_default();
    let has = |name| offered.split_whitespace().any(|controller| controller == name);
    has("memory") && has("pids") && std::fs::write(arena.join("cgroup.subtree_control"), "+memory +pids").is_ok()
}

/// `pahtum-arena-ID` in the referee's own v1 cgroup of `controller`, made
/// here if it is not yet.
fn v1_arena_dir(controller: &str) -> Result<PathBuf, ()> {
    let dir = v1_arena_path(controller, crate::contain::arena_id()).ok_or(())?;
    match std::fs::create_dir(&dir) {
        Ok(()) => Ok(dir),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(dir),
        Err(_) => Err(()),
    }
}

/// Where the referee `id`'s v1 memory and pids folders are (if it makes
/// them), for the guard to remove when the referee ends.
pub(crate) fn v1_arena_dirs(id: &str) -> Vec<PathBuf> {
    ["memory", "pids"]
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

/// How much memory a bot that hit its limit used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MemoryUse {
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
    /// v1 cgroups are made (and removed) here; a v2 cgroup is `contain`'s.
    own_dirs: bool,
}

impl LimitCgroups {
    /// Sets `sandbox`'s limits on the bot's v2 cgroup `bot_v2` (`contain`'s),
    /// or makes its v1 cgroups `bot-N`.
    pub(crate) fn new(sandbox: &Sandbox, bot_v2: Option<&Path>, serial: u64) -> io::Result<LimitCgroups> {
        let layout = layout().map_err(io::Error::other)?;
        let memory_bytes = (sandbox.memory_mb * MIB).to_string();
        let pids_max = sandbox.max_processes.to_string();
        let cgroups = match layout {
            Layout::V2 => {
                let bot = bot_v2
                    .ok_or_else(|| io::Error::other("the bot has no cgroup v2 to put its limits on"))?
                    .to_owned();
                std::fs::write(bot.join("memory.max"), &memory_bytes)?;
                // Absent where swap is not accounted: then there is no swap to limit.
                let _ = std::fs::write(bot.join("memory.swap.max"), "0");
                std::fs::write(bot.join("pids.max"), &pids_max)?;
                LimitCgroups {
                    limit_mb: sandbox.memory_mb,
                    memory: bot.clone(),
                    pids: bot,
                    own_dirs: false,
                }
            }
            Layout::V1 { memory, pids } => {
                let name = format!("bot-{serial}");
                let cgroups = LimitCgroups {
                    limit_mb: sandbox.memory_mb,
                    memory: memory.join(&name),
                    pids: pids.join(&name),
                    own_dirs: true,
                };
                std::fs::create_dir(&cgroups.memory)?;
                std::fs::create_dir(&cgroups.pids)?;
                std::fs::write(cgroups.memory.join("memory.limit_in_bytes"), &memory_bytes)?;
                // Memory plus swap, where swap is accounted: no swap beyond the limit.
                let _ = std::fs::write(cgroups.memory.join("memory.memsw.limit_in_bytes"), &memory_bytes);
                std::fs::write(cgroups.pids.join("pids.max"), &pids_max)?;
                cgroups
            }
        };
        Ok(cgroups)
    }

    /// The v1 cgroups' `cgroup.procs`, opened close-on-exec, for the child to
    /// enter before `exec` (as `contain::enter_cgroup`); none under v2,
    /// where the bot's cgroup is `contain`'s own.
    pub(crate) fn procs_files(&self) -> io::Result<Vec<OwnedFd>> {
        if !self.own_dirs {
            return Ok(Vec::new());
        }
        [&self.memory, &self.pids]
            .into_iter()
            .map(|dir| {
                let file = std::fs::OpenOptions::new().write(true).open(dir.join("cgroup.procs"))?;
                Ok(OwnedFd::from(file))
            })
            .collect()
    }

    /// The processes in the bot's cgroup.
    fn members(&self) -> Vec<libc::pid_t> {
        std::fs::read_to_string(self.pids.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.parse().ok())
            .collect()
    }

    /// Sends `signal` to every process of the bot, round after round until a
    /// round finds no process it has not signalled (one forked meanwhile),
    /// at most `rounds` times. A bot in its own PID namespace has no process
    /// group that the referee could signal; its cgroup lists all of it.
    pub(crate) fn signal_all(&self, signal: libc::c_int, rounds: usize) {
        let mut signalled = Vec::new();
        for _ in 0..rounds {
            let fresh: Vec<_> = self
                .members()
                .into_iter()
                .filter(|pid| !signalled.contains(pid))
                .collect();
            if fresh.is_empty() {
                return;
            }
            for pid in fresh {
                // SAFETY: kill(2) with a pid read from the bot's cgroup.
                unsafe { libc::kill(pid, signal) };
                signalled.push(pid);
            }
        }
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
        if !self.own_dirs {
            return;
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
        while !self.members().is_empty() && std::time::Instant::now() < deadline {
            self.signal_all(libc::SIGKILL, 1);
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let _ = std::fs::remove_dir(&self.memory);
        let _ = std::fs::remove_dir(&self.pids);
    }
}

/// Sets the bot's rlimits: open files, file size, no core files. Runs in the
/// child between `fork` and `exec`: `setrlimit` calls only, no allocation.
pub(crate) fn set_rlimits(open_files: u64, file_size_bytes: u64) -> io::Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The v1 layout's cgroups are found from this process's own files; on a
    /// machine without them the error says what is missing.
    #[test]
    fn the_layout_is_found_or_named() {
        match layout() {
            Ok(Layout::V1 { memory, pids }) => {
                assert!(memory.is_dir() && pids.is_dir(), "{memory:?} {pids:?}");
            }
            Ok(Layout::V2) => assert!(crate::contain::arena_cgroup().is_some()),
            Err(missing) => assert!(missing.contains("memory and pids"), "{missing}"),
        }
    }
}
