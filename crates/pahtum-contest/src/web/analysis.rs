//! "Analyse my lost games", asked from an author's page or through the API:
//! the request is queued in the database (one per author at a time, the
//! queue bounded), and [`crate::analyses`] works it off; the author's page
//! and `GET /api/analyses` say where it stands.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};

use super::api::{ApiError, Queued, required};
use super::auth::caller;
use super::pages::{refused, to_login};
use super::site::Site;
use crate::store::{AccountState, AnalysisRefused, AnalysisRequest, Author, Role, now_ms};

/// How many of an author's requests `GET /api/analyses` lists, the latest first.
const LISTED: usize = 20;

/// Queues a request of `author`'s to analyse its lost games.
fn queue(site: &Site, author: &Author) -> Result<i64, ApiError> {
    if author.role != Role::Author || author.state != AccountState::Active {
        return Err(ApiError::Forbidden(
            "only an author's active account asks for an analysis",
        ));
    }
    let queue = site.contest.limits.analysis_queue;
    match site.store.request_analysis(author.id, now_ms(), queue) {
        Ok(Ok(id)) => {
            site.analyses_queued.notify_one();
            Ok(id)
        }
        Ok(Err(AnalysisRefused::Pending)) => Err(ApiError::TooMany(
            "your last request to analyse is not done yet: one at a time; see it on your page".into(),
        )),
        Ok(Err(AnalysisRefused::QueueFull(queue))) => Err(ApiError::Busy(format!(
            "{queue} requests to analyse are waiting already; try again later"
        ))),
        Err(_) => Err(ApiError::Failed("queue the request")),
    }
}

/// `POST /api/analyses`: analyse the caller's latest lost games (`contest.toml`'s `analysis_games`).
pub async fn ask(State(site): State<Arc<Site>>, headers: HeaderMap) -> Result<(StatusCode, Json<Queued>), ApiError> {
    let author = required(&site, &headers)?;
    let id = queue(&site, &author)?;
    let url = "/api/analyses".to_owned();
    Ok((StatusCode::ACCEPTED, Json(Queued { id, url })))
}

/// `GET /api/analyses`: the caller's latest requests to analyse.
pub async fn list(State(site): State<Arc<Site>>, headers: HeaderMap) -> Result<Json<Vec<AnalysisRequest>>, ApiError> {
    let author = required(&site, &headers)?;
    let requests = site
        .store
        .analyses_of(author.id, LISTED)
        .map_err(|_| ApiError::Failed("read the requests"))?;
    Ok(Json(requests))
}

/// `POST /me/analyses`: the page's button; back to the page, which shows the request.
pub async fn ask_from_page(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    let Some(me) = caller(&site, &headers) else {
        return to_login();
    };
    match queue(&site, &me) {
        Ok(_) => Redirect::to("/me").into_response(),
        Err(why) => refused(&site, Some(&me), why),
    }
}
