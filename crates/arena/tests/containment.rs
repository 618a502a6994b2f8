//! Nothing a bot started survives the arena: `arena run` of a small
//! tournament whose bots each start two helpers (one in a new session by
//! `setsid`, one orphaned by a double fork), each of which writes its pid to a
//! file; the arena is then killed with SIGKILL, or stopped with SIGTERM, in
//! the middle of the tournament. Every check reads `/proc`: no helper is left
//! (polled with a deadline), the journal holds whole records only and resumes
//! to the end.
//!
//! Each test runs twice: as the machine allows (a cgroup per bot where cgroup
//! v2 is writable), and with `PAHTUM_ARENA_NO_CGROUP` set (the environment
//! marker alone, as on a machine without writable cgroups), so that both
//! pass wherever they run.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use pahtum_referee::Pausing;
use pahtum_referee::contain::{NO_CGROUP, NO_FREEZER};
use pahtum_testkit::{wait_for, wait_until};
use rustix::process::{Pid, Signal, kill_process};
use serde_json::Value;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
const DEADLINE: Duration = Duration::from_secs(60);

/// A tournament of three helper-starting bots in a temporary folder.
struct Tournament {
    dir: tempfile::TempDir,
}

impl Tournament {
    fn new() -> Tournament {
        let dir = tempfile::tempdir().unwrap();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bot.py");
        let pids = dir.path().join("helper-pids");
        let mut text = String::from("name = \"contained\"\ngames_per_pair = 8\n");
        for name in ["a", "b", "c"] {
            text.push_str(&format!(
                "[[bots]]\nname = \"{name}\"\ncommand = \"python3 {} helpers 5\"\nenv = {{ HELPER_PID_FILE = \"{}\" }}\n",
                script.display(),
                pids.display()
            ));
        }
        std::fs::write(dir.path().join("t.toml"), text).unwrap();
        Tournament { dir }
    }

    fn journal(&self) -> PathBuf {
        self.dir.path().join("out/journal.jsonl")
    }

    fn arena(&self, cgroups: bool) -> Command {
        let mut command = Command::new(ARENA);
        command
            .arg("run")
            .arg(self.dir.path().join("t.toml"))
            .arg("--out")
            .arg(self.dir.path().join("out"))
            .args(["--concurrency", "2"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if !cgroups {
            command.env(NO_CGROUP, "1");
        }
        command
    }

    fn helpers(&self) -> Vec<u32> {
        std::fs::read_to_string(self.dir.path().join("helper-pids"))
            .unwrap_or_default()
            .lines()
            .map(|line| line.parse().unwrap())
            .collect()
    }

    /// Starts the tournament and waits until some games are recorded and
    /// the helpers of at least two bot processes run.
    fn start_and_wait(&self, cgroups: bool) -> Child {
        let child = self.arena(cgroups).spawn().unwrap();
        wait_until("two games are recorded", DEADLINE, || {
            records(&self.journal()).len() >= 2
        });
        wait_until("helpers run", DEADLINE, || {
            self.helpers().iter().filter(|&&pid| is_running(pid)).count() >= 4
        });
        child
    }

    /// Polls `/proc` until no helper runs.
    fn assert_no_helper_left(&self) {
        let helpers = self.helpers();
        let start = Instant::now();
        loop {
            let running: Vec<u32> = helpers.iter().copied().filter(|&pid| is_running(pid)).collect();
            if running.is_empty() {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "helpers survive the arena: {running:?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The journal has whole records only, and a resumed run finishes it.
    fn assert_journal_intact_and_resumable(&self, cgroups: bool) {
        let text = std::fs::read_to_string(self.journal()).unwrap();
        let whole = text.split_inclusive('\n').filter(|line| line.ends_with('\n')).count();
        assert!(whole >= 3, "a header and some games: {text}");
        let done = records(&self.journal()).len();
        assert!(done < 24, "stopped before the end ({done} games)");
        let status = self.arena(cgroups).status().unwrap();
        assert!(status.success(), "the resumed run finishes: {status}");
        assert_eq!(records(&self.journal()).len(), 24);
        self.assert_no_helper_left();
    }
}

/// The journal's game records (complete lines after the header).
fn records(journal: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(journal).unwrap_or_default();
    text.split_inclusive('\n')
        .skip(1)
        .filter(|line| line.ends_with('\n'))
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Whether `pid` runs (not gone, not a zombie), by `/proc/PID/stat`.
fn is_running(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat
        .rfind(')')
        .and_then(|end| stat[end + 1..].split_whitespace().next());
    !matches!(state, Some("Z" | "X") | None)
}

fn wait_exit(child: &mut Child) -> ExitStatus {
    wait_for("arena exits", DEADLINE, || child.try_wait().unwrap())
}

fn signal(child: &Child, signal: Signal) {
    kill_process(Pid::from_child(child), signal).unwrap();
}

/// The cgroup v2 directory of the arena whose bot runs `helper`, if the
/// arena put its bots in cgroups (`.../pahtum-arena-ID/bot-N`).
fn arena_cgroup_of(helper: u32) -> Option<PathBuf> {
    let cgroups = std::fs::read_to_string(format!("/proc/{helper}/cgroup")).ok()?;
    let path = cgroups.lines().find_map(|line| line.strip_prefix("0::"))?;
    let arena = Path::new(path).parent()?;
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mount = mountinfo.lines().find_map(|line| {
        let (mount, fs) = line.split_once(" - ")?;
        (fs.starts_with("cgroup2 ")).then(|| mount.split_whitespace().nth(4))?
    })?;
    let dir = Path::new(mount).join(arena.strip_prefix("/").ok()?);
    dir.file_name()?.to_str()?.starts_with("pahtum-arena-").then_some(dir)
}

fn killed_arena_leaves_nothing(cgroups: bool) {
    let tournament = Tournament::new();
    let mut arena = tournament.start_and_wait(cgroups);
    let running = tournament.helpers().into_iter().find(|&pid| is_running(pid)).unwrap();
    let cgroup = arena_cgroup_of(running);
    assert!(
        cgroups || cgroup.is_none(),
        "no cgroup when they are turned off: {cgroup:?}"
    );
    signal(&arena, Signal::KILL);
    wait_exit(&mut arena);
    tournament.assert_no_helper_left();
    if let Some(cgroup) = cgroup {
        wait_until("the guard removes the arena's cgroups", DEADLINE, || !cgroup.exists());
    }
    tournament.assert_journal_intact_and_resumable(cgroups);
}

/// `stop`, sent to the arena, ends the run as Ctrl-C does, with `code`.
fn stopped_arena_stops_like_ctrl_c(cgroups: bool, stop: Signal, code: i32) {
    let tournament = Tournament::new();
    let mut arena = tournament.start_and_wait(cgroups);
    signal(&arena, stop);
    let status = wait_exit(&mut arena);
    assert_eq!(status.code(), Some(code), "the exit code after {stop:?}: {status}");
    tournament.assert_no_helper_left();
    tournament.assert_journal_intact_and_resumable(cgroups);
}

#[test]
fn a_sigkilled_arena_leaves_no_helper() {
    killed_arena_leaves_nothing(true);
}

#[test]
fn a_sigkilled_arena_leaves_no_helper_without_cgroups() {
    killed_arena_leaves_nothing(false);
}

#[test]
fn sigterm_stops_the_arena_kills_every_helper_and_exits_143() {
    stopped_arena_stops_like_ctrl_c(true, Signal::TERM, 143);
}

#[test]
fn sigterm_without_cgroups_too() {
    stopped_arena_stops_like_ctrl_c(false, Signal::TERM, 143);
}

#[test]
fn sighup_stops_the_arena_as_well_and_exits_129() {
    stopped_arena_stops_like_ctrl_c(true, Signal::HUP, 129);
}

#[test]
fn a_finished_tournament_leaves_no_helper() {
    let tournament = Tournament::new();
    let status = tournament.arena(true).status().unwrap();
    assert!(status.success(), "{status}");
    assert_eq!(records(&tournament.journal()).len(), 24);
    assert!(tournament.helpers().len() >= 6, "every bot process started its helpers");
    tournament.assert_no_helper_left();
}

/// Fair mode by signals (no cgroup freezer, forced here by
/// `PAHTUM_ARENA_NO_FREEZER`) is warned of, once; with a freezer it is not.
#[test]
fn fair_mode_by_signals_is_warned_of_once() {
    let warnings = |no_freezer: bool| {
        let mut command = Command::new(ARENA);
        command.args("game --white first-free --black first-free --seed 7 --pause-idle".split(' '));
        if no_freezer {
            command.env(NO_FREEZER, "1");
        }
        let output = command.output().unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(output.status.success(), "{stderr}");
        stderr.matches("warning: fair mode (pause_idle) stops").count()
    };
    assert_eq!(warnings(true), 1);
    let freezer_here = pahtum_referee::contain::pausing() == Pausing::Freezer;
    assert_eq!(warnings(false), usize::from(!freezer_here));
}
