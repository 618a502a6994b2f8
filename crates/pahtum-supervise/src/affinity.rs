//! Core pinning (`affinity = true`, `--affinity`): each concurrent game's
//! bots run on a core of their own, as fastchess's `-use-affinity`, so that
//! one game cannot take another's CPU and a bot's timing does not depend on
//! where the scheduler moves it.
//!
//! A bot is pinned at its spawn, between `fork` and `exec`
//! (`sched_setaffinity` of the child, one system call), so that every thread
//! and process it starts inherits the mask. The cores a run may use are the
//! referee's own mask ([`usable_cores`]), as `taskset` or a container left it.
//!
//! The same call pins a referee thread ([`pin_this_thread`]): a tournament
//! drives each slot's games from a thread on the slot's core, beside its
//! bots, because a pipe round trip between two cores costs ten times or more
//! what it costs on one core.

use std::io;

/// The cores this process may run on, in increasing order (`sched_getaffinity`).
pub fn usable_cores() -> io::Result<Vec<usize>> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: an all-zero cpu_set_t is a valid empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: the call writes at most size_of::<cpu_set_t>() bytes into `set`.
        if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: CPU_ISSET reads the set it is given, below CPU_SETSIZE.
        Ok((0..libc::CPU_SETSIZE as usize)
            .filter(|&core| unsafe { libc::CPU_ISSET(core, &set) })
            .collect())
    }
    #[cfg(not(target_os = "linux"))]
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "pinning bots to cores needs Linux",
    ))
}

/// Sets `command`'s process to run on `core` only, from its start.
pub(crate) fn pin(command: &mut tokio::process::Command, core: usize) {
    // SAFETY: the closure makes one async-signal-safe system call on a set
    // made before the fork, without allocating.
    #[cfg(target_os = "linux")]
    unsafe {
        let set = only(core);
        command.pre_exec(move || set_affinity(&set));
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (command, core);
}

/// Sets the calling thread to run on `core` only: a referee thread that
/// drives the games whose bots are pinned there (the tournament's lanes), so
/// that a request and its answer never cross cores.
pub fn pin_this_thread(core: usize) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        set_affinity(&only(core))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = core;
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "pinning a thread to a core needs Linux",
        ))
    }
}

/// The set of `core` alone.
#[cfg(target_os = "linux")]
fn only(core: usize) -> libc::cpu_set_t {
    // SAFETY: an all-zero cpu_set_t is a valid empty set; CPU_SET writes inside it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    unsafe { libc::CPU_SET(core, &mut set) };
    set
}

/// Restricts the calling thread (and what it forks or starts afterwards) to
/// `set`: one system call, async-signal-safe.
#[cfg(target_os = "linux")]
fn set_affinity(set: &libc::cpu_set_t) -> io::Result<()> {
    // SAFETY: the call reads size_of::<cpu_set_t>() bytes of `set`.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_pinned_to_a_core_runs_there_only() {
        let core = *usable_cores().unwrap().last().unwrap();
        let cores = std::thread::spawn(move || {
            pin_this_thread(core).unwrap();
            usable_cores().unwrap()
        })
        .join()
        .unwrap();
        assert_eq!(cores, [core]);
    }

    #[test]
    fn this_process_may_use_some_cores() {
        let cores = usable_cores().unwrap();
        assert!(!cores.is_empty());
        assert!(cores.windows(2).all(|pair| pair[0] < pair[1]), "{cores:?}");
    }
}
