//! One module per subcommand, each with `Args` and `run`; `flow` is what
//! the commands that play a run share at its edges, and `notices` says what
//! a run tells its organiser.

pub mod analyze;
pub mod book;
pub mod bot;
pub mod check;
pub mod completions;
pub mod contest;
mod flow;
pub mod game;
pub mod league;
pub mod man;
pub mod match_cmd;
pub mod merge;
mod notices;
mod paired;
pub mod play;
pub mod report;
pub mod run;
pub mod serve;
pub mod show;
pub mod standings;
pub mod submit;
pub mod upload_unpack;
pub mod verify;
