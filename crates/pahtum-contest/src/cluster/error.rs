//! Why a round could not be played on the cluster, for the round's loop and both schedulers.

use std::path::{Path, PathBuf};

use pahtum_runner::league::PlayLeagueError;

use crate::locks::locked;

/// Why a league's round could not be played on the cluster.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// The league could not be played (deciding its round, or opening it).
    #[error(transparent)]
    Play(Box<PlayLeagueError>),
    /// The league's folder or journal.
    #[error(transparent)]
    League(#[from] pahtum_league::LeagueError),
    /// The round's folder on the shared storage.
    #[error("cannot {what} {}", path.display())]
    Io {
        /// What was done.
        what: &'static str,
        /// Where.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A scheduler's command failed.
    #[error("`{command}` failed: {output}; check the cluster's settings in contest.toml ([cluster])")]
    Scheduler {
        /// The command.
        command: String,
        /// What it printed, or how it ended.
        output: String,
    },
    /// A task failed more often than the settings allow.
    #[error(
        "task {task} of round {round} failed {tries} times (its output: {}); the round stops",
        output.display()
    )]
    TaskFailed {
        /// The round.
        round: u32,
        /// The task.
        task: u32,
        /// How often it was submitted.
        tries: u32,
        /// Its last output.
        output: PathBuf,
    },
}

impl ClusterError {
    /// Whether it is a league's journal locked elsewhere for a moment ([`crate::locks`]): try again.
    pub(crate) fn is_locked(&self) -> bool {
        match self {
            ClusterError::Play(play) => matches!(&**play, PlayLeagueError::League(error) if locked(error)),
            ClusterError::League(error) => locked(error),
            _ => false,
        }
    }
}

impl From<PlayLeagueError> for ClusterError {
    fn from(error: PlayLeagueError) -> ClusterError {
        ClusterError::Play(Box::new(error))
    }
}

/// An `std::io::Error` about `path`.
pub(super) fn io_error<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> ClusterError + 'a {
    move |source| ClusterError::Io {
        what,
        path: path.to_owned(),
        source,
    }
}
