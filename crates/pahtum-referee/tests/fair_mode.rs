//! Fair mode (`pause_idle`) against a bot that defeats SIGSTOP: the fixture
//! attack `sigcont` forks helpers that leave the bot's process group, burn
//! CPU all the time and keep sending SIGCONT to each other and to the bot.
//! Each of its answers reports how much CPU its helpers got during the
//! opponent's turns, which the record keeps (the answer's `info.comment`).
//!
//! Each game runs in a referee process of its own (`fixture-game`), since the
//! way the referee pauses a bot is chosen once per process: its bots' cgroup
//! v2 freezer, the v1 freezer (`PAHTUM_ARENA_NO_CGROUP`: no cgroup v2 per
//! bot), or signals (`PAHTUM_ARENA_NO_FREEZER`, the control: there the
//! helpers run on, so that these tests can fail). Unsandboxed and sandboxed;
//! after each game no process of the bots is left, and no cgroup of the
//! referee.
//!
//! Where the machine has no cgroup freezer (or no sandbox) the tests print
//! why and pass, except with `CI=true`, where they fail.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use common::{is_paused, poll, running_with_env};
use pahtum_protocol::Reason;
use pahtum_record::GameRecord;
use pahtum_referee::contain::{NO_CGROUP, NO_FREEZER};

/// The opponent: answers each move after this long (wall time), so that the
/// attacker's helpers have time to run, or not, while it is paused.
const OPPONENT: &str = "delay=200";

/// A game of the `sigcont` attacker against [`OPPONENT`], in fair mode.
struct Game {
    record: GameRecord,
    /// How the referee paused the bots (`Freezer` or `Signals`).
    pausing: String,
    /// Each of the opponent's turns: its time (less the attacker's margins)
    /// and the CPU time the attacker's helpers got in it, in microseconds.
    turns: Vec<(u64, u64)>,
}

impl Game {
    /// The share of turns in which the helpers got at most 1% of the turn's
    /// time: those in which the attacker was stopped.
    fn stopped_share(&self) -> f64 {
        let stopped = self.turns.iter().filter(|&&(time, used)| used * 100 <= time).count();
        stopped as f64 / self.turns.len() as f64
    }

    /// The helpers' CPU time over the turns' time, all turns together.
    fn progress(&self) -> f64 {
        let (time, used) = self
            .turns
            .iter()
            .fold((0, 0), |(time, used), turn| (time + turn.0, used + turn.1));
        used as f64 / time as f64
    }

    fn summary(&self) -> String {
        let (time, used) = self
            .turns
            .iter()
            .fold((0, 0), |(time, used), turn| (time + turn.0, used + turn.1));
        format!(
            "pausing {}: the helpers got {} ms of CPU in {} ms of the opponent's turns ({:.1}%); \
             stopped in {:.0}% of {} turns",
            self.pausing,
            used / 1000,
            time / 1000,
            100.0 * self.progress(),
            100.0 * self.stopped_share(),
            self.turns.len()
        )
    }
}

/// Plays the attacker against [`OPPONENT`] in a `fixture-game` process with
/// `env`, sandboxed in `sandbox_dir` if given; checks that the game ended
/// normally and that nothing of it is left.
fn play(env: &[(&str, &str)], sandbox_dir: Option<&std::path::Path>) -> Game {
    let _turn = one_at_a_time();
    let (mut command, tag) = fixture_game(env);
    if let Some(dir) = sandbox_dir {
        command.env("FIXTURE_SANDBOX", dir);
    }
    let referee = command.spawn().expect("fixture-game starts");
    let referee_pid = referee.id();
    let output = referee.wait_with_output().expect("fixture-game ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "fixture-game failed: {stderr}");
    let record: GameRecord = serde_json::from_slice(&output.stdout).expect("fixture-game prints the record");
    assert_eq!(record.termination.reason, Reason::Normal, "{:#?}", record.termination);
    assert_none_left(&tag, referee_pid);
    let pausing = stderr
        .lines()
        .find_map(|line| line.strip_prefix("fixture-game: pausing "))
        .unwrap_or_else(|| panic!("fixture-game did not say how it pauses: {stderr}"))
        .to_owned();
    let turns = turns(&record);
    assert!(turns.len() >= 15, "too few turns measured: {turns:?}");
    Game { record, pausing, turns }
}

/// One game at a time: the helpers of several would share the cores.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The `fixture-game` command of the attacker against [`OPPONENT`] in fair
/// mode, with `env`, and the tag in its bots' environment.
fn fixture_game(env: &[(&str, &str)]) -> (Command, String) {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let tag = format!("fair-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    let mut command = Command::new(pahtum_testkit::fixture_game());
    command
        .args(["attack=sigcont", OPPONENT])
        .envs(env.iter().copied())
        .env("FIXTURE_PAUSE_IDLE", "1")
        .env("FIXTURE_MOVE_MS", "3000")
        .env("FIXTURE_TAG", &tag)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    (command, tag)
}

/// The running processes with `tag` in their environment.
fn tagged(tag: &str) -> Vec<u32> {
    running_with_env(&format!("FIXTURE_TAG={tag}"))
}

/// The opponent's turns, from the attacker's cumulative reports.
fn turns(record: &GameRecord) -> Vec<(u64, u64)> {
    let reports = record.moves.iter().filter_map(|played| {
        let comment = played.timing.info.as_ref()?.comment.as_deref()?;
        let (time, used) = comment.strip_prefix("paused-us=")?.split_once(" helpers-us=")?;
        Some((time.parse::<u64>().ok()?, used.parse::<u64>().ok()?))
    });
    let mut last = (0, 0);
    let mut turns = Vec::new();
    for report in reports {
        if report.0 > last.0 {
            turns.push((report.0 - last.0, report.1 - last.1));
        }
        last = report;
    }
    turns
}

/// Asserts that no process with `tag` in its environment runs, and that no
/// cgroup of the referee `pid` is left (polling a bounded time while the
/// kernel finishes the kills and the guard removes the cgroups).
fn assert_none_left(tag: &str, pid: u32) {
    if poll(Duration::from_secs(5), || tagged(tag).is_empty().then_some(())).is_none() {
        panic!("bot processes left running: {:?}", tagged(tag));
    }
    let prefix = format!("pahtum-arena-{pid}-");
    let cgroups = || -> Vec<std::path::PathBuf> {
        let mut found = Vec::new();
        for hierarchy in std::fs::read_dir("/sys/fs/cgroup").into_iter().flatten().flatten() {
            find_dirs(&hierarchy.path(), &prefix, 3, &mut found);
        }
        found
    };
    if poll(Duration::from_secs(5), || cgroups().is_empty().then_some(())).is_none() {
        panic!("cgroups of the referee left: {:?}", cgroups());
    }
}

/// The folders below `dir`, `depth` levels deep at most, whose names start
/// with `prefix`.
fn find_dirs(dir: &std::path::Path, prefix: &str, depth: usize, found: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if !entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            continue;
        }
        if entry.file_name().to_string_lossy().starts_with(prefix) {
            found.push(entry.path());
        } else if depth > 1 {
            find_dirs(&entry.path(), prefix, depth - 1, found);
        }
    }
}

/// Whether `game` was paused by a freezer; prints why not, and fails in CI.
fn frozen(game: &Game, what: &str) -> bool {
    let why = format!("{what}: no cgroup freezer here (pausing {})", game.pausing);
    pahtum_testkit::require("a cgroup freezer", game.pausing == "Freezer", &why)
}

/// Frozen, the attacker is stopped in (almost) every opponent's turn,
/// whatever its helpers signal. Some turns leak, by the measure's fault: the
/// helpers, thawed for the attacker's own turn, can starve the referee, which
/// then reads the answer and freezes the attacker more than the attacker's
/// margin (`EDGE`, 50 ms) after the answer; the opponent's turn has not begun
/// then (its request is written after the freeze), so it loses nothing, but
/// the attacker counts that time as the opponent's. On a busy machine, up to
/// a quarter of the turns.
fn assert_frozen(game: &Game) {
    eprintln!("{}", game.summary());
    assert!(game.stopped_share() >= 0.6, "{}: {:?}", game.summary(), game.turns);
}

/// A folder that a sandboxed bot may enter: below a world-enterable parent,
/// with mode 0755 (the sandbox's user is not the test's).
fn sandbox_dir() -> Option<tempfile::TempDir> {
    match pahtum_referee::sandbox::check() {
        Ok(()) => {
            let dir = tempfile::Builder::new()
                .prefix("fair-mode-")
                .tempdir_in("/tmp")
                .expect("a temporary directory");
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
            Some(dir)
        }
        Err(error) => {
            let why = format!("the sandboxed fair mode test needs it: {error}");
            pahtum_testkit::require("the sandbox", false, &why);
            None
        }
    }
}

/// With signals the helpers defeat fair mode: they run through the
/// opponent's turns (the control: the measurement sees the attack).
#[test]
fn with_signals_the_helpers_run_on_while_paused() {
    let game = play(&[(NO_FREEZER, "1")], None);
    eprintln!("{}", game.summary());
    assert_eq!(game.pausing, "Signals");
    assert!(game.stopped_share() <= 0.25, "{}: {:?}", game.summary(), game.turns);
}

/// The bot's cgroup v2 freezer stops every process of the attacker.
#[test]
fn the_cgroup_v2_freezer_stops_every_process() {
    let game = play(&[], None);
    if frozen(&game, "cgroup v2") {
        assert_frozen(&game);
    }
}

/// The v1 freezer (no cgroup v2 per bot) stops every process of the
/// attacker, and a CPU-time clock still charges the attacker its CPU.
#[test]
fn the_v1_freezer_stops_every_process_and_the_cpu_clock_runs() {
    let game = play(&[(NO_CGROUP, "1"), ("FIXTURE_CLOCK", "cpu")], None);
    if frozen(&game, "cgroup v1") {
        assert_frozen(&game);
    }
    let attacker = game.record.moves.iter().filter(|played| {
        played.timing.info.as_ref().is_some_and(|info| {
            info.comment
                .as_deref()
                .is_some_and(|comment| comment.starts_with("paused-us="))
        })
    });
    for played in attacker {
        assert!(played.timing.cpu_ms.is_some(), "{played:?}");
    }
}

/// Sandboxed (a PID namespace and a session of its own), the freezer still
/// stops every process of the attacker, with cgroup v2 and with v1; with
/// signals (printed, not asserted: the referee signals every process its
/// cgroup lists, and the helpers win only some turns) it leaks.
#[test]
fn sandboxed_the_freezer_stops_every_process() {
    let Some(dir) = sandbox_dir() else { return };
    for (what, env) in [("cgroup v2", &[][..]), ("cgroup v1", &[(NO_CGROUP, "1")][..])] {
        let game = play(env, Some(dir.path()));
        if frozen(&game, what) {
            assert_frozen(&game);
        }
    }
    let signals = play(&[(NO_FREEZER, "1")], Some(dir.path()));
    eprintln!("sandboxed with signals: {}", signals.summary());
}

/// A referee killed (SIGKILL) while the attacker is frozen: its guard thaws
/// and kills every process of the bots, and removes the cgroups, v2 or v1.
#[test]
fn the_guard_ends_frozen_bots_when_the_referee_dies() {
    for env in [&[][..], &[(NO_CGROUP, "1")][..]] {
        let _turn = one_at_a_time();
        let (mut command, tag) = fixture_game(env);
        let mut referee = command.stdout(Stdio::null()).spawn().expect("fixture-game starts");
        // The attacker's helpers, all paused (frozen, or stopped without a freezer).
        let frozen = poll(Duration::from_secs(20), || {
            let helpers = tagged(&tag);
            (helpers.len() >= 5 && helpers.iter().filter(|&&pid| is_paused(pid)).count() >= 4).then_some(helpers)
        });
        referee.kill().unwrap();
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut referee.stderr.take().unwrap(), &mut stderr).unwrap();
        referee.wait().unwrap();
        assert!(frozen.is_some(), "the attacker was never paused: {stderr}");
        assert_none_left(&tag, referee.id());
    }
}
