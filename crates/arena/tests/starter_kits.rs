//! The starter kits, built and run with the real toolchains. The C++, Java
//! and Go starters must pass `arena check` and play a short match against
//! the built-in `first-free` bot without a forfeit; and every starter must
//! pass `arena check --sandbox` with the command its README gives, run from
//! a copy of its folder (the sandbox shows the bot its working directory).
//!
//! Where a toolchain (`g++`, `java`, `go`, `node`, `python3`) or the sandbox
//! is missing the test says so and passes, since a bot author's machine need
//! not have every language; in CI (`CI=true`) a missing one fails the test,
//! so that CI cannot go green without running it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether `program` runs (`program --version`, `go version`); when it
/// does not, skips (or fails in CI).
fn toolchain_present(program: &str) -> bool {
    let version = if program == "go" { "version" } else { "--version" };
    let present = Command::new(program)
        .arg(version)
        .output()
        .is_ok_and(|output| output.status.success());
    pahtum_testkit::require(
        &format!("`{program}` (for its starter kit's test)"),
        present,
        "install it (e.g. apt-get install g++ openjdk-17-jdk-headless golang-go nodejs python3)",
    )
}

/// Runs a starter's build, which must succeed.
fn build(command: &mut Command) {
    let built = command.output().expect("the build runs");
    assert!(built.status.success(), "{}", text(&built.stderr));
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn arena(args: &[&str]) -> Output {
    Command::new(ARENA)
        .current_dir(repository())
        .args(args)
        .output()
        .expect("arena runs")
}

/// `arena check` says the bot conforms, and a 4-game match against
/// `first-free` ends with all games played and no forfeit in the journal.
fn check_and_play(command: &str) {
    let check = arena(&["check", command]);
    let stdout = text(&check.stdout);
    assert!(
        check.status.success() && stdout.contains("The bot conforms to the protocol."),
        "{stdout}{}",
        text(&check.stderr)
    );

    let out = tempfile::tempdir().expect("a temporary folder");
    let out_dir = out.path().join("match");
    let played = arena(&[
        "match",
        command,
        "first-free",
        "--games",
        "4",
        "--move-time",
        "5s",
        "--concurrency",
        "1",
        "--out",
        out_dir.to_str().expect("a UTF-8 path"),
    ]);
    assert!(
        played.status.success(),
        "{}{}",
        text(&played.stdout),
        text(&played.stderr)
    );
    let journal = std::fs::read_to_string(out_dir.join("journal.jsonl")).expect("the match wrote its journal");
    let games: Vec<serde_json::Value> = journal
        .lines()
        .skip(1)
        .map(|line| serde_json::from_str(line).expect("a JSON record"))
        .collect();
    assert_eq!(games.len(), 4, "{journal}");
    for game in &games {
        assert_eq!(game["termination"]["reason"], "normal", "a forfeit: {game}");
    }
}

/// Builds a starter with `build_command`, given the path of the program
/// to write (in a temporary folder), when `toolchain` is present; then checks
/// and plays the program.
fn builds_conforms_and_plays(toolchain: &str, build_command: impl FnOnce(&Path) -> Command) {
    if !toolchain_present(toolchain) {
        return;
    }
    let folder = tempfile::tempdir().expect("a temporary folder");
    let binary = folder.path().join("bot");
    build(&mut build_command(&binary));
    check_and_play(binary.to_str().expect("a UTF-8 path"));
}

#[test]
fn cpp_starter_builds_conforms_and_plays() {
    // The same command as the starter's README.
    builds_conforms_and_plays("g++", |binary| {
        let mut command = Command::new("g++");
        command
            .args(["-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-o"])
            .arg(binary)
            .arg(repository().join("bots/cpp-starter/bot.cpp"));
        command
    });
}

#[test]
fn java_starter_conforms_and_plays() {
    if !toolchain_present("java") {
        return;
    }
    check_and_play("java bots/java-starter/Bot.java");
}

#[test]
fn go_starter_builds_conforms_and_plays() {
    // The README's command, with the program written elsewhere.
    builds_conforms_and_plays("go", |binary| {
        let mut command = Command::new("go");
        command
            .args(["build", "-o"])
            .arg(binary)
            .arg(".")
            .current_dir(repository().join("bots/go-starter"));
        command
    });
}

/// Whether the sandbox can run here; prints why not, and fails in CI.
fn sandbox_present() -> bool {
    let check = pahtum_referee::sandbox::check();
    let why = check.as_ref().err().map(ToString::to_string);
    pahtum_testkit::require("the sandbox", check.is_ok(), &why.unwrap_or_default())
}

/// The command that `starter`'s README gives to `arena check --sandbox`.
fn sandboxed_command(starter: &str) -> String {
    let readme = std::fs::read_to_string(repository().join("bots").join(starter).join("README.md"))
        .expect("the starter's README");
    let line = readme
        .lines()
        .find_map(|line| line.split_once("check --sandbox \"").map(|(_, rest)| rest))
        .unwrap_or_else(|| panic!("the README of {starter} gives no `check --sandbox \"CMD\"`"));
    line.split_once('"').expect("a closing quote").0.to_owned()
}

/// Copies `starter`'s folder into a folder that the sandbox's user may
/// read, runs `build_command` there (a program and its arguments) if given, then
/// `arena check --sandbox` with the README's command, from that folder.
fn checks_in_the_sandbox_from_its_folder(starter: &str, toolchain: &str, build_command: &[&str]) {
    if !toolchain_present(toolchain) || !sandbox_present() {
        return;
    }
    let copy = tempfile::tempdir().expect("a temporary folder");
    let folder = copy.path().join(starter);
    std::fs::create_dir(&folder).expect("a folder for the copy");
    for entry in std::fs::read_dir(repository().join("bots").join(starter)).expect("the starter's folder") {
        let path = entry.expect("an entry").path();
        if path.is_file() && path.file_name() != Some("bot".as_ref()) {
            std::fs::copy(&path, folder.join(path.file_name().expect("a file name"))).expect("a copy");
        }
    }
    // `nobody` (the sandbox's user when the tests run as root) may enter and read it.
    for dir in [copy.path(), &folder] {
        std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    }
    if let Some((program, args)) = build_command.split_first() {
        build(Command::new(program).args(args).current_dir(&folder));
    }
    let command = sandboxed_command(starter);
    let check = Command::new(ARENA)
        .args(["check", "--sandbox", &command])
        .current_dir(&folder)
        .output()
        .expect("arena runs");
    let stdout = text(&check.stdout);
    assert!(
        check.status.success() && stdout.contains("The bot conforms to the protocol."),
        "`arena check --sandbox {command:?}` in {}:\n{stdout}{}",
        folder.display(),
        text(&check.stderr)
    );
}

#[test]
fn python_starter_checks_in_the_sandbox_from_its_folder() {
    checks_in_the_sandbox_from_its_folder("python-random", "python3", &[]);
}

#[test]
fn js_starter_checks_in_the_sandbox_from_its_folder() {
    checks_in_the_sandbox_from_its_folder("js-greedy", "node", &[]);
}

#[test]
fn cpp_starter_checks_in_the_sandbox_from_its_folder() {
    let build = ["g++", "-std=c++17", "-O2", "-Wall", "-Wextra", "-o", "bot", "bot.cpp"];
    checks_in_the_sandbox_from_its_folder("cpp-starter", "g++", &build);
}

#[test]
fn java_starter_checks_in_the_sandbox_from_its_folder() {
    checks_in_the_sandbox_from_its_folder("java-starter", "java", &[]);
}

#[test]
fn go_starter_checks_in_the_sandbox_from_its_folder() {
    checks_in_the_sandbox_from_its_folder("go-starter", "go", &["go", "build", "-o", "bot", "."]);
}
