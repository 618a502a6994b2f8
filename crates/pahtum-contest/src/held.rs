//! A version submitted "only if it is not weaker", held as it joins the
//! league: retired at once, its author's active version playing on, and
//! its test queued, which [`crate::promotions`] plays. The ladder asks
//! `on_join` what becomes of each entrant that joins; this file knows the
//! database and nothing of the ladder, the pages or the runner.

use serde::{Deserialize, Serialize};

use crate::store::{JobKind, JobRules, Store, SubmissionState, now_ms};

/// The rules a promotion is queued under: one for each submission made on condition, which the submissions'
/// own quota and queue hold.
pub const RULES: JobRules = JobRules {
    at_once: usize::MAX,
    per_day: None,
    queue: usize::MAX,
};

/// What a promotion asks: a version submitted on condition, tested against the version of its author's that
/// played when it joined.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Promotion {
    /// The submission made on condition.
    pub submission: i64,
    /// Its entrant (`NAME@VERSION`), retired until its test promotes it.
    pub candidate: String,
    /// The active version it is tested against.
    pub opponent: String,
}

/// What becomes of the entrant `label` of submission `submission` as it joins the league, where `before` are
/// the versions of its author's bot that played until then: the submission's state, and the entrants to
/// retire. A version made on condition, while one of its author's plays, is held: it retires at once itself,
/// and its test is queued. Any other plays, and the versions before it retire.
pub(crate) fn on_join(
    store: &Store,
    submission: i64,
    label: &str,
    before: Vec<String>,
) -> (SubmissionState, Vec<String>) {
    let made = store.submission(submission).ok().flatten();
    let Some(made) = made.filter(|made| made.if_not_weaker) else {
        return (SubmissionState::Playing, before);
    };
    let Some(opponent) = before.first() else {
        let note = "made active without a test: no version of yours played when it joined";
        let _ = store.set_note(submission, note, now_ms());
        return (SubmissionState::Playing, before);
    };
    let promotion = Promotion {
        submission,
        candidate: label.to_owned(),
        opponent: opponent.clone(),
    };
    let queued = serde_json::to_value(&promotion)
        .map_err(|error| error.to_string())
        .and_then(
            |asked| match store.request_job(made.author, JobKind::Promotion, &asked, RULES, now_ms()) {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(refused)) => Err(format!("{refused:?}")),
                Err(error) => Err(crate::causes::chain(&error)),
            },
        );
    let note = match queued {
        Ok(()) => format!("held: it waits for its test against {opponent}, which plays on"),
        Err(error) => format!("held, but its test could not be queued ({error}): submit it again"),
    };
    let _ = store.set_note(submission, &note, now_ms());
    (SubmissionState::Retired, vec![label.to_owned()])
}
