//! `arena`: the command line of pahtum-arena.
//!
//! Each subcommand is a module of [`cmd`] with an `Args` struct (clap) and a
//! `run(Args) -> anyhow::Result<ExitCode>` function; the [`subcommands!`]
//! list below is the only place that names them, so adding one is one line
//! here and one `pub mod` in `cmd/mod.rs`.

mod builtin;
mod cmd;
mod duration;
mod names;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

const EXIT_CODES: &str = "\
Exit codes:
  0  success (a game that a bot forfeits was still played successfully)
  1  a failure of the referee, a bot whose program could not be started, or bad usage
  2  `arena check` found the bot non-conforming (a failed greeting included),
     or `arena verify` a faulty journal line
  130  interrupted by Ctrl-C (run the same command again to resume)";

/// Referee and tournament runner for bots that play Pah Tum.
#[derive(Debug, Parser)]
#[command(name = "arena", version, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Declares the subcommands: `Variant => module` (see the crate docs).
macro_rules! subcommands {
    ($($(#[$doc:meta])* $variant:ident => $module:ident,)*) => {
        #[derive(Debug, Subcommand)]
        enum Command {
            $($(#[$doc])* $variant(cmd::$module::Args),)*
        }

        impl Command {
            fn run(self) -> anyhow::Result<ExitCode> {
                match self {
                    $(Command::$variant(args) => cmd::$module::run(args),)*
                }
            }
        }
    };
}

subcommands! {
    /// Play one game between two bots and show or save its record.
    Game => game,
    /// Check that a bot speaks the protocol correctly, and say how to fix it if not.
    Check => check,
    /// Run a built-in bot on stdin and stdout (as any other bot).
    Bot => bot,
    /// Play a tournament (or resume it) and print the standings.
    Run => run,
    /// Play a head-to-head match between two bots, optionally stopped early by an SPRT.
    Match => match_cmd,
    /// Print the standings of a tournament journal.
    Standings => standings,
    /// Check every record of a tournament journal and list every fault.
    Verify => verify,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match cli.command.run() {
        Ok(code) => code,
        Err(error) => {
            eprintln!("arena: error: {error:#}");
            ExitCode::from(1)
        }
    }
}
