//! Adjudication: a game ended before its board was full because its result could no longer change.
//!
//! A tournament may ask the referee to end a game as soon as its result is fixed whatever both sides play
//! (`adjudicate = "decided"`): not a guess about good play but a bound, [`pahtum::decided`], under which
//! the trailing colour cannot catch up even with its opponent's help. The record says so
//! ([`Adjudication`], in its termination): the rule, the ply after which the game ended, and White's final
//! margin as the bound proves it. Its replay checks that the adjudication stands where the record ends and
//! that its margins fix the recorded result; `arena verify` proves the margins again.
//!
//! A tournament may also assume perfect play (`adjudicate = "solved"`, off unless asked for): the game ends
//! once `cells` free cells are left, with the result the exact solver proves for best play by both sides
//! from there. That is an assumption about the bots, not a bound, and every place that shows it says so.
//! The solver is the search crate's, which this crate does not link (the report and the server read
//! records and link no search): the program that plays or verifies such games lends it once at its start
//! ([`lend_perfect_play`]; `arena` does), and a game of the rule where none was lent is a wiring error.

use std::sync::OnceLock;

use pahtum::decided::{Margins, decided, margin_bounds};
use pahtum::{Game, Phase};
use serde::{Deserialize, Serialize};

/// The rule by which a game may be adjudicated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AdjudicationRule {
    /// The game ends when its result can no longer change, whatever both sides play
    /// ([`pahtum::decided::decided`]).
    Decided,
    /// An assumption of perfect play: the game ends once `cells` free cells are left (or fewer, in the play
    /// of stones), with White's final margin under best play by both sides from there.
    Solved {
        /// The free cells from which the solver ends the game.
        cells: u32,
    },
}

/// The most free cells from which `adjudicate = "solved"` may solve: a solve there costs tens of
/// milliseconds, once a game (docs/performance.md, "Exact adjudication").
pub const MAX_SOLVED_CELLS: u32 = 20;

/// The default free cells of `adjudicate = "solved"`.
pub const DEFAULT_SOLVED_CELLS: u32 = 16;

impl AdjudicationRule {
    /// The rule's name, as files and records write it.
    pub fn name(self) -> &'static str {
        match self {
            AdjudicationRule::Decided => "decided",
            AdjudicationRule::Solved { .. } => "solved",
        }
    }
}

/// White's final margin with best play by both sides from a position: the exact solver, which the program
/// that adjudicates by `solved` lends ([`lend_perfect_play`]).
pub trait PerfectPlay: Send + Sync {
    /// White's final margin (White's points minus Black's) from `game`, in the play of stones, when both
    /// sides play their best from here.
    fn white_margin(&self, game: &Game) -> i32;
}

static PERFECT_PLAY: OnceLock<Box<dyn PerfectPlay>> = OnceLock::new();

/// Lends the solver of `adjudicate = "solved"` to every game and check of this process (the first lent
/// stays).
pub fn lend_perfect_play(solver: Box<dyn PerfectPlay>) {
    let _ = PERFECT_PLAY.set(solver);
}

/// White's final margin with best play from `game`, by the solver lent.
fn perfect_margin(game: &Game) -> i32 {
    PERFECT_PLAY
        .get()
        .expect("a program that adjudicates by `solved` lends its solver first (`lend_perfect_play`)")
        .white_margin(game)
}

/// What a tournament's adjudication does, in a sentence, as the dry run, the report and `arena serve` say
/// it: `rule` (`None`: off).
pub fn describe_rule(rule: Option<AdjudicationRule>) -> String {
    match rule {
        None => "adjudicate = \"off\": every game is played out".to_owned(),
        Some(AdjudicationRule::Decided) => "adjudicate = \"decided\": a game ends as soon as its result can no \
                                            longer change, whatever both bots play (a bound, not a guess about \
                                            good play)"
            .to_owned(),
        Some(AdjudicationRule::Solved { cells }) => format!(
            "adjudicate = \"solved\", an assumption of perfect play: a game ends once {cells} free cells are \
             left, with the result the exact solver proves for best play by both bots from there"
        ),
    }
}

impl std::fmt::Display for AdjudicationRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How a game was adjudicated: by which rule, after which ply, and White's final margin as proven then.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Adjudication {
    /// The rule that ended the game.
    pub rule: AdjudicationRule,
    /// The last ply played, in the one numbering of plies (`GameRecord::ply_of_move`): the game ended after
    /// it, the record's moves ending there.
    pub ply: usize,
    /// White's final margin (White's points minus Black's) over every way the game could have gone on:
    /// `low` when every free cell went Black's way, `high` when every one went White's. Both on one side of
    /// zero (or both zero), which fixes the result.
    pub margin: Margins,
}

impl Adjudication {
    /// The adjudication of `game` as it stands by `rule`, if the rule ends it now: only in the play of
    /// stones (a game is never decided before), proven within `budget` search nodes for each colour's
    /// bound (an unproven position plays on).
    pub fn reached(rule: AdjudicationRule, game: &Game, budget: u64) -> Option<Adjudication> {
        if game.phase() != Phase::Stones {
            return None;
        }
        let margin = match rule {
            AdjudicationRule::Decided => decided(game.position(), budget)?,
            AdjudicationRule::Solved { cells } => {
                if game.position().free().len() > cells {
                    return None;
                }
                let margin = perfect_margin(game);
                Margins {
                    low: margin,
                    high: margin,
                }
            }
        };
        Some(Adjudication {
            rule,
            ply: game.history().len(),
            margin,
        })
    }

    /// Proves the adjudication again on `game`, the game as it stood after its ply: the margins the rule
    /// proves there, within `budget` search nodes for each bound, must lie within the recorded ones (which
    /// are then true of every way the game could have gone on, and fix its result).
    pub fn holds(&self, game: &Game, budget: u64) -> Result<(), Unproven> {
        let proven = match self.rule {
            AdjudicationRule::Decided => margin_bounds(game.position(), budget).ok_or(Unproven::Budget { budget })?,
            AdjudicationRule::Solved { cells } => {
                let free = game.position().free().len();
                if free > cells {
                    return Err(Unproven::TooEarly { free, cells });
                }
                let margin = perfect_margin(game);
                Margins {
                    low: margin,
                    high: margin,
                }
            }
        };
        if !self.margin.contain(proven) {
            return Err(Unproven::Wider {
                recorded: self.margin,
                proven,
            });
        }
        Ok(())
    }

    /// The adjudication in words, as `arena show`, the report and the server say it:
    /// `adjudicated after ply 30 (decided: White wins by 5 to 21)`.
    pub fn summary(&self) -> String {
        match self.rule {
            AdjudicationRule::Decided => {
                format!("adjudicated after ply {} ({}: {})", self.ply, self.rule, self.proven())
            }
            AdjudicationRule::Solved { .. } => format!(
                "adjudicated after ply {} ({}: {} with perfect play, an assumption)",
                self.ply,
                self.rule,
                self.proven()
            ),
        }
    }

    /// What the adjudication proved, in words: `White wins by at least 5` (by 5 when exact), `a draw`.
    pub fn proven(&self) -> String {
        let Margins { low, high } = self.margin;
        let by = |least: i32, most: i32| {
            if least == most {
                format!("by {least}")
            } else {
                format!("by {least} to {most}")
            }
        };
        if low > 0 {
            format!("White wins {}", by(low, high))
        } else if high < 0 {
            format!("Black wins {}", by(-high, -low))
        } else {
            "a draw".to_owned()
        }
    }
}

/// Why an adjudication does not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unproven {
    /// White's final margin after the ply can be outside the recorded margins: the game was not decided
    /// as the record says.
    #[error(
        "the adjudication does not hold: White's final margin can be anywhere from {} to {} after its ply, \
         not only {} to {} as recorded",
        proven.low,
        proven.high,
        recorded.low,
        recorded.high
    )]
    Wider {
        /// The record's margins.
        recorded: Margins,
        /// The margins the rule proves.
        proven: Margins,
    },
    /// A game solved with more free cells left than its rule allows.
    #[error("the game was solved with {free} free cells left, where its rule solves from {cells}")]
    TooEarly {
        /// The free cells left after its ply.
        free: u32,
        /// The rule's free cells.
        cells: u32,
    },
    /// The proof took more than its budget of search nodes.
    #[error("the adjudication could not be proven again within {budget} search nodes")]
    Budget {
        /// The budget spent.
        budget: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_proof_in_words_names_the_winner_and_its_margins() {
        let said = |low, high| {
            Adjudication {
                rule: AdjudicationRule::Decided,
                ply: 30,
                margin: Margins { low, high },
            }
            .proven()
        };
        assert_eq!(said(5, 21), "White wins by 5 to 21");
        assert_eq!(said(-9, -2), "Black wins by 2 to 9");
        assert_eq!(said(3, 3), "White wins by 3");
        assert_eq!(said(0, 0), "a draw");
        let adjudication = Adjudication {
            rule: AdjudicationRule::Decided,
            ply: 30,
            margin: Margins { low: 5, high: 21 },
        };
        assert_eq!(
            adjudication.summary(),
            "adjudicated after ply 30 (decided: White wins by 5 to 21)"
        );
    }
}
