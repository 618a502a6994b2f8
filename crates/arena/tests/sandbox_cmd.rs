//! `--sandbox` on the command line: `arena check --sandbox` tells a bot's
//! author whether the bot runs in the sandbox, and why not (a missing file
//! named as such, with the folders the bot sees); `arena game`, `match` and
//! `run` play games in it, each bot started by a command relative to its
//! folder (the sandbox shows the bot its working directory, not the output
//! folder inside it). Skipped (with a printed line) where the sandbox cannot
//! run, except with `CI=true`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use assert_cmd::cargo::CommandCargoExt;
use pahtum_record::GameRecord;

fn arena(args: &[&str]) -> Output {
    arena_in(Path::new("."), args)
}

fn assert_success(output: &Output) {
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
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
        text.contains("FAIL  greeting")
            && text.contains("In the sandbox the bot has no network")
            && text.contains("In the sandbox the bot sees the system's folders"),
        "{text}"
    );
    assert!(
        text.contains("Network is unreachable") || text.contains("Connection refused"),
        "{text}"
    );
}

/// `arena ARGS` run in `dir`.
fn arena_in(dir: &Path, args: &[&str]) -> Output {
    Command::cargo_bin("arena")
        .expect("the arena binary is built")
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// A folder that the sandbox's user may read (`nobody` when the tests run as
/// root), holding a copy of the Python starter (`bot.py`) in `bot/`; `None`
/// (printed) where the sandbox cannot run here, and fails in CI.
fn folder_with_a_bot() -> Option<(tempfile::TempDir, PathBuf)> {
    sandboxed_check_of_heuristic()?;
    let root = tempfile::tempdir().unwrap();
    let bot = root.path().join("bot");
    std::fs::create_dir(&bot).unwrap();
    let starter = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/python-random/bot.py");
    std::fs::copy(starter, bot.join("bot.py")).unwrap();
    for dir in [root.path(), &bot] {
        std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    Some((root, bot))
}

#[test]
fn a_file_missing_in_the_sandbox_is_named_with_the_folders_the_bot_sees() {
    let Some((root, bot)) = folder_with_a_bot() else {
        return;
    };
    let output = arena_in(&bot, &["check", "--sandbox", "python3 nosuch.py"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{text}");
    let seen = format!(
        "In the sandbox the bot sees the system's folders (/usr and the like), a private /tmp, and of this \
         machine's folders only {} (its working directory, read-only)",
        bot.display()
    );
    assert!(
        text.contains(&format!(
            "`nosuch.py` does not exist in its working directory {}, in the sandbox or out of it",
            bot.display()
        )) && text.contains(&seen),
        "{text}"
    );
    assert!(
        !text.contains("ro_paths") && !text.contains("/usr/bin/python3"),
        "{text}"
    );

    // A file that exists, outside the folders the sandbox shows.
    std::fs::write(root.path().join("book.txt"), "an opening book\n").unwrap();
    std::fs::write(bot.join("reader.py"), "open('../book.txt').read()\n").unwrap();
    let output = arena_in(&bot, &["check", "--sandbox", "python3 reader.py"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        text.contains("No such file or directory: '../book.txt'")
            && text.contains("a file outside the folders the sandbox shows does not exist for the bot")
            && text.contains(&seen),
        "{text}"
    );
}

/// A sandboxed game between a bot started by a command relative to its
/// folder, from that folder, and a built-in bot, played to the end.
#[test]
fn a_sandboxed_game_is_played_to_the_end() {
    let Some((_root, bot)) = folder_with_a_bot() else {
        return;
    };
    let output = arena_in(
        &bot,
        &[
            "game",
            "--white",
            "python3 bot.py",
            "--black",
            "heuristic",
            "--sandbox",
            "--pause-idle",
            "--json",
        ],
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let record: GameRecord = serde_json::from_slice(&output.stdout).unwrap();
    record.replay().unwrap();
    assert_eq!(record.termination.reason, pahtum_protocol::Reason::Normal);
}

/// Writes `peek.py` into the folder `bot`: a bot that fails its start when
/// it sees anything in `folder`, and else plays as the Python starter.
fn write_peek(bot: &Path, folder: &str) {
    let peek = format!(
        "import os, runpy, sys\n\
         if os.listdir('{folder}'):\n    sys.exit(f'{folder} shows {{os.listdir(\"{folder}\")}}')\n\
         runpy.run_path('bot.py', run_name='__main__')\n"
    );
    std::fs::write(bot.join("peek.py"), peek).unwrap();
}

/// The bot of a sandboxed match, started from its folder, sees the folder
/// but not the match's output folder inside it.
#[test]
fn a_sandboxed_match_shows_the_bot_its_folder_but_not_the_output() {
    let Some((_root, bot)) = folder_with_a_bot() else {
        return;
    };
    write_peek(&bot, "out");
    let output = arena_in(
        &bot,
        &[
            "match",
            "python3 peek.py",
            "first-free",
            "--games",
            "2",
            "--sandbox",
            "--out",
            "out",
        ],
    );
    assert_success(&output);
    let journal = std::fs::read_to_string(bot.join("out/journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 3, "a header and two games: {journal}");
}

/// The same for the logs of a sandboxed game.
#[test]
fn a_sandboxed_game_hides_its_logs_from_the_bot() {
    let Some((_root, bot)) = folder_with_a_bot() else {
        return;
    };
    write_peek(&bot, "logs");
    let output = arena_in(
        &bot,
        &[
            "game",
            "--white",
            "first-free",
            "--black",
            "python3 peek.py",
            "--blocks",
            "41",
            "--sandbox",
            "--logs",
            "logs",
            "--out",
            "game.json",
        ],
    );
    assert_success(&output);
    let record: GameRecord = serde_json::from_str(&std::fs::read_to_string(bot.join("game.json")).unwrap()).unwrap();
    assert_eq!(record.termination.reason, pahtum_protocol::Reason::Normal, "{record:?}");
    assert!(bot.join("logs/white.log").exists());
}

#[test]
fn a_sandboxed_tournament_starts_a_bot_by_a_command_relative_to_its_dir() {
    let Some((root, _bot)) = folder_with_a_bot() else {
        return;
    };
    std::fs::write(
        root.path().join("t.toml"),
        "name = \"t\"\nsandbox = true\n[rules]\nblocks = [41]\n\
         [[bots]]\nname = \"random\"\ncommand = \"python3 bot.py\"\ndir = \"bot\"\n\
         [[bots]]\nname = \"first\"\nbuiltin = \"first-free\"\n",
    )
    .unwrap();
    let output = arena_in(root.path(), &["run", "t.toml", "--out", "runs"]);
    assert_success(&output);
    let journal = std::fs::read_to_string(root.path().join("runs/journal.jsonl")).unwrap();
    for game in journal.lines().skip(1) {
        let record: GameRecord = serde_json::from_str(game).unwrap();
        assert_eq!(record.termination.reason, pahtum_protocol::Reason::Normal, "{game}");
    }
}

/// Where the tests run as root, sandboxed bots run as `nobody`: a bot
/// started from a folder that others may not enter is told which folder
/// that is, and a bot that needs no file of its working directory (a
/// built-in one) still runs there.
#[test]
fn a_folder_closed_to_the_sandboxs_user_is_named() {
    let Some((root, bot)) = folder_with_a_bot() else {
        return;
    };
    let as_root = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&bot).unwrap()) == 0;
    if !as_root {
        let _ = writeln!(std::io::stderr(), "skipped: not root, so the sandbox runs as this user");
        return;
    }
    std::fs::set_permissions(root.path(), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let output = arena_in(&bot, &["check", "--sandbox", "python3 bot.py"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        text.contains(&format!(
            "Its working directory {} is not shown in the sandbox, where it is an empty folder: bubblewrap and \
             the bot run as `nobody` (arena runs as root), and `nobody` may not enter {} (mode 0700)",
            bot.display(),
            root.path().display(),
        )),
        "{text}"
    );
    let output = arena_in(&bot, &["check", "--sandbox", "first-free", "--move-time", "2s"]);
    assert_success(&output);
}
