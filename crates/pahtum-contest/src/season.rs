//! The season: when submissions open, when they freeze (the ladder plays
//! on, but nothing new joins it and no author changes the version that
//! plays), when the final starts, and when the season ends.
//!
//! The four instants are `contest.toml`'s `[phases]`, with the organiser's
//! moves from the database applied over them ([`effective`]: the one part
//! that reads the database; the rest here is pure). The phase is
//! never stored: it is read from the clock and the instants each time it is
//! asked ([`Phases::at`]), so a server stopped and started again in the
//! middle of a phase is in that phase again, and the rules are tested with
//! the times given rather than a clock. A contest without `[phases]` has no
//! season: always open, never frozen.
//!
//! The order is kept on every change: `open < freeze <= final < end`, in
//! the file as it is read and in each move ([`Phases::moved`]); only a phase
//! that has not begun moves, and only to an instant still to come.

mod in_effect;

pub use in_effect::{effective, move_phase};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// An instant of the season, by its key in `[phases]`: the start of a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PhaseKey {
    /// Submissions open.
    Open,
    /// Submissions and version changes close; the ladder plays on.
    Freeze,
    /// The final starts.
    Final,
    /// The season ends.
    End,
}

impl PhaseKey {
    /// The four, in the order they come.
    pub const ALL: [PhaseKey; 4] = [PhaseKey::Open, PhaseKey::Freeze, PhaseKey::Final, PhaseKey::End];

    /// Its key in `[phases]` and in the API.
    pub fn name(self) -> &'static str {
        match self {
            PhaseKey::Open => "open",
            PhaseKey::Freeze => "freeze",
            PhaseKey::Final => "final",
            PhaseKey::End => "end",
        }
    }

    /// The key named `name`.
    pub fn named(name: &str) -> Option<PhaseKey> {
        PhaseKey::ALL.into_iter().find(|key| key.name() == name)
    }

    /// What happens at it, in words.
    pub fn says(self) -> &'static str {
        match self {
            PhaseKey::Open => "the opening of submissions",
            PhaseKey::Freeze => "the freeze",
            PhaseKey::Final => "the final",
            PhaseKey::End => "the end of the season",
        }
    }

    /// The phase it starts.
    pub fn starts(self) -> Phase {
        match self {
            PhaseKey::Open => Phase::Open,
            PhaseKey::Freeze => Phase::Frozen,
            PhaseKey::Final => Phase::Final,
            PhaseKey::End => Phase::Ended,
        }
    }
}

/// Where the season stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Submissions are not open yet.
    BeforeOpen,
    /// Authors submit and change versions; the ladder plays.
    Open,
    /// No new submissions or version changes; the ladder plays on.
    Frozen,
    /// The final plays.
    Final,
    /// The season is over.
    Ended,
}

impl Phase {
    /// The phase in words.
    pub fn says(self) -> &'static str {
        match self {
            Phase::BeforeOpen => "submissions are not open yet",
            Phase::Open => "open: submit and change versions",
            Phase::Frozen => "frozen: no new submissions or version changes; the ladder plays on",
            Phase::Final => "the final",
            Phase::Ended => "the season is over",
        }
    }
}

/// The season's four instants, in order: `open < freeze <= final < end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "PhasesTable")]
pub struct Phases {
    /// Submissions open.
    pub open: Timestamp,
    /// No new submissions or version changes from here on; the ladder keeps playing.
    pub freeze: Timestamp,
    /// The final starts.
    #[serde(rename = "final")]
    pub final_start: Timestamp,
    /// The season ends.
    pub end: Timestamp,
}

/// `[phases]` as written, so that a missing or mistaken instant is told by its key. Each is a string, or
/// TOML's own date-time (unquoted), read the same.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PhasesTable {
    open: Option<toml::Value>,
    freeze: Option<toml::Value>,
    #[serde(rename = "final")]
    final_start: Option<toml::Value>,
    end: Option<toml::Value>,
}

/// An example instant for messages, in the form the instants are written.
const EXAMPLE: &str = "2026-12-20T12:00:00Z";

/// Why the season's instants cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PhasesError {
    /// `[phases]` lacks one of the four.
    #[error(
        "[phases] has no `{}`: give all four instants (open, freeze, final, end), e.g. {} = \"{EXAMPLE}\"",
        key.name(), key.name()
    )]
    Missing {
        /// The key missing.
        key: PhaseKey,
    },
    /// An instant is not RFC 3339.
    #[error("{} = {text:?} is not an RFC 3339 instant: write it in UTC, e.g. \"{EXAMPLE}\"", key.name())]
    NotAnInstant {
        /// Its key.
        key: PhaseKey,
        /// What was written.
        text: String,
        /// Why it does not read.
        #[source]
        source: jiff::Error,
    },
    /// An instant has an offset other than UTC's.
    #[error("{} = {text:?} is not in UTC: write it with Z, as \"{utc}\"", key.name())]
    NotUtc {
        /// Its key.
        key: PhaseKey,
        /// What was written.
        text: String,
        /// The same instant in UTC.
        utc: Timestamp,
    },
    /// Two instants are out of order.
    #[error(
        "{} ({later_at}) must come {} {} ({earlier_at}): the phases go open < freeze <= final < end",
        later.name(), if *strict { "after" } else { "no earlier than" }, earlier.name()
    )]
    Order {
        /// The instant that should come first.
        earlier: PhaseKey,
        /// Its time.
        earlier_at: Timestamp,
        /// The instant that should come after it.
        later: PhaseKey,
        /// Its time.
        later_at: Timestamp,
        /// Whether the two may not be equal.
        strict: bool,
    },
}

/// Reads the instant of `key` written as `text`: RFC 3339, in UTC.
pub fn parse_instant(key: PhaseKey, text: &str) -> Result<Timestamp, PhasesError> {
    let at: Timestamp = text.trim().parse().map_err(|source| PhasesError::NotAnInstant {
        key,
        text: text.to_owned(),
        source,
    })?;
    let text_utc = text.trim().to_ascii_uppercase();
    if !(text_utc.ends_with('Z') || text_utc.ends_with("+00:00")) {
        return Err(PhasesError::NotUtc {
            key,
            text: text.to_owned(),
            utc: at,
        });
    }
    Ok(at)
}

impl TryFrom<PhasesTable> for Phases {
    type Error = PhasesError;

    fn try_from(table: PhasesTable) -> Result<Phases, PhasesError> {
        let read = |key: PhaseKey, written: Option<toml::Value>| match written {
            Some(toml::Value::String(text)) => parse_instant(key, &text),
            Some(other) => parse_instant(key, &other.to_string()),
            None => Err(PhasesError::Missing { key }),
        };
        Phases {
            open: read(PhaseKey::Open, table.open)?,
            freeze: read(PhaseKey::Freeze, table.freeze)?,
            final_start: read(PhaseKey::Final, table.final_start)?,
            end: read(PhaseKey::End, table.end)?,
        }
        .checked()
    }
}

/// Why the organiser's move of a phase was refused.
#[derive(Debug, thiserror::Error)]
pub enum MoveRefused {
    /// The contest has no season to move.
    #[error(
        "this contest has no [phases] in contest.toml: add the table (tournaments/contest/contest.toml shows it) \
         and start the server again"
    )]
    NoSeason,
    /// The phase has begun.
    #[error(
        "{} began at {at}: only a phase that has not begun moves",
        key.says()
    )]
    Begun {
        /// The phase's key.
        key: PhaseKey,
        /// When it began.
        at: Timestamp,
    },
    /// The instant asked has passed.
    #[error("{to} has passed (it is {now} now): move {} to an instant still to come", key.says())]
    Past {
        /// The phase's key.
        key: PhaseKey,
        /// The instant asked.
        to: Timestamp,
        /// Now.
        now: Timestamp,
    },
    /// The move would break the order.
    #[error("moving {} to {to} breaks the order: move the other instant first", key.says())]
    Order {
        /// The phase's key.
        key: PhaseKey,
        /// The instant asked.
        to: Timestamp,
        /// The order broken.
        #[source]
        source: PhasesError,
    },
}

impl Phases {
    /// The instant of `key`.
    pub fn get(&self, key: PhaseKey) -> Timestamp {
        match key {
            PhaseKey::Open => self.open,
            PhaseKey::Freeze => self.freeze,
            PhaseKey::Final => self.final_start,
            PhaseKey::End => self.end,
        }
    }

    fn set(mut self, key: PhaseKey, at: Timestamp) -> Phases {
        match key {
            PhaseKey::Open => self.open = at,
            PhaseKey::Freeze => self.freeze = at,
            PhaseKey::Final => self.final_start = at,
            PhaseKey::End => self.end = at,
        }
        self
    }

    /// These phases, if in order: `open < freeze <= final < end`.
    pub fn checked(self) -> Result<Phases, PhasesError> {
        use PhaseKey::{End, Final, Freeze, Open};
        for (earlier, later, strict) in [(Open, Freeze, true), (Freeze, Final, false), (Final, End, true)] {
            let (earlier_at, later_at) = (self.get(earlier), self.get(later));
            if later_at < earlier_at || (strict && later_at == earlier_at) {
                return Err(PhasesError::Order {
                    earlier,
                    earlier_at,
                    later,
                    later_at,
                    strict,
                });
            }
        }
        Ok(self)
    }

    /// The phase at `now`.
    pub fn at(&self, now: Timestamp) -> Phase {
        PhaseKey::ALL
            .into_iter()
            .rev()
            .find(|&key| self.get(key) <= now)
            .map_or(Phase::BeforeOpen, PhaseKey::starts)
    }

    /// The next instant after `now`, and the phase it starts; none once the season has ended.
    pub fn next(&self, now: Timestamp) -> Option<(Phase, Timestamp)> {
        self.next_key(now).map(|key| (key.starts(), self.get(key)))
    }

    /// The key of the next instant after `now`; none once the season has ended.
    pub fn next_key(&self, now: Timestamp) -> Option<PhaseKey> {
        PhaseKey::ALL.into_iter().find(|&key| self.get(key) > now)
    }

    /// Why an author may not change what plays (submit, or make another version active) at `now`: before
    /// `open`, or from the freeze on; none while open.
    pub fn closed(&self, now: Timestamp) -> Option<Closed> {
        match self.at(now) {
            Phase::Open => None,
            Phase::BeforeOpen => Some(Closed::Opens(self.open)),
            Phase::Frozen | Phase::Final | Phase::Ended => Some(Closed::Froze(self.freeze)),
        }
    }

    /// These phases with the organiser's `moves` applied, the first first. Each was checked when made; one
    /// that no longer keeps the order (`contest.toml` was edited since) is left out.
    pub fn with_moves(self, moves: &[PhaseMove]) -> Phases {
        moves.iter().fold(self, |phases, moved| {
            phases.set(moved.phase, moved.at).checked().unwrap_or(phases)
        })
    }

    /// These phases with `key` moved to `to` at `now`, if the organiser may: the phase has not begun, `to`
    /// has not passed, and the order holds.
    pub fn moved(self, key: PhaseKey, to: Timestamp, now: Timestamp) -> Result<Phases, MoveRefused> {
        let at = self.get(key);
        if at <= now {
            return Err(MoveRefused::Begun { key, at });
        }
        if to < now {
            return Err(MoveRefused::Past { key, to, now });
        }
        self.set(key, to)
            .checked()
            .map_err(|source| MoveRefused::Order { key, to, source })
    }
}

/// A move of the organiser's: a phase of the season set to start at another instant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseMove {
    /// The phase's key: `open`, `freeze`, `final` or `end`.
    pub phase: PhaseKey,
    /// Its instant from this move on, RFC 3339 in UTC.
    pub at: Timestamp,
    /// Who moved it.
    pub who: String,
    /// When.
    pub moved_ms: i64,
}

/// Why authors may not change what plays now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// Submissions are not open yet: they open at this instant.
    Opens(Timestamp),
    /// The freeze came at this instant.
    Froze(Timestamp),
}

impl Closed {
    /// The refusal of `what` ("submissions", "version changes"), with the instant it opens or closed.
    pub fn says(self, what: &str) -> String {
        match self {
            Closed::Opens(at) => format!("{what} open at {at} (UTC); come back then (/season shows the phases)"),
            Closed::Froze(at) => format!(
                "{what} closed at {at} (UTC, the freeze) for the rest of the season; the versions that played then \
                 play on (/season shows the phases)"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Contest;
    use crate::store::Store;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    fn phases() -> Phases {
        Phases {
            open: at("2026-12-01T12:00:00Z"),
            freeze: at("2026-12-20T12:00:00Z"),
            final_start: at("2026-12-21T12:00:00Z"),
            end: at("2026-12-22T12:00:00Z"),
        }
    }

    #[test]
    fn each_instant_starts_its_phase() {
        let phases = phases();
        for (now, phase, next) in [
            (
                "2026-11-30T00:00:00Z",
                Phase::BeforeOpen,
                Some((Phase::Open, phases.open)),
            ),
            (
                "2026-12-01T12:00:00Z",
                Phase::Open,
                Some((Phase::Frozen, phases.freeze)),
            ),
            (
                "2026-12-20T11:59:59Z",
                Phase::Open,
                Some((Phase::Frozen, phases.freeze)),
            ),
            (
                "2026-12-20T12:00:00Z",
                Phase::Frozen,
                Some((Phase::Final, phases.final_start)),
            ),
            ("2026-12-21T12:00:00Z", Phase::Final, Some((Phase::Ended, phases.end))),
            ("2026-12-22T12:00:00Z", Phase::Ended, None),
        ] {
            assert_eq!(phases.at(at(now)), phase, "{now}");
            assert_eq!(phases.next(at(now)), next, "{now}");
        }
    }

    #[test]
    fn a_freeze_at_the_final_goes_straight_to_the_final() {
        let phases = Phases {
            final_start: phases().freeze,
            ..phases()
        }
        .checked()
        .unwrap();
        assert_eq!(phases.at(phases.freeze), Phase::Final);
        assert_eq!(
            phases.closed(phases.freeze),
            Some(Closed::Froze(phases.freeze)),
            "closed all the same"
        );
    }

    #[test]
    fn authors_change_what_plays_only_while_open() {
        let phases = phases();
        assert_eq!(
            phases.closed(at("2026-11-01T00:00:00Z")),
            Some(Closed::Opens(phases.open))
        );
        assert_eq!(phases.closed(at("2026-12-10T00:00:00Z")), None);
        for now in ["2026-12-20T12:00:00Z", "2026-12-21T13:00:00Z", "2027-01-01T00:00:00Z"] {
            assert_eq!(phases.closed(at(now)), Some(Closed::Froze(phases.freeze)), "{now}");
        }
        let said = Closed::Froze(phases.freeze).says("submissions");
        assert!(said.starts_with("submissions closed at 2026-12-20T12:00:00Z"), "{said}");
    }

    #[test]
    fn instants_are_rfc_3339_in_utc() {
        assert_eq!(
            parse_instant(PhaseKey::Open, "2026-12-01T12:00:00Z").unwrap(),
            phases().open
        );
        assert_eq!(
            parse_instant(PhaseKey::Open, "2026-12-01T12:00:00+00:00").unwrap(),
            phases().open
        );
        let error = parse_instant(PhaseKey::Freeze, "2026-12-01T13:00:00+01:00").unwrap_err();
        assert_eq!(
            error.to_string(),
            "freeze = \"2026-12-01T13:00:00+01:00\" is not in UTC: write it with Z, as \"2026-12-01T12:00:00Z\""
        );
        let error = parse_instant(PhaseKey::End, "next tuesday").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("end = \"next tuesday\" is not an RFC 3339 instant"),
            "{error}"
        );
    }

    #[test]
    fn the_order_is_told_by_its_keys() {
        let equal = Phases {
            freeze: phases().open,
            ..phases()
        };
        let error = equal.checked().unwrap_err().to_string();
        assert!(
            error.starts_with("freeze (2026-12-01T12:00:00Z) must come after open"),
            "{error}"
        );
        let early_final = Phases {
            final_start: at("2026-12-19T00:00:00Z"),
            ..phases()
        };
        let error = early_final.checked().unwrap_err().to_string();
        assert!(
            error.starts_with("final (2026-12-19T00:00:00Z) must come no earlier than freeze"),
            "{error}"
        );
        let late_final = Phases {
            final_start: phases().end,
            ..phases()
        };
        assert!(late_final.checked().unwrap_err().to_string().starts_with("end ("));
    }

    fn moved_to(phase: PhaseKey, to: &str) -> PhaseMove {
        PhaseMove {
            phase,
            at: at(to),
            who: "organiser".into(),
            moved_ms: 0,
        }
    }

    #[test]
    fn only_a_phase_to_come_moves_to_an_instant_to_come_in_order() {
        let phases = phases();
        let now = at("2026-12-10T00:00:00Z");
        let moved = phases.moved(PhaseKey::Freeze, at("2026-12-15T00:00:00Z"), now).unwrap();
        assert_eq!(moved.freeze, at("2026-12-15T00:00:00Z"));
        assert_eq!(moved.at(at("2026-12-16T00:00:00Z")), Phase::Frozen);
        assert!(matches!(
            phases.moved(PhaseKey::Open, at("2026-12-12T00:00:00Z"), now),
            Err(MoveRefused::Begun {
                key: PhaseKey::Open,
                ..
            })
        ));
        assert!(matches!(
            phases.moved(PhaseKey::Freeze, at("2026-12-09T00:00:00Z"), now),
            Err(MoveRefused::Past { .. })
        ));
        let refused = phases
            .moved(PhaseKey::Final, at("2026-12-19T00:00:00Z"), now)
            .unwrap_err();
        assert!(matches!(refused, MoveRefused::Order { .. }), "{refused}");
        assert_eq!(
            crate::causes::chain(&refused),
            "moving the final to 2026-12-19T00:00:00Z breaks the order: move the other instant first\n  \
             caused by: final (2026-12-19T00:00:00Z) must come no earlier than freeze (2026-12-20T12:00:00Z): \
             the phases go open < freeze <= final < end"
        );
        assert!(
            phases.moved(PhaseKey::Final, phases.freeze, now).is_ok(),
            "final may be the freeze"
        );
    }

    #[test]
    fn the_moves_apply_in_turn_and_one_out_of_order_is_left_out() {
        let moves = [
            moved_to(PhaseKey::End, "2027-01-10T00:00:00Z"),
            moved_to(PhaseKey::Final, "2027-01-05T00:00:00Z"),
            moved_to(PhaseKey::Freeze, "2027-01-20T00:00:00Z"),
        ];
        let moved = phases().with_moves(&moves);
        assert_eq!(
            moved,
            Phases {
                final_start: at("2027-01-05T00:00:00Z"),
                end: at("2027-01-10T00:00:00Z"),
                ..phases()
            }
        );
    }

    #[test]
    fn a_move_is_kept_and_carried_on_after_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("contest.db");
        let contest = Contest {
            phases: Some(phases()),
            ..Contest::parse(std::path::Path::new("contest.toml"), "name = \"Cup\"").unwrap()
        };
        let now = at("2026-12-10T00:00:00Z");
        let store = Store::open(&path).unwrap();
        let early = at("2026-12-12T00:00:00Z");
        let moved = move_phase(&contest, &store, PhaseKey::Freeze, early, "organiser", now)
            .unwrap()
            .unwrap();
        assert_eq!(moved.freeze, early);
        let refused = move_phase(
            &contest,
            &store,
            PhaseKey::Final,
            at("2026-12-11T00:00:00Z"),
            "organiser",
            now,
        )
        .unwrap();
        assert!(
            matches!(refused, Err(MoveRefused::Order { .. })),
            "checked against the moves made"
        );
        drop(store);
        // Started again in the middle of the freeze that was moved: frozen still.
        let store = Store::open(&path).unwrap();
        let phases = effective(&contest, &store).unwrap().unwrap();
        assert_eq!(phases, moved);
        assert_eq!(phases.at(at("2026-12-13T00:00:00Z")), Phase::Frozen);
        let moves = store.phase_moves().unwrap();
        assert_eq!(moves.len(), 1, "the refused move is not kept");
        assert_eq!(
            (moves[0].phase, moves[0].at, moves[0].who.as_str()),
            (PhaseKey::Freeze, early, "organiser")
        );
        let without = Contest {
            phases: None,
            ..contest
        };
        assert_eq!(effective(&without, &store).unwrap(), None);
        assert!(matches!(
            move_phase(&without, &store, PhaseKey::Final, early, "organiser", now).unwrap(),
            Err(MoveRefused::NoSeason)
        ));
    }
}
