//! One game between two bots outside any tournament, the service of `arena
//! game`: [`OneGame::open`] readies its runtime and its logs' folder, then
//! [`OneGame::play`] starts both bots at once (each bot's stderr appended to
//! its log if asked), has the referee play the game, and shuts both down
//! however it went.
//!
//! One game on one thread: the referee reads each answer on the thread that
//! waits for it (a multi-thread runtime's `block_on` would add a thread
//! wake-up to every answer; see the pahtum-referee docs), so the service runs
//! the game on a current-thread runtime of its own.

use std::path::{Path, PathBuf};

use pahtum_record::{GameRecord, GameSpec};
use pahtum_referee::{Bot, BotSpec, Limits, StartError, play_game};

use crate::evidence::start_error;

/// Why the game could not be played.
#[derive(Debug, thiserror::Error)]
pub enum OneGameError {
    /// No async runtime to play it on.
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
    /// The folder of the bots' logs could not be created.
    #[error("cannot create {}", dir.display())]
    Logs {
        /// The folder.
        dir: PathBuf,
        /// Why not.
        #[source]
        error: std::io::Error,
    },
    /// A bot could not start. The message is the evidence, its causes included ([`start_error`], escaped),
    /// so the error has no source to repeat them.
    #[error("{}", start_error(.0, "  "))]
    CannotStart(Box<StartError>),
}

/// Where one game is played: its runtime, and the folder of its bots' logs if any.
#[derive(Debug)]
pub struct OneGame {
    runtime: tokio::runtime::Runtime,
    logs: Option<PathBuf>,
}

impl OneGame {
    /// Starts the game's runtime and creates the folder `logs` (if given and missing), where each bot's
    /// stderr is appended to `white.log` and `black.log`: before the bots are named and made, so that a
    /// failure here is told first.
    pub fn open(logs: Option<&Path>) -> Result<OneGame, OneGameError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(OneGameError::Runtime)?;
        if let Some(dir) = logs {
            std::fs::create_dir_all(dir).map_err(|error| OneGameError::Logs {
                dir: dir.to_owned(),
                error,
            })?;
        }
        Ok(OneGame {
            runtime,
            logs: logs.map(Path::to_owned),
        })
    }

    /// Plays the game `spec` between `white` (the first seat) and `black`, both started at once and
    /// shut down however it went.
    pub fn play(self, spec: &GameSpec, [white, black]: [BotSpec; 2]) -> Result<GameRecord, OneGameError> {
        let log = |color: &str| self.logs.as_ref().map(|dir| dir.join(format!("{color}.log")));
        let (white_log, black_log) = (log("white"), log("black"));
        self.runtime.block_on(async {
            let limits = Limits::default();
            let (white, black) = tokio::join!(
                Bot::start(&white, &limits, white_log.as_deref()),
                Bot::start(&black, &limits, black_log.as_deref())
            );
            let (mut white, mut black) = match (white, black) {
                (Ok(white), Ok(black)) => (white, black),
                (Err(error), other) => {
                    if let Ok(bot) = other {
                        bot.shutdown().await;
                    }
                    return Err(OneGameError::CannotStart(Box::new(error)));
                }
                (Ok(bot), Err(error)) => {
                    bot.shutdown().await;
                    return Err(OneGameError::CannotStart(Box::new(error)));
                }
            };
            let record = play_game(spec, &mut white, &mut black, &mut |_| {}).await;
            tokio::join!(white.shutdown(), black.shutdown());
            Ok(record)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use pahtum_protocol::move_time;

    use super::*;

    fn spec() -> GameSpec {
        GameSpec::random("game", 7, 3, true, move_time(Duration::from_secs(5))).unwrap()
    }

    /// A program that does not exist cannot start: the error is its evidence, with no source that would
    /// repeat it; the logs' folder was made when the game was opened.
    #[test]
    fn a_bot_that_cannot_start_is_the_error_with_its_evidence() {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        let missing = |name: &str| BotSpec::from_command(name, "/nonexistent/pahtum-bot").unwrap();
        let error = OneGame::open(Some(&logs))
            .unwrap()
            .play(&spec(), [missing("a"), missing("b")])
            .unwrap_err();
        assert!(matches!(error, OneGameError::CannotStart(_)), "{error:?}");
        assert!(error.to_string().contains("/nonexistent/pahtum-bot"), "{error}");
        assert!(std::error::Error::source(&error).is_none());
        assert!(logs.is_dir());
    }

    #[test]
    fn a_logs_folder_that_cannot_be_made_is_said_with_its_cause_before_any_bot() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "").unwrap();
        let logs = file.join("logs");
        let error = OneGame::open(Some(&logs)).unwrap_err();
        assert_eq!(error.to_string(), format!("cannot create {}", logs.display()));
        assert!(std::error::Error::source(&error).is_some());
    }
}
