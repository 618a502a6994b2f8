//! Helpers for tests with real bot processes: fixture bots that record their
//! pids, quick limits, and the checks that every test makes (no process
//! left, memory bounded).

#![allow(dead_code)] // each test binary uses its own part of the helpers

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pahtum_referee::{Bot, BotSpec, Limits};

/// The referee's memory bound under any bot (peak resident set of the whole
/// test process).
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
            program: env!("CARGO_BIN_EXE_fixture-bot").to_owned(),
            args: vec![mode.to_owned()],
            dir: None,
            env: vec![(
                "FIXTURE_PID_FILE".to_owned(),
                self.path("pids").to_string_lossy().into_owned(),
            )],
        }
    }

    pub async fn start(&self, mode: &str) -> Bot {
        Bot::start(&self.spec(mode), &quick_limits(), None)
            .await
            .unwrap_or_else(|e| panic!("fixture {mode} did not start: {e}"))
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
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let alive: Vec<u32> = pids.iter().copied().filter(|&pid| is_running(pid)).collect();
            if alive.is_empty() {
                return;
            }
            assert!(Instant::now() < deadline, "bot processes left running: {alive:?}");
            std::thread::yield_now();
        }
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

/// The state letter of `/proc/PID/stat` (`R`, `S`, `T`, `Z`, ...).
pub fn process_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..].split_whitespace().next()?.chars().next()
}

/// Asserts that the peak resident memory of this process stayed bounded.
pub fn assert_memory_bounded() {
    let peak = peak_rss_kib(Path::new("/proc/self/status"));
    assert!(peak < MEMORY_BOUND_KIB, "the referee's peak memory is {peak} KiB");
}

fn peak_rss_kib(status: &Path) -> u64 {
    let status = std::fs::read_to_string(status).expect("/proc/self/status");
    let line = status.lines().find(|line| line.starts_with("VmHWM:")).expect("VmHWM");
    line.split_whitespace()
        .nth(1)
        .and_then(|kib| kib.parse().ok())
        .expect("VmHWM in kB")
}
