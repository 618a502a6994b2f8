//! `arena analyze` as a user runs it, on the games of built-in bots: it writes one line per game beside
//! the journal, resumes without analysing a game twice, redoes a game whose record changed, cuts a torn
//! last line, never touches the journal, takes a single record, and refuses a bot the games lack; `arena
//! show` then shows each move's value and marks, and no analysis of a record that changed since.

use std::path::Path;
use std::process::{Command, Output};

use assert_cmd::cargo::CommandCargoExt;
use assert_cmd::prelude::OutputAssertExt;
use pahtum_record::GameRecord;
use pahtum_record::annotations::{GameAnalysis, Grade, Kind, record_hash};

/// A small effort, for a debug build.
const EFFORT: [&str; 4] = ["--playouts", "200", "--exact-cells", "10"];

fn arena(args: &[&str], dir: &Path) -> Output {
    let command = Command::cargo_bin("arena")
        .unwrap()
        .args(args)
        .current_dir(dir)
        .assert();
    command.success().get_output().clone()
}

fn analyze(target: &str, extra: &[&str], dir: &Path) -> String {
    let mut args = vec!["analyze", target];
    args.extend(EFFORT);
    args.extend(extra);
    String::from_utf8(arena(&args, dir).stdout).unwrap()
}

/// Two built-in bots, two games, played into `dir/out`.
fn played(dir: &Path) {
    let file = "name = \"an\"\nseed = 3\ngames_per_pair = 2\n[rules]\nblocks = [7]\n[time]\nmove_ms = 2000\n\
                [[bots]]\nname = \"heuristic\"\nbuiltin = \"heuristic\"\n\
                [[bots]]\nname = \"first-free\"\nbuiltin = \"first-free\"\n";
    std::fs::write(dir.join("t.toml"), file).unwrap();
    arena(&["run", "t.toml", "--out", "out"], dir);
}

fn records(journal: &Path) -> Vec<GameRecord> {
    let text = std::fs::read_to_string(journal).unwrap();
    text.lines()
        .skip(1)
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn analyses(file: &Path) -> Vec<GameAnalysis> {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.ends_with('\n'), "whole lines only");
    text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

#[test]
fn analysis_lines_are_resumed_and_a_changed_record_is_analysed_again() {
    let dir = tempfile::tempdir().unwrap();
    played(dir.path());
    let journal = dir.path().join("out/journal.jsonl");
    let file = dir.path().join("out/analysis.jsonl");
    let journal_before = std::fs::read(&journal).unwrap();

    let said = analyze("out", &[], dir.path());
    assert_eq!(said, "out/analysis.jsonl: 2 game(s) analysed, 0 already there\n");
    let games = records(&journal);
    let lines = analyses(&file);
    assert_eq!(lines.len(), 2);
    for record in &games {
        let line = lines
            .iter()
            .find(|line| line.game == record.id)
            .expect("a line per game");
        assert_eq!(line.record, record_hash(record));
        let pie = usize::from(record.swap.is_some());
        assert_eq!(line.moves.len(), record.moves.len() + pie);
        assert_eq!(line.moves.iter().filter(|entry| entry.kind == Kind::Pie).count(), pie);
        let last = line.moves.last().unwrap();
        let white = record.score.white as i32 - record.score.black as i32;
        let sign = if last.color == pahtum::Color::White { 1 } else { -1 };
        assert_eq!(last.after.margin, Some(sign * white), "the final score difference");
        // heuristic beats first-free (what `--lost-by` below counts on).
        let loser = record.color_of(if record.players.first == "first-free" {
            pahtum::Seat::First
        } else {
            pahtum::Seat::Second
        });
        assert_eq!(record.result.winner(), Some(loser.opponent()));
    }

    // Nothing new: nothing analysed, the file as it was.
    let analysed = std::fs::read(&file).unwrap();
    assert_eq!(
        analyze("out", &[], dir.path()),
        "out/analysis.jsonl: 0 game(s) analysed, 2 already there\n"
    );
    assert_eq!(std::fs::read(&file).unwrap(), analysed);
    assert_eq!(
        std::fs::read(&journal).unwrap(),
        journal_before,
        "the journal is only read"
    );

    // A record changed since: its old line is not used, the game is analysed again.
    let text = String::from_utf8(journal_before).unwrap();
    let changed_id = &games[0].id;
    let ended = format!("\"ended_unix_ms\":{}", games[0].ended_unix_ms);
    let changed = text.replacen(&ended, &format!("\"ended_unix_ms\":{}", games[0].ended_unix_ms + 1), 1);
    assert_ne!(changed, text);
    std::fs::write(&journal, changed).unwrap();
    assert_eq!(
        analyze("out", &[], dir.path()),
        "out/analysis.jsonl: 1 game(s) analysed, 1 already there\n"
    );
    let lines = analyses(&file);
    assert_eq!(lines.len(), 3);
    assert_eq!(&lines[2].game, changed_id);
    assert_eq!(lines[2].record, record_hash(&records(&journal)[0]));
    assert_ne!(
        lines[2].record,
        lines.iter().find(|line| &line.game == changed_id).unwrap().record
    );

    // An interrupted write leaves a torn line: it is cut off and nothing is redone.
    let mut torn = std::fs::read(&file).unwrap();
    let whole = torn.clone();
    torn.extend_from_slice(b"{\"game\":\"000-0");
    std::fs::write(&file, torn).unwrap();
    assert_eq!(
        analyze("out", &[], dir.path()),
        "out/analysis.jsonl: 0 game(s) analysed, 2 already there\n"
    );
    assert_eq!(std::fs::read(&file).unwrap(), whole);

    // Another effort: the lines of the first are not used, both games are analysed again.
    assert_eq!(
        analyze("out", &["--seed", "2"], dir.path()),
        "out/analysis.jsonl: 2 game(s) analysed, 0 already there\n"
    );
    let lines = analyses(&file);
    assert_eq!(lines.len(), 5);
    assert!(lines[3..].iter().all(|line| line.effort.seed == 2));
}

#[test]
fn a_single_record_is_analysed_beside_it_and_games_are_chosen_by_bot() {
    let dir = tempfile::tempdir().unwrap();
    played(dir.path());
    let journal = std::fs::read_to_string(dir.path().join("out/journal.jsonl")).unwrap();
    std::fs::write(dir.path().join("game.json"), journal.lines().nth(1).unwrap()).unwrap();
    assert_eq!(
        analyze("game.json", &[], dir.path()),
        "game.analysis.jsonl: 1 game(s) analysed, 0 already there\n"
    );
    assert_eq!(analyses(&dir.path().join("game.analysis.jsonl")).len(), 1);

    // heuristic lost no game: nothing to analyse; first-free lost both.
    assert_eq!(
        analyze("out", &["--lost-by", "heuristic"], dir.path()),
        "out/analysis.jsonl: 0 game(s) analysed, 0 already there\n"
    );
    let id = records(&dir.path().join("out/journal.jsonl"))[1].id.clone();
    assert_eq!(
        analyze(
            "out",
            &[&id, "--lost-by", "first-free", "--concurrency", "2"],
            dir.path()
        ),
        "out/analysis.jsonl: 1 game(s) analysed, 0 already there\n"
    );
    assert_eq!(analyses(&dir.path().join("out/analysis.jsonl"))[0].game, id);
}

#[test]
fn an_unknown_bot_or_game_is_an_error_that_names_those_there_are() {
    let dir = tempfile::tempdir().unwrap();
    played(dir.path());
    for (args, says) in [
        (vec!["analyze", "out", "--lost-by", "nobody"], "nobody"),
        (vec!["analyze", "out", "--bot", "heuristik"], "heuristic"),
        (vec!["analyze", "out", "999-99-z"], "999-99-z"),
    ] {
        let output = Command::cargo_bin("arena")
            .unwrap()
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    assert!(!dir.path().join("out/analysis.jsonl").exists(), "nothing written");
}

fn show(args: &[&str], dir: &Path) -> String {
    String::from_utf8(arena(&[&["show"], args].concat(), dir).stdout).unwrap()
}

/// The line of ply `ply` in `arena show`'s text.
fn ply_line(text: &str, ply: usize) -> &str {
    let start = format!("{ply:>3}. ");
    text.lines().find(|line| line.starts_with(&start)).unwrap()
}

#[test]
fn show_marks_the_moves_of_an_analysed_game_and_not_those_of_a_changed_record() {
    let dir = tempfile::tempdir().unwrap();
    played(dir.path());
    let journal = dir.path().join("out/journal.jsonl");
    let game = records(&journal).remove(0);
    let id = game.id.as_str();
    let hint = format!("\n(no analysis: arena analyze out {id} to see where it was lost)\n");
    let before = show(&["out", id], dir.path());
    assert!(before.contains(&hint), "{before}");
    assert!(!before.contains("Analysis ("), "{before}");

    analyze("out", &[id], dir.path());
    let analysis = analyses(&dir.path().join("out/analysis.jsonl")).remove(0);
    let loser = game.result.winner().expect("heuristic beats first-free").opponent();
    let losing = analysis.losing.of(loser).expect("the loser has a losing move");
    for view in [&[][..], &["--boards"]] {
        let text = show(&[&["out", id], view].concat(), dir.path());
        assert!(
            text.contains(
                "\nAnalysis (out/analysis.jsonl): solved exactly from 10 free cells, estimated before by 200 playouts \
                 (seed 1)\n  after each move, for its mover: =+12"
            ),
            "{text}"
        );
        assert!(!text.contains("(no analysis"), "{text}");
        assert!(ply_line(&text, losing).contains("← losing move"), "{text}");
        let marked = [analysis.losing.white, analysis.losing.black].iter().flatten().count();
        assert_eq!(text.matches("← losing move").count(), marked, "{text}");
        // The last ply: the final score difference, proven, for its mover.
        let last = analysis.moves.last().unwrap();
        let margin = last.after.margin.unwrap();
        let value = if margin == 0 {
            "=0".to_owned()
        } else {
            format!("={margin:+}")
        };
        assert!(ply_line(&text, last.ply).contains(&format!(" {value}")), "{text}");
        for entry in analysis
            .moves
            .iter()
            .filter(|entry| entry.grade == Some(Grade::Blunder))
        {
            assert!(ply_line(&text, entry.ply).contains(" ?? "), "{text}");
        }
    }

    // The record changed since: its analysis is of another game, and is not shown.
    let text = std::fs::read_to_string(&journal).unwrap();
    let ended = format!("\"ended_unix_ms\":{}", game.ended_unix_ms);
    let changed = text.replacen(&ended, &format!("\"ended_unix_ms\":{}", game.ended_unix_ms + 1), 1);
    assert_ne!(changed, text);
    std::fs::write(&journal, changed).unwrap();
    let after = show(&["out", id], dir.path());
    assert!(after.contains(&hint), "{after}");
    assert!(
        !after.contains("Analysis (") && !after.contains("losing move"),
        "{after}"
    );
}
