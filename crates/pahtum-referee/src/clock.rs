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
//! answer is late when it took longer than its limit plus the margin. Clocks
//! belong to seats, so a pie swap moves the colours, not the clocks.

use std::time::Duration;

use pahtum::Seat;
use pahtum_protocol::{Clock, TimeControl};

use crate::spec::UNLIMITED_MOVE_MS;

/// Both seats' clocks.
#[derive(Debug, Clone)]
pub(crate) struct Clocks {
    time: TimeControl,
    /// Fischer time left per seat.
    remaining: [Option<Duration>; 2],
}

impl Clocks {
    pub(crate) fn new(time: TimeControl) -> Clocks {
        let base = time.base_ms.map(Duration::from_millis);
        Clocks {
            time,
            remaining: [base; 2],
        }
    }

    /// How long the next answer of `seat` may take, margin excluded.
    pub(crate) fn limit(&self, seat: Seat) -> Duration {
        let per_move = self.time.move_ms.map(Duration::from_millis);
        match (self.remaining[seat.index()], per_move) {
            (Some(remaining), Some(per_move)) => remaining.min(per_move),
            (Some(limit), None) | (None, Some(limit)) => limit,
            (None, None) => Duration::from_millis(UNLIMITED_MOVE_MS),
        }
    }

    /// The limit plus the margin: an answer that takes longer is late.
    pub(crate) fn limit_with_margin(&self, seat: Seat) -> Duration {
        self.limit(seat) + Duration::from_millis(self.time.margin_ms)
    }

    /// The clock as the request to `seat` shows it.
    pub(crate) fn clock(&self, seat: Seat) -> Clock {
        let ms = |duration: Option<Duration>| duration.map(|d| d.as_millis() as u64);
        Clock {
            remaining_ms: ms(self.remaining[seat.index()]),
            opponent_ms: ms(self.remaining[seat.other().index()]),
            increment_ms: self.time.increment_ms,
            move_ms: self.time.move_ms,
            timeout_ms: self.limit(seat).as_millis() as u64,
        }
    }

    /// Charges an answer in time (not late) to `seat`'s Fischer clock.
    pub(crate) fn charge(&mut self, seat: Seat, elapsed: Duration) {
        if let Some(remaining) = &mut self.remaining[seat.index()] {
            *remaining = remaining.saturating_sub(elapsed) + Duration::from_millis(self.time.increment_ms);
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
        }
    }

    #[test]
    fn fischer_subtracts_then_adds_the_increment() {
        let mut clocks = Clocks::new(time(None, Some(1000), 100));
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
        let mut clocks = Clocks::new(time(Some(500), Some(1000), 0));
        assert_eq!(clocks.limit(Seat::First), Duration::from_millis(500));
        clocks.charge(Seat::First, Duration::from_millis(700));
        assert_eq!(clocks.limit(Seat::First), Duration::from_millis(300));
        assert_eq!(clocks.limit_with_margin(Seat::First), Duration::from_millis(320));
        assert_eq!(clocks.clock(Seat::First).timeout_ms, 300);
        let unlimited = Clocks::new(time(None, None, 0));
        assert_eq!(unlimited.clock(Seat::First).timeout_ms, UNLIMITED_MOVE_MS);
    }
}
