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
//!
//! With `--replay "ENGINE OPTIONS"`, each game is played again instead, the
//! engine with those options taking Black's side at `--move-ms` per move and
//! White repeating its recorded moves as long as the recorded cell is free;
//! from the first that is not, a stand-in (`--stand-in`, the engine at a low
//! level by default) plays White, since the recorded opponent is not at hand.
//! Replaying from the first move is deliberate: from 22 free cells on, none of
//! the recorded games had a Black win left, so the engine let it go earlier,
//! where no exact solver reaches, and no later position is "where it went
//! wrong". It prints each game's new result and how many games Black won.
//!
//! ```text
//! cargo run --release -p pahtum-engine --example non_wins -- \
//!     ../shared/data/engine-as-black-non-wins.jsonl --replay "" --move-ms 100
//! ```

use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Parser;
use pahtum::{Action, Cell, Color, Game, Layout};
use pahtum_engine::Engine;
use pahtum_protocol::Clock;
use pahtum_protocol::bot::Player;
use pahtum_search::board::{BLACK, Board};
use pahtum_search::endgame::Solver;
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
    /// Replay Black's side with the engine of these options (e.g. "" for the
    /// defaults) instead of analysing the recorded moves.
    #[arg(long, value_name = "OPTIONS", allow_hyphen_values = true)]
    replay: Option<String>,
    /// The options of the engine that plays White once a recorded White move
    /// is no longer possible.
    #[arg(
        long,
        value_name = "OPTIONS",
        default_value = "--level 3 --seed 1",
        allow_hyphen_values = true
    )]
    stand_in: String,
    /// Black's time per move in a replay.
    #[arg(long, default_value_t = 100)]
    move_ms: u64,
}

/// One recorded game: its blocks, its stones in order, the final score and
/// the engine's time per move.
struct Recorded {
    blocks: Vec<Cell>,
    stones: Vec<Cell>,
    score: (Value, Value),
    move_ms: u64,
}

/// The games of an arena journal's records, one JSON object a line.
fn read_games(text: &str) -> anyhow::Result<Vec<Recorded>> {
    let cell = |value: &Value| -> anyhow::Result<Cell> { value.as_str().context("a cell")?.parse().context("a cell") };
    text.lines()
        .enumerate()
        .map(|(number, line)| {
            let record: Value = serde_json::from_str(line).with_context(|| format!("line {}", number + 1))?;
            let stones = record["moves"].as_array().context("moves")?;
            Ok(Recorded {
                blocks: record["blocks"]
                    .as_array()
                    .context("blocks")?
                    .iter()
                    .map(cell)
                    .collect::<Result<_, _>>()?,
                stones: stones
                    .iter()
                    .map(|played| cell(&played["cell"]))
                    .collect::<Result<_, _>>()?,
                score: (record["score"]["white"].clone(), record["score"]["black"].clone()),
                move_ms: record.get("engine_move_ms").and_then(Value::as_u64).unwrap_or(0),
            })
        })
        .collect()
}

fn engine(options: &str) -> anyhow::Result<Engine> {
    let args: Vec<String> = options.split_whitespace().map(str::to_owned).collect();
    Ok(Engine::from_args(&args)?)
}

/// Plays each game again with the engine of `options` as Black; White keeps
/// its recorded stones while it can, then the stand-in plays White.
fn replay(games: &[Recorded], options: &str, args: &Args) -> anyhow::Result<()> {
    let clock = Clock::per_move(args.move_ms);
    let (mut wins, mut draws, mut kept_total) = (0, 0, 0);
    for (number, recorded) in games.iter().enumerate() {
        let mut black = engine(options)?;
        let mut stand_in = engine(&args.stand_in)?;
        let mut game = Game::new(
            &Layout::Fixed {
                blocks: recorded.blocks.clone(),
            },
            false,
        )?;
        let (mut ply, mut kept, mut diverged) = (0, 0, false);
        while let Some(color) = game.color_to_act() {
            let action = if color == Color::Black {
                black.choose(&game, &clock).0
            } else {
                let recorded_stone = recorded.stones.get(ply).map(|&cell| Action::Stone(cell));
                diverged |= recorded_stone.is_none_or(|action| game.check(action).is_err());
                if diverged {
                    stand_in.choose(&game, &clock).0
                } else {
                    kept += 1;
                    recorded_stone.expect("checked above")
                }
            };
            game.play(action)?;
            ply += 1;
        }
        kept_total += kept;
        let score = game.score();
        let verdict = verdict(score.black as i32 - score.white as i32);
        wins += usize::from(score.black > score.white);
        draws += usize::from(score.black == score.white);
        println!(
            "game {:>2} ({} blocks, was {}-{}): {}-{}, {verdict}; White's recorded stones kept: {kept}",
            number + 1,
            recorded.blocks.len(),
            recorded.score.0,
            recorded.score.1,
            score.white,
            score.black,
        );
    }
    println!(
        "\nBlack won {wins}, drew {draws} and lost {} of {} games ({options:?} at {} ms a move); {kept_total} recorded White stones kept in all",
        games.len() - wins - draws,
        games.len(),
        args.move_ms
    );
    Ok(())
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
    let games = read_games(&text)?;
    if let Some(options) = &args.replay {
        return replay(&games, options, &args);
    }
    let mut solver = Solver::new(22);
    let (mut black_let_go, mut never_won, mut unknown) = (0, 0, 0);
    for (number, recorded) in games.iter().enumerate() {
        let mut game = Game::new(
            &Layout::Fixed {
                blocks: recorded.blocks.clone(),
            },
            false,
        )?;
        // The exact value (Black's final margin) before each ply, where solved.
        let mut values: Vec<(Option<i32>, u32)> = Vec::new();
        for &cell in &recorded.stones {
            let board = Board::from_game(&game);
            let free = board.free().count_ones();
            let value = (free <= args.from)
                .then(|| exact_for_black(&mut solver, &board, args.seconds))
                .flatten();
            unknown += usize::from(free <= args.from && value.is_none());
            values.push((value, free));
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
            "game {:>2} ({} blocks, {} ms, {}-{}): {summary}",
            number + 1,
            recorded.blocks.len(),
            recorded.move_ms,
            recorded.score.0,
            recorded.score.1
        );
    }
    println!(
        "\n{black_let_go} games where Black let a win go, {never_won} with no Black win from {} free cells, {unknown} positions unsolved in time",
        args.from
    );
    Ok(())
}
