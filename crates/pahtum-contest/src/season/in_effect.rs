//! The season in effect: `contest.toml`'s phases with the organiser's moves
//! from the database applied, and a move made, checked against the moves
//! before it in the same transaction as it is recorded. The one part of the
//! season that reads the database; the rules are the pure [`super::Phases`]'s.

use jiff::Timestamp;

use super::{MoveRefused, PhaseKey, Phases};
use crate::config::Contest;
use crate::store::{Store, StoreError};

/// The phases in effect: `contest.toml`'s, with the organiser's moves applied; none for a contest without
/// `[phases]`.
pub fn effective(contest: &Contest, store: &Store) -> Result<Option<Phases>, StoreError> {
    match contest.phases {
        Some(phases) => Ok(Some(phases.with_moves(&store.phase_moves()?))),
        None => Ok(None),
    }
}

/// Moves phase `key` of the contest to `to` (to the millisecond, as the database keeps it), as the organiser
/// `who` asked at `now`, if it may be (checked against every move so far in the same transaction as the move
/// is recorded, and logged): the phases in effect after it.
pub fn move_phase(
    contest: &Contest,
    store: &Store,
    key: PhaseKey,
    to: Timestamp,
    who: &str,
    now: Timestamp,
) -> Result<Result<Phases, MoveRefused>, StoreError> {
    let Some(phases) = contest.phases else {
        return Ok(Err(MoveRefused::NoSeason));
    };
    let to = Timestamp::from_millisecond(to.as_millisecond()).unwrap_or(to);
    store.move_phase(key, to, who, now.as_millisecond(), |moves| {
        phases.with_moves(moves).moved(key, to, now)
    })
}
