//! The bot pool: processes kept between games.
//!
//! Starting an interpreter costs tens of milliseconds and a bot may load a
//! model, so a greeted process is reused from game to game. Per bot, idle
//! processes wait in the pool; a game takes one process of each of its two
//! bots (starting a new one when none is idle, so a bot playing several games
//! at once has several processes) and gives them back afterwards. A process
//! that failed (a forfeit, a timeout, an unknown state) is never given back:
//! it was killed by the referee, and the bot's next game starts a new one.
//! With [`Restart::EveryGame`] every game gets fresh processes.
//!
//! The pool also keeps the process group of every live process, so that an
//! immediate exit (a second Ctrl-C) can kill them all: [`Pool::kill_all`].

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use pahtum_referee::{Bot, BotSpec, Limits, StartError};
use rustix::process::{Pid, Signal, kill_process_group};
use tokio::task::JoinSet;

use crate::config::Restart;

/// A greeted bot process on loan from the pool; its group is tracked while it lives.
#[derive(Debug)]
pub struct PooledBot {
    /// `None` only while it is being shut down.
    bot: Option<Bot>,
    groups: Groups,
}

impl PooledBot {
    pub fn bot(&mut self) -> &mut Bot {
        self.bot
            .as_mut()
            .expect("a pooled bot holds its bot until it is shut down")
    }

    async fn shutdown(mut self) {
        if let Some(bot) = self.bot.take() {
            let pid = bot.pid();
            bot.shutdown().await;
            self.groups.forget(pid);
        }
    }
}

impl Drop for PooledBot {
    /// The [`Bot`]'s own drop kills its group; forget it here so that a
    /// recycled pid is never killed later.
    fn drop(&mut self) {
        if let Some(bot) = self.bot.take() {
            let pid = bot.pid();
            drop(bot);
            self.groups.forget(pid);
        }
    }
}

/// The process groups of the live bots.
#[derive(Debug, Clone, Default)]
struct Groups(Arc<Mutex<HashSet<u32>>>);

impl Groups {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<u32>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn remember(&self, pid: u32) {
        self.lock().insert(pid);
    }

    fn forget(&self, pid: u32) {
        self.lock().remove(&pid);
    }
}

/// Idle processes per bot, and how to start more.
#[derive(Debug)]
pub struct Pool {
    specs: HashMap<String, BotSpec>,
    limits: Limits,
    restart: Restart,
    /// Where the bots' stderr logs go (`NAME-N.log`, one per process), if anywhere.
    logs: Option<PathBuf>,
    state: Mutex<PoolState>,
    groups: Groups,
}

#[derive(Debug, Default)]
struct PoolState {
    idle: HashMap<String, Vec<Bot>>,
    /// Processes started per bot, for log names.
    started: HashMap<String, usize>,
    /// Failed processes per bot not yet replaced, to report restarts.
    failed: HashMap<String, usize>,
}

/// A process taken from the pool, and whether it replaces a failed one.
#[derive(Debug)]
pub struct Taken {
    pub bot: PooledBot,
    pub restarted: bool,
}

impl Pool {
    pub fn new(specs: Vec<BotSpec>, limits: Limits, restart: Restart, logs: Option<PathBuf>) -> Pool {
        Pool {
            specs: specs.into_iter().map(|spec| (spec.name.clone(), spec)).collect(),
            limits,
            restart,
            logs,
            state: Mutex::default(),
            groups: Groups::default(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// An idle process of `name`, or a new one.
    ///
    /// # Panics
    ///
    /// If `name` is not one of the pool's bots.
    pub async fn take(&self, name: &str) -> Result<Taken, StartError> {
        let (idle, log, restarted) = {
            let mut state = self.state();
            let idle = state.idle.get_mut(name).and_then(Vec::pop);
            let restarted = idle.is_none() && state.failed.get(name).is_some_and(|&n| n > 0);
            if restarted {
                *state.failed.entry(name.to_owned()).or_default() -= 1;
            }
            let log = match (&idle, &self.logs) {
                (None, Some(logs)) => {
                    let n = state.started.entry(name.to_owned()).or_default();
                    *n += 1;
                    Some(logs.join(format!("{name}-{n}.log")))
                }
                _ => None,
            };
            (idle, log, restarted)
        };
        let bot = match idle {
            Some(bot) => bot,
            None => {
                let spec = self
                    .specs
                    .get(name)
                    .unwrap_or_else(|| panic!("bot {name} is not in the pool"));
                let bot = Bot::start(spec, &self.limits, log.as_deref()).await?;
                self.groups.remember(bot.pid());
                bot
            }
        };
        Ok(Taken {
            bot: PooledBot {
                bot: Some(bot),
                groups: self.groups.clone(),
            },
            restarted,
        })
    }

    /// Returns a process after its game: kept if it is reusable (and the pool reuses processes), else ended.
    pub async fn give_back(&self, mut pooled: PooledBot) {
        let bot = pooled.bot();
        let name = bot.name().to_owned();
        if !bot.is_reusable() {
            *self.state().failed.entry(name).or_default() += 1;
            pooled.shutdown().await;
        } else if self.restart == Restart::EveryGame {
            pooled.shutdown().await;
        } else {
            // Still live: its group stays remembered while it idles.
            let bot = pooled.bot.take().expect("the bot is held until given back");
            self.state().idle.entry(name).or_default().push(bot);
        }
    }

    /// Starts one process of each of `names` at once and keeps them idle: a
    /// bot that cannot start or greet is found before the first game.
    pub async fn warm_up(self: &Arc<Self>, names: &[String]) -> Result<(), Vec<StartError>> {
        let mut starts = JoinSet::new();
        for name in names {
            let pool = Arc::clone(self);
            let name = name.clone();
            starts.spawn(async move {
                let taken = pool.take(&name).await?;
                pool.give_back(taken.bot).await;
                Ok(())
            });
        }
        let mut errors = Vec::new();
        while let Some(joined) = starts.join_next().await {
            if let Err(error) = joined.expect("a bot start does not panic") {
                errors.push(error);
            }
        }
        if errors.is_empty() { Ok(()) } else { Err(errors) }
    }

    /// Ends every idle process politely (`quit`, then signals), all at once.
    pub async fn shutdown(&self) {
        let idle: Vec<Bot> = self.state().idle.drain().flat_map(|(_, bots)| bots).collect();
        let mut ends = JoinSet::new();
        for bot in idle {
            let groups = self.groups.clone();
            ends.spawn(async move {
                let pid = bot.pid();
                bot.shutdown().await;
                groups.forget(pid);
            });
        }
        while ends.join_next().await.is_some() {}
    }

    /// Kills the process group of every live bot at once (for an immediate exit).
    pub fn kill_all(&self) {
        for &pid in self.groups.lock().iter() {
            if let Some(group) = Pid::from_raw(pid as i32) {
                // The group may be gone already; nothing else to do then.
                let _ = kill_process_group(group, Signal::KILL);
            }
        }
    }
}
