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

/// A bot that plays the first free cell (a1, b1, ...), keeps the colours, and
/// appends every request it is asked to answer to the file named by its argument.
const LOGGING_BOT: &str = r#"
import json, sys
log = open(sys.argv[1], "a")
cells = [column + row for row in "1234567" for column in "abcdefg"]
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    answer = None
    if kind == "hello":
        answer = {"type": "hello", "protocol": 1, "name": "logger"}
    elif kind == "new_game":
        answer = {"type": "ready", "id": message["id"]}
    elif kind == "ping":
        answer = {"type": "pong", "id": message["id"]}
    elif kind == "quit":
        break
    elif kind == "pie_decision":
        answer = {"type": "pie", "id": message["id"], "swap": False}
    elif kind in ("play_stone", "place_block"):
        taken = set(message["blocks"]) | set(message["white"]) | set(message["black"])
        cell = next(c for c in cells if c not in taken)
        answer = {"type": "stone" if kind == "play_stone" else "block", "id": message["id"], "cell": cell}
    if kind in ("play_stone", "place_block", "pie_decision"):
        log.write(line)
        log.flush()
    if answer is not None:
        print(json.dumps(answer), flush=True)
"#;

/// `arena game` with `flags` in `dir`, and its output, successful or not.
fn game_in(dir: &std::path::Path, flags: &[&str]) -> std::process::Output {
    Command::new(ARENA)
        .current_dir(dir)
        .args(["game", "--move-time", "5s"])
        .args(flags)
        .output()
        .expect("arena runs")
}

fn stdout_record(output: &std::process::Output) -> GameRecord {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("the record is on stdout")
}

/// Players' blocks and the pie decision given with `--moves`: the referee plays them, the bot's first
/// request holds them, neither bot is asked for them, and the record says so and replays.
#[test]
fn a_game_starts_after_the_given_plies_which_the_bots_see_but_did_not_choose() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("logger.py"), LOGGING_BOT).unwrap();
    let output = game_in(
        dir.path(),
        &[
            "--white",
            "python3 logger.py requests.jsonl",
            "--black",
            "first-free",
            "--names",
            "logger,ff",
            "--placed-blocks",
            "3",
            "--moves",
            "#c6,#d2,#a1,d4,swap",
            "--json",
        ],
    );
    let record = stdout_record(&output);
    let summary = String::from_utf8_lossy(&output.stderr);
    assert!(
        summary.contains("Started at ply 6: the plies before it were given."),
        "{summary}"
    );
    record.replay().expect("the record replays");
    let opening = record.opening.clone().expect("the record says where the game started");
    assert_eq!((opening.plies, opening.from), (5, None));
    // The swap was given: the second seat (ff) took White's first stone, and was not timed on it.
    assert_eq!((record.swap, &record.swap_move), (Some(true), &None));
    assert_eq!((record.white.as_str(), record.black.as_str()), ("ff", "logger"));
    let cells: Vec<String> = record.moves.iter().map(|m| m.cell.to_string()).collect();
    assert_eq!(&cells[..4], ["c6", "d2", "a1", "d4"]);
    for index in 0..record.moves.len() {
        assert_eq!(record.is_given(index), index < 4, "move {index}");
    }
    assert!(
        record.moves[..4]
            .iter()
            .all(|m| m.timing.ms == 0.0 && m.timing.cpu_ms.is_none())
    );
    // The logger (first seat, Black after the swap) is asked first, with the given plies in `moves`.
    let requests = std::fs::read_to_string(dir.path().join("requests.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(requests.lines().next().unwrap()).unwrap();
    assert_eq!(first["type"], "play_stone");
    assert_eq!(first["color"], "black");
    assert_eq!(first["moves"], serde_json::json!(["#c6", "#d2", "#a1", "d4", "swap"]));
    assert_eq!(first["white"], serde_json::json!(["d4"]));
    assert!(
        !requests.contains("pie_decision") && !requests.contains("place_block"),
        "{requests}"
    );
}

/// A ply the rules refuse, or that is no ply at all, is named with its number and why.
#[test]
fn a_bad_given_ply_is_refused_with_its_number_and_why() {
    let dir = tempfile::tempdir().unwrap();
    for (moves, expected) in [
        ("c6,keep,c6", "--moves: ply 3 (c6): c6 is occupied by a stone"),
        ("c6,z9", "--moves: ply 2: \"z9\" is not an action"),
        (
            "c6,d4",
            "--moves: ply 2 (d4): d4 is not allowed in the pie decision phase",
        ),
    ] {
        let output = game_in(
            dir.path(),
            &[
                "--white",
                "first-free",
                "--black",
                "first-free",
                "--seed",
                "3",
                "--moves",
                moves,
            ],
        );
        assert_eq!(output.status.code(), Some(1), "{moves}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{moves}: {stderr}");
    }
}

/// `--from JOURNAL --game ID --ply N`: the recorded game's layout and its first N-1 plies, then the bots.
#[test]
fn a_recorded_game_is_played_again_from_a_ply() {
    let dir = tempfile::tempdir().unwrap();
    let played = Command::new(ARENA)
        .current_dir(dir.path())
        .args("match heuristic first-free --games 2 --out m --move-time 5s".split(' '))
        .output()
        .unwrap();
    assert!(played.status.success(), "{}", String::from_utf8_lossy(&played.stderr));
    let journal = std::fs::read_to_string(dir.path().join("m/journal.jsonl")).unwrap();
    let recorded: GameRecord = serde_json::from_str(journal.lines().nth(2).unwrap()).unwrap();
    let ply = 12;
    let again = stdout_record(&game_in(
        dir.path(),
        &[
            "--white",
            "first-free",
            "--black",
            "heuristic",
            "--from",
            "m",
            "--game",
            &recorded.id,
            "--ply",
            "12",
            "--json",
        ],
    ));
    let opening = again.opening.clone().unwrap();
    assert_eq!(opening.plies, ply - 1);
    let from = opening.from.unwrap();
    assert_eq!((from.file.as_str(), from.game.as_str()), ("m", recorded.id.as_str()));
    assert_eq!((again.rules, again.seed), (recorded.rules, recorded.seed));
    // The board after ply N-1 is the recorded game's.
    assert_eq!(board_before(&again, ply), board_before(&recorded, ply));
    // The recorded time control, as no flag gave one.
    assert_eq!(again.time, recorded.time);

    let id = recorded.id.as_str();
    for (flags, expected) in [
        (["--game", id, "--ply", "60"], "--ply 60: game"),
        (["--game", id, "--ply", "0"], "has plies 1 to"),
        (["--ply", "3", "--out", "x.json"], "say which with --game ID"),
    ] {
        let refused = game_in(
            dir.path(),
            &[
                &["--white", "first-free", "--black", "first-free", "--from", "m"][..],
                &flags,
            ]
            .concat(),
        );
        assert_eq!(refused.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(stderr.contains(expected), "{flags:?}: {stderr}");
    }
}

/// The board of `record`'s game before its ply `ply`: its first blocks and its first `ply - 1` plies.
fn board_before(record: &GameRecord, ply: usize) -> pahtum::Position {
    let mut board = record.rules.start(&record.first_blocks()).unwrap();
    for &action in &record.replay().unwrap().history()[..ply - 1] {
        board.play(action).unwrap();
    }
    *board.position()
}
