//! `arena completions SHELL`: the shell's completion script, generated from the clap definitions, so that
//! it always knows every subcommand, flag and listed value (`--format`, `arena bot NAME`).

use std::process::ExitCode;

use clap_complete::Shell;

use crate::output::out;

/// Print the completion script of a shell.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "Examples:
  arena completions bash > ~/.local/share/bash-completion/completions/arena
  arena completions zsh > ~/.zfunc/_arena     (with fpath+=~/.zfunc before compinit)
  arena completions fish > ~/.config/fish/completions/arena.fish")]
pub struct Args {
    /// The shell.
    shell: Shell,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut crate::command(), "arena", &mut script);
    out!("{}", String::from_utf8_lossy(&script));
    Ok(ExitCode::SUCCESS)
}
