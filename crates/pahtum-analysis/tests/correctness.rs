//! The analysis agrees with the games it analyses and with itself: on real
//! games of small boards (solved from the first stone) played by random
//! players and by the solver, the last value is the record's final score
//! difference, an optimal move keeps the value and no move gains any, a side
//! that plays only optimal moves has no losing move, and the estimates before
//! the exact region (block placement, the pie decision) are reproducible.

use std::time::Duration;

use pahtum::{Action, Color, Game, Phase, Seat};
use pahtum_analysis::analyze::{Analyzer, Settings};
use pahtum_analysis::grade::loses;
use pahtum_record::annotations::{GameAnalysis, Kind, Value};
use pahtum_record::{GameRecord, GameSpec, Players};
use pahtum_search::board::Board;
use pahtum_search::endgame::Solver;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// Blocks that leave 12 free cells: small enough to solve from the first stone in a debug build.
const BLOCKS: usize = 37;

fn settings(exact_from: u32) -> Settings {
    Settings {
        table_bits: 16,
        exact_from,
        playouts: 200,
        seed: 7,
        budget: None,
    }
}

/// The record of the game `spec` played to its end by `choose`.
fn play(spec: &GameSpec, choose: impl FnMut(&Game) -> Action) -> GameRecord {
    let players = Players {
        first: "first".into(),
        second: "second".into(),
    };
    spec.play_out(players, choose)
}

fn random_move(game: &Game, rng: &mut Xoshiro256PlusPlus) -> Action {
    let moves = game.legal_moves();
    moves[rng.random_range(0..moves.len())]
}

/// The solver's move in the stone phase.
fn solver_move(game: &Game, solver: &mut Solver) -> Action {
    assert_eq!(game.phase(), Phase::Stones, "the perfect player plays stones only");
    let best = solver.solve(&Board::from_game(game), None).unwrap().best;
    Action::Stone(pahtum::Cell::from_index(best).unwrap())
}

fn spec(seed: u64, pie: bool) -> GameSpec {
    GameSpec::random(format!("g{seed}"), BLOCKS, seed, pie, time()).unwrap()
}

fn time() -> pahtum_protocol::TimeControl {
    pahtum_protocol::move_time(Duration::from_secs(1))
}

/// A layout whose 14 free cells are the rows 1 and 2, where random play makes long runs and large margins
/// (on random layouts of 12 free cells, most games end level).
fn two_rows(id: &str) -> GameSpec {
    let blocks: Vec<_> = (0..pahtum::CELLS)
        .filter_map(pahtum::Cell::from_index)
        .filter(|cell| cell.row() >= 2)
        .collect();
    GameSpec::fixed(id, &blocks, true, time()).unwrap()
}

/// Random games on random layouts, with and without the pie rule, analysed with everything exact.
fn random_games() -> Vec<(GameRecord, GameAnalysis)> {
    let mut analyzer = Analyzer::new(settings(BLOCKS as u32));
    (0..12u64)
        .map(|seed| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let spec = match seed % 3 {
                0 => two_rows(&format!("rows{seed}")),
                _ => spec(seed, seed % 2 == 0),
            };
            let record = play(&spec, |game| random_move(game, &mut rng));
            let analysis = analyzer.analyze(&record).unwrap();
            (record, analysis)
        })
        .collect()
}

fn margin(value: &Value) -> i32 {
    assert!(value.exact, "an exact value: {value:?}");
    value.margin.unwrap()
}

#[test]
fn the_last_value_is_the_records_final_score_difference() {
    for (record, analysis) in random_games() {
        assert_eq!(
            analysis.moves.len(),
            record.moves.len() + usize::from(record.swap.is_some())
        );
        let last = analysis.moves.last().unwrap();
        let white = record.score.white as i32 - record.score.black as i32;
        let expected = if last.color == Color::White { white } else { -white };
        assert_eq!(margin(&last.after), expected, "game {}", record.id);
        // The last stone is forced: the value before it is the same.
        assert_eq!(margin(&last.before), expected, "game {}", record.id);
    }
}

#[test]
fn optimal_moves_keep_the_value_and_no_move_gains_any() {
    let mut optimal = 0;
    let mut worse = 0;
    for (record, analysis) in random_games() {
        for (index, entry) in analysis.moves.iter().enumerate() {
            let (before, after) = (margin(&entry.before), margin(&entry.after));
            assert!(after <= before, "game {} ply {}: {entry:?}", record.id, entry.ply);
            assert_eq!(entry.loss, f64::from(before - after));
            let is_best = entry.best.contains(&entry.played);
            assert_eq!(
                is_best,
                after == before,
                "game {} ply {}: {entry:?}",
                record.id,
                entry.ply
            );
            if is_best {
                optimal += 1
            } else {
                worse += 1
            }
            // The next player's value before its move is this one's after, seen from its side.
            if let Some(next) = analysis.moves.get(index + 1) {
                let seen = if next.seat == entry.seat { after } else { -after };
                assert_eq!(margin(&next.before), seen, "game {} ply {}", record.id, next.ply);
            }
        }
        // Each side's losing move is its first whose outcome after is worse than before.
        for seat in [Seat::First, Seat::Second] {
            let first_worse = analysis
                .moves
                .iter()
                .find(|entry| entry.seat == seat && margin(&entry.after).signum() < margin(&entry.before).signum());
            let losing = analysis.losing.of(record.color_of(seat));
            assert_eq!(losing, first_worse.map(|entry| entry.ply), "game {}", record.id);
        }
        if let Some(pie) = record.pie_ply() {
            let entry = &analysis.moves[pie - 1];
            assert_eq!((entry.kind, entry.seat, entry.ply), (Kind::Pie, Seat::Second, pie));
            assert_eq!(entry.played, if record.swap == Some(true) { "swap" } else { "keep" });
        }
    }
    assert!(
        optimal > 50 && worse > 10,
        "random games have both: {optimal} optimal, {worse} not"
    );
}

#[test]
fn a_side_that_plays_only_optimal_moves_has_no_losing_move() {
    let mut analyzer = Analyzer::new(settings(BLOCKS as u32));
    let mut solver = Solver::new(16);
    let mut opponents_lost = 0;
    for seed in 0..10u64 {
        let perfect = if seed % 2 == 0 { Seat::First } else { Seat::Second };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let record = play(&spec(100 + seed, false), |game| {
            if game.seat_to_act() == Some(perfect) && game.phase() == Phase::Stones {
                solver_move(game, &mut solver)
            } else {
                random_move(game, &mut rng)
            }
        });
        let analysis = analyzer.analyze(&record).unwrap();
        let mine = analysis
            .moves
            .iter()
            .filter(|entry| entry.seat == perfect && entry.kind == Kind::Stone);
        for entry in mine.filter(|entry| entry.ply > 1) {
            assert!(entry.best.contains(&entry.played), "game {}: {entry:?}", record.id);
            assert_eq!((entry.loss, entry.grade), (0.0, None), "game {}: {entry:?}", record.id);
        }
        // White's first stone is the random player's for the first seat too.
        let first_stone_lost = perfect == Seat::First && analysis.losing.of(record.color_of(perfect)) == Some(1);
        if !first_stone_lost {
            assert_eq!(analysis.losing.of(record.color_of(perfect)), None, "game {}", record.id);
        }
        // The random side lost what it had: its first move that worsened its outcome is named.
        let other = match perfect {
            Seat::First => Seat::Second,
            Seat::Second => Seat::First,
        };
        let result = (record.points_of(other) * 2.0 - 1.0) as i32;
        let first_value = analysis
            .moves
            .iter()
            .find(|entry| entry.seat == other && entry.kind == Kind::Stone);
        if first_value.is_some_and(|entry| margin(&entry.before).signum() > result) {
            opponents_lost += 1;
            let losing = analysis.losing.of(record.color_of(other));
            assert!(losing.is_some(), "game {}: {analysis:?}", record.id);
        }
    }
    assert!(opponents_lost > 0, "some random player threw a result away");
}

#[test]
fn estimates_cover_block_placement_and_the_pie_and_are_reproducible() {
    let mut kept_and_swapped = [false; 2];
    for seed in 0..4 {
        // Players place 25 blocks (24 free cells), with the pie rule; solved from 8 free cells.
        let spec = GameSpec::placed(format!("placed{seed}"), 25, true, time()).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let record = play(&spec, |game| random_move(game, &mut rng));
        let first = Analyzer::new(settings(8)).analyze(&record).unwrap();
        let again = Analyzer::new(settings(8)).analyze(&record).unwrap();
        assert_eq!(first, again, "the same settings give the same analysis");
        let other = Analyzer::new(Settings { seed: 8, ..settings(8) })
            .analyze(&record)
            .unwrap();
        assert_ne!(first.moves, other.moves, "the seed is used");

        let blocks: Vec<_> = first.moves.iter().filter(|entry| entry.kind == Kind::Block).collect();
        assert_eq!(blocks.len(), 25);
        assert!(
            blocks
                .iter()
                .all(|entry| !entry.before.exact && entry.best[0].starts_with('#'))
        );
        // Estimates, then exact from 8 free cells to the end.
        let exact: Vec<_> = first.moves.iter().map(|entry| entry.before.exact).collect();
        assert_eq!(exact.iter().filter(|&&exact| exact).count(), 8);
        assert!(exact.ends_with(&[true; 8]));

        // The pie decision takes the better side of one estimate (keeping gives `after` or swapping
        // its complement): at least even, kept when the move played is the best one.
        let pies: Vec<_> = first.moves.iter().filter(|entry| entry.kind == Kind::Pie).collect();
        assert_eq!(pies.len(), 1);
        let pie = pies[0];
        let (before, after) = (pie.before.expected_result(), pie.after.expected_result());
        assert!(
            !pie.before.exact && (before - after.max(1.0 - after)).abs() < 1e-3,
            "{pie:?}"
        );
        assert_eq!(pie.best.contains(&pie.played), pie.after == pie.before, "{pie:?}");
        kept_and_swapped[usize::from(pie.best == ["swap"])] = true;

        // The losing moves are each side's first that lost its outcome, estimated or not.
        for seat in [Seat::First, Seat::Second] {
            let first_lost = first
                .moves
                .iter()
                .find(|entry| entry.seat == seat && loses(&entry.before, &entry.after));
            let losing = first.losing.of(record.color_of(seat));
            assert_eq!(losing, first_lost.map(|entry| entry.ply), "game {}", record.id);
        }
    }
    assert_eq!(kept_and_swapped, [true; 2], "the best pie decision is either");
}

#[test]
fn a_spent_budget_leaves_the_rest_estimated() {
    // 24 free cells, all within reach of the solver but not in no time.
    let spec = GameSpec::random("budget", 25, 3, false, time()).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let record = play(&spec, |game| random_move(game, &mut rng));
    let settings = Settings {
        budget: Some(Duration::ZERO),
        ..settings(24)
    };
    let analysis = Analyzer::new(settings).analyze(&record).unwrap();
    let exact: Vec<_> = analysis.moves.iter().map(|entry| entry.before.exact).collect();
    let count = exact.iter().filter(|&&exact| exact).count();
    assert!(
        exact.ends_with(&vec![true; count]),
        "the exact plies are the last: {exact:?}"
    );
    assert!(
        count > 0 && count < 24,
        "the small endgames are solved at once, not the rest: {exact:?}"
    );
    assert!(!analysis.moves[0].before.exact && analysis.moves[0].before.expected.is_some());
}

#[test]
fn given_plies_are_valued_but_are_nobodys_mistakes() {
    let (record, analysis) = random_games()
        .into_iter()
        .find(|(_, analysis)| analysis.moves.iter().any(|entry| entry.grade.is_some()))
        .expect("a random game with a mistake");
    let mistake = analysis.moves.iter().find(|entry| entry.grade.is_some()).unwrap().ply;
    // The same game, its plies up to the mistake given before the bots played.
    let plies = record.replay().unwrap().history().to_vec();
    let seed: u64 = record
        .id
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .unwrap();
    let base = if record.id.starts_with("rows") {
        two_rows(&record.id)
    } else {
        spec(seed, record.rules.pie)
    };
    let given = base.with_opening(plies[..mistake].to_vec(), None).unwrap();
    let mut next = plies.iter().copied();
    let again = play(&given, |_| next.next().unwrap());
    assert_eq!(again.opening.as_ref().map(|opening| opening.plies), Some(mistake));
    let reanalysed = Analyzer::new(settings(BLOCKS as u32)).analyze(&again).unwrap();
    for (entry, before) in reanalysed.moves.iter().zip(&analysis.moves) {
        let is_given = entry.ply <= mistake;
        assert_eq!(entry.given, is_given, "{entry:?}");
        assert_eq!(
            (entry.before, entry.after),
            (before.before, before.after),
            "the same values"
        );
        if is_given {
            assert_eq!(entry.grade, None, "{entry:?}");
        }
    }
    for color in [Color::White, Color::Black] {
        assert!(
            reanalysed.losing.of(color).is_none_or(|ply| ply > mistake),
            "{:?}",
            reanalysed.losing
        );
    }
}
