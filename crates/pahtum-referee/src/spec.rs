//! What the referee is asked to do: how to launch a bot, the limits off the
//! game clock and the sandbox of an untrusted bot (the game itself is a
//! [`pahtum_record::GameSpec`]).
//!
//! These are plain data with public fields, so that a tournament file, the
//! command line or a test can build them directly; the constructors check the
//! combinations that the rules forbid.

use std::path::PathBuf;
use std::time::Duration;

pub use pahtum_supervise::Sandbox;

/// How to launch a bot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotSpec {
    /// The bot's name in records and tables (the greeting's self-reported
    /// name is kept apart, see [`Bot::identity`](crate::Bot::identity)).
    pub name: String,
    /// The program to run: a path, or a name looked up on the `PATH`.
    pub program: String,
    /// The program's arguments, passed as they are (no shell).
    pub args: Vec<String>,
    /// The working directory; the referee's own when `None`.
    pub dir: Option<PathBuf>,
    /// Added to the referee's environment (to an empty one in a sandbox).
    pub env: Vec<(String, String)>,
    /// Run the bot in this sandbox ([`pahtum_supervise::sandbox`]); `None`:
    /// with the referee's rights.
    pub sandbox: Option<Sandbox>,
}

/// Why a command line cannot be split into a program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// The command is empty or only blanks.
    #[error("the bot command is empty: give a program and its arguments, e.g. \"python3 bot.py\"")]
    Empty,
    /// A quote is never closed or a backslash ends the command (the command is kept).
    #[error("the bot command {0:?} has an unclosed quote or a trailing backslash")]
    Unbalanced(String),
}

impl BotSpec {
    /// A bot launched by a shell-like `command` (`"python3 bots/x/bot.py"`,
    /// with quotes for arguments holding spaces; no shell is involved).
    pub fn from_command(name: impl Into<String>, command: &str) -> Result<BotSpec, CommandError> {
        let mut words = shlex::split(command).ok_or_else(|| CommandError::Unbalanced(command.to_owned()))?;
        if words.is_empty() {
            return Err(CommandError::Empty);
        }
        let program = words.remove(0);
        Ok(BotSpec {
            name: name.into(),
            program,
            args: words,
            dir: None,
            env: Vec::new(),
            sandbox: None,
        })
    }

    /// The command as one line, for messages.
    pub fn command_line(&self) -> String {
        self.command().line()
    }

    /// What the supervisor runs: the program, its arguments, working
    /// directory and variables.
    pub fn command(&self) -> pahtum_supervise::Command {
        pahtum_supervise::Command {
            program: self.program.clone(),
            args: self.args.clone(),
            dir: self.dir.clone(),
            env: self.env.clone(),
        }
    }
}

/// Limits off the game clock. The defaults are those of `protocol.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// From the spawn to the bot's `hello` (10 s: an interpreter or a model
    /// may load slowly).
    pub startup: Duration,
    /// From `new_game` to `ready` (5 s).
    pub ready: Duration,
    /// From `ping` to `pong` (2 s).
    pub ping: Duration,
    /// From `quit` to the exit before SIGTERM, and again from SIGTERM before
    /// SIGKILL (1 s).
    pub quit_grace: Duration,
    /// The bytes of a bot's stderr written to its log per game (1 MiB); the
    /// rest is counted and cut.
    pub stderr_cap: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            startup: Duration::from_secs(10),
            ready: Duration::from_secs(5),
            ping: Duration::from_secs(2),
            quit_grace: Duration::from_secs(1),
            stderr_cap: 1 << 20,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_like_a_shell() {
        let spec = BotSpec::from_command("x", "python3 'my bots/bot.py' --depth 3").unwrap();
        assert_eq!(spec.program, "python3");
        assert_eq!(spec.args, ["my bots/bot.py", "--depth", "3"]);
        assert_eq!(spec.command_line(), "python3 'my bots/bot.py' --depth 3");
        assert_eq!(BotSpec::from_command("x", "  "), Err(CommandError::Empty));
        assert!(matches!(
            BotSpec::from_command("x", "bot 'open"),
            Err(CommandError::Unbalanced(_))
        ));
    }
}
