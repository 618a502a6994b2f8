//! Durations on the command line: `100ms`, `2s`, `1.5s`, `1m`, and Fischer
//! clocks as `BASE+INCREMENT` (`10s+100ms`).

use std::time::Duration;

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
