//! `arena report`, `arena show` and `arena game --html` as a user runs them, on games of built-in bots.

use std::path::Path;
use std::process::{Command, Output};

use assert_cmd::cargo::CommandCargoExt;

fn arena(args: &[&str], dir: &Path) -> Output {
    let output = Command::cargo_bin("arena")
        .unwrap()
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "arena {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
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
    assert!(game.contains("\n 1. ") && game.contains("\nResult: "), "{game}");
    assert!(game.contains("Forfeit by illegal"), "{game}");
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
        shown.starts_with("Game game: first-free (first seat) against heuristic (second seat)"),
        "{shown}"
    );
}
