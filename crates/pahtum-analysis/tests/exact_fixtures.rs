//! The proven part of an analysis does not change when the analysis gets
//! faster: on fixed games (16 of the quickstart tournament: every block
//! count, each pairing of bots, swaps and two games cut short by a
//! forfeit), every position that was solved is still solved, with the same
//! final margin, the same set of best moves, and where the move's after is
//! solved too, the same loss and grade.
//!
//! `fixtures/games.jsonl` holds the records and `fixtures/expected-N.jsonl`
//! the analysis of them with the solver from `N` free cells, made by the
//! code before issue 41's speed-up (`examples/time_games.rs` with `--out`,
//! `--playouts 300 --table-bits 18` for `N` = 16, the defaults for 18).
//! The estimates may change (the tree search is seeded, not exact), so they
//! are not compared; that they stay reproducible is checked here too.

use std::collections::BTreeSet;
use std::path::PathBuf;

use pahtum_analysis::analyze::{Analyzer, Settings};
use pahtum_record::GameRecord;
use pahtum_record::annotations::GameAnalysis;

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn games() -> Vec<GameRecord> {
    fixture("games.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The settings of `expected-16.jsonl`.
fn small() -> Settings {
    Settings {
        table_bits: 18,
        exact_from: 16,
        playouts: 300,
        seed: 1,
        budget: None,
    }
}

/// Analyses the fixture games with `settings` and checks every solved
/// value against the fixture `expected`.
fn assert_exact_unchanged(settings: Settings, expected: &str) {
    let expected: Vec<GameAnalysis> = fixture(expected)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let games = games();
    assert_eq!(games.len(), expected.len());
    let mut analyzer = Analyzer::new(settings);
    let mut solved = 0;
    for (record, old) in games.iter().zip(&expected) {
        let new = analyzer.analyze(record).unwrap();
        // The playouts shape the estimates only: the exact region and its values do not depend on them.
        assert_eq!(
            (&new.game, &new.record, new.effort.exact_from, new.effort.seed),
            (&old.game, &old.record, old.effort.exact_from, old.effort.seed)
        );
        assert_eq!(new.moves.len(), old.moves.len(), "game {}", old.game);
        for (new, old) in new.moves.iter().zip(&old.moves) {
            let at = format!("game {} ply {}", record.id, old.ply);
            assert_eq!(new.before.exact, old.before.exact, "{at}: solved before");
            assert_eq!(new.after.exact, old.after.exact, "{at}: solved after");
            if !old.before.exact {
                continue;
            }
            solved += 1;
            assert_eq!(new.before, old.before, "{at}: the margin before");
            let set = |best: &[String]| best.iter().cloned().collect::<BTreeSet<_>>();
            assert_eq!(set(&new.best), set(&old.best), "{at}: the best moves");
            if old.after.exact {
                assert_eq!(
                    (new.after, new.loss, new.grade),
                    (old.after, old.loss, old.grade),
                    "{at}: the margin after"
                );
            }
        }
    }
    assert!(solved > 200, "the fixtures reach the solver: {solved} solved plies");
}

#[test]
fn solved_values_and_best_moves_are_unchanged() {
    assert_exact_unchanged(small(), "expected-16.jsonl");
}

#[test]
fn solved_values_and_best_moves_are_unchanged_at_the_default_effort() {
    assert_exact_unchanged(Settings::default(), "expected-18.jsonl");
}

/// The same games in another order, by a fresh analyzer and by one that
/// analysed other games first, give the same analyses: nothing an analyzer
/// keeps from game to game changes a value.
#[test]
fn analyses_are_reproducible_whatever_came_before() {
    let games = games();
    let mut forwards = Analyzer::new(small());
    let first: Vec<_> = games.iter().map(|record| forwards.analyze(record).unwrap()).collect();
    let mut backwards = Analyzer::new(small());
    for (record, analysis) in games.iter().zip(&first).rev() {
        assert_eq!(&backwards.analyze(record).unwrap(), analysis, "game {}", record.id);
    }
}
