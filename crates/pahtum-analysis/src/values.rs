//! The value of one position for one seat, from the reference engine's search
//! (`pahtum_search`): the exact solver's final margin where the position is
//! small enough to solve, the tree search's expected result (a fixed number of
//! playouts, a seed mixed from the settings' seed and the position) elsewhere.
//!
//! A game's estimates are made from its first position on, and each search
//! starts from what the one before learnt below the move played (the tree
//! search's [`Tree::reroot`]): the playouts a position already had there
//! count towards its number, so a game costs far fewer playouts than its
//! positions times that number, and still the same game, seed and number
//! give the same values, whatever was analysed before.
//!
//! The rules' [`Game`] is the position here, not the search's `Board`, since
//! the pie decision and the first stone under the pie rule are positions too:
//! the decision's value is the better of the two colours for the player who
//! decides (the same board, seen from either side), and the first stone's is
//! the worse side's value after it, as the engine's search weighs it.

use std::time::Instant;

use pahtum::{Action, Cell, Color, Game, Phase, Seat};
use pahtum_record::annotations::Value;
use pahtum_search::board::{Board, WHITE};
use pahtum_search::endgame::Solver;
use pahtum_search::mcts::{Limits, Settings, Tree};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

/// The engine's searches and how hard they try.
#[derive(Debug)]
pub(crate) struct Values {
    solver: Solver,
    tree: Tree,
    /// Solve positions of at most this many free cells.
    pub exact_from: u32,
    /// Playouts per estimate.
    pub playouts: u64,
    /// Mixed into every estimate's random generator.
    pub seed: u64,
    /// When the solver must give up (the time budget of a game).
    deadline: Option<Instant>,
    /// The position the tree search last searched, in this game.
    searched: Option<Board>,
}

impl Values {
    pub fn new(table_bits: u32, exact_from: u32, playouts: u64, seed: u64) -> Values {
        Values {
            solver: Solver::new(table_bits),
            tree: Tree::default(),
            exact_from,
            playouts,
            seed,
            deadline: None,
            searched: None,
        }
    }

    /// Starts a game: the solver gives up at `deadline`, and the tree search
    /// keeps nothing of the games before.
    pub fn start_game(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
        self.searched = None;
    }

    /// The final margin for `seat` of `game` with perfect play, or `None`
    /// where it is not solved: blocks still to place, more free cells than
    /// `exact_from`, or the deadline first.
    pub fn exact(&mut self, game: &Game, seat: Seat) -> Option<i32> {
        let for_seat = |game: &Game, margin: i32| {
            if game.seat_to_act() == Some(seat) {
                margin
            } else {
                -margin
            }
        };
        let board = Board::from_game(game);
        let free = board.free().count_ones();
        match game.phase() {
            Phase::Finished => {
                let score = game.score();
                let white = score.white as i32 - score.black as i32;
                Some(if game.color_of(seat) == Color::White {
                    white
                } else {
                    -white
                })
            }
            Phase::PlaceBlocks => None,
            _ if free > self.exact_from => None,
            Phase::FirstStone if game.pie_rule() => {
                // White's best first stone, each valued as the decision leaves it.
                let white = game.seat_of(Color::White);
                let mut best = None;
                for action in game.legal_moves() {
                    let value = self.exact(&after(game, action), white)?;
                    best = best.max(Some(value));
                }
                best.map(|margin| if white == seat { margin } else { -margin })
            }
            Phase::PieDecision => {
                // The better colour's margin (the decider can take either).
                let black = self.mover_margin(&board)?;
                Some(for_seat(game, black.abs()))
            }
            Phase::FirstStone | Phase::Stones => {
                let margin = self.mover_margin(&board)?;
                Some(for_seat(game, margin))
            }
        }
    }

    /// Whether the final margin for `seat` of `game` with perfect play is
    /// at least `margin`, or `None` where it is not solved (as
    /// [`Values::exact`]). In the stone phase a null window search answers,
    /// far cheaper than the margin itself: the analysis asks it of every
    /// move to find the best ones, whose margin it already knows.
    pub fn at_least(&mut self, game: &Game, seat: Seat, margin: i32) -> Option<bool> {
        let board = Board::from_game(game);
        let stones = match game.phase() {
            Phase::Stones => true,
            Phase::FirstStone => !game.pie_rule(),
            _ => false,
        };
        if !stones || board.free().count_ones() > self.exact_from {
            return Some(self.exact(game, seat)? >= margin);
        }
        // The mover's final margin is `now` plus the future margin.
        let now = mover_now(&board);
        if game.seat_to_act() == Some(seat) {
            // now + future >= margin, unless future <= margin - now - 1.
            let below = self.solver.at_most(&board, margin - now - 1, self.deadline)?;
            Some(!below)
        } else {
            // -(now + future) >= margin: future <= -margin - now.
            self.solver.at_most(&board, -margin - now, self.deadline)
        }
    }

    /// The final margin for the mover of `board` with perfect play.
    fn mover_margin(&mut self, board: &Board) -> Option<i32> {
        let future = self.solver.value(board, self.deadline)?;
        Some(mover_now(board) + future)
    }

    /// The expected result for `seat` of `game` by the tree search, and the
    /// search's move for the player to act (both pie decisions when they are
    /// even; none when the game is over).
    pub fn estimate(&mut self, game: &Game, seat: Seat) -> (Value, Vec<Action>) {
        let board = Board::from_game(game);
        let (mover_value, best) = match game.phase() {
            Phase::Finished => {
                let margin = self.exact(game, seat).expect("a finished game's margin is its score");
                return (Value::estimated(Value::exact(margin).expected_result()), Vec::new());
            }
            Phase::PieDecision => {
                // Black's value if it keeps; swapping gives it the other side.
                let keep = self.search(&board, false).0;
                let best = match keep.total_cmp(&(1.0 - keep)) {
                    std::cmp::Ordering::Less => vec![Action::Pie(true)],
                    std::cmp::Ordering::Equal => vec![Action::Pie(true), Action::Pie(false)],
                    std::cmp::Ordering::Greater => vec![Action::Pie(false)],
                };
                (keep.max(1.0 - keep), best)
            }
            phase => {
                let pie = phase == Phase::FirstStone && game.pie_rule();
                let (value, cell) = self.search(&board, pie);
                let best = if board.blocks_left > 0 {
                    Action::Block(cell)
                } else {
                    Action::Stone(cell)
                };
                (value, vec![best])
            }
        };
        let value = Value::estimated(mover_value);
        let value = if game.seat_to_act() == Some(seat) {
            value
        } else {
            value.flipped()
        };
        (value, best)
    }

    /// The tree search's value for the mover of `board` and its move.
    fn search(&mut self, board: &Board, pie: bool) -> (f64, Cell) {
        let settings = Settings {
            keep_tree: false,
            ..Settings::default()
        };
        // The position searched last is this one or one move before it
        // when a game's estimates are made in order: the playouts already
        // spent below that move count towards this position's.
        let kept = match self.searched.replace(*board) {
            Some(last) => self.tree.reroot(&last, board),
            None => 0,
        };
        let limits = Limits {
            playouts: Some(self.playouts.saturating_sub(u64::from(kept))),
            deadline: None,
            stop_when_decided: false,
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(mix(self.seed, board));
        let report = self.tree.search(board, pie, &settings, &limits, &mut rng);
        let cell = Cell::from_index(report.best.cell).expect("the search's move is a cell");
        (f64::from(report.best.value), cell)
    }
}

/// The mover's points minus the other's on `board`, now.
fn mover_now(board: &Board) -> i32 {
    if board.mover == WHITE {
        board.margin()
    } else {
        -board.margin()
    }
}

/// `game` after `action` (one of its legal moves).
pub(crate) fn after(game: &Game, action: Action) -> Game {
    let mut next = game.clone();
    next.play(action).expect("a legal move");
    next
}

/// A generator's seed from `seed` and the position, the same on every
/// machine and build (splitmix64 steps over the board's words).
fn mix(seed: u64, board: &Board) -> u64 {
    let words = [
        board.blocks,
        board.stones[0],
        board.stones[1],
        board.mover as u64 | u64::from(board.blocks_left) << 8,
    ];
    words.iter().fold(seed, |state, word| {
        let mut z = (state ^ word).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    })
}
