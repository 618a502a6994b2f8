//! End-to-end tests of `arena match` with the built-in bots, which are deterministic and fast:
//! `heuristic` beats `first-free` (which plays the first legal move) in every game.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn arena_match(out: &Path, flags: &[&str]) -> Output {
    Command::new(ARENA)
        .args([
            "match",
            "heuristic",
            "first-free",
            "--concurrency",
            "2",
            "--move-time",
            "1s",
        ])
        .arg("--out")
        .arg(out)
        .args(flags)
        .output()
        .expect("arena runs")
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn journal_games(out: &Path) -> usize {
    // The first line is the header.
    std::fs::read_to_string(out.join("journal.jsonl"))
        .unwrap()
        .lines()
        .count()
        - 1
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_short_match_plays_every_game_and_writes_the_tables() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    let output = arena_match(&out, &["--games", "4", "--blocks", "5,7"]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}{stdout}", text(&output.stderr));
    assert!(
        stdout.starts_with(
            "Match heuristic vs first-free (pie rule, 5,7 random blocks): 4 of 4 games played; heuristic scored 4/4 \
             (100.0%)."
        ),
        "{stdout}"
    );
    assert!(stdout.contains("95% interval") && stdout.contains("Pairs"), "{stdout}");
    assert_eq!(journal_games(&out), 4);

    let standings = json(&out.join("standings.json"));
    assert_eq!(standings["ratings"]["status"], "fitted");
    assert_eq!(standings["ratings"]["bots"][0]["bot"], "heuristic");
    let rating = &standings["bots"][0]["rating"];
    let (lower, elo, upper) = (
        rating["lower"].as_f64(),
        rating["elo"].as_f64(),
        rating["upper"].as_f64(),
    );
    assert!(lower < elo && elo < upper, "{rating}");
    assert_eq!(standings["pairs"][0]["pentanomial"], serde_json::json!([0, 0, 0, 0, 2]));
    let report = json(&out.join("match.json"));
    assert_eq!(
        (report["games_planned"].as_u64(), report["games_played"].as_u64()),
        (Some(4), Some(4))
    );
    assert!(report["sprt"].is_null());
    for table in ["standings.md", "standings.csv", "pairs.csv"] {
        assert!(out.join(table).is_file(), "{table} is missing");
    }

    // `arena standings` reads the match's journal, and an anchor fixes one bot's Elo.
    let anchored = Command::new(ARENA)
        .args(["standings", "--format", "json", "--anchor", "first-free=1000"])
        .arg(out.join("journal.jsonl"))
        .output()
        .unwrap();
    assert!(anchored.status.success(), "{}", text(&anchored.stderr));
    let anchored: Value = serde_json::from_slice(&anchored.stdout).unwrap();
    assert_eq!(anchored["bots"][1]["bot"], "first-free");
    assert_eq!(anchored["bots"][1]["rating"]["elo"], 1000.0);
    assert_eq!(anchored["rating_model"]["anchor"]["bot"], "first-free");

    // The same command again resumes the finished match: nothing more is played.
    let again = arena_match(&out, &["--games", "4", "--blocks", "5,7"]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert_eq!(text(&again.stdout), stdout);
    assert_eq!(journal_games(&out), 4);

    // Other flags do not resume another match's journal.
    let other = arena_match(&out, &["--games", "6", "--blocks", "5,7"]);
    assert_eq!(other.status.code(), Some(1));
    let stderr = text(&other.stderr);
    assert!(
        stderr.contains("games_per_pair: 4 -> 6") && stderr.contains("--fresh"),
        "{stderr}"
    );
}

#[test]
fn an_sprt_stops_the_match_as_soon_as_it_decides() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    let output = arena_match(&out, &["--games", "400", "--sprt", "0,50"]);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(output.status.success(), "{stderr}{stdout}");
    let report = json(&out.join("match.json"));
    let played = report["games_played"].as_u64().unwrap();
    assert!(played < 400, "the match did not stop early: {played} games");
    assert_eq!(played as usize, journal_games(&out));
    assert_eq!(played % 2, 0, "whole layout pairs: {played}");
    // The verdict is the test's state when it crossed the bound; the pairs begun then were completed.
    let decision = &report["sprt"]["decision"];
    assert_eq!(decision["status"], "accept_h1");
    assert_eq!(report["sprt"]["elo1"], 50.0);
    let llr = decision["llr"].as_f64().unwrap();
    assert!(llr >= decision["upper"].as_f64().unwrap(), "{llr}");
    let decided_after = decision["games"].as_u64().unwrap();
    assert!(
        decided_after <= played && played <= decided_after + 2,
        "{decided_after} {played}"
    );
    assert!(
        stdout.contains("H1 accepted: heuristic is at least 50 Elo stronger than first-free"),
        "{stdout}"
    );
    assert!(stderr.contains("LLR") && stderr.contains("[-2.94, 2.94]"), "{stderr}");

    // A layout pair begun after the decided ones (as a run interrupted with games out of order leaves it):
    // resuming completes it, past the next layout's games, and begins no new pair.
    let rounds = played / 2;
    let (begun, skipped) = (format!("000-{:02}", rounds + 1), format!("000-{rounds:02}"));
    let journal_path = out.join("journal.jsonl");
    let journal = std::fs::read_to_string(&journal_path).unwrap();
    // A true record of that game (a journal is checked when read): the same match played further, without the
    // SPRT, in a folder of its own. Its journal is in the order the games ended, so look the game up.
    let further = dir.path().join("further");
    let further_games = (2 * (rounds + 2)).to_string();
    let output = arena_match(&further, &["--games", &further_games]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let begun_game = std::fs::read_to_string(further.join("journal.jsonl"))
        .unwrap()
        .lines()
        .find(|line| serde_json::from_str::<Value>(line).unwrap()["id"] == format!("{begun}-a"))
        .unwrap()
        .to_owned();
    std::fs::write(&journal_path, format!("{journal}{begun_game}\n")).unwrap();
    let resumed = arena_match(&out, &["--games", "400", "--sprt", "0,50"]);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    let ids: Vec<String> = std::fs::read_to_string(&journal_path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(ids.len() as u64, played + 2, "{ids:?}");
    assert_eq!(ids.last().unwrap(), &format!("{begun}-b"));
    assert!(!ids.iter().any(|id| id.starts_with(&skipped)), "{ids:?}");
}

#[test]
fn fair_mode_reaches_every_game_and_is_part_of_the_match() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    let output = arena_match(&out, &["--games", "2", "--pause-idle"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    let lines: Vec<Value> = journal
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines[0]["tournament"]["pause_idle"], true);
    assert_eq!(lines.len(), 3);
    for record in &lines[1..] {
        assert_eq!(record["pause_idle"], true, "{record}");
    }

    let unfair = arena_match(&out, &["--games", "2"]);
    assert_eq!(unfair.status.code(), Some(1));
    let stderr = text(&unfair.stderr);
    assert!(stderr.contains("pause_idle: true -> null"), "{stderr}");
}

#[test]
fn bad_flags_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let output = arena_match(dir.path(), &["--games", "3"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("'3' for '--games <N>': use an even number"),
        "{}",
        text(&output.stderr)
    );
    let output = arena_match(dir.path(), &["--games", "4", "--sprt", "5,0"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("elo0 must be below elo1"),
        "{}",
        text(&output.stderr)
    );
    let output = arena_match(dir.path(), &["--games", "4", "--names", "solo"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("--names solo: give two names"),
        "{}",
        text(&output.stderr)
    );
    let output = arena_match(dir.path(), &["--games", "4", "--anchor", "nobody=0"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("--anchor nobody: the bots are named heuristic and first-free"),
        "{stderr}"
    );
    assert!(!dir.path().join("journal.jsonl").exists(), "nothing was played");
}

#[test]
fn a_command_bot_resumes_only_from_the_folder_it_was_started_in() {
    let dir = tempfile::tempdir().unwrap();
    let (here, elsewhere) = (dir.path().join("here"), dir.path().join("elsewhere"));
    std::fs::create_dir_all(&here).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    let out = dir.path().join("m");
    let command = format!("{ARENA} bot first-free");
    let run_in = |folder: &Path| {
        Command::new(ARENA)
            .args([
                "match",
                "heuristic",
                &command,
                "--games",
                "2",
                "--names",
                "h,f",
                "--concurrency",
                "1",
            ])
            .arg("--out")
            .arg(&out)
            .current_dir(folder)
            .output()
            .expect("arena runs")
    };
    let first = run_in(&here);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let again = run_in(&here);
    assert!(again.status.success(), "{}", text(&again.stderr));
    let moved = run_in(&elsewhere);
    assert_eq!(moved.status.code(), Some(1));
    let stderr = text(&moved.stderr);
    assert!(
        stderr.contains("bots[1].dir") && stderr.contains("elsewhere"),
        "{stderr}"
    );
}

/// The block counts are taken in turn, a layout pair each, so that the games are balanced over them; and
/// each bot plays by its own time control, in either seat.
#[test]
fn block_counts_cycle_and_each_bot_has_its_own_time() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    let output = Command::new(ARENA)
        .args(["match", "heuristic", "first-free", "--games", "12", "--blocks", "5,7,9"])
        .args(["--move-time", "1s,2s", "--concurrency", "2"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    let lines: Vec<Value> = journal
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let mut per_count = std::collections::BTreeMap::new();
    for record in &lines[1..] {
        *per_count
            .entry(record["rules"]["blocks"].as_u64().unwrap())
            .or_insert(0) += 1;
        let heuristic_seat = if record["players"]["first"] == "heuristic" {
            "first"
        } else {
            "second"
        };
        let other_seat = if heuristic_seat == "first" { "second" } else { "first" };
        let seats = &record["time_by_seat"];
        assert_eq!(seats[heuristic_seat]["move_ms"], 1000, "{record}");
        assert_eq!(seats[other_seat]["move_ms"], 2000, "{record}");
    }
    assert_eq!(per_count, [(5, 4), (7, 4), (9, 4)].into_iter().collect(), "{journal}");
}

/// Core pinning gives each game at once a core of its own: more games at once than usable cores is
/// refused before any game, with the numbers and what to do; `taskset` leaves the arena one core.
#[test]
fn pinning_more_games_than_cores_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    let output = Command::new("taskset")
        .args(["-c", "0", ARENA, "match", "heuristic", "first-free", "--games", "2"])
        .args(["--concurrency", "2", "--affinity", "--out"])
        .arg(&out)
        .output()
        .expect("taskset runs the arena");
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("each of the 2 games at once a core of its own, but the arena may use only 1 core (0)"),
        "{stderr}"
    );
    assert!(stderr.contains("lower --concurrency to 1"), "{stderr}");
    assert!(!out.join("journal.jsonl").exists() || journal_games(&out) == 0);
}

/// A pinned match on one core plays every game: each game takes the one slot and gives it back, and the
/// warm processes wait in that slot for the first game.
#[test]
fn a_pinned_match_plays_every_game() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    let output = Command::new(ARENA)
        .args(["match", "heuristic", "first-free", "--games", "4", "--concurrency", "1"])
        .args(["--affinity", "--move-time", "1s", "--out"])
        .arg(&out)
        .output()
        .expect("arena runs");
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(journal_games(&out), 4);
}
