//! One test per misbehaviour, with real processes: each asserts the named
//! verdict, the win for the opponent, that the game ended within its time
//! bound, and that no process the bots started is left. The misbehaviours
//! that aim at the referee's memory are played in a referee process of their
//! own, whose peak memory is measured.

mod common;

use std::time::{Duration, Instant};

use common::{Fixtures, MEMORY_BOUND_KIB, is_paused, poll, quick_limits};
use pahtum::{Outcome, Seat};
use pahtum_protocol::{Reason, TimeControl, move_time};
use pahtum_record::{GameRecord, GameSpec};
use pahtum_referee::{Bot, GameEvent, StartError, play_game};

/// The limit of the games that end in silence (a timeout or a stall), which
/// last as long as it.
const MOVE_TIME: Duration = Duration::from_millis(100);

/// The time control of the games whose verdict is not about time: the bots
/// answer at once, and the limit only has to outlast a busy machine.
fn unhurried() -> TimeControl {
    move_time(Duration::from_secs(2))
}

fn game(time: TimeControl) -> GameSpec {
    GameSpec::random("test-game", 7, 11, false, time).unwrap()
}

/// Plays `mode` in `seat` by the time control `time` against the conforming
/// fixture (unhurried, so that it is never the one a busy machine makes
/// late) within `bound`, and checks the forfeit and the clean-up; returns the
/// record.
async fn forfeit(mode: &str, seat: Seat, time: TimeControl, bound: Duration, reason: Reason) -> GameRecord {
    let fixtures = Fixtures::new();
    let mut bad = fixtures.start(mode).await;
    let mut good = fixtures.start("first-free").await;
    let started = Instant::now();
    let (spec, first, second) = match seat {
        Seat::First => (game(time).with_seat_times(time, unhurried()), &mut bad, &mut good),
        Seat::Second => (game(time).with_seat_times(unhurried(), time), &mut good, &mut bad),
    };
    let record = tokio::time::timeout(bound, play_game(&spec, first, second, &mut |_| {}))
        .await
        .expect("the game ends within its bound");
    assert!(started.elapsed() < bound);
    assert_eq!(record.termination.reason, reason, "{record:#?}");
    let forfeit = record.termination.forfeit.as_ref().expect("a forfeit");
    assert_eq!((forfeit.bot.as_str(), forfeit.seat), (mode, seat));
    assert_eq!(record.result, Outcome::win_for(forfeit.color.opponent()));
    assert_eq!(record.points_of(seat.other()), 1.0);
    record.replay().expect("the record replays");
    assert!(!bad.is_reusable());
    assert!(good.is_reusable());
    bad.shutdown().await;
    good.shutdown().await;
    fixtures.assert_none_left();
    record
}

fn bound() -> Duration {
    Duration::from_secs(5)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_bot_times_out() {
    let record = forfeit("hang", Seat::First, move_time(MOVE_TIME), bound(), Reason::Timeout).await;
    let detail = &record.termination.forfeit.unwrap().detail;
    assert!(detail.contains("within 120 ms"), "{detail}");
    // It answered `hello` and `new_game`: it flushes, and the hint would mislead.
    assert!(!detail.contains("flush"), "{detail}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_after_the_deadline_is_a_timeout() {
    forfeit(
        "delay=300",
        Seat::Second,
        move_time(MOVE_TIME),
        bound(),
        Reason::Timeout,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_that_exits_at_the_start_disconnects() {
    let record = forfeit("exit-at-start", Seat::Second, unhurried(), bound(), Reason::Disconnect).await;
    assert!(record.moves.is_empty());
    let detail = record.termination.forfeit.unwrap().detail;
    assert!(detail.contains("exited with code 3"), "{detail}");
}

/// A crash is reported with its exit code or signal, every time: the
/// process closes its pipes a moment before it can be reaped, so each mode is
/// played often enough to meet that race (without the wait for the exit, 17
/// of 90 such games said "closed its stdout" on the development machine, so
/// 60 games miss the race with a chance of about 1 in 300,000).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_in_the_middle_of_a_game_names_its_exit_code_or_signal_every_time() {
    const RUNS: usize = 20;
    for (mode, words) in [
        ("crash", "was killed by signal 6 (SIGABRT"),
        ("segfault", "was killed by signal 11 (SIGSEGV"),
        ("exit-mid-game", "exited with code 3"),
    ] {
        for run in 0..RUNS {
            let record = forfeit(mode, Seat::First, unhurried(), bound(), Reason::Disconnect).await;
            assert_eq!(record.moves.len(), 4, "two moves each before the crash");
            let detail = record.termination.forfeit.unwrap().detail;
            assert!(detail.contains(words), "{mode}, run {run}: {detail}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_that_is_not_json_is_a_protocol_error() {
    let record = forfeit("non-json", Seat::First, unhurried(), bound(), Reason::ProtocolError).await;
    let forfeit = record.termination.forfeit.unwrap();
    assert_eq!(forfeit.line.as_deref(), Some("e4 please"));
    assert!(forfeit.detail.contains("not JSON"), "{}", forfeit.detail);
}

#[test]
fn a_line_of_100_mb_is_a_protocol_error_in_bounded_memory() {
    let fixtures = Fixtures::new();
    let (record, peak_kib) = fixtures.game_in_a_process("huge-line", "first-free");
    assert_eq!(record.termination.reason, Reason::ProtocolError, "{record:#?}");
    let forfeit = record.termination.forfeit.unwrap();
    assert_eq!((forfeit.bot.as_str(), forfeit.seat), ("huge-line", Seat::First));
    assert!(forfeit.detail.contains("longer than 65536 bytes"), "{}", forfeit.detail);
    assert!(forfeit.line.unwrap().starts_with("xxxx"));
    assert!(
        peak_kib < MEMORY_BOUND_KIB,
        "the referee's peak memory is {peak_kib} KiB"
    );
    fixtures.assert_none_left();
}

#[test]
fn a_stderr_flood_leaves_the_referees_memory_bounded() {
    let fixtures = Fixtures::new();
    let (record, peak_kib) = fixtures.game_in_a_process("stderr-flood", "first-free");
    assert_eq!(record.termination.reason, Reason::Normal, "{record:#?}");
    assert!(
        peak_kib < MEMORY_BOUND_KIB,
        "the referee's peak memory is {peak_kib} KiB"
    );
    fixtures.assert_none_left();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_that_never_reads_stdin_stalls() {
    forfeit("no-read", Seat::First, move_time(MOVE_TIME), bound(), Reason::Stall).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_stdin_is_a_disconnect_not_a_crash_of_the_referee() {
    let record = forfeit("closed-stdin", Seat::Second, unhurried(), bound(), Reason::Disconnect).await;
    let detail = record.termination.forfeit.unwrap().detail;
    assert!(detail.contains("closed its stdin"), "{detail}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grandchild_holding_the_pipes_is_killed_with_the_bot() {
    let fixtures_checked_inside =
        forfeit("fork-grandchild", Seat::First, unhurried(), bound(), Reason::Disconnect).await;
    let detail = fixtures_checked_inside.termination.forfeit.unwrap().detail;
    assert!(detail.contains("exited with code 0"), "{detail}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_and_stale_ids_are_protocol_errors() {
    for (mode, words) in [("wrong-id", "copy the request's id"), ("stale-id", "earlier request")] {
        let record = forfeit(mode, Seat::First, unhurried(), bound(), Reason::ProtocolError).await;
        let forfeit = record.termination.forfeit.unwrap();
        assert!(forfeit.detail.contains(words), "{}", forfeit.detail);
        assert_raw_line(forfeit.line.as_deref());
    }
}

/// The offending line is kept as the bot wrote it, its `info` and unknown
/// fields included (not re-encoded from the decoded message).
fn assert_raw_line(line: Option<&str>) {
    let line = line.expect("the offending line");
    assert!(line.ends_with(r#","info":{"comment":"mine"},"extra":[1]}"#), "{line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_answer_to_the_last_move_forfeits_before_game_over() {
    // 42 free cells: the second seat (Black, without the pie rule) plays the last stone.
    let record = forfeit(
        "twice-at-the-end",
        Seat::Second,
        unhurried(),
        bound(),
        Reason::ProtocolError,
    )
    .await;
    assert_eq!(
        record
            .moves
            .iter()
            .filter(|m| m.kind == pahtum_record::MoveKind::Stone)
            .count(),
        42,
        "the board is full: {record:#?}"
    );
    let forfeit = record.termination.forfeit.unwrap();
    assert!(
        forfeit.detail.contains("after the last move, before game_over"),
        "{}",
        forfeit.detail
    );
    assert!(forfeit.line.is_some_and(|line| line.starts_with(r#"{"type":"stone""#)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn occupied_blocked_and_off_board_cells_are_illegal() {
    for (mode, words) in [
        ("occupied", "occupied"),
        ("blocked", "blocked"),
        ("off-board", "\"h9\""),
    ] {
        let record = forfeit(mode, Seat::Second, unhurried(), bound(), Reason::IllegalMove).await;
        let forfeit = record.termination.forfeit.unwrap();
        assert!(forfeit.detail.contains(words), "{}", forfeit.detail);
        if mode == "off-board" {
            assert!(forfeit.line.is_some());
        } else {
            assert_raw_line(forfeit.line.as_deref());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_nobody_asked_for_are_protocol_errors() {
    let record = forfeit("chatty", Seat::First, unhurried(), bound(), Reason::ProtocolError).await;
    let forfeit = record.termination.forfeit.unwrap();
    assert_eq!(forfeit.line.as_deref(), Some("thinking about the next move..."));
    assert!(forfeit.detail.contains("answers no request"), "{}", forfeit.detail);
}

/// 100 ms of base time (plus the 20 ms margin) hold at most four answers of
/// 30 ms: every answer is charged to the clock, which runs out. How many fit
/// before it does depends on the machine's load; at least one does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_fischer_clock_is_a_timeout() {
    let clock = pahtum_protocol::fischer(Duration::from_millis(100), Duration::ZERO);
    let record = forfeit("delay=30", Seat::First, clock, bound(), Reason::Timeout).await;
    let moves = record.moves.iter().filter(|m| m.color == pahtum::Color::White).count();
    assert!(
        (1..=4).contains(&moves),
        "{moves} moves within 100 ms + 20 ms at 30 ms each"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_bot_fails_its_start_within_the_limit() {
    let fixtures = Fixtures::new();
    let limits = pahtum_referee::Limits {
        startup: Duration::from_millis(300),
        ..quick_limits()
    };
    let started = Instant::now();
    let error = Bot::start(&fixtures.spec("silent"), &limits, None).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2));
    match error {
        StartError::Handshake { failure, .. } => {
            assert_eq!(failure.reason, Reason::Stall);
            assert!(failure.detail.contains("flush"), "{failure}");
        }
        other => panic!("{other}"),
    }
    fixtures.assert_none_left();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_program_is_a_spawn_error() {
    let mut spec = Fixtures::new().spec("first-free");
    spec.program = "/nonexistent/bot".to_owned();
    let error = Bot::start(&spec, &quick_limits(), None).await.unwrap_err();
    assert!(matches!(error, StartError::Spawn { .. }), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stderr_flood_is_drained_and_capped() {
    let fixtures = Fixtures::new();
    let log = fixtures.path("flood.log");
    let limits = quick_limits();
    let mut flood = Bot::start(&fixtures.spec("stderr-flood"), &limits, Some(&log))
        .await
        .unwrap();
    let mut good = fixtures.start("first-free").await;
    let record = tokio::time::timeout(
        bound(),
        play_game(&game(unhurried()), &mut flood, &mut good, &mut |_| {}),
    )
    .await
    .expect("the game ends within its bound");
    assert_eq!(record.termination.reason, Reason::Normal, "{record:#?}");
    flood.shutdown().await;
    good.shutdown().await;
    let logged = std::fs::metadata(&log).unwrap().len();
    // The start-up and the game are capped separately.
    assert!(
        logged > limits.stderr_cap && logged < 3 * limits.stderr_cap,
        "{logged} bytes logged"
    );
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("[arena] stderr cut"), "the log says what was cut");
    fixtures.assert_none_left();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_that_ignores_sigterm_is_killed_after_the_grace() {
    let fixtures = Fixtures::new();
    let mut stubborn = fixtures.start("ignore-term").await;
    let mut good = fixtures.start("first-free").await;
    let record = play_game(&game(unhurried()), &mut stubborn, &mut good, &mut |_| {}).await;
    assert_eq!(record.termination.reason, Reason::Normal);
    let grace = quick_limits().quit_grace;
    let started = Instant::now();
    stubborn.shutdown().await;
    let took = started.elapsed();
    assert!(
        took >= 2 * grace && took < 2 * grace + Duration::from_secs(2),
        "{took:?}"
    );
    good.shutdown().await;
    fixtures.assert_none_left();
}

/// Fair mode: while the opponent thinks, a bot that burns CPU on every turn
/// is paused (frozen, or stopped where the machine has no cgroup freezer);
/// without fair mode it runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fair_mode_stops_a_bot_that_burns_cpu_on_the_opponents_time() {
    for pause_idle in [true, false] {
        let fixtures = Fixtures::new();
        let mut burner = fixtures.start("burner").await;
        let mut thinker = fixtures.start("delay=5").await;
        let burner_pid = burner.pid();
        let spec = GameSpec {
            pause_idle,
            ..game(unhurried())
        };
        let mut paused = Vec::new();
        let mut observe = |event: GameEvent| {
            if let GameEvent::Played { seat: Seat::Second, .. } = event {
                paused.push(settled_pause(burner_pid, pause_idle));
            }
        };
        let record = play_game(&spec, &mut burner, &mut thinker, &mut observe).await;
        assert_eq!(record.termination.reason, Reason::Normal, "{record:#?}");
        assert_eq!(paused.len(), 21);
        let stopped = paused.iter().filter(|&&paused| paused).count();
        assert_eq!(stopped, if pause_idle { 21 } else { 0 }, "{paused:?}");
        burner.shutdown().await;
        thinker.shutdown().await;
        fixtures.assert_none_left();
    }
}

/// Whether the burner is paused once a pause has had time to land: in fair
/// mode it is awaited for a bounded time (a SIGSTOP or a freeze takes effect
/// once the kernel has run the bot's threads into it, which on a busy
/// machine can wait). The observer runs inside the game's future, so the
/// wait is declared to the runtime as blocking.
fn settled_pause(pid: u32, expect_paused: bool) -> bool {
    if !expect_paused {
        return is_paused(pid);
    }
    tokio::task::block_in_place(|| poll(Duration::from_secs(1), || is_paused(pid).then_some(())).is_some())
}
