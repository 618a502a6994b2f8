//! How a bot's failure is shown as text: one renderer for the forfeits of
//! `arena game`, the conformance suite ([`crate::conformance`]) and the
//! start-up errors of every command that starts bots.
//!
//! It lives in the library, not in the command line, because the suite that
//! renders its report here is also run by a league's admission, which writes
//! the same text into its log.
//!
//! A failure carries what the bot wrote (the offending line, the tail of its
//! stderr) and the referee's sentence about it, which may quote the bot too.
//! All of it goes through [`escape`] here, so that no command can print a
//! bot's control characters raw; the raw bytes stay in the logs and the JSON
//! records.

use pahtum_protocol::untrusted::escape;
use pahtum_record::Forfeit;
use pahtum_referee::{Failure, StartError};

/// What went wrong with a bot, and the evidence.
#[derive(Debug)]
pub struct Evidence<'a> {
    /// The referee's sentence for the bot's author.
    pub detail: &'a str,
    /// The offending line, if one was.
    pub line: Option<&'a str>,
    /// The last lines of the bot's stderr.
    pub stderr_tail: &'a [String],
}

impl<'a> Evidence<'a> {
    /// The evidence of a forfeit in a game's record.
    pub fn of_forfeit(forfeit: &'a Forfeit) -> Evidence<'a> {
        Evidence {
            detail: &forfeit.detail,
            line: forfeit.line.as_deref(),
            stderr_tail: &forfeit.stderr_tail,
        }
    }

    /// The evidence of the referee's `failure`, with the bot's `stderr_tail`.
    pub fn of_failure(failure: &'a Failure, stderr_tail: &'a [String]) -> Evidence<'a> {
        Evidence {
            detail: &failure.detail,
            line: failure.line.as_deref(),
            stderr_tail,
        }
    }

    /// The detail, then a line `the line: ...` and a line `stderr: ...` for
    /// each line of the tail, each led by `indent`; everything escaped.
    pub fn render(&self, indent: &str) -> String {
        let mut text = escape(self.detail).into_owned();
        if let Some(line) = self.line {
            text += &format!("\n{indent}the line: {}", escape(line));
        }
        for line in self.stderr_tail {
            text += &format!("\n{indent}stderr: {}", escape(line));
        }
        text
    }
}

/// A bot that could not start, in words: the error and its causes, with the
/// greeting's evidence (escaped) and, for a sandboxed bot, what the sandbox
/// may have to do with it, after `indent` on lines of their own.
pub fn start_error(error: &StartError, indent: &str) -> String {
    match error {
        StartError::Handshake {
            bot,
            failure,
            stderr_tail,
            sandbox_hint,
        } => {
            let mut text = format!(
                "bot \"{}\" failed its greeting: {}: {}",
                escape(bot),
                failure.reason,
                Evidence::of_failure(failure, stderr_tail).render(indent)
            );
            if let Some(hint) = sandbox_hint {
                text += &format!("\n{indent}{}", escape(hint));
            }
            text
        }
        other => escape(&chain(other)).into_owned(),
    }
}

/// An error and its causes, on one line.
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}
