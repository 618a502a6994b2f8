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
//! ([`Pool::placed`]), and slot `i` runs its bots on the `i`-th core: its
//! processes are started there and kept idle per slot, so that a process
//! pinned to one core is never handed to a game on another. The slot's
//! games are driven there too: each slot has a lane, a thread pinned to its
//! core with a single-threaded runtime, which starts the slot's bots, plays
//! its games and ends its processes. So a request and its answer never cross
//! cores (a pipe round trip between two cores costs ten times one on a single
//! core), and N games at once on N cores do not wait for each other.
//!
//! An immediate exit (a second Ctrl-C) kills every process of every bot,
//! idle, playing or being started, through the referee's registry
//! (`pahtum_referee::kill_every_bot`): the pool keeps no process ids of its own.

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use pahtum_referee::{Bot, BotSpec, Limits, StartError};
use tokio::runtime::Handle;
use tokio::sync::oneshot;
use tokio::task::{JoinHandle, JoinSet};

use pahtum_tournament::config::Restart;

use crate::live::Live;

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
    /// Where the games in progress are shown as they are played, if anywhere.
    pub(crate) live: Option<Arc<Live>>,
    state: Mutex<PoolState>,
    /// With pinning, each slot's lane (after `state`, so that idle processes
    /// are dropped while their lanes still run).
    lanes: Vec<Lane>,
}

/// A thread pinned to one slot's core, running a single-threaded runtime
/// that drives the slot's bots and games; it ends when this is dropped.
#[derive(Debug)]
struct Lane {
    runtime: Handle,
    /// Dropping it ends the lane's thread.
    _stop: oneshot::Sender<()>,
}

impl Lane {
    /// Starts the lane of `core`.
    ///
    /// # Panics
    ///
    /// If the system cannot start a thread or a runtime.
    fn start(core: usize) -> Lane {
        let (stop, stopped) = oneshot::channel::<()>();
        let (handle, runtime) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name(format!("arena-lane-{core}"))
            .spawn(move || {
                // The core is one of the referee's own (usable_cores): pinning
                // cannot fail for want of permission; were it to fail anyway,
                // the lane still works, only unpinned.
                let _ = pahtum_referee::affinity::pin_this_thread(core);
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a lane cannot start its runtime");
                handle.send(runtime.handle().clone()).expect("the pool awaits the lane");
                runtime.block_on(async {
                    let _ = stopped.await;
                });
            })
            .expect("the pool cannot start a lane thread");
        Lane {
            runtime: runtime.recv().expect("a lane sends its runtime"),
            _stop: stop,
        }
    }
}

/// A task on a lane, aborted when dropped (a cancelled game ends its bots).
struct OnLane<T>(JoinHandle<T>);

impl<T> Drop for OnLane<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
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

/// A game's place in the pool (see [`Pool::placed`]); dropping it frees it.
#[derive(Debug)]
pub struct Slot {
    pool: Arc<Pool>,
    /// With pinning, the slot's index (its core is the pool's `cores[index]`).
    index: Option<usize>,
    /// Taken from the free slots (a game's), not only named (a warm-up's).
    claimed: bool,
}

impl Drop for Slot {
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
            live: None,
            state: Mutex::default(),
            lanes: Vec::new(),
        }
    }

    /// A pool whose game slot `i` runs its bots, and the referee's thread
    /// that plays its games, on `cores[i]` only: at most `cores.len()` games
    /// may run at once.
    ///
    /// # Panics
    ///
    /// If the system cannot start a thread or a runtime for a slot.
    pub fn pinned(mut self, cores: Vec<usize>) -> Pool {
        self.state().free_slots = (0..cores.len()).rev().collect();
        self.lanes = cores.iter().map(|&core| Lane::start(core)).collect();
        self.cores = Some(cores);
        self
    }

    /// Runs the game that `game` makes of a slot of its own, held until the
    /// game ends: with pinning, on the slot's lane, beside its bots (a game
    /// dropped unfinished is aborted there); without, in the caller's task.
    /// The slot is claimed at once, when this is called.
    ///
    /// # Panics
    ///
    /// With pinning, if more games run at once than there are cores (the
    /// runner runs at most its concurrency, which the caller checked).
    pub fn placed<T, F, G>(self: &Arc<Self>, game: G) -> impl Future<Output = T> + Send + use<T, F, G>
    where
        G: FnOnce(Slot) -> F,
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        let index = self.cores.as_ref().map(|_| {
            self.state()
                .free_slots
                .pop()
                .expect("no more games at once than pinned cores")
        });
        let slot = Slot {
            pool: Arc::clone(self),
            index,
            claimed: true,
        };
        self.on_lane(index, game(slot))
    }

    /// Runs `task` on the lane of slot `index` if there is one, else in the
    /// caller's task.
    fn on_lane<T, F>(&self, index: Option<usize>, task: F) -> impl Future<Output = T> + Send + use<T, F>
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        // A game's future is tens of kilobytes; boxed, a spawn or a poll of
        // its task moves a pointer instead (copying it was a tenth of the
        // referee's instructions per game).
        let task = Box::pin(task);
        let task = match index {
            Some(index) => Err(OnLane(self.lanes[index].runtime.spawn(task))),
            None => Ok(task),
        };
        async move {
            match task {
                Ok(here) => here.await,
                Err(mut lane) => match (&mut lane.0).await {
                    Ok(output) => output,
                    Err(error) => std::panic::resume_unwind(error.into_panic()),
                },
            }
        }
    }

    /// A pool whose games lost on time under overload are played again, up
    /// to `replays` times each ([`pahtum_tournament::config::OnOverload::Replay`]).
    pub fn replaying_overloads(mut self, replays: u32) -> Pool {
        self.overload_replays = replays;
        self
    }

    /// A pool whose games show their start and each move to `live` as they are played.
    pub fn showing(mut self, live: Arc<Live>) -> Pool {
        self.live = Some(live);
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
    pub async fn take(&self, name: &str, slot: &Slot) -> Result<Taken, StartError> {
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
    pub async fn give_back(&self, bot: Bot, slot: &Slot) {
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
            // The warm processes are spread over the slots, for their first games.
            let index = self.cores.as_ref().map(|cores| n % cores.len());
            starts.spawn(self.on_lane(index, async move {
                let slot = Slot {
                    pool: Arc::clone(&pool),
                    index,
                    claimed: false,
                };
                let taken = pool.take(&name, &slot).await?;
                pool.give_back(taken.bot, &slot).await;
                Ok(())
            }));
        }
        let mut errors = Vec::new();
        while let Some(joined) = starts.join_next().await {
            if let Err(error) = joined.expect("a bot start does not panic") {
                errors.push(error);
            }
        }
        if errors.is_empty() { Ok(()) } else { Err(errors) }
    }

    /// Ends every idle process politely (`quit`, then signals), all at once,
    /// each from its slot's lane where it has one.
    pub async fn shutdown(&self) {
        let idle: Vec<_> = self.state().idle.drain().collect();
        let mut ends = JoinSet::new();
        for ((_, index), bots) in idle {
            for bot in bots {
                ends.spawn(self.on_lane(index, bot.shutdown()));
            }
        }
        while ends.join_next().await.is_some() {}
    }
}

#[cfg(test)]
mod tests {
    use pahtum_referee::affinity::usable_cores;

    use super::*;

    /// Where a task runs: the cores its thread may use, and the thread's name.
    fn here() -> (Vec<usize>, Option<String>) {
        let thread = std::thread::current();
        (usable_cores().unwrap(), thread.name().map(str::to_owned))
    }

    #[tokio::test]
    async fn a_pinned_slot_plays_on_its_lane_and_is_free_again_after_its_game() {
        let core = *usable_cores().unwrap().last().unwrap();
        let pool = Arc::new(Pool::new(Vec::new(), Limits::default(), Restart::OnFailure, None).pinned(vec![core]));
        let lane = format!("arena-lane-{core}");
        for _ in 0..2 {
            let slot_index = pool.placed(|slot| async move { (slot.index, here()) }).await;
            assert_eq!(slot_index, (Some(0), (vec![core], Some(lane.clone()))));
        }
    }

    #[tokio::test]
    async fn an_unpinned_pool_plays_in_the_caller_s_task() {
        let pool = Arc::new(Pool::new(Vec::new(), Limits::default(), Restart::OnFailure, None));
        let caller = here();
        let (index, place) = pool.placed(|slot| async move { (slot.index, here()) }).await;
        assert_eq!((index, place), (None, caller));
    }
}
