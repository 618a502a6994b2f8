//! Unrated challenges: an author's active version against an entrant they
//! choose, N layout pairs (each layout twice, seats swapped), within a daily
//! quota, played beside the ladder and rated by no one.
//!
//! A challenge is an ordinary tournament of two bots, played by the runner
//! into its own folder (`DIR/challenges/N/`, a journal that `arena verify`,
//! `arena report` and `arena show` read): the two entrants are the league's,
//! from their snapshots in the league's folder, in the league's sandbox and
//! time control; its layouts are drawn from its own seed (the league's and
//! the challenge's number), so that it does not replay the ladder's games.
//! The league's journal never sees it. One challenge plays at a time, with
//! at most `challenge_games_at_once` games at once: the share of the machine
//! `contest.toml` gives challenges. A challenge that a stop cut off is queued
//! again at the next start, and its tournament resumes from its journal.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pahtum::Outcome;
use pahtum_journal::Moves;
use pahtum_journal::sink::Counts;
use pahtum_record::GameRecord;
use pahtum_run::events::Quiet;
use pahtum_runner::live::Live;
use pahtum_runner::tournament::{Settings, TournamentPlan, play};
use pahtum_tournament::config::OnOverload;
use serde::{Deserialize, Serialize};

use crate::jobs;
use crate::ladder::Machinery;
use crate::service::LEAGUE;
use crate::store::{Job, JobKind};
use crate::web::Site;

/// The folder of the challenges, in the contest's.
pub const CHALLENGES: &str = "challenges";

/// What a challenge asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenge {
    /// The challenger's entrant: its author's active version when it was asked.
    pub entrant: String,
    /// The entrant challenged.
    pub opponent: String,
    /// Layout pairs: twice as many games.
    pub pairs: u32,
}

/// What came of a challenge, from the challenger's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

/// The folder of challenge `id` in the contest's folder `dir`.
pub fn challenge_dir(dir: &Path, id: i64) -> PathBuf {
    dir.join(CHALLENGES).join(id.to_string())
}

/// Plays the queued challenges, one at a time, for as long as it is polled.
pub async fn work(site: Arc<Site>, machinery: Machinery<'_>) {
    jobs::work_off(&site, JobKind::Challenge, |site, job| async move {
        let score = play_one(&site, &job, machinery).await?;
        serde_json::to_value(score).map_err(|error| error.to_string())
    })
    .await;
}

/// Plays challenge `job`, or what is left of it, and scores it.
async fn play_one(site: &Site, job: &Job, machinery: Machinery<'_>) -> Result<Score, String> {
    let challenge: Challenge = serde_json::from_value(job.asked.clone()).map_err(|error| error.to_string())?;
    let league = site.dir.join(LEAGUE);
    let read = pahtum_league::read(&site.journal(), Moves::Drop, &mut Counts).map_err(|error| error.to_string())?;
    let games_at_once = site.contest.limits.challenge_games_at_once.max(1);
    let mut file = pahtum_runner::league::tournament_file(
        &read.state,
        &league,
        games_at_once,
        machinery.builtins,
        OnOverload::Replay,
    );
    let two = [&challenge.entrant, &challenge.opponent];
    file.tournament.bots.retain(|bot| two.contains(&&bot.name));
    if file.tournament.bots.len() != 2 {
        return Err(format!(
            "{} or {} no longer plays in the contest",
            challenge.entrant, challenge.opponent
        ));
    }
    file.tournament.name = format!("challenge {}", job.id);
    file.tournament.seed ^= u64::try_from(job.id)
        .unwrap_or_default()
        .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    file.tournament.games_per_pair = 2 * challenge.pairs;
    let out = challenge_dir(&site.dir, job.id);
    file.settings.out = out.clone();
    let plan = TournamentPlan {
        file,
        settings: Settings::default(),
        shard: None,
        fresh: false,
        replay: Vec::new(),
        arena: machinery.arena.to_owned(),
        builtins: machinery.builtins,
    };
    let unserved = async |_: &Path, _: &Arc<Live>| Ok::<(), std::io::Error>(());
    let played = play(plan, &mut Quiet, std::future::pending(), unserved)
        .await
        .map_err(|error| crate::builds::without_folder(&crate::builds::chain(&error), &site.dir))?;
    drop(played);
    let journal = std::fs::read(out.join(pahtum_run::resume::JOURNAL)).map_err(|error| error.to_string())?;
    Ok(score_of(&journal, &challenge.entrant))
}

/// The score of `entrant` over the games of the journal `journal`.
pub fn score_of(journal: &[u8], entrant: &str) -> Score {
    let mut score = Score {
        wins: 0,
        draws: 0,
        losses: 0,
    };
    for line in journal.split(|&byte| byte == b'\n').skip(1) {
        let Ok(record) = serde_json::from_slice::<GameRecord>(line) else {
            continue;
        };
        let mine = match record.result {
            Outcome::Draw => None,
            Outcome::White => Some(record.white == entrant),
            Outcome::Black => Some(record.black == entrant),
        };
        match mine {
            None => score.draws += 1,
            Some(true) => score.wins += 1,
            Some(false) => score.losses += 1,
        }
    }
    score
}
