//! Waiting for a condition with a deadline, instead of sleeping for a guessed
//! time: the test goes on as soon as the condition holds, and fails, saying
//! what it waited for, when it never does.

use std::time::{Duration, Instant};

/// How long [`wait_for`] sleeps between two looks: short, so that the test
/// goes on soon after the condition holds, and a sleep, so that the
/// processes it waits for get the processor.
const EVERY: Duration = Duration::from_millis(5);

/// Polls `condition` until it holds; panics with "timed out after
/// `within` waiting until `what`" if it still does not when `within` has
/// passed (`what` says what was awaited: "the bot has exited").
#[track_caller]
pub fn wait_until(what: &str, within: Duration, mut condition: impl FnMut() -> bool) {
    wait_for(what, within, || condition().then_some(()));
}

/// Polls `probe` until it gives a value, and returns it; panics as
/// [`wait_until`] does if it gives none within `within`.
#[track_caller]
pub fn wait_for<T>(what: &str, within: Duration, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + within;
    loop {
        if let Some(value) = probe() {
            return value;
        }
        if Instant::now() >= deadline {
            panic!("timed out after {within:?} waiting until {what}");
        }
        std::thread::sleep(EVERY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_as_soon_as_the_condition_holds() {
        let start = Instant::now();
        let mut looks = 0;
        wait_until("the third look", Duration::from_secs(10), || {
            looks += 1;
            looks == 3
        });
        assert_eq!(looks, 3);
        assert!(start.elapsed() < Duration::from_secs(5));
        assert_eq!(wait_for("a value", Duration::ZERO, || Some(7)), 7);
    }

    #[test]
    #[should_panic(expected = "waiting until the pigs fly")]
    fn says_what_it_awaited_when_the_deadline_passes() {
        wait_until("the pigs fly", Duration::from_millis(20), || false);
    }
}
