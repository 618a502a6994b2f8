//! The engine keeps to its time plan: every answer of whole games at 10 ms
//! per move, and of a game on a short Fischer clock, fits its limit once the
//! search has stopped at the deadline the engine planned.
//!
//! What an answer costs is measured as the CPU time of the thread that
//! answers: unlike wall time, it does not grow while a loaded machine keeps
//! the thread waiting, so the bounds hold on any machine, and they still fail
//! when a search works on past its deadline (on an idle machine CPU time and
//! wall time agree). Wall time only gets a sanity bound, ten times the limits
//! over a game, which catches an engine that blocks or sleeps. How late
//! answers arrive through the pipes of a loaded machine is for the referee's
//! benchmark and the tournaments.
//!
//! The tests are serialized: each holds [`SERIAL`] from its first line to its
//! end, so that the two never search at once. Two searches side by side would
//! share the machine's cores, and what the tests measure, the CPU time of each
//! answer against its limit and the wall time of a game against the sanity
//! bound, would then depend on the other test as well as on the engine. A
//! failing test poisons the lock; the next takes it anyway (`into_inner`), so
//! that one failure does not fail the other. Every test of this file takes
//! `SERIAL`, so nothing else of this test binary runs beside one of them (a new
//! test here must take it too). The rest of the suite stays off their cores
//! because `cargo test` runs the test binaries one after another: the tests of
//! other binaries (the engine's unit tests, its protocol tests, other crates,
//! the doc-tests) run before or after this binary, never during it. A runner
//! that runs several binaries at once (`cargo nextest`) gives no such
//! guarantee.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use pahtum::{Action, Game, Seat};
use pahtum_engine::{Engine, Options};
use pahtum_protocol::Clock;
use pahtum_protocol::bot::Player;

/// One test of this binary at a time (see the module documentation).
static SERIAL: Mutex<()> = Mutex::new(());

/// This test's turn: [`SERIAL`], even if a failed test poisoned it.
fn turn() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn engine(seed: u64) -> Engine {
    Engine::from_args(&["--seed".to_owned(), seed.to_string()]).unwrap()
}

/// The CPU time the calling thread has used.
fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `now` is a valid timespec for the call to write into.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    assert_eq!(status, 0, "the thread's CPU clock is readable");
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// The answers of a game: the CPU time of each, and the wall time of all of
/// them for the sanity bound.
#[derive(Default)]
struct Answers {
    wall: Duration,
    limits: Duration,
}

impl Answers {
    /// An answer of `player` and the CPU time it cost.
    fn of(&mut self, player: &mut Engine, game: &Game, clock: &Clock) -> (Action, Duration) {
        let (cpu, wall) = (thread_cpu_time(), Instant::now());
        let (action, _) = player.choose(game, clock);
        self.wall += wall.elapsed();
        self.limits += Duration::from_millis(clock.timeout_ms);
        (action, thread_cpu_time() - cpu)
    }

    /// The sanity bound: all the answers took at most ten times the sum of
    /// their limits in wall time. Summed over the game, so that the moments
    /// a busy machine stops the thread for do not count for much.
    fn assert_sane(&self) {
        assert!(
            self.wall <= 10 * self.limits,
            "the answers took {:?} of wall time, with {:?} of limits",
            self.wall,
            self.limits
        );
    }
}

/// At 10 ms per move the engine plans 5.5 ms for every answer; the other
/// 4.5 ms of the limit bound the stopping, the work from the deadline to the
/// answer (up to the next read of the clock), which in a debug build on a busy
/// machine has been seen to take up to about 2 ms of CPU time.
#[test]
fn every_answer_stops_by_its_planned_think_time() {
    let _turn = turn();
    let clock = Clock::per_move(10);
    let limit = Duration::from_millis(clock.timeout_ms);
    // A per-move limit plans the same think time for every answer.
    let think = Options::parse_args(&[]).unwrap().plan().think_time(&clock, 1);
    assert!(
        think + Duration::from_millis(4) <= limit,
        "the plan keeps 4 ms of the limit for stopping and the pipes: {think:?}"
    );
    for (seed, blocks) in [(1, 5), (2, 13)] {
        let mut game = Game::with_blocks(pahtum::setup::random_blocks(blocks, seed).unwrap(), true).unwrap();
        let mut players = [engine(seed), engine(seed + 100)];
        let mut answers = Answers::default();
        while let Some(seat) = game.seat_to_act() {
            let (action, cpu) = answers.of(&mut players[seat.index()], &game, &clock);
            assert!(
                cpu <= limit,
                "{action} used {cpu:?} of CPU time, planned {think:?}, with {} free cells",
                game.position().free().len()
            );
            game.play(action).unwrap();
        }
        answers.assert_sane();
    }
}

/// Each seat's clock is charged the CPU time of its answers, and gains the
/// increment after each.
#[test]
fn a_fischer_clock_is_never_overdrawn() {
    let _turn = turn();
    let (base, increment) = (Duration::from_millis(400), Duration::from_millis(5));
    let mut game = Game::with_blocks(pahtum::setup::random_blocks(7, 3).unwrap(), true).unwrap();
    let mut players = [engine(1), engine(2)];
    let mut remaining = [base; 2];
    let mut answers = Answers::default();
    let ms = |time: Duration| time.as_millis() as u64;
    while let Some(seat) = game.seat_to_act() {
        let me = seat.index();
        let clock = Clock {
            remaining_ms: Some(ms(remaining[me])),
            opponent_ms: Some(ms(remaining[1 - me])),
            increment_ms: ms(increment),
            move_ms: None,
            timeout_ms: ms(remaining[me]),
            kind: pahtum_protocol::ClockKind::Wall,
        };
        let (action, cpu) = answers.of(&mut players[me], &game, &clock);
        remaining[me] = remaining[me]
            .checked_sub(cpu)
            .filter(|left| !left.is_zero())
            .unwrap_or_else(|| panic!("{seat:?} ran out of time at {action}"))
            + increment;
        game.play(action).unwrap();
    }
    answers.assert_sane();
    // Both seats thought: neither answered instantly all game long.
    let total = 2 * (base + 25 * increment);
    assert!(remaining.iter().sum::<Duration>() < total, "{remaining:?}");
    assert_eq!(game.seat_to_act(), None::<Seat>);
}
