//! `arena serve`: the runs of a folder in the browser, live.
//!
//! A local web application on the data everyone else reads: each run's page
//! is the run's `report.html`, made from its journal by the report crate,
//! kept current as the journal grows. The server is an attack surface (it
//! will start bots), so every request passes [`access`] first: loopback by
//! default, a token elsewhere, `Host` and `Origin` checked; and a run is
//! named by its folder's name, never by a path ([`runs`]). A person plays a
//! bot at `/play` (`play`): the bot is named by its [`roster`] name only. The
//! games in progress come from the runner, in the process or through the run
//! folder's socket ([`games`]). A run that plays serves its own pages with
//! [`one_run`] (`--serve`). Every server's connections are capped and timed
//! ([`connections`]), so that one client cannot starve the others.

pub mod access;
pub mod connections;
pub mod games;
pub mod one_run;
pub mod page;
mod play;
pub mod roster;
pub mod runs;
mod server;

pub use play::PlaySettings;
pub use server::{Bound, MAX_BODY, Serve, ServeError};
