//! `arena serve [DIR]`: the runs of a folder in the browser, live.
//!
//! The server is `pahtum-serve`'s; this command binds it, prints the address
//! to open (with the access token when it is bound elsewhere than loopback,
//! generated unless `--token` names one), and serves until Ctrl-C. It also
//! offers play in the browser (`/play`) against the bots of its roster: the
//! built-in bots, and those of the tournament files in DIR or of `--bots`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use pahtum_referee::Limits;
use pahtum_serve::access::new_token;
use pahtum_serve::roster::Roster;
use pahtum_serve::{PlaySettings, Serve};

use crate::output::{errln, outln};

/// The address `arena serve` listens on by default.
pub const DEFAULT_LISTEN: &str = crate::flags::DEFAULT_LISTEN;

/// Serve the runs of a folder in the browser: each run's report, kept current as its games end; and play a bot
/// in the browser at /play.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  arena serve                       the runs under runs/, at http://127.0.0.1:8717/\n  \
                        arena serve tournaments/runs --listen 127.0.0.1:0   on a free port\n  \
                        arena serve --listen 0.0.0.0:8717  to the network: prints an address with a new token\n  \
                        arena serve --bots bots.toml --max-games 2   play in the browser (/play) against the bots of bots.toml"
)]
pub struct Args {
    /// The folder whose runs to serve: each folder in it with a journal.jsonl.
    #[arg(default_value = "runs")]
    pub dir: PathBuf,
    /// The address to listen on; one other than loopback needs a token.
    #[arg(long, value_name = "ADDR", default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    /// The access token every request must carry [default: none on loopback; elsewhere a new one, printed
    /// in the address].
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// The bots offered at /play: the built-in bots and those of this tournament file [default: the built-in
    /// bots and those of the tournament files (*.toml) in DIR].
    #[arg(long, value_name = "FILE")]
    pub bots: Option<PathBuf>,
    /// The most games played at once at /play, each with its own bot process [default: the number of cores].
    #[arg(long, value_name = "N")]
    pub max_games: Option<usize>,
    /// A game at /play with no request for this long is resigned and its bot stopped, e.g. 5m or 90s.
    #[arg(long, value_name = "TIME", default_value = "5m", value_parser = crate::duration::parse_duration)]
    pub abandon_after: Duration,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let token = args.token.or_else(|| (!args.listen.ip().is_loopback()).then(new_token));
    let arena = std::env::current_exe().context("cannot find the arena executable to run the built-in bots")?;
    let roster = Roster::load(&args.dir, args.bots.as_deref(), pahtum_builtin::NAMES, &arena)?;
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let play = PlaySettings {
        roster,
        max_games: args.max_games.unwrap_or(cores),
        abandon_after: args.abandon_after,
        limits: Limits::default(),
    };
    let serve = Serve {
        dir: args.dir,
        listen: args.listen,
        token,
        only: None,
        live: None,
        play: Some(play),
    };
    crate::runtime::runtime()?.block_on(async {
        let bound = serve.bind().await?;
        outln!("{}", bound.url());
        errln!("arena: serving {}; Ctrl-C stops", bound.url());
        bound
            .run(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await?;
        Ok(ExitCode::SUCCESS)
    })
}
