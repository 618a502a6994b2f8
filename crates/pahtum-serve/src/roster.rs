//! The bots a person may play in the browser (`/play`): the built-in bots,
//! and the bots of the tournament files in the served folder or of the file
//! given with `--bots`.
//!
//! The browser names a bot only by its name in the roster; what that name
//! runs (a command, a folder, a sandbox) comes from the files the server's
//! owner wrote, read once at start, never from a request. A bot is launched
//! as in a tournament of its file ([`Launcher`]): its working directory,
//! environment and sandbox are the file's.

use std::path::{Path, PathBuf};

use pahtum_referee::BotSpec;
use pahtum_runner::launch::Launcher;
use pahtum_tournament::config::{self, BotConfig, ConfigError, Launch};

/// One bot of the roster: how the tournament file describes it (for the
/// journal of a game played against it) and how to start it.
#[derive(Debug, Clone)]
pub struct RosterBot {
    /// As a tournament file gives it.
    pub config: BotConfig,
    /// The referee's launch spec.
    pub spec: BotSpec,
}

/// The bots a person may play, by name (the first of a name is kept).
#[derive(Debug, Clone, Default)]
pub struct Roster {
    bots: Vec<RosterBot>,
}

/// Why the roster file cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the roster file {}: give a tournament file whose [[bots]] are the bots to offer", path.display())]
pub struct RosterError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    #[source]
    pub source: ConfigError,
}

impl Roster {
    /// The roster of `builtins` (run by `arena`, the executable, as `arena bot NAME`) and of the bots of
    /// `bots_file` if given, else of every tournament file (`*.toml`) in `dir` that reads as one.
    pub fn load(dir: &Path, bots_file: Option<&Path>, builtins: &[&str], arena: &Path) -> Result<Roster, RosterError> {
        let mut roster = Roster::default();
        for name in builtins {
            roster.add(RosterBot {
                config: BotConfig {
                    name: (*name).to_owned(),
                    launch: Launch::Builtin((*name).to_owned()),
                    dir: None,
                    env: Default::default(),
                    time: None,
                    sandbox: None,
                },
                spec: BotSpec {
                    name: (*name).to_owned(),
                    program: arena.display().to_string(),
                    args: vec!["bot".to_owned(), (*name).to_owned()],
                    dir: None,
                    env: Vec::new(),
                    sandbox: None,
                },
            });
        }
        let files = match bots_file {
            Some(path) => vec![config::load(path).map_err(|source| RosterError {
                path: path.to_owned(),
                source,
            })?],
            None => {
                let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
                    .map(|entries| {
                        entries
                            .filter_map(Result::ok)
                            .map(|entry| entry.path())
                            .filter(|path| path.extension().is_some_and(|ext| ext == "toml") && path.is_file())
                            .collect()
                    })
                    .unwrap_or_default();
                paths.sort();
                // A file of the folder that is not a tournament file offers no bot.
                paths.iter().filter_map(|path| config::load(path).ok()).collect()
            }
        };
        for file in &files {
            let launcher = Launcher::new(file, arena);
            for bot in &file.tournament.bots {
                roster.add(RosterBot {
                    config: bot.clone(),
                    spec: launcher.spec(bot),
                });
            }
        }
        Ok(roster)
    }

    fn add(&mut self, bot: RosterBot) {
        if self.get(&bot.config.name).is_none() {
            self.bots.push(bot);
        }
    }

    /// The bot named `name`.
    pub fn get(&self, name: &str) -> Option<&RosterBot> {
        self.bots.iter().find(|bot| bot.config.name == name)
    }

    /// The bots' names, in the roster's order.
    pub fn names(&self) -> Vec<&str> {
        self.bots.iter().map(|bot| bot.config.name.as_str()).collect()
    }
}
