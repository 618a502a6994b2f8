//! The conventions of a good command line: a closed pipe, the exit codes in the help.

use std::path::Path;
use std::process::{Command, Output, Stdio};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// Runs `arena ARGS` with its stdout a pipe whose reader is already gone (as `| head -1` leaves it once
/// `head` has its line): every write to it fails with EPIPE.
fn with_closed_stdout(args: &[&str]) -> Output {
    let (reader, writer) = rustix::pipe::pipe().expect("a pipe");
    drop(reader);
    Command::new(ARENA)
        .args(args)
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("arena runs")
}

fn assert_quiet_success(output: &Output, what: &str) {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{what}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("error"),
        "{what}: {stderr}"
    );
}

fn play_a_match(out: &Path) {
    let output = Command::new(ARENA)
        .args(["match", "heuristic", "first-free", "--games", "2", "--move-time", "1s"])
        .arg("--out")
        .arg(out)
        .output()
        .expect("arena runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

/// `arena standings J | head -1`: the reader has what it wanted; arena ends quietly (it exited 101 with
/// "failed printing to stdout" before).
#[test]
fn a_closed_stdout_ends_the_commands_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    play_a_match(&out);
    let journal = out.join("journal.jsonl");
    let journal = journal.to_str().unwrap();
    for format in ["table", "markdown", "csv", "json"] {
        let output = with_closed_stdout(&["standings", journal, "--format", format]);
        assert_quiet_success(&output, format);
    }
    let output = with_closed_stdout(&[
        "game",
        "--white",
        "first-free",
        "--black",
        "first-free",
        "--seed",
        "1",
        "--json",
    ]);
    assert_quiet_success(&output, "game --json");
    let output = with_closed_stdout(&[
        "match",
        "heuristic",
        "first-free",
        "--games",
        "2",
        "--out",
        &out.display().to_string(),
    ]);
    assert_quiet_success(&output, "match, resumed");
}

/// The help lists every exit code, with the signal codes that resume.
#[test]
fn the_help_lists_the_exit_codes() {
    let output = Command::new(ARENA).arg("--help").output().expect("arena runs");
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    for code in ["0 ", "1 ", "2 ", "129 ", "130 ", "143 "] {
        assert!(help.contains(&format!("\n  {code}")), "{code:?} in {help}");
    }
}
