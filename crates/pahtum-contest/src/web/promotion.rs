//! A promotion's test as its author follows it: `GET
//! /api/submissions/{id}/promotion` and the submission's page, which polls
//! it while the test plays. Both replay the test's journal
//! ([`crate::promotions::replay`]) for the LLR after each layout pair, with
//! the bounds of `contest.toml`'s `[promotion]`. A test is its
//! submission's: only its author and the organiser see it (403 for anyone
//! else, as the submission).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use minijinja::context;
use pahtum_stats::SprtStatus;
use serde::{Deserialize, Serialize};

use super::api::{ApiError, required, visible_submission};
use super::site::Site;
use crate::challenges::{Score, score_of};
use crate::held::Promotion;
use crate::promotions::{Verdict, promotion_dir, replay};
use crate::store::{JobState, Submission};

/// Where a test stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromotionState {
    /// Waiting for the tests before it.
    Queued,
    /// Its games are played.
    Testing,
    /// Found not weaker: the version plays.
    Promoted,
    /// Found weaker, undecided at the cap, or not made active (the note says why): the version stays retired.
    NotPromoted,
    /// The test could not be played (the note says why).
    Failed,
}

impl PromotionState {
    /// Its name, as the API writes it.
    pub fn name(self) -> &'static str {
        match self {
            PromotionState::Queued => "queued",
            PromotionState::Testing => "testing",
            PromotionState::Promoted => "promoted",
            PromotionState::NotPromoted => "not_promoted",
            PromotionState::Failed => "failed",
        }
    }
}

/// A version's test against its author's active version, as it stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromotionAnswer {
    /// The submission made on condition.
    pub submission: i64,
    /// Where the test stands.
    pub state: PromotionState,
    /// Its entrant.
    pub candidate: String,
    /// The active version it is tested against.
    pub opponent: String,
    /// H0: the candidate is at most this many Elo stronger (negative: weaker).
    pub elo0: f64,
    /// H1: the candidate is at least this many Elo stronger.
    pub elo1: f64,
    /// The risk of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The risk of accepting H0 when H1 holds.
    pub beta: f64,
    /// The LLR at or below which the test accepts H0.
    pub lower: f64,
    /// The LLR at or above which the test accepts H1.
    pub upper: f64,
    /// The most games of the test.
    pub max_games: u32,
    /// The games played.
    pub games: u32,
    /// The candidate's games won, drawn and lost.
    #[serde(flatten)]
    pub score: Score,
    /// The layout pairs by the candidate's score in them: 0, ½, 1, 1½ and 2 points.
    pub pentanomial: [u64; 5],
    /// The log-likelihood ratio of H1 over H0 now.
    pub llr: f64,
    /// What the test decided, once it has (`accept_h1` or `accept_h0`): the LLR crossed a bound then, and the
    /// pair begun finished after it.
    pub decided: Option<SprtStatus>,
    /// The LLR after each layout pair, the first first.
    pub history: Vec<f64>,
    /// What came of the test, or where it stands, in words.
    pub note: Option<String>,
}

/// The test of `submission`, where it has one.
pub(super) fn promotion_of(site: &Site, submission: &Submission) -> Result<Option<PromotionAnswer>, ApiError> {
    let unreadable = |_| ApiError::Failed("read its test");
    let Some(job) = site
        .store
        .promotion_of(submission.id)
        .map_err(|_| ApiError::Failed("read its test"))?
    else {
        return Ok(None);
    };
    let promotion: Promotion = serde_json::from_value(job.asked.clone()).map_err(unreadable)?;
    let settings = &site.contest.promotion;
    let sprt = settings
        .sprt()
        .map_err(|_| ApiError::Failed("read the test's bounds"))?;
    let journal = std::fs::read(promotion_dir(&site.dir, job.id).join(pahtum_run::resume::JOURNAL)).unwrap_or_default();
    let (gate, history) = replay(&journal, &promotion, sprt);
    let promoted = || {
        let verdict = job.outcome.clone().map(serde_json::from_value::<Verdict>);
        verdict.is_some_and(|verdict| verdict.is_ok_and(|verdict| verdict.promoted))
    };
    let state = match job.state {
        JobState::Queued => PromotionState::Queued,
        JobState::Running => PromotionState::Testing,
        JobState::Done if promoted() => PromotionState::Promoted,
        JobState::Done => PromotionState::NotPromoted,
        JobState::Failed => PromotionState::Failed,
    };
    let pentanomial = gate.tally().pentanomial();
    Ok(Some(PromotionAnswer {
        submission: submission.id,
        state,
        elo0: sprt.elo0(),
        elo1: sprt.elo1(),
        alpha: sprt.alpha(),
        beta: sprt.beta(),
        lower: sprt.lower_bound(),
        upper: sprt.upper_bound(),
        max_games: settings.max_games,
        games: gate.tally().summary().games,
        score: score_of(&journal, &promotion.candidate),
        pentanomial: pentanomial.counts,
        llr: sprt.llr(&pentanomial),
        decided: gate.decision().map(|decision| decision.outcome.status),
        history,
        note: submission.note.clone(),
        candidate: promotion.candidate,
        opponent: promotion.opponent,
    }))
}

/// `GET /api/submissions/{id}/promotion`: the test of a submission made on condition, to its author and the
/// organiser; 404 where it has none (not made on condition, or made active without a test).
pub async fn promotion(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> Result<Json<PromotionAnswer>, ApiError> {
    let author = required(&site, &headers)?;
    let submission = visible_submission(&site, &author, id)?;
    let answer = tokio::task::spawn_blocking(move || promotion_of(&site, &submission))
        .await
        .map_err(|_| ApiError::Failed("read its test"))??;
    answer.map(Json).ok_or(ApiError::NotFound)
}

/// What the submission's page shows of a test: the answer, and its numbers as the page's script writes them
/// when they change.
pub(super) fn shown(answer: &PromotionAnswer) -> minijinja::Value {
    let pentanomial: Vec<String> = answer.pentanomial.iter().map(u64::to_string).collect();
    context! {
        p => answer, llr => format!("{:.2}", answer.llr), lower => format!("{:.2}", answer.lower),
        upper => format!("{:.2}", answer.upper), pentanomial => pentanomial.join(" "),
        going => matches!(answer.state, PromotionState::Queued | PromotionState::Testing),
    }
}
