//! The concurrent runner: plays the missing games of a schedule.
//!
//! Up to `concurrency` games run at once, each in its own task with two bot
//! processes from the [`Pool`]. This task alone writes the journal: each
//! record is appended (and synced) as its game ends, then reported to the
//! [`Observer`]. When `stop` completes (Ctrl-C), no new game starts, the
//! running games are cancelled (their bots are killed with their process
//! groups) and nothing of them is written, so the journal holds only whole
//! games and a resume plays the cancelled ones again.
//!
//! Before each game starts, the observer may decline it ([`Observer::may_start`]):
//! a declined game is skipped for this run and the next pending game is asked
//! about, so that a game the observer still wants (the second game of a layout
//! pair already begun) starts even when declined ones come before it. When no
//! more games are left to start, the running ones finish and are recorded, and
//! the run ends as [`Ending::Declined`] (how an SPRT ends a match early).
//!
//! A bot that cannot start for a game forfeits that game: its record says
//! why, with the reason the referee gave ([`StartError`]). When neither bot
//! can start, both forfeit (a draw).

use std::future::Future;
use std::sync::Arc;

use pahtum::Seat;
use pahtum_protocol::Reason;
use pahtum_record::{Forfeit, GameRecord, OtherForfeit, Players, Termination, unix_ms};
use pahtum_referee::{GameSpec, StartError, play_game};
use tokio::task::JoinSet;

use crate::config::Tournament;
use crate::events::{Event, Observer};
use crate::journal::{Journal, JournalError};
use crate::pool::Pool;
use crate::resume::Plan;
use crate::schedule::ScheduledGame;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Every game of the schedule is in the journal.
    Finished,
    /// Stopped before the end; running the same command again resumes.
    Interrupted,
    /// The observer declined some games; every game started was played and recorded.
    Declined,
}

/// What one game's task hands back.
struct Played {
    record: GameRecord,
    /// Bots whose process was restarted for this game after a failure.
    restarted: Vec<String>,
}

/// Plays `plan.pending`, `concurrency` games at once, until done or `stop` completes.
pub async fn run(
    plan: &Plan,
    concurrency: usize,
    journal: &mut Journal,
    pool: &Arc<Pool>,
    observer: &mut dyn Observer,
    stop: impl Future<Output = ()>,
) -> Result<Ending, JournalError> {
    let total = plan.schedule.len();
    let mut done = plan.done.len();
    observer.on(Event::Started {
        tournament: &plan.tournament.name,
        total,
        done: &plan.done,
        concurrency,
    });
    let mut pending = plan.pending.iter();
    let mut running: JoinSet<Played> = JoinSet::new();
    let mut stopping = false;
    let mut declined = false;
    let mut stop = std::pin::pin!(stop);
    loop {
        while !stopping && running.len() < concurrency.max(1) {
            let Some(game) = next_allowed(&mut pending, observer, &mut declined) else {
                break;
            };
            observer.on(Event::GameStarted {
                id: &game.id,
                first: &game.first,
                second: &game.second,
            });
            let spec = game_spec(game, &plan.tournament);
            running.spawn(play(game.clone(), spec, Arc::clone(pool)));
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
                if let Err(error) = journal.append(&played.record) {
                    running.abort_all();
                    while running.join_next().await.is_some() {}
                    return Err(error);
                }
                done += 1;
                for bot in &played.restarted {
                    observer.on(Event::BotRestarted { bot });
                }
                observer.on(Event::GameFinished { record: &played.record });
            }
            () = &mut stop, if !stopping => {
                stopping = true;
                running.abort_all();
            }
        }
    }
    if stopping {
        observer.on(Event::Interrupted { done, total });
        Ok(Ending::Interrupted)
    } else if declined {
        Ok(Ending::Declined)
    } else {
        observer.on(Event::Finished { total });
        Ok(Ending::Finished)
    }
}

/// The next game of `pending` that `observer` lets start; the games it declines on the way are skipped
/// (never asked about again) and set `declined`.
fn next_allowed<'a>(
    pending: &mut impl Iterator<Item = &'a ScheduledGame>,
    observer: &mut dyn Observer,
    declined: &mut bool,
) -> Option<&'a ScheduledGame> {
    for game in pending {
        if observer.may_start(game) {
            return Some(game);
        }
        *declined = true;
    }
    None
}

/// The referee's spec of a scheduled game of `tournament`: each bot plays by
/// its own time control, and fair mode is the tournament's.
pub fn game_spec(game: &ScheduledGame, tournament: &Tournament) -> GameSpec {
    GameSpec {
        id: game.id.clone(),
        layout: Some(game.layout.clone()),
        seed: game.seed,
        rules: game.rules,
        blocks: game.blocks.clone(),
        time: tournament.time,
        time_by_seat: None,
        pause_idle: tournament.pause_idle,
    }
    .with_seat_times(tournament.time_of(&game.first), tournament.time_of(&game.second))
}

/// Plays one game with processes from the pool, or records the forfeit of a bot that could not start.
async fn play(game: ScheduledGame, spec: GameSpec, pool: Arc<Pool>) -> Played {
    let (first, second) = tokio::join!(pool.take(&game.first), pool.take(&game.second));
    let restarted = [&first, &second]
        .into_iter()
        .zip([&game.first, &game.second])
        .filter(|(taken, _)| taken.as_ref().is_ok_and(|taken| taken.restarted))
        .map(|(_, name)| name.clone())
        .collect();
    let record = match (first, second) {
        (Ok(mut first), Ok(mut second)) => {
            let record = play_game(&spec, &mut first.bot, &mut second.bot, &mut |_| {}).await;
            tokio::join!(pool.give_back(first.bot), pool.give_back(second.bot));
            record
        }
        (Err(first), Err(second)) => start_failure(&game, &spec, &[(Seat::First, &first), (Seat::Second, &second)]),
        (Err(error), Ok(second)) => {
            pool.give_back(second.bot).await;
            start_failure(&game, &spec, &[(Seat::First, &error)])
        }
        (Ok(first), Err(error)) => {
            pool.give_back(first.bot).await;
            start_failure(&game, &spec, &[(Seat::Second, &error)])
        }
    };
    Played { record, restarted }
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
    };
    spec.record(players, &spec.initial_game(), Vec::new(), None, termination, unix_ms())
}

/// The forfeit of `bot` in `seat`, which could not start, and its reason.
fn could_not_start(bot: &str, seat: Seat, error: &StartError) -> (Reason, Forfeit) {
    let (reason, line, stderr_tail) = match error {
        StartError::Handshake {
            failure, stderr_tail, ..
        } => (failure.reason, failure.line.clone(), stderr_tail.clone()),
        StartError::Spawn { .. } | StartError::Log { .. } => (Reason::Disconnect, None, Vec::new()),
    };
    let forfeit = Forfeit {
        bot: bot.to_owned(),
        seat,
        color: seat.starting_color(),
        detail: format!("could not start for this game: {error}"),
        line,
        stderr_tail,
    };
    (reason, forfeit)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config;
    use crate::events::Event;
    use crate::schedule::schedule;

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
        let tournament = crate::testing::tournament();
        let games = schedule(&tournament);
        let declined_layout = games[0].layout.as_str();
        let pending = [&games[0], &games[1], &games[3], &games[4]];
        assert_eq!(
            (games[1].layout.as_str(), games[3].layout == games[2].layout),
            (declined_layout, true)
        );
        let mut observer = DeclinesLayout(declined_layout);
        let (mut pending, mut declined) = (pending.into_iter(), false);
        let next = next_allowed(&mut pending, &mut observer, &mut declined);
        assert_eq!(next.map(|game| game.id.as_str()), Some(games[3].id.as_str()));
        assert!(declined);
        let next = next_allowed(&mut pending, &mut observer, &mut declined);
        assert_eq!(next.map(|game| game.id.as_str()), Some(games[4].id.as_str()));
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
        let a_first = game_spec(&games[0], &tournament);
        let a_second = game_spec(&games[1], &tournament);
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
