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
//! again at the next start, and its tournament resumes from its journal. The
//! test of a version submitted on condition ([`crate::promotions`]) is played
//! the same way, by the same `play_unrated`, its games stopped by an SPRT.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pahtum::Outcome;
use pahtum_journal::Moves;
use pahtum_journal::sink::Counts;
use pahtum_league::LeagueState;
use pahtum_record::GameRecord;
use pahtum_run::events::{Observer, Quiet};
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
    let unrated = Unrated {
        job: job.id,
        what: "challenge",
        two: [&challenge.entrant, &challenge.opponent],
        pairs: challenge.pairs,
        out: challenge_dir(&site.dir, job.id),
        games_at_once: site.contest.limits.challenge_games_at_once,
    };
    let journal = play_unrated(site, &league_state(site)?, &unrated, &mut Quiet, machinery).await?;
    Ok(score_of(&journal, &challenge.entrant))
}

/// The contest league's state, as its journal has it now.
pub(crate) fn league_state(site: &Site) -> Result<LeagueState, String> {
    let read = pahtum_league::read(&site.journal(), Moves::Drop, &mut Counts).map_err(|error| error.to_string())?;
    Ok(read.state)
}

/// Unrated games between two of the league's entrants, asked by a job: a challenge's, or a promotion's
/// ([`crate::promotions`]).
#[derive(Debug)]
pub(crate) struct Unrated<'a> {
    /// The job's number: names the tournament and draws its layouts (the jobs of every kind are numbered
    /// together, so no two draw the same).
    pub job: i64,
    /// What kind of job, as its tournament is named (`challenge 7`).
    pub what: &'a str,
    /// The two entrants, by label.
    pub two: [&'a str; 2],
    /// Layout pairs: twice as many games at most.
    pub pairs: u32,
    /// The tournament's folder.
    pub out: PathBuf,
    /// Games at once.
    pub games_at_once: usize,
}

/// Plays `unrated`'s games, or what is left of them (its tournament resumes from its journal), between the
/// two active entrants of `state`, in the league's sandbox and time control, each game told to `observer`
/// (which may decline the games it does not need); the journal as it then is.
pub(crate) async fn play_unrated(
    site: &Site,
    state: &LeagueState,
    unrated: &Unrated<'_>,
    observer: &mut dyn Observer,
    machinery: Machinery<'_>,
) -> Result<Vec<u8>, String> {
    let league = site.dir.join(LEAGUE);
    let mut file = pahtum_runner::league::tournament_file(
        state,
        &league,
        unrated.games_at_once.max(1),
        machinery.builtins,
        OnOverload::Replay,
    );
    file.tournament
        .bots
        .retain(|bot| unrated.two.contains(&bot.name.as_str()));
    if file.tournament.bots.len() != 2 {
        let [a, b] = unrated.two;
        return Err(format!("{a} or {b} no longer plays in the contest"));
    }
    file.tournament.name = format!("{} {}", unrated.what, unrated.job);
    file.tournament.seed ^= u64::try_from(unrated.job)
        .unwrap_or_default()
        .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    file.tournament.games_per_pair = 2 * unrated.pairs;
    let out = unrated.out.clone();
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
    let played = play(plan, observer, std::future::pending(), unserved)
        .await
        .map_err(|error| crate::builds::without_folder(&crate::causes::chain(&error), &site.dir))?;
    drop(played);
    std::fs::read(out.join(pahtum_run::resume::JOURNAL)).map_err(|error| error.to_string())
}

/// The game records of the journal `journal`, in its order (its header and any line that is not a whole
/// record left out: a journal read while it grows may end in part of a line).
pub fn records(journal: &[u8]) -> impl Iterator<Item = GameRecord> + '_ {
    (journal.split(|&byte| byte == b'\n').skip(1)).filter_map(|line| serde_json::from_slice::<GameRecord>(line).ok())
}

/// The score of `entrant` over the games of the journal `journal`.
pub fn score_of(journal: &[u8], entrant: &str) -> Score {
    let mut score = Score {
        wins: 0,
        draws: 0,
        losses: 0,
    };
    for record in records(journal) {
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
