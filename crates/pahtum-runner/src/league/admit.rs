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
use pahtum_league::state::LeagueState;
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
    /// A folder and the command run in it, as the organiser gives them (a tournament's bot with a `dir`):
    /// the whole folder is copied, as a `bot.toml`'s would be.
    Tree {
        /// The bot's name.
        name: String,
        /// Its folder.
        from: PathBuf,
        /// Its command, run in the copy of its folder.
        command: Vec<String>,
    },
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

/// How an entrant is named and where its logs go, where the caller decides.
#[derive(Debug, Clone, Copy, Default)]
pub struct Naming<'a> {
    /// The entrant's name, instead of its `bot.toml`'s (a contest names an author's bot after its author).
    pub name: Option<&'a str>,
    /// Its version, else the `bot.toml`'s, else the next [`next_version`].
    pub version: Option<&'a str>,
    /// The folder of its build's and check's logs (`build.log`, `check.log`); `None`: the league's
    /// `logs/`, as `build-LABEL.log` and `check-LABEL.log`.
    pub logs: Option<&'a Path>,
}

/// The step of an admission that has begun, for whoever shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The build command runs.
    Building,
    /// The conformance suite runs.
    Checking,
}

/// Adds `submission` to the league in `dir`, named as `naming` says: its files staged
/// ([`folder::stage`]), built when it has a build command, checked by `arena check` against `checker`'s
/// opponent, and only then joined ([`folder::admit`]); its label. The league stays open (its journal
/// locked) throughout, so that a league that plays elsewhere refuses at once. A refusal removes the
/// staged files and leaves the league unchanged (the logs stay).
pub async fn add(
    dir: &Path,
    submission: &Submission,
    naming: Naming<'_>,
    checker: &Checker<'_>,
) -> Result<String, AddError> {
    let mut opened = folder::open(dir)?;
    let prepared = prepare(dir, &opened.state, submission, naming, checker, &|_| ()).await?;
    prepared.join(&mut opened)
}

/// An entrant staged, built and checked, ready to join: [`Prepared::join`] lets it in. Dropped without
/// joining, its staged files are removed.
#[derive(Debug)]
pub struct Prepared {
    staged: Staged,
    /// The staging folder that holds it.
    staging: PathBuf,
    entrant: Entrant,
}

/// Stages `submission` in the league in `dir`, whose state is `state` (read by the caller, locked or
/// not), and builds and checks it, telling `step` as each step begins; nothing of the league changes. The
/// caller lets it join later ([`Prepared::join`]), so that a league that plays in the same process (a
/// contest) need not stop while an entrant builds.
pub async fn prepare(
    dir: &Path,
    state: &LeagueState,
    submission: &Submission,
    naming: Naming<'_>,
    checker: &Checker<'_>,
    step: &(dyn Fn(Step) + Sync),
) -> Result<Prepared, AddError> {
    let (file_name, file_version, command, build_command, from) = match submission {
        Submission::Folder(from) => {
            let file = folder::bot_file(from)?;
            let command = shlex::split(&file.command).ok_or_else(|| AddError::BadCommand { folder: from.clone() })?;
            (file.name, file.version, command, file.build, Some(from.as_path()))
        }
        Submission::Tree { name, from, command } => (name.clone(), None, command.clone(), None, Some(from.as_path())),
        Submission::Command { name, command } => (name.clone(), None, command.clone(), None, None),
    };
    let name = naming.name.map_or(file_name, str::to_owned);
    let version = match naming.version.map(str::to_owned).or(file_version) {
        Some(version) => version,
        None => next_version(state, &name),
    };
    if !is_plain_name(&name) || !is_plain_name(&version) {
        return Err(AddError::NotPlain { name, version });
    }
    if command.is_empty() {
        return Err(AddError::EmptyCommand);
    }
    let label = label(&name, &version);
    if state.number_of(&label).is_some() {
        return Err(AddError::Taken { label });
    }
    let staged = folder::stage(dir, &label, from, &command, &state.league().caps())?;
    // From here, dropping `prepared` removes the staged files.
    let mut prepared = Prepared {
        staging: dir.join(STAGING),
        entrant: Entrant {
            name,
            version,
            hash: String::new(),
            command: staged.command.clone(),
            build: build_command,
            joined_unix_ms: 0,
        },
        staged,
    };
    prepared.entrant.hash = folder::content_hash(
        &prepared.staged.dir,
        &prepared.staged.command,
        prepared.entrant.build.as_deref(),
    )?;
    prepared.unique_in(state)?;
    prepared.build_and_check(dir, state, naming.logs, checker, step).await?;
    Ok(prepared)
}

impl Prepared {
    /// `NAME@VERSION`.
    pub fn label(&self) -> String {
        self.entrant.label()
    }

    /// Refuses an entrant whose label or files are the league's already.
    fn unique_in(&self, state: &LeagueState) -> Result<(), AddError> {
        let label = self.label();
        if state.number_of(&label).is_some() {
            return Err(AddError::Taken { label });
        }
        match state
            .entrants()
            .iter()
            .find(|entrant| entrant.hash == self.entrant.hash)
        {
            Some(same) => Err(AddError::SameFiles {
                same: same.label(),
                label,
                hash: self.entrant.hash.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Builds the staged entrant, if it has a build command, and checks it.
    async fn build_and_check(
        &self,
        dir: &Path,
        state: &LeagueState,
        logs: Option<&Path>,
        checker: &Checker<'_>,
        step: &(dyn Fn(Step) + Sync),
    ) -> Result<(), AddError> {
        let label = self.label();
        let logs_dir = logs.map_or_else(|| dir.join("logs"), Path::to_owned);
        std::fs::create_dir_all(&logs_dir).map_err(|source| AddError::Logs {
            path: logs_dir.clone(),
            source,
        })?;
        let log_of = |what: &str| match logs {
            Some(_) => logs_dir.join(format!("{what}.log")),
            None => logs_dir.join(format!("{what}-{label}.log")),
        };
        let league = state.league();
        let sandbox = league.sandbox.is_some();
        require_sandbox(sandbox)?;
        if let Some(command) = &self.entrant.build {
            step(Step::Building);
            let policy = BuildPolicy {
                sandbox: league.sandbox.as_ref().map(|config| configured_sandbox(config, dir)),
                time_limit: Duration::from_secs(league.build_timeout_s),
                env: league.build_env.clone().into_iter().collect(),
                cpu_percent: league.build_cpu_percent,
            };
            build(&self.staged.dir, command, &policy, &log_of("build"))
                .await
                .map_err(|source| AddError::Build {
                    label: label.clone(),
                    source,
                })?;
        }
        step(Step::Checking);
        let line = command_line(&self.staged.command);
        let bot = (checker.entrant)(&line, sandbox).map_err(|source| AddError::CheckBot {
            label: label.clone(),
            source,
        })?;
        check(bot, &checker.opponent, &self.staged.dir, &line, &log_of("check"))
            .await
            .map(drop)
            .map_err(|source| AddError::Check { label, source })
    }

    /// Lets the entrant join the league `opened` (the one it was prepared in, as it is now: it is checked
    /// again for a label or files that joined meanwhile); its label.
    pub fn join(self, opened: &mut Opened) -> Result<String, AddError> {
        self.join_at(opened, unix_ms())
    }

    /// [`join`](Self::join), the entrant's line saying it joined at `joined_unix_ms`.
    pub fn join_at(self, opened: &mut Opened, joined_unix_ms: u64) -> Result<String, AddError> {
        self.unique_in(&opened.state)?;
        let label = self.label();
        let league = self.staging.parent().expect("the staging folder is in the league's");
        let entrant = Entrant {
            joined_unix_ms,
            ..self.entrant.clone()
        };
        folder::admit(league, opened, &self.staged.dir, entrant)?;
        Ok(label)
    }
}

impl Drop for Prepared {
    /// Removes the staged files (gone already once joined) and the staging folder once empty.
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.staged.dir);
        let _ = std::fs::remove_dir(&self.staging);
    }
}
