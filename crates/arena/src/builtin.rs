//! The bots built into the `arena` binary, run by `arena bot NAME`, and the
//! commands that name them without a path.

use anyhow::Context;
use pahtum::{Action, Game};
use pahtum_protocol::bot::{Identity, Player};
use pahtum_protocol::{Clock, Info};
use pahtum_referee::BotSpec;

/// The names of the built-in bots.
pub const NAMES: &[&str] = &["heuristic", "first-free"];

/// Runs the built-in bot `name` on stdin and stdout until `quit`.
pub fn run(name: &str) -> anyhow::Result<()> {
    let outcome = match name {
        "heuristic" => pahtum_protocol::bot::run(&mut pahtum_heuristic::Heuristic::new()),
        "first-free" => pahtum_protocol::bot::run(&mut FirstFree),
        _ => anyhow::bail!(
            "there is no built-in bot {name:?}; the built-in bots are: {}",
            NAMES.join(", ")
        ),
    };
    outcome.with_context(|| format!("the built-in bot {name} stopped"))
}

/// The spec of `command`: a built-in bot's name runs this executable's
/// `bot NAME`; anything else is a shell-like command line.
pub fn spec(name: &str, command: &str) -> anyhow::Result<BotSpec> {
    if NAMES.contains(&command.trim()) {
        let exe = std::env::current_exe().context("cannot find the arena executable to run a built-in bot")?;
        return Ok(BotSpec {
            name: name.to_owned(),
            program: exe.to_string_lossy().into_owned(),
            args: vec!["bot".to_owned(), command.trim().to_owned()],
            dir: None,
            env: Vec::new(),
        });
    }
    BotSpec::from_command(name, command).with_context(|| format!("bad bot command {command:?}"))
}

/// Plays the first legal action, instantly: the opponent of `arena check`
/// and the instant bot of benchmarks.
#[derive(Debug)]
struct FirstFree;

impl Player for FirstFree {
    fn identity(&self) -> Identity {
        Identity {
            name: "first-free".to_owned(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            author: None,
        }
    }

    fn choose(&mut self, game: &Game, _clock: &Clock) -> (Action, Option<Info>) {
        let first = game.legal_moves()[0];
        (first, None)
    }
}
