//! The `arena` command run in a folder, and what it said, for the tests that run tournaments from files
//! written into a temporary folder.

use std::path::Path;
use std::process::{Command, Output};

/// `arena ARGS...` run in `dir`, to its end.
pub fn arena(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// What `output` wrote, its standard output then its standard error.
pub fn said(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
