//! How long to think: the time plan for one answer.
//!
//! The referee times an answer from writing the request to reading the reply,
//! so the engine's own clock (started when the request has been decoded) sees
//! less than the referee does: pipes, the process's scheduling on a busy
//! machine and the JSON on both sides take their share. The plan therefore
//! uses only a fraction of the time it is given and keeps a few milliseconds
//! back on top, and it never counts on the referee's margin.
//!
//! * A per-move limit: a share of `timeout_ms`.
//! * A Fischer clock: the remaining time spread over the engine's remaining
//!   moves (half the free cells), plus most of the increment, and never more
//!   than `timeout_ms` allows.
//! * No clock at all: a fixed default think time.
//!
//! The plan is what a search may use, not what it must: with a game clock the
//! tree search stops as soon as the remaining time cannot change its choice
//! (see [`pahtum_search::mcts`]), so decided positions cost little and the time goes
//! to unclear ones; under a per-move limit, where time saved is lost, it
//! uses its plan. The exact endgame stops when solved.

use std::time::Duration;

use pahtum_protocol::Clock;

/// The parameters of the plan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// The share of the allowed time that the engine may use.
    pub share: f64,
    /// Milliseconds kept back for the process and the pipes.
    pub overhead_ms: u64,
    /// Think time when there is no clock, in milliseconds.
    pub unlimited_ms: u64,
}

/// The shortest think time: below it a search cannot even start usefully, but
/// an answer is still produced (the knowledge's move).
const FLOOR: Duration = Duration::from_micros(500);

impl Plan {
    /// The think time for an answer with `clock`, when the engine still has
    /// `moves_left` moves to make in the game (this one included).
    pub fn think_time(&self, clock: &Clock, moves_left: u32) -> Duration {
        let limit = clock.timeout_ms as f64;
        let wanted = match (clock.remaining_ms, clock.move_ms) {
            (Some(remaining), _) => {
                let increment = clock.increment_ms as f64;
                remaining as f64 / f64::from(moves_left.max(1)) + 0.8 * increment
            }
            (None, Some(_)) => limit,
            (None, None) => self.unlimited_ms as f64,
        };
        let usable = wanted.min(limit) * self.share - self.overhead_ms as f64;
        Duration::from_micros((usable * 1000.0).max(0.0).round() as u64).max(FLOOR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: Plan = Plan {
        share: 0.7,
        overhead_ms: 3,
        unlimited_ms: 1000,
    };

    #[test]
    fn a_per_move_limit_keeps_a_share_and_the_overhead_back() {
        assert_eq!(PLAN.think_time(&Clock::per_move(100), 20), Duration::from_millis(67));
        assert_eq!(PLAN.think_time(&Clock::per_move(10), 20), Duration::from_millis(4));
        assert_eq!(PLAN.think_time(&Clock::per_move(1), 20), FLOOR);
    }

    #[test]
    fn a_fischer_clock_is_spread_over_the_moves_left() {
        let clock = Clock {
            remaining_ms: Some(10_000),
            opponent_ms: Some(10_000),
            increment_ms: 100,
            move_ms: None,
            timeout_ms: 10_000,
            kind: pahtum_protocol::ClockKind::Wall,
        };
        // 10 s over 20 moves plus 80 ms of the increment, times 0.7, minus 3 ms.
        assert_eq!(PLAN.think_time(&clock, 20), Duration::from_millis(403));
        // Nearly out of time: the per-answer timeout caps the plan.
        let short = Clock {
            remaining_ms: Some(50),
            timeout_ms: 50,
            ..clock
        };
        assert!(PLAN.think_time(&short, 1) <= Duration::from_millis(32));
    }

    #[test]
    fn no_clock_uses_the_default() {
        let clock = Clock {
            remaining_ms: None,
            opponent_ms: None,
            increment_ms: 0,
            move_ms: None,
            timeout_ms: u64::MAX,
            kind: pahtum_protocol::ClockKind::Wall,
        };
        assert_eq!(PLAN.think_time(&clock, 20), Duration::from_millis(697));
    }
}
