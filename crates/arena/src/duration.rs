//! Durations on the command line (`100ms`, `2s`, `1.5s`, `1m`, Fischer clocks as `BASE+INCREMENT`) as
//! clap's value parsers, and the time-control flags of `arena game` and `arena match`: the text and the
//! time controls built from it are `pahtum_protocol::durations`' and `pahtum_tournament::config::two_bots`'.

use std::time::Duration;

use pahtum_protocol::durations;
use pahtum_protocol::{ClockKind, TimeControl};
use pahtum_tournament::config::two_bots::TimeChoice;

/// Parses `100ms`, `2s`, `1.5s` or `1m`: a limit, from 1 ms to a day ([`durations::parse_duration`]).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    durations::parse_duration(text).map_err(|error| error.to_string())
}

/// Parses a tolerance or an increment, as [`parse_duration`] but 0 allowed (`0ms`).
pub fn parse_extra(text: &str) -> Result<Duration, String> {
    durations::parse_extra(text).map_err(|error| error.to_string())
}

/// Parses a Fischer clock `BASE+INCREMENT`, e.g. `10s+100ms` (`10s` alone has no increment).
pub fn parse_clock(text: &str) -> Result<(Duration, Duration), String> {
    durations::parse_clock(text).map_err(|error| error.to_string())
}

/// Parses `wall` or `cpu`.
pub fn parse_clock_kind(text: &str) -> Result<ClockKind, String> {
    durations::parse_clock_kind(text).map_err(|error| error.to_string())
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

impl TimeFlags {
    /// Whether a limit was given (`--move-time`, `--clock` or `--clock-kind`), rather than left to a default.
    pub fn given(&self) -> bool {
        self.move_time.is_some() || self.clock.is_some() || self.clock_kind.is_some()
    }

    /// The time control of each bot: `[first, second]` ([`TimeChoice::time_controls`]).
    pub fn time_controls(&self) -> anyhow::Result<[TimeControl; 2]> {
        let choice = TimeChoice {
            move_time: self.move_time.as_deref(),
            clock: self.clock.as_deref(),
            clock_kind: self.clock_kind.as_deref(),
            margin: self.margin,
        };
        Ok(choice.time_controls()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flags reach the rule as clap splits them: one value or two, the margin's default 20ms.
    #[test]
    fn the_flags_take_a_value_for_both_bots_or_one_each() {
        let flags = |args: &[&str]| {
            #[derive(Debug, clap::Parser)]
            struct Cli {
                #[command(flatten)]
                time: TimeFlags,
            }
            let cli = <Cli as clap::Parser>::try_parse_from(std::iter::once("t").chain(args.iter().copied()));
            cli.map_err(|error| error.to_string())?
                .time
                .time_controls()
                .map_err(|error| error.to_string())
        };
        let [a, b] = flags(&[
            "--move-time",
            "100ms,400ms",
            "--clock",
            "10s+100ms",
            "--clock-kind",
            "cpu",
        ])
        .unwrap();
        assert_eq!(
            (a.move_ms, b.move_ms, a.base_ms, b.increment_ms),
            (Some(100), Some(400), Some(10_000), 100)
        );
        assert_eq!((a.margin_ms, b.clock), (20, ClockKind::Cpu));
        let error = flags(&["--clock-kind", "thread"]).unwrap_err();
        assert!(error.contains("use wall (wall time) or cpu"), "{error}");
        let error = flags(&["--move-time", "1s,2s,3s"]).unwrap_err();
        assert!(
            error.contains("--move-time: 3 values; give one for both bots, or two"),
            "{error}"
        );
    }
}
