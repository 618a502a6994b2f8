//! CPU-time clocks and overload detection, with real processes: a bot that
//! uses its CPU budget passes while CPU hogs run beside it, a sleeping bot
//! still meets the wall cap, a child's thinking is charged to its bot, and a
//! wall-clock timeout of a starved bot is told from a genuinely slow one.
//!
//! Every test here measures time, and several load the machine on purpose
//! (CPU hogs on every core, or on core 0), so they are serialized: each holds
//! [`LOAD`] from its first line to its end, so that no two of them ever run
//! at once and one test's hogs are never another's overload. `LOAD` is
//! tokio's mutex, which a panicking test releases without poisoning it: a
//! failure does not fail the tests after it. Every test of this file takes
//! `LOAD`, so nothing else of this test binary runs beside one of them (a new
//! test here must take it too). The rest of the suite stays off their cores
//! because `cargo test` runs the test binaries one after another: the tests of
//! other binaries (other files, other crates, the doc-tests) run before or
//! after this binary, never during it. A runner that runs several binaries
//! at once (`cargo nextest`) gives no such guarantee.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::Fixtures;
use pahtum::Seat;
use pahtum_protocol::{ClockKind, Reason, TimeControl, move_time};
use pahtum_record::{GameRecord, GameSpec};
use pahtum_referee::{BotSpec, play_game};

/// One test of this binary at a time (see the module documentation).
static LOAD: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Busy-looping processes, started by a test and killed when dropped.
struct Hogs(Vec<Child>);

impl Hogs {
    /// `count` hogs, on the CPUs `cpus` (a `taskset` list) if given.
    fn start(count: usize, cpus: Option<&str>) -> Hogs {
        let hogs = (0..count)
            .map(|_| {
                let bot = pahtum_testkit::fixture_bot();
                let spin = [bot.as_os_str(), "spin=600000".as_ref()];
                let mut command = match cpus {
                    Some(cpus) => {
                        let mut command = Command::new("taskset");
                        command.args(["-c", cpus]).args(spin);
                        command
                    }
                    None => {
                        let mut command = Command::new(spin[0]);
                        command.arg(spin[1]);
                        command
                    }
                };
                command.stdout(Stdio::null()).spawn().expect("a CPU hog starts")
            })
            .collect();
        Hogs(hogs)
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for hog in &mut self.0 {
            let _ = hog.kill();
            let _ = hog.wait();
        }
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn cpu_time(limit: Duration) -> TimeControl {
    TimeControl {
        clock: ClockKind::Cpu,
        ..move_time(limit)
    }
}

/// Plays `bot` (first seat, by `time`) against the instant fixture (unhurried).
async fn play(fixtures: &Fixtures, bot: BotSpec, time: TimeControl) -> GameRecord {
    let mut first = pahtum_referee::Bot::start(&bot, &common::quick_limits(), None)
        .await
        .expect("the bot starts");
    let mut second = fixtures.start("first-free").await;
    let spec = GameSpec::random("cpu-game", 13, 5, false, time)
        .unwrap()
        .with_seat_times(time, move_time(Duration::from_secs(5)));
    let record = play_game(&spec, &mut first, &mut second, &mut |_| {}).await;
    record.replay().expect("the record replays");
    first.shutdown().await;
    second.shutdown().await;
    record
}

fn forfeit_detail(record: &GameRecord) -> &str {
    let forfeit = record.termination.forfeit.as_ref().expect("a forfeit");
    assert_eq!(forfeit.seat, Seat::First, "{record:#?}");
    &forfeit.detail
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_that_burns_its_cpu_budget_passes_beside_cpu_hogs() {
    let _turn = LOAD.lock().await;
    let fixtures = Fixtures::new();
    let _hogs = Hogs::start(cores(), None);
    let started = Instant::now();
    let record = play(
        &fixtures,
        fixtures.spec("burn=80"),
        cpu_time(Duration::from_millis(100)),
    )
    .await;
    assert_eq!(record.termination.reason, Reason::Normal, "{record:#?}");
    let moves: Vec<_> = record
        .moves
        .iter()
        .filter(|m| m.color == pahtum::Color::White)
        .collect();
    assert!(moves.len() >= 10);
    for played in &moves {
        let cpu = played.timing.cpu_ms.expect("the CPU time is measured");
        assert!((80.0..120.0).contains(&cpu), "a move charged {cpu} ms of CPU");
    }
    let wall: f64 = moves.iter().map(|m| m.timing.ms).sum();
    let cpu: f64 = moves.iter().map(|m| m.timing.cpu_ms.unwrap()).sum();
    eprintln!(
        "{} moves: {cpu:.0} ms of CPU in {wall:.0} ms of wall time, beside {} hogs, in {:?}",
        moves.len(),
        cores(),
        started.elapsed()
    );
    fixtures.assert_none_left();
}

#[tokio::test]
async fn a_bot_that_sleeps_past_the_wall_cap_times_out() {
    let _turn = LOAD.lock().await;
    let fixtures = Fixtures::new();
    let started = Instant::now();
    let record = play(
        &fixtures,
        fixtures.spec("delay=3000"),
        cpu_time(Duration::from_millis(100)),
    )
    .await;
    assert_eq!(record.termination.reason, Reason::Timeout, "{record:#?}");
    let detail = forfeit_detail(&record);
    assert!(detail.contains("within 1360 ms of wall time"), "{detail}");
    assert!(
        started.elapsed() < Duration::from_millis(2900),
        "the wall cap, not the bot, ends the wait"
    );
    fixtures.assert_none_left();
}

#[tokio::test]
async fn a_childs_thinking_is_charged_to_its_bot() {
    let _turn = LOAD.lock().await;
    let fixtures = Fixtures::new();
    let record = play(
        &fixtures,
        fixtures.spec("child-burn=300"),
        cpu_time(Duration::from_millis(100)),
    )
    .await;
    assert_eq!(record.termination.reason, Reason::Timeout, "{record:#?}");
    let detail = forfeit_detail(&record);
    assert!(detail.contains("of CPU time: the bot's processes used"), "{detail}");
    fixtures.assert_none_left();
}

/// Without a cgroup, the process tree is measured: the child is found through
/// its parent's `children` and charged as it runs.
#[tokio::test]
async fn a_childs_thinking_is_charged_without_a_cgroup_too() {
    let _turn = LOAD.lock().await;
    let fixtures = Fixtures::new();
    let env = [("PAHTUM_ARENA_NO_CGROUP", "1"), ("FIXTURE_CLOCK", "cpu")];
    let (record, _) = fixtures.game_in_a_process_with_env("child-burn=300", "first-free", &env);
    assert_eq!(record.termination.reason, Reason::Timeout, "{record:#?}");
    let detail = forfeit_detail(&record);
    assert!(detail.contains("of CPU time: the bot's processes used"), "{detail}");
    fixtures.assert_none_left();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_starved_bots_wall_timeout_is_marked_as_overload() {
    let _turn = LOAD.lock().await;
    let fixtures = Fixtures::new();
    let _hogs = Hogs::start(4, Some("0"));
    let mut starved = fixtures.spec("burn=2000");
    starved.args.insert(0, starved.program.clone());
    starved.args.splice(0..0, ["-c".to_owned(), "0".to_owned()]);
    starved.program = "taskset".to_owned();
    let record = play(&fixtures, starved, move_time(Duration::from_millis(200))).await;
    assert_eq!(record.termination.reason, Reason::Timeout, "{record:#?}");
    let forfeit = record.termination.forfeit.as_ref().unwrap();
    assert!(forfeit.overloaded, "{record:#?}");
    assert!(
        forfeit.detail.contains(": the machine was overloaded"),
        "{}",
        forfeit.detail
    );
    assert!(
        !forfeit.detail.contains("flush"),
        "the bot answered before: {}",
        forfeit.detail
    );
    fixtures.assert_none_left();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_genuinely_slow_bot_is_not_called_overloaded() {
    let _turn = LOAD.lock().await;
    let fixtures = Fixtures::new();
    let record = play(&fixtures, fixtures.spec("slow"), move_time(Duration::from_millis(300))).await;
    assert_eq!(record.termination.reason, Reason::Timeout, "{record:#?}");
    let forfeit = record.termination.forfeit.as_ref().unwrap();
    assert!(!forfeit.overloaded, "{record:#?}");
    assert!(!forfeit.detail.contains("overloaded"), "{}", forfeit.detail);
    fixtures.assert_none_left();
}
