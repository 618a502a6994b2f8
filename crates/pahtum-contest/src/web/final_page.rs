//! The final's page and API: what it published before its first game, its
//! progress, its table with each prize boundary's separation, and its
//! journal to download and verify.
//!
//! Everything shown is read from the final's folder
//! ([`crate::finals::view`]): the journal verified, each round decided again
//! by the published rule, so the page shows the same schedule hash that
//! `arena verify` prints for the downloaded journal.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use minijinja::context;

use super::api::{ApiError, may_view};
use super::auth::caller;
use super::pages::{page, to_login};
use super::site::Site;
use crate::finals::{FinalView, folder_of};

/// The final as it stands, read off the async threads; `None` before it is set up.
async fn read(site: &Arc<Site>) -> Result<Option<Arc<FinalView>>, ApiError> {
    let site = Arc::clone(site);
    tokio::task::spawn_blocking(move || site.finals.get(&site.dir))
        .await
        .map_err(|_| ApiError::Failed("read the final"))?
        .map_err(|_| ApiError::Failed("read the final"))
}

/// `GET /final`: the final's page.
pub async fn final_page(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    let me = caller(&site, &headers);
    if !may_view(&site, me.as_ref()) {
        return to_login();
    }
    match read(&site).await {
        Ok(view) => page(&site, "final.html", me.as_ref(), context! { final => view.as_deref() }),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, "the final cannot be read now\n").into_response(),
    }
}

/// `GET /api/final`: the final as it stands; 404 before it is set up.
pub async fn final_api(State(site): State<Arc<Site>>, headers: HeaderMap) -> Result<Json<FinalView>, ApiError> {
    if !may_view(&site, caller(&site, &headers).as_ref()) {
        return Err(ApiError::Unauthorized);
    }
    let view = read(&site).await?.ok_or(ApiError::NotFound)?;
    Ok(Json(FinalView::clone(&view)))
}

/// `GET /api/final/journal`: the final's journal, every whole line of it.
pub async fn final_journal(State(site): State<Arc<Site>>, headers: HeaderMap) -> Result<Response, ApiError> {
    if !may_view(&site, caller(&site, &headers).as_ref()) {
        return Err(ApiError::Unauthorized);
    }
    let path = folder_of(&site.dir).join(pahtum_run::resume::JOURNAL);
    let mut bytes = match tokio::fs::read(&path).await {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Err(ApiError::NotFound),
        Err(_) => return Err(ApiError::Failed("read the final's journal")),
    };
    let end = bytes.iter().rposition(|&byte| byte == b'\n').map_or(0, |at| at + 1);
    bytes.truncate(end);
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-ndjson"),
            (header::CONTENT_DISPOSITION, "attachment; filename=\"final.jsonl\""),
        ],
        bytes,
    )
        .into_response())
}
