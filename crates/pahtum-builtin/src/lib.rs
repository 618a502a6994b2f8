//! The bots built into the `arena` binary: which there are ([`NAMES`]), how
//! each plays on stdin and stdout ([`run`], what `arena bot NAME` calls), and
//! how a command that names one without a path becomes the launch spec of
//! `ARENA bot NAME` ([`spec`]), in the sandbox when asked ([`sandboxed`]).
//!
//! It is a crate of its own so that the registry is one list that the command
//! line, its tests and the commands that start bots share, and so that the
//! crates that only start bots (the runner, the server) never link the
//! engine's search: they get a built-in bot as a [`BotSpec`] from here, made
//! by the binary that links this crate.

#![warn(missing_docs)]

pub mod sandboxed;

use std::path::{Path, PathBuf};

use pahtum::{Action, Game};
use pahtum_protocol::bot::{BotError, Identity, Player};
use pahtum_protocol::{Clock, Info};
use pahtum_referee::{BotSpec, CommandError};

/// The names of the built-in bots.
pub const NAMES: &[&str] = &["heuristic", "engine", "first-free"];

/// The built-in bot that plays the first legal action, instantly: the
/// opponent of `arena check`.
pub const FIRST_FREE: &str = "first-free";

/// Why a built-in bot could not run, or a command could not become a spec.
#[derive(Debug, thiserror::Error)]
pub enum BuiltinError {
    /// Options given to a bot that takes none (only the engine does).
    #[error("the built-in bot {name} takes no options (given: {})", options.join(" "))]
    TakesNoOptions {
        /// The bot.
        name: String,
        /// The options given.
        options: Vec<String>,
    },
    /// No built-in bot has this name.
    #[error("there is no built-in bot {name:?}; the built-in bots are: {}", NAMES.join(", "))]
    Unknown {
        /// The name asked for.
        name: String,
    },
    /// The bot's loop stopped with an error (its stdin or stdout failed, or the referee sent nonsense).
    #[error("the built-in bot {name} stopped")]
    Stopped {
        /// The bot.
        name: String,
        /// Why.
        #[source]
        source: BotError,
    },
    /// A command line that does not split into a program and its arguments.
    #[error("bad bot command {command:?}")]
    BadCommand {
        /// The command line.
        command: String,
        /// Why.
        #[source]
        source: CommandError,
    },
    /// The running executable, which runs the built-in bots, could not be found.
    #[error("cannot find the arena executable to run a built-in bot")]
    NoExecutable(#[source] std::io::Error),
}

/// Runs the built-in bot `name` with its `options` on stdin and stdout until
/// `quit`. Only the engine takes options; its own option parser prints its
/// help, or what is wrong with them, and exits, as a bot's command line does.
pub fn run(name: &str, options: &[String]) -> Result<(), BuiltinError> {
    if name != "engine" && !options.is_empty() {
        return Err(BuiltinError::TakesNoOptions {
            name: name.to_owned(),
            options: options.to_vec(),
        });
    }
    let outcome = match name {
        "heuristic" => pahtum_protocol::bot::run(&mut pahtum_heuristic::Heuristic::new()),
        "engine" => {
            let mut engine = pahtum_engine::Engine::from_args(options).unwrap_or_else(|error| error.exit());
            pahtum_protocol::bot::run(&mut engine)
        }
        FIRST_FREE => pahtum_protocol::bot::run(&mut FirstFree),
        _ => return Err(BuiltinError::Unknown { name: name.to_owned() }),
    };
    outcome.map_err(|source| BuiltinError::Stopped {
        name: name.to_owned(),
        source,
    })
}

/// The spec of `command`: a command line whose first word is a built-in
/// bot's name (`engine --level 1`) runs this executable's `bot NAME
/// [OPTIONS]` (this executable must be the arena); anything else is a
/// shell-like command line.
pub fn spec(name: &str, command: &str) -> Result<BotSpec, BuiltinError> {
    let spec = BotSpec::from_command(name, command).map_err(|source| BuiltinError::BadCommand {
        command: command.to_owned(),
        source,
    })?;
    if !NAMES.contains(&spec.program.as_str()) {
        return Ok(spec);
    }
    let exe = std::env::current_exe().map_err(BuiltinError::NoExecutable)?;
    Ok(spec_running(&exe, spec))
}

/// `spec`, whose program is a built-in bot's name, as `arena bot NAME
/// [OPTIONS]` of the executable `arena`.
fn spec_running(arena: &Path, spec: BotSpec) -> BotSpec {
    BotSpec {
        program: arena.to_string_lossy().into_owned(),
        args: ["bot".to_owned(), spec.program].into_iter().chain(spec.args).collect(),
        ..spec
    }
}

/// The arena executable, when `spec` runs one of its built-in bots.
pub fn executable_of(spec: &BotSpec) -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    (Path::new(&spec.program) == exe && spec.args.first().is_some_and(|word| word == "bot")).then_some(exe)
}

/// Plays the first legal action, instantly: the opponent of `arena check`
/// and the instant bot of benchmarks.
#[derive(Debug)]
pub struct FirstFree;

impl Player for FirstFree {
    fn identity(&self) -> Identity {
        Identity {
            name: FIRST_FREE.to_owned(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            author: None,
        }
    }

    fn choose(&mut self, game: &Game, _clock: &Clock) -> (Action, Option<Info>) {
        let first = game.legal_moves()[0];
        (first, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_built_in_name_runs_this_executable_and_a_command_runs_itself() {
        let engine = spec("e", "engine --level 1").unwrap();
        let exe = std::env::current_exe().unwrap();
        assert_eq!(engine.program, exe.to_string_lossy());
        assert_eq!(engine.args, ["bot", "engine", "--level", "1"]);
        assert_eq!(executable_of(&engine), Some(exe));

        let command = spec("p", "python3 bot.py").unwrap();
        assert_eq!(
            (command.program.as_str(), command.args.as_slice()),
            ("python3", &["bot.py".to_owned()][..])
        );
        assert_eq!(executable_of(&command), None);
        assert!(matches!(spec("x", "'unbalanced"), Err(BuiltinError::BadCommand { .. })));
    }

    #[test]
    fn only_the_engine_takes_options_and_unknown_names_are_refused() {
        let error = run("heuristic", &["--fast".to_owned()]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the built-in bot heuristic takes no options (given: --fast)"
        );
        let error = run("nobody", &[]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "there is no built-in bot \"nobody\"; the built-in bots are: heuristic, engine, first-free"
        );
    }

    #[test]
    fn first_free_plays_the_first_legal_action() {
        let game = Game::with_blocks(pahtum::setup::random_blocks(5, 2).unwrap(), true).unwrap();
        let clock = Clock {
            remaining_ms: None,
            opponent_ms: None,
            increment_ms: 0,
            move_ms: Some(1000),
            timeout_ms: 1000,
            kind: Default::default(),
        };
        let (action, info) = FirstFree.choose(&game, &clock);
        assert_eq!(action, game.legal_moves()[0]);
        assert!(info.is_none());
    }
}
