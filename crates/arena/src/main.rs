//! `arena`: the command line of pahtum-arena.
//!
//! Each subcommand is a module of [`cmd`] with an `Args` struct (clap) and a
//! `run(Args) -> anyhow::Result<ExitCode>` function; the [`subcommands!`]
//! list below is the only place that names them, so adding one is one line
//! here and one `pub mod` in `cmd/mod.rs`.

mod cmd;
mod duration;
mod exit;
mod flags;
mod forfeit;
mod inputs;
mod names;
mod opening;
mod output;
mod resident;
mod runtime;
mod signals;
mod width;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use crate::output::errln;

/// Referee and tournament runner for bots that play Pah Tum.
#[derive(Debug, Parser)]
#[command(name = "arena", version, after_help = exit::help())]
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
    /// Merge the journals of a sharded run into one run folder, with its standings and report.
    Merge => merge,
    /// Play a game against a bot at the terminal.
    Play => play,
    /// Print the completion script of a shell (bash, zsh, fish, elvish, powershell).
    Completions => completions,
    /// Print the manual page, or write a page for every command into a folder.
    Man => man,
    /// Write the HTML report (standings, crosstable, games and their replays) of a journal.
    Report => report,
    /// Print a game move by move, or list the games of a journal.
    Show => show,
    /// Analyse games: each move's value, the best moves, mistakes and the losing moves, into analysis.jsonl.
    Analyze => analyze,
    /// Make an opening book: random layouts and plies, optionally only those near an even game.
    Book => book,
    /// Serve the runs of a folder in the browser: each run's report, kept current as its games end.
    Serve => serve,
    /// Run a league: bots and versions join over time and play only the games their ratings need.
    League => league,
    /// Host a contest: authors submit bots in the browser or with `arena submit`, built and checked in the
    /// sandbox, and a ladder that plays itself.
    Contest => contest,
    /// Submit a bot to a contest: pack its folder, upload it, follow its build and check, print the outcome.
    Submit => submit,
    /// Unpack a contest's upload in the sandbox, as its server orders (not for people).
    #[command(name = pahtum_contest::builds::UNPACK_COMMAND, hide = true)]
    UploadUnpack => upload_unpack,
}

/// The command line's definition, for the completion scripts and the manual pages.
fn command() -> clap::Command {
    Cli::command()
}

fn main() -> ExitCode {
    // `adjudicate = "solved"` ends games, and `arena verify` proves them, by the exact solver.
    pahtum_record::lend_perfect_play(Box::new(pahtum_analysis::perfect_play::Solved));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() {
                ExitCode::from(exit::FAILURE)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match cli.command.run() {
        Ok(code) => code,
        Err(error) => {
            // An error may quote what a bot or a journal wrote: every line is escaped for the terminal
            // (the line breaks are the error's own layout).
            let text = format!("{error:#}");
            let lines: Vec<_> = text.split('\n').map(pahtum_protocol::untrusted::escape).collect();
            errln!("arena: error: {}", lines.join("\n"));
            ExitCode::from(exit::FAILURE)
        }
    }
}

#[cfg(test)]
mod tests {
    /// clap's own consistency checks of the definitions (names, defaults, conflicts), which it makes only
    /// in debug builds and only for the arguments a parse meets.
    #[test]
    fn the_command_line_is_consistent() {
        super::command().debug_assert();
    }
}
