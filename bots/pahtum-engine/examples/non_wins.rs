//! Where did Black's win go? For each recorded game, the exact value of
//! every position from `--from` free cells on (the final margin for Black
//! with best play from both sides), and the first move that changed it: a
//! Black move that turned a won position into a draw or a loss is where the
//! engine let the win go; a White move that turned it the other way was a
//! gift.
//!
//! ```text
//! cargo run --release -p pahtum-engine --example non_wins -- \
//!     ../shared/data/engine-as-black-non-wins.jsonl --from 20
//! ```
//!
//! Positions the solver does not finish within `--seconds` are reported as
//! unknown.

use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Parser;
use pahtum::{Action, Cell, Color, Game, Layout};
use pahtum_engine::board::{BLACK, Board};
use pahtum_engine::endgame::Solver;
use serde_json::Value;

#[derive(Debug, Parser)]
struct Args {
    /// The games: arena records, one JSON object a line.
    games: std::path::PathBuf,
    /// Solve from this many free cells on.
    #[arg(long, default_value_t = 18)]
    from: u32,
    /// The time allowed for one position.
    #[arg(long, default_value_t = 30.0)]
    seconds: f64,
}

/// Black's final margin with best play, or `None` when not solved in time.
fn exact_for_black(solver: &mut Solver, board: &Board, seconds: f64) -> Option<i32> {
    if board.free() == 0 {
        return Some(-board.margin());
    }
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let solution = solver.solve(board, Some(deadline))?;
    let future_for_black = if board.mover == BLACK {
        solution.value
    } else {
        -solution.value
    };
    Some(-board.margin() + future_for_black)
}

fn verdict(margin: i32) -> &'static str {
    match margin.signum() {
        1 => "Black wins",
        0 => "draw",
        _ => "White wins",
    }
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let text = std::fs::read_to_string(&args.games).with_context(|| format!("cannot read {}", args.games.display()))?;
    let mut solver = Solver::new(22);
    let (mut black_let_go, mut never_won, mut unknown) = (0, 0, 0);
    for (number, line) in text.lines().enumerate() {
        let record: Value = serde_json::from_str(line).with_context(|| format!("line {}", number + 1))?;
        let cells = |value: &Value| -> anyhow::Result<Vec<Cell>> {
            value
                .as_array()
                .context("a list of cells")?
                .iter()
                .map(|cell| cell.as_str().context("a cell")?.parse().context("a cell"))
                .collect()
        };
        let blocks = cells(&record["blocks"])?;
        let mut game = Game::new(&Layout::Fixed { blocks: blocks.clone() }, false)?;
        // The exact value (Black's final margin) before each ply, where solved.
        let mut values: Vec<(Option<i32>, u32)> = Vec::new();
        for played in record["moves"].as_array().context("moves")? {
            let board = Board::from_game(&game);
            let free = board.free().count_ones();
            let value = (free <= args.from)
                .then(|| exact_for_black(&mut solver, &board, args.seconds))
                .flatten();
            unknown += usize::from(free <= args.from && value.is_none());
            values.push((value, free));
            let cell: Cell = played["cell"].as_str().context("a cell")?.parse()?;
            game.play(Action::Stone(cell))?;
        }
        values.push((exact_for_black(&mut solver, &Board::from_game(&game), args.seconds), 0));
        let first_win = values
            .iter()
            .position(|(value, _)| value.is_some_and(|margin| margin > 0));
        // The move that took the win away: ply `ply` turned a won position into a non-win.
        let lost_at = first_win.and_then(|start| {
            (start..values.len() - 1).find(|&ply| {
                values[ply].0.is_some_and(|margin| margin > 0) && values[ply + 1].0.is_some_and(|margin| margin <= 0)
            })
        });
        let score = &record["score"];
        let ms = record.get("engine_move_ms").and_then(Value::as_u64).unwrap_or(0);
        let summary = match (first_win, lost_at) {
            (Some(win), Some(ply)) => {
                black_let_go += 1;
                let mover = if ply % 2 == 0 { Color::White } else { Color::Black };
                let (before, after) = (values[ply].0.unwrap_or(0), values[ply + 1].0.unwrap_or(0));
                format!(
                    "Black had a win at ply {win} ({} free); ply {ply} ({mover}, {} free) turned {before:+} into {} ({after:+})",
                    values[win].1,
                    values[ply].1,
                    verdict(after)
                )
            }
            (Some(win), None) => format!("Black had a win at ply {win} ({} free) and kept it?", values[win].1),
            (None, _) => {
                never_won += 1;
                format!("no Black win from {} free cells on", args.from)
            }
        };
        println!(
            "game {:>2} ({} blocks, {ms} ms, {}-{}): {summary}",
            number + 1,
            blocks.len(),
            score["white"],
            score["black"]
        );
    }
    println!(
        "\n{black_let_go} games where Black let a win go, {never_won} with no Black win from {} free cells, {unknown} positions unsolved in time",
        args.from
    );
    Ok(())
}
