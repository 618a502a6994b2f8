//! `arena bot NAME`: a built-in bot on stdin and stdout, speaking the
//! protocol like any other bot (so the referee runs it as a process too).

use std::process::ExitCode;

/// Run a built-in bot on stdin and stdout.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The built-in bot: heuristic or first-free.
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(crate::builtin::NAMES))]
    name: String,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    crate::builtin::run(&args.name)?;
    Ok(ExitCode::SUCCESS)
}
