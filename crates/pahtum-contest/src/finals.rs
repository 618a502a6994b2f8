//! The final: the active version of each entrant at the freeze, played in a
//! league of its own (`DIR/final/`) until its prize places are apart.
//!
//! It is an ordinary league folder, so `arena league table`, `arena report`
//! and `arena verify` read it as any other, and no part of it is the
//! contest's own machinery:
//! * its rules are the ladder's (`league/league.toml`: the time control, the
//!   layouts, the sandbox) with the keys of `contest.toml`'s `[final]` put in
//!   their place: its seed, its games per pair, and the `[separate]` pairing
//!   rule ([`pahtum_league::separation`]);
//! * its entrants are the ladder's active entrants, their built snapshots
//!   copied and recorded with the same content hashes
//!   ([`pahtum_league::folder::transfer`]);
//! * it is played by the league's own player, a round at a time, the games
//!   that the arena failed (lost on time to the machine's own load) played
//!   again, until the rule finds no round.
//!
//! What is published before its first game ([`Published`]: the rules with
//! their hash, which is the journal header's, the seed, the pairing rule and
//! the finalists' hashes) fixes every round: each is what the rule decides
//! from the games before it, and `arena verify` decides each again.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pahtum_journal::Moves;
use pahtum_journal::sink::Counts;
use pahtum_league::decide::next_round;
use pahtum_league::separation::{Boundary, Over, boundaries, places};
use pahtum_league::table::{fold, table};
use pahtum_league::{League, folder};
use pahtum_run::resume::JOURNAL;
use pahtum_runner::league::{Ended, play};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::cluster::{Cluster, ClusterError};
use crate::config::FinalSettings;
use crate::ladder::{Machinery, Shared};
use crate::locks::{LOCK_RETRY, open_league_blocking};
use crate::service::{ContestError, LEAGUE, io_error};

/// The final's folder in a contest's.
pub const FINAL: &str = "final";

/// The pairing rule, as published: what `pahtum_league::separation` decides, in words.
pub const PAIRING_RULE: &str = "separate/1: while two finalists have never met, the round is every such pair, one \
    layout pair each (two games, one layout, seats swapped); then each pair of adjacent places among the prize \
    places (and the last prize place with the next) whose likelihood of superiority in the joint rating fit of \
    every game so far is below the confidence plays pairs_per_round layout pairs; never past max_games decided \
    games (the round is cut to fit) nor games_per_pair; the final is over when no round is left. Layouts are \
    drawn from the seed as a tournament's.";

/// One finalist, as published.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Finalist {
    /// `NAME@VERSION`.
    pub entrant: String,
    /// The content hash of its files, as built.
    pub hash: String,
}

/// What the final publishes before its first game: everything that decides its schedule.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Published {
    /// Its rules, every default filled in: the time control, the layouts, the seed, the pairing rule's
    /// settings.
    pub rules: League,
    /// The hash of the rules, which the final's journal's first line holds.
    pub rules_hash: String,
    /// The seed its layouts are drawn from.
    pub seed: u64,
    /// The pairing rule, in words.
    pub pairing_rule: String,
    /// The hash of the pairing rule's words.
    pub pairing_rule_hash: String,
    /// The finalists, in the order they joined (their numbers in the journal).
    pub finalists: Vec<Finalist>,
    /// The hash of the finalists: each `entrant hash` a line.
    pub finalists_hash: String,
}

/// One finalist's line of the final's table.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Standing {
    /// Its place: finalists not apart share the upper place.
    pub place: u32,
    /// Whether it shares its place.
    pub tied: bool,
    /// `NAME@VERSION`.
    pub entrant: String,
    /// Its games.
    pub games: u32,
    /// Its rating and 95% interval, once rated.
    pub elo: Option<f64>,
    /// The lower end of the interval.
    pub lower: Option<f64>,
    /// The upper end of the interval.
    pub upper: Option<f64>,
}

/// The final as it stands: what was published, its progress, its table and each prize boundary.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct FinalView {
    /// What was published before its first game.
    pub published: Published,
    /// The games played.
    pub games: usize,
    /// The rounds decided.
    pub rounds: u32,
    /// Each finalist, strongest first.
    pub standings: Vec<Standing>,
    /// Each adjacent pair of the prize places: its likelihood of superiority, and whether it is apart.
    pub boundaries: Vec<Boundary>,
    /// Why it is over, once it is.
    pub over: Option<Over>,
    /// The hash of the rounds decided so far, as `arena verify` finds it.
    pub schedule: String,
    /// The journal's faulty lines, as `arena verify` finds them (none, unless it was tampered with).
    pub faults: usize,
}

/// The final's folder in the contest's `dir`.
pub fn folder_of(dir: &Path) -> PathBuf {
    dir.join(FINAL)
}

/// Sets up the final in the contest's `dir`, as [`settings`](FinalSettings) say, if it is not yet: its
/// rules and each active entrant of the ladder, made aside and put in place whole, so that no reader sees a
/// final with some of its finalists. Done again before its first round (entrants admitted since join), it
/// adds what is missing; once the final has decided a round, its finalists are fixed.
pub fn start(dir: &Path, settings: &FinalSettings) -> Result<(), ContestError> {
    let (ladder, final_dir) = (dir.join(LEAGUE), folder_of(dir));
    if final_dir.join(JOURNAL).exists() {
        let mut opened = open_league_blocking(&final_dir)?;
        if opened.state.rounds() == 0 {
            join_finalists(&ladder, &final_dir, &mut opened)?;
        }
        return Ok(());
    }
    let aside = dir.join(format!("{FINAL}.new"));
    if aside.exists() {
        std::fs::remove_dir_all(&aside).map_err(io_error("clear", &aside))?;
    }
    let keys = format!("name = \"final\"\n{}", settings.league_keys());
    folder::init_from(&ladder, &aside, &keys)?;
    let mut opened = open_league_blocking(&aside)?;
    join_finalists(&ladder, &aside, &mut opened)?;
    drop(opened);
    std::fs::rename(&aside, &final_dir).map_err(io_error("put in place", &final_dir))
}

/// Lets each active entrant of the ladder `ladder` that is not in the final `opened` (in `final_dir`) join it.
fn join_finalists(ladder: &Path, final_dir: &Path, opened: &mut folder::Opened) -> Result<(), ContestError> {
    let read = pahtum_league::read(&ladder.join(JOURNAL), Moves::Drop, &mut Counts)?;
    for (number, entrant) in read.state.entrants().iter().enumerate() {
        if !read.state.is_retired(number) && opened.state.number_of(&entrant.label()).is_none() {
            folder::transfer(ladder, final_dir, opened, entrant)?;
        }
    }
    Ok(())
}

/// What the final in the contest's `dir` published, once it is set up.
pub fn published(dir: &Path) -> Result<Option<Published>, ContestError> {
    let journal = folder_of(dir).join(JOURNAL);
    if !journal.exists() {
        return Ok(None);
    }
    let read = pahtum_league::read(&journal, Moves::Drop, &mut Counts)?;
    Ok(Some(publish(read.state.league(), read.state.entrants())))
}

/// What decides the schedule of a final of rules `rules` and entrants `entrants`.
fn publish(rules: &League, entrants: &[pahtum_league::Entrant]) -> Published {
    let finalists: Vec<Finalist> = entrants
        .iter()
        .map(|entrant| Finalist {
            entrant: entrant.label(),
            hash: entrant.hash.clone(),
        })
        .collect();
    let listed: String = finalists
        .iter()
        .map(|finalist| format!("{} {}\n", finalist.entrant, finalist.hash))
        .collect();
    Published {
        rules_hash: rules.hash(),
        seed: rules.seed,
        rules: rules.clone(),
        pairing_rule: PAIRING_RULE.to_owned(),
        pairing_rule_hash: sha256(PAIRING_RULE.as_bytes()),
        finalists,
        finalists_hash: sha256(listed.as_bytes()),
    }
}

/// `"sha256:"` and the hex SHA-256 of `bytes`.
fn sha256(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes).iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

/// The final in the contest's `dir` as it stands, once it is set up: its journal verified (every round
/// decided again by its rule), its table and boundaries.
pub fn view(dir: &Path) -> Result<Option<FinalView>, ContestError> {
    let final_dir = folder_of(dir);
    let journal = final_dir.join(JOURNAL);
    if !journal.exists() {
        return Ok(None);
    }
    let verified = pahtum_league::verify(&journal)?;
    // The table and the state it decides by are of one pass: the journal may have grown since the check.
    let (state, tallies) = fold(&journal, Moves::Drop, &mut Counts)?;
    let state = &state;
    let rule = state
        .league()
        .separate
        .ok_or_else(|| pahtum_league::LeagueError::Refused(format!("{} is not a final", final_dir.display())))?;
    let table = table(state, tallies, None).map_err(pahtum_league::service::ServiceError::from)?;
    let found = boundaries(&table, &rule);
    let standings = places(&table, &found)
        .into_iter()
        .zip(&table.active)
        .map(|(placed, row)| Standing {
            place: placed.place,
            tied: placed.tied,
            entrant: placed.entrant,
            games: row.games,
            elo: row.elo,
            lower: row.lower,
            upper: row.upper,
        })
        .collect();
    let target = f64::from(state.league().precision_elo);
    let over = (state.pending().is_empty() && next_round(state, &table, target).is_empty())
        .then(|| Over::of(state, &table, &rule));
    Ok(Some(FinalView {
        published: publish(state.league(), state.entrants()),
        games: state.games(),
        rounds: state.rounds(),
        standings,
        boundaries: found,
        over,
        schedule: verified.schedule,
        faults: verified.faults.len(),
    }))
}

/// Plays the final in the contest's `dir` until it is over or `stop` completes: on this machine, its games
/// in progress shared as the ladder's are, or on `cluster`, a job array a round.
pub async fn play_final<S: std::future::Future<Output = ()>>(
    dir: &Path,
    machinery: Machinery<'_>,
    cluster: Option<&Cluster>,
    stop: std::pin::Pin<&mut S>,
) -> Result<Ended, ContestError> {
    let mut stop = stop;
    loop {
        let played = match cluster {
            Some(cluster) => crate::cluster::play_league(&folder_of(dir), FINAL, cluster, stop.as_mut()).await,
            None => play_here(dir, machinery, stop.as_mut())
                .await
                .map_err(ClusterError::from),
        };
        match played {
            Err(error) if error.is_locked() => tokio::time::sleep(LOCK_RETRY).await,
            played => return Ok(played?),
        }
    }
}

/// Plays the final in the contest's `dir` on this machine until it is over or `stop` completes.
async fn play_here<S: std::future::Future<Output = ()>>(
    dir: &Path,
    machinery: Machinery<'_>,
    stop: std::pin::Pin<&mut S>,
) -> Result<Ended, pahtum_runner::league::PlayLeagueError> {
    let options = machinery.options(None);
    let mut shown = Shared;
    play(&folder_of(dir), &options, &mut shown, stop).await
}

/// The final's table and boundaries, shared by the pages and the API, made at most once per journal size.
#[derive(Debug, Default)]
pub struct FinalCache {
    made: std::sync::Mutex<Option<(u64, Arc<FinalView>)>>,
}

impl FinalCache {
    /// Drops the view made last: the final was set up or played, so the next is made afresh.
    pub fn forget(&self) {
        *self.made.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
    }

    /// The final of the contest in `dir` as it stands, made again only when its journal grew.
    pub fn get(&self, dir: &Path) -> Result<Option<Arc<FinalView>>, ContestError> {
        let size = std::fs::metadata(folder_of(dir).join(JOURNAL)).map_or(0, |meta| meta.len());
        let mut made = self.made.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, view)) = made.as_ref().filter(|(at, _)| *at == size) {
            return Ok(Some(Arc::clone(view)));
        }
        let Some(view) = view(dir)? else {
            return Ok(None);
        };
        let view = Arc::new(view);
        *made = Some((size, Arc::clone(&view)));
        Ok(Some(view))
    }
}
