//! A reader that goes away early (`arena run FILE 2>&1 | head`, `arena completions bash | head -1`)
//! is not an error: the real binary, run many times with its stdout, its stderr or both closed early,
//! never panics (exit code 101, "failed printing to ..."), and a tournament whose stderr was closed
//! plays on to its end, its journal whole (see `crates/arena/src/output.rs`).
//!
//! A pipe whose read end is closed before the arena starts makes every write to it fail at once,
//! so those runs fail before the fix every time; the runs whose reader takes one line first
//! race the arena's writes, as a real `head` does, and are there for the other interleavings.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output, Stdio};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
/// Runs of each kind.
const RUNS: usize = 25;
/// The games of the tournament of [`tournament`].
const GAMES: usize = 4;

/// A short tournament of two built-in bots, in a temporary folder.
fn tournament() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.toml");
    std::fs::write(
        &file,
        "name = \"t\"\nseed = 3\ngames_per_pair = 4\n\
         [[bots]]\nname = \"ff\"\nbuiltin = \"first-free\"\n\
         [[bots]]\nname = \"heuristic\"\nbuiltin = \"heuristic\"\n",
    )
    .unwrap();
    (dir, file)
}

/// A pipe (read end, write end), neither end inherited by a process started meanwhile (the tests
/// run at once): a pipe is closed when its reader closes it, not when another child of this
/// process exits.
fn pipe() -> (OwnedFd, OwnedFd) {
    rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).unwrap()
}

/// A pipe whose read end is already closed: every write to the other end fails with EPIPE.
fn closed_pipe() -> OwnedFd {
    let (read, write) = pipe();
    drop(read);
    write
}

/// The records of the journal in `out`, after its header.
fn records(out: &Path) -> usize {
    let text = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    text.lines().skip(1).filter(|line| !line.trim().is_empty()).count()
}

/// Neither a panic's exit code nor its message.
fn assert_quiet(status: ExitStatus, stderr: &str, what: &str) {
    assert!(
        status.success(),
        "{what}: arena exited with {status}\nstderr:\n{stderr}"
    );
    assert!(
        !stderr.contains("panicked") && !stderr.contains("failed printing"),
        "{what}: {stderr}"
    );
}

/// `arena run FILE` into the output folder `out-N` beside it, its stderr to `stderr`; returns what it
/// printed (its stdout, and its stderr where that was not given) and the output folder.
fn run(file: &Path, n: usize, stderr: Stdio) -> (Output, PathBuf) {
    let out = file.with_file_name(format!("out-{n}"));
    let output = Command::new(ARENA)
        .arg("run")
        .arg(file)
        .arg("--out")
        .arg(&out)
        .stdin(Stdio::null())
        .stderr(stderr)
        .output()
        .unwrap();
    (output, out)
}

#[test]
fn a_run_whose_stderr_is_closed_plays_to_its_end_without_a_panic() {
    let (_dir, file) = tournament();
    for n in 0..RUNS {
        let (output, out) = run(&file, n, closed_pipe().into());
        assert_quiet(output.status, "", &format!("run {n}, stderr closed from the start"));
        // stdout still works: the standings are printed whole.
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(stdout.contains("Standings after 4 games"), "run {n}: {stdout}");
        assert_eq!(records(&out), GAMES, "run {n}");
    }
}

#[test]
fn a_run_whose_stdout_is_closed_plays_to_its_end_and_exits_quietly() {
    let (_dir, file) = tournament();
    for n in 0..RUNS {
        let mut child = Command::new(ARENA)
            .arg("run")
            .arg(&file)
            .arg("--out")
            .arg(file.with_file_name(format!("out-{n}")))
            .stdout(Stdio::from(closed_pipe()))
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        let status = child.wait().unwrap();
        assert_quiet(status, &stderr, &format!("run {n}, stdout closed from the start"));
        assert_eq!(records(&file.with_file_name(format!("out-{n}"))), GAMES, "run {n}");
    }
}

/// `arena run FILE 2>&1 | head -1`, and `arena run FILE 2>&1 >/dev/null | head -1`: the reader takes
/// one line and goes; the arena plays on, and the journal is whole.
#[test]
fn a_run_whose_reader_takes_one_line_and_goes_plays_to_its_end_without_a_panic() {
    let (_dir, file) = tournament();
    for n in 0..RUNS {
        let (read, write) = pipe();
        let both = n % 2 == 0;
        let stdout = if both {
            Stdio::from(write.try_clone().unwrap())
        } else {
            Stdio::null()
        };
        let mut command = Command::new(ARENA);
        command
            .arg("run")
            .arg(&file)
            .arg("--out")
            .arg(file.with_file_name(format!("out-{n}")))
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(Stdio::from(write));
        let mut child = command.spawn().unwrap();
        // Our copies of the pipe's write end go with the command, so that the reader's end is the last.
        drop(command);
        let mut first = String::new();
        BufReader::new(File::from(read)).read_line(&mut first).unwrap();
        let status = child.wait().unwrap();
        assert!(first.starts_with("arena: "), "run {n}: {first}");
        assert_quiet(status, "", &format!("run {n}, the reader gone after one line"));
        assert_eq!(records(&file.with_file_name(format!("out-{n}"))), GAMES, "run {n}");
    }
}

/// `arena completions bash | head -1` (much more than a pipe holds, in one write) and
/// `arena standings J | head -1` (a table), with the reader gone after one line or before any.
#[test]
fn a_command_that_prints_a_lot_exits_quietly_when_its_reader_goes() {
    let (_dir, file) = tournament();
    let (output, out) = run(&file, 0, Stdio::null());
    assert!(output.status.success());
    let journal = out.join("journal.jsonl");
    let commands: [&[&std::ffi::OsStr]; 2] = [
        &["completions".as_ref(), "bash".as_ref()],
        &["standings".as_ref(), journal.as_os_str()],
    ];
    for args in commands {
        for n in 0..RUNS {
            let gone_at_once = n % 2 == 0;
            let mut child = Command::new(ARENA)
                .args(args)
                .stdout(if gone_at_once {
                    Stdio::from(closed_pipe())
                } else {
                    Stdio::piped()
                })
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            if let Some(stdout) = child.stdout.take() {
                let mut first = String::new();
                BufReader::new(stdout).read_line(&mut first).unwrap();
                assert!(!first.is_empty(), "{args:?}, run {n}");
            }
            let output = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_quiet(output.status, &stderr, &format!("{args:?}, run {n}"));
            assert!(stderr.is_empty(), "{args:?}, run {n}: {stderr}");
        }
    }
}
