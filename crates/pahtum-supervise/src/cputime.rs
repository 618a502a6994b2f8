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
//!   `pread` at offset 0 (no open or path lookup per read).
//! * **the process tree**, where there is no cgroup: the leader's process CPU
//!   clock (`clock_getcpuclockid`: all its threads, to the nanosecond) plus, from
//!   `/proc/PID/stat`, the time of the children it has reaped (`cutime` and
//!   `cstime`) and of every live descendant (found through
//!   `/proc/PID/task/TID/children`: `utime + stime + cutime + cstime`). The
//!   descendants' part has the kernel's clock-tick resolution (10 ms at the
//!   usual 100 Hz); a process that escaped the tree (a double fork whose
//!   middle process exited) is not counted. The leader's `stat` and its main
//!   thread's `children` are kept open and re-read with `pread`, so that a
//!   single-threaded bot of one process costs one `clock_gettime` and two
//!   `pread`s; a multi-threaded leader's threads are listed each time, to
//!   find the children that any of them started.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Duration;

/// How a bot's CPU time is measured.
#[derive(Debug)]
pub(crate) enum CpuMeter {
    /// `cpu.stat` of the bot's cgroup, kept open.
    Cgroup(File),
    /// The bot's process tree: its leader's CPU clock, and its leader's
    /// `stat` and main thread's `children`, kept open.
    Tree {
        pid: u32,
        leader: CpuClock,
        stat: File,
        children: File,
    },
}

impl CpuMeter {
    /// The meter of the bot whose leader is `pid`, in `cgroup` if it has one.
    pub(crate) fn of(pid: u32, cgroup: Option<&Path>) -> Option<CpuMeter> {
        if let Some(stat) = cgroup.and_then(|dir| File::open(dir.join("cpu.stat")).ok())
            && cgroup_usage(&stat).is_some()
        {
            return Some(CpuMeter::Cgroup(stat));
        }
        Some(CpuMeter::Tree {
            pid,
            leader: CpuClock::of(pid)?,
            stat: File::open(format!("/proc/{pid}/stat")).ok()?,
            children: File::open(format!("/proc/{pid}/task/{pid}/children")).ok()?,
        })
    }

    /// The CPU time of all the bot's processes so far.
    pub(crate) fn read(&self) -> Option<Duration> {
        match self {
            CpuMeter::Cgroup(stat) => cgroup_usage(stat),
            CpuMeter::Tree {
                pid,
                leader,
                stat,
                children,
            } => {
                let own = leader.read()?;
                let mut buf = [0u8; 4096];
                let stat = parse_stat(read_text(stat, &mut buf)?)?;
                let children = if stat.threads > 1 {
                    children_of(*pid)
                } else {
                    pids(read_text(children, &mut buf)?)
                };
                let ticks = stat.reaped + children.into_iter().map(descendant_ticks).sum::<u64>();
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

/// The whole text of an open `/proc` or cgroup file, read again from its start into `buf`.
fn read_text<'a>(file: &File, buf: &'a mut [u8]) -> Option<&'a str> {
    let n = file.read_at(buf, 0).ok()?;
    std::str::from_utf8(&buf[..n]).ok()
}

/// `usage_usec` of an open `cpu.stat` (this runs twice per move).
fn cgroup_usage(stat: &File) -> Option<Duration> {
    let mut buf = [0u8; 512];
    let n = stat.read_at(&mut buf, 0).ok()?;
    usage_usec(&buf[..n]).map(Duration::from_micros)
}

/// The `usage_usec` of a `cpu.stat` text. The kernel writes it first, so it
/// is looked for there before anywhere else; the digits are read from the
/// bytes, without checking the rest of the text as UTF-8 or splitting it
/// into lines.
fn usage_usec(text: &[u8]) -> Option<u64> {
    const KEY: &[u8] = b"usage_usec ";
    let value = match text.strip_prefix(KEY) {
        Some(value) => value,
        None => {
            let line = text
                .windows(KEY.len() + 1)
                .position(|window| window[0] == b'\n' && &window[1..] == KEY)?;
            &text[line + 1 + KEY.len()..]
        }
    };
    let digits = value.iter().take_while(|byte| byte.is_ascii_digit()).count();
    std::str::from_utf8(&value[..digits]).ok()?.parse().ok()
}

/// Clock ticks of the process `pid` and of every live descendant (their own
/// time and their reaped children's).
fn descendant_ticks(pid: u32) -> u64 {
    let mut total = 0;
    let mut pending = vec![pid];
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
        if process_stat(pid).is_some_and(|stat| stat.runnable) {
            return true;
        }
        pending.extend(children_of(pid));
    }
    false
}

/// What the referee reads in `/proc/PID/stat`.
struct ProcessStat {
    /// State `R`: running or waiting to run.
    runnable: bool,
    /// `utime + stime`, in clock ticks.
    own: u64,
    /// `cutime + cstime`: the children it waited for.
    reaped: u64,
    threads: u64,
}

fn process_stat(pid: u32) -> Option<ProcessStat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

fn parse_stat(stat: &str) -> Option<ProcessStat> {
    // The command name may hold spaces and parentheses: the fields start after the last `)`.
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
    // After the name: state is field 3 of stat(5); utime, stime, cutime, cstime are 14 to 17.
    let runnable = fields.next()? == "R";
    // Fields 14 to 20: utime, stime, cutime, cstime, priority, nice, num_threads.
    let mut numbers = fields.skip(10).take(7).map(|field| field.parse::<i64>().ok());
    let mut next = || numbers.next().flatten().map(i64::unsigned_abs);
    let (utime, stime, cutime, cstime) = (next()?, next()?, next()?, next()?);
    let (_priority, _nice, threads) = (next()?, next()?, next()?);
    Some(ProcessStat {
        runnable,
        own: utime + stime,
        reaped: cutime + cstime,
        threads,
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
        .flat_map(|children| pids(&children))
        .collect()
}

/// The pids of a `children` file.
fn pids(text: &str) -> Vec<u32> {
    text.split_whitespace().filter_map(|pid| pid.parse().ok()).collect()
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

    #[test]
    fn usage_is_read_from_its_line_wherever_it_is() {
        assert_eq!(
            usage_usec(b"usage_usec 1234\nuser_usec 1000\nsystem_usec 234\n"),
            Some(1234)
        );
        assert_eq!(usage_usec(b"user_usec 1000\nusage_usec 77\n"), Some(77));
        assert_eq!(usage_usec(b"user_usec 1000\nsystem_usec 2\n"), None);
        assert_eq!(usage_usec(b"my_usage_usec 5\n"), None);
        assert_eq!(usage_usec(b"usage_usec \n"), None);
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
        // The meter counts this process's own threads through its clock, read
        // after the meter: what remains is the descendants' part, or less.
        let own = CpuClock::of(std::process::id()).unwrap();
        let descendants = || {
            let total = meter.read().unwrap();
            total.saturating_sub(own.read().unwrap())
        };
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
