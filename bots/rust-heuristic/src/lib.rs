//! A starter Pah Tum bot in Rust: one move ahead, with an evaluation of the
//! runs that each line can still make.
//!
//! Greedy play counts only the points a stone makes now, so it sees nothing
//! until a run of three is one stone away. This bot values each row and column
//! by what its stones there could still become: the points the line would
//! score on average if every free cell in it went to either player with even
//! odds. The average depends only on the line's pattern of own stones and free
//! cells, so it comes from a table over all patterns, made once. The value of a
//! position is that sum over the 14 lines for the bot, minus the same for its
//! opponent, and:
//!
//! * a stone goes where it leaves the value highest;
//! * a block goes where the bot would put a stone, the cell most worth having;
//! * the pie decision swaps if White stays ahead even after Black's best reply
//!   (Black moves next either way);
//! * White's first stone under the pie rule goes where that decision is
//!   closest to even, so that the opponent gains little by either choice.
//!
//! To start your own Rust bot, copy this crate and change [`Heuristic::choose`]:
//! [`pahtum_protocol::bot::run`] does all the talking to the referee.

#![warn(missing_docs)]

use pahtum::score::{LINE_POINTS, column_line, row_line};
use pahtum::{Action, Bitboard, Cell, Game, Phase, SIZE};
use pahtum_protocol::bot::{Identity, Player};
use pahtum_protocol::{Clock, Info};

/// The bot: the table of line values, and nothing that changes during a game.
#[derive(Debug, Clone)]
pub struct Heuristic {
    /// `line_value[own][free]`: the average points of a line with the 7-bit
    /// masks `own` (this player's stones) and `free`, over every way of
    /// giving each free cell to this player or not.
    line_value: Vec<[f64; 128]>,
}

impl Default for Heuristic {
    fn default() -> Self {
        Self::new()
    }
}

impl Heuristic {
    /// The bot with its table of line values built: for each pair of disjoint
    /// 7-bit masks (own stones, free cells), the mean points over every subset
    /// of the free cells. The work is done here, once, so make one per process
    /// rather than one per move.
    pub fn new() -> Heuristic {
        let mut line_value = vec![[0.0; 128]; 128];
        for (own, values) in line_value.iter_mut().enumerate() {
            for free in (0..128).filter(|free| free & own == 0) {
                // Walk every subset of `free`, from `free` itself down to 0.
                let (mut total, mut count, mut subset) = (0, 0, free);
                loop {
                    total += LINE_POINTS[own | subset];
                    count += 1;
                    if subset == 0 {
                        break;
                    }
                    subset = (subset - 1) & free;
                }
                values[free] = f64::from(total) / f64::from(count);
            }
        }
        Heuristic { line_value }
    }

    /// What `own` stones are worth with `free` cells still to fill.
    fn potential(&self, own: Bitboard, free: Bitboard) -> f64 {
        (0..SIZE)
            .map(|i| {
                self.line_value[row_line(own.0, i)][row_line(free.0, i)]
                    + self.line_value[column_line(own.0, i)][column_line(free.0, i)]
            })
            .sum()
    }

    /// The best stone for the player with `mine` against `theirs`, and the
    /// value it leaves, from that player's side.
    fn best_stone(&self, mine: Bitboard, theirs: Bitboard, free: Bitboard) -> (Cell, f64) {
        free.cells()
            .map(|cell| {
                let (mine, free) = (mine.with(cell), Bitboard(free.0 & !cell.bit()));
                (cell, self.potential(mine, free) - self.potential(theirs, free))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .expect("the referee asks for a move only when a cell is free")
    }
}

impl Player for Heuristic {
    fn identity(&self) -> Identity {
        Identity {
            name: "rust-heuristic".to_owned(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            author: None,
        }
    }

    fn choose(&mut self, game: &Game, _clock: &Clock) -> (Action, Option<Info>) {
        let position = game.position();
        let me = game.color_to_act().expect("the referee asks only while the game is on");
        let (mine, theirs, free) = (position.stones(me), position.stones(me.opponent()), position.free());
        let (action, eval) = match game.phase() {
            Phase::PlaceBlocks => {
                let (cell, value) = self.best_stone(mine, theirs, free);
                (Action::Block(cell), value)
            }
            Phase::FirstStone if game.pie_rule() => {
                // For each first stone: Black's best reply, and how far from
                // even it leaves the game; take the most even.
                let (cell, black_value) = free
                    .cells()
                    .map(|cell| {
                        (
                            cell,
                            self.best_stone(theirs, mine.with(cell), Bitboard(free.0 & !cell.bit()))
                                .1,
                        )
                    })
                    .min_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
                    .expect("a free cell for the first stone");
                (Action::Stone(cell), -black_value)
            }
            Phase::PieDecision => {
                // As Black, my best reply's value: below zero, White is better.
                let (_, value) = self.best_stone(mine, theirs, free);
                (Action::Pie(value < 0.0), value.abs())
            }
            Phase::FirstStone | Phase::Stones | Phase::Finished => {
                let (cell, value) = self.best_stone(mine, theirs, free);
                (Action::Stone(cell), value)
            }
        };
        let info = Info {
            eval: Some(eval),
            depth: Some(1),
            ..Info::default()
        };
        (action, Some(info))
    }
}

#[cfg(test)]
mod tests {
    use pahtum::{Layout, Phase};

    use super::*;

    #[test]
    fn line_values_are_averages_over_the_free_cells() {
        let heuristic = Heuristic::new();
        assert_eq!(heuristic.line_value[0b111_1111][0], 119.0);
        assert_eq!(heuristic.line_value[0b011_1111][0b100_0000], (56.0 + 119.0) / 2.0);
        // Three free cells in a row score 3 only if all three are ours.
        assert_eq!(heuristic.line_value[0][0b000_0111], 3.0 / 8.0);
    }

    /// White's first stone in the corner a1, walled in by blocks on b1 and
    /// a2, can never score: keep. The same board with the stone on d4: swap.
    #[test]
    fn swaps_a_strong_first_stone_only() {
        let blocks = ["b1", "a2", "g7", "f7", "g6"]
            .map(|cell| cell.parse().unwrap())
            .to_vec();
        let mut heuristic = Heuristic::new();
        let clock = Clock::per_move(1000);
        for (first, swap) in [("a1", false), ("d4", true)] {
            let mut game = Game::new(&Layout::Fixed { blocks: blocks.clone() }, true).unwrap();
            game.play_text(first).unwrap();
            assert_eq!(game.phase(), Phase::PieDecision);
            assert_eq!(
                heuristic.choose(&game, &clock).0,
                Action::Pie(swap),
                "first stone {first}"
            );
        }
    }
}
