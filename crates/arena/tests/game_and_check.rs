//! `arena game`, `arena check` and `arena bot` as a user runs them, and the
//! guarantee that bots die with the referee.

use std::process::Command;
use std::time::Duration;

use assert_cmd::cargo::CommandCargoExt;
use pahtum_record::GameRecord;
use pahtum_testkit::wait_for;

fn arena() -> Command {
    Command::cargo_bin("arena").expect("the arena binary is built")
}

#[test]
fn a_game_between_built_in_bots_writes_a_record_that_replays() {
    let output = arena()
        .args(["game", "--white", "first-free", "--black", "heuristic", "--seed", "7"])
        .args(["--move-time", "2s", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let record: GameRecord = serde_json::from_slice(&output.stdout).unwrap();
    record.replay().unwrap();
    assert_eq!(record.seed, Some(7));
    assert_eq!(record.players.first, "first-free");
    assert!(record.swap.is_some(), "the pie rule was on");
    let board = String::from_utf8_lossy(&output.stderr);
    assert!(board.contains("a b c d e f g") && board.contains("Result:"), "{board}");
    // The board as `arena show` and `arena play` draw it: each side's scoring runs listed by its name.
    let position = *record.replay().unwrap().position();
    for (color, name) in [
        (pahtum::Color::White, &record.white),
        (pahtum::Color::Black, &record.black),
    ] {
        let runs: Vec<String> = pahtum::score::scoring_runs(position.stones(color))
            .into_iter()
            .map(|run| format!("{}-{} ({})", run.start, run.cells().last().unwrap(), run.points()))
            .collect();
        let line = match runs.is_empty() {
            true => format!("  {color:?} {name} 0: no run\n"),
            false => format!(
                "  {color:?} {name} {} = {}\n",
                record.score.of_color(color),
                runs.join(" + ")
            ),
        };
        assert!(board.contains(&line), "{line:?} in {board}");
    }
}

#[test]
fn check_passes_a_conforming_bot() {
    let output = arena().args(["check", "heuristic"]).output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.contains("conforms") && !text.contains("FAIL"), "{text}");
    // Each game says the opponent, the bot's colour after the pie decision and whose points are whose.
    assert!(
        text.contains("a game as White, pie rule on (the opponent decides): ")
            && text.contains(" moves against first-free; first-free ")
            && text.contains(" the colours, so the bot played ")
            && text.contains("; the bot "),
        "{text}"
    );
    assert!(text.contains("Answer times of the bot: median "), "{text}");
}

#[test]
fn check_reports_a_failure_of_every_game_once_with_its_count() {
    let bot = r#"sh -c 'read l; echo "{\"type\":\"hello\",\"protocol\":1,\"name\":\"x\"}"; while read l; do echo nonsense; done'"#;
    let output = arena().args(["check", bot]).output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert_eq!(text.matches("FAIL").count(), 2, "the ping and one game: {text}");
    assert!(text.contains("the same failure in 7 more game(s): "), "{text}");
    assert!(text.contains("9 check(s) failed"), "{text}");
}

#[test]
fn check_of_a_bot_that_cannot_start_exits_with_1_and_says_why() {
    let output = arena().args(["check", "./no-such-bot"]).output().unwrap();
    let error = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{error}");
    assert!(error.contains("No such file or directory"), "{error}");
}

#[test]
fn check_explains_what_is_wrong_with_exit_code_2() {
    let output = arena().args(["check", "sh -c 'echo hello; cat'"]).output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        text.contains("FAIL") && text.contains("not JSON") && text.contains("the line: hello"),
        "{text}"
    );
}

#[test]
fn bad_usage_exits_with_1() {
    let output = arena().args(["game", "--white", "first-free"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let output = arena().args(["bot", "no-such-bot"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
}

/// The bots of a referee killed with SIGKILL die with it (the parent-death
/// signal, and the containment guard, which then exits too), although the
/// referee could not clean up.
#[test]
fn bots_die_when_the_referee_is_killed() {
    let mut referee = arena()
        .args(["game", "--white", "first-free", "--black", "sleep 1000"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The two bots and the guard.
    let processes = wait_for("the referee has started its two bots and its guard", WITHIN, || {
        let children = children_of(referee.id());
        (children.len() == 3).then_some(children)
    });
    referee.kill().unwrap();
    referee.wait().unwrap();
    wait_for("the bots and the guard have died with the referee", WITHIN, || {
        processes.iter().all(|&pid| !is_running(pid)).then_some(())
    });
}

/// How long a test waits for processes to start or die.
const WITHIN: Duration = Duration::from_secs(10);

/// The parent and the state letter (`R`, `S`, `Z`, ...) of process `pid`.
fn stat(pid: u32) -> Option<(u32, char)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    Some((parent, state))
}

/// The live (not zombie) children of `parent`.
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .filter(|&pid| stat(pid).is_some_and(|(ppid, state)| ppid == parent && state != 'Z'))
        .collect()
}

fn is_running(pid: u32) -> bool {
    stat(pid).is_some_and(|(_, state)| !matches!(state, 'Z' | 'X'))
}
