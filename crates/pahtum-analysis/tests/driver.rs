//! The analysis driver over real files: every game gets its line once, a resume keeps them and cuts a torn
//! line, a game that does not replay is named; what the observer hears, in order.

use std::path::Path;

use pahtum_analysis::analyze::{AnalysisError, Settings};
use pahtum_analysis::driver::{DriverError, Observer, Outcome, run};
use pahtum_record::annotations::GameAnalysis;

mod common;
use common::game;

fn settings(seed: u64) -> Settings {
    Settings {
        table_bits: 12,
        exact_from: 12,
        playouts: 50,
        seed,
        budget: None,
    }
}

/// What an observer heard, in order.
#[derive(Default)]
struct Heard(Vec<String>);

impl Observer for Heard {
    fn started(&mut self, games: usize) {
        self.0.push(format!("started {games}"));
    }
    fn failed(&mut self, error: &AnalysisError) {
        self.0.push(format!("failed {}", error.game));
    }
    fn advanced(&mut self) {
        self.0.push("advanced".to_owned());
    }
}

fn file_lines(path: &Path) -> Vec<GameAnalysis> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Every game gets its line, each told to the observer; run again, it keeps them all; with another
/// effort, or after a torn write (cut off first), the missing ones are analysed again.
#[test]
fn games_are_appended_once_and_a_resume_keeps_them_and_cuts_a_torn_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("analysis.jsonl");
    let games = [game("one", 1), game("two", 2), game("three", 3)];
    let mut heard = Heard::default();
    let outcome = run(&out, &games, settings(1), 2, &mut heard).unwrap();
    assert_eq!(outcome, Outcome { analysed: 3, kept: 0 });
    assert_eq!(heard.0, ["started 3", "advanced", "advanced", "advanced"]);
    let mut ids: Vec<String> = file_lines(&out).into_iter().map(|line| line.game).collect();
    ids.sort();
    assert_eq!(ids, ["one", "three", "two"]);

    let mut heard = Heard::default();
    let outcome = run(&out, &games, settings(1), 2, &mut heard).unwrap();
    assert_eq!(outcome, Outcome { analysed: 0, kept: 3 });
    assert!(heard.0.is_empty(), "nothing to do, nothing told: {:?}", heard.0);

    // A torn last line: cut off, and only the game whose line is missing analysed again.
    let text = std::fs::read_to_string(&out).unwrap();
    let kept: Vec<&str> = text.lines().filter(|line| !line.contains("\"game\":\"two\"")).collect();
    std::fs::write(&out, format!("{}\n{{\"game\":\"tw", kept.join("\n"))).unwrap();
    let outcome = run(&out, &games, settings(1), 1, &mut Heard::default()).unwrap();
    assert_eq!(outcome, Outcome { analysed: 1, kept: 2 });
    assert_eq!(file_lines(&out).len(), 3, "the torn line is gone");

    // Another effort analyses every game again, beside the old lines.
    let outcome = run(&out, &games[..1], settings(2), 1, &mut Heard::default()).unwrap();
    assert_eq!(outcome, Outcome { analysed: 1, kept: 0 });
    assert_eq!(file_lines(&out).len(), 4);
}

/// A game that does not replay is told to the observer and named in the error; the others' lines are
/// written.
#[test]
fn a_game_that_does_not_replay_is_named_and_the_others_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("analysis.jsonl");
    let mut broken = game("broken", 4);
    broken.moves.truncate(3);
    broken.moves[2] = broken.moves[0].clone();
    let games = [game("fine", 5), broken];
    let mut heard = Heard::default();
    let error = run(&out, &games, settings(1), 1, &mut heard).unwrap_err();
    assert!(
        matches!(&error, DriverError::Failed { games } if games == &["broken"]),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "1 game(s) could not be analysed: broken; check the journal with `arena verify`"
    );
    assert!(heard.0.contains(&"failed broken".to_owned()), "{:?}", heard.0);
    assert_eq!(file_lines(&out).len(), 1);
}
