//! `arena bot NAME [OPTIONS]`: a built-in bot on stdin and stdout, speaking
//! the protocol like any other bot (so the referee runs it as a process too).

use std::process::ExitCode;

/// Run a built-in bot on stdin and stdout.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "Examples:
  arena bot heuristic
  arena bot engine -- --level 4 --seed 1
  arena bot engine -- --help")]
pub struct Args {
    /// The built-in bot: heuristic, engine or first-free.
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(pahtum_builtin::NAMES))]
    name: String,
    /// The bot's own options (for the engine: `arena bot engine -- --help`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    options: Vec<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    // The command line's code is not the bot's: a bot plays a whole match, and maps only what it runs.
    crate::resident::release_idle_pages();
    pahtum_builtin::run(&args.name, &args.options)?;
    Ok(ExitCode::SUCCESS)
}
