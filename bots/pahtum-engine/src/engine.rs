//! The engine as a protocol player: one decision per request, by phase.
//!
//! * **Stones.** With few free cells left, the exact endgame; otherwise (or if
//!   the exact search does not finish in its half of the time) the tree
//!   search, preceded from a few more free cells by the outcome search (win,
//!   draw or loss), which plays a won position itself and keeps the tree
//!   from giving a drawn one away. The exact search keeps its table between
//!   moves, so a search that ran out of time makes the next one faster.
//! * **White's first stone under the pie rule.** The tree search with a pie
//!   root: it looks for the stone whose position is closest to even, because
//!   the opponent will take whichever side is better.
//! * **The pie decision.** The tree search from the position as it is (Black
//!   to move); the engine swaps exactly when White's expected result is above
//!   one half, that is when White's position is the better one.
//! * **Block placement.** The tree search, with the remaining blocks placed at
//!   random in the playouts.
//!
//! Every request gets a fresh random generator seeded from the engine's seed
//! and the position, so that with a fixed number of playouts the same request
//! always gets the same answer, whatever came before.

use std::cmp::Ordering;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Instant;

use pahtum::{Action, Cell, Game, Phase};
use pahtum_protocol::bot::{Identity, Player};
use pahtum_protocol::{Clock, Info};
use pahtum_search::board::{BLACK, Board, cells_of, gain};
use pahtum_search::endgame::{Solution, Solver};
use pahtum_search::knowledge::{best_stake, outlook};
use pahtum_search::mcts::{Limits, Report, Settings, Tree};
use pahtum_search::playout::below;
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

use crate::options::{Options, StopDecided};

/// Entries of the exact endgame's table, as a power of two (24 bytes each).
const TABLE_BITS: u32 = 20;
/// Up to this many free cells the exact search may use all the think time;
/// above, half of it, and the tree search gets the rest if it fails.
const EXACT_ALWAYS: u32 = 14;

/// The reference engine.
#[derive(Debug)]
pub struct Engine {
    options: Options,
    seed: u64,
    tree: Tree,
    solver: Solver,
    /// Whether the current decision's tree searches may stop early.
    stop_when_decided: bool,
}

impl Engine {
    /// An engine with `options`; allocates its tables now, before any clock runs.
    pub fn new(options: Options) -> Engine {
        let seed = options.seed.unwrap_or_else(rand::random);
        // Builds the knowledge table now rather than on the first request.
        pahtum_search::knowledge::expected(0, 0);
        Engine {
            options,
            seed,
            tree: Tree::default(),
            solver: Solver::new(TABLE_BITS),
            stop_when_decided: true,
        }
    }

    /// An engine from command-line arguments (without a program name), as
    /// `arena bot engine ARGS...` passes them.
    pub fn from_args(args: &[String]) -> Result<Engine, clap::Error> {
        Ok(Engine::new(Options::parse_args(args)?))
    }

    /// The decision for `game`, thinking until `deadline` at most; with
    /// `stop_when_decided`, a tree search stops early once its choice cannot
    /// change (see [`Limits::stop_when_decided`]).
    pub fn decide(&mut self, game: &Game, deadline: Instant, stop_when_decided: bool) -> (Action, Info) {
        self.stop_when_decided = stop_when_decided;
        let board = Board::from_game(game);
        let mut rng = self.generator(&board);
        match game.phase() {
            Phase::PlaceBlocks => {
                let (cell, info) = self.choose_cell(&board, false, deadline, &mut rng);
                (Action::Block(cell), info)
            }
            Phase::FirstStone | Phase::Stones => {
                let pie = game.phase() == Phase::FirstStone && game.pie_rule();
                let (cell, info) = self.choose_cell(&board, pie, deadline, &mut rng);
                (Action::Stone(cell), info)
            }
            Phase::PieDecision => self.pie_decision(&board, deadline, &mut rng),
            // Never asked: a finished game has no decision; keep is harmless.
            Phase::Finished => (Action::Pie(false), Info::default()),
        }
    }

    fn generator(&self, board: &Board) -> Xoshiro256PlusPlus {
        let mut hasher = DefaultHasher::new();
        (self.seed, board).hash(&mut hasher);
        Xoshiro256PlusPlus::seed_from_u64(hasher.finish())
    }

    /// A block or a stone (`pie`: White's first stone under the pie rule).
    fn choose_cell(
        &mut self,
        board: &Board,
        pie: bool,
        deadline: Instant,
        rng: &mut Xoshiro256PlusPlus,
    ) -> (Cell, Info) {
        if self.options.level == 0 {
            return one_ply(board, pie, rng);
        }
        let free = board.free().count_ones();
        let mut time_for_tree = deadline;
        if pie && free <= self.options.exact_from() + 1 {
            if let Some(answer) = self.exact_first_stone(board, deadline) {
                return answer;
            }
            time_for_tree = deadline.max(Instant::now());
        } else if board.blocks_left == 0 && !pie && free <= self.options.exact_from() {
            let now = Instant::now();
            let exact_deadline = if free <= EXACT_ALWAYS || deadline <= now {
                deadline
            } else {
                now + (deadline - now) / 2
            };
            if let Some(solution) = self.solver.solve(board, Some(exact_deadline)) {
                let final_margin = solution.value + mover_margin(board);
                let trap = (free <= self.options.trap_cells)
                    .then(|| self.most_traps(board, &solution, deadline))
                    .flatten();
                let (best, comment) = match trap {
                    Some((stone, mistakes)) => (
                        stone,
                        format!(
                            "exact: final margin {final_margin:+} for the mover; {mistakes} replies would give some away"
                        ),
                    ),
                    None => (
                        solution.best,
                        format!("exact: final margin {final_margin:+} for the mover"),
                    ),
                };
                let info = Info {
                    eval: Some(f64::from(final_margin.signum() + 1) / 2.0),
                    depth: Some(free),
                    nodes: Some(solution.nodes),
                    pv: Some(notation(&solution.line)).filter(|_| best == solution.best),
                    comment: Some(comment),
                };
                return (cell(best), info);
            }
            time_for_tree = deadline.max(Instant::now());
        }
        let oracle = (board.blocks_left == 0 && !pie && free <= self.options.outcome_from())
            .then(|| {
                let now = Instant::now();
                self.solver
                    .outcome(board, Some(now + time_for_tree.saturating_duration_since(now) / 3))
            })
            .flatten();
        if let Some(win) = oracle.filter(|outcome| outcome.result == Ordering::Greater) {
            let info = Info {
                eval: Some(1.0),
                depth: Some(free),
                nodes: Some(win.nodes),
                pv: None,
                comment: Some("outcome: a win with best play".to_owned()),
            };
            return (cell(win.best), info);
        }
        let draw = oracle.filter(|outcome| outcome.result == Ordering::Equal);
        // A drawn position keeps a share of the time to check the tree's move.
        let tree_deadline = match draw {
            Some(_) => {
                let now = Instant::now();
                now + time_for_tree.saturating_duration_since(now) * 2 / 3
            }
            None => time_for_tree,
        };
        let report = self.search(board, pie, &self.options.settings(), tree_deadline, rng);
        let unsafe_move = draw.filter(|draw| {
            report.best.cell != draw.best && !self.keeps_the_draw(board, report.best.cell, time_for_tree)
        });
        if let Some(draw) = unsafe_move {
            let info = Info {
                eval: Some(0.5),
                depth: Some(free),
                nodes: Some(draw.nodes),
                pv: None,
                comment: Some(format!(
                    "outcome: a draw with best play; the tree's {} would not be proven to keep it",
                    cell(report.best.cell)
                )),
            };
            return (cell(draw.best), info);
        }
        let info = Info {
            eval: Some(f64::from(report.best.value)),
            depth: Some(report.depth),
            nodes: Some(report.playouts),
            pv: Some(notation(&report.line)),
            comment: Some(if pie {
                "tree search, first stone under the pie rule: eval is the worse side's expected result".to_owned()
            } else {
                let verdict = match oracle.map(|outcome| outcome.result) {
                    Some(Ordering::Equal) => "outcome: a draw with best play, the tree's move keeps it; ",
                    Some(_) => "outcome: a loss with best play; ",
                    None => "",
                };
                let kept = match report.kept {
                    0 => String::new(),
                    kept => format!(", {kept} playouts kept from the previous move"),
                };
                format!("{verdict}tree search{kept}: eval is the expected result, 1 a win")
            }),
        };
        (cell(report.best.cell), info)
    }

    /// Whether the mover of the drawn `board` still draws at least after
    /// `stone`, proven before `deadline` (unproven: no).
    fn keeps_the_draw(&mut self, board: &Board, stone: usize, deadline: Instant) -> bool {
        let mut after = *board;
        after.play(stone);
        if after.free() == 0 {
            return mover_margin(&after) <= 0;
        }
        self.solver
            .outcome(&after, Some(deadline))
            .is_some_and(|reply| reply.result != Ordering::Greater)
    }

    /// Among the moves that keep the exact value of `board`, the one that
    /// leaves the opponent the most replies that give some of it away, with
    /// their number: a perfect opponent cannot tell the moves apart, a
    /// fallible one may go wrong. The solver's own move unless another has
    /// strictly more such replies; `None` if the deadline came first.
    fn most_traps(&mut self, board: &Board, solution: &Solution, deadline: Instant) -> Option<(usize, u32)> {
        let mut best: Option<(usize, u32)> = None;
        for stone in cells_of(board.free()) {
            let mut after = *board;
            after.play(stone);
            if after.free() == 0 {
                continue;
            }
            let reply_value = self.solver.solve(&after, Some(deadline))?.value;
            if gain(board.stones[board.mover], stone) as i32 - reply_value != solution.value {
                continue;
            }
            let mut mistakes = 0;
            for reply in cells_of(after.free()) {
                let mut next = after;
                next.play(reply);
                let ours = if next.free() == 0 {
                    0
                } else {
                    self.solver.solve(&next, Some(deadline))?.value
                };
                mistakes += u32::from((gain(after.stones[after.mover], reply) as i32 - ours) < reply_value);
            }
            let better = best.is_none_or(|(cell, most)| {
                mistakes > most || (mistakes == most && stone == solution.best && cell != solution.best)
            });
            if better {
                best = Some((stone, mistakes));
            }
        }
        best
    }

    /// White's first stone under the pie rule on a board small enough to
    /// solve: the stone whose exact final margin is closest to even, since
    /// the opponent takes the better side. `None` if the deadline came first.
    fn exact_first_stone(&mut self, board: &Board, deadline: Instant) -> Option<(Cell, Info)> {
        let mut best: Option<(usize, i32)> = None;
        let mut nodes = 0;
        for stone in cells_of(board.free()) {
            let mut next = *board;
            next.play(stone);
            let worst_side = if next.free() == 0 {
                -next.margin().abs()
            } else {
                let solution = self.solver.solve(&next, Some(deadline))?;
                nodes += solution.nodes;
                -(solution.value + mover_margin(&next)).abs()
            };
            if best.is_none_or(|(_, margin)| worst_side > margin) {
                best = Some((stone, worst_side));
            }
        }
        let (stone, margin) = best?;
        let info = Info {
            eval: Some(f64::from(margin.signum() + 1) / 2.0),
            depth: Some(board.free().count_ones()),
            nodes: Some(nodes),
            pv: None,
            comment: Some(format!("exact: final margin {margin:+} for the worse side")),
        };
        Some((cell(stone), info))
    }

    /// Swap exactly when White's position is the better one.
    fn pie_decision(&mut self, board: &Board, deadline: Instant, rng: &mut Xoshiro256PlusPlus) -> (Action, Info) {
        debug_assert_eq!(board.mover, BLACK);
        let exact = (self.options.level > 0 && board.free().count_ones() <= self.options.exact_from())
            .then(|| self.solver.solve(board, Some(deadline)))
            .flatten();
        let (white_result, nodes, depth) = if let Some(solution) = exact {
            // Black's final margin with best play from both sides.
            let black_margin = solution.value + mover_margin(board);
            (
                f64::from(1 - black_margin.signum()) / 2.0,
                Some(solution.nodes),
                Some(board.free().count_ones()),
            )
        } else if self.options.level == 0 {
            (if outlook(board) < 0.0 { 1.0 } else { 0.0 }, None, None)
        } else {
            // Whether to swap is a question of which side is better: no contempt.
            let settings = Settings {
                contempt: 0.0,
                ..self.options.settings()
            };
            let report = self.search(board, false, &settings, deadline, rng);
            (
                1.0 - f64::from(report.best.value),
                Some(report.playouts),
                Some(report.depth),
            )
        };
        let swap = white_result > 0.5;
        let info = Info {
            eval: Some(if swap { white_result } else { 1.0 - white_result }),
            depth,
            nodes,
            pv: None,
            comment: Some(format!("White's expected result {white_result:.3}")),
        };
        (Action::Pie(swap), info)
    }

    fn search(
        &mut self,
        board: &Board,
        pie: bool,
        settings: &Settings,
        deadline: Instant,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Report {
        let limits = Limits {
            playouts: self.options.playouts.or(self.options.level_playouts()),
            deadline: Some(deadline),
            stop_when_decided: self.stop_when_decided,
        };
        self.tree.search(board, pie, settings, &limits, rng)
    }
}

impl Player for Engine {
    fn identity(&self) -> Identity {
        Identity {
            name: "pahtum-engine".to_owned(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            author: Some("pahtum-arena".to_owned()),
        }
    }

    fn choose(&mut self, game: &Game, clock: &Clock) -> (Action, Option<Info>) {
        let start = Instant::now();
        let board = Board::from_game(game);
        let moves_left = (board.free().count_ones() + board.blocks_left).div_ceil(2);
        let think = self.options.plan().think_time(clock, moves_left);
        let stop_when_decided = match self.options.stop_decided {
            StopDecided::Always => true,
            // Time saved is worth something only on a clock that keeps it.
            StopDecided::Clock => clock.remaining_ms.is_some(),
        };
        let (action, info) = self.decide(game, start + think, stop_when_decided);
        (action, Some(info))
    }
}

/// The level 0 player: the cell of the highest stake, or under the pie rule
/// the first stone that leaves the most even outlook; blocks at random.
fn one_ply(board: &Board, pie: bool, rng: &mut Xoshiro256PlusPlus) -> (Cell, Info) {
    let free = board.free();
    let chosen = if board.blocks_left > 0 {
        cells_of(free).nth(below(rng, free.count_ones() as usize))
    } else if pie {
        cells_of(free).min_by(|&a, &b| {
            let evenness = |c: usize| {
                let mut next = *board;
                next.play(c);
                outlook(&next).abs()
            };
            evenness(a).total_cmp(&evenness(b))
        })
    } else {
        best_stake(board)
    };
    let chosen = chosen.expect("a decision is only asked with a free cell");
    let info = Info {
        comment: Some("one-ply knowledge".to_owned()),
        ..Info::default()
    };
    (cell(chosen), info)
}

/// White's margin seen by the mover of `board`.
fn mover_margin(board: &Board) -> i32 {
    if board.mover == BLACK {
        -board.margin()
    } else {
        board.margin()
    }
}

fn cell(index: usize) -> Cell {
    Cell::from_index(index).expect("the searches return cells of the board")
}

fn notation(line: &[usize]) -> Vec<String> {
    line.iter().map(|&index| cell(index).to_string()).collect()
}

#[cfg(test)]
mod tests {
    use pahtum::{Bitboard, Layout, Seat};

    use super::*;

    fn engine(args: &str) -> Engine {
        let args: Vec<String> = args.split_whitespace().map(str::to_owned).collect();
        Engine::from_args(&args).unwrap()
    }

    /// A generous per-move clock, so that fixed playout counts decide.
    fn relaxed() -> Clock {
        Clock {
            remaining_ms: None,
            opponent_ms: None,
            increment_ms: 0,
            move_ms: Some(60_000),
            timeout_ms: 60_000,
            kind: pahtum_protocol::ClockKind::Wall,
        }
    }

    /// Plays `game` to the end between two engines, checking every answer
    /// with the rules; returns the actions.
    fn play_out(mut game: Game, first: &mut Engine, second: &mut Engine) -> Vec<Action> {
        while let Some(seat) = game.seat_to_act() {
            let player = if seat == Seat::First { &mut *first } else { &mut *second };
            let (action, info) = player.choose(&game, &relaxed());
            assert!(info.is_some());
            game.play(action).unwrap_or_else(|err| {
                panic!(
                    "{action} in the {} phase: {err}\n{}",
                    game.phase(),
                    game.position().diagram()
                )
            });
        }
        game.history().to_vec()
    }

    #[test]
    fn every_phase_gets_a_legal_answer() {
        let layouts = [
            (Layout::Placed { count: 7 }, true),
            (Layout::Placed { count: 3 }, false),
            (
                Layout::Fixed {
                    blocks: pahtum::setup::random_blocks(13, 4).unwrap().cells().collect(),
                },
                true,
            ),
            // Two free cells: the first stone, the pie decision and the last stone.
            (
                Layout::Fixed {
                    blocks: pahtum::setup::random_blocks(47, 5).unwrap().cells().collect(),
                },
                true,
            ),
        ];
        for (layout, pie) in layouts {
            for (first, second) in [
                ("--playouts 30 --exact-cells 8 --seed 1", "--level 0 --seed 2"),
                ("--level 1 --seed 3", "--playouts 20 --exact-cells 0 --seed 4"),
            ] {
                let game = Game::new(&layout, pie).unwrap();
                let actions = play_out(game, &mut engine(first), &mut engine(second));
                assert!(actions.len() >= 2, "{layout:?}");
            }
        }
    }

    #[test]
    fn fixed_playouts_and_seed_give_the_same_answers() {
        let layout = Layout::Fixed {
            blocks: pahtum::setup::random_blocks(9, 7).unwrap().cells().collect(),
        };
        let options = "--playouts 40 --exact-cells 8 --seed 9";
        let game = Game::new(&layout, true).unwrap();
        let once = play_out(game.clone(), &mut engine(options), &mut engine(options));
        let again = play_out(game.clone(), &mut engine(options), &mut engine(options));
        assert_eq!(once, again);
        // An engine that has seen other positions answers the same.
        let mut warm = engine(options);
        let mut replay = game;
        for &action in &once {
            if replay.is_finished() {
                break;
            }
            assert_eq!(warm.choose(&replay, &relaxed()).0, action);
            replay.play(action).unwrap();
        }
        let other_seed = play_out(
            Game::new(&layout, true).unwrap(),
            &mut engine("--playouts 40 --exact-cells 8 --seed 10"),
            &mut engine(options),
        );
        assert_ne!(once, other_seed, "the seed matters");
    }

    /// A board of twelve free cells, small enough to solve, with the pie rule:
    /// most first stones draw, one wins for White and one for Black.
    fn small_pie_game() -> Game {
        let free = ["b1", "c1", "d1", "e1", "g1", "d2", "a3", "b3", "c3", "d3", "e3", "f3"];
        let free: Bitboard = free.iter().map(|c| c.parse::<Cell>().unwrap()).collect();
        Game::with_blocks(!free, true).unwrap()
    }

    /// Black's exact final margin after White's first `stone` on `game`.
    fn black_margin_after(game: &Game, stone: Cell) -> i32 {
        let mut next = game.clone();
        next.play(Action::Stone(stone)).unwrap();
        let board = Board::from_game(&next);
        let solution = Solver::new(12).solve(&board, None).unwrap();
        solution.value + mover_margin(&board)
    }

    #[test]
    fn the_pie_decision_swaps_exactly_when_white_is_better() {
        let game = small_pie_game();
        let mut outcomes = std::collections::BTreeSet::new();
        for stone in game.position().free().cells() {
            let black_margin = black_margin_after(&game, stone);
            outcomes.insert(black_margin.signum());
            let mut decision = game.clone();
            decision.play(Action::Stone(stone)).unwrap();
            for options in ["--seed 1 --playouts 100", "--seed 1 --exact-cells 0 --playouts 3000"] {
                if options.contains("exact-cells 0") && black_margin == 0 {
                    continue; // A draw leaves the tree free to choose.
                }
                let (action, _) = engine(options).choose(&decision, &relaxed());
                assert_eq!(
                    action,
                    Action::Pie(black_margin < 0),
                    "{options}: after {stone}, Black's margin {black_margin}"
                );
            }
        }
        assert_eq!(
            outcomes.len(),
            3,
            "the board has first stones good for either side: {outcomes:?}"
        );
    }

    #[test]
    fn the_first_stone_leaves_no_profitable_swap() {
        let game = small_pie_game();
        let evenness = |stone: Cell| -black_margin_after(&game, stone).abs();
        let most_even = game.position().free().cells().map(evenness).max().unwrap();
        // Solved exactly, and by the tree search with its pie root.
        for options in ["--seed 1 --playouts 100", "--seed 1 --exact-cells 0 --playouts 3000"] {
            let (action, info) = engine(options).choose(&game, &relaxed());
            let Action::Stone(stone) = action else {
                panic!("{action} is not a stone")
            };
            assert_eq!(evenness(stone), most_even, "{options}: {info:?}");
        }
    }

    /// With the exact margin off, the outcome search alone keeps a won or
    /// drawn result, whatever the (deliberately weak) tree search prefers.
    #[test]
    fn the_outcome_search_keeps_wins_and_draws() {
        let mut results = std::collections::BTreeSet::new();
        for seed in 0..12 {
            let mut game = Game::with_blocks(
                pahtum::setup::random_blocks(5 + 2 * (seed % 5), seed as u64).unwrap(),
                false,
            )
            .unwrap();
            let mut filler = engine(&format!("--level 0 --seed {seed}"));
            while game.position().free().len() > 13 {
                let (action, _) = filler.choose(&game, &relaxed());
                game.play(action).unwrap();
            }
            let board = Board::from_game(&game);
            let solution = Solver::new(12).solve(&board, None).unwrap();
            let result = (solution.value + mover_margin(&board)).cmp(&0);
            results.insert(result);
            let (action, info) =
                engine("--seed 1 --exact-cells 0 --outcome-cells 14 --playouts 2").choose(&game, &relaxed());
            let Action::Stone(stone) = action else {
                panic!("{action} is not a stone")
            };
            let mut after = board;
            after.play(stone.index());
            let reply = Solver::new(12).solve(&after, None).unwrap().value;
            let final_margin = gain(board.stones[board.mover], stone.index()) as i32 - reply + mover_margin(&board);
            if result != Ordering::Less {
                assert_eq!(final_margin.cmp(&0), result, "seed {seed}: {info:?}");
            }
            if result == Ordering::Greater {
                assert_eq!(info.unwrap().comment.as_deref(), Some("outcome: a win with best play"));
            }
        }
        assert!(results.len() >= 2, "both wins and other results are tried: {results:?}");
    }

    #[test]
    fn the_exact_endgame_plays_a_best_move() {
        let mut game = Game::with_blocks(pahtum::setup::random_blocks(11, 3).unwrap(), false).unwrap();
        let mut filler = engine("--level 0 --seed 1");
        while game.position().free().len() > 9 {
            let (action, _) = filler.choose(&game, &relaxed());
            game.play(action).unwrap();
        }
        let board = Board::from_game(&game);
        let best = Solver::new(12).solve(&board, None).unwrap();
        let final_margin = best.value + mover_margin(&board);
        // The solver's move, and the one that sets the most traps.
        for (options, traps) in [("--seed 1", false), ("--seed 1 --trap-cells 12", true)] {
            let (action, info) = engine(options).choose(&game, &relaxed());
            let Action::Stone(stone) = action else {
                panic!("{action} is not a stone")
            };
            let mut after = board;
            after.play(stone.index());
            let reply = Solver::new(12).solve(&after, None).unwrap().value;
            assert_eq!(
                gain(board.stones[board.mover], stone.index()) as i32 - reply,
                best.value,
                "{options}"
            );
            let info = info.unwrap();
            let comment = info.comment.unwrap();
            assert!(
                comment.starts_with(&format!("exact: final margin {final_margin:+} for the mover")),
                "{comment}"
            );
            assert_eq!(comment.contains("replies would give some away"), traps, "{comment}");
            assert_eq!(info.eval, Some(f64::from(final_margin.signum() + 1) / 2.0));
        }
    }
}
