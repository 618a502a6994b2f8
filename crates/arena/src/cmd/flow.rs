//! What the commands that play a run share at its edges: whether its status is redrawn in place
//! ([`live_status`]), the socket that shows its games in progress to other processes
//! ([`open_live_socket`]), and its standings and exit code at the end ([`report`]).
//!
//! The flow between those edges (the journal opened or resumed, the bots greeted, the games played) is
//! pahtum-runner's: `arena run` and `arena match` hand it over once (`tournament::play`,
//! `head_to_head::play`), and what it tells on the way is said by [`Notices`](super::notices::Notices).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use pahtum_report::fit::Fit;
use pahtum_report::render::{Format, render};
use pahtum_run::events::RunEnding;
use pahtum_run::notice::Notice;
use pahtum_runner::live::Live;
use pahtum_runner::live_socket::LiveSocket;
use pahtum_standings::standings::Standings;

use super::notices::Notices;
use crate::output::{errln, out};

/// Whether the status is one line redrawn in place: on a terminal that can do it (not `TERM=dumb`, where
/// indicatif would draw nothing), else plain lines every few seconds.
pub fn live_status() -> bool {
    std::io::stderr().is_terminal() && std::env::var("TERM").is_ok_and(|term| term != "dumb")
}

/// The socket in `out` through which a server in another process follows the games in progress that `live`
/// shows (pahtum-runner's `live_socket`); `None`, with a warning, if it cannot be made: not having it is no
/// reason not to play.
pub fn open_live_socket(out: &Path, live: &Arc<Live>) -> Option<LiveSocket> {
    LiveSocket::open(out, Arc::clone(live))
        .inspect_err(|error| Notices::plain().say(Notice::NoLiveSocket { error }))
        .ok()
}

/// Prints `lead` and the standings (their table fitted as `fit` says) on stdout and where the journal and
/// the `written` files are on stderr; the exit code of `ending`, saying `resume` (how to resume) when
/// interrupted.
pub fn report(
    lead: &str,
    standings: &Standings,
    fit: Fit,
    journal: &Path,
    written: &[PathBuf],
    ending: RunEnding,
    resume: &str,
) -> ExitCode {
    out!("{lead}{}", render(standings, Format::Table, fit));
    let written: Vec<String> = written.iter().map(|path| path.display().to_string()).collect();
    errln!("arena: journal {}; tables {}", journal.display(), written.join(", "));
    match ending {
        RunEnding::Finished | RunEnding::Declined => ExitCode::SUCCESS,
        RunEnding::Interrupted => {
            errln!("arena: interrupted; {resume}");
            crate::signals::interrupted()
        }
    }
}
