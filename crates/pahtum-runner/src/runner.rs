//! The concurrent runner: plays the missing games of a schedule.
//!
//! Up to `concurrency` games run at once, each in its own task with two bot
//! processes from the [`Pool`]. This task alone writes the journal: each
//! record is appended as its game ends, then reported to the [`Observer`].
//! Syncing is group commit: the journal says when its unsynced writes are due
//! ([`Journal::sync_due`], by its [`Durability`](pahtum_tournament::durability::Durability)),
//! this task syncs them then, once for every game written meanwhile, and syncs
//! whatever is left when the run ends, is interrupted or fails. When `stop` completes (Ctrl-C), no new game starts, the
//! running games are cancelled (their bots are killed with their process
//! groups) and nothing of them is written, so the journal holds only whole
//! games and a resume plays the cancelled ones again.
//!
//! The runner's memory does not grow with the games: the pending games are
//! computed one at a time as they start ([`Plan::pending_games`]), and a
//! record is dropped once it is journaled and shown to the observer.
//!
//! Before each game starts, the observer may decline it ([`Observer::may_start`]):
//! a declined game is skipped for this run and the next pending game is asked
//! about, so that a game the observer still wants (the second game of a layout
//! pair already begun) starts even when declined ones come before it. When no
//! more games are left to start, the running ones finish and are recorded, and
//! the run ends as [`RunEnding::Declined`] (how an SPRT ends a match early).
//!
//! The runner does not play games itself: an [`Executor`] does. The [`Pool`]
//! is the executor of real runs (two bot processes per game); tests give the
//! runner a scripted executor, so that its stop, decline, append-failure and
//! SPRT paths are tested without processes or sleeps, as hyperfine tests its
//! scheduler.
//!
//! A bot that cannot start for a game forfeits that game: its record says
//! why, with the reason the referee gave ([`StartError`]). When neither bot
//! can start, both forfeit (a draw). But when the arena failed, not the bot
//! (its sandbox could not be built: [`StartError::is_the_arenas`]), the game
//! is tried again up to [`ARENA_FAILURE_TRIES`] times in all, and then not
//! recorded at all: no new game starts, the running ones finish, and the run
//! ends with [`RunError::Arena`], so that a resume plays the game once the
//! machine is fixed.

use std::future::Future;
use std::sync::Arc;

use pahtum::Seat;
use pahtum_protocol::Reason;
use pahtum_record::{Forfeit, GameRecord, GameSpec, OtherForfeit, Players, Termination, unix_ms};
use pahtum_referee::{StartError, play_game};
use tokio::task::JoinSet;

use crate::pool::{Pool, Slot};
use pahtum_journal::{Journal, JournalError, Span};
use pahtum_run::events::{Event, Observer, RunEnding};
use pahtum_run::resume::Plan;
use pahtum_tournament::schedule::ScheduledGame;

/// How many times a game is tried when the arena fails to start a bot.
pub const ARENA_FAILURE_TRIES: u32 = 3;

/// Why a run stopped before its end, other than Ctrl-C.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The journal could not be written.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// The arena could not start a bot for a game, [`ARENA_FAILURE_TRIES`]
    /// times: the game was not played (not a forfeit) and the run stopped.
    #[error(
        "a game was not played: the arena failed {ARENA_FAILURE_TRIES} times to start a bot for it, and scored \
         it as no one's loss. Fix the machine and run the same command again to play the games left"
    )]
    Arena {
        /// The last failure.
        #[source]
        source: Box<StartError>,
    },
}

/// What one game's task hands back.
#[derive(Debug)]
pub struct Played {
    /// The game's record; or why the arena could not play it (a bot's
    /// sandbox could not be built, [`ARENA_FAILURE_TRIES`] times).
    pub record: Result<GameRecord, StartError>,
    /// Bots whose process was restarted for this game after a failure.
    pub restarted: Vec<String>,
    /// The records of earlier tries, discarded because a bot lost on time
    /// under overload ([`pahtum_tournament::config::OnOverload::Replay`]); not journaled.
    pub replayed: Vec<GameRecord>,
}

/// Plays one game for the runner: the [`Pool`] in a real run, a script in tests.
pub trait Executor: Send + Sync + 'static {
    /// Plays `game` as `spec` says; a game that a bot cannot play is still a record (a forfeit); only the
    /// arena's own failure is an error. The runner drops the future to cancel the game (Ctrl-C), so it must
    /// end its bots on drop.
    fn play(self: Arc<Self>, game: ScheduledGame, spec: GameSpec) -> impl Future<Output = Played> + Send;
}

impl Executor for Pool {
    fn play(self: Arc<Self>, game: ScheduledGame, spec: GameSpec) -> impl Future<Output = Played> + Send {
        let pool = Arc::clone(&self);
        self.placed(move |slot| play(game, spec, pool, slot))
    }
}

/// The games a run plays and how their records go into its journal: a tournament's [`Plan`], or a league's
/// round (whose lines name the entrants' content hashes beside each record).
pub trait Work {
    /// The name the run is shown under.
    fn name(&self) -> &str;
    /// The games of the whole (the schedule, or the league's rounds).
    fn total(&self) -> usize;
    /// The games of the whole already in the journal.
    fn done(&self) -> usize;
    /// The games to play, in order, each with its spec, computed as they are asked for.
    fn to_play(&self) -> impl Iterator<Item = (ScheduledGame, GameSpec)> + '_;
    /// Appends the record of a game to the journal.
    fn append(&self, journal: &mut Journal, record: &GameRecord) -> Result<Span, JournalError>;
}

impl Work for Plan {
    fn name(&self) -> &str {
        &self.tournament().name
    }

    fn total(&self) -> usize {
        self.schedule.len()
    }

    fn done(&self) -> usize {
        self.done.len()
    }

    fn to_play(&self) -> impl Iterator<Item = (ScheduledGame, GameSpec)> + '_ {
        self.pending_games().map(|game| {
            let spec = game.spec(self.tournament());
            (game, spec)
        })
    }

    fn append(&self, journal: &mut Journal, record: &GameRecord) -> Result<Span, JournalError> {
        journal.append(record)
    }
}

/// Plays the pending games of `plan` with `executor`, `concurrency` games at once, until done or `stop`
/// completes.
pub async fn run(
    plan: &impl Work,
    concurrency: usize,
    journal: &mut Journal,
    executor: &Arc<impl Executor>,
    observer: &mut dyn Observer,
    stop: impl Future<Output = ()>,
) -> Result<RunEnding, RunError> {
    let total = plan.total();
    let mut done = plan.done();
    observer.on(Event::Started {
        tournament: plan.name(),
        total,
        done,
        concurrency,
    });
    let mut pending = plan.to_play();
    let mut running: JoinSet<Played> = JoinSet::new();
    let mut stopping = false;
    let mut declined = false;
    let mut failed: Option<RunError> = None;
    let mut stop = std::pin::pin!(stop);
    loop {
        while !stopping && failed.is_none() && running.len() < concurrency.max(1) {
            let Some((game, spec)) = next_allowed(&mut pending, observer, &mut declined) else {
                break;
            };
            observer.on(Event::GameStarted {
                id: &game.id,
                first: &game.first,
                second: &game.second,
            });
            running.spawn(Arc::clone(executor).play(game, spec));
        }
        if running.is_empty() {
            break;
        }
        tokio::select! {
            joined = running.join_next() => {
                let played = match joined.expect("the set is not empty") {
                    Ok(played) => played,
                    Err(error) if error.is_cancelled() => continue,
                    Err(error) => std::panic::resume_unwind(error.into_panic()),
                };
                let record = match played.record {
                    Ok(record) => record,
                    Err(source) => {
                        failed.get_or_insert(RunError::Arena {
                            source: Box::new(source),
                        });
                        continue;
                    }
                };
                let at = match plan.append(journal, &record) {
                    Ok(at) => at,
                    Err(error) => return Err(abandon(running, journal, error).await.into()),
                };
                done += 1;
                for bot in &played.restarted {
                    observer.on(Event::BotRestarted { bot });
                }
                for record in &played.replayed {
                    observer.on(Event::Replayed { record });
                }
                observer.on(Event::GameFinished { record: &record, at });
            }
            () = sleep_until(journal.sync_due()) => {
                if let Err(error) = journal.sync() {
                    return Err(abandon(running, journal, error).await.into());
                }
            }
            () = &mut stop, if !stopping => {
                stopping = true;
                running.abort_all();
            }
        }
    }
    journal.sync()?;
    if let Some(error) = failed {
        observer.on(Event::Interrupted { done, total });
        return Err(error);
    }
    if stopping {
        observer.on(Event::Interrupted { done, total });
        Ok(RunEnding::Interrupted)
    } else if declined {
        Ok(RunEnding::Declined)
    } else {
        observer.on(Event::Finished { total });
        Ok(RunEnding::Finished)
    }
}

/// Completes at `due`, never when it is `None`.
async fn sleep_until(due: Option<std::time::Instant>) {
    match due {
        Some(due) => tokio::time::sleep_until(due.into()).await,
        None => std::future::pending().await,
    }
}

/// Ends a run that failed with `error`: cancels the running games, syncs what was written (best
/// effort: `error` is what the caller reports), and hands `error` back.
async fn abandon(mut running: JoinSet<Played>, journal: &mut Journal, error: JournalError) -> JournalError {
    running.abort_all();
    while running.join_next().await.is_some() {}
    let _ = journal.sync();
    error
}

/// The next game of `pending` that `observer` lets start; the games it declines on the way are skipped
/// (never asked about again) and set `declined`.
fn next_allowed(
    pending: &mut impl Iterator<Item = (ScheduledGame, GameSpec)>,
    observer: &mut dyn Observer,
    declined: &mut bool,
) -> Option<(ScheduledGame, GameSpec)> {
    for (game, spec) in pending {
        if observer.may_start(&game) {
            return Some((game, spec));
        }
        *declined = true;
    }
    None
}

/// Plays one game in `slot` with processes from the pool, again while a bot loses it on time under
/// overload and the pool replays such games (bounded).
async fn play(game: ScheduledGame, spec: GameSpec, pool: Arc<Pool>, slot: Slot) -> Played {
    replaying(pool.overload_replays, || play_once(&game, &spec, &pool, &slot)).await
}

/// Plays a game with `play_once`, again while a bot loses it on time under overload, at most `replays`
/// more times; the last try stands, the others are handed back as replayed.
async fn replaying<F: Future<Output = Played>>(replays: u32, mut play_once: impl FnMut() -> F) -> Played {
    let mut replayed = Vec::new();
    let mut restarted = Vec::new();
    loop {
        let mut played = play_once().await;
        restarted.append(&mut played.restarted);
        let overloaded = played
            .record
            .as_ref()
            .is_ok_and(|record| record.termination.forfeits().any(|(_, forfeit)| forfeit.overloaded));
        if !overloaded || replayed.len() >= replays as usize {
            played.replayed = replayed;
            played.restarted = restarted;
            return played;
        }
        replayed.extend(played.record.ok());
    }
}

/// Plays one game with processes from the pool, or records the forfeit of a bot that could not start;
/// tries again when the arena failed to start a bot, and hands that failure back after the last try.
async fn play_once(game: &ScheduledGame, spec: &GameSpec, pool: &Pool, slot: &Slot) -> Played {
    let mut restarted = Vec::new();
    for tries in 1.. {
        let (first, second) = tokio::join!(pool.take(&game.first, slot), pool.take(&game.second, slot));
        restarted.extend(
            [&first, &second]
                .into_iter()
                .zip([&game.first, &game.second])
                .filter(|(taken, _)| taken.as_ref().is_ok_and(|taken| taken.restarted))
                .map(|(_, name)| name.clone()),
        );
        let record = match (first, second) {
            (Ok(mut first), Ok(mut second)) => {
                let mut playing = (pool.live.as_deref()).map(|live| live.started(spec, &game.first, &game.second));
                let mut show = |event| {
                    if let Some(playing) = &mut playing {
                        playing.played(event);
                    }
                };
                let record = play_game(spec, &mut first.bot, &mut second.bot, &mut show).await;
                tokio::join!(pool.give_back(first.bot, slot), pool.give_back(second.bot, slot));
                Ok(record)
            }
            (Err(error), _) | (_, Err(error)) if error.is_the_arenas() => Err(error),
            (Err(first), Err(second)) => Ok(start_failure(
                game,
                spec,
                &[(Seat::First, &first), (Seat::Second, &second)],
            )),
            (Err(error), Ok(second)) => {
                pool.give_back(second.bot, slot).await;
                Ok(start_failure(game, spec, &[(Seat::First, &error)]))
            }
            (Ok(first), Err(error)) => {
                pool.give_back(first.bot, slot).await;
                Ok(start_failure(game, spec, &[(Seat::Second, &error)]))
            }
        };
        if record.is_ok() || tries >= ARENA_FAILURE_TRIES {
            return Played {
                record,
                restarted,
                replayed: Vec::new(),
            };
        }
    }
    unreachable!("the tries end")
}

/// The record of a game lost before its first move by each bot in `failed`
/// (in seat order), which could not start: a double forfeit is a draw.
///
/// # Panics
///
/// If `failed` is empty.
pub fn start_failure(game: &ScheduledGame, spec: &GameSpec, failed: &[(Seat, &StartError)]) -> GameRecord {
    let players = Players {
        first: game.first.clone(),
        second: game.second.clone(),
    };
    let mut forfeits = failed
        .iter()
        .map(|&(seat, error)| could_not_start(players.of(seat), seat, error));
    let (reason, first) = forfeits.next().expect("a bot that could not start");
    let termination = Termination {
        reason,
        forfeit: Some(first),
        also: forfeits
            .next()
            .map(|(reason, forfeit)| OtherForfeit { reason, forfeit }),
        adjudicated: None,
    };
    spec.record(players, &spec.initial_game(), Vec::new(), None, termination, unix_ms())
}

/// The forfeit of `bot` in `seat`, which could not start, and its reason.
fn could_not_start(bot: &str, seat: Seat, error: &StartError) -> (Reason, Forfeit) {
    let (reason, line, stderr_tail) = match error {
        StartError::Handshake {
            failure, stderr_tail, ..
        } => (failure.reason, failure.line.clone(), stderr_tail.clone()),
        StartError::Spawn { .. } | StartError::Log { .. } | StartError::Sandbox { .. } => {
            (Reason::Disconnect, None, Vec::new())
        }
    };
    let forfeit = Forfeit {
        bot: bot.to_owned(),
        seat,
        color: seat.starting_color(),
        detail: format!("could not start for this game: {error}"),
        line,
        stderr_tail,
        overloaded: false,
    };
    (reason, forfeit)
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashSet};
    use std::path::Path;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use tokio::sync::Notify;

    use super::*;
    use pahtum_journal as journal;
    use pahtum_run::events::{Event, Quiet};
    use pahtum_run::resume::plan;
    use pahtum_run::sprt_gate::SprtGate;
    use pahtum_tournament::config::{self, Tournament};
    use pahtum_tournament::schedule::schedule;
    use pahtum_tournament::testing::{head_to_head, tournament, won_by};

    /// An executor without processes: every game is won by `winner` at once, except the games of
    /// `hanging` (by schedule index), which never end; it counts the games dropped before their end.
    struct Scripted {
        winner: &'static str,
        hanging: HashSet<usize>,
        /// The game for which the arena cannot start a bot.
        unplayable: Option<usize>,
        cancelled: Arc<AtomicUsize>,
    }

    impl Scripted {
        fn new(winner: &'static str, hanging: impl IntoIterator<Item = usize>) -> Arc<Scripted> {
            Arc::new(Scripted {
                winner,
                hanging: hanging.into_iter().collect(),
                unplayable: None,
                cancelled: Arc::default(),
            })
        }

        fn cancelled(&self) -> usize {
            self.cancelled.load(Ordering::SeqCst)
        }
    }

    /// Counts a game as cancelled when its future is dropped before the game ended.
    struct Unfinished(Option<Arc<AtomicUsize>>);

    impl Unfinished {
        fn finished(&mut self) {
            self.0 = None;
        }
    }

    impl Drop for Unfinished {
        fn drop(&mut self) {
            if let Some(cancelled) = self.0.take() {
                cancelled.fetch_add(1, Ordering::SeqCst);
            }
        }
    }

    impl Executor for Scripted {
        fn play(self: Arc<Self>, game: ScheduledGame, spec: GameSpec) -> impl Future<Output = Played> + Send {
            // Made before the future is first polled: a game aborted before it ran counts too.
            let mut unfinished = Unfinished(Some(Arc::clone(&self.cancelled)));
            async move {
                if self.hanging.contains(&game.index) {
                    std::future::pending::<()>().await;
                }
                unfinished.finished();
                let record = match self.unplayable {
                    Some(index) if index == game.index => Err(StartError::Sandbox {
                        bot: game.first.clone(),
                        said: "Creating new namespace failed: No space left on device".to_owned(),
                    }),
                    _ => Ok(won_by(&game, &spec, self.winner)),
                };
                Played {
                    record,
                    restarted: Vec::new(),
                    replayed: Vec::new(),
                }
            }
        }
    }

    /// Writes down the events, and wakes `finished` at each game recorded.
    #[derive(Default)]
    struct Recorder {
        events: Vec<String>,
        finished: Arc<Notify>,
    }

    impl Observer for Recorder {
        fn on(&mut self, event: Event<'_>) {
            self.events.push(match event {
                Event::Resumed { index, .. } => format!("resumed {index}"),
                Event::Started { total, .. } => format!("started {total}"),
                Event::GameStarted { id, .. } => format!("game {id}"),
                Event::GameFinished { record, .. } => {
                    self.finished.notify_one();
                    format!("recorded {}", record.id)
                }
                Event::BotRestarted { bot } => format!("restarted {bot}"),
                Event::Replayed { record } => format!("replayed {}", record.id),
                Event::Interrupted { done, total } => format!("interrupted {done}/{total}"),
                Event::Finished { total } => format!("finished {total}"),
                Event::Opened { .. } | Event::Playing | Event::Played | Event::Notice(_) => {
                    unreachable!("the runner tells only of its games")
                }
            });
        }
    }

    /// A new journal of `tournament` in `dir`, and the plan of all its games.
    fn start(dir: &Path, tournament: &Tournament) -> (Journal, Plan) {
        let path = dir.join("journal.jsonl");
        let journal = Journal::create(&path, tournament).unwrap();
        (journal, plan(tournament, Vec::new(), &path, &mut Quiet).unwrap())
    }

    fn recorded(journal: &Journal) -> Vec<String> {
        let records = journal::read(journal.path()).unwrap().records;
        records.into_iter().map(|record| record.id).collect()
    }

    /// A game lost on time under overload is played again up to the bound; the last try stands, the
    /// others come back as replayed, with the restarts of every try.
    #[tokio::test]
    async fn overloaded_games_are_replayed_a_bounded_number_of_times() {
        let try_of = |overloaded: bool| {
            let mut record = pahtum_tournament::testing::forfeited(
                pahtum_tournament::testing::record("000-00-a", "a", "b"),
                Seat::First,
                Reason::Timeout,
            );
            record.termination.forfeit.as_mut().unwrap().overloaded = overloaded;
            Played {
                record: Ok(record),
                restarted: vec!["a".to_owned()],
                replayed: Vec::new(),
            }
        };
        let mut tries = 0;
        let played = replaying(3, || {
            tries += 1;
            std::future::ready(try_of(tries < 3))
        })
        .await;
        assert_eq!((tries, played.replayed.len(), played.restarted.len()), (3, 2, 3));
        assert!(
            !played.record.unwrap().termination.forfeit.unwrap().overloaded,
            "the last try stands"
        );
        let mut tries = 0;
        let played = replaying(2, || {
            tries += 1;
            std::future::ready(try_of(true))
        })
        .await;
        assert_eq!((tries, played.replayed.len()), (3, 2), "bounded");
        let mut tries = 0;
        let played = replaying(0, || {
            tries += 1;
            std::future::ready(try_of(true))
        })
        .await;
        assert_eq!((tries, played.replayed.len()), (1, 0), "counted, not replayed");
    }

    #[tokio::test]
    async fn every_game_is_recorded_and_the_run_finishes() {
        let dir = tempfile::tempdir().unwrap();
        let (mut journal, plan) = start(dir.path(), &tournament());
        let executor = Scripted::new("a", []);
        let mut observer = Recorder::default();
        let ending = run(&plan, 3, &mut journal, &executor, &mut observer, std::future::pending()).await;
        assert_eq!(ending.unwrap(), RunEnding::Finished);
        let mut ids = recorded(&journal);
        ids.sort();
        let mut scheduled: Vec<String> = plan.schedule.iter().map(|game| game.id.clone()).collect();
        scheduled.sort();
        assert_eq!(ids, scheduled);
        assert_eq!(
            observer.events.first().unwrap(),
            &format!("started {}", scheduled.len())
        );
        assert_eq!(
            observer.events.last().unwrap(),
            &format!("finished {}", scheduled.len())
        );
    }

    /// Stop (Ctrl-C) after the first record: the running games are cancelled, not recorded, and no new game
    /// starts.
    #[tokio::test]
    async fn a_stop_cancels_the_running_games_and_records_none_of_them() {
        let dir = tempfile::tempdir().unwrap();
        let (mut journal, plan) = start(dir.path(), &tournament());
        let executor = Scripted::new("a", 1..plan.schedule.len());
        let mut observer = Recorder::default();
        let finished = Arc::clone(&observer.finished);
        let stop = async move { finished.notified().await };
        let ending = run(&plan, 3, &mut journal, &executor, &mut observer, stop).await;
        assert_eq!(ending.unwrap(), RunEnding::Interrupted);
        let first = plan.schedule.game(0).id;
        assert_eq!(recorded(&journal), [first]);
        let started = observer
            .events
            .iter()
            .filter(|event| event.starts_with("game "))
            .count();
        assert_eq!(
            executor.cancelled(),
            started - 1,
            "every started game but the first was cancelled"
        );
        assert!((3..=4).contains(&started), "{:?}", observer.events);
        let total = plan.schedule.len();
        assert_eq!(observer.events.last().unwrap(), &format!("interrupted 1/{total}"));
    }

    /// A journal that cannot be written ends the run with the error, and the running games are cancelled.
    #[tokio::test]
    async fn a_failed_append_ends_the_run_and_cancels_the_running_games() {
        let dir = tempfile::tempdir().unwrap();
        let (_, plan) = start(dir.path(), &tournament());
        let mut journal = Journal::on_a_full_disk();
        let executor = Scripted::new("a", 1..plan.schedule.len());
        let mut observer = Recorder::default();
        let ending = run(&plan, 2, &mut journal, &executor, &mut observer, std::future::pending()).await;
        let error = ending.unwrap_err();
        assert!(
            matches!(
                error,
                RunError::Journal(JournalError::Io {
                    action: "append to",
                    ..
                })
            ),
            "{error:?}"
        );
        assert_eq!(executor.cancelled(), 1, "the other running game");
        assert!(!observer.events.iter().any(|event| event.starts_with("recorded")));
    }

    /// A game the arena cannot play (a sandbox that cannot be built) is not recorded, not even as a
    /// forfeit: no game starts after it, the running ones are recorded, and the run ends with the error.
    #[tokio::test]
    async fn a_game_the_arena_cannot_play_is_not_recorded_and_stops_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let (mut journal, plan) = start(dir.path(), &tournament());
        let executor = Arc::new(Scripted {
            unplayable: Some(1),
            ..Arc::into_inner(Scripted::new("a", [])).unwrap()
        });
        let mut observer = Recorder::default();
        let ending = run(&plan, 1, &mut journal, &executor, &mut observer, std::future::pending()).await;
        let error = ending.unwrap_err();
        assert!(matches!(error, RunError::Arena { .. }), "{error:?}");
        assert!(error.to_string().contains("scored it as no one's loss"), "{error}");
        let first = plan.schedule.game(0).id;
        assert_eq!(
            recorded(&journal),
            std::slice::from_ref(&first),
            "only the game before it"
        );
        assert_eq!(
            observer.events,
            [
                format!("started {}", plan.schedule.len()),
                format!("game {first}"),
                format!("recorded {first}"),
                format!("game {}", plan.schedule.game(1).id),
                format!("interrupted 1/{}", plan.schedule.len()),
            ]
        );
    }

    /// Declined games are not played; every game started is, and the run ends as declined.
    #[tokio::test]
    async fn declined_games_are_not_played_and_the_run_ends_declined() {
        let dir = tempfile::tempdir().unwrap();
        let (mut journal, plan) = start(dir.path(), &tournament());
        let declined = plan.schedule.game(2).layout;
        let executor = Scripted::new("a", []);
        let mut observer = DeclinesLayout(&declined);
        let ending = run(&plan, 2, &mut journal, &executor, &mut observer, std::future::pending());
        assert_eq!(ending.await.unwrap(), RunEnding::Declined);
        let expected: HashSet<String> = plan
            .schedule
            .iter()
            .filter(|game| game.layout != declined)
            .map(|game| game.id.clone())
            .collect();
        assert_eq!(recorded(&journal).into_iter().collect::<HashSet<_>>(), expected);
    }

    /// An SPRT decided early: the match ends declined, with whole layout pairs only, and far fewer games
    /// than planned; at any concurrency.
    #[tokio::test]
    async fn an_sprt_stops_a_match_with_whole_layout_pairs() {
        for concurrency in [1, 2, 3, 8] {
            let dir = tempfile::tempdir().unwrap();
            let (mut journal, plan) = start(dir.path(), &head_to_head(200));
            let executor = Scripted::new("a", []);
            let mut gate = SprtGate::new("a", "b", Some("0,10".parse().unwrap()));
            let ending = run(
                &plan,
                concurrency,
                &mut journal,
                &executor,
                &mut gate,
                std::future::pending(),
            );
            assert_eq!(ending.await.unwrap(), RunEnding::Declined, "concurrency {concurrency}");
            let ids = recorded(&journal);
            assert!(ids.len() < 100, "{} games at concurrency {concurrency}", ids.len());
            let mut per_layout: BTreeMap<&str, usize> = BTreeMap::new();
            for id in &ids {
                *per_layout.entry(&id[..id.len() - 2]).or_default() += 1;
            }
            assert!(per_layout.values().all(|&games| games == 2), "{per_layout:?}");
        }
    }

    /// Declines the games of one layout.
    struct DeclinesLayout<'a>(&'a str);

    impl Observer for DeclinesLayout<'_> {
        fn on(&mut self, _event: Event<'_>) {}

        fn may_start(&mut self, game: &ScheduledGame) -> bool {
            game.layout != self.0
        }
    }

    /// A declined game does not hide the games after it: the second game of a layout pair begun in an
    /// earlier run still starts when the games before it are declined.
    #[test]
    fn declined_games_are_skipped_and_the_scan_goes_on() {
        let tournament = pahtum_tournament::testing::tournament();
        let games = schedule(&tournament);
        let declined_layout = games[0].layout.as_str();
        let pending = [0, 1, 3, 4].map(|index| (games[index].clone(), games[index].spec(&tournament)));
        assert_eq!(
            (games[1].layout.as_str(), games[3].layout == games[2].layout),
            (declined_layout, true)
        );
        let mut observer = DeclinesLayout(declined_layout);
        let (mut pending, mut declined) = (pending.into_iter(), false);
        let next = next_allowed(&mut pending, &mut observer, &mut declined);
        assert_eq!(next.map(|(game, _)| game.id), Some(games[3].id.clone()));
        assert!(declined);
        let next = next_allowed(&mut pending, &mut observer, &mut declined);
        assert_eq!(next.map(|(game, _)| game.id), Some(games[4].id.clone()));
        assert_eq!(next_allowed(&mut pending, &mut observer, &mut declined), None);
    }

    /// Bot `a` has time of its own; in both games of a layout pair, with the
    /// seats swapped, it gets it in the seat it holds.
    #[test]
    fn each_bot_gets_its_own_time_in_the_seat_it_holds() {
        let text = "name = \"t\"\npause_idle = true\n[time]\nmove_ms = 100\n\
                    [[bots]]\nname = \"a\"\nbuiltin = \"heuristic\"\n[bots.time]\nmove_ms = 400\n\
                    [[bots]]\nname = \"b\"\nbuiltin = \"heuristic\"\n";
        let tournament = config::parse(Path::new("t.toml"), text).unwrap().tournament;
        let games = schedule(&tournament);
        let (own, shared) = (tournament.time_of("a"), tournament.time);
        assert_eq!((own.move_ms, shared.move_ms), (Some(400), Some(100)));
        let a_first = games[0].spec(&tournament);
        let a_second = games[1].spec(&tournament);
        assert_eq!((games[0].first.as_str(), games[1].second.as_str()), ("a", "a"));
        assert_eq!(
            (a_first.time_of(Seat::First), a_first.time_of(Seat::Second)),
            (own, shared)
        );
        assert_eq!(
            (a_second.time_of(Seat::First), a_second.time_of(Seat::Second)),
            (shared, own)
        );
        assert_eq!(a_first.time, shared);
        assert!(a_first.pause_idle && a_second.pause_idle);
    }
}
