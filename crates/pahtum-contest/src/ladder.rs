//! The ladder that plays itself: the contest's league played in short turns,
//! the entrants that passed their build and check let in between turns.
//!
//! A turn is at most a few games of the league's current round
//! (`pahtum_runner::league::play` with a game budget), so an entrant that
//! became ready waits at most one turn to join, and the next round the
//! pairing rule decides takes it first (its interval is the widest). When
//! an author's new version joins, the version that played before retires:
//! one bot per author plays. When the league needs no games (every active
//! entrant is as precise as the league's target), the ladder waits for the
//! next entrant. Everything it decides is in the league's journal, so a
//! server started again carries on where it stopped: the round decided
//! before is played to its end, no game twice.

use std::path::Path;
use std::sync::Arc;

use pahtum_league::Retirement;
use pahtum_league::decide::to_retire;
use pahtum_league::folder;
use pahtum_league::{Event, Voided};
use pahtum_run::events::{Observer, Quiet};
use pahtum_runner::league::{Ended, Options, Show, play};
use pahtum_runner::live::Live;
use pahtum_runner::live_socket::LiveSocket;
use pahtum_tournament::config::OnOverload;

use crate::builds::Ready;
use crate::causes::chain;
use crate::cluster::{Cluster, ClusterError, play_next_round};
use crate::locks::{LOCK_RETRY, open_league};
use crate::service::LEAGUE;
use crate::store::{Store, SubmissionState, now_ms};

/// What the ladder needs to play: the built-in bots' executable and names, and the games at once.
#[derive(Debug, Clone, Copy)]
pub struct Machinery<'a> {
    /// The executable that runs the built-in bots (`ARENA bot NAME`).
    pub arena: &'a Path,
    /// The built-in bots' names.
    pub builtins: &'static [&'static str],
    /// Games played at once.
    pub concurrency: usize,
}

impl Machinery<'_> {
    /// How the contest plays a league on this machine: `games` at most (`None`: until it needs no more), as
    /// many at once as the machinery says, a game the server's own load lost on time played again (the
    /// arena's failure counts for no one).
    pub(crate) fn options(&self, games: Option<usize>) -> Options<'_> {
        Options {
            games,
            until: None,
            concurrency: self.concurrency.max(1),
            shard: None,
            arena: self.arena,
            builtins: self.builtins,
            on_overload: OnOverload::Replay,
        }
    }
}

/// The games of a turn, per game played at once.
const TURN_PER_SLOT: usize = 2;

/// How the ladder's turns are shown: their games in progress through the league folder's socket, which
/// the games' page follows as `arena serve` follows any league (the standings are read from the journal).
pub(crate) struct Shared;

impl Show for Shared {
    fn progress(&mut self) -> Box<dyn Observer> {
        Box::new(Quiet)
    }

    fn share(&mut self, dir: &Path, live: &Arc<Live>) -> Option<LiveSocket> {
        LiveSocket::open(dir, Arc::clone(live)).ok()
    }
}

/// Plays the contest's league in `dir` until `stop` completes, here or on `cluster` (a round a turn):
/// entrants in `ready` join between turns; after an error of the league's the ladder waits for the next
/// entrant.
pub async fn play_on<S: std::future::Future<Output = ()>>(
    dir: &Path,
    store: &Store,
    machinery: Machinery<'_>,
    cluster: Option<&Cluster>,
    ready: &Ready,
    mut stop: std::pin::Pin<&mut S>,
) {
    let league = dir.join(LEAGUE);
    let mut shown = Shared;
    loop {
        join_ready(&league, store, ready).await;
        let options = machinery.options(Some(machinery.concurrency.max(1) * TURN_PER_SLOT));
        let ended = match cluster {
            Some(cluster) => play_next_round(&league, LEAGUE, cluster, stop.as_mut()).await,
            None => play(&league, &options, &mut shown, stop.as_mut())
                .await
                .map_err(ClusterError::from),
        };
        match ended {
            Ok(Ended::Played) => {}
            Ok(Ended::Interrupted) => return,
            Err(error) if error.is_locked() => tokio::time::sleep(LOCK_RETRY).await,
            Ok(Ended::Settled(_) | Ended::ShardDone { .. }) | Err(_) => {
                if let Err(error) = &ended {
                    eprintln!("the ladder waits for the next entrant: {}", chain(error));
                }
                tokio::select! {
                    () = ready.arrived.notified() => {}
                    () = stop.as_mut() => return,
                }
            }
        }
    }
}

/// Lets every ready entrant join the league in `league`, retiring its author's version that played
/// before, retires the entrants of disabled accounts, voids the games the organiser voided (the league then
/// plays them again with the rest of its decided games, before it decides another round), and records each
/// outcome in the store.
pub(crate) async fn join_ready(league: &Path, store: &Store, ready: &Ready) {
    let waiting = ready.take();
    let activated = ready.take_activated();
    let voided = ready.take_voided();
    let disabled = store.playing_for_disabled().unwrap_or_default();
    if waiting.is_empty() && disabled.is_empty() && activated.is_empty() && voided.is_empty() {
        return;
    }
    let mut opened = match open_league(league).await {
        Ok(opened) => opened,
        Err(error) => {
            for (submission, _) in waiting {
                failed(store, submission, &error);
            }
            return;
        }
    };
    for label in disabled {
        retire(&mut opened, store, &label);
    }
    for label in activated {
        activate(&mut opened, store, &label);
    }
    for (game, why) in voided {
        let event = Event::Voided(Voided {
            game: game.clone(),
            why: why.clone(),
            unix_ms: pahtum_record::unix_ms(),
        });
        let what = match opened.record(event) {
            Ok(()) => format!("voided game {game}, to be played again: {why}"),
            Err(error) => format!("could not void game {game}: {}", chain(&error)),
        };
        let _ = store.log_action("organiser", &what, now_ms());
    }
    for (submission, prepared) in waiting {
        let name = prepared.label().split('@').next().unwrap_or_default().to_owned();
        let before = to_retire(&opened.state, &name);
        match prepared.join(&mut opened) {
            Ok(label) => {
                let (state, retiring) = crate::held::on_join(store, submission, &label, before);
                for old in retiring {
                    retire(&mut opened, store, &old);
                }
                let _ = store.set_submission(submission, state, Some(&label), None, now_ms());
            }
            Err(error) => failed(store, submission, &error),
        }
    }
}

/// Makes the retired entrant `label` its bot's active version again: the version that plays retires.
fn activate(opened: &mut folder::Opened, store: &Store, label: &str) {
    let retired = opened
        .state
        .number_of(label)
        .is_some_and(|number| opened.state.is_retired(number));
    if !retired {
        return;
    }
    let name = label.split('@').next().unwrap_or_default();
    for old in to_retire(&opened.state, name) {
        retire(opened, store, &old);
    }
    let returned = Event::Returned(Retirement {
        entrant: label.to_owned(),
        unix_ms: pahtum_record::unix_ms(),
    });
    if opened.record(returned).is_ok() {
        let _ = store.return_label(label, now_ms());
    }
}

/// Marks `submission` failed, for `error`.
fn failed(store: &Store, submission: i64, error: &dyn std::error::Error) {
    let _ = store.set_submission(submission, SubmissionState::Failed, None, Some(&chain(error)), now_ms());
}

/// Retires the active entrant `label` in the league and marks its submission retired.
fn retire(opened: &mut folder::Opened, store: &Store, label: &str) {
    let retired = Event::Retired(Retirement {
        entrant: label.to_owned(),
        unix_ms: pahtum_record::unix_ms(),
    });
    if opened.record(retired).is_ok() {
        let _ = store.retire_label(label, now_ms());
    }
}
