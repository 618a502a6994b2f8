//! What authors ask the contest to do beside the ladder: analyse their lost
//! games ([`crate::analyses`]) and play unrated challenges
//! ([`crate::challenges`]). Each job is queued in the database within its
//! rules (how many at once and per day per author, how many waiting in all:
//! [`crate::store::JobRules`]), and one worker per kind takes them in order,
//! one at a time, so that neither can take more of the machine than
//! `contest.toml` gives it. A job that a stop cut off is queued again at the
//! next start and done again from where its files say it was.

use std::sync::Arc;

use crate::store::{Job, JobKind, now_ms};
use crate::web::Site;

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
            rung.await;
            continue;
        };
        let id = job.id;
        let outcome = work(Arc::clone(site), job).await;
        let _ = site
            .store
            .finish_job(id, outcome.as_ref().map_err(String::as_str), now_ms());
    }
}
