//! The two bots of `arena game` and `arena match` as their command lines
//! give them: their names (`--names`, else from their commands) and their
//! time controls (`--move-time`, `--clock`, `--clock-kind` and `--margin`:
//! one value for both bots, or one each, the first bot's then the
//! second's, as a tournament file gives a bot a `[bots.time]` of its own).
//!
//! A name labels a bot in records and tables, so it must be short and plain
//! (a command string like `python3 bots/python-random/bot.py` is neither)
//! and the two bots of a game must differ even when they run the same
//! command. "Plain" is the tournament files' rule, [`is_plain_name`]: one
//! rule for both. A bot without a limit gets the files' default,
//! [`DEFAULT_MOVE_MS`] per answer.

use std::time::Duration;

use pahtum_protocol::{ClockKind, TimeControl};

use super::DEFAULT_MOVE_MS;
use super::names::{PLAIN_NAME_RULE, default_names, is_plain_name};

/// Why the names given to two bots cannot name them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NamesError {
    /// Not two names.
    #[error("--names {}: give two names, NAME_A,NAME_B", .given.join(","))]
    NotTwo {
        /// The names given.
        given: Vec<String>,
    },
    /// A name that is not plain.
    #[error("the bot name {name:?} is not plain: give --names with {} each", PLAIN_NAME_RULE)]
    NotPlain {
        /// The name.
        name: String,
    },
    /// The same name twice.
    #[error("both bots are named {name:?}: give them different names with --names")]
    Same {
        /// The name.
        name: String,
    },
}

/// The names of the two bots of `commands`: those `given` (two, plain and different), else their
/// [`default_names`] (`suffixes` tell apart two bots of one name).
pub fn names(given: Option<&[String]>, commands: [&str; 2], suffixes: [&str; 2]) -> Result<[String; 2], NamesError> {
    let names = match given {
        Some([a, b]) => [a.clone(), b.clone()],
        Some(given) => return Err(NamesError::NotTwo { given: given.to_vec() }),
        None => return Ok(default_names(commands, suffixes)),
    };
    if let Some(name) = names.iter().find(|name| !is_plain_name(name)) {
        return Err(NamesError::NotPlain { name: name.clone() });
    }
    if names[0] == names[1] {
        let [name, _] = names;
        return Err(NamesError::Same { name });
    }
    Ok(names)
}

/// A time flag with neither one value nor two.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--{flag}: {count} values; give one for both bots, or two (the first bot's, then the second's)")]
pub struct PerBotError {
    /// The flag, without its dashes.
    pub flag: &'static str,
    /// How many values it has.
    pub count: usize,
}

/// The time flags as given: each `None` when left out, else one value for both bots or two.
#[derive(Debug, Clone, Copy)]
pub struct TimeChoice<'a> {
    /// `--move-time`: a limit per answer.
    pub move_time: Option<&'a [Duration]>,
    /// `--clock`: a Fischer clock, its base and increment.
    pub clock: Option<&'a [(Duration, Duration)]>,
    /// `--clock-kind`: what the limits measure [default: wall].
    pub clock_kind: Option<&'a [ClockKind]>,
    /// `--margin`: the referee's tolerance beyond a limit, the same for both.
    pub margin: Duration,
}

impl TimeChoice<'_> {
    /// The time control of each bot: `[first, second]`. A bot with neither a limit nor a clock gets
    /// [`DEFAULT_MOVE_MS`]; with both, the smaller limit applies.
    pub fn time_controls(&self) -> Result<[TimeControl; 2], PerBotError> {
        let ms = |duration: Duration| duration.as_millis() as u64;
        let limits = per_bot("move-time", self.move_time)?;
        let clocks = per_bot("clock", self.clock)?;
        let kinds = per_bot("clock-kind", self.clock_kind)?;
        let control =
            |limit: Option<Duration>, clock: Option<(Duration, Duration)>, kind: Option<ClockKind>| TimeControl {
                move_ms: match (limit, clock) {
                    (None, None) => Some(DEFAULT_MOVE_MS),
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

/// One value for both bots, or one each: `[first bot's, second bot's]`.
fn per_bot<T: Copy>(flag: &'static str, values: Option<&[T]>) -> Result<[Option<T>; 2], PerBotError> {
    match values {
        None => Ok([None, None]),
        Some(&[both]) => Ok([Some(both); 2]),
        Some(&[first, second]) => Ok([Some(first), Some(second)]),
        Some(values) => Err(PerBotError {
            flag,
            count: values.len(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use pahtum_protocol::durations::{parse_clock, parse_duration};

    use super::*;

    fn given(names: &[&str]) -> Result<[String; 2], String> {
        let names: Vec<String> = names.iter().map(|&name| name.to_owned()).collect();
        super::names(Some(&names), ["heuristic", "heuristic"], ["1", "2"]).map_err(|error| error.to_string())
    }

    #[test]
    fn two_plain_different_names_or_the_commands_defaults() {
        assert_eq!(given(&["a", "b.2"]).unwrap(), ["a", "b.2"]);
        assert_eq!(
            names(None, ["heuristic", "heuristic"], ["1", "2"]).unwrap(),
            ["heuristic-1", "heuristic-2"]
        );
        assert_eq!(
            given(&["solo"]).unwrap_err(),
            "--names solo: give two names, NAME_A,NAME_B"
        );
        assert_eq!(
            given(&["a", "b", "c"]).unwrap_err(),
            "--names a,b,c: give two names, NAME_A,NAME_B"
        );
        assert_eq!(
            given(&["a", "my bot"]).unwrap_err(),
            format!("the bot name \"my bot\" is not plain: give --names with {PLAIN_NAME_RULE} each")
        );
        assert_eq!(
            given(&["a", "a"]).unwrap_err(),
            "both bots are named \"a\": give them different names with --names"
        );
    }

    /// The flags' values as clap splits them at the commas.
    fn split<T>(text: &str, parse: impl Fn(&str) -> Result<T, pahtum_protocol::durations::DurationError>) -> Vec<T> {
        text.split(',').map(|value| parse(value).unwrap()).collect()
    }

    fn controls(
        move_time: Option<&str>,
        clock: Option<&str>,
        clock_kind: Option<&[ClockKind]>,
        margin_ms: u64,
    ) -> Result<[TimeControl; 2], PerBotError> {
        let move_time = move_time.map(|text| split(text, parse_duration));
        let clock = clock.map(|text| split(text, parse_clock));
        TimeChoice {
            move_time: move_time.as_deref(),
            clock: clock.as_deref(),
            clock_kind,
            margin: Duration::from_millis(margin_ms),
        }
        .time_controls()
    }

    #[test]
    fn one_time_control_for_both_bots_or_one_each() {
        let [a, b] = controls(None, None, None, 20).unwrap();
        assert_eq!((a, a.move_ms, a.margin_ms), (b, Some(DEFAULT_MOVE_MS), 20));
        assert_eq!(a.clock, ClockKind::Wall);
        let [a, b] = controls(Some("100ms"), None, None, 20).unwrap();
        assert_eq!((a, a.move_ms), (b, Some(100)));
        let [a, b] = controls(Some("100ms,400ms"), None, None, 5).unwrap();
        assert_eq!(
            (a.move_ms, b.move_ms, a.margin_ms, b.margin_ms),
            (Some(100), Some(400), 5, 5)
        );
        let [a, b] = controls(None, Some("10s+100ms,5s"), None, 20).unwrap();
        assert_eq!((a.move_ms, a.base_ms, a.increment_ms), (None, Some(10_000), 100));
        assert_eq!((b.move_ms, b.base_ms, b.increment_ms), (None, Some(5_000), 0));
        let [a, b] = controls(Some("1s,2s"), Some("10s"), None, 20).unwrap();
        assert_eq!(
            (a.move_ms, a.base_ms, b.move_ms, b.base_ms),
            (Some(1000), Some(10_000), Some(2000), Some(10_000))
        );
        let [a, b] = controls(None, None, Some(&[ClockKind::Cpu]), 20).unwrap();
        assert_eq!((a.clock, b.clock), (ClockKind::Cpu, ClockKind::Cpu));
        let [a, b] = controls(None, None, Some(&[ClockKind::Wall, ClockKind::Cpu]), 20).unwrap();
        assert_eq!((a.clock, b.clock), (ClockKind::Wall, ClockKind::Cpu));
        let error = controls(Some("1s,2s,3s"), None, None, 20).unwrap_err();
        assert_eq!(
            error.to_string(),
            "--move-time: 3 values; give one for both bots, or two (the first bot's, then the second's)"
        );
        let error = controls(None, None, Some(&[ClockKind::Cpu; 3]), 20).unwrap_err();
        assert_eq!((error.flag, error.count), ("clock-kind", 3));
    }
}
