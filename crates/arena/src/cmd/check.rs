//! `arena check CMD`: a conformance test for bot authors.
//!
//! The suite is pahtum-runner's [`conformance`]: it plays the bot against the
//! built-in `first-free` bot through every situation the protocol has and
//! returns a report, each check `ok` with what happened or `FAIL` with what
//! went wrong in plain words, and the bot's answer times. This command turns
//! its flags into the bot's launch spec, prints the header (the command, and
//! what the sandbox shows), runs the suite and prints the report.
//!
//! Exit codes: 0 the bot conforms; 2 it does not (a failed greeting
//! included); 1 the bot could not be started at all (no such program, not
//! executable), or the check itself failed.

use std::process::ExitCode;
use std::time::Duration;

use pahtum_builtin::FIRST_FREE;
use pahtum_runner::conformance::{self, ConformanceError};

use crate::duration::parse_duration;
use crate::exit::{NOT_CONFORMING, SUCCESS};
use crate::output::out;

/// Check that a bot speaks the protocol correctly.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "Examples:
  arena check \"python3 my_bot.py\"
  arena check \"./target/release/my-bot --quiet\" --move-time 1s")]
pub struct Args {
    /// The bot: a command ("python3 bot.py") or a built-in name.
    #[arg(value_name = "CMD")]
    command: String,
    /// The limit per answer in the check's games (generous: this is not a speed test).
    #[arg(long, value_name = "TIME", value_parser = parse_duration, default_value = "5s")]
    move_time: Duration,
    /// Check the bot inside the sandbox, as a tournament with `sandbox = true` runs it.
    #[command(flatten)]
    sandbox: crate::flags::SandboxFlag,
    /// Check the bot as a league checks an entrant: in the sandbox it sees its working directory (the
    /// entrant's snapshot) whole, and no folder that its command names.
    #[arg(long, requires = "sandbox")]
    entrant: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    crate::flags::require_sandbox(args.sandbox.sandbox)?;
    let mut bot = args.sandbox.apply(pahtum_builtin::spec("bot", &args.command)?);
    if args.entrant {
        conformance::as_entrant(&mut bot);
    }
    crate::flags::note_what_the_sandbox_shows(std::slice::from_ref(&bot));
    let opponent = pahtum_builtin::spec(FIRST_FREE, FIRST_FREE)?;
    out!(
        "{}",
        conformance::header(&args.command, bot.sandbox.as_ref(), args.entrant)
    );
    let report = crate::runtime::runtime()?
        .block_on(conformance::run(&bot, &opponent, args.move_time))
        .map_err(|error| match error {
            ConformanceError::Start(error) => crate::forfeit::explain(*error),
            other => other.into(),
        })?;
    out!("{report}");
    Ok(ExitCode::from(if report.conforms() { SUCCESS } else { NOT_CONFORMING }))
}
