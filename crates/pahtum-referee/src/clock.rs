//! The game clock of each seat.
//!
//! What an answer costs (`protocol.md`, Time): the time from just before the
//! referee writes the request (one write call) to the return of the read that
//! brings the answer's newline, on a monotonic clock. `Bot::exchange` takes
//! the first instant and the line reader the second, with no work between the
//! read and its timestamp. The clock starts before the write because a bot
//! woken by the request may run, and answer, before the write call returns;
//! decoding and checking the answer and preparing the next request are off
//! the clock.
//!
//! A per-move limit is fresh for each answer; a Fischer clock loses the time
//! an answer took and then gains the increment; with both, an answer may take
//! the smaller of the two. The margin is the referee's tolerance on top: an
//! answer is late when it took longer than its limit plus the margin.
//!
//! A CPU-time clock (`clock = "cpu"`) measures the same span in the CPU time
//! of all the bot's processes (`cputime`), so that what else the machine runs
//! does not change what a move costs. The referee still needs a wall-time
//! bound to stop waiting for a bot that sleeps or blocks: the wall cap, three
//! times the limit plus a second ([`Budget::wall_cap`]).
//!
//! Each seat has a time control of its own (a tournament may give a bot more
//! or less time than its opponent), and everything about a seat's clock, its
//! limits, increment and margin, comes from that seat's control; a request
//! shows the bot its own control and both remaining times. Clocks belong to
//! seats, so a pie swap moves the colours, not the clocks.

use std::time::Duration;

use pahtum::Seat;
use pahtum_protocol::{Clock, ClockKind, TimeControl, UNLIMITED_MOVE_MS};

/// Both seats' clocks.
#[derive(Debug, Clone)]
pub(crate) struct Clocks {
    /// The time control per seat.
    time: [TimeControl; 2],
    /// Fischer time left per seat.
    remaining: [Option<Duration>; 2],
}

impl Clocks {
    /// The clocks at the start of a game, each seat by its own time control.
    pub(crate) fn new(first: TimeControl, second: TimeControl) -> Clocks {
        let base = |time: TimeControl| time.base_ms.map(Duration::from_millis);
        Clocks {
            time: [first, second],
            remaining: [base(first), base(second)],
        }
    }

    /// How long the next answer of `seat` may take, margin excluded.
    pub(crate) fn limit(&self, seat: Seat) -> Duration {
        let per_move = self.time[seat.index()].move_ms.map(Duration::from_millis);
        match (self.remaining[seat.index()], per_move) {
            (Some(remaining), Some(per_move)) => remaining.min(per_move),
            (Some(limit), None) | (None, Some(limit)) => limit,
            (None, None) => Duration::from_millis(UNLIMITED_MOVE_MS),
        }
    }

    /// The limit plus the seat's margin: an answer that takes longer is late.
    pub(crate) fn limit_with_margin(&self, seat: Seat) -> Duration {
        self.limit(seat) + Duration::from_millis(self.time[seat.index()].margin_ms)
    }

    /// What the next answer of `seat` may cost, and on which clock.
    pub(crate) fn budget(&self, seat: Seat) -> Budget {
        Budget {
            limit: self.limit_with_margin(seat),
            kind: self.time[seat.index()].clock,
        }
    }

    /// The clock as the request to `seat` shows it: its own control and
    /// remaining time, and its opponent's remaining time.
    pub(crate) fn clock(&self, seat: Seat) -> Clock {
        let own = self.time[seat.index()];
        let remaining = self.remaining_ms();
        Clock {
            remaining_ms: remaining[seat.index()],
            opponent_ms: remaining[seat.other().index()],
            increment_ms: own.increment_ms,
            move_ms: own.move_ms,
            timeout_ms: self.limit(seat).as_millis() as u64,
            kind: own.clock,
        }
    }

    /// Each seat's Fischer time left, by seat, in milliseconds.
    pub(crate) fn remaining_ms(&self) -> [Option<u64>; 2] {
        self.remaining
            .map(|remaining| remaining.map(|left| left.as_millis() as u64))
    }

    /// Charges an answer in time (not late) to `seat`'s Fischer clock.
    pub(crate) fn charge(&mut self, seat: Seat, elapsed: Duration) {
        let increment = Duration::from_millis(self.time[seat.index()].increment_ms);
        if let Some(remaining) = &mut self.remaining[seat.index()] {
            *remaining = remaining.saturating_sub(elapsed) + increment;
        }
    }
}

/// What an answer may cost: its limit (margin included) on its clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Budget {
    /// An answer that costs more is late.
    pub limit: Duration,
    pub kind: ClockKind,
}

/// The wall cap of a CPU-time clock: `WALL_CAP_FACTOR` times the limit plus `WALL_CAP_EXTRA`.
const WALL_CAP_FACTOR: u32 = 3;
const WALL_CAP_EXTRA: Duration = Duration::from_secs(1);

impl Budget {
    /// A limit in wall time (the handshake, `ready`, `pong`, and wall clocks).
    pub(crate) fn wall(limit: Duration) -> Budget {
        Budget {
            limit,
            kind: ClockKind::Wall,
        }
    }

    /// How long the referee waits, in wall time, for the answer: the limit on
    /// a wall clock; on a CPU-time clock three times the limit plus a second,
    /// so that a bot that sleeps or blocks still times out.
    pub(crate) fn wall_cap(&self) -> Duration {
        match self.kind {
            ClockKind::Wall => self.limit,
            ClockKind::Cpu => self.limit.saturating_mul(WALL_CAP_FACTOR) + WALL_CAP_EXTRA,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn time(move_ms: Option<u64>, base_ms: Option<u64>, increment_ms: u64) -> TimeControl {
        TimeControl {
            move_ms,
            base_ms,
            increment_ms,
            margin_ms: 20,
            clock: ClockKind::Wall,
        }
    }

    #[test]
    fn fischer_subtracts_then_adds_the_increment() {
        let fischer = time(None, Some(1000), 100);
        let mut clocks = Clocks::new(fischer, fischer);
        clocks.charge(Seat::First, Duration::from_millis(300));
        assert_eq!(clocks.limit(Seat::First), Duration::from_millis(800));
        assert_eq!(clocks.limit(Seat::Second), Duration::from_millis(1000));
        let clock = clocks.clock(Seat::Second);
        assert_eq!((clock.remaining_ms, clock.opponent_ms), (Some(1000), Some(800)));
        clocks.charge(Seat::First, Duration::from_millis(810));
        assert_eq!(clocks.limit(Seat::First), Duration::from_millis(100));
    }

    #[test]
    fn the_smaller_limit_applies_and_the_margin_is_added() {
        let both = time(Some(500), Some(1000), 0);
        let mut clocks = Clocks::new(both, both);
        assert_eq!(clocks.limit(Seat::First), Duration::from_millis(500));
        clocks.charge(Seat::First, Duration::from_millis(700));
        assert_eq!(clocks.limit(Seat::First), Duration::from_millis(300));
        assert_eq!(clocks.limit_with_margin(Seat::First), Duration::from_millis(320));
        assert_eq!(clocks.clock(Seat::First).timeout_ms, 300);
        let unlimited = Clocks::new(time(None, None, 0), time(None, None, 0));
        assert_eq!(unlimited.clock(Seat::First).timeout_ms, UNLIMITED_MOVE_MS);
    }

    #[test]
    fn each_seat_keeps_its_own_control_and_sees_both_clocks() {
        let first = TimeControl {
            margin_ms: 5,
            ..time(Some(250), Some(4000), 50)
        };
        let second = time(None, Some(16_000), 200);
        let mut clocks = Clocks::new(first, second);
        assert_eq!(clocks.limit(Seat::First), Duration::from_millis(250));
        assert_eq!(clocks.limit_with_margin(Seat::First), Duration::from_millis(255));
        assert_eq!(clocks.limit_with_margin(Seat::Second), Duration::from_millis(16_020));
        clocks.charge(Seat::First, Duration::from_millis(200));
        clocks.charge(Seat::Second, Duration::from_millis(1000));
        assert_eq!(
            clocks.clock(Seat::First),
            Clock {
                remaining_ms: Some(3850),
                opponent_ms: Some(15_200),
                increment_ms: 50,
                move_ms: Some(250),
                timeout_ms: 250,
                kind: ClockKind::Wall,
            }
        );
        assert_eq!(
            clocks.clock(Seat::Second),
            Clock {
                remaining_ms: Some(15_200),
                opponent_ms: Some(3850),
                increment_ms: 200,
                move_ms: None,
                timeout_ms: 15_200,
                kind: ClockKind::Wall,
            }
        );
    }

    #[test]
    fn a_cpu_clock_shows_its_kind_and_caps_the_wall_time() {
        let cpu = TimeControl {
            clock: ClockKind::Cpu,
            ..time(Some(100), None, 0)
        };
        let clocks = Clocks::new(cpu, time(Some(100), None, 0));
        let budget = clocks.budget(Seat::First);
        assert_eq!(budget.limit, Duration::from_millis(120));
        assert_eq!(budget.wall_cap(), Duration::from_millis(1360));
        assert_eq!(clocks.clock(Seat::First).kind, ClockKind::Cpu);
        assert_eq!(clocks.budget(Seat::Second).wall_cap(), Duration::from_millis(120));
    }

    /// The clocks are kept by seat: a game's pie swap (which gives the first
    /// seat Black) changes nothing here, and a seat's next answer is charged
    /// and limited by its own control whatever colour it now plays.
    #[test]
    fn a_swap_leaves_each_bot_its_own_clock() {
        let mut game = pahtum::Game::with_blocks(pahtum::setup::random_blocks(7, 1).unwrap(), true).unwrap();
        let hurried = time(Some(100), Some(1000), 0);
        let patient = time(Some(2000), Some(30_000), 0);
        let mut clocks = Clocks::new(hurried, patient);
        game.play(game.legal_moves()[0]).unwrap();
        clocks.charge(Seat::First, Duration::from_millis(60));
        game.play(pahtum::Action::Pie(true)).unwrap();
        clocks.charge(Seat::Second, Duration::from_millis(500));
        assert_eq!(game.color_of(Seat::First), pahtum::Color::Black);
        let seat = game.seat_to_act().unwrap();
        assert_eq!(seat, Seat::First, "Black, now the first seat, plays next");
        let clock = clocks.clock(seat);
        assert_eq!(
            (clock.remaining_ms, clock.opponent_ms, clock.move_ms, clock.timeout_ms),
            (Some(940), Some(29_500), Some(100), 100)
        );
    }
}
