//! The analysis of one game record: [`Analyzer::analyze`].
//!
//! The solver visits the positions from the last to the first: it works
//! backwards best, as the small endgames are cheap and fill its table for
//! the larger ones, and once a position cannot be solved (too many free
//! cells, blocks still to place, or the time budget spent) no earlier one
//! can, so the exact region is the end of the game. Where a position is
//! exact, every move from it is asked whether it keeps that value (a null
//! window search each, far cheaper than solving it), which gives all the
//! optimal moves. The tree search then estimates the positions before the
//! exact region from the first on, each search starting from what the one
//! before learnt below the move played. The value after a move is the value
//! of the next position, seen by the same player.

use std::time::{Duration, Instant};

use pahtum::{Action, Game, Seat};
use pahtum_record::annotations::{Effort, GameAnalysis, Kind, Losing, MoveAnalysis, Value, record_hash};
use pahtum_record::{GameRecord, GameSpec, ReplayError};

use crate::grade::{grade, loses, loss};
use crate::values::{Values, after};

/// How hard an analysis tries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The solver's table has `2^table_bits` entries of 32 bytes: the memory
    /// of one analysis (with the tree search's, a few tens of MB).
    pub table_bits: u32,
    /// Solve positions with at most this many free cells.
    pub exact_from: u32,
    /// The tree search's playouts through each estimated position: those
    /// the search of the position before spent below the move played count
    /// (see [`crate::analyze`]), the rest are its own.
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
    /// 18 free cells (the engine's own exact endgame), 7,500 playouts, a 32
    /// MB table: about half a second a game on one core (docs/performance.md).
    fn default() -> Self {
        Settings {
            table_bits: 20,
            exact_from: 18,
            playouts: 7_500,
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
        self.values
            .start_game(self.settings.budget.map(|budget| Instant::now() + budget));
        let plies = end.history().len();
        // Each position's value for the seat to act there (or any seat, when
        // the game is over), and its best moves.
        let seat_at = |index: usize| positions[index].seat_to_act().unwrap_or(Seat::First);
        let mut solved = vec![None; plies + 1];
        solved[plies] = self
            .values
            .exact(&positions[plies], seat_at(plies))
            .map(|margin| (Value::exact(margin), Vec::new()));
        for index in (0..plies).rev() {
            let Some(exact) = self.exact_with_best(&positions[index], seat_at(index)) else {
                break;
            };
            solved[index] = Some(exact);
        }
        let values: Vec<(Value, Vec<Action>)> = solved
            .into_iter()
            .enumerate()
            .map(|(index, solved)| solved.unwrap_or_else(|| self.values.estimate(&positions[index], seat_at(index))))
            .collect();
        let mut moves = Vec::with_capacity(plies);
        for (index, &action) in end.history().iter().enumerate() {
            let game = &positions[index];
            let seat = seat_at(index);
            let (before, best) = &values[index];
            let before = *before;
            // The value after the ply is the next position's, seen by `seat`.
            let next = values[index + 1].0;
            let after = if seat_at(index + 1) == seat {
                next
            } else {
                next.flipped()
            };
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
        }
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

    /// The exact value of `game` for `seat` (to act) and every optimal move:
    /// those after which `seat` still gets that value (none gets more),
    /// each asked of the solver on its own; `None` where any of them is not
    /// solved.
    fn exact_with_best(&mut self, game: &Game, seat: Seat) -> Option<(Value, Vec<Action>)> {
        let before = self.values.exact(game, seat)?;
        let mut best = Vec::new();
        for action in game.legal_moves() {
            if self.values.at_least(&after(game, action), seat, before)? {
                best.push(action);
            }
        }
        Some((Value::exact(before), best))
    }
}
