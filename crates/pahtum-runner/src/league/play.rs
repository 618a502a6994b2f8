//! A league played, the work of `arena league run`: the games it needs now,
//! a round at a time, each decided by the pairing rule and played by the
//! runner into the league's journal.
//!
//! [`play`] opens the league before every round, plays what is left of a
//! round decided before (a resume), else decides the next
//! ([`pahtum_league::decide::next_round`] over one fit of every game) and
//! records it, then plays it with the league's active entrants; it stops when
//! the league is settled, `games` are played, a shard's share of its round is
//! done, or a stop signal came, and says which ([`Ended`]). Each round is a
//! run of its own: the caller's [`Show`] gives each a fresh observer (its
//! progress) and may share its games in progress with other processes.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;

use pahtum_league::decide::{Settled, next_round};
use pahtum_league::folder::{self, Opened};
use pahtum_league::service::{ServiceError, table_of};
use pahtum_league::{Event, LeagueError, PendingGame, Round as RoundLine};
use pahtum_referee::StartError;
use pahtum_run::events::{Observer, RunEnding, Tee};
use pahtum_tournament::config::OnOverload;
use pahtum_tournament::shard::Shard;

use super::entrant::{NoSandbox, require_sandbox};
use super::round::{Round, tournament_file};
use crate::evidence::start_error;
use crate::games::{Bots, PlayError, play as play_games};
use crate::launch::Launcher;
use crate::live::Live;
use crate::live_socket::LiveSocket;

/// How a league is played.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    /// Play at most this many games.
    pub games: Option<usize>,
    /// The half-width of the 95% interval to play every active entrant to, in Elo; `None`: the league's
    /// `precision_elo`.
    pub until: Option<u32>,
    /// Games played at once.
    pub concurrency: usize,
    /// Play only this shard of one round (decided from the journal as every shard finds it).
    pub shard: Option<Shard>,
    /// The executable that runs the built-in bots (`ARENA bot NAME`).
    pub arena: &'a Path,
    /// The names of the built-in bots: an entrant whose command's first word is one is that bot.
    pub builtins: &'a [&'a str],
    /// What becomes of a game lost on time while the machine was overloaded (the arena's failure, not the
    /// bot's): it counts, or it is played again (at most `OVERLOAD_REPLAYS` times, the last try standing).
    pub on_overload: OnOverload,
}

/// What the caller shows of each round.
pub trait Show {
    /// The observer of the next round's games (its progress): a fresh one for each round.
    fn progress(&mut self) -> Box<dyn Observer>;

    /// Shares `live`, the round's games in progress, with other processes through a socket in the
    /// league's folder `dir` until the round ends; `None`: not shared.
    fn share(&mut self, dir: &Path, live: &Arc<Live>) -> Option<LiveSocket>;
}

/// Why [`play`] stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum Ended {
    /// The league needs no more games now, and why.
    Settled(Settled),
    /// The games asked for are played, or a shard played the round it decided.
    Played,
    /// Other shards' games of the round are left, and this shard has played its own.
    ShardDone {
        /// The shard.
        shard: Shard,
        /// The round.
        round: u32,
    },
    /// A stop signal came: the games finished are in the journal, and playing again resumes.
    Interrupted,
}

/// Why a league could not be played.
#[derive(Debug, thiserror::Error)]
pub enum PlayLeagueError {
    /// The league's folder, journal or rules.
    #[error(transparent)]
    League(#[from] LeagueError),
    /// The table that the next round is decided from.
    #[error(transparent)]
    Table(#[from] ServiceError),
    /// The league asks for the sandbox, which cannot run here.
    #[error(transparent)]
    NoSandbox(#[from] NoSandbox),
    /// Some entrants could not start before the first game, so no game was played.
    #[error("some entrants cannot start, so no game was played:{}", start_errors(.0))]
    CannotStart(Vec<StartError>),
    /// The games could not be played.
    #[error(transparent)]
    Play(#[from] PlayError),
}

/// Each start-up failure on a line of its own, escaped, as the runner shows it.
fn start_errors(errors: &[StartError]) -> String {
    errors
        .iter()
        .map(|error| format!("\n  {}", start_error(error, "    ")))
        .collect()
}

/// Plays the games the league in `dir` needs now, as `options` say, a round at a time, each shown by `show`,
/// until the league is settled, the games asked for are played, a shard's share is done, or `stop` completes
/// (see the module documentation).
pub async fn play<S: Future<Output = ()>>(
    dir: &Path,
    options: &Options<'_>,
    show: &mut dyn Show,
    mut stop: Pin<&mut S>,
) -> Result<Ended, PlayLeagueError> {
    let mut played = 0;
    // Whether this call decided a round.
    let mut decided = false;
    loop {
        let mut opened = folder::open(dir)?;
        let target = f64::from(options.until.unwrap_or(opened.state.league().precision_elo));
        let mut pending = opened.state.pending();
        if pending.is_empty() {
            // A shard plays one round: the next is decided once the shards are merged.
            if decided && options.shard.is_some() {
                return Ok(Ended::Played);
            }
            let table = table_of(dir)?;
            let round = next_round(&opened.state, &table, target);
            if round.is_empty() {
                return Ok(Ended::Settled(Settled::of(&opened.state, &table, target)));
            }
            let number = opened.state.rounds() + 1;
            opened.record(Event::Round(RoundLine {
                number,
                pairs: round.pairs,
                bye: round.bye,
            }))?;
            decided = true;
            pending = opened.state.pending();
        } else if let Some(shard) = options.shard {
            // Another shard's games are left: this one plays its own, if it has any left.
            if pending.iter().all(|game| !shard.contains(2 * game.unit)) {
                return Ok(Ended::ShardDone {
                    shard,
                    round: opened.state.rounds(),
                });
            }
        }
        if let Some(shard) = options.shard {
            pending.retain(|game| shard.contains(2 * game.unit));
        }
        if let Some(games) = options.games {
            if played >= games {
                return Ok(Ended::Played);
            }
            pending.truncate(games - played);
        }
        let count = pending.len();
        let ending = play_round(dir, &mut opened, pending, options, show, stop.as_mut()).await?;
        played += count;
        if ending == RunEnding::Interrupted {
            return Ok(Ended::Interrupted);
        }
        // A shard's share of the round it found is played: the next round is decided once the shards are
        // merged, never by a shard that cannot see the others' games.
        if options.shard.is_some() {
            return Ok(Ended::Played);
        }
    }
}

/// Plays `pending` games of the league with its active entrants, as `options` say, shown by `show`, until
/// done or `stop` completes.
async fn play_round<S: Future<Output = ()>>(
    dir: &Path,
    opened: &mut Opened,
    pending: Vec<PendingGame>,
    options: &Options<'_>,
    show: &mut dyn Show,
    stop: Pin<&mut S>,
) -> Result<RunEnding, PlayLeagueError> {
    let file = tournament_file(
        &opened.state,
        dir,
        options.concurrency,
        options.builtins,
        options.on_overload,
    );
    require_sandbox(opened.state.league().sandbox.is_some())?;
    let launcher = Launcher::for_entrants(&file, options.arena);
    let bots = Bots::of_file(&file, &launcher);
    let work = Round::new(&opened.state, pending);
    let names = work.players();
    let mut progress = show.progress();
    // Its games in progress, shown by `arena serve` as a run's are.
    let live = Arc::new(Live::default());
    let socket = show.share(dir, &live);
    let mut shown = &*live;
    let played = play_games(
        &work,
        &mut opened.journal,
        &names,
        dir,
        (bots, &live),
        &mut Tee(&mut *progress, &mut shown),
        stop,
    )
    .await;
    if let Some(socket) = socket {
        socket.close().await;
    }
    match played {
        Err(PlayError::CannotStart(errors)) => Err(PlayLeagueError::CannotStart(errors)),
        played => Ok(played?),
    }
}
