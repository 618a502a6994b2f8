//! The exit codes of `arena`, in one place.
//!
//! Scripts and CI jobs branch on them, so each has a name here and a line in
//! [`CODES`], from which the help text's list is generated ([`help`]): the
//! list cannot drift from the codes the commands return. The signal codes
//! follow the shell's convention, 128 plus the signal's number.

/// Success; a game that a bot forfeited was still played successfully.
pub const SUCCESS: u8 = 0;
/// A failure of the referee, a bot whose program could not be started, or bad usage.
pub const FAILURE: u8 = 1;
/// `arena check` found the bot non-conforming (a failed greeting included),
/// or `arena verify` a faulty journal line.
pub const NOT_CONFORMING: u8 = 2;
/// `arena submit`: the bot was not admitted (its upload, build or check failed).
pub const NOT_ADMITTED: u8 = 3;
/// `arena submit --if-not-weaker`: the bot was admitted, but its test did not make it the active version.
pub const NOT_PROMOTED: u8 = 4;
/// Stopped by SIGHUP (the terminal went away); the same command resumes.
pub const HANGUP: u8 = 129;
/// Stopped by Ctrl-C (SIGINT); the same command resumes.
pub const INTERRUPTED: u8 = 130;
/// Stopped by SIGTERM; the same command resumes.
pub const TERMINATED: u8 = 143;

/// Every exit code with its meaning, for the help text.
pub const CODES: &[(u8, &str)] = &[
    (
        SUCCESS,
        "success (a game that a bot forfeits was still played successfully)",
    ),
    (
        FAILURE,
        "a failure of the referee, a bot whose program could not be started, or bad usage",
    ),
    (
        NOT_CONFORMING,
        "`arena check` found the bot non-conforming, or `arena verify` a faulty journal line",
    ),
    (
        NOT_ADMITTED,
        "`arena submit`: the bot was not admitted (its upload, build or check failed)",
    ),
    (
        NOT_PROMOTED,
        "`arena submit --if-not-weaker`: the bot was admitted, but its test did not make it the active version",
    ),
    (HANGUP, "stopped by SIGHUP (run the same command again to resume)"),
    (
        INTERRUPTED,
        "interrupted by Ctrl-C (run the same command again to resume)",
    ),
    (TERMINATED, "stopped by SIGTERM (run the same command again to resume)"),
];

/// The "Exit codes:" section of `arena --help`, from [`CODES`].
pub fn help() -> String {
    let mut text = String::from("Exit codes:");
    for (code, meaning) in CODES {
        text.push_str(&format!("\n  {code:<4} {meaning}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_listed_once_in_the_help() {
        let help = help();
        let mut codes: Vec<u8> = CODES.iter().map(|&(code, _)| code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), CODES.len(), "no code has two meanings");
        for (code, meaning) in CODES {
            assert!(help.contains(&format!("  {code:<4} {meaning}")), "{code} in {help}");
        }
        assert_eq!(help.lines().count(), CODES.len() + 1);
    }
}
