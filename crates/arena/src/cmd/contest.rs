//! `arena contest`: host a contest from this binary. `init` writes a
//! contest's folder, `invite` makes an author's account, `serve` serves its
//! pages and plays its ladder, `backup` copies it while it runs. The work
//! is `pahtum-contest`'s; this module parses, calls and prints.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use pahtum_contest::host;
use pahtum_contest::ladder::Machinery;
use pahtum_contest::service::{self, DEFAULT_LISTEN, Invitation};
use pahtum_contest::store::now_ms;

use crate::output::{errln, outln};

/// Host a contest: authors submit bots in the browser or with `arena submit`; each is built and checked in
/// the sandbox, and the contest's league plays itself.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  arena contest init spring --name \"Spring cup\"   then open the organiser's link it prints\n  \
                  arena contest invite spring ada            a one-time link for the author ada\n  \
                  arena contest invite spring bob --token    an API token for bob, for scripts\n  \
                  arena contest serve spring                 pages at http://127.0.0.1:8718/, the ladder plays\n  \
                  arena contest backup spring spring-copy    a consistent copy while it runs"
)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Write a new contest in DIR: contest.toml, a league in the sandbox, the database, and the organiser's
    /// first login.
    Init {
        /// The contest's folder (created if missing).
        dir: PathBuf,
        /// The contest's name [default: the folder's name].
        #[arg(long)]
        name: Option<String>,
    },
    /// Make an author's account: a one-time link where they choose a password, or with --token an API token.
    Invite {
        /// The contest's folder.
        dir: PathBuf,
        /// The author's name (their bot carries it): 1 to 64 letters, digits, '-', '_' or '.'.
        name: String,
        /// Print an API token for the author instead of a link, alone on stdout (for scripted set-ups).
        #[arg(long)]
        token: bool,
    },
    /// Serve the contest's pages and API, build submissions, and play its ladder until Ctrl-C.
    Serve {
        /// The contest's folder.
        dir: PathBuf,
        /// The address to listen on; one other than loopback needs public_url in contest.toml.
        #[arg(long, value_name = "ADDR", default_value = DEFAULT_LISTEN)]
        listen: SocketAddr,
        /// Games played at once [default: the number of cores minus one].
        #[arg(long, value_name = "N", value_parser = crate::flags::parse_concurrency)]
        concurrency: Option<usize>,
    },
    /// Copy the whole contest (settings, database, league, uploads, logs) into a new folder OUT while it runs.
    Backup {
        /// The contest's folder.
        dir: PathBuf,
        /// The copy's folder (must not exist).
        out: PathBuf,
    },
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        Command::Init { dir, name } => {
            let name = name.unwrap_or_else(|| {
                dir.file_name()
                    .map_or_else(|| "contest".to_owned(), |name| name.to_string_lossy().into_owned())
            });
            let first = service::init(&dir, &name, now_ms())?;
            let shown = dir.display();
            outln!("A contest {name:?} in {shown}; its league is {shown}/league (sandboxed).");
            outln!("Serve it with `arena contest serve {shown}`, then open, once, the organiser's link:");
            outln!("{}", first.link);
        }
        Command::Invite { dir, name, token } => match service::invite(&dir, &name, token, now_ms())? {
            Invitation::Token(token) => outln!("{token}"),
            Invitation::Link(link) => {
                outln!("{link}");
                errln!("arena: send {name} this link, good once: they choose a password there");
            }
        },
        Command::Serve {
            dir,
            listen,
            concurrency,
        } => return serve(dir, listen, concurrency),
        Command::Backup { dir, out } => {
            service::backup(&dir, &out)?;
            outln!("The contest in {} is copied into {}.", dir.display(), out.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn serve(dir: PathBuf, listen: SocketAddr, concurrency: Option<usize>) -> anyhow::Result<ExitCode> {
    let arena = std::env::current_exe().context("cannot find the arena executable to run the built-in bots")?;
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let machinery = Machinery {
        arena: &arena,
        builtins: pahtum_builtin::NAMES,
        concurrency: concurrency.unwrap_or(cores.saturating_sub(1).max(1)),
    };
    let checker = super::league::checker()?;
    crate::runtime::runtime()?.block_on(async {
        let hosting = host::bind(&dir, listen).await?;
        outln!("{}", hosting.url);
        if hosting.requeued > 0 {
            errln!(
                "arena: {} submissions cut off by the last stop build again",
                hosting.requeued
            );
        }
        errln!(
            "arena: serving the contest in {} at {}; Ctrl-C stops",
            dir.display(),
            hosting.url
        );
        hosting
            .run(&checker, machinery, async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await?;
        Ok(ExitCode::SUCCESS)
    })
}
