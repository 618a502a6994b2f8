//! Helpers for tests with real bot processes: fixture bots that record their
//! pids, quick limits, the check that every test makes (no process left), and
//! games in a referee process of their own, whose peak memory is theirs
//! alone.

#![allow(dead_code)] // each test binary uses its own part of the helpers

use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pahtum_record::GameRecord;
use pahtum_referee::{Bot, BotSpec, Limits};

/// The referee's memory bound under any bot: the peak resident set of a
/// process that plays one game.
pub const MEMORY_BOUND_KIB: u64 = 64 * 1024;

/// Fixture bots of one test, and the file their pids go to.
pub struct Fixtures {
    dir: tempfile::TempDir,
}

impl Fixtures {
    pub fn new() -> Fixtures {
        Fixtures {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The fixture bot in `mode`, named after it.
    pub fn spec(&self, mode: &str) -> BotSpec {
        BotSpec {
            name: mode.to_owned(),
            program: pahtum_testkit::fixture_bot().to_string_lossy().into_owned(),
            args: vec![mode.to_owned()],
            dir: None,
            env: vec![(
                "FIXTURE_PID_FILE".to_owned(),
                self.path("pids").to_string_lossy().into_owned(),
            )],
            sandbox: None,
        }
    }

    pub async fn start(&self, mode: &str) -> Bot {
        Bot::start(&self.spec(mode), &quick_limits(), None)
            .await
            .unwrap_or_else(|e| panic!("fixture {mode} did not start: {e}"))
    }

    /// Plays a game between the fixture bots in modes `first` and `second`
    /// in a referee process of its own (`fixture-game`); returns the record
    /// and the peak resident memory of that process in KiB (by the kernel's
    /// accounting at its exit, which also takes the peaks of the bots it
    /// reaped: small processes).
    pub fn game_in_a_process(&self, first: &str, second: &str) -> (GameRecord, u64) {
        self.game_in_a_process_with_env(first, second, &[])
    }

    /// [`game_in_a_process`](Self::game_in_a_process) with more environment
    /// variables for the referee process.
    #[expect(clippy::zombie_processes, reason = "reaped by `wait4`, which std does not offer")]
    pub fn game_in_a_process_with_env(&self, first: &str, second: &str, env: &[(&str, &str)]) -> (GameRecord, u64) {
        let mut referee = Command::new(pahtum_testkit::fixture_game())
            .args([first, second])
            .env("FIXTURE_PID_FILE", self.path("pids"))
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .spawn()
            .expect("fixture-game starts");
        let mut json = String::new();
        referee
            .stdout
            .take()
            .expect("piped")
            .read_to_string(&mut json)
            .expect("fixture-game prints the record");
        let (exit, peak_kib) = wait_with_peak_memory(&referee);
        assert_eq!(exit, 0, "fixture-game failed");
        let record = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
        (record, peak_kib)
    }

    /// Every pid any fixture process recorded.
    pub fn pids(&self) -> Vec<u32> {
        std::fs::read_to_string(self.path("pids"))
            .unwrap_or_default()
            .lines()
            .map(|line| line.parse().expect("a pid per line"))
            .collect()
    }

    /// Asserts that every recorded process is gone (or a zombie waiting for
    /// init), polling for a bounded time while the kernel finishes the kills.
    pub fn assert_none_left(&self) {
        let pids = self.pids();
        assert!(!pids.is_empty(), "no fixture recorded its pid");
        let running = || -> Vec<u32> { pids.iter().copied().filter(|&pid| is_running(pid)).collect() };
        if poll(Duration::from_secs(5), || running().is_empty().then_some(())).is_none() {
            panic!("bot processes left running: {:?}", running());
        }
    }
}

/// Asks `probe` about the state of processes until it gives a value, every
/// few milliseconds (sleeping in between, so that the processes it waits for
/// get the processor), for at most `within`; `None` if it never did.
pub fn poll<T>(within: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + within;
    loop {
        if let Some(value) = probe() {
            return Some(value);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Short limits, so that tests of silent bots end quickly.
pub fn quick_limits() -> Limits {
    Limits {
        startup: Duration::from_secs(5),
        ready: Duration::from_millis(500),
        ping: Duration::from_millis(500),
        quit_grace: Duration::from_millis(200),
        stderr_cap: 64 * 1024,
    }
}

/// Whether `pid` is a process that still runs (not gone, not a zombie).
pub fn is_running(pid: u32) -> bool {
    process_state(pid).is_some_and(|state| !matches!(state, 'Z' | 'X'))
}

/// The running processes whose environment has the entry `entry`
/// (`NAME=VALUE`), read through `/proc`.
pub fn running_with_env(entry: &str) -> Vec<u32> {
    let needle = format!("{entry}\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .filter(|&pid| is_running(pid))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|environ| environ.windows(needle.len()).any(|window| window == needle.as_bytes()))
        })
        .collect()
}

/// Whether `pid` is paused as fair mode pauses a bot: stopped by a signal
/// (state `T`), or in a frozen cgroup (v2 `cgroup.events`: `frozen 1`; v1
/// `freezer.state`: `FROZEN`).
pub fn is_paused(pid: u32) -> bool {
    if process_state(pid) == Some('T') {
        return true;
    }
    let (Ok(mountinfo), Ok(cgroups)) = (
        std::fs::read_to_string("/proc/self/mountinfo"),
        std::fs::read_to_string(format!("/proc/{pid}/cgroup")),
    ) else {
        return false;
    };
    // Where the cgroup v2 hierarchy, and the v1 freezer, are mounted.
    let mount = |v2: bool| {
        mountinfo.lines().find_map(|line| {
            let (mount, fs) = line.split_once(" - ")?;
            let fs: Vec<&str> = fs.split_whitespace().collect();
            let found = if v2 {
                fs.first() == Some(&"cgroup2")
            } else {
                fs.first() == Some(&"cgroup") && fs.get(2)?.split(',').any(|option| option == "freezer")
            };
            found.then(|| mount.split_whitespace().nth(4).map(PathBuf::from))?
        })
    };
    cgroups.lines().any(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next(), fields.next(), fields.next());
        let (Some(controllers), Some(path)) = (controllers, path) else {
            return false;
        };
        let path = path.trim_start_matches('/');
        let read = |v2: bool, file: &str| {
            mount(v2).and_then(|mount| std::fs::read_to_string(mount.join(path).join(file)).ok())
        };
        if controllers.is_empty() {
            read(true, "cgroup.events").is_some_and(|events| events.lines().any(|line| line == "frozen 1"))
        } else if controllers.split(',').any(|name| name == "freezer") {
            read(false, "freezer.state").is_some_and(|state| state.trim() == "FROZEN")
        } else {
            false
        }
    })
}

/// The state letter of `/proc/PID/stat` (`R`, `S`, `T`, `Z`, ...).
pub fn process_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..].split_whitespace().next()?.chars().next()
}

/// Reaps `child` (which must not have been waited for) and returns its exit
/// code and its peak resident memory in KiB.
fn wait_with_peak_memory(child: &Child) -> (i32, u64) {
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value, and wait4 writes the status
    // and the usage into the variables it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(
            libc::wait4(pid, &mut status, 0, &mut usage),
            pid,
            "wait4 reaps the child"
        );
        usage
    };
    let exit = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    (exit, usage.ru_maxrss as u64)
}
