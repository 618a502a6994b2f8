//! `--sandbox` on the command line: `arena check --sandbox` tells a bot's
//! author whether the bot runs in the sandbox, and `arena game --sandbox`
//! plays a game in it. Skipped (with a printed line) where the sandbox
//! cannot run, except with `CI=true`.

use std::io::Write as _;
use std::process::{Command, Output};

use assert_cmd::cargo::CommandCargoExt;
use pahtum_record::GameRecord;

fn arena(args: &[&str]) -> Output {
    Command::cargo_bin("arena")
        .expect("the arena binary is built")
        .args(args)
        .output()
        .unwrap()
}

/// The check of a built-in bot in the sandbox, or `None` (printed) where the
/// sandbox cannot run here; fails in CI.
fn sandboxed_check_of_heuristic() -> Option<String> {
    let output = arena(&["check", "--sandbox", "heuristic", "--move-time", "2s"]);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    if output.status.code() == Some(1) {
        let why = String::from_utf8_lossy(&output.stderr);
        assert!(
            !std::env::var("CI").is_ok_and(|ci| ci == "true"),
            "the sandbox tests need the sandbox in CI: {why}"
        );
        // Past the test harness's capture, so that the skip shows in every run.
        let _ = writeln!(std::io::stderr(), "skipped: the sandbox cannot run here: {why}");
        return None;
    }
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    Some(stdout)
}

#[test]
fn check_says_the_bot_runs_in_the_sandbox_or_why_not() {
    let Some(conforming) = sandboxed_check_of_heuristic() else {
        return;
    };
    assert!(
        conforming.contains("In the sandbox: no network") && conforming.contains("conforms"),
        "{conforming}"
    );
    // A bot that needs the network starts outside the sandbox, not inside.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    // Readable by the sandbox's user: only the missing network may stop the bot.
    std::fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let script = dir.path().join("bot.py");
    std::fs::write(
        &script,
        format!("import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)\n"),
    )
    .unwrap();
    let output = arena(&["check", "--sandbox", &format!("python3 {}", script.display())]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        text.contains("FAIL  greeting") && text.contains("In the sandbox the bot sees only"),
        "{text}"
    );
    assert!(
        text.contains("Network is unreachable") || text.contains("Connection refused"),
        "{text}"
    );
}

#[test]
fn a_sandboxed_game_is_played_to_the_end() {
    if sandboxed_check_of_heuristic().is_none() {
        return;
    }
    let output = arena(&[
        "game",
        "--white",
        "heuristic",
        "--black",
        "first-free",
        "--sandbox",
        "--pause-idle",
        "--json",
    ]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let record: GameRecord = serde_json::from_slice(&output.stdout).unwrap();
    record.replay().unwrap();
    assert_eq!(record.termination.reason, pahtum_protocol::Reason::Normal);
}
