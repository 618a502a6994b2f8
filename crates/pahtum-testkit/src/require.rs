//! One rule for the tests that need a tool the machine may lack (the
//! sandbox, a compiler, a browser): where it is missing, the test is skipped
//! and says so, except under `CI=true`, where a skipped test would hide a
//! gap, so it fails instead.

use std::io::Write;

/// Whether `what` (the tool a test needs: "the sandbox", "`g++`") is present:
/// `true` when `present`. Otherwise, under `CI=true`, panics with
/// `how_to_install` (how to install it, or why it cannot run here); elsewhere
/// prints `skipped: ...` with the same text to stderr, past the test
/// harness's capture so that the skip shows in every run, and returns
/// `false`, for the test to return early.
#[track_caller]
pub fn require(what: &str, present: bool, how_to_install: &str) -> bool {
    if present {
        return true;
    }
    if std::env::var("CI").is_ok_and(|ci| ci == "true") {
        panic!("CI=true, but {what} is not available here, and CI must run every test: {how_to_install}");
    }
    let _ = writeln!(
        std::io::stderr(),
        "skipped: {what} is not available here: {how_to_install}"
    );
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_present_tool_is_required_quietly() {
        assert!(require("the test's own process", true, "nothing to install"));
    }

    #[test]
    fn a_missing_tool_skips_or_fails_in_ci() {
        let missing =
            std::panic::catch_unwind(|| require("a tool this test pretends is missing", false, "apt-get install it"));
        if std::env::var("CI").is_ok_and(|ci| ci == "true") {
            let message = missing.expect_err("under CI=true a missing tool fails the test");
            let text = message.downcast_ref::<String>().unwrap();
            assert!(
                text.contains("pretends is missing") && text.contains("apt-get install it"),
                "{text}"
            );
        } else {
            assert!(!missing.unwrap(), "elsewhere a missing tool skips the test");
        }
    }
}
