//! An entrant's admission to a league, the work of `arena league add`: its
//! files staged into the league's folder, built, checked by `arena check`, and
//! only then its line in the journal.
//!
//! The steps are `pahtum-league`'s (the staging, the content hash, the
//! journal) and [`super::entrant`]'s (the build and the check, processes);
//! [`add`] runs them in order and stops at the first that refuses, removing
//! the staged folder, so that a refusal leaves the league as it was (only
//! the logs stay). The bots of the check that only the caller can make (the
//! built-in ones live in the `arena` binary) come in a [`Checker`].

use std::error::Error;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pahtum_league::decide::next_version;
use pahtum_league::folder::{self, Opened, STAGING, Staged};
use pahtum_league::lines::label;
use pahtum_league::{Entrant, LeagueError};
use pahtum_record::unix_ms;
use pahtum_referee::BotSpec;
use pahtum_tournament::config::{PLAIN_NAME_RULE, is_plain_name};

use super::entrant::{AdmitError, BuildPolicy, NoSandbox, build, check, command_line, require_sandbox};
use crate::launch::configured_sandbox;

/// An error of the caller's, kept as a source.
pub type BoxError = Box<dyn Error + Send + Sync>;

/// What is submitted to a league.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Submission {
    /// A folder with a `bot.toml` (name, optional version, command, optional build): the whole folder is
    /// copied.
    Folder(PathBuf),
    /// A bot's name and command: the files the command names are copied.
    Command {
        /// The bot's name (its versions share it).
        name: String,
        /// Its command.
        command: Vec<String>,
    },
}

/// The bots of an entrant's check that the caller makes: the built-in bots run in its executable.
pub struct Checker<'a> {
    /// The check's opponent (the built-in `first-free`).
    pub opponent: BotSpec,
    /// The entrant's command line as a bot, in the sandbox when the league asks for it (`true`).
    pub entrant: &'a dyn Fn(&str, bool) -> Result<BotSpec, BoxError>,
}

impl std::fmt::Debug for Checker<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checker")
            .field("opponent", &self.opponent)
            .finish_non_exhaustive()
    }
}

/// Why an entrant was not added (the league is unchanged).
#[derive(Debug, thiserror::Error)]
pub enum AddError {
    /// The league's folder, journal or rules, the entrant's `bot.toml`, or its files.
    #[error(transparent)]
    League(#[from] LeagueError),
    /// The `bot.toml`'s command does not split into words.
    #[error("{}/bot.toml: bad command", folder.display())]
    BadCommand {
        /// The entrant's folder.
        folder: PathBuf,
    },
    /// The name or the version is not a plain name.
    #[error("the name {name:?} and version {version:?} must be plain: {PLAIN_NAME_RULE}")]
    NotPlain {
        /// The name.
        name: String,
        /// The version.
        version: String,
    },
    /// No command was given.
    #[error("the bot's command is empty; give it after --, e.g. -- python3 bot.py")]
    EmptyCommand,
    /// The label is taken.
    #[error("{label} is in the league already; give another --version")]
    Taken {
        /// `NAME@VERSION`.
        label: String,
    },
    /// An entrant of the same content is in the league.
    #[error("{label} has the same files and command as {same} (content hash {hash}); nothing was added")]
    SameFiles {
        /// `NAME@VERSION`.
        label: String,
        /// The entrant of the same content.
        same: String,
        /// The content hash.
        hash: String,
    },
    /// The folder of the logs cannot be created.
    #[error("cannot create {}", path.display())]
    Logs {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The league asks for the sandbox, which cannot run here.
    #[error(transparent)]
    NoSandbox(#[from] NoSandbox),
    /// The build failed.
    #[error("{label} was not added: its build failed (the league is unchanged)")]
    Build {
        /// `NAME@VERSION`.
        label: String,
        /// Why.
        #[source]
        source: AdmitError,
    },
    /// The check failed, or could not run.
    #[error("{label} was not added: its check failed (the league is unchanged)")]
    Check {
        /// `NAME@VERSION`.
        label: String,
        /// Why.
        #[source]
        source: AdmitError,
    },
    /// The entrant's command could not become a bot to check ([`Checker::entrant`]).
    #[error("{label} was not added: its check failed (the league is unchanged)")]
    CheckBot {
        /// `NAME@VERSION`.
        label: String,
        /// Why.
        #[source]
        source: BoxError,
    },
}

/// Adds `submission` to the league in `dir` as version `version` (else the `bot.toml`'s, else the next
/// [`next_version`]): its files staged ([`folder::stage`]), built when it has a build command, checked by
/// `arena check` against `checker`'s opponent, and only then joined ([`folder::admit`]); its label. A
/// refusal removes the staged files and leaves the league unchanged (the logs stay in `dir/logs`).
pub async fn add(
    dir: &Path,
    submission: &Submission,
    version: Option<&str>,
    checker: &Checker<'_>,
) -> Result<String, AddError> {
    let mut opened = folder::open(dir)?;
    let (name, file_version, command, build_command, from) = match submission {
        Submission::Folder(from) => {
            let file = folder::bot_file(from)?;
            let command = shlex::split(&file.command).ok_or_else(|| AddError::BadCommand { folder: from.clone() })?;
            (file.name, file.version, command, file.build, Some(from.as_path()))
        }
        Submission::Command { name, command } => (name.clone(), None, command.clone(), None, None),
    };
    let version = match version.map(str::to_owned).or(file_version) {
        Some(version) => version,
        None => next_version(&opened.state, &name),
    };
    if !is_plain_name(&name) || !is_plain_name(&version) {
        return Err(AddError::NotPlain { name, version });
    }
    if command.is_empty() {
        return Err(AddError::EmptyCommand);
    }
    let label = label(&name, &version);
    if opened.state.number_of(&label).is_some() {
        return Err(AddError::Taken { label });
    }
    let staged = folder::stage(dir, &label, from, &command, &opened.state.league().caps())?;
    let outcome = admit(dir, &mut opened, &staged, &name, &version, build_command, checker).await;
    let _ = std::fs::remove_dir_all(dir.join(STAGING));
    outcome?;
    Ok(label)
}

/// Builds and checks the staged entrant and, if both pass, lets it join.
async fn admit(
    dir: &Path,
    opened: &mut Opened,
    staged: &Staged,
    name: &str,
    version: &str,
    build_command: Option<String>,
    checker: &Checker<'_>,
) -> Result<(), AddError> {
    let label = label(name, version);
    let hash = folder::content_hash(&staged.dir, &staged.command, build_command.as_deref())?;
    if let Some(same) = opened.state.entrants().iter().find(|entrant| entrant.hash == hash) {
        return Err(AddError::SameFiles {
            same: same.label(),
            label,
            hash,
        });
    }
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).map_err(|source| AddError::Logs {
        path: logs.clone(),
        source,
    })?;
    let league = opened.state.league();
    let sandbox = league.sandbox.is_some();
    require_sandbox(sandbox)?;
    if let Some(command) = &build_command {
        let log = logs.join(format!("build-{label}.log"));
        let policy = BuildPolicy {
            sandbox: league.sandbox.as_ref().map(|config| configured_sandbox(config, dir)),
            time_limit: Duration::from_secs(league.build_timeout_s),
            env: league.build_env.clone().into_iter().collect(),
            cpu_percent: league.build_cpu_percent,
        };
        build(&staged.dir, command, &policy, &log)
            .await
            .map_err(|source| AddError::Build {
                label: label.clone(),
                source,
            })?;
    }
    let log = logs.join(format!("check-{label}.log"));
    let line = command_line(&staged.command);
    let bot = (checker.entrant)(&line, sandbox).map_err(|source| AddError::CheckBot {
        label: label.clone(),
        source,
    })?;
    check(bot, &checker.opponent, &staged.dir, &line, &log)
        .await
        .map_err(|source| AddError::Check {
            label: label.clone(),
            source,
        })?;
    let entrant = Entrant {
        name: name.to_owned(),
        version: version.to_owned(),
        hash,
        command: staged.command.clone(),
        build: build_command,
        joined_unix_ms: unix_ms(),
    };
    folder::admit(dir, opened, &staged.dir, entrant)?;
    Ok(())
}
