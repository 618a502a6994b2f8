//! The CPU time of a bot: every process and thread it started, children
//! included, so that a CPU-time clock (`clock = "cpu"`) charges a Java or Node
//! bot's helper threads and a shell wrapper's child, and an overloaded wall
//! clock can be told from a slow bot.
//!
//! Two meters, the better one wherever it works:
//!
//! * **the bot's cgroup** (`contain`: a cgroup v2 per bot where writable):
//!   `usage_usec` of its `cpu.stat`, the kernel's sum over every task that ever
//!   ran in the cgroup, exited ones included, to the microsecond. `cpu.stat`
//!   exists on every v2 cgroup (kernel 5.x and later), with or without the
//!   `cpu` controller enabled. The file is opened once and re-read with one
//!   `pread` at offset 0 (about 1 µs).
//! * **the process tree**, where there is no cgroup: the leader's process CPU
//!   clock (`clock_getcpuclockid`: all its threads, to the nanosecond) plus, from
//!   `/proc/PID/stat`, the time of the children it has reaped (`cutime` and
//!   `cstime`) and of every live descendant (found through
//!   `/proc/PID/task/TID/children`: `utime + stime + cutime + cstime`). The
//!   descendants' part has the kernel's clock-tick resolution (10 ms at the
//!   usual 100 Hz), and a process that escaped the tree (a double fork whose
//!   middle process exited) is not counted. A bot of one process (the usual
//!   case) costs one `clock_gettime` and one read of its `stat`.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Duration;

/// How a bot's CPU time is measured.
#[derive(Debug)]
pub(crate) enum CpuMeter {
    /// `cpu.stat` of the bot's cgroup, kept open.
    Cgroup(File),
    /// The bot's process tree, by its leader's pid and CPU clock.
    Tree { pid: u32, leader: CpuClock },
}

impl CpuMeter {
    /// The meter of the bot whose leader is `pid`, in `cgroup` if it has one.
    pub(crate) fn of(pid: u32, cgroup: Option<&Path>) -> Option<CpuMeter> {
        if let Some(stat) = cgroup.and_then(|dir| File::open(dir.join("cpu.stat")).ok())
            && cgroup_usage(&stat).is_some()
        {
            return Some(CpuMeter::Cgroup(stat));
        }
        CpuClock::of(pid).map(|leader| CpuMeter::Tree { pid, leader })
    }

    /// The CPU time of all the bot's processes so far.
    pub(crate) fn read(&self) -> Option<Duration> {
        match self {
            CpuMeter::Cgroup(stat) => cgroup_usage(stat),
            CpuMeter::Tree { pid, leader } => {
                let own = leader.read()?;
                let ticks = tree_ticks(*pid);
                Some(own + ticks_to_duration(ticks))
            }
        }
    }

    /// `"cgroup"` or `"process tree"`.
    #[cfg(test)]
    fn source(&self) -> &'static str {
        match self {
            CpuMeter::Cgroup(_) => "cgroup",
            CpuMeter::Tree { .. } => "process tree",
        }
    }
}

/// `usage_usec` of an open `cpu.stat`.
fn cgroup_usage(stat: &File) -> Option<Duration> {
    let mut buf = [0u8; 512];
    let n = stat.read_at(&mut buf, 0).ok()?;
    let text = std::str::from_utf8(&buf[..n]).ok()?;
    let usec = text
        .lines()
        .find_map(|line| line.strip_prefix("usage_usec "))?
        .trim()
        .parse()
        .ok()?;
    Some(Duration::from_micros(usec))
}

/// Clock ticks of the leader's reaped children and of every live descendant
/// (their own time and their reaped children's).
fn tree_ticks(leader: u32) -> u64 {
    let mut total = process_stat(leader).map_or(0, |stat| stat.reaped);
    let mut pending = children_of(leader);
    while let Some(pid) = pending.pop() {
        if let Some(stat) = process_stat(pid) {
            total += stat.own + stat.reaped;
        }
        pending.extend(children_of(pid));
    }
    total
}

/// Whether the process `leader` or one of its live descendants is running
/// or waiting to run (state `R`): a bot that sleeps or blocks is not.
pub(crate) fn tree_is_runnable(leader: u32) -> bool {
    let mut pending = vec![leader];
    while let Some(pid) = pending.pop() {
        if process_stat(pid).is_some_and(|stat| stat.state == "R") {
            return true;
        }
        pending.extend(children_of(pid));
    }
    false
}

/// What the referee reads in `/proc/PID/stat`.
struct ProcessStat {
    state: String,
    /// `utime + stime`, in clock ticks.
    own: u64,
    /// `cutime + cstime`: the children it waited for.
    reaped: u64,
}

fn process_stat(pid: u32) -> Option<ProcessStat> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: the fields start after the last `)`.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    // After the name: state is field 3 of stat(5); utime, stime, cutime, cstime are 14 to 17.
    let field = |number: usize| fields.get(number - 3)?.parse::<u64>().ok();
    Some(ProcessStat {
        state: (*fields.first()?).to_owned(),
        own: field(14)? + field(15)?,
        reaped: field(16)? + field(17)?,
    })
}

/// The live children of every thread of `pid`.
fn children_of(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|children| {
            children
                .split_whitespace()
                .filter_map(|child| child.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

fn ticks_to_duration(ticks: u64) -> Duration {
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_nanos(ticks.saturating_mul(1_000_000_000) / per_second)
}

/// The CPU clock of a process: all its threads, not its children.
#[derive(Debug)]
pub(crate) struct CpuClock {
    clock: libc::clockid_t,
}

impl CpuClock {
    #[cfg(target_os = "linux")]
    pub(crate) fn of(pid: u32) -> Option<CpuClock> {
        let mut clock = 0;
        // SAFETY: the call writes the clock id into the variable it is given.
        let status = unsafe { libc::clock_getcpuclockid(pid as libc::pid_t, &mut clock) };
        (status == 0).then_some(CpuClock { clock })
    }

    #[cfg(not(target_os = "linux"))]
    pub(crate) fn of(_pid: u32) -> Option<CpuClock> {
        None
    }

    pub(crate) fn read(&self) -> Option<Duration> {
        let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: the call writes the time into the struct it is given.
        let status = unsafe { libc::clock_gettime(self.clock, &mut time) };
        (status == 0).then(|| Duration::new(time.tv_sec as u64, time.tv_nsec as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Burns CPU on this thread until its own clock has advanced by `amount`.
    fn burn(amount: Duration) {
        let thread = CpuClock {
            clock: libc::CLOCK_THREAD_CPUTIME_ID,
        };
        let start = thread.read().unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let mut x = 1u64;
        while thread.read().unwrap() < start + amount {
            assert!(
                std::time::Instant::now() < deadline,
                "the thread's CPU clock does not advance"
            );
            for _ in 0..1000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
    }

    /// The process clock counts the work of this thread (and of any other).
    #[test]
    fn a_process_cpu_clock_counts_its_threads_work() {
        let process = CpuClock::of(std::process::id()).unwrap();
        let before = process.read().unwrap();
        burn(Duration::from_millis(5));
        assert!(process.read().unwrap() - before >= Duration::from_millis(5));
    }

    /// The tree meter counts a child's work, to the clock tick (the test
    /// process's own threads are left out: they count through its own clock).
    #[test]
    fn the_tree_meter_counts_a_childs_work() {
        let meter = CpuMeter::of(std::process::id(), None).unwrap();
        assert_eq!(meter.source(), "process tree");
        let descendants = || ticks_to_duration(tree_ticks(std::process::id()));
        let before = descendants();
        let mut child = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 100000000 ]; do i=$((i+1)); done"])
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while descendants() < before + Duration::from_millis(100) {
            assert!(
                std::time::Instant::now() < deadline,
                "the child's CPU time is not counted"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        child.kill().unwrap();
        child.wait().unwrap();
    }
}
