//! A league's processes: an entrant admitted (built, checked, and only then in
//! the league), and the league's rounds decided and played by the
//! [`runner`](crate::runner).
//!
//! The league's data (its state, the pairing rule, the table, the staging of
//! an entrant's folder) is `pahtum-league`'s, with no process; this module is
//! what `arena league add` and `arena league run` call, as library functions
//! that return data and typed errors, so that the command line only parses
//! its flags and prints:
//!
//! * [`entrant`]: [`build`] and [`check`], an entrant's build in its snapshot
//!   (in the sandbox when the league asks) and the conformance suite of
//!   `arena check` on it, each with its log;
//! * [`admit`]: [`add`], an entrant's folder staged, built, checked and
//!   joined, or refused with the league unchanged;
//! * [`round`]: the league as a tournament file ([`tournament_file`]) and a
//!   round's pending games as the runner's work ([`Round`]);
//! * [`play`](mod@play): [`play()`], the rounds the league needs now decided by the
//!   pairing rule and played until it is settled, a number of games is
//!   played, a shard's share is done, or a stop signal;
//! * [`paired`]: a tournament paired as it is played (a Swiss) set up as a
//!   league in its output folder.

pub mod admit;
pub mod entrant;
pub mod paired;
pub mod play;
pub mod round;

pub use admit::{AddError, BoxError, Checker, Naming, Prepared, Step, Submission, add, prepare};
pub use entrant::{AdmitError, BUILD_TMP_MB, BuildPolicy, NoSandbox, build, check, command_line, require_sandbox};
pub use play::{Ended, Options, PlayLeagueError, Show, play};
pub use round::{Round, tournament_file};
