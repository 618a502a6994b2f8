//! `arena report`, `arena show` and `arena game --html` as a user runs them, on games of built-in bots:
//! journals, run folders and single records.

use std::path::Path;
use std::process::{Command, Output};

use assert_cmd::cargo::CommandCargoExt;

/// `arena args` in `dir`, which must end with `code`.
fn arena_ending(args: &[&str], dir: &Path, code: i32) -> Output {
    let output = Command::cargo_bin("arena")
        .unwrap()
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(code),
        "arena {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn arena(args: &[&str], dir: &Path) -> Output {
    arena_ending(args, dir, 0)
}

/// `arena args` in `dir`, which must fail; its stderr.
fn arena_fails(args: &[&str], dir: &Path) -> String {
    String::from_utf8(arena_ending(args, dir, 1).stderr).unwrap()
}

/// A round-robin of two built-in bots and one that plays illegal moves, two games a pair, played into
/// `dir/out`.
fn played(dir: &Path) {
    let bot = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bot.py");
    let file = format!(
        "name = \"cli\"\nseed = 3\ngames_per_pair = 2\n[rules]\nblocks = [7]\n[time]\nmove_ms = 2000\n\
         [[bots]]\nname = \"heuristic\"\nbuiltin = \"heuristic\"\n\
         [[bots]]\nname = \"first-free\"\nbuiltin = \"first-free\"\n\
         [[bots]]\nname = \"illegal\"\ncommand = \"python3 {} illegal\"\n",
        bot.display()
    );
    std::fs::write(dir.join("t.toml"), file).unwrap();
    arena(&["run", "t.toml", "--out", "out"], dir);
}

/// The game ids of a page's embedded data.
fn game_ids(page: &str) -> Vec<String> {
    let data = page
        .split(r#"<script type="application/json" id="data">"#)
        .nth(1)
        .unwrap();
    let data: serde_json::Value = serde_json::from_str(data.split("</script>").next().unwrap()).unwrap();
    data["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|game| game["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_run_writes_its_report_and_arena_report_makes_the_same_from_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    played(dir.path());
    let written = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    assert_eq!(game_ids(&written).len(), 6);
    arena(&["report", "out", "--out", "again.html"], dir.path());
    let again = std::fs::read_to_string(dir.path().join("again.html")).unwrap();
    assert_eq!(again, written, "the report is a function of the journal");
    arena(&["report", "out/journal.jsonl", "--max-replays", "2"], dir.path());
    let bounded = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    // The four forfeits of the illegal bot are embedded even beyond the bound of two; the page says so.
    assert!(bounded.contains("The replays of 4 of the 6 games are embedded"));
}

/// `arena match` folds its standings and report from its own games as they end; `arena report` folds the
/// same from the journal: the pages are the same.
#[test]
fn a_match_s_report_is_the_one_arena_report_makes_from_its_journal() {
    let dir = tempfile::tempdir().unwrap();
    arena(
        &[
            "match",
            "heuristic",
            "first-free",
            "--games",
            "6",
            "--seed",
            "5",
            "--out",
            "m",
        ],
        dir.path(),
    );
    let written = std::fs::read_to_string(dir.path().join("m/report.html")).unwrap();
    assert_eq!(game_ids(&written).len(), 6);
    arena(&["report", "m", "--out", "again.html"], dir.path());
    let again = std::fs::read_to_string(dir.path().join("again.html")).unwrap();
    assert_eq!(again, written);
}

#[test]
fn show_lists_games_and_prints_one_move_by_move() {
    let dir = tempfile::tempdir().unwrap();
    played(dir.path());
    let list = String::from_utf8(arena(&["show", "out", "--bot", "illegal"], dir.path()).stdout).unwrap();
    assert!(list.ends_with("4 game(s)\n"), "{list}");
    let lost = String::from_utf8(arena(&["show", "out", "--lost-by", "illegal"], dir.path()).stdout).unwrap();
    assert!(lost.ends_with("4 game(s)\n"), "illegal loses every game: {lost}");
    assert!(
        lost.lines().all(|line| !line.contains("normal")),
        "each by its illegal move: {lost}"
    );
    let id = lost.split_whitespace().next().unwrap();
    let game = String::from_utf8(arena(&["show", "out", id], dir.path()).stdout).unwrap();
    assert!(game.starts_with(&format!("Game {id}: ")), "{game}");
    assert!(game.contains("\n  1. ") && game.contains("\nResult: "), "{game}");
    assert!(game.contains("Forfeit by illegal"), "{game}");
    let error = arena_fails(&["show", "out", "no-such-game"], dir.path());
    assert!(error.contains("out has no game \"no-such-game\""), "{error}");
    let error = arena_fails(&["show", "out", "--boards"], dir.path());
    assert!(error.contains("--boards shows one game: give its id"), "{error}");
    let error = arena_fails(&["show", "t.toml"], dir.path());
    assert!(
        error.contains("t.toml is neither a journal nor a game's record"),
        "{error}"
    );
}

/// A bot name that the journal does not have selects no game: that is an error that lists the journal's
/// bots (`--lost-by random` when the bot is `python-random` printed `0 game(s)` and succeeded).
#[test]
fn show_refuses_a_bot_that_the_journal_does_not_have() {
    let dir = tempfile::tempdir().unwrap();
    played(dir.path());
    let error = arena_fails(&["show", "out", "--lost-by", "free"], dir.path());
    assert!(
        error.contains(
            "no bot named \"free\" played these games (did you mean \"first-free\"?); \
             give one of: first-free, heuristic, illegal"
        ),
        "{error}"
    );
    let error = arena_fails(&["show", "out/journal.jsonl", "--bot", "heuristc"], dir.path());
    assert!(error.contains("(did you mean \"heuristic\"?)"), "{error}");
}

#[test]
fn a_single_game_has_a_page_and_its_record_shows_in_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    arena(
        &[
            "game",
            "--white",
            "first-free",
            "--black",
            "heuristic",
            "--seed",
            "7",
            "--out",
            "game.json",
            "--html",
            "game.html",
        ],
        dir.path(),
    );
    let page = std::fs::read_to_string(dir.path().join("game.html")).unwrap();
    assert_eq!(game_ids(&page), ["game"]);
    let shown = String::from_utf8(arena(&["show", "game.json"], dir.path()).stdout).unwrap();
    assert!(
        shown.starts_with("Game game: first-free (first seat) against heuristic (second seat)\n"),
        "{shown}"
    );
    // `arena report` of the record writes the same page beside it.
    std::fs::remove_file(dir.path().join("game.html")).unwrap();
    arena(&["report", "game.json"], dir.path());
    assert_eq!(std::fs::read_to_string(dir.path().join("game.html")).unwrap(), page);
    let error = arena_fails(&["report", "game.json", "game.json"], dir.path());
    assert!(error.contains("a game's record is read alone"), "{error}");
}

/// `arena show` of a game's record: by default the final board, its runs and the plies, numbered as the
/// viewer numbers them (the pie decision is ply 2); `--boards` the board after each ply, its cell marked.
#[test]
fn show_of_a_record_is_compact_and_numbers_the_plies_as_the_viewer() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["game", "--white", "first-free", "--black", "heuristic", "--seed", "7"];
    arena(&[args.as_slice(), &["--out", "game.json"]].concat(), dir.path());
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("game.json")).unwrap()).unwrap();
    let decision = if record["swap"] == true { "swap" } else { "keep" };
    let shown = String::from_utf8(arena(&["show", "game.json"], dir.path()).stdout).unwrap();
    let lines = shown.lines().count();
    assert!((40..=70).contains(&lines), "{lines} lines: {shown}");
    assert!(
        shown.contains(&format!("\n  2. {decision}  black  heuristic ")),
        "{shown}"
    );
    // The record's second stone is ply 3, after the pie decision.
    let second = record["moves"][1]["cell"].as_str().unwrap();
    assert!(shown.contains(&format!("\n  3. {second:<4}  black  ")), "{shown}");
    assert_eq!(
        shown.matches("    +---------------+\n").count(),
        2,
        "one board: {shown}"
    );
    assert!(
        shown.contains(&format!("\n  White {} = ", record["score"]["white"])),
        "{shown}"
    );
    let boards = String::from_utf8(arena(&["show", "game.json", "--boards"], dir.path()).stdout).unwrap();
    let plies = record["moves"].as_array().unwrap().len() + 1;
    assert_eq!(boards.matches("      a b c d e f g\n").count(), plies + 1, "{boards}");
    let last = record["moves"].as_array().unwrap().last().unwrap()["cell"]
        .as_str()
        .unwrap();
    let marked = boards
        .lines()
        .filter(|line| line.contains(" |") && line.contains('('))
        .count();
    assert_eq!(marked, plies - 1, "each stone's board marks it: {boards}");
    assert!(
        boards.contains(&format!("\n{:>3}. {last:<4}  ", plies)),
        "the last ply has the number the viewer gives it: {boards}"
    );
}
