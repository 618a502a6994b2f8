//! A contest hosted from one binary: authors submit bots in the browser or
//! with `arena submit`, the server builds and checks each in the sandbox,
//! and the contest's league plays itself as they arrive.
//!
//! It is the league, the supervisor and the server, put together; it has
//! no second copy of any of them:
//! * the contest's league is an ordinary league folder (`DIR/league`), whose
//!   journal is the record of the games, read by `arena league table`,
//!   `arena report` and `arena verify` as any league's;
//! * a submission is admitted by the league's own admission
//!   (`pahtum_runner::league::prepare`: staged, built and checked through
//!   the one supervisor, in the sandbox), after its upload was unpacked by
//!   `pahtum-upload`, entry by entry, within caps;
//! * the pages and the API are served with `arena serve`'s access rules,
//!   headers and connection limits.
//!
//! What only a contest has is here: its settings ([`config`]), what changes
//! (accounts, sessions, tokens, submissions) in SQLite ([`store`]), the
//! passwords and secrets ([`accounts`]), the commands that set up a
//! contest's folder ([`service`]), the jobs authors ask for beside the
//! ladder ([`jobs`]): analyses of their lost games ([`analyses`]) and
//! unrated challenges ([`challenges`]), the tests that promote a version
//! submitted on condition ([`promotions`]), and the season's phases, which
//! open and freeze the submissions ([`season`]), with its stages in time
//! ([`stages`]): the ladder, then the final ([`finals`]), each round played
//! here or on a Slurm or Kubernetes cluster ([`cluster`]).

#![warn(missing_docs)]

pub mod accounts;
pub mod analyses;
pub mod builds;
pub mod causes;
pub mod challenges;
pub mod client;
pub mod cluster;
pub mod config;
pub mod finals;
pub mod held;
pub mod host;
pub mod jobs;
pub mod ladder;
mod locks;
pub mod promotions;
pub mod season;
pub mod service;
pub mod stages;
pub mod store;
pub mod web;
