//! Telling an overloaded machine from a slow bot, when a wall clock runs out.
//!
//! On a busy machine (a compile beside a tournament, too many games at once)
//! a bot can lose on time without being slow: it waited for a CPU. A
//! wall-clock timeout is called *under overload* when the bot used less than
//! half the wall time in CPU (`cputime`, all its processes) and, for a bot
//! that has not answered, one of its processes was still waiting to run
//! (state `R`) at the deadline: a bot that sleeps or blocks is slow by its own
//! doing, not by the machine's.
//!
//! The referee's own lateness is not counted as evidence: when the referee
//! wakes late at a deadline and finds no answer, the bot had even longer and
//! still did not answer (and a bot that keeps every core busy delays the
//! referee itself).
//!
//! A genuinely slow bot, one that burns CPU past its limit, is never called
//! overloaded. A CPU-time clock (`clock = "cpu"`) needs none of this: what
//! the machine does beside the bot does not change what a move costs.

use std::time::Duration;

use crate::cputime;

/// What the referee saw at a wall-clock timeout.
#[derive(Debug, Clone, Copy)]
pub struct Evidence {
    /// The bot's CPU time over the answer, where measured.
    pub cpu: Option<Duration>,
    /// The wall time the answer took, or waited.
    pub wall: Duration,
    /// The bot's leader, to look for processes waiting to run; `None` for an
    /// answer that came (late): it no longer waits for anything.
    pub silent_pid: Option<u32>,
}

/// Why the timeout happened under overload, in words; `None` when the bot
/// was slow by itself (or the evidence is missing).
pub fn judge(evidence: Evidence) -> Option<String> {
    let cpu = evidence.cpu?;
    let waited_for_cpu = evidence.silent_pid.is_none_or(cputime::tree_is_runnable);
    (cpu * 2 < evidence.wall && waited_for_cpu).then(|| {
        format!(
            "the bot used {} of CPU in {}: the machine was overloaded",
            ms_with_separators(cpu),
            ms_with_separators(evidence.wall)
        )
    })
}

/// `12 ms`, `1,064 ms`: whole milliseconds, thousands separated.
fn ms_with_separators(duration: Duration) -> String {
    let digits = duration.as_millis().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out.push_str(" ms");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence(cpu_ms: u64, wall_ms: u64) -> Evidence {
        Evidence {
            cpu: Some(Duration::from_millis(cpu_ms)),
            wall: Duration::from_millis(wall_ms),
            silent_pid: None,
        }
    }

    #[test]
    fn a_starved_bot_is_overloaded_and_a_slow_one_is_not() {
        assert_eq!(
            judge(evidence(12, 1064)).as_deref(),
            Some("the bot used 12 ms of CPU in 1,064 ms: the machine was overloaded")
        );
        assert_eq!(judge(evidence(110, 120)), None);
        assert_eq!(
            judge(Evidence {
                cpu: None,
                ..evidence(0, 120)
            }),
            None
        );
    }

    #[test]
    fn milliseconds_read_well() {
        assert_eq!(ms_with_separators(Duration::from_micros(999_999)), "999 ms");
        assert_eq!(ms_with_separators(Duration::from_secs(1234)), "1,234,000 ms");
    }
}
