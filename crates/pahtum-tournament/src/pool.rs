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
//! An immediate exit (a second Ctrl-C) kills every process of every bot,
//! idle, playing or being started, through the referee's registry
//! ([`Pool::kill_all`]): the pool keeps no process ids of its own.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use pahtum_referee::{Bot, BotSpec, Limits, StartError};
use tokio::task::JoinSet;

use crate::config::Restart;

/// Idle processes per bot, and how to start more.
#[derive(Debug)]
pub struct Pool {
    specs: HashMap<String, BotSpec>,
    limits: Limits,
    restart: Restart,
    /// Where the bots' stderr logs go (`NAME-N.log`, one per process), if anywhere.
    logs: Option<PathBuf>,
    state: Mutex<PoolState>,
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
    pub bot: Bot,
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
                Bot::start(spec, &self.limits, log.as_deref()).await?
            }
        };
        Ok(Taken { bot, restarted })
    }

    /// Returns a process after its game: kept if it is reusable (and the pool reuses processes), else ended.
    pub async fn give_back(&self, bot: Bot) {
        let name = bot.name().to_owned();
        if !bot.is_reusable() {
            *self.state().failed.entry(name).or_default() += 1;
            bot.shutdown().await;
        } else if self.restart == Restart::EveryGame {
            bot.shutdown().await;
        } else {
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
            ends.spawn(bot.shutdown());
        }
        while ends.join_next().await.is_some() {}
    }

    /// Kills every process of every bot at once, the pool's and any other
    /// (for an immediate exit): the referee's registry
    /// ([`pahtum_referee::kill_every_bot`]), which signals no process group
    /// and so can never reach a recycled id.
    pub fn kill_all(&self) {
        pahtum_referee::kill_every_bot();
    }
}
