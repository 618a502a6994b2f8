//! The fixture bots' paths, for the tests of any crate: this crate's
//! binaries, in the target folder of the running test (the same profile and
//! target), built there by `cargo build -p pahtum-testkit --bins` the first
//! time a process asks, so that `cargo test -p pahtum-referee` and
//! `cargo test --workspace` both find them up to date on a clean checkout.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The path of `fixture-bot`: a bot that conforms, or misbehaves in exactly
/// one way chosen by its first argument (see its doc in
/// `crates/pahtum-testkit/src/bin/fixture-bot.rs`).
pub fn fixture_bot() -> PathBuf {
    fixtures().join("fixture-bot")
}

/// The path of `fixture-game`: one game between two `fixture-bot`s (its
/// arguments are their modes), refereed in a process of its own, its record
/// printed as JSON.
pub fn fixture_game() -> PathBuf {
    fixtures().join("fixture-game")
}

/// The folder of the fixture binaries, next to the running test's: after
/// one build per process, which cargo makes a no-op when they are up to date
/// (a test must not run an old fixture after its sources, or the referee's,
/// changed). Without cargo (`CARGO` unset, a test binary run by hand) the
/// binaries found there are used as they are.
fn fixtures() -> &'static Path {
    static FOLDER: OnceLock<PathBuf> = OnceLock::new();
    FOLDER.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test knows its own path");
        // target/PROFILE/deps/TEST-HASH, or target/TRIPLE/PROFILE/deps/TEST-HASH
        let deps = exe.parent().expect("the test lies in a folder");
        let folder = if deps.file_name().is_some_and(|name| name == "deps") {
            deps.parent().expect("deps lies in the profile's folder")
        } else {
            deps
        };
        let present = ["fixture-bot", "fixture-game"]
            .iter()
            .all(|name| folder.join(name).is_file());
        match std::env::var_os("CARGO") {
            Some(cargo) => build(Path::new(&cargo), folder),
            None if present => {}
            None => build(Path::new("cargo"), folder),
        }
        folder.to_owned()
    })
}

/// Builds the fixtures into `folder` (`TARGET/PROFILE` or
/// `TARGET/TRIPLE/PROFILE`), with that profile and target.
fn build(cargo: &Path, folder: &Path) {
    let profile = match folder.file_name().and_then(|name| name.to_str()) {
        Some("debug") => "dev",
        Some(name) => name,
        None => panic!("{} names no profile", folder.display()),
    };
    let above = folder.parent().expect("the profile's folder lies in the target folder");
    let mut command = Command::new(cargo);
    command
        .args([
            "build",
            "--quiet",
            "-p",
            "pahtum-testkit",
            "--bins",
            "--profile",
            profile,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    // Cargo marks its target folder with CACHEDIR.TAG; a folder between it and
    // the profile's names the target triple.
    if above.join("CACHEDIR.TAG").is_file() {
        command.arg("--target-dir").arg(above);
    } else {
        let triple = above.file_name().expect("a target triple");
        let target = above.parent().expect("the triple's folder lies in the target folder");
        command.arg("--target").arg(triple).arg("--target-dir").arg(target);
    }
    let output = command
        .output()
        .unwrap_or_else(|error| panic!("cannot run {} to build the fixtures: {error}", cargo.display()));
    assert!(
        output.status.success(),
        "`cargo build -p pahtum-testkit --bins` failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixtures are there, built for this test's profile, and run.
    #[test]
    fn the_fixtures_are_built_and_run() {
        let bot = fixture_bot();
        assert_eq!(bot.parent(), fixture_game().parent());
        let exe = std::env::current_exe().unwrap();
        assert_eq!(
            bot.parent(),
            exe.parent().unwrap().parent(),
            "next to the test's deps folder"
        );
        let status = Command::new(&bot).arg("spin=1").status().unwrap();
        assert!(status.success(), "{} spin=1: {status}", bot.display());
        let usage = Command::new(fixture_game()).output().unwrap();
        assert_eq!(
            usage.status.code(),
            Some(2),
            "fixture-game without bots shows its usage"
        );
    }
}
