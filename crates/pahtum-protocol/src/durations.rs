//! Durations as a person types them: `100ms`, `2s`, `1.5s`, `1m`, and Fischer
//! clocks as `BASE+INCREMENT` (`10s+100ms`); and what a clock measures,
//! `wall` or `cpu`. A limit is from 1 ms to a day ([`UNLIMITED_MOVE_MS`], the
//! referee's longest); a tolerance or an increment may also be 0. Each error
//! says what was typed, what is wrong and what to write instead.

use std::num::ParseFloatError;
use std::time::Duration;

use crate::time::{ClockKind, UNLIMITED_MOVE_MS};

/// The longest duration: a day, the referee's limit of an answer without any limit.
const LONGEST: Duration = Duration::from_millis(UNLIMITED_MOVE_MS);

/// Why a text is not a duration that a limit, a tolerance or a clock takes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// A number without a unit.
    #[error("{text:?} has no unit: write e.g. 100ms, 2s or 1m")]
    NoUnit {
        /// The text, trimmed.
        text: String,
    },
    /// What comes before the unit is not a number.
    #[error("{text:?} is not a duration: write e.g. 100ms, 2s or 1m")]
    NotANumber {
        /// The text, trimmed.
        text: String,
        /// Why the number does not parse.
        #[source]
        number: ParseFloatError,
    },
    /// A unit other than `ms`, `s`, `m` or `min`.
    #[error("unknown unit {unit:?} in {text:?}: use ms, s or m")]
    UnknownUnit {
        /// The unit.
        unit: String,
        /// The text, trimmed.
        text: String,
    },
    /// More than a day (or more than any duration).
    #[error("{text:?} is longer than a day, the longest limit the referee keeps")]
    LongerThanADay {
        /// The text, trimmed.
        text: String,
    },
    /// A limit under a millisecond, 0 included.
    #[error("{text:?} is less than a millisecond: a limit must be at least 1ms")]
    LimitUnderAMillisecond {
        /// The text as given.
        text: String,
    },
    /// A tolerance or an increment above 0 but under a millisecond.
    #[error("{text:?} is less than a millisecond: write 0ms or at least 1ms")]
    UnderAMillisecond {
        /// The text as given.
        text: String,
    },
}

/// Why a text is not a kind of clock.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a kind of clock: use wall (wall time) or cpu (the CPU time of the bot's processes)")]
pub struct ClockKindError {
    /// The text, trimmed.
    pub text: String,
}

/// Parses `100ms`, `2s`, `1.5s` or `1m`: a limit, from 1 ms to a day.
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let duration = parse_up_to_a_day(text)?;
    if duration < Duration::from_millis(1) {
        return Err(DurationError::LimitUnderAMillisecond { text: text.to_owned() });
    }
    Ok(duration)
}

/// Parses a tolerance or an increment, as [`parse_duration`] but 0 allowed (`0ms`).
pub fn parse_extra(text: &str) -> Result<Duration, DurationError> {
    let duration = parse_up_to_a_day(text)?;
    if !duration.is_zero() && duration < Duration::from_millis(1) {
        return Err(DurationError::UnderAMillisecond { text: text.to_owned() });
    }
    Ok(duration)
}

fn parse_up_to_a_day(text: &str) -> Result<Duration, DurationError> {
    let text = text.trim();
    let owned = || text.to_owned();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(|| DurationError::NoUnit { text: owned() })?;
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|number| DurationError::NotANumber { text: owned(), number })?;
    let seconds = match unit {
        "ms" => number / 1000.0,
        "s" => number,
        "m" | "min" => number * 60.0,
        _ => {
            return Err(DurationError::UnknownUnit {
                unit: unit.to_owned(),
                text: owned(),
            });
        }
    };
    match Duration::try_from_secs_f64(seconds) {
        Ok(duration) if duration <= LONGEST => Ok(duration),
        _ => Err(DurationError::LongerThanADay { text: owned() }),
    }
}

/// Parses a Fischer clock `BASE+INCREMENT`, e.g. `10s+100ms` (`10s` alone
/// has no increment): the base and the increment.
pub fn parse_clock(text: &str) -> Result<(Duration, Duration), DurationError> {
    match text.split_once('+') {
        Some((base, increment)) => Ok((parse_duration(base)?, parse_extra(increment)?)),
        None => Ok((parse_duration(text)?, Duration::ZERO)),
    }
}

/// Parses `wall` or `cpu`.
pub fn parse_clock_kind(text: &str) -> Result<ClockKind, ClockKindError> {
    match text.trim() {
        "wall" => Ok(ClockKind::Wall),
        "cpu" => Ok(ClockKind::Cpu),
        other => Err(ClockKindError { text: other.to_owned() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal<T: std::fmt::Debug>(parsed: Result<T, impl std::fmt::Display>) -> String {
        parsed.unwrap_err().to_string()
    }

    #[test]
    fn durations_and_clocks_parse() {
        assert_eq!(parse_duration("100ms"), Ok(Duration::from_millis(100)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration(" 3min "), Ok(Duration::from_secs(180)));
        assert!(refusal(parse_duration("100")).contains("no unit"));
        assert!(refusal(parse_duration("1h")).contains("unknown unit"));
        assert_eq!(
            refusal(parse_duration(" 1.2.3s")),
            "\"1.2.3s\" is not a duration: write e.g. 100ms, 2s or 1m"
        );
        assert_eq!(
            parse_clock("10s+100ms"),
            Ok((Duration::from_secs(10), Duration::from_millis(100)))
        );
        assert_eq!(parse_clock("10s"), Ok((Duration::from_secs(10), Duration::ZERO)));
    }

    /// The number that does not parse is the cause, not repeated in the message.
    #[test]
    fn a_bad_number_is_the_cause() {
        let error = parse_duration("..ms").unwrap_err();
        let cause = std::error::Error::source(&error).expect("a cause").to_string();
        assert_eq!(cause, "invalid float literal");
        assert!(!error.to_string().contains(&cause), "{error}");
    }

    #[test]
    fn zero_tiny_and_huge_durations_are_refused_with_a_reason() {
        for tiny in ["0ms", "0s", "0.5ms", "0.0001s"] {
            assert!(
                refusal(parse_duration(tiny)).contains("less than a millisecond"),
                "{tiny}"
            );
        }
        let beyond_f64 = format!("{}s", "9".repeat(400));
        for huge in [beyond_f64.as_str(), "99999999999999999999999999m", "1441m", "86400.5s"] {
            assert!(refusal(parse_duration(huge)).contains("longer than a day"), "{huge}");
        }
        assert_eq!(parse_duration("1440m"), Ok(Duration::from_secs(86_400)));
        assert_eq!(parse_extra("0ms"), Ok(Duration::ZERO));
        assert!(parse_extra("0.2ms").is_err());
        assert_eq!(parse_clock("1s+0ms"), Ok((Duration::from_secs(1), Duration::ZERO)));
        assert!(parse_clock("0s+1ms").is_err());
        assert_eq!(
            refusal(parse_duration(" 0ms")),
            "\" 0ms\" is less than a millisecond: a limit must be at least 1ms"
        );
        assert_eq!(
            refusal(parse_extra("0.5ms")),
            "\"0.5ms\" is less than a millisecond: write 0ms or at least 1ms"
        );
    }

    #[test]
    fn clock_kinds_are_wall_or_cpu() {
        assert_eq!(parse_clock_kind(" cpu"), Ok(ClockKind::Cpu));
        assert_eq!(parse_clock_kind("wall"), Ok(ClockKind::Wall));
        assert_eq!(
            refusal(parse_clock_kind("thread")),
            "\"thread\" is not a kind of clock: use wall (wall time) or cpu (the CPU time of the bot's processes)"
        );
    }
}
