//! The supervision of bot processes: everything the referee does to a bot
//! as an operating-system process rather than as a player, so that the game
//! modules above see a bot as lines in and lines out, a clock and a verdict.
//!
//! * `process` owns the operating-system and tokio details of one bot:
//!   spawning (from one thread, with the death signal), the process group,
//!   signals, pipes with deadlines, reaping;
//! * [`contain`] finds and kills every process a bot started (a cgroup per
//!   bot, an environment marker, a guard process for the referee's own
//!   death);
//! * `cgroup` owns the cgroups: the referee's and its bots' names, the v1
//!   and v2 layouts, making them, limiting memory and processes, killing and
//!   removing them;
//! * `freezer` freezes a bot's processes all at once in fair mode (a cgroup
//!   v2's `cgroup.freeze`, or a v1 freezer cgroup per bot);
//! * `getdents` lists a directory with raw system calls, for the guard;
//! * [`sandbox`] runs an untrusted bot under bubblewrap with rlimits, and
//!   checks that the machine can; `sandbox_hint` tells a bot's author what
//!   the sandbox may have to do with a failed start, and `sandbox_setup` an
//!   operator what the machine or its container must allow when bubblewrap
//!   cannot build a sandbox at all; `seccomp` builds its system-call filter,
//!   and `stage` hands its folders to bubblewrap when the arena runs as root;
//! * `cputime` measures the CPU time of a bot's whole process tree (for
//!   CPU-time clocks and the records), and `overload` tells a starved bot's
//!   wall-clock timeout from a slow bot's;
//! * [`affinity`] pins a bot, or a referee thread, to a core.
//!
//! Of these, [`affinity`], [`contain`] and [`sandbox`] are public (as
//! `pahtum_referee::affinity` and so on), for the arena's commands and the
//! tournament runner.

pub mod affinity;
pub(crate) mod cgroup;
pub mod contain;
pub(crate) mod cputime;
mod freezer;
mod getdents;
pub(crate) mod overload;
pub(crate) mod process;
pub mod sandbox;
pub(crate) mod sandbox_hint;
pub(crate) mod sandbox_setup;
pub mod seccomp;
mod stage;
