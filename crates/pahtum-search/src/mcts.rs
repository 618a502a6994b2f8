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
//! Nodes live in one vector, children of a node side by side, in the order
//! of their cells. Each node keeps its blended mean, recomputed when its
//! statistics change: a selection reads every child's, an update changes
//! only some. A node is expanded (its children created) on its second visit,
//! which halves the memory for the same search; when the vector is full the
//! tree stops growing and the search goes on with playouts from its leaves.
//!
//! The tree outlives its search: two plies later (the engine's move and the
//! reply) the position is usually a grandchild of the old root, and the
//! playouts already spent below it are worth keeping, so the next search
//! starts from that subtree, copied to the front of the vector (the analysis
//! of a game, which searches every position in turn, moves the root one move
//! on instead: [`Tree::reroot`]). When asked to (with a game clock, where
//! time saved is spent later), a search also stops before its deadline once
//! the remaining time could not change the most visited move, leaving the
//! time to positions that are still unclear.
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
    /// The share of a playout's value that comes from its final margin
    /// rather than its result (0: the result alone), so that between two
    /// lines that draw alike the search prefers the one that wins by more or
    /// loses by less.
    pub margin_weight: f32,
    /// How much less than one half a draw is worth to the root's mover (and
    /// more to the opponent): 0 values a draw at one half.
    pub contempt: f32,
    /// Whether a search starts from the subtree the previous search left for
    /// its position (see [`Tree::search`]).
    pub keep_tree: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            exploration: 0.5,
            temperature: 2.0,
            max_nodes: 1 << 21,
            epsilon: 0.03,
            rave: 500.0,
            margin_weight: 0.0,
            contempt: 0.0,
            keep_tree: true,
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
    /// Also stop before the deadline once the most visited move cannot change
    /// any more: worth it only where the time saved is spent later (a game
    /// clock); under a per-move limit the extra playouts still grow the
    /// subtree that the next search keeps.
    pub stop_when_decided: bool,
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
    /// How many playouts of the previous search it started from (0 when it
    /// started afresh).
    pub kept: u32,
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
    /// The mean that selection reads ([`Node::blended`]), kept up to date
    /// as the statistics change, which is far less often than a selection
    /// reads it.
    mean: f32,
    /// Index of the first child; 0 while the node is not expanded.
    first_child: u32,
    child_count: u8,
    cell: u8,
}

impl Node {
    /// The mean result for the player who moved into this node, blended
    /// with its all-moves-as-first mean by `rave` (see [`Settings::rave`]);
    /// meaningless while both have no visits. Unvisited, the blend's weight
    /// is all on the all-moves-as-first mean.
    #[inline]
    fn blended(&self, rave: f32) -> f32 {
        let own = if self.visits > 0 {
            self.wins / self.visits as f32
        } else {
            0.0
        };
        if rave > 0.0 && self.amaf_visits > 0 {
            let (n, amaf_n) = (self.visits as f32, self.amaf_visits as f32);
            let beta = amaf_n / (amaf_n + n + n * amaf_n / rave);
            (1.0 - beta) * own + beta * self.amaf_wins / amaf_n
        } else {
            own
        }
    }
}

/// A reusable search tree (the vector is kept between searches).
#[derive(Debug, Default)]
pub struct Tree {
    nodes: Vec<Node>,
    /// Where a kept subtree is copied to (then swapped with `nodes`).
    spare: Vec<Node>,
    /// The position at the root of `nodes` and the settings it was searched
    /// with, while its subtrees may be kept for a later search.
    root: Option<(Board, Settings)>,
    /// The position [`Tree::reroot`] made the root, for the next search.
    rerooted: Option<Board>,
}

impl Tree {
    /// Searches `board` (at least one free cell) within `limits`. With `pie`,
    /// the root is White's first stone under the pie rule.
    ///
    /// With `settings.keep_tree`, a search starts from what the previous one
    /// learnt when `board` is two stones (one of each colour) after that
    /// search's root, searched with the same settings, and the tree holds that
    /// position: the subtree is kept and the rest dropped.
    pub fn search<R: Rng>(
        &mut self,
        board: &Board,
        pie: bool,
        settings: &Settings,
        limits: &Limits,
        rng: &mut R,
    ) -> Report {
        debug_assert!(board.free() != 0);
        let may_keep = settings.keep_tree && !pie;
        let previous = self.root.take();
        let rerooted = self.rerooted.take() == Some(*board);
        if !(rerooted
            || may_keep
                && previous.is_some_and(|(old, old_settings)| old_settings == *settings && self.keep(&old, board)))
        {
            self.nodes.clear();
            self.nodes.push(Node {
                wins: 0.0,
                visits: 0,
                prior: 1.0,
                amaf_wins: 0.0,
                amaf_visits: 0,
                mean: 0.0,
                first_child: 0,
                child_count: 0,
                cell: 0,
            });
            self.expand(0, board, !pie, settings);
        }
        self.root = may_keep.then_some((*board, *settings));
        let kept = self.nodes[0].visits;
        let mut playouts = 0u64;
        let mut depth = 0;
        let mut path = Vec::with_capacity(pahtum::CELLS + 1);
        let start = Instant::now();
        loop {
            if limits.playouts.is_some_and(|limit| playouts >= limit) {
                break;
            }
            if let Some(deadline) = limits.deadline {
                let now = Instant::now();
                if now >= deadline {
                    break;
                }
                if limits.stop_when_decided
                    && playouts % DECIDED_CHECK == DECIDED_CHECK - 1
                    && self.decided(start, now, deadline, playouts)
                {
                    break;
                }
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
            kept,
            depth,
        }
    }

    /// Makes the node of `board` the root, if `board` is one stone of the
    /// mover of `old` (the root's position) and then one of the other colour
    /// after it, and the tree has expanded that node; says whether it did.
    fn keep(&mut self, old: &Board, board: &Board) -> bool {
        if old.blocks != board.blocks || old.mover != board.mover || old.blocks_left + board.blocks_left != 0 {
            return false;
        }
        let added = |color: usize| board.stones[color] & !old.stones[color];
        let removed = (old.stones[0] & !board.stones[0]) | (old.stones[1] & !board.stones[1]);
        let (mine, theirs) = (added(old.mover), added(old.mover ^ 1));
        if removed != 0 || mine.count_ones() != 1 || theirs.count_ones() != 1 {
            return false;
        }
        let kept = self
            .child_on(0, mine.trailing_zeros())
            .and_then(|child| self.child_on(child, theirs.trailing_zeros()))
            .filter(|&node| self.nodes[node].first_child != 0);
        let Some(kept) = kept else {
            return false;
        };
        self.lift(kept);
        true
    }

    /// Makes `board` the root for the next search, which must be run with
    /// the settings of the last one: `board` is the last search's root
    /// (`last`) or the position one move after it, and what the last search
    /// learnt below that move is kept. Returns the visits kept at the new
    /// root: 0 where the tree holds nothing of `board` (the next search
    /// starts afresh).
    ///
    /// This is how the analysis of a game follows its moves: the engine,
    /// which searches every other position, keeps its tree with
    /// [`Settings::keep_tree`] instead.
    pub fn reroot(&mut self, last: &Board, board: &Board) -> u32 {
        self.rerooted = None;
        if self.nodes.is_empty() {
            return 0;
        }
        let node = if last == board {
            Some(0)
        } else {
            let taken = last.free() & !board.free();
            let mut next = *last;
            if taken.count_ones() == 1 {
                next.play(taken.trailing_zeros() as usize);
            }
            (next == *board)
                .then(|| self.child_on(0, taken.trailing_zeros()))
                .flatten()
        };
        let Some(node) = node.filter(|&node| self.nodes[node].first_child != 0) else {
            return 0;
        };
        if node != 0 {
            self.lift(node);
        }
        self.rerooted = Some(*board);
        self.nodes[0].visits
    }

    /// Makes the node `kept` the root, with its subtree, and drops the rest.
    fn lift(&mut self, kept: usize) {
        // Copies the subtree breadth first, children still side by side.
        self.spare.clear();
        self.spare.push(self.nodes[kept]);
        let mut next = 0;
        while next < self.spare.len() {
            let node = self.spare[next];
            if node.first_child != 0 {
                let first = node.first_child as usize;
                self.spare[next].first_child = self.spare.len() as u32;
                self.spare
                    .extend_from_slice(&self.nodes[first..first + usize::from(node.child_count)]);
            }
            next += 1;
        }
        std::mem::swap(&mut self.nodes, &mut self.spare);
    }

    /// The child of `node` on `cell`, if `node` is expanded.
    fn child_on(&self, node: usize, cell: u32) -> Option<usize> {
        let parent = &self.nodes[node];
        let first = parent.first_child as usize;
        if first == 0 {
            return None;
        }
        (first..first + usize::from(parent.child_count)).find(|&child| u32::from(self.nodes[child].cell) == cell)
    }

    /// Whether the most visited root move is sure to stay so until the
    /// deadline: its lead over the runner-up exceeds the playouts the rest of
    /// the time allows at the rate so far. The move cannot change, so the
    /// time is better kept.
    fn decided(&self, start: Instant, now: Instant, deadline: Instant, playouts: u64) -> bool {
        let elapsed = (now - start).as_secs_f64();
        let playouts_left = playouts as f64 / elapsed.max(1e-9) * (deadline - now).as_secs_f64();
        let root = &self.nodes[0];
        let first = root.first_child as usize;
        let (mut most, mut second) = (0, 0);
        for child in &self.nodes[first..first + usize::from(root.child_count)] {
            if child.visits > most {
                (most, second) = (child.visits, most);
            } else if child.visits > second {
                second = child.visits;
            }
        }
        f64::from(most - second) > playouts_left
    }

    /// One selection, expansion, playout and update; returns the depth reached.
    fn iterate<R: Rng>(
        &mut self,
        root: &Board,
        pie: bool,
        settings: &Settings,
        rng: &mut R,
        path: &mut Vec<(u32, u64)>,
    ) -> u32 {
        let mut board = *root;
        // Each node of the path with the free cells of its position: its
        // children's cells, in order.
        path.clear();
        path.push((0, board.free()));
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
            path.push((node as u32, board.free()));
        }
        let end = playout(&board, settings.epsilon, rng);
        let white_result = value_for_white(&end, root.mover, settings);
        // The player who moved into the node at depth d is the root's mover
        // for odd d; the root itself is credited to the other colour.
        for (depth, &(index, free)) in path.iter().enumerate() {
            let mover = root.mover ^ (depth & 1) ^ 1;
            let node = &mut self.nodes[index as usize];
            node.visits += 1;
            node.wins += result_for(mover, white_result);
            node.mean = node.blended(settings.rave);
            let first = node.first_child as usize;
            if settings.rave > 0.0 && first != 0 && depth as u32 >= root.blocks_left {
                // The children's mover is this node's other colour; its
                // cells' children, found by their rank among the free cells.
                let chooser = mover ^ 1;
                let result = result_for(chooser, white_result);
                for cell in cells_of(end.stones[chooser] & free) {
                    let child = &mut self.nodes[first + (free & ((1 << cell) - 1)).count_ones() as usize];
                    child.amaf_visits += 1;
                    child.amaf_wins += result;
                    child.mean = child.blended(settings.rave);
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
                mean: 0.0,
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
            let mean = if child.visits > 0 || child.amaf_visits > 0 {
                adjusted(child.mean, pie)
            } else {
                first_play
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

/// Playouts between two checks of whether the root's choice is decided.
const DECIDED_CHECK: u64 = 256;

/// Points of final margin at which the margin's part of a playout's value is
/// about three quarters of the way from even to won: a row of five against
/// nothing.
const MARGIN_SCALE: f32 = 25.0;

/// The value for White of the full board `end` of a playout from a root where
/// `root_mover` is to move: the result (a draw shifted by the contempt against
/// the root's mover), blended with a squashed final margin.
fn value_for_white(end: &Board, root_mover: usize, settings: &Settings) -> f32 {
    let margin = end.margin();
    let result = if margin == 0 {
        result_for(root_mover, 0.5 - settings.contempt)
    } else {
        result_for_white(end)
    };
    if settings.margin_weight == 0.0 {
        return result;
    }
    let by_margin = 0.5 + 0.5 * (margin as f32 / MARGIN_SCALE).tanh();
    (1.0 - settings.margin_weight) * result + settings.margin_weight * by_margin
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
            stop_when_decided: true,
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

    /// Every expanded node's children hold its visits but the one that
    /// expanded it (none for a root expanded at creation).
    fn assert_consistent(tree: &Tree) {
        for node in &tree.nodes {
            if node.first_child != 0 {
                let first = node.first_child as usize;
                let children = &tree.nodes[first..first + usize::from(node.child_count)];
                let visits: u32 = children.iter().map(|child| child.visits).sum();
                assert!(node.visits - visits <= 1, "{node:?}: children's visits {visits}");
            }
        }
    }

    #[test]
    fn the_subtree_of_the_position_two_stones_on_is_kept() {
        let board =
            Board::from_game(&pahtum::Game::with_blocks(pahtum::setup::random_blocks(9, 5).unwrap(), false).unwrap());
        let limits = Limits {
            playouts: Some(3000),
            deadline: None,
            stop_when_decided: true,
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let mut tree = Tree::default();
        let settings = Settings::default();
        let first = tree.search(&board, false, &settings, &limits, &mut rng);
        assert_eq!(first.kept, 0);
        let mut next = board;
        next.play(first.line[0]);
        next.play(first.line[1]);
        let second = tree.search(&next, false, &settings, &limits, &mut rng);
        assert!(second.kept > 0 && second.kept < 3000, "{second:?}");
        assert_eq!(tree.nodes[0].visits, second.kept + 3000);
        assert!(next.free() & 1 << second.best.cell != 0);
        assert_consistent(&tree);
        // A position four stones on, or other settings, start afresh.
        for &cell in &second.line[..4] {
            next.play(cell);
        }
        let third = tree.search(&next, false, &settings, &limits, &mut rng);
        assert_eq!(third.kept, 0);
        next.play(third.line[0]);
        next.play(third.line[1]);
        let fresh = Settings {
            keep_tree: false,
            ..settings
        };
        assert_eq!(tree.search(&next, false, &fresh, &limits, &mut rng).kept, 0);
    }

    #[test]
    fn a_rerooted_search_goes_on_from_the_position_one_move_on() {
        let board =
            Board::from_game(&pahtum::Game::with_blocks(pahtum::setup::random_blocks(9, 6).unwrap(), false).unwrap());
        let limits = |playouts| Limits {
            playouts: Some(playouts),
            deadline: None,
            stop_when_decided: false,
        };
        let settings = Settings {
            keep_tree: false,
            ..Settings::default()
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut tree = Tree::default();
        let first = tree.search(&board, false, &settings, &limits(2000), &mut rng);
        let mut next = board;
        next.play(first.best.cell);
        let kept = tree.reroot(&board, &next);
        assert_eq!(kept, first.best.visits, "the best move's playouts are kept");
        let second = tree.search(&next, false, &settings, &limits(500), &mut rng);
        assert_eq!((second.kept, tree.nodes[0].visits), (kept, kept + 500));
        assert_consistent(&tree);
        // The same position again keeps it all; a position two moves on, or a
        // move the tree never expanded, nothing.
        assert_eq!(tree.reroot(&next, &next), kept + 500);
        assert_eq!(
            tree.search(&next, false, &settings, &limits(0), &mut rng).best,
            second.best
        );
        let mut far = next;
        far.play(second.line[0]);
        far.play(second.line[1]);
        assert_eq!(tree.reroot(&next, &far), 0);
        assert_eq!(tree.search(&far, false, &settings, &limits(10), &mut rng).kept, 0);
        let unexplored = cells_of(far.free()).last().unwrap();
        let mut unseen = far;
        unseen.play(unexplored);
        assert_eq!(tree.reroot(&far, &unseen), 0);
        assert_eq!(Tree::default().reroot(&far, &unseen), 0);
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
