//! `--sandbox` on the command line: `arena check --sandbox` tells a bot's
//! author whether the bot runs in the sandbox, and why not (a missing file
//! named as such, with the folders the bot sees); `arena game`, `match` and
//! `run` play games in it, each bot started by a command relative to its
//! folder (the sandbox shows the bot its working directory, not the output
//! folder inside it). Every test works in a temporary folder of mode 0700
//! (what `mktemp -d` makes, and where CI and containers work): as root the
//! bots run as `nobody`, who may not enter it, and must run all the same.
//! Skipped (with a printed line) where the sandbox cannot run, except with
//! `CI=true`.

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
    let why = String::from_utf8_lossy(&output.stderr);
    if !pahtum_testkit::require("the sandbox", output.status.code() != Some(1), &why) {
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

/// A private temporary folder (mode 0700, which the sandbox's user `nobody`
/// may not enter when the tests run as root), holding a copy of the Python
/// starter (`bot.py`) in `bot/` (mode 0755); `None` (printed) where the
/// sandbox cannot run here, and fails in CI.
fn folder_with_a_bot() -> Option<(tempfile::TempDir, PathBuf)> {
    sandboxed_check_of_heuristic()?;
    let root = tempfile::tempdir().unwrap();
    std::fs::set_permissions(root.path(), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    assert_eq!(mode(root.path()), 0o700);
    let bot = root.path().join("bot");
    std::fs::create_dir(&bot).unwrap();
    copy_starter(&bot);
    Some((root, bot))
}

fn mode(path: &Path) -> u32 {
    std::os::unix::fs::MetadataExt::mode(&std::fs::metadata(path).unwrap()) & 0o7777
}

/// Copies the Python starter into `dir` as `bot.py`, open to others.
fn copy_starter(dir: &Path) {
    let starter = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/python-random/bot.py");
    std::fs::copy(starter, dir.join("bot.py")).unwrap();
    std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

#[test]
fn a_file_missing_in_the_sandbox_is_named_with_the_folders_the_bot_sees() {
    let Some((root, bot)) = folder_with_a_bot() else {
        return;
    };
    let output = arena_in(&bot, &["check", "--sandbox", "python3 nosuch.py"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        text.contains(&format!(
            "`nosuch.py` does not exist in its working directory {}, in the sandbox or out of it",
            bot.display()
        )) && text.contains("a private /tmp, and no folder of this machine"),
        "{text}"
    );
    let seen = format!(
        "In the sandbox the bot sees the system's folders (/usr and the like), a private /tmp, and of this \
         machine's folders only {} (its working directory, read-only)",
        bot.display()
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

/// Where the tests run as root, sandboxed bots run as `nobody`: a bot in a
/// private folder (0700 above it) runs, and a bot whose own folder others
/// may not enter is told which folder that is; a bot that needs no file of
/// its working directory (a built-in one) still runs there.
#[test]
fn a_bot_under_a_private_folder_runs_and_a_closed_bot_folder_is_named() {
    let Some((_root, bot)) = folder_with_a_bot() else {
        return;
    };
    let as_root = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&bot).unwrap()) == 0;
    if !as_root {
        let _ = writeln!(std::io::stderr(), "skipped: not root, so the sandbox runs as this user");
        return;
    }
    assert_success(&arena_in(&bot, &["check", "--sandbox", "python3 bot.py"]));
    std::fs::set_permissions(&bot, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let output = arena_in(&bot, &["check", "--sandbox", "python3 -m bot"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        text.contains(&format!(
            "Its working directory {0} is not shown in the sandbox, where it is an empty folder: the bot runs \
             as `nobody` (arena runs as root), and `nobody` may not enter {0} (mode 0700)",
            bot.display(),
        )),
        "{text}"
    );
    let output = arena_in(&bot, &["check", "--sandbox", "first-free", "--move-time", "2s"]);
    assert_success(&output);
}

/// A tournament whose bots try to read what is not theirs: `spy` works in
/// the folder above the tournament's (`dir = ".."`), which holds the output
/// folder and another bot's folder; `peeker` has no `dir`, so it works in
/// the tournament's folder, beside the file and an `.env`. Sandboxed, each
/// sees its own folder only, and the games are played to the end; without
/// the sandbox (the control) they see everything.
#[test]
fn tournament_bots_see_their_own_folders_only() {
    let Some((root, _bot)) = folder_with_a_bot() else {
        return;
    };
    let root = root.path();
    let league = root.join("league");
    for dir in [root.join("peeker"), root.join("other"), league.clone()] {
        std::fs::create_dir(&dir).unwrap();
        copy_starter(&dir);
    }
    copy_starter(root);
    std::fs::write(root.join("other/secret.txt"), "the other bot's code\n").unwrap();
    std::fs::write(league.join(".env"), "TOKEN=organiser's\n").unwrap();
    let spy = "import os, runpy, sys\n\
               for path in os.environ['FORBIDDEN'].split(':'):\n\
               \x20   try:\n\
               \x20       seen = os.listdir(path) if os.path.isdir(path) else open(path).read(99)\n\
               \x20       print(('SAW ' if seen else 'empty ') + path, file=sys.stderr, flush=True)\n\
               \x20   except OSError as error:\n\
               \x20       print('not', path, error, file=sys.stderr, flush=True)\n\
               runpy.run_path(os.path.join(os.path.dirname(__file__), 'bot.py'), run_name='__main__')\n";
    for dir in [root, &root.join("peeker")] {
        std::fs::write(dir.join("spy.py"), spy).unwrap();
    }
    let runs = league.join("runs");
    let forbidden = |paths: &[PathBuf]| {
        paths
            .iter()
            .map(|path| path.display().to_string())
            .collect::<Vec<_>>()
            .join(":")
    };
    let spy_forbidden = forbidden(&[runs.clone(), root.join("other/secret.txt")]);
    let peeker_forbidden = forbidden(&[
        league.clone(),
        league.join(".env"),
        root.join("other"),
        root.join("spy.py"),
    ]);
    let file = |sandbox: bool| {
        format!(
            "name = \"t\"\nsandbox = {sandbox}\ngames_per_pair = 2\n[rules]\nblocks = [41]\n\
             [[bots]]\nname = \"spy\"\ncommand = \"python3 spy.py\"\ndir = \"..\"\n\
             env = {{ FORBIDDEN = \"{spy_forbidden}\" }}\n\
             [[bots]]\nname = \"peeker\"\ncommand = \"python3 ../peeker/spy.py\"\n\
             env = {{ FORBIDDEN = \"{peeker_forbidden}\" }}\n\
             [[bots]]\nname = \"other\"\ncommand = \"python3 ../other/bot.py\"\n"
        )
    };
    let logs = |out: &str| -> String {
        std::fs::read_dir(league.join(out).join("logs"))
            .unwrap()
            .map(|entry| std::fs::read_to_string(entry.unwrap().path()).unwrap())
            .collect()
    };
    std::fs::write(league.join("t.toml"), file(true)).unwrap();
    assert_success(&arena_in(&league, &["run", "t.toml", "--out", "runs"]));
    let journal = std::fs::read_to_string(runs.join("journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 7, "a header and six games: {journal}");
    for game in journal.lines().skip(1) {
        let record: GameRecord = serde_json::from_str(game).unwrap();
        assert_eq!(record.termination.reason, pahtum_protocol::Reason::Normal, "{game}");
    }
    let sandboxed = logs("runs");
    assert!(!sandboxed.contains("SAW"), "{sandboxed}");
    assert!(sandboxed.contains(&format!("empty {}", runs.display())), "{sandboxed}");

    std::fs::write(league.join("t.toml"), file(false)).unwrap();
    assert_success(&arena_in(&league, &["run", "t.toml", "--out", "open", "--fresh"]));
    let open = logs("open");
    for path in [root.join("other/secret.txt"), league.join(".env"), root.join("spy.py")] {
        assert!(open.contains(&format!("SAW {}", path.display())), "{open}");
    }
}

/// When a bot's sandbox cannot be built (here the bot fakes it: it prints
/// bubblewrap's words and exits before its greeting, from its second start
/// on), no game is scored as its loss: the game is tried again, then the run
/// stops and says so; once the machine is fixed, resuming plays every game.
#[test]
fn a_sandbox_that_cannot_be_built_is_no_forfeit() {
    let Some((root, bot)) = folder_with_a_bot() else {
        return;
    };
    let scratch = root.path().join("scratch");
    std::fs::create_dir(&scratch).unwrap();
    std::fs::set_permissions(&scratch, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let flaky = format!(
        "import os, runpy, sys\n\
         started, fixed = '{0}/started', '{0}/fixed'\n\
         if os.path.exists(started) and not os.path.exists(fixed):\n\
         \x20   sys.exit(print('bwrap: Creating new namespace failed: No space left on device', file=sys.stderr))\n\
         open(started, 'w').close()\n\
         runpy.run_path('bot.py', run_name='__main__')\n",
        scratch.display()
    );
    std::fs::write(bot.join("flaky.py"), flaky).unwrap();
    std::fs::write(
        root.path().join("t.toml"),
        "name = \"t\"\nsandbox = true\ngames_per_pair = 4\nrestart = \"every-game\"\nconcurrency = 1\n\
         [rules]\nblocks = [41]\n\
         [[bots]]\nname = \"flaky\"\ncommand = \"python3 flaky.py\"\ndir = \"bot\"\nrw_paths = [\"scratch\"]\n\
         [[bots]]\nname = \"first\"\nbuiltin = \"first-free\"\n",
    )
    .unwrap();
    let records = || -> Vec<GameRecord> {
        std::fs::read_to_string(root.path().join("runs/journal.jsonl"))
            .unwrap()
            .lines()
            .skip(1)
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    };
    let output = arena_in(root.path(), &["run", "t.toml", "--out", "runs"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("scored it as no one's loss") && stderr.contains("Creating new namespace failed"),
        "{stderr}"
    );
    let before = records();
    assert!(before.len() < 4, "{} games", before.len());
    assert!(
        before.iter().all(|record| record.termination.forfeit.is_none()),
        "{before:?}"
    );

    std::fs::write(scratch.join("fixed"), "").unwrap();
    assert_success(&arena_in(root.path(), &["run", "t.toml", "--out", "runs"]));
    let after = records();
    assert_eq!(after.len(), 4);
    assert!(
        after.iter().all(|record| record.termination.forfeit.is_none()),
        "{after:?}"
    );
}

/// Writes `steal.py` into the folder `bot`: a bot that prints to its stderr
/// what each of its arguments holds (or why it cannot read it), then plays
/// as the Python starter.
fn write_thief(bot: &Path) {
    let thief = "import runpy, sys\n\
                 for path in sys.argv[1:]:\n\
                 \x20   try:\n        print('READ', open(path).read().strip(), file=sys.stderr)\n\
                 \x20   except OSError as error:\n        print('DENIED', path, error, file=sys.stderr)\n\
                 runpy.run_path('bot.py', run_name='__main__')\n";
    std::fs::write(bot.join("steal.py"), thief).unwrap();
}

/// The words of the organiser's command never show a folder that `nobody`
/// could not reach by itself (a file under a 0700 folder, as `/root/x/key`),
/// nor a file of the output folder, even when they name it; unsandboxed, the
/// same bot reads both (the control).
#[test]
fn a_command_naming_a_closed_file_and_an_output_file_reads_neither() {
    let Some((root, bot)) = folder_with_a_bot() else {
        return;
    };
    write_thief(&bot);
    // `home` stands for /root: closed to others, with a folder open to them inside.
    let home = root.path().join("home");
    std::fs::create_dir_all(home.join("x")).unwrap();
    std::fs::set_permissions(&home, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    std::fs::set_permissions(home.join("x"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let key = home.join("x/key.txt");
    std::fs::write(&key, "HOST-KEY-42\n").unwrap();
    std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let play = |sandbox: bool, out: &str| {
        std::fs::create_dir_all(bot.join(out)).unwrap();
        std::fs::write(bot.join(out).join("secret.txt"), "OUTPUT-SECRET-7\n").unwrap();
        let command = format!("python3 steal.py {} {out}/secret.txt", key.display());
        let mut args = vec!["game", "--white", &command, "--black", "first-free", "--logs", out];
        if sandbox {
            args.push("--sandbox");
        }
        let output = arena_in(&bot, &args);
        assert_success(&output);
        let log = std::fs::read_to_string(bot.join(out).join("white.log")).unwrap();
        (log, String::from_utf8_lossy(&output.stderr).into_owned())
    };
    let (log, _) = play(false, "plain");
    assert!(
        log.contains("READ HOST-KEY-42") && log.contains("READ OUTPUT-SECRET-7"),
        "{log}"
    );
    let (log, said) = play(true, "boxed");
    assert!(
        !log.contains("HOST-KEY-42") && !log.contains("OUTPUT-SECRET-7"),
        "{log}"
    );
    assert_eq!(log.matches("DENIED").count(), 2, "{log}");
    assert!(
        said.contains(&format!(
            "{}, which its command names, is not shown: `nobody` may not enter",
            home.join("x").display()
        )) && said.contains("name it in the sandbox's ro_paths to show it")
            && said.contains(&format!(
                "{}, which its command names, is not shown: it lies in {}",
                bot.join("boxed").display(),
                bot.join("boxed").display()
            )),
        "{said}"
    );
}
