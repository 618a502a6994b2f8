//! The supervisor of pahtum-arena: runs a command under a policy. Every
//! child process of the arena that runs a stranger's code (a bot, an
//! entrant's build, an admission check) starts here, through one call,
//! [`start`], so that process groups, containment, cgroups, the freezer,
//! bubblewrap, the system-call filter and the rlimits are decided in one
//! place and tested once.
//!
//! ```no_run
//! # async fn example() -> std::io::Result<()> {
//! use pahtum_supervise::{Command, Output, Policy, Sandbox, start};
//! use std::time::Duration;
//!
//! let build = Command::shell("make", "/srv/league/.staging/bot@1".into());
//! let policy = Policy {
//!     sandbox: Some(Sandbox { sees_working_dir: true, named_folders: false, ..Sandbox::default() }),
//!     output: Output::Log("/srv/league/logs/build-bot@1.log".into()),
//!     time_limit: Some(Duration::from_secs(600)),
//!     core: None,
//! };
//! let ended = start(&build, &policy).await?.finish().await?;
//! println!("the build {ended}");
//! # Ok(()) }
//! ```
//!
//! * [`policy`]: what to run ([`Command`]) and how ([`Policy`], [`Output`],
//!   [`Sandbox`]): plain data;
//! * [`start`] and [`Process`]: the one way in, and the running process
//!   (its pipes, its exit, pausing, signals, CPU time, the kill of all it
//!   started);
//! * [`contain`] finds and kills every process a child started (a cgroup per
//!   child, an environment marker, a guard process for the supervisor's own
//!   death); `cgroup` owns the cgroups (names, the v1 and v2 layouts,
//!   limits, kill, removal); `freezer` freezes a child's processes at once
//!   (fair mode); `getdents` lists a directory with raw system calls, for
//!   the guard;
//! * [`sandbox`] runs a process under bubblewrap with rlimits, says what it
//!   sees ([`sandbox::Seen`]), and checks that the machine can; `stage`
//!   hands its folders to bubblewrap when the supervisor runs as root;
//!   [`seccomp`] builds its system-call filter; `sandbox_setup` tells an
//!   operator what the machine or its container must allow, and
//!   [`sandbox_hint`] a bot's author what the sandbox may have to do with a
//!   failed start;
//! * [`lend`] lends a folder to the sandbox's user while a sandboxed
//!   process must write it (a build's snapshot), and takes it back;
//! * `cputime` measures the CPU time of a child's whole process tree, and
//!   [`overload`] tells a starved process's wall-clock timeout from a slow
//!   one's;
//! * [`affinity`] pins a child, or a thread, to a core.

#![warn(missing_docs)]

pub mod affinity;
mod cgroup;
pub mod contain;
mod cputime;
mod freezer;
mod getdents;
pub mod lend;
pub mod overload;
pub mod policy;
mod process;
pub mod sandbox;
pub mod sandbox_hint;
mod sandbox_setup;
pub mod seccomp;
mod stage;

pub use cgroup::MemoryUse;
pub use contain::{Pausing, Tracking, kill_every_bot};
pub use policy::{Command, Output, Policy, Sandbox};
pub use process::{Ended, Pipes, Process, start};
pub use sandbox::SandboxError;
