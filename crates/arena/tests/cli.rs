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

fn stdout_of(args: &[&str]) -> String {
    let output = Command::new(ARENA).args(args).output().expect("arena runs");
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// The completion scripts come from the clap definitions: every subcommand and the listed values.
#[test]
fn completion_scripts_know_the_subcommands_and_the_formats() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout_of(&["completions", shell]);
        for word in ["standings", "match", "completions", "concurrency"] {
            assert!(script.contains(word), "{shell}: {word}");
        }
        // The shells whose scripts complete values list the formats.
        if ["bash", "zsh", "fish"].contains(&shell) {
            assert!(script.contains("markdown"), "{shell}");
        }
    }
    let refused = Command::new(ARENA).args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(refused.status.code(), Some(1));
}

/// The manual page on stdout, and a page per command in a folder.
#[test]
fn manual_pages_are_generated() {
    let page = stdout_of(&["man"]);
    assert!(
        page.starts_with(".ie \\n(.g .ds Aq"),
        "roff: {}",
        &page[..40.min(page.len())]
    );
    assert!(page.contains(".TH arena 1") && page.contains("Exit codes"), "{page}");
    let dir = tempfile::tempdir().unwrap();
    stdout_of(&["man", "--dir", dir.path().to_str().unwrap()]);
    for name in [
        "arena.1",
        "arena-run.1",
        "arena-match.1",
        "arena-standings.1",
        "arena-game.1",
    ] {
        let text = std::fs::read_to_string(dir.path().join(name)).unwrap_or_else(|_| panic!("{name}"));
        assert!(text.contains(".TH "), "{name}");
    }
    let run = std::fs::read_to_string(dir.path().join("arena-run.1")).unwrap();
    assert!(
        run.contains("tournaments/quickstart.toml"),
        "the examples are in the page"
    );
}

/// Each subcommand's long help ends with examples; the short help does not carry them.
#[test]
fn long_help_has_examples() {
    for command in [
        "game",
        "check",
        "bot",
        "run",
        "match",
        "standings",
        "completions",
        "man",
    ] {
        let long = stdout_of(&[command, "--help"]);
        assert!(long.contains("Examples:\n  arena "), "{command}: {long}");
        let short = stdout_of(&[command, "-h"]);
        assert!(!short.contains("Examples:"), "{command}");
    }
}

/// An error's cause is printed once: as the cause, not also inside the message.
#[test]
fn an_errors_cause_is_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let not_a_journal = dir.path().join("j.jsonl");
    std::fs::write(&not_a_journal, "{\"schema\":\"x\"}\n").unwrap();
    let output = Command::new(ARENA)
        .arg("standings")
        .arg(&not_a_journal)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.matches("missing field `journal`").count(), 1, "{stderr}");
    assert!(stderr.contains("is not a pahtum-arena journal"), "{stderr}");
}

/// Values out of their range are refused by the parser, with what to write, before anything starts.
#[test]
fn out_of_range_values_are_refused_with_what_to_write() {
    let cases: [(&[&str], &str); 5] = [
        (&["run", "t.toml", "--concurrency", "0"], "use 1 or more games at once"),
        (
            &["match", "a", "b", "--games", "4", "--concurrency", "none"],
            "use 1 or more games at once",
        ),
        (&["match", "a", "b", "--games", "5"], "use an even number from 2 up"),
        (
            &["match", "a", "b", "--games", "4", "--blocks", "5,6"],
            "6 blocks: use odd counts from 1 to 47",
        ),
        (
            &["game", "--white", "a", "--black", "b", "--placed-blocks", "49"],
            "49 blocks: use odd counts",
        ),
    ];
    for (args, expected) in cases {
        let output = Command::new(ARENA).args(args).output().expect("arena runs");
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    let output = Command::new(ARENA)
        .args(["standings", "j.jsonl", "--format", "yaml"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("[possible values: table, markdown, csv, json]"),
        "{stderr}"
    );
}

/// A kB figure of `/proc/PID/status` (`VmRSS`, `VmHWM`).
fn status_kb(pid: u32, key: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the bot's status");
    let line = status.lines().find(|line| line.starts_with(key)).expect(key);
    line.split_whitespace()
        .nth(1)
        .and_then(|kb| kb.parse().ok())
        .expect("a size in kB")
}

#[test]
fn a_built_in_bot_lets_go_of_the_pages_of_its_start() {
    use std::io::{BufRead, BufReader, Write};
    let mut bot = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["bot", "first-free"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("arena bot starts");
    let mut stdin = bot.stdin.take().expect("stdin");
    writeln!(
        stdin,
        r#"{{"type":"hello","protocol":1,"referee":"pahtum-arena 0.1.0"}}"#
    )
    .expect("hello sent");
    let mut answer = String::new();
    BufReader::new(bot.stdout.take().expect("stdout"))
        .read_line(&mut answer)
        .expect("hello read");
    assert!(answer.contains(r#""type":"hello""#), "{answer}");
    // Now in its loop: what the command line mapped (a whole binary's worth of parsing) is gone again.
    let (resident, peak) = (status_kb(bot.id(), "VmRSS:"), status_kb(bot.id(), "VmHWM:"));
    drop(stdin);
    bot.wait().expect("the bot ends with its stdin");
    assert!(resident + 512 <= peak, "resident {resident} kB, peak {peak} kB");
}
