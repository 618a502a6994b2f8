//! `arena game`'s defaults as a user meets them: the bots' names and the rules.

use std::process::Command;

use pahtum::Seat;
use pahtum_record::GameRecord;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn game(flags: &[&str]) -> GameRecord {
    game_timed("2s", flags)
}

fn game_timed(move_time: &str, flags: &[&str]) -> GameRecord {
    let output = Command::new(ARENA)
        .args(["game", "--seed", "3", "--move-time", move_time, "--json"])
        .args(flags)
        .output()
        .expect("arena runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("the record is on stdout")
}

#[test]
fn a_bot_against_itself_gets_two_names_and_the_pie_rule_is_on_by_default() {
    let record = game(&["--white", "first-free", "--black", "first-free"]);
    assert_eq!(
        (record.players.first.as_str(), record.players.second.as_str()),
        ("first-free-white", "first-free-black")
    );
    assert!(record.rules.pie, "the pie rule is on, as in tournaments");
    assert!(record.swap.is_some(), "the pie decision was asked for");
    record.replay().unwrap();
}

#[test]
fn names_are_short_and_no_pie_turns_the_pie_rule_off() {
    let command = format!("{ARENA} bot first-free");
    let record = game(&["--white", &command, "--black", "heuristic", "--no-pie"]);
    let expected = std::path::Path::new(ARENA).file_name().unwrap().to_str().unwrap();
    assert_eq!(
        (record.players.first.as_str(), record.players.second.as_str()),
        (expected, "heuristic")
    );
    assert!(!record.rules.pie);
    assert_eq!(record.swap, None);
}

/// `--names` as in `arena match`, and a time control for each bot (`--white`'s, then `--black`'s).
#[test]
fn names_and_a_time_control_per_bot() {
    let record = game_timed(
        "1s,3s",
        &["--white", "first-free", "--black", "heuristic", "--names", "ff,heur"],
    );
    assert_eq!(
        (record.players.first.as_str(), record.players.second.as_str()),
        ("ff", "heur")
    );
    assert_eq!(record.time_of(Seat::First).move_ms, Some(1000));
    assert_eq!(record.time_of(Seat::Second).move_ms, Some(3000));
    let refused = Command::new(ARENA)
        .args([
            "game",
            "--white",
            "first-free",
            "--black",
            "first-free",
            "--names",
            "a,a",
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("both bots are named \"a\""));
}
