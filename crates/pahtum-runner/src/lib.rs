//! The runner of pahtum-arena: plays the scheduled games of a tournament with
//! real bot processes.
//!
//! `pahtum-tournament` says which games a run still needs ([`resume`](pahtum_run::resume))
//! and keeps their journal; this crate plays them. [`launch`] turns the file's
//! bots into the referee's launch specs and checks that their programs exist,
//! [`pool`] keeps greeted bot processes between games, and [`runner`] plays the
//! missing games concurrently, appends each record to the journal and reports
//! every step to an [`Observer`](pahtum_run::events::Observer).
//! [`limits`] maps the file's limits onto the referee's, and [`games`] plays a
//! run's games: its opened journal and bots in, how it ended out.
//! [`tournament`] and [`head_to_head`] are the one call `arena run` and `arena
//! match` make: the parsed file (or the match's tournament) and one observer
//! in, the journal opened, the games played and what to show out, with what
//! they share in [`session`].
//! [`greet`] asks each bot its `hello` once, to compare with the journal's.
//! [`live`] shows the games in progress move by move, in the process and,
//! through a socket in the run's folder ([`live_socket`]), to others.
//! [`league`] admits a league's entrants (staged, built, checked, joined) and
//! decides and plays its rounds: the service of `arena league`.
//! [`one_game`] plays one game between two bots, the service of `arena game`.
//! [`conformance`] is the suite of `arena check`, which a league's admission
//! runs too, its report as data; [`evidence`] shows a bot's failure as
//! escaped text.
//!
//! This is the only crate above the referee that owns processes and the async
//! runtime: the data (schedule, journal, standings) stays synchronous in
//! `pahtum-tournament`, and presenting what happens is `pahtum-report`'s work.

#![warn(missing_docs)]

pub mod conformance;
pub mod evidence;
pub mod games;
pub mod greet;
pub mod head_to_head;
pub mod launch;
pub mod league;
pub mod limits;
pub mod live;
pub mod live_socket;
pub mod one_game;
pub mod pool;
pub mod runner;
pub mod session;
pub mod tournament;
