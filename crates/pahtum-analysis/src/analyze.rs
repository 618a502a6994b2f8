//! The analysis of one game record: [`Analyzer::analyze`].
//!
//! The positions are visited from the last to the first. The solver works
//! backwards best: the small endgames are cheap and fill its table for the
//! larger ones, and once a position cannot be solved (too many free cells,
//! blocks still to place, or the time budget spent) no earlier one can, so
//! the exact region is the end of the game and the estimates come before it.
//! Where a position is exact, every move from it is solved too, which gives
//! all the optimal moves; the value after a move is the value of the next
//! position, seen by the same player.

use std::time::{Duration, Instant};

use pahtum::{Action, Game, Seat};
use pahtum_record::annotations::{Effort, GameAnalysis, Kind, Losing, MoveAnalysis, Value, record_hash};
use pahtum_record::{GameRecord, GameSpec, ReplayError};

use crate::grade::{grade, loses, loss};
use crate::values::{Values, after};

/// How hard an analysis tries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The solver's table has `2^table_bits` entries of 24 bytes: the memory
    /// of one analysis (with the tree search's, a few tens of MB).
    pub table_bits: u32,
    /// Solve positions with at most this many free cells.
    pub exact_from: u32,
    /// The tree search's playouts per estimated position.
    pub playouts: u64,
    /// The tree search's seed: the same seed and playouts give the same
    /// analysis.
    pub seed: u64,
    /// The wall-clock time the solver may spend on one game; positions it
    /// has not solved by then are estimated. `None`: no limit, and the
    /// analysis is the same on every machine.
    pub budget: Option<Duration>,
}

impl Settings {
    /// What an analysis with these settings says of its effort (the budget
    /// aside, which depends on the machine).
    pub fn effort(&self) -> Effort {
        Effort {
            exact_from: self.exact_from,
            playouts: self.playouts,
            seed: self.seed,
        }
    }
}

impl Default for Settings {
    /// 18 free cells (the engine's own exact endgame), 20,000 playouts, a 24
    /// MB table: a few seconds a game on one core.
    fn default() -> Self {
        Settings {
            table_bits: 20,
            exact_from: 18,
            playouts: 20_000,
            seed: 1,
            budget: None,
        }
    }
}

/// A record that cannot be analysed.
#[derive(Debug, thiserror::Error)]
#[error("game {game} does not replay")]
pub struct AnalysisError {
    /// The game's id.
    pub game: String,
    /// Why.
    #[source]
    pub source: ReplayError,
}

/// Analyses games one after the other, reusing its searches' memory.
#[derive(Debug)]
pub struct Analyzer {
    values: Values,
    settings: Settings,
}

impl Analyzer {
    pub fn new(settings: Settings) -> Analyzer {
        Analyzer {
            values: Values::new(
                settings.table_bits,
                settings.exact_from,
                settings.playouts,
                settings.seed,
            ),
            settings,
        }
    }

    /// The analysis of `record`'s game.
    pub fn analyze(&mut self, record: &GameRecord) -> Result<GameAnalysis, AnalysisError> {
        let end = record.replay().map_err(|source| AnalysisError {
            game: record.id.clone(),
            source,
        })?;
        let mut positions = vec![GameSpec::of_record(record.id.clone(), record).initial_game()];
        for &action in end.history() {
            positions.push(after(positions.last().expect("the first position"), action));
        }
        self.values.deadline = self.settings.budget.map(|budget| Instant::now() + budget);
        let plies = end.history().len();
        // The value of the position after the ply, for the seat to act there
        // (or any seat, when the game is over).
        let last = &positions[plies];
        let mut next = {
            let seat = last.seat_to_act().unwrap_or(Seat::First);
            let exact = self.values.exact(last, seat).map(Value::exact);
            (seat, exact.unwrap_or_else(|| self.values.estimate(last, seat).0))
        };
        let mut solving = true;
        let mut moves = Vec::with_capacity(plies);
        for index in (0..plies).rev() {
            let game = &positions[index];
            let seat = game.seat_to_act().expect("a ply's game is not over");
            let exact = if solving {
                self.exact_with_best(game, seat)
            } else {
                None
            };
            solving = exact.is_some();
            let (before, best) = exact.unwrap_or_else(|| self.values.estimate(game, seat));
            let after = if next.0 == seat { next.1 } else { next.1.flipped() };
            let action = end.history()[index];
            let ply = index + 1;
            let given = record.opening.as_ref().is_some_and(|opening| ply <= opening.plies);
            moves.push(MoveAnalysis {
                ply,
                kind: match action {
                    Action::Block(_) => Kind::Block,
                    Action::Stone(_) => Kind::Stone,
                    Action::Pie(_) => Kind::Pie,
                },
                played: action.to_string(),
                color: game.color_to_act().expect("a ply's game is not over"),
                seat,
                given,
                before,
                after,
                best: best.iter().map(Action::to_string).collect(),
                loss: loss(&before, &after),
                grade: if given { None } else { grade(&before, &after) },
            });
            next = (seat, before);
        }
        moves.reverse();
        let losing_of = |seat: Seat| {
            moves
                .iter()
                .find(|entry| entry.seat == seat && !entry.given && loses(&entry.before, &entry.after))
                .map(|entry| entry.ply)
        };
        let (first, second) = (losing_of(Seat::First), losing_of(Seat::Second));
        let losing = match record.color_of(Seat::First) {
            pahtum::Color::White => Losing {
                white: first,
                black: second,
            },
            pahtum::Color::Black => Losing {
                white: second,
                black: first,
            },
        };
        Ok(GameAnalysis {
            game: record.id.clone(),
            record: record_hash(record),
            moves,
            losing,
            effort: self.settings.effort(),
        })
    }

    /// The exact value of `game` for `seat` (to act) and every optimal move,
    /// each move solved on its own; `None` where any of them is not solved.
    fn exact_with_best(&mut self, game: &Game, seat: Seat) -> Option<(Value, Vec<Action>)> {
        let before = self.values.exact(game, seat)?;
        let mut best = Vec::new();
        let mut top = i32::MIN;
        for action in game.legal_moves() {
            let value = self.values.exact(&after(game, action), seat)?;
            if value > top {
                top = value;
                best.clear();
            }
            if value == top {
                best.push(action);
            }
        }
        Some((Value::exact(before), best))
    }
}
