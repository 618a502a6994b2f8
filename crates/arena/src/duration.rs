//! Durations on the command line: `100ms`, `2s`, `1.5s`, `1m`, Fischer
//! clocks as `BASE+INCREMENT` (`10s+100ms`), and the time-control flags
//! built from them, one control for both bots or one each.

use std::time::Duration;

use pahtum_protocol::{ClockKind, TimeControl};
use pahtum_tournament::config;

/// The longest duration a flag takes: a day, the referee's limit of an answer without any limit.
const LONGEST: Duration = Duration::from_millis(pahtum_protocol::UNLIMITED_MOVE_MS);

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
///
/// `--move-time` and `--clock` take one value for both bots, or two separated by a comma, the first
/// bot's then the second's (`arena game`: `--white`'s then `--black`'s; `arena match`: A's then B's),
/// in the order of `--names`, as a tournament file gives a bot a `[bots.time]` of its own. The referee's
/// tolerance (`--margin`) is the same for both.
#[derive(Debug, Clone, clap::Args)]
pub struct TimeFlags {
    /// A limit per answer, e.g. 100ms or 2s, or one per bot, the first bot's then the second's, e.g.
    /// 100ms,400ms [default: 1s without --clock].
    #[arg(long, value_name = "TIME[,TIME]", value_delimiter = ',', value_parser = parse_duration)]
    move_time: Option<Vec<Duration>>,
    /// A Fischer clock BASE+INCREMENT, e.g. 10s+100ms, or one per bot, the first bot's then the second's,
    /// e.g. 10s+100ms,5s+100ms (with --move-time, the smaller limit applies).
    #[arg(long, value_name = "CLOCK[,CLOCK]", value_delimiter = ',', value_parser = parse_clock)]
    clock: Option<Vec<(Duration, Duration)>>,
    /// The referee's tolerance beyond a limit before it calls a timeout.
    #[arg(long, value_name = "TIME", value_parser = parse_extra, default_value = "20ms")]
    margin: Duration,
    /// What the limits measure: wall (wall time) or cpu (the CPU time of all the bot's processes, which
    /// does not depend on what else the machine runs; the wall time is still capped at 3 times the limit
    /// plus 1s), or one per bot, e.g. cpu,wall [default: wall].
    #[arg(long, value_name = "KIND[,KIND]", value_delimiter = ',', value_parser = parse_clock_kind)]
    clock_kind: Option<Vec<ClockKind>>,
}

/// Parses `wall` or `cpu`.
pub fn parse_clock_kind(text: &str) -> Result<ClockKind, String> {
    match text.trim() {
        "wall" => Ok(ClockKind::Wall),
        "cpu" => Ok(ClockKind::Cpu),
        other => Err(format!(
            "{other:?} is not a kind of clock: use wall (wall time) or cpu (the CPU time of the bot's processes)"
        )),
    }
}

/// One value for both bots, or one each: `[first bot's, second bot's]`.
fn per_bot<T: Copy>(flag: &str, values: Option<&[T]>) -> Result<[Option<T>; 2], String> {
    match values {
        None => Ok([None, None]),
        Some(&[both]) => Ok([Some(both); 2]),
        Some(&[first, second]) => Ok([Some(first), Some(second)]),
        Some(values) => Err(format!(
            "--{flag}: {} values; give one for both bots, or two (the first bot's, then the second's)",
            values.len()
        )),
    }
}

impl TimeFlags {
    /// Whether a limit was given (`--move-time`, `--clock` or `--clock-kind`), rather than left to a default.
    pub fn given(&self) -> bool {
        self.move_time.is_some() || self.clock.is_some() || self.clock_kind.is_some()
    }

    /// The time control of each bot: `[first, second]`.
    pub fn time_controls(&self) -> anyhow::Result<[TimeControl; 2]> {
        let ms = |duration: Duration| duration.as_millis() as u64;
        let limits = per_bot("move-time", self.move_time.as_deref()).map_err(anyhow::Error::msg)?;
        let clocks = per_bot("clock", self.clock.as_deref()).map_err(anyhow::Error::msg)?;
        let kinds = per_bot("clock-kind", self.clock_kind.as_deref()).map_err(anyhow::Error::msg)?;
        let control =
            |limit: Option<Duration>, clock: Option<(Duration, Duration)>, kind: Option<ClockKind>| TimeControl {
                move_ms: match (limit, clock) {
                    (None, None) => Some(config::DEFAULT_MOVE_MS),
                    (limit, _) => limit.map(ms),
                },
                base_ms: clock.map(|(base, _)| ms(base)),
                increment_ms: clock.map_or(0, |(_, increment)| ms(increment)),
                margin_ms: ms(self.margin),
                clock: kind.unwrap_or_default(),
            };
        Ok([
            control(limits[0], clocks[0], kinds[0]),
            control(limits[1], clocks[1], kinds[1]),
        ])
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

    fn flags(args: &[&str]) -> Result<[TimeControl; 2], String> {
        #[derive(Debug, clap::Parser)]
        struct Cli {
            #[command(flatten)]
            time: TimeFlags,
        }
        let cli = <Cli as clap::Parser>::try_parse_from(std::iter::once("t").chain(args.iter().copied()))
            .map_err(|error| error.to_string())?;
        cli.time.time_controls().map_err(|error| error.to_string())
    }

    #[test]
    fn one_time_control_for_both_bots_or_one_each() {
        let [a, b] = flags(&[]).unwrap();
        assert_eq!((a, a.move_ms, a.margin_ms), (b, Some(config::DEFAULT_MOVE_MS), 20));
        let [a, b] = flags(&["--move-time", "100ms"]).unwrap();
        assert_eq!((a, a.move_ms), (b, Some(100)));
        let [a, b] = flags(&["--move-time", "100ms,400ms", "--margin", "5ms"]).unwrap();
        assert_eq!(
            (a.move_ms, b.move_ms, a.margin_ms, b.margin_ms),
            (Some(100), Some(400), 5, 5)
        );
        let [a, b] = flags(&["--clock", "10s+100ms,5s"]).unwrap();
        assert_eq!((a.move_ms, a.base_ms, a.increment_ms), (None, Some(10_000), 100));
        assert_eq!((b.move_ms, b.base_ms, b.increment_ms), (None, Some(5_000), 0));
        let [a, b] = flags(&["--clock", "10s", "--move-time", "1s,2s"]).unwrap();
        assert_eq!(
            (a.move_ms, a.base_ms, b.move_ms, b.base_ms),
            (Some(1000), Some(10_000), Some(2000), Some(10_000))
        );
        let [a, b] = flags(&["--clock-kind", "cpu"]).unwrap();
        assert_eq!((a.clock, b.clock), (ClockKind::Cpu, ClockKind::Cpu));
        let [a, b] = flags(&["--clock-kind", "wall,cpu"]).unwrap();
        assert_eq!((a.clock, b.clock), (ClockKind::Wall, ClockKind::Cpu));
        assert_eq!(flags(&[]).unwrap()[0].clock, ClockKind::Wall);
        let error = flags(&["--clock-kind", "thread"]).unwrap_err();
        assert!(error.contains("use wall (wall time) or cpu"), "{error}");
        let error = flags(&["--move-time", "1s,2s,3s"]).unwrap_err();
        assert!(
            error.contains("--move-time: 3 values; give one for both bots, or two"),
            "{error}"
        );
    }
}
