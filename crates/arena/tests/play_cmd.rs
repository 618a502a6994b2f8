//! `arena play` driven as a person would: a whole game through piped input
//! against the built-in `first-free` bot (which always takes the first free
//! cell, a1 upwards), every kind of bad input, undo, the end of input, and
//! one session through a real pseudo-terminal.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use pahtum_record::GameRecord;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// Plays `arena play first-free` with `flags`, typing `input`; returns the
/// output and the record.
fn play(flags: &[&str], input: &str) -> (Output, GameRecord) {
    play_in(tempfile::tempdir().unwrap().path(), flags, input)
}

/// As [`play`], the record written to `dir/game.json` and the game's page to `dir/game.html`.
fn play_in(dir: &Path, flags: &[&str], input: &str) -> (Output, GameRecord) {
    let out = dir.join("game.json");
    let mut child = Command::new(ARENA)
        .args(["play", "first-free", "--move-time", "5s", "--out"])
        .arg(&out)
        .arg("--html")
        .arg(dir.join("game.html"))
        .args(flags)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let record = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    (output, record)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every cell from g7 down to a1: typed in this order, the free ones are the
/// person's moves and the others are refused with a line each.
fn every_cell_from_the_top() -> String {
    let mut cells = String::new();
    for row in (1..=7).rev() {
        for column in ('a'..='g').rev() {
            cells.push_str(&format!("{column}{row}\n"));
        }
    }
    cells
}

#[test]
fn a_scripted_game_is_played_to_the_end_and_recorded() {
    let (output, record) = play(
        &["--no-pie", "--blocks", "5", "--seed", "3"],
        &every_cell_from_the_top(),
    );
    let stdout = text(&output.stdout);
    assert_eq!(record.termination.reason.name(), "normal", "{stdout}");
    let game = record.replay().expect("the record replays");
    assert!(game.is_finished());
    assert_eq!((record.white.as_str(), record.black.as_str()), ("you", "first-free"));
    // The person's stones are the highest free cells, the bot's the lowest.
    let white: Vec<String> = record
        .moves
        .iter()
        .filter(|played| played.color == pahtum::Color::White)
        .map(|played| played.cell.to_string())
        .collect();
    assert_eq!(&white[..3], ["g7", "f7", "e7"]);
    assert!(
        stdout.contains(&format!(
            "{} to {}",
            record.score.white.max(record.score.black),
            record.score.white.min(record.score.black)
        )),
        "{stdout}"
    );
    // The final board marks the scoring runs, and each side's are listed with its points.
    assert!(
        stdout.contains("The stones in capitals make the scoring runs."),
        "{stdout}"
    );
    for (color, side) in [
        (pahtum::Color::White, "  White you"),
        (pahtum::Color::Black, "  Black first-free"),
    ] {
        let runs: Vec<String> = pahtum::score::scoring_runs(game.position().stones(color))
            .into_iter()
            .map(|run| format!("{}-{} ({})", run.start, run.cells().last().unwrap(), run.points()))
            .collect();
        assert!(!runs.is_empty());
        let line = format!("{side} {} = {}\n", record.score.of_color(color), runs.join(" + "));
        assert!(stdout.contains(&line), "{line:?} in:\n{stdout}");
    }
}

#[test]
fn bad_input_gets_one_line_and_the_prompt_again() {
    // Seed 3 blocks b6, f5, e4, g4 and g3 (see the scripted game).
    let (output, record) = play(
        &["--no-pie", "--blocks", "5", "--seed", "3"],
        "hello\n\nh9\nf5\nkeep\ng7\ng7\na1\nundo\nundo\nquit\n",
    );
    let stdout = text(&output.stdout);
    for expected in [
        "\"hello\" is not a cell or a command",
        "> Type a free cell",
        "\"h9\" is not a cell or a command",
        "f5 cannot be played",
        "There is no pie decision now",
        "a1 cannot be played",
        "Nothing to undo: you have not moved yet.",
    ] {
        assert_eq!(stdout.matches(expected).count(), 1, "{expected:?} once in:\n{stdout}");
    }
    // g7 was played, then g7 again refused (occupied), a1 refused (the bot's), one undo took back
    // g7 and the bot's answer, the second undo had nothing to take back; then quit.
    assert!(stdout.contains("g7 cannot be played"), "{stdout}");
    assert!(record.moves.is_empty(), "{:?}", record.moves);
    // Quitting resigns, said once, without the points of a board left unfilled.
    assert_eq!(stdout.matches("resigned").count(), 1, "{stdout}");
    assert!(stdout.contains("You resigned: first-free (black) wins.\n"), "{stdout}");
    assert!(!stdout.contains(" to 0") && !stdout.contains("disconnect"), "{stdout}");
    record.replay().expect("the record replays");
    assert_eq!(record.termination.reason.name(), "resign");
    let forfeit = record.termination.forfeit.expect("quitting resigns");
    assert_eq!((forfeit.bot.as_str(), forfeit.detail.as_str()), ("you", "resigned"));
    assert_eq!(record.result.winner(), Some(pahtum::Color::Black));
}

#[test]
fn the_end_of_input_ends_the_game_cleanly_with_the_record() {
    let (output, record) = play(&["--as", "black", "--blocks", "7", "--seed", "9"], "swap\n");
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("(end of input)\nYou resigned: first-free (black) wins.\n"),
        "{stdout}"
    );
    // The bot opened as White; the person swapped, so the bot now holds Black.
    assert_eq!(record.swap, Some(true));
    assert_eq!(record.black, "first-free");
    record.replay().expect("the record replays");
    assert_eq!(record.termination.reason.name(), "resign");
    assert_eq!(
        record.termination.forfeit.unwrap().detail,
        "ended the game (end of input)"
    );
}

/// `--moves`: the game goes on after the given plies (the pie decision among them), which undo cannot
/// take back and the record marks as given; `--html` writes the game's page.
#[test]
fn a_game_from_given_plies_keeps_them_and_writes_its_page() {
    let dir = tempfile::tempdir().unwrap();
    // Seed 3 blocks b6, f5, e4, g4 and g3; the bot opened at c6 (given), and the colours were kept (given).
    let (output, record) = play_in(
        dir.path(),
        &["--as", "black", "--blocks", "5", "--seed", "3", "--moves", "c6,keep"],
        "keep\nundo\ng7\nundo\nquit\n",
    );
    let stdout = text(&output.stdout);
    assert!(stdout.contains("Move 3, you are black"), "{stdout}");
    assert!(stdout.contains("There is no pie decision now"), "{stdout}");
    assert!(stdout.contains("Nothing to undo: you have not moved yet."), "{stdout}");
    record.replay().expect("the record replays");
    assert_eq!(record.opening.as_ref().map(|opening| opening.plies), Some(2));
    assert_eq!((record.swap, &record.swap_move), (Some(false), &None));
    let cells: Vec<String> = record.moves.iter().map(|m| m.cell.to_string()).collect();
    assert_eq!(
        cells,
        ["c6"],
        "g7 and the bot's answer were taken back, the given c6 not"
    );
    assert!(record.is_given(0));

    let page = std::fs::read_to_string(dir.path().join("game.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    let data = page
        .split(r#"<script type="application/json" id="data">"#)
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .expect("the page embeds its data");
    let data: serde_json::Value = serde_json::from_str(data).unwrap();
    assert_eq!(data["games"][0]["id"], "play");
    assert_eq!(data["games"][0]["reason"], "resign");
    assert_eq!(data["replays"]["play"]["cells"], "c6");
}

#[test]
fn on_a_terminal_the_board_is_coloured_and_redrawn_after_each_move() {
    let mut command = Command::new(ARENA);
    command
        .args([
            "play",
            "first-free",
            "--no-pie",
            "--blocks",
            "5",
            "--seed",
            "3",
            "--move-time",
            "5s",
        ])
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR");
    let options = rexpect::reader::Options::new()
        .timeout_ms(Some(30_000))
        .strip_ansi_escape_codes(false);
    let mut session = rexpect::session::spawn_with_options(command, options).unwrap();
    session.exp_string("Move 1, you are white").unwrap();
    session.send_line("g7").unwrap();
    session.exp_string("first-free plays a1.").unwrap();
    // The redrawn board marks the bot's move and colours both stones (in lower case: in no scoring run).
    session.exp_regex(r"1 \|\((\x1b\[[0-9;]+m)+b").unwrap();
    session.exp_string("Move 3, you are white").unwrap();
    session.send_line("board").unwrap();
    session.exp_string("a b c d e f g").unwrap();
    session.send_line("quit").unwrap();
    session.exp_string("first-free (black) wins").unwrap();
    session.exp_eof().unwrap();
}
