//! `arena serve [DIR]`: the runs of a folder in the browser, live.
//!
//! The server is `pahtum-serve`'s; this command binds it, prints the address
//! to open (with the access token when it is bound elsewhere than loopback,
//! generated unless `--token` names one), and serves until Ctrl-C.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use pahtum_serve::Serve;
use pahtum_serve::access::new_token;

use crate::output::{errln, outln};

/// The address `arena serve` listens on by default.
pub const DEFAULT_LISTEN: &str = crate::flags::DEFAULT_LISTEN;

/// Serve the runs of a folder in the browser: each run's report, kept current as its games end.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  arena serve                       the runs under runs/, at http://127.0.0.1:8717/\n  \
                        arena serve tournaments/runs --listen 127.0.0.1:0   on a free port\n  \
                        arena serve --listen 0.0.0.0:8717  to the network: prints an address with a new token"
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
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let token = args.token.or_else(|| (!args.listen.ip().is_loopback()).then(new_token));
    let serve = Serve {
        dir: args.dir,
        listen: args.listen,
        token,
        only: None,
        live: None,
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
