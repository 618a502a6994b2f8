//! Durations on the command line: `100ms`, `2s`, `1.5s`, `1m`, Fischer
//! clocks as `BASE+INCREMENT` (`10s+100ms`), and the time-control flags
//! built from them.

use std::time::Duration;

use pahtum_referee::TimeControl;
use pahtum_tournament::config;

/// The longest duration a flag takes: a day, the referee's limit of an answer without any limit.
const LONGEST: Duration = Duration::from_millis(pahtum_referee::UNLIMITED_MOVE_MS);

/// Parses `100ms`, `2s`, `1.5s` or `1m`: a limit, from 1 ms to a day.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let duration = parse_up_to_a_day(text)?;
    if duration < Duration::from_millis(1) {
        return Err(format!(
            "{text:?} is less than a millisecond: a limit must be at least 1ms"
        ));
    }
    Ok(duration)
}

/// Parses a tolerance or an increment, as [`parse_duration`] but 0 allowed (`0ms`).
pub fn parse_extra(text: &str) -> Result<Duration, String> {
    let duration = parse_up_to_a_day(text)?;
    if !duration.is_zero() && duration < Duration::from_millis(1) {
        return Err(format!(
            "{text:?} is less than a millisecond: write 0ms or at least 1ms"
        ));
    }
    Ok(duration)
}

fn parse_up_to_a_day(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(|| format!("{text:?} has no unit: write e.g. 100ms, 2s or 1m"))?;
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration: write e.g. 100ms, 2s or 1m"))?;
    let seconds = match unit {
        "ms" => number / 1000.0,
        "s" => number,
        "m" | "min" => number * 60.0,
        _ => return Err(format!("unknown unit {unit:?} in {text:?}: use ms, s or m")),
    };
    match Duration::try_from_secs_f64(seconds) {
        Ok(duration) if duration <= LONGEST => Ok(duration),
        _ => Err(format!(
            "{text:?} is longer than a day, the longest limit the referee keeps"
        )),
    }
}

/// Parses a Fischer clock `BASE+INCREMENT`, e.g. `10s+100ms` (`10s` alone
/// has no increment).
pub fn parse_clock(text: &str) -> Result<(Duration, Duration), String> {
    match text.split_once('+') {
        Some((base, increment)) => Ok((parse_duration(base)?, parse_extra(increment)?)),
        None => Ok((parse_duration(text)?, Duration::ZERO)),
    }
}

/// The time-control flags shared by `arena game` and `arena match`.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct TimeFlags {
    /// A limit per answer, e.g. 100ms or 2s [default: 1s without --clock].
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    move_time: Option<Duration>,
    /// A Fischer clock BASE+INCREMENT, e.g. 10s+100ms (with --move-time, the smaller limit applies).
    #[arg(long, value_name = "CLOCK", value_parser = parse_clock)]
    clock: Option<(Duration, Duration)>,
    /// The referee's tolerance beyond a limit before it calls a timeout.
    #[arg(long, value_name = "TIME", value_parser = parse_extra, default_value = "20ms")]
    margin: Duration,
}

impl TimeFlags {
    pub fn time_control(&self) -> TimeControl {
        let ms = |duration: Duration| duration.as_millis() as u64;
        TimeControl {
            move_ms: match (self.move_time, self.clock) {
                (None, None) => Some(config::DEFAULT_MOVE_MS),
                (limit, _) => limit.map(ms),
            },
            base_ms: self.clock.map(|(base, _)| ms(base)),
            increment_ms: self.clock.map_or(0, |(_, increment)| ms(increment)),
            margin_ms: ms(self.margin),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_clocks_parse() {
        assert_eq!(parse_duration("100ms"), Ok(Duration::from_millis(100)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("100").unwrap_err().contains("no unit"));
        assert!(parse_duration("1h").unwrap_err().contains("unknown unit"));
        assert_eq!(
            parse_clock("10s+100ms"),
            Ok((Duration::from_secs(10), Duration::from_millis(100)))
        );
        assert_eq!(parse_clock("10s"), Ok((Duration::from_secs(10), Duration::ZERO)));
    }

    #[test]
    fn zero_tiny_and_huge_durations_are_refused_with_a_reason() {
        for tiny in ["0ms", "0s", "0.5ms", "0.0001s"] {
            assert!(
                parse_duration(tiny).unwrap_err().contains("less than a millisecond"),
                "{tiny}"
            );
        }
        let beyond_f64 = format!("{}s", "9".repeat(400));
        for huge in [beyond_f64.as_str(), "99999999999999999999999999m", "1441m", "86400.5s"] {
            assert!(
                parse_duration(huge).unwrap_err().contains("longer than a day"),
                "{huge}"
            );
        }
        assert_eq!(parse_duration("1440m"), Ok(Duration::from_secs(86_400)));
        assert_eq!(parse_extra("0ms"), Ok(Duration::ZERO));
        assert!(parse_extra("0.2ms").is_err());
        assert_eq!(parse_clock("1s+0ms"), Ok((Duration::from_secs(1), Duration::ZERO)));
        assert!(parse_clock("0s+1ms").is_err());
    }
}
