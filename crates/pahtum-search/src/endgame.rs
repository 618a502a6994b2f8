//! The exact endgame: alpha-beta to the last cell for the best final margin.
//!
//! When few cells are free, the engine stops estimating and plays perfectly,
//! and the analysis of games proves what each move cost. The search is
//! negamax over the *future* margin: the points the mover will still gain
//! minus the points the opponent will still gain. A stone changes only its
//! owner's points, in its row and its column ([`gain`]), so the current score
//! never enters the search, and a position's value depends only on what can
//! still change. The transposition key keeps only that:
//!
//! * the free cells where some side can still make a run of three in the
//!   row or the column ("scoring" cells); the others are *idle*: whoever
//!   takes one scores nothing and blocks nothing, so only their number
//!   counts (as moves to spend), and only one of them is tried at a node;
//! * each side's *live* stones, those in a segment of at least three of its
//!   stones and free cells that still holds a scoring cell ([`live`]); every
//!   other cell is dead for both sides alike, be it a block, a finished run
//!   or a wall of the other colour.
//!
//! So the key does not depend on the blocks, and it merges positions that
//! differ only in settled parts of the board: it cut the nodes of 20-cell
//! endgames about ninefold over a key that masked whole full lines. The value
//! is also colour-blind (it is "mover versus the other"), so the table serves
//! both colours, and it keeps its entries from search to search (they are
//! exact facts whatever the blocks). A bucket holds four entries; a new one
//! replaces one of an earlier search, or else the one of fewest free cells.
//!
//! Moves are tried in the order: the table's best move, then by the
//! knowledge's stake, which is what makes cut-offs come early. A cheap bound
//! prunes too: neither side can gain more than it would by getting every free
//! cell, line by line. The search can be stopped by a deadline; a stopped
//! search reports nothing. The analysis of games asks only for margins
//! ([`Solver::value`], no best line) and whether a move keeps one
//! ([`Solver::at_most`], a null window), which cost far less. What was tried and what paid, with the figures of
//! this crate's `examples/solver_bench.rs`: `bots/pahtum-engine/EXPERIMENTS.md`.

use std::time::Instant;

use crate::board::{Board, cells_of, gain};

/// The value stored is exact, a lower bound or an upper bound.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
enum Bound {
    #[default]
    Exact,
    Lower,
    Upper,
}

/// A position's key: the free cells and each side's stones that can still
/// change its points ([`live`]). It determines the future margin whatever
/// the blocks and the other stones are.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
struct Key {
    free: u64,
    mine: u64,
    theirs: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    /// The position (an empty slot has no free cell, which no search stores).
    key: Key,
    value: i16,
    bound: Bound,
    /// The best (or refuting) move, a cell index.
    best: u8,
    /// The search that stored it ([`Solver::age`]).
    age: u8,
}

/// The entries of one hash, aligned to the cache lines they fill.
#[derive(Clone, Copy, Debug, Default)]
#[repr(align(64))]
struct Bucket([Entry; WAYS]);

/// Entries a bucket holds (four of 32 bytes: two cache lines).
const WAYS: usize = 4;

/// How often the deadline is read, in nodes.
const CLOCK_INTERVAL: u64 = 1024;

/// The exact solver and its transposition table.
#[derive(Debug)]
pub struct Solver {
    /// Buckets of [`WAYS`] entries.
    table: Vec<Bucket>,
    /// The blocks of the position searched.
    blocks: u64,
    /// Counts the searches (wrapping), so that the entries of earlier
    /// searches give way first.
    age: u8,
    nodes: u64,
    deadline: Option<Instant>,
    stopped: bool,
    /// The best move of the last completed root search.
    root_best: usize,
}

/// The result of a completed [`Solver::outcome`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// A move (a cell index) that gets `result`; for a loss, just a move (the
    /// null window does not rank losing moves).
    pub best: usize,
    /// The mover's result with best play: `Greater` a win, `Equal` a draw,
    /// `Less` a loss.
    pub result: std::cmp::Ordering,
    /// The positions this search visited.
    pub nodes: u64,
}

/// The result of a completed search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The best move (a cell index).
    pub best: usize,
    /// The future margin for the mover with best play from both sides.
    pub value: i32,
    /// The principal variation, cell indices, starting with `best`.
    pub line: Vec<usize>,
    /// The positions this solve visited, for `info` and benchmarks.
    pub nodes: u64,
}

impl Solver {
    /// A solver whose table has `2^bits` entries (32 bytes each; `bits` at
    /// least 2).
    pub fn new(bits: u32) -> Solver {
        Solver {
            table: vec![Bucket::default(); 1 << bits.max(2) >> 2],
            blocks: 0,
            age: 0,
            nodes: 0,
            deadline: None,
            stopped: false,
            root_best: 0,
        }
    }

    /// Solves the stone phase position `board` (at least one free cell), or
    /// returns `None` if `deadline` came first.
    pub fn solve(&mut self, board: &Board, deadline: Option<Instant>) -> Option<Solution> {
        debug_assert!(board.blocks_left == 0 && board.free() != 0);
        self.start(board, deadline);
        let mine = board.stones[board.mover];
        let theirs = board.stones[board.mover ^ 1];
        let free = board.free();
        if free.count_ones() == 1 {
            let best = free.trailing_zeros() as usize;
            let value = gain(mine, best) as i32;
            return Some(Solution {
                best,
                value,
                line: vec![best],
                nodes: 1,
            });
        }
        let value = self.exact(mine, theirs, free);
        if self.stopped {
            return None;
        }
        // The rest of the line is re-searched in the warm table while the
        // deadline allows.
        let best = self.root_best;
        let bit = 1u64 << best;
        let mut line = vec![best];
        line.extend(self.principal_variation(theirs, mine | bit, free & !bit));
        Some(Solution {
            best,
            value,
            line,
            nodes: self.nodes,
        })
    }

    /// The future margin for the mover of the stone phase position `board`
    /// (at least one free cell) with best play, as [`Solution::value`]
    /// counts it, or `None` if `deadline` came first: [`Solver::solve`]
    /// without the best move and its line, so that a warm table answers at
    /// once (the analysis needs only values).
    pub fn value(&mut self, board: &Board, deadline: Option<Instant>) -> Option<i32> {
        let window = i32::from(i16::MAX);
        self.windowed(board, -window, window, deadline)
    }

    /// Whether the future margin for the mover of the stone phase position
    /// `board` (at least one free cell) with best play is at most `bound`,
    /// or `None` if `deadline` came first. A null window: it only has to
    /// refute one side of `bound`, which costs far less than the value.
    pub fn at_most(&mut self, board: &Board, bound: i32, deadline: Option<Instant>) -> Option<bool> {
        let value = self.windowed(board, bound, bound + 1, deadline)?;
        Some(value <= bound)
    }

    /// The search of `board` in the window `(alpha, beta)` from a node that
    /// is no root (it may take its value from the table), or `None` if
    /// `deadline` came first.
    fn windowed(&mut self, board: &Board, alpha: i32, beta: i32, deadline: Option<Instant>) -> Option<i32> {
        debug_assert!(board.blocks_left == 0 && board.free() != 0);
        self.start(board, deadline);
        let mine = board.stones[board.mover];
        let theirs = board.stones[board.mover ^ 1];
        let free = board.free();
        let value = self.search(mine, theirs, free, potentials(mine, theirs, free), alpha, beta, false);
        (!self.stopped).then_some(value)
    }

    /// The exact value of every move of the stone phase position `board`
    /// (at least one free cell), in cell order: the future margin for the
    /// mover after that move with best play from then on, as
    /// [`Solution::value`] counts it; or `None` if `deadline` came first.
    /// The position is solved first, so that the moves' searches find its
    /// table warm.
    pub fn move_values(&mut self, board: &Board, deadline: Option<Instant>) -> Option<Vec<(usize, i32)>> {
        self.solve(board, deadline)?;
        self.start(board, deadline);
        let mine = board.stones[board.mover];
        let theirs = board.stones[board.mover ^ 1];
        let free = board.free();
        let mut values = Vec::new();
        for cell in cells_of(free) {
            let bit = 1u64 << cell;
            let rest = free & !bit;
            let reply = match rest.count_ones() {
                0 => 0,
                1 => gain(theirs, rest.trailing_zeros() as usize) as i32,
                _ => {
                    let (child, window) = ((theirs, mine | bit, rest), i32::from(i16::MAX));
                    let potentials = potentials(child.0, child.1, child.2);
                    self.search(child.0, child.1, child.2, potentials, -window, window, false)
                }
            };
            if self.stopped {
                return None;
            }
            values.push((cell, gain(mine, cell) as i32 - reply));
        }
        Some(values)
    }

    /// Whether the mover of `board` (at least one free cell) wins, draws or
    /// loses with best play from both sides, with a move that gets that
    /// result (for a loss, any move), or `None` if `deadline` came first.
    ///
    /// A null window around the margin that would draw: the search only has
    /// to tell the three results apart, not find the margin, so it cuts off
    /// far more than [`Solver::solve`] and reaches positions with more free
    /// cells in the same time. The table is shared with `solve`.
    pub fn outcome(&mut self, board: &Board, deadline: Option<Instant>) -> Option<Outcome> {
        debug_assert!(board.blocks_left == 0 && board.free() != 0);
        self.start(board, deadline);
        let mine = board.stones[board.mover];
        let theirs = board.stones[board.mover ^ 1];
        let current = pahtum::score::points(pahtum::Bitboard(mine)) as i32
            - pahtum::score::points(pahtum::Bitboard(theirs)) as i32;
        // The future margin that leaves the final margin at zero.
        let level = -current;
        let free = board.free();
        let value = self.search(
            mine,
            theirs,
            free,
            potentials(mine, theirs, free),
            level - 1,
            level + 1,
            true,
        );
        if self.stopped {
            return None;
        }
        Some(Outcome {
            // The search has no choice to make on a single cell.
            best: if free.count_ones() == 1 {
                free.trailing_zeros() as usize
            } else {
                self.root_best
            },
            result: value.cmp(&level),
            nodes: self.nodes,
        })
    }

    /// The exact value of a position (at least two free cells), by a full
    /// window at the root, with its best move in `root_best`.
    fn exact(&mut self, mine: u64, theirs: u64, free: u64) -> i32 {
        let window = (-i32::from(i16::MAX), i32::from(i16::MAX));
        self.search(
            mine,
            theirs,
            free,
            potentials(mine, theirs, free),
            window.0,
            window.1,
            true,
        )
    }

    /// Prepares a search of `board`: its blocks, the node count and the
    /// deadline.
    fn start(&mut self, board: &Board, deadline: Option<Instant>) {
        self.blocks = board.blocks;
        self.age = self.age.wrapping_add(1);
        self.nodes = 0;
        self.deadline = deadline;
        self.stopped = false;
    }

    /// The future margin for the side with `mine`, with `free` cells left, if
    /// it lies in `(alpha, beta)`; otherwise a bound on the far side of the
    /// window (fail-soft).
    ///
    /// The `root` ignores the table and orders its moves by stake and cell
    /// index only, so that its best move (the first in that order to reach
    /// the best value, left in `root_best`) does not depend on what earlier
    /// searches left in the table.
    ///
    /// `potentials` are what the mover and the other would gain by getting
    /// every free cell ([`potentials`]), kept up to date move by move.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        mine: u64,
        theirs: u64,
        free: u64,
        potentials: [i32; 2],
        mut alpha: i32,
        mut beta: i32,
        root: bool,
    ) -> i32 {
        debug_assert_eq!(potentials, self::potentials(mine, theirs, free));
        if free & free.wrapping_sub(1) == 0 {
            // Zero or one cell left: no choice.
            return if free == 0 {
                0
            } else {
                gain(mine, free.trailing_zeros() as usize) as i32
            };
        }
        self.nodes += 1;
        if self.nodes % CLOCK_INTERVAL == 0 && self.deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        // A free cell where neither side can ever have a run of three, in
        // its row or its column, is idle: whoever takes it scores nothing
        // and blocks nothing, so the idle cells only count as moves.
        let scoring = free & (in_long_segments(mine | free) | in_long_segments(theirs | free));
        let idle = free & !scoring;
        if scoring == 0 && !root {
            return 0;
        }
        // Neither side can gain more than by getting every free cell (not at
        // the root, which must name a move).
        let most_for_me = potentials[0];
        if most_for_me <= alpha && !root {
            return most_for_me;
        }
        let least_for_me = -potentials[1];
        if least_for_me >= beta && !root {
            return least_for_me;
        }
        let key = Key {
            free: scoring | u64::from(idle.count_ones()) << pahtum::CELLS,
            mine: live(mine, scoring),
            theirs: live(theirs, scoring),
        };
        let bucket = self.bucket(&key);
        let found = self.table[bucket].0.iter().find(|entry| entry.key == key).copied();
        let mut first = None;
        if let Some(entry) = found.filter(|_| !root) {
            let value = i32::from(entry.value);
            match entry.bound {
                Bound::Exact => return value,
                Bound::Lower => alpha = alpha.max(value),
                Bound::Upper => beta = beta.min(value),
            }
            if alpha >= beta {
                return value;
            }
            first = Some(usize::from(entry.best));
        }
        let (alpha_in, beta_in) = (alpha, beta);
        let mut moves = [(0i32, 0usize, 0i32); pahtum::CELLS];
        let mut count = 0;
        let board = Board {
            blocks: self.blocks,
            stones: [mine, theirs],
            mover: 0,
            blocks_left: 0,
        };
        // Idle cells are all alike: only the first is tried.
        for cell in cells_of(scoring | idle & idle.wrapping_neg()) {
            let my_gain = gain(mine, cell) as i32;
            let swing = if first == Some(cell) {
                i32::MAX
            } else {
                (crate::knowledge::stake(&board, cell) * 64.0) as i32
            };
            moves[count] = (swing, cell, my_gain);
            count += 1;
        }
        let moves = &mut moves[..count];
        let mut best_value = i32::MIN;
        let mut best_cell = moves[0].1;
        for index in 0..moves.len() {
            // The next move in the order, picked when needed (a cut-off
            // often comes first): the highest swing, the lowest cell among
            // equals.
            let mut next = index;
            for other in index + 1..moves.len() {
                if (moves[other].0, moves[next].1) > (moves[next].0, moves[other].1) {
                    next = other;
                }
            }
            moves.swap(index, next);
            let (_, cell, my_gain) = moves[index];
            let bit = 1u64 << cell;
            // The other loses the cell from what it could get; the mover's
            // potential drops by what the cell scored.
            let after = [potentials[1] - lost(theirs | free, cell), potentials[0] - my_gain];
            let value = my_gain
                - self.search(
                    theirs,
                    mine | bit,
                    free & !bit,
                    after,
                    my_gain - beta,
                    my_gain - alpha,
                    false,
                );
            if self.stopped {
                return 0;
            }
            if value > best_value {
                best_value = value;
                best_cell = cell;
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        let bound = if best_value <= alpha_in {
            Bound::Upper
        } else if best_value >= beta_in {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.store(
            bucket,
            Entry {
                key,
                value: best_value as i16,
                bound,
                best: best_cell as u8,
                age: self.age,
            },
        );
        if root {
            self.root_best = best_cell;
        }
        best_value
    }

    /// The bucket of a key.
    fn bucket(&self, key: &Key) -> usize {
        let hash =
            (key.mine ^ key.theirs.rotate_left(23) ^ key.free.rotate_left(41)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (hash >> 20) as usize & (self.table.len() - 1)
    }

    /// Stores `entry` in its bucket: over its own older entry if there is
    /// one; otherwise over an entry of an earlier search, or else over the
    /// one of fewest free cells (the cheapest to search again), the last
    /// among equals.
    fn store(&mut self, bucket: usize, entry: Entry) {
        let ways = &mut self.table[bucket].0;
        if let Some(way) = ways.iter_mut().find(|way| way.key == entry.key) {
            *way = entry;
        } else {
            let worth = |way: &Entry| (way.age == entry.age, way.key.free.count_ones());
            let mut victim = WAYS - 1;
            for index in (0..WAYS - 1).rev() {
                if worth(&ways[index]) < worth(&ways[victim]) {
                    victim = index;
                }
            }
            ways[victim] = entry;
        }
    }

    /// The best line from a position: at each ply the best move as the root
    /// search picks it (the first in its fixed order to reach the exact
    /// value), searched again in the warm table; cut short at the deadline.
    fn principal_variation(&mut self, mut mine: u64, mut theirs: u64, mut free: u64) -> Vec<usize> {
        let mut line = Vec::new();
        while free != 0 {
            let cell = if free.count_ones() == 1 {
                free.trailing_zeros() as usize
            } else {
                self.exact(mine, theirs, free);
                if self.stopped {
                    break;
                }
                self.root_best
            };
            line.push(cell);
            let bit = 1u64 << cell;
            (mine, theirs, free) = (theirs, mine | bit, free & !bit);
        }
        self.stopped = false;
        line
    }
}

/// The stones of `stones` that can still score more: those joined to a free
/// cell in their row or their column by stones of theirs and free cells.
/// The others are in runs that can no longer grow, and neither are they
/// walls for anyone's runs that a dead cell would not be.
fn live(stones: u64, free: u64) -> u64 {
    let own = stones | free;
    let along_rows = fill_up(free, own & !FIRST_COLUMN, 1) | fill_down(free, own & !LAST_COLUMN, 1);
    let along_columns = fill_up(free, own, pahtum::SIZE) | fill_down(free, own, pahtum::SIZE);
    stones & (along_rows & long_rows(own) | along_columns & long_columns(own))
}

/// `seeds` and the cells reached from them by steps of `step` towards
/// higher cell indices through `through` (the cells a step may enter), for
/// up to seven steps: a fill in three shifts (Kogge-Stone).
fn fill_up(seeds: u64, through: u64, step: usize) -> u64 {
    let (mut reached, mut through) = (seeds, through);
    reached |= through & reached << step;
    through &= through << step;
    reached |= through & reached << (2 * step);
    through &= through << (2 * step);
    reached | through & reached << (4 * step)
}

/// [`fill_up`] towards lower cell indices.
fn fill_down(seeds: u64, through: u64, step: usize) -> u64 {
    let (mut reached, mut through) = (seeds, through);
    reached |= through & reached >> step;
    through &= through >> step;
    reached |= through & reached >> (2 * step);
    through &= through >> (2 * step);
    reached | through & reached >> (4 * step)
}

/// The cells of `cells` in a segment of at least three of them in their row
/// or their column: where a run that scores can still be.
fn in_long_segments(cells: u64) -> u64 {
    long_rows(cells) | long_columns(cells)
}

/// The cells of `cells` in a segment of at least three of them in their row.
fn long_rows(cells: u64) -> u64 {
    let pairs = cells & (cells >> 1 & !LAST_COLUMN);
    let triples = pairs & (pairs >> 1 & !LAST_COLUMN);
    triples | triples << 1 | triples << 2
}

/// The cells of `cells` in a segment of at least three of them in their
/// column.
fn long_columns(cells: u64) -> u64 {
    let pairs = cells & cells >> pahtum::SIZE;
    let triples = pairs & pairs >> pahtum::SIZE;
    triples | triples << pahtum::SIZE | triples << (2 * pahtum::SIZE)
}

/// The cells of the first column (`a`) and of the last (`g`).
const FIRST_COLUMN: u64 = 0x0000_0408_1020_4081;
const LAST_COLUMN: u64 = FIRST_COLUMN << (pahtum::SIZE - 1);

/// What the mover (`mine`) and the other would gain by getting every `free`
/// cell.
fn potentials(mine: u64, theirs: u64, free: u64) -> [i32; 2] {
    [potential(mine, free), potential(theirs, free)]
}

/// The points that `open` (a side's stones and the free cells) lose in the
/// row and the column of `cell` when `cell` leaves it.
fn lost(open: u64, cell: usize) -> i32 {
    gain(open & !(1 << cell), cell) as i32
}

/// The points `stones` would gain by getting every `free` cell.
fn potential(stones: u64, free: u64) -> i32 {
    use pahtum::score::{LINE_POINTS, column_line, row_line};
    let all = stones | free;
    let mut total = 0;
    for line in 0..pahtum::SIZE {
        total += LINE_POINTS[row_line(all, line)] + LINE_POINTS[column_line(all, line)]
            - LINE_POINTS[row_line(stones, line)]
            - LINE_POINTS[column_line(stones, line)];
    }
    total as i32
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::board::{BLACK, WHITE};

    /// Plain minimax over every order of the free cells, on the full score.
    fn brute_force(board: &Board) -> i32 {
        let free = board.free();
        if free == 0 {
            let margin = board.margin();
            return if board.mover == WHITE { margin } else { -margin };
        }
        cells_of(free)
            .map(|cell| {
                let mut next = *board;
                next.play(cell);
                -brute_force(&next)
            })
            .max()
            .unwrap()
    }

    /// A random position with `free` free cells, from a seed: blocks, then
    /// stones of both colours, the mover by parity.
    fn position(seed: u64, blocks: u32, free: u32) -> Board {
        let mut cells: Vec<usize> = (0..pahtum::CELLS).collect();
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        for i in (1..cells.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            cells.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let mut board = Board {
            blocks: 0,
            stones: [0, 0],
            mover: WHITE,
            blocks_left: 0,
        };
        for &cell in &cells[..blocks as usize] {
            board.blocks |= 1 << cell;
        }
        let stones = pahtum::CELLS - blocks as usize - free as usize;
        for (i, &cell) in cells[blocks as usize..blocks as usize + stones].iter().enumerate() {
            board.stones[i % 2] |= 1 << cell;
        }
        board.mover = if stones % 2 == 0 { WHITE } else { BLACK };
        board
    }

    /// The final margin for the mover after playing `line` from `board`.
    fn margin_after(board: &Board, line: &[usize]) -> i32 {
        let mut end = *board;
        for &cell in line {
            end.play(cell);
        }
        assert_eq!(end.free(), 0, "the line fills the board");
        let margin = end.margin() - board.margin();
        if board.mover == WHITE { margin } else { -margin }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn matches_brute_force(seed in any::<u64>(), blocks in 0u32..8, free in 1u32..=8) {
            let board = position(seed, blocks * 2 + 1, free);
            let mut solver = Solver::new(12);
            let solution = solver.solve(&board, None).unwrap();
            let current = if board.mover == WHITE { board.margin() } else { -board.margin() };
            prop_assert_eq!(solution.value + current, brute_force(&board));
            prop_assert_eq!(margin_after(&board, &solution.line), solution.value);
            prop_assert_eq!(solution.line.len(), free as usize);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn the_value_and_its_null_windows_agree_with_the_solution(seed in any::<u64>(), blocks in 0u32..8, free in 1u32..=10) {
            let board = position(seed, blocks * 2 + 1, free);
            let exact = Solver::new(12).solve(&board, None).unwrap().value;
            let mut warm = Solver::new(12);
            prop_assert_eq!(warm.value(&board, None), Some(exact));
            for bound in [exact - 1, exact, exact + 1] {
                prop_assert_eq!(warm.at_most(&board, bound, None), Some(exact <= bound));
                prop_assert_eq!(Solver::new(12).at_most(&board, bound, None), Some(exact <= bound));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn the_outcome_is_the_sign_of_the_exact_margin(seed in any::<u64>(), blocks in 0u32..8, free in 1u32..=10) {
            let board = position(seed, blocks * 2 + 1, free);
            let exact = Solver::new(12).solve(&board, None).unwrap();
            let current = if board.mover == WHITE { board.margin() } else { -board.margin() };
            let outcome = Solver::new(12).outcome(&board, None).unwrap();
            prop_assert_eq!(outcome.result, (exact.value + current).cmp(&0));
            // The move gets the result (a loss is lost whatever the move).
            let mut after = board;
            after.play(outcome.best);
            let then = if after.free() == 0 {
                0
            } else {
                Solver::new(12).solve(&after, None).unwrap().value
            };
            let final_margin = gain(board.stones[board.mover], outcome.best) as i32 - then + current;
            if outcome.result != std::cmp::Ordering::Less {
                prop_assert_eq!(final_margin.cmp(&0), outcome.result);
            }
        }
    }

    /// A table kept from earlier searches (of other positions with the same
    /// blocks) changes nothing.
    #[test]
    fn a_warm_table_gives_the_same_values() {
        let base = position(1, 9, 9);
        let mut warm = Solver::new(10);
        for (first, second) in cells_of(base.free()).zip(cells_of(base.free()).skip(3)) {
            let mut board = base;
            board.play(first);
            board.play(second);
            let cold = Solver::new(10).solve(&board, None).unwrap();
            let again = warm.solve(&board, None).unwrap();
            assert_eq!(cold.value, again.value);
            assert_eq!(margin_after(&board, &again.line), again.value);
        }
    }

    #[test]
    fn a_passed_deadline_stops_the_search() {
        let board = position(5, 5, 30);
        let mut solver = Solver::new(12);
        assert_eq!(solver.solve(&board, Some(Instant::now())), None);
        assert_eq!(solver.value(&board, Some(Instant::now())), None);
        assert_eq!(solver.at_most(&board, 0, Some(Instant::now())), None);
    }
}
