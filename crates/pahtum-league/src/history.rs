//! A league's ratings over time: the joint fit made again at a few
//! checkpoints of its journal, each after a round, for the report's chart of
//! each bot's rating history.
//!
//! The table fits every game once; a history needs the ratings as they stood
//! earlier, and each point of it costs one more fit of the games before it.
//! So the points are bounded: at most [`MAX_CHECKPOINTS`], the last the
//! table's own fit (no fit more), the others after every `stride`-th round,
//! evenly spaced. The number of rounds is known only at the end of the
//! journal, so the checkpoints are taken as the journal streams by
//! ([`Checkpoints::before_game`], through [`super::table::fold_observed`]):
//! the tallies after every `stride`-th round are kept, and when they would be
//! more than the bound allows the stride doubles and every other is dropped.
//! The memory is at most [`MAX_CHECKPOINTS`] tallies (each the size of the
//! table's, a few words per pair of entrants), never the games.
//!
//! "After round `r`" is the games recorded before the line that decided round
//! `r + 1`. Each fit is relative to the field of its time (its average, or
//! the anchor once the anchor has games), so a bot's line also moves when
//! weaker or stronger entrants join.

use std::path::Path;

use serde::Serialize;

use pahtum_journal::Moves;
use pahtum_journal::sink::Sink;
use pahtum_standings::standings::Tallies;
use pahtum_standings::strength::{AnchorSpec, BotRating, Strength, StrengthError};

use super::read::LeagueError;
use super::state::LeagueState;
use super::table::fold_observed;

/// The most points of a history, the last (the table's joint fit) included: at most this many fits.
pub const MAX_CHECKPOINTS: usize = 12;

/// The tallies of a league's journal after every `stride`-th round, taken as the journal streams by.
#[derive(Debug, Clone)]
pub struct Checkpoints {
    stride: u32,
    /// The rounds decided when the last game was seen.
    rounds: u32,
    /// The games seen.
    games: usize,
    /// After round `.0`, `.1` games, counted by `.2`.
    kept: Vec<(u32, usize, Tallies)>,
}

impl Default for Checkpoints {
    fn default() -> Checkpoints {
        Checkpoints {
            stride: 1,
            rounds: 0,
            games: 0,
            kept: Vec::new(),
        }
    }
}

impl Checkpoints {
    /// Before a game of the league `state`, with `tallies` the tallies of the games before it: if rounds were
    /// decided since the last game, `tallies` are the league after the last of them but one, kept if that
    /// round (or the last multiple of the stride since the last game) is a checkpoint.
    pub fn before_game(&mut self, state: &LeagueState, tallies: &Tallies) {
        let rounds = state.rounds();
        if rounds > self.rounds {
            let after = (rounds - 1) / self.stride * self.stride;
            if after >= self.rounds.max(1) {
                self.kept.push((after, self.games, tallies.clone()));
                if self.kept.len() >= MAX_CHECKPOINTS {
                    self.stride *= 2;
                    let stride = self.stride;
                    self.kept.retain(|(round, _, _)| round % stride == 0);
                }
            }
            self.rounds = rounds;
        }
        self.games += 1;
    }

    /// The fits this history costs beyond the table's: one per checkpoint kept.
    pub fn fits(&self) -> usize {
        self.kept.len()
    }

    /// The history: each checkpoint fitted relative to its field's average or to `anchor` (no ratings where the
    /// anchor had no games yet), then the league as `state` ends, rated by `strength`, the table's fit.
    pub fn fit(
        self,
        state: &LeagueState,
        strength: &Strength,
        anchor: Option<&AnchorSpec>,
    ) -> Result<History, StrengthError> {
        let stride = self.stride;
        let mut points = Vec::with_capacity(self.kept.len() + 1);
        for (round, games, tallies) in self.kept {
            let ratings = match tallies.finish(anchor) {
                Ok(standings) => ratings(&standings.strength),
                Err(StrengthError::UnknownAnchor { .. } | StrengthError::AnchorWithoutGames { .. }) => Vec::new(),
                Err(error) => return Err(error),
            };
            points.push(Checkpoint { round, games, ratings });
        }
        points.push(Checkpoint {
            round: state.rounds(),
            games: state.games(),
            ratings: ratings(strength),
        });
        Ok(History { stride, points })
    }
}

fn ratings(strength: &Strength) -> Vec<BotRating> {
    match &strength.ratings {
        pahtum_standings::strength::Ratings::Fitted { bots, .. } => bots.clone(),
        _ => Vec::new(),
    }
}

/// A league's ratings over time.
#[derive(Debug, Clone, Serialize)]
pub struct History {
    /// The rounds between two checkpoints (before the last).
    pub stride: u32,
    /// The checkpoints in round order, the last the league as it stands (at most [`MAX_CHECKPOINTS`]).
    pub points: Vec<Checkpoint>,
}

/// The ratings after one round.
#[derive(Debug, Clone, Serialize)]
pub struct Checkpoint {
    /// After this round.
    pub round: u32,
    /// The games recorded then.
    pub games: usize,
    /// Every rated entrant's rating then, strongest first; empty when none was rated (no games, a field in
    /// parts that never met, or an anchor without games yet).
    pub ratings: Vec<BotRating>,
}

/// The league at `path`, the tallies of its games and their checkpoints, in one pass as [`super::table::fold`]
/// makes it.
pub fn fold(
    path: &Path,
    moves: Moves,
    sink: &mut impl Sink,
) -> Result<(LeagueState, Tallies, Checkpoints), LeagueError> {
    let mut checkpoints = Checkpoints::default();
    let (state, tallies) = fold_observed(path, moves, sink, |state, tallies| {
        checkpoints.before_game(state, tallies)
    })?;
    Ok((state, tallies, checkpoints))
}
