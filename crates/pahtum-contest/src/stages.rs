//! The contest's stages in time: the ladder plays until the final begins;
//! the final is set up at the freeze (its rules, seed, pairing rule and
//! finalists published before its first game) and plays from its instant
//! until it is over or the season ends.
//!
//! Each stage waits for its instant ([`crate::season`]: `contest.toml`'s
//! phases with the organiser's moves) on the clock, and wakes early when the
//! organiser moves a phase, so a moved instant is kept to the second. The
//! phase is the clock's, never a state of this process: a server started
//! again in the middle of the final finds the final's phase, sets up nothing
//! twice ([`finals::start`] completes only what is missing) and plays on
//! from its journal. A contest without phases plays its ladder until stopped.

use std::future::Future;
use std::sync::Arc;

use jiff::Timestamp;
use tokio_util::sync::CancellationToken;

use crate::causes::chain;
use crate::cluster::Cluster;
use crate::finals;
use crate::ladder::{self, Machinery};
use crate::season::{self, Phase};
use crate::web::Site;

/// Plays the contest of `site`: the ladder, the final set up and published at the freeze, then played from
/// the final's instant, until `stop` is cancelled.
pub async fn play(site: Arc<Site>, machinery: Machinery<'_>, stop: CancellationToken) {
    let final_begins = reached(&site, Phase::Final);
    let ladder_stop = async {
        tokio::select! {
            () = stop.cancelled() => {}
            () = final_begins => {}
        }
    };
    tokio::pin!(ladder_stop);
    let cluster = site
        .contest
        .cluster
        .as_ref()
        .map(|settings| Cluster::new(settings, &site.dir, machinery.arena));
    // A server started in the final's phase starts no ladder turn only to stop it at once.
    let final_now = season::effective(&site.contest, &site.store)
        .ok()
        .flatten()
        .is_some_and(|phases| order(phases.at(Timestamp::now())) >= order(Phase::Final));
    let ladder = async {
        if !final_now {
            ladder::play_on(
                &site.dir,
                &site.store,
                machinery,
                cluster.as_ref(),
                &site.ready,
                ladder_stop,
            )
            .await;
        }
    };
    // Set up at the freeze once every submission made before it is settled (the ladder lets the admitted
    // ones in), so that the last-minute author is a finalist too.
    let publish = async {
        tokio::select! {
            () = stop.cancelled() => Ok(()),
            () = async {
                reached(&site, Phase::Frozen).await;
                let settled = async {
                    while site.store.unsettled().unwrap_or(0) > 0 {
                        tokio::time::sleep(SETTLING).await;
                    }
                };
                // Once the final begins the ladder lets no one in: those still unsettled join below.
                tokio::select! {
                    () = settled => {}
                    () = reached(&site, Phase::Final) => {}
                }
            } => set_up(&site).await,
        }
    };
    let ((), published) = tokio::join!(ladder, publish);
    if stop.is_cancelled() {
        return;
    }
    // The ladder has stopped: the entrants admitted since its last turn join now, as it would have let them.
    let league = site.dir.join(crate::service::LEAGUE);
    loop {
        ladder::join_ready(&league, &site.store, &site.ready).await;
        if site.store.unsettled().unwrap_or(0) == 0 {
            break;
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(SETTLING) => {}
        }
    }
    let played = match published.and(set_up(&site).await) {
        Ok(()) => play_final(&site, machinery, cluster.as_ref(), &stop).await,
        Err(error) => Err(error),
    };
    if let Err(error) = played {
        eprintln!("the final stopped: {}", pahtum_protocol::untrusted::escape(&error));
    }
    stop.cancelled().await;
}

/// How often the final's set-up looks again whether the submissions made before the freeze are settled.
const SETTLING: std::time::Duration = std::time::Duration::from_secs(1);

/// Sets up the final (its rules and finalists, published from then on), if it is not yet.
async fn set_up(site: &Arc<Site>) -> Result<(), String> {
    let started = {
        let site = Arc::clone(site);
        tokio::task::spawn_blocking(move || finals::start(&site.dir, &site.contest.final_settings))
            .await
            .map_err(|error| error.to_string())?
    };
    site.finals.forget();
    started.map_err(|error| chain(&error))
}

/// Plays the set-up final until it is over, the season ends, or `stop` is cancelled.
async fn play_final(
    site: &Arc<Site>,
    machinery: Machinery<'_>,
    cluster: Option<&Cluster>,
    stop: &CancellationToken,
) -> Result<(), String> {
    let ends = reached(site, Phase::Ended);
    let final_stop = async {
        tokio::select! {
            () = stop.cancelled() => {}
            () = ends => {}
        }
    };
    tokio::pin!(final_stop);
    let ended = finals::play_final(&site.dir, machinery, cluster, final_stop).await;
    site.finals.forget();
    ended.map(|_| ()).map_err(|error| chain(&error))
}

/// Completes once the season is in phase `phase` or later; never for a contest without phases.
fn reached(site: &Arc<Site>, phase: Phase) -> impl Future<Output = ()> + use<> {
    let site = Arc::clone(site);
    async move {
        loop {
            let moved = site.phases_moved.notified();
            tokio::pin!(moved);
            moved.as_mut().enable();
            let phases = match season::effective(&site.contest, &site.store) {
                Ok(Some(phases)) => phases,
                // No season: no phase ever comes.
                Ok(None) => return std::future::pending().await,
                Err(error) => {
                    eprintln!(
                        "the season's phases cannot be read, tried again in a minute: {}",
                        chain(&error)
                    );
                    tokio::select! {
                        () = tokio::time::sleep(std::time::Duration::from_secs(60)) => {}
                        () = moved => {}
                    }
                    continue;
                }
            };
            let now = Timestamp::now();
            if order(phases.at(now)) >= order(phase) {
                return;
            }
            let next = phases.next(now).map_or(now, |(_, at)| at);
            let wait = now.duration_until(next).unsigned_abs();
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = moved => {}
            }
        }
    }
}

/// Where `phase` comes in the season.
fn order(phase: Phase) -> u8 {
    match phase {
        Phase::BeforeOpen => 0,
        Phase::Open => 1,
        Phase::Frozen => 2,
        Phase::Final => 3,
        Phase::Ended => 4,
    }
}
