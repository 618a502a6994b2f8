//! A greeted bot: its process, the handshake, and one request-answer
//! exchange at a time.
//!
//! Every exchange follows the same steps: check that the bot printed nothing
//! unasked, write the request (with a deadline), await the answer line (or the
//! bot's exit, or the deadline), measure the time from the start of the write
//! to the read that brought the answer's newline on a monotonic clock (see
//! `clock` for why these two instants), decode the line and check its id. Any
//! failure makes the bot unusable: it is killed with its process group at
//! once, and [`Bot::is_reusable`] tells the caller to start a new one.

use crate::stderr_log::LogFiles;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pahtum_protocol::bot::Identity;
use pahtum_protocol::{ClockKind, FromBot, NewGame, PROTOCOL_VERSION, Reason, ToBot};
use tokio::time::Instant;

use crate::clock::Budget;
use crate::decode::decode;
use crate::process::{BotProcess, Silence};
use crate::verdict::{Asked, Failure};
use crate::{BotSpec, Limits};
use pahtum_supervise::{overload, sandbox_hint};

/// A running, greeted bot process, in its own process group. Dropping it
/// kills the group; [`Bot::shutdown`] ends it politely.
#[derive(Debug)]
pub struct Bot {
    name: String,
    identity: Identity,
    limits: Limits,
    process: BotProcess,
    next_id: u64,
    reusable: bool,
    /// Whether this process has answered any request (then a silence is not
    /// a missing flush).
    answered: bool,
    /// The request being sent, reused from request to request.
    line: Vec<u8>,
    /// The last answer line as the bot wrote it (the offending line of a
    /// verdict on its content), reused from answer to answer.
    answer: Vec<u8>,
}

/// Why a bot could not be started.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The file for the bot's stderr log could not be opened.
    #[error("cannot open {path} for the stderr log of bot {bot:?}")]
    Log {
        /// The bot's name.
        bot: String,
        /// The log file that could not be opened.
        path: PathBuf,
        /// Why the file could not be opened.
        #[source]
        source: io::Error,
    },
    /// The process could not be spawned (no such program, not executable, ...).
    #[error("cannot start bot {bot:?} with `{command}`: check the program's path and that it is executable")]
    Spawn {
        /// The bot's name.
        bot: String,
        /// The bot's command line, as shown to the user.
        command: String,
        /// Why the spawn failed.
        #[source]
        source: io::Error,
    },
    /// bubblewrap could not build the bot's sandbox (a namespace, a mount, its
    /// user mapping): the machine's failure, not the bot's. Told by a line
    /// of bubblewrap's own on the bot's stderr, before the bot wrote a line.
    /// (A bot could print such a line itself and exit before its greeting;
    /// that gains it nothing: it plays no game, and the run stops naming it.)
    #[error("the sandbox of bot {bot:?} could not be built: bubblewrap said {said:?}")]
    Sandbox {
        /// The bot's name.
        bot: String,
        /// bubblewrap's words, escaped.
        said: String,
    },
    /// The bot started but did not answer `hello` correctly within its startup time.
    #[error("bot {bot:?} failed its greeting: {failure}")]
    Handshake {
        /// The bot's name.
        bot: String,
        /// How the greeting failed.
        failure: Failure,
        /// The last lines of the bot's stderr.
        stderr_tail: Vec<String>,
        /// For a sandboxed bot: what the sandbox may have to do with it (a
        /// file or a program it does not show, a folder closed to its user),
        /// and which folders the bot sees, for the bot's author.
        sandbox_hint: Option<String>,
    },
}

impl StartError {
    /// The name of the bot that could not start.
    pub fn bot(&self) -> &str {
        match self {
            StartError::Log { bot, .. }
            | StartError::Spawn { bot, .. }
            | StartError::Handshake { bot, .. }
            | StartError::Sandbox { bot, .. } => bot,
        }
    }

    /// Whether the arena, not the bot, failed: the sandbox could not be
    /// built. Such a start is retried, and never a forfeit of the bot.
    pub fn is_the_arenas(&self) -> bool {
        matches!(self, StartError::Sandbox { .. })
    }
}

/// A decoded answer and what it cost.
#[derive(Debug)]
pub(crate) struct Answer {
    pub message: FromBot,
    /// From the request written to the answer's newline read.
    pub elapsed: Duration,
    /// The bot's CPU time over the same span, where measured: on the game
    /// clock only (not for the greeting, `ready` or `pong`).
    pub cpu: Option<Duration>,
    /// What the answer costs on its clock: `elapsed` on a wall clock, `cpu`
    /// on a CPU-time clock.
    pub cost: Duration,
}

impl Bot {
    /// Launches the bot and greets it: it must answer `hello` with the
    /// protocol's version within [`Limits::startup`]. Its stderr goes to
    /// `stderr_log` (appended, capped per game) if given.
    pub async fn start(spec: &BotSpec, limits: &Limits, stderr_log: Option<&Path>) -> Result<Bot, StartError> {
        Bot::start_on(spec, limits, stderr_log, None).await
    }

    /// As [`Bot::start`], with the bot and everything it starts pinned to
    /// `core` if given ([`crate::affinity`]).
    pub async fn start_on(
        spec: &BotSpec,
        limits: &Limits,
        stderr_log: Option<&Path>,
        core: Option<usize>,
    ) -> Result<Bot, StartError> {
        let log = match stderr_log {
            Some(path) => Some(LogFiles::open(path).map_err(|source| StartError::Log {
                bot: spec.name.clone(),
                path: path.to_owned(),
                source,
            })?),
            None => None,
        };
        let process = BotProcess::spawn(spec, log, limits.stderr_cap, core)
            .await
            .map_err(|source| StartError::Spawn {
                bot: spec.name.clone(),
                command: spec.command_line(),
                source,
            })?;
        let mut bot = Bot {
            name: spec.name.clone(),
            identity: Identity {
                name: String::new(),
                version: None,
                author: None,
            },
            limits: *limits,
            process,
            next_id: 1,
            reusable: true,
            answered: false,
            line: Vec::with_capacity(2048),
            answer: Vec::with_capacity(256),
        };
        match bot.greet().await {
            Ok(identity) => {
                bot.identity = identity;
                Ok(bot)
            }
            Err(failure) => {
                let stderr_tail = bot.fail().await;
                if let Some(said) = sandbox_not_built(spec, &failure, &stderr_tail) {
                    return Err(StartError::Sandbox {
                        bot: spec.name.clone(),
                        said,
                    });
                }
                Err(StartError::Handshake {
                    bot: spec.name.clone(),
                    sandbox_hint: spec
                        .sandbox
                        .as_ref()
                        .map(|sandbox| sandbox_hint::failed_start(&spec.command(), sandbox, &stderr_tail)),
                    failure,
                    stderr_tail,
                })
            }
        }
    }

    async fn greet(&mut self) -> Result<Identity, Failure> {
        self.encode(&ToBot::Hello {
            protocol: PROTOCOL_VERSION,
            referee: concat!("pahtum-arena ", env!("CARGO_PKG_VERSION")).to_owned(),
        });
        let asked = Asked {
            kind: "hello",
            id: None,
        };
        let answer = self
            .exchange(asked, Budget::wall(self.limits.startup), Reason::Stall)
            .await?;
        match answer.message {
            FromBot::Hello {
                protocol: PROTOCOL_VERSION,
                name,
                version,
                author,
            } => Ok(Identity { name, version, author }.capped()),
            FromBot::Hello { protocol, .. } => Err(Failure::new(
                Reason::ProtocolError,
                format!("the bot speaks protocol version {protocol}; this referee speaks version {PROTOCOL_VERSION}"),
            )),
            other => Err(wrong_kind(asked, &other).with_line(&self.answer)),
        }
    }

    /// The name from the spec (the name in records and tables).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the bot said about itself in its greeting.
    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// The bot's process id (also its process group id).
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// False after a forfeit, a timeout or any unknown state: the bot has
    /// been killed and must be started anew before its next game.
    pub fn is_reusable(&self) -> bool {
        self.reusable
    }

    /// A liveness check off the clock: `pong` within [`Limits::ping`]. Returns
    /// the round trip. A failure is a stall (or a disconnect, or a protocol
    /// error) and leaves the bot killed.
    pub async fn ping(&mut self) -> Result<Duration, Failure> {
        let id = self.next_id();
        self.encode(&ToBot::Ping { id });
        let asked = Asked {
            kind: "ping",
            id: Some(id),
        };
        let result = match self
            .exchange(asked, Budget::wall(self.limits.ping), Reason::Stall)
            .await
        {
            Ok(Answer {
                message: FromBot::Pong { .. },
                elapsed,
                ..
            }) => Ok(elapsed),
            Ok(answer) => Err(wrong_kind(asked, &answer.message).with_line(&self.answer)),
            Err(failure) => Err(failure),
        };
        if result.is_err() {
            self.fail().await;
        }
        result
    }

    /// Ends the bot: `quit`, [`Limits::quit_grace`], SIGTERM to its group, the
    /// grace again, SIGKILL; the process is always reaped. A bot in an unknown
    /// state is killed at once.
    pub async fn shutdown(mut self) {
        if self.reusable {
            self.encode(&ToBot::Quit);
            let quit = std::mem::take(&mut self.line);
            self.process.shutdown(&quit, self.limits.quit_grace).await;
        } else {
            self.process.kill().await;
        }
    }

    /// Starts a game for this bot: `new_game`, then `ready` within
    /// [`Limits::ready`].
    pub(crate) async fn new_game(&mut self, mut new_game: NewGame) -> Result<(), Failure> {
        self.process.stderr.begin_game(&new_game.game);
        new_game.id = self.next_id();
        let asked = Asked {
            kind: "new_game",
            id: Some(new_game.id),
        };
        self.encode(&ToBot::NewGame(new_game));
        let answer = self
            .exchange(asked, Budget::wall(self.limits.ready), Reason::Stall)
            .await?;
        match answer.message {
            FromBot::Ready { .. } => Ok(()),
            other => Err(wrong_kind(asked, &other).with_line(&self.answer)),
        }
    }

    /// Tells the bot something that needs no answer (`game_over`); a bot
    /// that cannot take it is left unusable.
    pub(crate) async fn tell(&mut self, message: &ToBot) {
        if !self.reusable {
            return;
        }
        self.encode(message);
        if self.process.unsolicited().is_some()
            || self
                .process
                .send(&self.line, Instant::now() + self.limits.ping)
                .await
                .is_err()
        {
            self.fail().await;
        }
    }

    /// Tells the stderr log where in the game the bot now is.
    pub(crate) fn stderr_at(&self, when: crate::stderr_log::When) {
        self.process.stderr.at(when);
    }

    /// A fresh request id.
    pub(crate) fn next_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// The line to send next, for a caller that writes it itself.
    pub(crate) fn line_mut(&mut self) -> &mut Vec<u8> {
        &mut self.line
    }

    /// Encodes `message` as the line to send next.
    pub(crate) fn encode(&mut self, message: &ToBot) {
        self.line.clear();
        serde_json::to_writer(&mut self.line, message).expect("protocol messages always serialize");
        self.line.push(b'\n');
    }

    /// Sends the encoded line and awaits the answer to `asked` within
    /// `budget`; silence is a failure for `silence` (timeout or stall).
    pub(crate) async fn exchange(&mut self, asked: Asked, budget: Budget, silence: Reason) -> Result<Answer, Failure> {
        // A bot may greet before it is greeted: only later output can be unasked.
        if asked.id.is_some() {
            self.check_nothing_unasked(format_args!("seen before {asked} was sent"))?;
        }
        // Only an answer on the game clock needs the bot's CPU time (for its
        // record, a CPU-time clock and the overload judgement of a timeout):
        // the greeting, `ready` and `pong` are off the clock, and each reading
        // is a system call.
        let cpu_before = match silence {
            Reason::Timeout => self.process.cpu_time(),
            _ => None,
        };
        // Where the system cannot tell the CPU time (not Linux), a CPU-time clock counts wall time.
        let budget = match cpu_before {
            Some(_) => budget,
            None => Budget::wall(budget.limit),
        };
        // The clock starts as the write starts: a bot woken by the write may
        // run (on this core) before the write call returns, and a bot that
        // does not read its stdin is charged for the wait.
        let sent = Instant::now();
        let wall_deadline = sent + budget.wall_cap();
        self.process.send(&self.line, wall_deadline).await?;
        let cpu_since = |process: &BotProcess| {
            let before = cpu_before?;
            Some(process.cpu_time()?.saturating_sub(before))
        };
        // On a CPU-time clock, the CPU time used at the last look (none before the first).
        let mut used = Duration::ZERO;
        let (line, read_at) = loop {
            let poll_at = match budget.kind {
                ClockKind::Wall => wall_deadline,
                ClockKind::Cpu => {
                    wall_deadline.min(Instant::now() + cpu_poll_interval(budget.limit.saturating_sub(used)))
                }
            };
            match self.process.receive(poll_at, &asked).await {
                Ok(answer) => break answer,
                Err(Silence::Failed(failure)) => return Err(failure),
                Err(Silence::Deadline) if poll_at < wall_deadline => {
                    used = cpu_since(&self.process).unwrap_or_default();
                    if used > budget.limit {
                        return Err(Failure::cpu_spent(&asked, used, budget.limit));
                    }
                }
                Err(Silence::Deadline) => {
                    let used = cpu_since(&self.process);
                    return Err(match budget.kind {
                        ClockKind::Cpu => Failure::wall_cap(&asked, used, budget.wall_cap()),
                        ClockKind::Wall => {
                            let failure = Failure::silent(silence, &asked, budget.limit, self.answered);
                            let evidence = overload::Evidence {
                                cpu: used,
                                wall: Instant::now().saturating_duration_since(sent),
                                silent_pid: Some(self.process.pid()),
                            };
                            judged(failure, silence, evidence)
                        }
                    });
                }
            }
        };
        self.answered = true;
        self.answer.clear();
        self.answer.extend_from_slice(line);
        let elapsed = read_at.saturating_duration_since(sent);
        let cpu = cpu_since(&self.process);
        // What the bot wrote to stderr before it answered belongs to this request (off the clock).
        self.process.stderr.catch_up();
        let cost = match budget.kind {
            ClockKind::Wall => elapsed,
            ClockKind::Cpu => cpu.unwrap_or(elapsed), // measured before, so measured now
        };
        if cost > budget.limit {
            let failure = match budget.kind {
                ClockKind::Wall => {
                    let failure = Failure::late(silence, &asked, elapsed, budget.limit);
                    let evidence = overload::Evidence {
                        cpu,
                        wall: elapsed,
                        silent_pid: None,
                    };
                    judged(failure, silence, evidence)
                }
                ClockKind::Cpu => Failure::cpu_spent(&asked, cost, budget.limit),
            };
            return Err(failure.with_line(&self.answer));
        }
        let message = decode(&self.answer)?;
        if message.id() != asked.id {
            return Err(wrong_id(asked, &message).with_line(&self.answer));
        }
        Ok(Answer {
            message,
            elapsed,
            cpu,
            cost,
        })
    }

    /// A protocol error if the bot printed a line that answers no request
    /// (`when` says when it was seen); reads without waiting.
    pub(crate) fn check_nothing_unasked(&mut self, when: std::fmt::Arguments) -> Result<(), Failure> {
        match self.process.unsolicited() {
            None => Ok(()),
            Some(output) => Err(Failure::new(
                Reason::ProtocolError,
                format!(
                    "printed output that answers no request ({when}); \
                     print exactly one line per request on stdout, and debug output on stderr"
                ),
            )
            .with_line(&output)),
        }
    }

    /// The last answer line, as the bot wrote it.
    pub(crate) fn last_answer(&self) -> &[u8] {
        &self.answer
    }

    /// Kills the bot after a failure; returns the tail of its stderr.
    pub(crate) async fn fail(&mut self) -> Vec<String> {
        self.reusable = false;
        self.process.kill().await;
        self.process.stderr.tail()
    }

    /// Fair mode: stops the bot until [`resume`](Self::resume).
    pub(crate) fn pause(&mut self) {
        if self.reusable {
            self.process.pause();
        }
    }

    pub(crate) fn resume(&mut self) {
        self.process.resume();
    }
}

/// How long to wait before looking at a CPU-time clock again, when `left`
/// of CPU time remains: a bot that runs all the time reaches its limit no
/// sooner than that (one with several threads may overshoot until the next
/// look, which comes at most [`CPU_POLL_MAX`] later); at least
/// [`CPU_POLL_MIN`], so that the referee never spins.
fn cpu_poll_interval(left: Duration) -> Duration {
    left.clamp(CPU_POLL_MIN, CPU_POLL_MAX)
}

const CPU_POLL_MIN: Duration = Duration::from_millis(1);
const CPU_POLL_MAX: Duration = Duration::from_millis(100);

/// `failure` (a wall-clock timeout), marked as under overload when the
/// evidence says so; only timeouts on the game clock are judged.
fn judged(failure: Failure, silence: Reason, evidence: overload::Evidence) -> Failure {
    match overload::judge(evidence) {
        Some(why) if silence == Reason::Timeout => failure.under_overload(&why),
        _ => failure,
    }
}

/// An answer with the wrong id; the caller adds the line.
fn wrong_id(asked: Asked, message: &FromBot) -> Failure {
    let detail = match (message.id(), asked.id) {
        (Some(id), Some(expected)) if id < expected => format!(
            "answered {asked} with id {id}, the id of an earlier request (a late or repeated answer); \
             answer each request once, with its id"
        ),
        (Some(id), Some(_)) => format!("answered {asked} with id {id}; copy the request's id into its answer"),
        (None, _) => format!("answered {asked} with a {} message", message.kind()),
        (Some(id), None) => format!("answered {asked} with a {} message (id {id})", message.kind()),
    };
    Failure::new(Reason::ProtocolError, detail)
}

/// An answer of the wrong kind; the caller adds the line.
pub(crate) fn wrong_kind(asked: Asked, message: &FromBot) -> Failure {
    Failure::new(
        Reason::ProtocolError,
        format!("answered {asked} with a {} message", message.kind()),
    )
}

/// bubblewrap's words when it could not build `spec`'s sandbox: a failed
/// greeting with no line from the bot, and a line of bubblewrap's own on its
/// stderr, other than about the bot's own program or folders (a program it
/// could not run, a folder it could not show or enter: the bot's setup,
/// told by the sandbox hint).
fn sandbox_not_built(spec: &BotSpec, failure: &Failure, stderr_tail: &[String]) -> Option<String> {
    if spec.sandbox.is_none() || failure.line.is_some() {
        return None;
    }
    sandbox_hint::sandbox_not_built(stderr_tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_checked_with_a_reason() {
        let asked = Asked {
            kind: "play_stone",
            id: Some(5),
        };
        assert!(
            wrong_id(asked, &FromBot::Pong { id: 4 })
                .detail
                .contains("earlier request")
        );
        assert!(
            wrong_id(asked, &FromBot::Pong { id: 6 })
                .detail
                .contains("copy the request's id")
        );
    }

    /// bubblewrap's failure to build a sandbox is the arena's; a program or
    /// a folder of the bot's that it could not use, or a line of the bot's
    /// own, is the bot's.
    #[test]
    fn a_sandbox_not_built_is_told_from_the_bots_own_failures() {
        let spec = BotSpec {
            sandbox: Some(crate::Sandbox::default()),
            ..BotSpec::from_command("b", "python3 bot.py").unwrap()
        };
        let closed = Failure::new(Reason::Disconnect, "closed its stdout");
        let said = |line: &str| vec!["something first".to_owned(), line.to_owned()];
        let arenas = sandbox_not_built(
            &spec,
            &closed,
            &said("bwrap: Creating new namespace failed: No space left"),
        );
        assert_eq!(arenas.as_deref(), Some("Creating new namespace failed: No space left"));
        for own in [
            "bwrap: execvp python3: No such file or directory",
            "bwrap: Can't find source path /x: Permission denied",
            "bwrap: Can't chdir to /x: Permission denied",
            "Traceback (most recent call last):",
        ] {
            assert_eq!(sandbox_not_built(&spec, &closed, &said(own)), None, "{own}");
        }
        let answered = Failure {
            line: Some("{}".to_owned()),
            ..closed.clone()
        };
        assert_eq!(
            sandbox_not_built(&spec, &answered, &said("bwrap: Creating new namespace failed")),
            None
        );
        let unsandboxed = BotSpec { sandbox: None, ..spec };
        assert_eq!(
            sandbox_not_built(&unsandboxed, &closed, &said("bwrap: Creating new namespace failed")),
            None
        );
    }
}
