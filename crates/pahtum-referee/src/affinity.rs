//! Core pinning (`affinity = true`, `--affinity`): each concurrent game's
//! bots run on a core of their own, as fastchess's `-use-affinity`, so that
//! one game cannot take another's CPU and a bot's timing does not depend on
//! where the scheduler moves it.
//!
//! A bot is pinned at its spawn, between `fork` and `exec`
//! (`sched_setaffinity` of the child, one system call), so that every thread
//! and process it starts inherits the mask. The cores a run may use are the
//! referee's own mask ([`usable_cores`]), as `taskset` or a container left it.

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
    #[cfg(target_os = "linux")]
    {
        // SAFETY: an all-zero cpu_set_t is a valid empty set; CPU_SET writes inside it.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        unsafe { libc::CPU_SET(core, &mut set) };
        // SAFETY: the closure makes one async-signal-safe system call on a
        // set copied into it, without allocating.
        unsafe {
            command.pre_exec(move || {
                if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (command, core);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_may_use_some_cores() {
        let cores = usable_cores().unwrap();
        assert!(!cores.is_empty());
        assert!(cores.windows(2).all(|pair| pair[0] < pair[1]), "{cores:?}");
    }
}
