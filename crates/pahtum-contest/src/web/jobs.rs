//! The authors' jobs on the pages and through the API: "analyse my lost
//! games" and unrated challenges. A request is queued in the database within
//! its rules ([`crate::jobs`]); the author's page and `GET /api/analyses`,
//! `GET /api/challenges` say where each stands, and a challenge's games
//! download as a journal. Only an author's active account asks, and each
//! author sees only their own.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Form, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::api::{ApiError, Queued, required};
use super::auth::caller;
use super::game::visible_challenge;
use super::pages::{refused, to_login};
use super::site::Site;
use crate::challenges::{Challenge, challenge_dir};
use crate::store::{AccountState, Author, Job, JobKind, JobRefused, Role, SubmissionState, now_ms};

/// How many of an author's jobs of a kind a list shows, the latest first.
const LISTED: usize = 20;

/// A challenge as asked: the entrant challenged and the layout pairs.
#[derive(Debug, Clone, Deserialize)]
pub struct ChallengeAsked {
    /// The entrant challenged (`NAME@VERSION`), one that plays in the contest.
    pub opponent: String,
    /// Layout pairs (two games each).
    pub pairs: u32,
}

/// Queues a job of `author`'s of `kind`, asking `asked`.
fn queue(site: &Site, author: &Author, kind: JobKind, asked: &serde_json::Value) -> Result<i64, ApiError> {
    if author.role != Role::Author || author.state != AccountState::Active {
        return Err(ApiError::Forbidden("only an author's active account asks for this"));
    }
    let rules = crate::jobs::rules(kind, &site.contest.limits);
    match site.store.request_job(author.id, kind, asked, rules, now_ms()) {
        Ok(Ok(id)) => {
            site.bells.of(kind).notify_one();
            Ok(id)
        }
        Ok(Err(JobRefused::Pending(_))) => Err(ApiError::TooMany(
            "your last request of this kind is not done yet: one at a time; see it on your page".into(),
        )),
        Ok(Err(JobRefused::Daily(per_day))) => Err(ApiError::TooMany(format!(
            "you have made your {per_day} challenges of the day; more tomorrow (UTC)"
        ))),
        Ok(Err(JobRefused::QueueFull(queue))) => Err(ApiError::Busy(format!(
            "{queue} requests of this kind are waiting already; try again later"
        ))),
        Err(_) => Err(ApiError::Failed("queue the request")),
    }
}

/// The challenge `asked` of `author`, checked: their active version against another author's that plays,
/// within the pairs allowed.
fn challenge(site: &Site, author: &Author, asked: &ChallengeAsked) -> Result<Challenge, ApiError> {
    let most = site.contest.limits.challenge_pairs;
    if asked.pairs == 0 || asked.pairs > most {
        return Err(ApiError::Bad(format!("a challenge is 1 to {most} layout pairs")));
    }
    let playing = site
        .store
        .submissions(None)
        .map_err(|_| ApiError::Failed("read the entrants"))?
        .into_iter()
        .filter(|submission| submission.state == SubmissionState::Playing);
    let (mut entrant, mut opponent) = (None, None);
    for submission in playing {
        match (submission.author == author.id, submission.label) {
            (true, Some(label)) => entrant = Some(label),
            (false, Some(label)) if label == asked.opponent => opponent = Some(label),
            _ => {}
        }
    }
    let entrant = entrant.ok_or_else(|| ApiError::Bad("your bot does not play in the contest yet".into()))?;
    let opponent = opponent.ok_or_else(|| {
        ApiError::Bad(format!(
            "no other author's entrant {:?} plays in the contest: choose one from the ladder",
            asked.opponent
        ))
    })?;
    Ok(Challenge {
        entrant,
        opponent,
        pairs: asked.pairs,
    })
}

/// `POST /api/analyses`: analyse the caller's latest lost games (`contest.toml`'s `analysis_games`).
pub async fn ask_analysis(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
) -> Result<(StatusCode, Json<Queued>), ApiError> {
    let author = required(&site, &headers)?;
    let id = queue(&site, &author, JobKind::Analysis, &serde_json::json!({}))?;
    let url = "/api/analyses".to_owned();
    Ok((StatusCode::ACCEPTED, Json(Queued { id, url })))
}

/// `POST /api/challenges` with `{"opponent": "NAME@VERSION", "pairs": N}`: challenge an entrant.
pub async fn ask_challenge(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Json(asked): Json<ChallengeAsked>,
) -> Result<(StatusCode, Json<Queued>), ApiError> {
    let author = required(&site, &headers)?;
    let challenge = challenge(&site, &author, &asked)?;
    let asked = serde_json::to_value(challenge).map_err(|_| ApiError::Failed("queue the request"))?;
    let id = queue(&site, &author, JobKind::Challenge, &asked)?;
    let url = "/api/challenges".to_owned();
    Ok((StatusCode::ACCEPTED, Json(Queued { id, url })))
}

/// The caller's latest jobs of `kind`.
fn listed(site: &Site, headers: &HeaderMap, kind: JobKind) -> Result<Json<Vec<Job>>, ApiError> {
    let author = required(site, headers)?;
    let jobs = site
        .store
        .jobs(Some(author.id), Some(kind), LISTED)
        .map_err(|_| ApiError::Failed("read the requests"))?;
    Ok(Json(jobs))
}

/// `GET /api/analyses`: the caller's latest requests to analyse.
pub async fn analyses(State(site): State<Arc<Site>>, headers: HeaderMap) -> Result<Json<Vec<Job>>, ApiError> {
    listed(&site, &headers, JobKind::Analysis)
}

/// `GET /api/challenges`: the caller's latest challenges.
pub async fn challenges(State(site): State<Arc<Site>>, headers: HeaderMap) -> Result<Json<Vec<Job>>, ApiError> {
    listed(&site, &headers, JobKind::Challenge)
}

/// `GET /api/challenges/{id}/journal`: a challenge's games, to its author and the organiser.
pub async fn challenge_journal(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    let author = required(&site, &headers)?;
    visible_challenge(&site, &author, id)?;
    let path = challenge_dir(&site.dir, id).join(pahtum_run::resume::JOURNAL);
    let bytes = tokio::fs::read(&path).await.map_err(|_| ApiError::NotFound)?;
    let end = bytes.iter().rposition(|&byte| byte == b'\n').map_or(0, |at| at + 1);
    let file = format!("attachment; filename=\"challenge-{id}.jsonl\"");
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-ndjson".to_owned()),
            (header::CONTENT_DISPOSITION, file),
        ],
        bytes[..end].to_vec(),
    )
        .into_response())
}

/// The answer of the page's buttons: back to the page, which shows the request, or why it was refused.
fn back_to_page(site: &Site, me: &Author, queued: Result<i64, ApiError>) -> Response {
    match queued {
        Ok(_) => Redirect::to("/me").into_response(),
        Err(why) => refused(site, Some(me), why),
    }
}

/// `POST /me/analyses`: the page's button.
pub async fn analysis_from_page(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    let Some(me) = caller(&site, &headers) else {
        return to_login();
    };
    let queued = queue(&site, &me, JobKind::Analysis, &serde_json::json!({}));
    back_to_page(&site, &me, queued)
}

/// `POST /me/challenges`: the page's form.
pub async fn challenge_from_page(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Form(asked): Form<ChallengeAsked>,
) -> Response {
    let Some(me) = caller(&site, &headers) else {
        return to_login();
    };
    let queued = challenge(&site, &me, &asked)
        .and_then(|challenge| serde_json::to_value(challenge).map_err(|_| ApiError::Failed("queue the request")))
        .and_then(|asked| queue(&site, &me, JobKind::Challenge, &asked));
    back_to_page(&site, &me, queued)
}
