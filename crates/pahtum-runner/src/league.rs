//! A league's processes: an entrant's build and check before it joins, and
//! the games of a round played by the [`runner`](crate::runner).
//!
//! [`build`] runs an entrant's build command in its snapshot folder, under a
//! time limit, its output kept in a log; when the league asks for the sandbox,
//! inside bubblewrap with no network, the system read-only and only the
//! snapshot writable. [`check`] runs `arena check` on the built entrant (the
//! conformance test every bot author runs, the same code, not a second one),
//! its report kept in a log. [`Round`] is a league round's pending games as
//! the runner's [`Work`]: each record goes into the league's journal with its
//! entrants' content hashes.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use pahtum_record::{GameRecord, GameSpec};
use pahtum_tournament::config::{Launch, LimitOverrides, OnOverload, Restart, RunSettings, TournamentFile};
use pahtum_tournament::durability::Durability;
use pahtum_tournament::journal::{Journal, JournalError, Span};
use pahtum_tournament::league::{GameLine, LayoutPair, LeagueState, PendingGame};
use pahtum_tournament::schedule::ScheduledGame;

use crate::runner::Work;

/// Why an entrant may not join.
#[derive(Debug, thiserror::Error)]
pub enum AdmitError {
    /// A program could not be started.
    #[error("cannot start {what}")]
    Start {
        /// What was started.
        what: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The build failed or took too long.
    #[error("the build `{command}` {outcome}; its output is in {}", log.display())]
    Build {
        /// The build command.
        command: String,
        /// What happened, in words.
        outcome: String,
        /// The build's log.
        log: PathBuf,
    },
    /// `arena check` found the entrant does not speak the protocol.
    #[error("`arena check` failed ({outcome}); its report is in {}", log.display())]
    Check {
        /// What happened, in words.
        outcome: String,
        /// The check's report.
        log: PathBuf,
    },
}

/// Runs `command` (a shell command line) in `dir`, at most `timeout`, its output into `log`; inside the
/// sandbox (bubblewrap: no network, the system read-only, only `dir` writable) when `sandbox`.
pub async fn build(dir: &Path, command: &str, timeout: Duration, sandbox: bool, log: &Path) -> Result<(), AdmitError> {
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    let words: Vec<String> = if sandbox {
        let dir = dir.display().to_string();
        [
            "bwrap",
            "--unshare-all",
            "--die-with-parent",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",
            "--bind",
            &dir,
            &dir,
            "--chdir",
            &dir,
            "sh",
            "-c",
            command,
        ]
        .map(str::to_owned)
        .to_vec()
    } else {
        ["sh", "-c", command].map(str::to_owned).to_vec()
    };
    let outcome = run_logged(&words, &dir, timeout, log, "the build").await?;
    outcome.map_err(|outcome| AdmitError::Build {
        command: command.to_owned(),
        outcome,
        log: log.to_owned(),
    })
}

/// Runs `arena check` (the executable `arena`) on `command` in `dir`, in the sandbox when `sandbox`, its
/// report into `log`.
pub async fn check(arena: &Path, dir: &Path, command: &[String], sandbox: bool, log: &Path) -> Result<(), AdmitError> {
    let line = shlex::try_join(command.iter().map(String::as_str)).unwrap_or_else(|_| command.join(" "));
    let mut words = vec![arena.display().to_string(), "check".to_owned(), line];
    if sandbox {
        words.push("--sandbox".to_owned());
    }
    // The check's games have their own limits; this only stops a check that hangs.
    let outcome = run_logged(&words, dir, Duration::from_secs(600), log, "arena check").await?;
    outcome.map_err(|outcome| AdmitError::Check {
        outcome,
        log: log.to_owned(),
    })
}

/// Runs `words` in `dir` in a process group of its own, stdout and stderr into `log`, killed (the whole
/// group) after `timeout`: `Ok(Err(what happened))` when it did not exit with 0.
async fn run_logged(
    words: &[String],
    dir: &Path,
    timeout: Duration,
    log: &Path,
    what: &str,
) -> Result<Result<(), String>, AdmitError> {
    let start = |source| AdmitError::Start {
        what: what.to_owned(),
        source,
    };
    let file = std::fs::File::create(log).map_err(start)?;
    let mut child = tokio::process::Command::new(&words[0])
        .args(&words[1..])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(file.try_clone().map_err(start)?)
        .stderr(file)
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(start)?;
    let status = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(status) => status.map_err(start)?,
        Err(_) => {
            // The whole group: a build's compilers and test runs are the shell's children.
            if let Some(pid) = child.id().and_then(|pid| rustix::process::Pid::from_raw(pid as i32)) {
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
            }
            let _ = child.wait().await;
            return Ok(Err(format!("took longer than {} s and was stopped", timeout.as_secs())));
        }
    };
    Ok(if status.success() {
        Ok(())
    } else {
        Err(match status.code() {
            Some(code) => format!("exited with {code}"),
            None => "was killed by a signal".to_owned(),
        })
    })
}

/// A league as a tournament file of its active entrants, for the runner's launcher: its folder is `dir`
/// (the entrants' snapshots are in it), its games `concurrency` at once; an entrant whose command's first
/// word is one of `builtins` is that built-in bot.
pub fn tournament_file(state: &LeagueState, dir: &Path, concurrency: usize, builtins: &[&str]) -> TournamentFile {
    let mut tournament = state.tournament();
    for bot in &mut tournament.bots {
        if let Launch::Command(words) = &bot.launch {
            if builtins.contains(&words[0].as_str()) {
                bot.launch = Launch::Builtin(words.join(" "));
            }
        }
    }
    let active: Vec<String> = (0..state.entrants().len())
        .filter(|&number| !state.is_retired(number))
        .map(|number| state.entrants()[number].label())
        .collect();
    tournament.bots.retain(|bot| active.contains(&bot.name));
    TournamentFile {
        path: dir.join(pahtum_tournament::league::LEAGUE_FILE),
        base_dir: dir.to_owned(),
        tournament,
        settings: RunSettings {
            concurrency,
            out: dir.join("logs"),
            restart: Restart::OnFailure,
            limits: LimitOverrides::default(),
            on_overload: OnOverload::Count,
            affinity: None,
            durability: Durability::default(),
        },
    }
}

/// The pending games of a league's round, as the runner's [`Work`].
#[derive(Debug)]
pub struct Round<'a> {
    state: &'a LeagueState,
    games: Vec<PendingGame>,
}

impl<'a> Round<'a> {
    /// The games `games` of the league `state`.
    pub fn new(state: &'a LeagueState, games: Vec<PendingGame>) -> Round<'a> {
        Round { state, games }
    }

    /// The entrants that play the games, by label, sorted.
    pub fn players(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .games
            .iter()
            .flat_map(|game| [game.pair.0, game.pair.1])
            .map(|number| self.state.entrants()[number as usize].label())
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

impl Work for Round<'_> {
    fn name(&self) -> &str {
        &self.state.league().name
    }

    fn total(&self) -> usize {
        self.state.games() + self.games.len()
    }

    fn done(&self) -> usize {
        self.state.games()
    }

    fn to_play(&self) -> impl Iterator<Item = (ScheduledGame, GameSpec)> + '_ {
        self.games.iter().map(|pending| {
            let game = self.state.game(pending.pair, pending.seat);
            let spec = self.state.spec(&game);
            (game, spec)
        })
    }

    fn append(&self, journal: &mut Journal, record: &GameRecord) -> Result<Span, JournalError> {
        let (pair, seat) = LayoutPair::of_id(&record.id).expect("a game of the round");
        let hashes = self.state.hashes_of(&self.state.game(pair, seat));
        journal.append_line(&GameLine {
            record,
            entrants: hashes,
        })
    }
}
