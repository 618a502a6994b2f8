//! Fair mode's stop (`pause_idle`): the bot that is not to move is frozen,
//! all its processes at once, by a cgroup freezer of its own.
//!
//! Signals are not enough. SIGSTOP reaches the processes one by one, and a
//! stopped process is continued by a SIGCONT from any process of its user:
//! a bot whose helpers keep sending SIGCONT to each other (and leave its
//! process group with `setsid`, where the referee signals only the group)
//! keeps most of its CPU while its opponent thinks. A frozen cgroup is
//! another matter: the kernel freezes every process in it, those forked
//! meanwhile too, and no signal thaws them; only the referee's write does.
//!
//! * **cgroup v2**: the bot's own cgroup (`contain`'s `bot-N`, made where
//!   the kernel has `cgroup.kill`, hence also `cgroup.freeze`): `1` freezes,
//!   `0` thaws. `cgroup.kill` kills a frozen cgroup's processes as they are.
//! * **cgroup v1** (the `freezer` controller mounted on its own, with no
//!   cgroup v2 per bot): `pahtum-arena-ID/bot-N` in the referee's own
//!   freezer cgroup, which the bot enters between `fork` and `exec` like its
//!   other cgroups; `FROZEN` freezes, `THAWED` thaws. A SIGKILL reaches a
//!   v1-frozen process only once it is thawed, so ending a frozen bot kills
//!   every process its freezer lists (none can fork meanwhile), then thaws
//!   it; the guard thaws every bot's freezer before its sweep.
//!
//! Neither, or `PAHTUM_ARENA_NO_FREEZER` set: fair mode falls back to
//! SIGSTOP and SIGCONT, which the arena warns of ([`crate::contain::pausing`]).
//! Freezing is asynchronous: the kernel freezes each running process at its
//! next entry to the kernel (at once, by an interrupt to its CPU); the
//! referee does not wait for the cgroup to report it frozen.

use std::ffi::{CStr, CString};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::cgroup;
use crate::getdents::for_each_entry;

/// Where the referee freezes its bots, found when its containment is set up.
#[derive(Debug)]
pub(crate) enum Freezers {
    /// In each bot's cgroup v2 (`cgroup.freeze`).
    V2,
    /// In `bot-N` below this folder, `pahtum-arena-ID` in the referee's own
    /// v1 freezer cgroup (made here).
    V1(PathBuf),
    /// Nowhere: fair mode stops bots with signals.
    None,
}

impl Freezers {
    /// The freezers of the referee `id`, whose cgroup v2 is `v2` (if it has
    /// one); none if not `wanted`.
    pub(crate) fn set_up(id: &str, v2: Option<&Path>, wanted: bool) -> Freezers {
        if !wanted {
            return Freezers::None;
        }
        if let Some(v2) = v2
            && v2.join("cgroup.freeze").exists()
        {
            return Freezers::V2;
        }
        match cgroup::v1_arena_dir("freezer", id) {
            Ok(dir) => Freezers::V1(dir),
            Err(()) => Freezers::None,
        }
    }

    /// The referee's v1 freezer folder, for the guard to thaw.
    pub(crate) fn v1(&self) -> Option<&Path> {
        match self {
            Freezers::V1(dir) => Some(dir),
            Freezers::V2 | Freezers::None => None,
        }
    }

    /// Thaws every bot's v1 freezer (after a kill of all the bots, which a
    /// v1-frozen process receives only once thawed). Under v2 the kill
    /// reaches frozen processes as they are.
    pub(crate) fn thaw_all(&self) {
        if let Freezers::V1(dir) = self
            && let Ok(dir) = CString::new(dir.as_os_str().as_bytes())
        {
            thaw_all_raw(&dir);
        }
    }

    /// The freezer of the bot numbered `serial`, whose cgroup v2 is `bot_v2`
    /// (if it has one); none where its bot must be stopped with signals.
    pub(crate) fn make_bot(&self, serial: u64, bot_v2: Option<&Path>) -> Option<Freezer> {
        match self {
            Freezers::V2 => bot_v2.map(|dir| Freezer {
                dir: dir.to_owned(),
                v1: false,
            }),
            Freezers::V1(arena) => {
                let dir = arena.join(format!("bot-{serial}"));
                std::fs::create_dir(&dir).ok().map(|()| Freezer { dir, v1: true })
            }
            Freezers::None => None,
        }
    }
}

/// The freezer of one bot: its cgroup v2, or its v1 freezer cgroup.
#[derive(Debug)]
pub(crate) struct Freezer {
    dir: PathBuf,
    /// A v1 freezer cgroup, made (and removed) here.
    v1: bool,
}

impl Freezer {
    /// The v1 freezer cgroup's `cgroup.procs`, opened close-on-exec, for the
    /// child to enter before `exec` (with [`cgroup::enter`]); none under v2,
    /// where the bot's cgroup is its own.
    pub(crate) fn procs_file(&self) -> Option<OwnedFd> {
        if self.v1 { cgroup::procs_file(&self.dir) } else { None }
    }

    /// Freezes every process of the bot; `false` if the kernel refused.
    pub(crate) fn freeze(&self) -> bool {
        self.write_state(true)
    }

    /// Thaws every process of the bot; `false` if the kernel refused.
    pub(crate) fn thaw(&self) -> bool {
        self.write_state(false)
    }

    fn write_state(&self, frozen: bool) -> bool {
        let (file, text) = match (self.v1, frozen) {
            (true, true) => ("freezer.state", "FROZEN"),
            (true, false) => ("freezer.state", "THAWED"),
            (false, true) => ("cgroup.freeze", "1"),
            (false, false) => ("cgroup.freeze", "0"),
        };
        std::fs::write(self.dir.join(file), text).is_ok()
    }

    /// Kills every process of a v1 freezer (which receives the SIGKILL only
    /// when thawed), and thaws it. Under v2 the bot's `cgroup.kill` kills
    /// frozen processes as they are; the thaw does no harm.
    pub(crate) fn kill_and_thaw(&self) {
        if self.v1 {
            cgroup::signal_members(&self.dir, libc::SIGKILL, 1);
        }
        self.thaw();
    }

    /// Removes a v1 freezer cgroup once its processes are gone.
    pub(crate) fn remove(&self) {
        if self.v1 {
            cgroup::kill_and_remove_v1(&[&self.dir]);
        }
    }
}

/// Thaws every bot's freezer `bot-N` in the referee's v1 freezer folder
/// `dir` (raw, for the guard, which then kills the bots' processes).
pub(crate) fn thaw_all_raw(dir: &CStr) {
    // SAFETY: plain system calls on NUL-terminated paths.
    unsafe {
        let dir_fd = libc::open(dir.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC);
        if dir_fd < 0 {
            return;
        }
        for_each_entry(dir_fd, &mut |name| {
            if name.to_bytes().starts_with(b"bot-") {
                let bot = libc::openat(
                    dir_fd,
                    name.as_ptr(),
                    libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
                );
                if bot >= 0 {
                    cgroup::write_in(bot, c"freezer.state", b"THAWED");
                    libc::close(bot);
                }
            }
        });
        libc::close(dir_fd);
    }
}
