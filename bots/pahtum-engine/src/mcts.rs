//! Monte Carlo tree search with the knowledge in the tree and in the playouts.
//!
//! The tree is PUCT (the selection rule of AlphaZero): a child is scored by its
//! mean result plus an exploration bonus proportional to its prior and to
//! `sqrt(parent visits) / (1 + child visits)`. The priors are a softmax of the
//! cells' [`stake`], so the search spends its playouts on the few moves that
//! the knowledge likes (the York study's "selection restricted to the
//! heuristic's best few moves", without a hard cut) and still reaches the
//! others when they turn out well. Leaves are valued by playouts that are
//! guided by the same knowledge ([`playout`]).
//!
//! The mean is blended with RAVE (all moves as first): what counts in Pah Tum
//! is which cells a player ends up with, much more than the order it took
//! them in, so every playout through a node also tells something about each
//! child cell that the node's mover owned at the end. The blend leans on that
//! shared statistic while a child has few visits of its own and lets go of it
//! as they grow (the MC-RAVE schedule with an equivalence parameter).
//!
//! Nodes live in one vector, children of a node side by side. A node is
//! expanded (its children created) on its second visit, which halves the memory
//! for the same search; when the vector is full the tree stops growing and the
//! search goes on with playouts from its leaves.
//!
//! The pie rule at the first stone is part of the root: the opponent will take
//! over White's position if it is better, so White's value for a first stone is
//! not its mean result `q` but `min(q, 1 - q)`, and the root selects and
//! chooses by that.

use std::time::Instant;

use rand::Rng;

use crate::board::{Board, cells_of};
use crate::knowledge::stake;
use crate::playout::{playout, result_for, result_for_white};

/// The tunable numbers of the search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// PUCT exploration constant.
    pub exploration: f32,
    /// Softmax temperature of the priors, in points of stake.
    pub temperature: f32,
    /// The largest number of nodes the tree may hold.
    pub max_nodes: usize,
    /// The probability of a random cell at a playout ply.
    pub epsilon: f32,
    /// RAVE equivalence: the child visits at which a move's own mean and its
    /// all-moves-as-first mean weigh the same; 0 turns RAVE off.
    pub rave: f32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            exploration: 0.5,
            temperature: 2.0,
            max_nodes: 1 << 21,
            epsilon: 0.03,
            rave: 500.0,
        }
    }
}

/// When a search stops: after a number of playouts, at a deadline, or at
/// whichever comes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Stop after this many playouts; `None` for no cap.
    pub playouts: Option<u64>,
    /// Stop once this instant has passed (read before each playout); `None`
    /// for no deadline.
    pub deadline: Option<Instant>,
}

/// The search's opinion of one root move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveStats {
    /// The move's cell index (`row * 7 + column`).
    pub cell: usize,
    /// How many playouts went through the move.
    pub visits: u32,
    /// The mean result for the player making the move (pie-adjusted at a pie
    /// root).
    pub value: f32,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The most visited root move.
    pub best: MoveStats,
    /// The most visited line, starting with the best move.
    pub line: Vec<usize>,
    /// How many playouts the search ran (one per tree iteration).
    pub playouts: u64,
    /// The deepest ply the tree reached.
    pub depth: u32,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    /// Sum of the results for the player who moved into this node.
    wins: f32,
    visits: u32,
    prior: f32,
    /// All-moves-as-first statistics: playouts through the parent in which the
    /// parent's mover got this cell, and their results for that mover.
    amaf_wins: f32,
    amaf_visits: u32,
    /// Index of the first child; 0 while the node is not expanded.
    first_child: u32,
    child_count: u8,
    cell: u8,
}

/// A reusable search tree (the vector is kept between searches).
#[derive(Debug, Default)]
pub struct Tree {
    nodes: Vec<Node>,
}

impl Tree {
    /// Searches `board` (at least one free cell) within `limits`. With `pie`,
    /// the root is White's first stone under the pie rule.
    pub fn search<R: Rng>(
        &mut self,
        board: &Board,
        pie: bool,
        settings: &Settings,
        limits: &Limits,
        rng: &mut R,
    ) -> Report {
        debug_assert!(board.free() != 0);
        self.nodes.clear();
        self.nodes.push(Node {
            wins: 0.0,
            visits: 0,
            prior: 1.0,
            amaf_wins: 0.0,
            amaf_visits: 0,
            first_child: 0,
            child_count: 0,
            cell: 0,
        });
        self.expand(0, board, !pie, settings);
        let mut playouts = 0u64;
        let mut depth = 0;
        let mut path = Vec::with_capacity(pahtum::CELLS + 1);
        loop {
            if limits.playouts.is_some_and(|limit| playouts >= limit) {
                break;
            }
            if limits.deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                break;
            }
            depth = depth.max(self.iterate(board, pie, settings, rng, &mut path));
            playouts += 1;
        }
        let best = self.best_child(0, pie);
        let line = self.principal_line(pie);
        Report {
            best: self.stats(best, pie),
            line,
            playouts,
            depth,
        }
    }

    /// One selection, expansion, playout and update; returns the depth reached.
    fn iterate<R: Rng>(
        &mut self,
        root: &Board,
        pie: bool,
        settings: &Settings,
        rng: &mut R,
        path: &mut Vec<u32>,
    ) -> u32 {
        let mut board = *root;
        path.clear();
        path.push(0);
        let mut node = 0usize;
        loop {
            if self.nodes[node].first_child == 0 {
                let can_grow = self.nodes.len() + pahtum::CELLS <= settings.max_nodes;
                if self.nodes[node].visits == 0 || board.free() == 0 || !can_grow {
                    break;
                }
                self.expand(node, &board, true, settings);
            }
            node = self.select(node, pie && node == 0, settings);
            board.play(usize::from(self.nodes[node].cell));
            path.push(node as u32);
        }
        let end = playout(&board, settings.epsilon, rng);
        let white_result = result_for_white(&end);
        // The player who moved into the node at depth d is the root's mover
        // for odd d; the root itself is credited to the other colour.
        for (depth, &index) in path.iter().enumerate() {
            let mover = root.mover ^ (depth & 1) ^ 1;
            let node = &mut self.nodes[index as usize];
            node.visits += 1;
            node.wins += result_for(mover, white_result);
            let (first, count) = (node.first_child as usize, usize::from(node.child_count));
            if settings.rave > 0.0 && first != 0 && depth as u32 >= root.blocks_left {
                // The children's mover is this node's other colour.
                let chooser = mover ^ 1;
                let owned = end.stones[chooser];
                let result = result_for(chooser, white_result);
                for child in &mut self.nodes[first..first + count] {
                    if owned & (1 << child.cell) != 0 {
                        child.amaf_visits += 1;
                        child.amaf_wins += result;
                    }
                }
            }
        }
        path.len() as u32 - 1
    }

    /// Creates the children of `node` (the moves of `board`), with priors from
    /// the knowledge (`informed`) or uniform.
    fn expand(&mut self, node: usize, board: &Board, informed: bool, settings: &Settings) {
        let first = self.nodes.len();
        let informed = informed && board.blocks_left == 0;
        let mut top = f32::NEG_INFINITY;
        for cell in cells_of(board.free()) {
            let logit = if informed {
                stake(board, cell) / settings.temperature
            } else {
                0.0
            };
            top = top.max(logit);
            self.nodes.push(Node {
                wins: 0.0,
                visits: 0,
                prior: logit,
                amaf_wins: 0.0,
                amaf_visits: 0,
                first_child: 0,
                child_count: 0,
                cell: cell as u8,
            });
        }
        let children = &mut self.nodes[first..];
        let mut sum = 0.0;
        for child in children.iter_mut() {
            child.prior = (child.prior - top).exp();
            sum += child.prior;
        }
        for child in children.iter_mut() {
            child.prior /= sum;
        }
        self.nodes[node].first_child = first as u32;
        self.nodes[node].child_count = (self.nodes.len() - first) as u8;
    }

    /// The child of `node` with the highest PUCT score.
    fn select(&self, node: usize, pie: bool, settings: &Settings) -> usize {
        let parent = &self.nodes[node];
        let scale = settings.exploration * (parent.visits.max(1) as f32).sqrt();
        // Unvisited children start at the parent's value for the mover.
        let first_play = if parent.visits > 0 {
            1.0 - parent.wins / parent.visits as f32
        } else {
            0.5
        };
        let first = parent.first_child as usize;
        let mut best = first;
        let mut best_score = f32::NEG_INFINITY;
        for index in first..first + usize::from(parent.child_count) {
            let child = &self.nodes[index];
            let own = if child.visits > 0 {
                child.wins / child.visits as f32
            } else {
                first_play
            };
            let mean = if settings.rave > 0.0 && child.amaf_visits > 0 {
                let (n, amaf_n) = (child.visits as f32, child.amaf_visits as f32);
                let beta = amaf_n / (amaf_n + n + n * amaf_n / settings.rave);
                (1.0 - beta) * own + beta * child.amaf_wins / amaf_n
            } else {
                own
            };
            let mean = if child.visits > 0 || child.amaf_visits > 0 {
                adjusted(mean, pie)
            } else {
                mean
            };
            let score = mean + scale * child.prior / (1 + child.visits) as f32;
            if score > best_score {
                best_score = score;
                best = index;
            }
        }
        best
    }

    /// The most visited child of `node`, the better mean among equals.
    fn best_child(&self, node: usize, pie: bool) -> usize {
        let parent = &self.nodes[node];
        let first = parent.first_child as usize;
        (first..first + usize::from(parent.child_count))
            .max_by(|&a, &b| {
                let (a, b) = (self.stats(a, pie), self.stats(b, pie));
                a.visits.cmp(&b.visits).then(a.value.total_cmp(&b.value))
            })
            .expect("the root has a move")
    }

    fn stats(&self, index: usize, pie: bool) -> MoveStats {
        let node = &self.nodes[index];
        let mean = if node.visits > 0 {
            node.wins / node.visits as f32
        } else {
            0.5
        };
        MoveStats {
            cell: usize::from(node.cell),
            visits: node.visits,
            value: adjusted(mean, pie),
        }
    }

    /// The line of most visited children from the root, as long as they have
    /// been visited.
    fn principal_line(&self, pie: bool) -> Vec<usize> {
        let mut line = Vec::new();
        let mut node = 0;
        while self.nodes[node].first_child != 0 {
            node = self.best_child(node, pie && node == 0);
            if self.nodes[node].visits == 0 {
                break;
            }
            line.push(usize::from(self.nodes[node].cell));
        }
        line
    }
}

/// The value of a mean result for White's first stone under the pie rule: the
/// opponent keeps the worse side for White.
#[inline]
fn adjusted(mean: f32, pie: bool) -> f32 {
    if pie { mean.min(1.0 - mean) } else { mean }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::Xoshiro256PlusPlus;

    use super::*;
    use crate::board::{BLACK, WHITE};

    fn search(board: &Board, pie: bool, playouts: u64, seed: u64) -> Report {
        let limits = Limits {
            playouts: Some(playouts),
            deadline: None,
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        Tree::default().search(board, pie, &Settings::default(), &limits, &mut rng)
    }

    /// White has a1 to f1 and Black a3, c3, e3 and g3: g1 completes White's
    /// row of seven (63 points more than the six), so White takes it and
    /// Black, to move, would take it away.
    fn race() -> Board {
        Board {
            blocks: 1 << 24,
            stones: [0x3f, 0b101_0101 << 14],
            mover: WHITE,
            blocks_left: 0,
        }
    }

    #[test]
    fn takes_the_row_of_seven() {
        let report = search(&race(), false, 300, 1);
        assert_eq!(report.best.cell, 6, "{report:?}");
        assert_eq!(report.line.first(), Some(&6));
        assert_eq!(report.playouts, 300);
        assert!(report.best.value > 0.5 && report.depth >= 1, "{report:?}");
    }

    #[test]
    fn the_same_seed_gives_the_same_report() {
        let mut board = race();
        board.mover = BLACK;
        let one = search(&board, false, 200, 7);
        assert_eq!(one, search(&board, false, 200, 7));
        assert_eq!(one.best.cell, 6, "Black cuts the row");
    }

    #[test]
    fn a_pie_root_avoids_a_stone_the_opponent_would_take_over() {
        // Two free cells left in a row where White already has five: a first
        // stone there wins outright, so under the pie rule it would be swapped.
        let board = Board {
            blocks: !(0x7f | 1 << 48) & crate::board::FULL & !(1 << 47),
            stones: [0b001_1111, 0],
            mover: WHITE,
            blocks_left: 0,
        };
        assert_eq!(board.free().count_ones(), 4);
        let plain = search(&board, false, 400, 3);
        let pie = search(&board, true, 400, 3);
        assert!([5, 6].contains(&plain.best.cell), "{plain:?}");
        assert!(![5, 6].contains(&pie.best.cell), "{pie:?}");
    }
}
