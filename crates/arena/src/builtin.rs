//! The bots built into the `arena` binary, run by `arena bot NAME`, and the
//! commands that name them without a path.

use anyhow::Context;
use pahtum::{Action, Game};
use pahtum_protocol::bot::{Identity, Player};
use pahtum_protocol::{Clock, Info};
use pahtum_referee::BotSpec;

/// The names of the built-in bots.
pub const NAMES: &[&str] = &["heuristic", "engine", "first-free"];

/// Runs the built-in bot `name` with its `options` on stdin and stdout until
/// `quit`. Only the engine takes options.
pub fn run(name: &str, options: &[String]) -> anyhow::Result<()> {
    if name != "engine" && !options.is_empty() {
        anyhow::bail!(
            "the built-in bot {name} takes no options (given: {})",
            options.join(" ")
        );
    }
    let outcome = match name {
        "heuristic" => pahtum_protocol::bot::run(&mut pahtum_heuristic::Heuristic::new()),
        "engine" => {
            let mut engine = pahtum_engine::Engine::from_args(options).unwrap_or_else(|error| error.exit());
            pahtum_protocol::bot::run(&mut engine)
        }
        "first-free" => pahtum_protocol::bot::run(&mut FirstFree),
        _ => anyhow::bail!(
            "there is no built-in bot {name:?}; the built-in bots are: {}",
            NAMES.join(", ")
        ),
    };
    outcome.with_context(|| format!("the built-in bot {name} stopped"))
}

/// The spec of `command`: a command line whose first word is a built-in
/// bot's name (`engine --level 1`) runs this executable's `bot NAME
/// [OPTIONS]`; anything else is a shell-like command line.
pub fn spec(name: &str, command: &str) -> anyhow::Result<BotSpec> {
    let spec = BotSpec::from_command(name, command).with_context(|| format!("bad bot command {command:?}"))?;
    if !NAMES.contains(&spec.program.as_str()) {
        return Ok(spec);
    }
    let exe = std::env::current_exe().context("cannot find the arena executable to run a built-in bot")?;
    Ok(BotSpec {
        program: exe.to_string_lossy().into_owned(),
        args: ["bot".to_owned(), spec.program].into_iter().chain(spec.args).collect(),
        ..spec
    })
}

/// The arena executable, when `spec` runs one of its built-in bots.
pub fn executable_of(spec: &BotSpec) -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    (std::path::Path::new(&spec.program) == exe && spec.args.first().is_some_and(|word| word == "bot")).then_some(exe)
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
