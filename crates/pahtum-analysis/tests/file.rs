//! `analysis.jsonl` read back: the file beside the games, the last line of a
//! record's hash, torn and foreign lines skipped.

use std::io::Write;

use pahtum_analysis::analyze::{Analyzer, Settings};
use pahtum_record::annotations::{beside, latest, lines};

mod common;
use common::game;

fn analyzer(seed: u64) -> Analyzer {
    Analyzer::new(Settings {
        table_bits: 12,
        exact_from: 12,
        playouts: 50,
        seed,
        budget: None,
    })
}

#[test]
fn the_file_lies_beside_the_journal_or_the_record() {
    assert_eq!(
        beside("runs/x/journal.jsonl".as_ref()),
        std::path::Path::new("runs/x/analysis.jsonl")
    );
    assert_eq!(
        beside("g/game.json".as_ref()),
        std::path::Path::new("g/game.analysis.jsonl")
    );
}

#[test]
fn the_last_line_of_a_records_hash_is_taken_and_the_rest_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("analysis.jsonl");
    assert!(latest(&path, []).unwrap().is_empty(), "no file, no analysis");

    let (one, two) = (game("one", 1), game("two", 2));
    let mut changed = two.clone();
    changed.ended_unix_ms += 1;
    let first = analyzer(1).analyze(&one).unwrap();
    let again = analyzer(2).analyze(&one).unwrap();
    let of_changed = analyzer(1).analyze(&changed).unwrap();
    let mut file = std::fs::File::create(&path).unwrap();
    for analysis in [&first, &of_changed, &again] {
        writeln!(file, "{}", serde_json::to_string(analysis).unwrap()).unwrap();
    }
    write!(file, "not json\n{{\"game\":\"two\",\"rec").unwrap();
    drop(file);

    assert_eq!(
        lines(&path).unwrap().count(),
        3,
        "the torn and foreign lines are skipped"
    );
    let found = latest(&path, [&one, &two]).unwrap();
    assert_eq!(found.len(), 1, "the line of two's old record is not two's");
    assert_eq!(found["one"], again, "the last line of one's record");
    assert_eq!(latest(&path, [&changed]).unwrap()["two"], of_changed);
}
