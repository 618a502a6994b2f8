//! "Analyse my lost games": each author's request, a job queued in the
//! database ([`crate::jobs`]), takes their latest lost games (at most `analysis_games`) through
//! `pahtum-analysis`'s driver into the league's `analysis.jsonl`, which the
//! games' replays read beside the journal.
//!
//! One request is analysed at a time, one game at a time, on a blocking
//! thread beside the ladder: the analysis costs a few seconds of a core a
//! game, and the queue is bounded (`analysis_queue`, one request per
//! author), so it can neither starve the games nor grow without end. The
//! driver keeps the games already analysed with the same effort, so a
//! request asked again, or cut off by a stop and queued again at the next
//! start, analyses only what is missing.

use std::sync::Arc;

use pahtum::Outcome;
use pahtum_analysis::analyze::{AnalysisError, Settings};
use pahtum_analysis::driver::{self, Observer};
use pahtum_record::GameRecord;

use crate::jobs;
use crate::store::{Job, JobKind};
use crate::web::Site;
use crate::web::records::{is_of, recent_games_of};

/// The analysis file beside the league's journal, which the report reads.
pub const ANALYSIS: &str = "analysis.jsonl";

/// Analyses the queued requests, one at a time, for as long as it is polled.
pub async fn work(site: Arc<Site>) {
    jobs::work_off(&site, JobKind::Analysis, |site, job| async move {
        let worker = Arc::clone(&site);
        let analysed = tokio::task::spawn_blocking(move || analyse(&worker, &job))
            .await
            .unwrap_or_else(|_| Err("the analysis stopped".to_owned()))?;
        // The games' page is made again, with the new analysis in its replays, before the job is done.
        site.forget_games_page();
        Ok(serde_json::json!({ "games": analysed }))
    })
    .await;
}

/// Analyses the lost games of `job`'s author; the games analysed now.
fn analyse(site: &Site, job: &Job) -> Result<usize, String> {
    let author = site
        .store
        .author(job.author)
        .map_err(|error| error.to_string())?
        .ok_or("the author is gone")?;
    let journal = std::fs::read(site.journal()).map_err(|error| format!("cannot read the journal: {error}"))?;
    let lost = lost_games(&journal, &author.name, site.contest.limits.analysis_games);
    let out = site.journal().with_file_name(ANALYSIS);
    let outcome =
        driver::run(&out, &lost, Settings::default(), 1, &mut Unwatched).map_err(|error| error.to_string())?;
    Ok(outcome.analysed)
}

/// The latest `most` games, newest first, that a version of the author `name` lost.
pub fn lost_games(journal: &[u8], name: &str, most: usize) -> Vec<GameRecord> {
    recent_games_of(journal, name, usize::MAX)
        .into_iter()
        .filter(|record| {
            let loser = match record.result {
                Outcome::White => &record.black,
                Outcome::Black => &record.white,
                Outcome::Draw => return false,
            };
            is_of(loser, name)
        })
        .take(most)
        .collect()
}

/// Nothing to show of an analysis's progress: the author's page shows the request's state.
struct Unwatched;

impl Observer for Unwatched {
    fn started(&mut self, _games: usize) {}
    fn failed(&mut self, _error: &AnalysisError) {}
    fn advanced(&mut self) {}
}
