//! Durations on the command line: `100ms`, `2s`, `1.5s`, `1m`, Fischer
//! clocks as `BASE+INCREMENT` (`10s+100ms`), and the time-control flags
//! built from them.

use std::time::Duration;

use pahtum_referee::TimeControl;
use pahtum_tournament::config;

/// Parses `100ms`, `2s`, `1.5s` or `1m`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
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
    Ok(Duration::from_secs_f64(seconds))
}

/// Parses a Fischer clock `BASE+INCREMENT`, e.g. `10s+100ms` (`10s` alone
/// has no increment).
pub fn parse_clock(text: &str) -> Result<(Duration, Duration), String> {
    match text.split_once('+') {
        Some((base, increment)) => Ok((parse_duration(base)?, parse_duration(increment)?)),
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
    #[arg(long, value_name = "TIME", value_parser = parse_duration, default_value = "20ms")]
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
}
