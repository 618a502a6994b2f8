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
//! With core pinning ([`Pool::pinned`]) each running game holds a slot
//! ([`Pool::slot`]), and slot `i` runs its bots on the `i`-th core: its
//! processes are started there and kept idle per slot, so that a process
//! pinned to one core is never handed to a game on another.
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
    /// How often a game lost on time under overload is played again.
    pub(crate) overload_replays: u32,
    /// With pinning, the core of each slot.
    cores: Option<Vec<usize>>,
    state: Mutex<PoolState>,
}

#[derive(Debug, Default)]
struct PoolState {
    /// Per bot and slot (`None` without pinning).
    idle: HashMap<(String, Option<usize>), Vec<Bot>>,
    /// The slots no game holds, with pinning.
    free_slots: Vec<usize>,
    /// Processes started per bot, for log names.
    started: HashMap<String, usize>,
    /// Failed processes per bot not yet replaced, to report restarts.
    failed: HashMap<String, usize>,
}

/// A game's place in the pool (see [`Pool::slot`]); dropping it frees it.
#[derive(Debug)]
pub struct Slot<'a> {
    pool: &'a Pool,
    /// With pinning, the slot's index (its core is the pool's `cores[index]`).
    index: Option<usize>,
    /// Taken from the free slots (a game's), not only named (a warm-up's).
    claimed: bool,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        if let Some(index) = self.index.filter(|_| self.claimed) {
            self.pool.state().free_slots.push(index);
        }
    }
}

/// A process taken from the pool, and whether it replaces a failed one.
#[derive(Debug)]
pub struct Taken {
    /// The greeted bot process, ready for its next game.
    pub bot: Bot,
    /// Whether it was started in place of a process that failed.
    pub restarted: bool,
}

impl Pool {
    /// A pool of no processes yet for the bots of `specs` (started on demand),
    /// with the stderr logs in the folder `logs` (`NAME-N.log`), if given.
    pub fn new(specs: Vec<BotSpec>, limits: Limits, restart: Restart, logs: Option<PathBuf>) -> Pool {
        Pool {
            specs: specs.into_iter().map(|spec| (spec.name.clone(), spec)).collect(),
            limits,
            restart,
            logs,
            overload_replays: 0,
            cores: None,
            state: Mutex::default(),
        }
    }

    /// A pool whose game slot `i` runs its bots on `cores[i]` only: at most
    /// `cores.len()` games may run at once.
    pub fn pinned(mut self, cores: Vec<usize>) -> Pool {
        self.state().free_slots = (0..cores.len()).rev().collect();
        self.cores = Some(cores);
        self
    }

    /// A slot for one game, held until dropped: with pinning, the one whose
    /// core the game's bots run on.
    ///
    /// # Panics
    ///
    /// With pinning, if more games run at once than there are cores (the
    /// runner runs at most its concurrency, which the caller checked).
    pub fn slot(&self) -> Slot<'_> {
        let index = self.cores.as_ref().map(|_| {
            self.state()
                .free_slots
                .pop()
                .expect("no more games at once than pinned cores")
        });
        Slot {
            pool: self,
            index,
            claimed: true,
        }
    }

    /// A pool whose games lost on time under overload are played again, up
    /// to `replays` times each ([`crate::config::OnOverload::Replay`]).
    pub fn replaying_overloads(mut self, replays: u32) -> Pool {
        self.overload_replays = replays;
        self
    }

    fn state(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// An idle process of `name` for a game in `slot`, or a new one.
    ///
    /// # Panics
    ///
    /// If `name` is not one of the pool's bots.
    pub async fn take(&self, name: &str, slot: &Slot<'_>) -> Result<Taken, StartError> {
        let (idle, log, restarted) = {
            let mut state = self.state();
            let idle = state.idle.get_mut(&(name.to_owned(), slot.index)).and_then(Vec::pop);
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
                let core = slot.index.zip(self.cores.as_ref()).map(|(index, cores)| cores[index]);
                Bot::start_on(spec, &self.limits, log.as_deref(), core).await?
            }
        };
        Ok(Taken { bot, restarted })
    }

    /// Returns a process after its game in `slot`: kept if it is reusable (and the pool reuses
    /// processes), else ended.
    pub async fn give_back(&self, bot: Bot, slot: &Slot<'_>) {
        let name = bot.name().to_owned();
        if !bot.is_reusable() {
            *self.state().failed.entry(name).or_default() += 1;
            bot.shutdown().await;
        } else if self.restart == Restart::EveryGame {
            bot.shutdown().await;
        } else {
            self.state().idle.entry((name, slot.index)).or_default().push(bot);
        }
    }

    /// Starts one process of each of `names` at once and keeps them idle: a
    /// bot that cannot start or greet is found before the first game.
    pub async fn warm_up(self: &Arc<Self>, names: &[String]) -> Result<(), Vec<StartError>> {
        let mut starts = JoinSet::new();
        for (n, name) in names.iter().enumerate() {
            let pool = Arc::clone(self);
            let name = name.clone();
            starts.spawn(async move {
                // The warm processes are spread over the slots, for their first games.
                let slot = Slot {
                    pool: &pool,
                    index: pool.cores.as_ref().map(|cores| n % cores.len()),
                    claimed: false,
                };
                let taken = pool.take(&name, &slot).await?;
                pool.give_back(taken.bot, &slot).await;
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
