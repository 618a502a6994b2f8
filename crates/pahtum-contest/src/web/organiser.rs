//! What the organiser sees and does, on their page and through the API: the
//! accounts, every submission and job, the games lost by a forfeit, the
//! build queue and the machine's load; and voiding a game the arena failed,
//! which the ladder then plays again (it counts for no one). Everyone else
//! gets 404 from the page and 403 from the API: the organiser's view is not
//! shown to be there.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Form, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use minijinja::context;
use serde::{Deserialize, Serialize};

use super::api::{ApiError, required};
use super::auth::caller;
use super::pages::{page, refused, shown, when};
use super::records::{find_game, recent_games};
use super::site::Site;
use crate::store::{Author, Job, Role, Submission};

/// How many of the latest games that ended by a forfeit the organiser sees.
const FORFEITS: usize = 20;

/// How many of the latest jobs, of every author, the organiser sees.
const JOBS: usize = 50;

/// The longest reason the organiser gives for voiding a game, in characters.
const MAX_WHY: usize = 200;

/// A game lost by a forfeit, as the organiser sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Forfeited {
    /// The game's id.
    pub game: String,
    /// Its entrants by seat.
    pub first: String,
    /// The second seat's.
    pub second: String,
    /// How it ended (`timeout`, `disconnect`, ...).
    pub reason: String,
    /// The entrant that forfeited.
    pub bot: String,
    /// What happened, in the referee's sentence (the bot's words in it are the bot's: untrusted).
    pub detail: String,
    /// Lost on time while the machine was overloaded (such a game is played again without asking).
    pub overloaded: bool,
}

/// Everything the organiser's page shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrganiserView {
    /// Every account.
    pub authors: Vec<Author>,
    /// Every submission, the latest first.
    pub submissions: Vec<Submission>,
    /// The latest jobs of every author, the latest first.
    pub jobs: Vec<Job>,
    /// The latest games lost by a forfeit, the latest first.
    pub forfeits: Vec<Forfeited>,
    /// The submissions waiting to build.
    pub queued: usize,
    /// The machine's load: the run queue over the last minute (`/proc/loadavg`), where known.
    pub load: Option<f64>,
    /// The cores the server may use.
    pub cores: usize,
}

/// What the organiser sees now.
async fn view(site: &Arc<Site>) -> OrganiserView {
    let forfeits = {
        let site = Arc::clone(site);
        tokio::task::spawn_blocking(move || {
            let journal = std::fs::read(site.journal()).unwrap_or_default();
            recent_games(&journal, FORFEITS, None, |record| record.termination.forfeit.is_some())
        })
        .await
        .unwrap_or_default()
    };
    let forfeits = forfeits
        .into_iter()
        .filter_map(|record| {
            let forfeit = record.termination.forfeit.as_ref()?;
            Some(Forfeited {
                game: record.id.clone(),
                first: record.players.first.clone(),
                second: record.players.second.clone(),
                reason: record.termination.reason.to_string(),
                bot: forfeit.bot.clone(),
                detail: forfeit.detail.clone(),
                overloaded: forfeit.overloaded,
            })
        })
        .collect();
    OrganiserView {
        authors: site.store.authors().unwrap_or_default(),
        submissions: site.store.submissions(None).unwrap_or_default(),
        jobs: site.store.jobs(None, None, JOBS).unwrap_or_default(),
        forfeits,
        queued: site.store.queued().unwrap_or_default(),
        load: std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|text| text.split(' ').next()?.parse().ok()),
        cores: std::thread::available_parallelism().map_or(1, usize::from),
    }
}

/// The organiser among the callers, or why not.
pub(super) fn organiser(site: &Site, headers: &HeaderMap) -> Result<Author, ApiError> {
    let me = required(site, headers)?;
    if me.role != Role::Organiser {
        return Err(ApiError::Forbidden("only the organiser sees and does this"));
    }
    Ok(me)
}

/// Voids game `id` (the arena failed it, `why`): the ladder records it at its next turn and plays the game
/// again.
async fn void(site: &Arc<Site>, id: String, why: &str) -> Result<(), ApiError> {
    let found = {
        let site = Arc::clone(site);
        tokio::task::spawn_blocking(move || {
            let journal = std::fs::read(site.journal()).unwrap_or_default();
            find_game(&journal, &id)
        })
        .await
        .map_err(|_| ApiError::Failed("read the journal"))?
    };
    let (record, voided) = found.ok_or(ApiError::NotFound)?;
    if voided {
        return Err(ApiError::Bad(
            "this game is voided already: it is to be played again".into(),
        ));
    }
    // One line of plain text in the journal.
    let why: String = why
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_WHY)
        .collect();
    let why = if why.trim().is_empty() {
        "the arena failed it".to_owned()
    } else {
        why
    };
    site.ready.void(record.id, why);
    Ok(())
}

/// `GET /api/organiser`: everything the organiser's page shows.
pub async fn api_view(State(site): State<Arc<Site>>, headers: HeaderMap) -> Result<Json<OrganiserView>, ApiError> {
    organiser(&site, &headers)?;
    Ok(Json(view(&site).await))
}

/// The organiser's reason for voiding a game.
#[derive(Debug, Deserialize)]
pub struct VoidReason {
    /// Why, in a sentence (kept in the journal).
    pub why: String,
}

/// `POST /api/games/{id}/void` with `{"why": "..."}`: the game counts for no one and is played again.
pub async fn api_void(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Json(reason): Json<VoidReason>,
) -> Result<StatusCode, ApiError> {
    organiser(&site, &headers)?;
    void(&site, id, &reason.why).await?;
    Ok(StatusCode::ACCEPTED)
}

/// `GET /organiser`: the organiser's page.
pub async fn page_view(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    let Some(me) = caller(&site, &headers).filter(|me| me.role == Role::Organiser) else {
        return refused(&site, None, ApiError::NotFound);
    };
    let view = view(&site).await;
    let name_of = |id: i64| {
        view.authors
            .iter()
            .find(|author| author.id == id)
            .map(|author| author.name.clone())
    };
    let submissions: Vec<_> = view
        .submissions
        .iter()
        .map(|s| {
            context! {
                id => s.id, author_name => name_of(s.author), label => s.label, state => s.state,
                when => when(s.created_ms),
            }
        })
        .collect();
    let jobs: Vec<_> = view
        .jobs
        .iter()
        .map(|job| {
            context! {
                id => job.id, author_name => name_of(job.author), kind => job.kind, state => job.state,
                asked => job.asked, outcome => job.outcome, error => job.error.as_deref().map(shown),
                when => when(job.updated_ms),
            }
        })
        .collect();
    let forfeits: Vec<_> = view
        .forfeits
        .iter()
        .map(|f| {
            context! {
                id => f.game, first => f.first, second => f.second, reason => f.reason, bot => f.bot,
                detail => shown(&f.detail), overloaded => f.overloaded,
            }
        })
        .collect();
    let context = context! {
        authors => view.authors, submissions => submissions, jobs => jobs, forfeits => forfeits,
        queued => view.queued, load => view.load, cores => view.cores,
    };
    page(&site, "organiser.html", Some(&me), context)
}

/// `POST /organiser/games/{id}/void`: the page's form; back to the page, or why it was refused.
pub async fn page_void(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Form(reason): Form<VoidReason>,
) -> Response {
    let Some(me) = caller(&site, &headers).filter(|me| me.role == Role::Organiser) else {
        return refused(&site, None, ApiError::NotFound);
    };
    match void(&site, id, &reason.why).await {
        Ok(()) => Redirect::to("/organiser").into_response(),
        Err(why) => refused(&site, Some(&me), why),
    }
}
