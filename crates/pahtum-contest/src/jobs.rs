//! What authors ask the contest to do beside the ladder: analyse their lost
//! games ([`crate::analyses`]), play unrated challenges
//! ([`crate::challenges`]) and test a version submitted on condition
//! ([`crate::promotions`]). Each job is queued in the database within its
//! rules (how many at once and per day per author, how many waiting in all:
//! [`rules`]), and one worker per kind takes them in order, one at a time,
//! so that none can take more of the machine than `contest.toml` gives it.
//! A job that a stop cut off is queued again at the next start and done
//! again from where its files say it was.

use std::sync::Arc;
use std::time::Duration;

use crate::config::Limits;
use crate::store::{Job, JobKind, JobRules, now_ms};
use crate::web::Site;

/// How long a worker waits for its bell before it looks at its queue again: a promotion is queued by the
/// ladder as its version joins the league, where no bell is at hand.
const LOOK_AGAIN: Duration = Duration::from_secs(2);

/// The rules a new job of `kind` is held to under the contest's `limits`.
pub fn rules(kind: JobKind, limits: &Limits) -> JobRules {
    match kind {
        JobKind::Analysis => JobRules {
            at_once: 1,
            per_day: None,
            queue: limits.analysis_queue,
        },
        JobKind::Challenge => JobRules {
            at_once: 1,
            per_day: Some(limits.challenges_per_day),
            queue: limits.challenge_queue,
        },
        JobKind::Promotion => crate::held::RULES,
    }
}

/// Works off the queued jobs of `kind` with `work`, one at a time, for as long as it is polled: each job
/// ends done with what `work` gives, or failed with its error.
pub async fn work_off<W, F>(site: &Arc<Site>, kind: JobKind, work: W)
where
    W: Fn(Arc<Site>, Job) -> F,
    F: Future<Output = Result<serde_json::Value, String>>,
{
    loop {
        // Registered before the queue is looked at, so that a job queued meanwhile is not missed.
        let rung = site.bells.of(kind).notified();
        let Ok(Some(job)) = site.store.claim_job(kind, now_ms()) else {
            let _ = tokio::time::timeout(LOOK_AGAIN, rung).await;
            continue;
        };
        let id = job.id;
        let outcome = work(Arc::clone(site), job).await;
        let _ = site
            .store
            .finish_job(id, outcome.as_ref().map_err(String::as_str), now_ms());
    }
}
