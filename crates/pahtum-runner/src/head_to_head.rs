//! A head-to-head match played in one call: what `arena match` hands over once ([`play`]).
//!
//! A match is a two-bot tournament that its command builds from the flags, with its bots ready to launch
//! ([`MatchPlan`]); it is played as a tournament is ([`session`]): an output folder that
//! is a league's refused, the journal opened or resumed, the games played. Whether a match plays on is
//! its observer's rule (the SPRT's gate, which also declines games as they would start): asked before
//! any bot starts ([`Observer::would_start`]), so that a match decided in an earlier run starts none.
//! What the organiser is to be told goes to the observer as it happens; the journal and how the match
//! ended come back for the command to show.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pahtum_run::events::{Observer, RunEnding};
use pahtum_run::resume::ResumeError;
use pahtum_tournament::config::Tournament;
use pahtum_tournament::durability::Durability;

use crate::games::Bots;
use crate::live::Live;
use crate::session::{self, Played, Playing, ServeError, SessionError};

/// A match to play: its tournament, its bots, and where and how its journal is kept.
#[derive(Debug)]
pub struct MatchPlan {
    /// The two-bot tournament the flags describe.
    pub tournament: Tournament,
    /// Its bots, ready to launch (sandboxed as the flags say).
    pub bots: Bots,
    /// The output folder.
    pub out: PathBuf,
    /// When the journal is synced.
    pub durability: Durability,
    /// Start afresh: a journal already in the output folder is moved aside.
    pub fresh: bool,
}

/// Plays the match of `plan` (or resumes it), showing what happens to `observer`, until its games are
/// done, `observer` declines the rest, or `stop` completes. `serve` starts serving the run's pages when
/// the games are about to be played; what it gives back is dropped after them.
pub async fn play<Served, E: Into<ServeError>>(
    plan: MatchPlan,
    observer: &mut dyn Observer,
    stop: impl Future<Output = ()>,
    serve: impl AsyncFnOnce(&Path, &Arc<Live>) -> Result<Served, E>,
) -> Result<Played, SessionError> {
    let MatchPlan {
        tournament,
        bots,
        out,
        durability,
        fresh,
    } = plan;
    session::refuse_league(&out)?;
    let mut opened = match session::open_journal(&out, &tournament, None, fresh, durability, observer) {
        Err(ResumeError::Changed { path, changes }) => return Err(SessionError::OtherMatch { path, changes }),
        opened => opened?,
    };
    session::show_opened(&opened, observer);
    let ending = if opened.plan.pending().any(|index| observer.would_start(index)) {
        // Told only when the match plays on, before its bots start.
        session::show_sandbox_notes(&bots.specs, observer);
        session::play(&mut opened, &out, bots, observer, Playing { stop, serve }, |_| {
            String::new()
        })
        .await?
    } else if opened.plan.pending().next().is_none() {
        RunEnding::Finished
    } else {
        RunEnding::Declined
    };
    Ok(Played { ending, opened, out })
}
