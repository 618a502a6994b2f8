//! `arena man`: the manual pages, generated from the clap definitions (the same text as `--help`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::output::out;

/// Print the manual page, or write a page for every command into a folder.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "Examples:
  arena man | man -l -
  arena man --dir ~/.local/share/man/man1     (then: man arena-match)")]
pub struct Args {
    /// Write arena.1 and a page per subcommand (arena-run.1, ...) into DIR instead.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match &args.dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            clap_mangen::generate_to(crate::command(), dir)
                .with_context(|| format!("cannot write the manual pages into {}", dir.display()))?;
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(crate::command())
                .render(&mut page)
                .context("cannot render the manual page")?;
            out!("{}", String::from_utf8_lossy(&page));
        }
    }
    Ok(ExitCode::SUCCESS)
}
