//! The season on the pages and through the API: every page shows the
//! phases (each instant in UTC in the page itself, the reader's local time
//! and a countdown to the next added by a small script), `/season` and
//! `GET /api/season` say where the season stands and how the organiser
//! moved it, and the organiser moves a phase that has not begun from their
//! page or with `POST /api/organiser/phases`.
//!
//! What every page shows of the season, and what it refuses (a submission,
//! or a change of the version that plays, outside the open phase), is in
//! `calendar.rs`.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Form, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Redirect, Response};
use jiff::Timestamp;
use minijinja::context;
use serde::{Deserialize, Serialize};

use super::api::ApiError;
use super::auth::caller;
use super::calendar::utc;
use super::organiser::organiser;
use super::pages::{page, refused, when};
use super::site::Site;
use crate::causes::chain;
use crate::season::{self, Phase, PhaseKey, PhaseMove, Phases};
use crate::store::{Author, Role};

/// Where the season stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeasonAnswer {
    /// The phases in effect (`contest.toml`'s, with the organiser's moves applied); none for a contest
    /// without `[phases]`, which is always open.
    pub phases: Option<Phases>,
    /// The phase now.
    pub phase: Phase,
    /// The next instant, and the phase it starts; none once the season has ended, or without phases.
    pub next: Option<NextPhase>,
    /// The server's time when it answered.
    pub now: Timestamp,
    /// The organiser's moves, the first first.
    pub moves: Vec<PhaseMove>,
}

/// The next instant of the season.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NextPhase {
    /// The phase it starts.
    pub phase: Phase,
    /// When.
    pub at: Timestamp,
}

/// The organiser's move of a phase.
#[derive(Debug, Deserialize)]
pub struct MovePhase {
    /// The phase's key: `open`, `freeze`, `final` or `end`.
    pub phase: PhaseKey,
    /// Its new instant, RFC 3339 in UTC.
    pub at: String,
}

/// The season at `now`.
fn season_at(site: &Site, now: Timestamp) -> Result<SeasonAnswer, ApiError> {
    let failed = |_| ApiError::Failed("read the season");
    let phases = season::effective(&site.contest, &site.store).map_err(failed)?;
    let moves = match phases {
        Some(_) => site.store.phase_moves().map_err(failed)?,
        None => Vec::new(),
    };
    Ok(SeasonAnswer {
        phase: phases.map_or(Phase::Open, |phases| phases.at(now)),
        next: phases
            .and_then(|phases| phases.next(now))
            .map(|(phase, at)| NextPhase { phase, at }),
        phases,
        now,
        moves,
    })
}

/// `GET /api/season`: the phases in effect, the phase now, the next instant, and the organiser's moves.
/// Public: the season is no secret.
pub async fn api_season(State(site): State<Arc<Site>>) -> Result<Json<SeasonAnswer>, ApiError> {
    season_at(&site, Timestamp::now()).map(Json)
}

/// `GET /season`: the season's page.
pub async fn season_page(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    let me = caller(&site, &headers);
    // The final's progress, once it is set up, for those who may see the ladder.
    let final_view = if super::api::may_view(&site, me.as_ref()) {
        let site = Arc::clone(&site);
        tokio::task::spawn_blocking(move || site.finals.get(&site.dir).ok().flatten())
            .await
            .ok()
            .flatten()
    } else {
        None
    };
    match season_at(&site, Timestamp::now()) {
        Ok(season) => {
            let moves: Vec<_> = season
                .moves
                .iter()
                .map(|moved| {
                    context! {
                        says => moved.phase.says(), at => moved.at.to_string(), utc => utc(moved.at),
                        who => moved.who, when => when(moved.moved_ms),
                    }
                })
                .collect();
            page(
                &site,
                "season.html",
                me.as_ref(),
                context! { moves => moves, final => final_view.as_deref() },
            )
        }
        Err(why) => refused(&site, me.as_ref(), why),
    }
}

/// Moves a phase as the organiser `me` asked: the season after it, or why not.
fn move_phase(site: &Site, me: &Author, asked: &MovePhase) -> Result<SeasonAnswer, ApiError> {
    let to = season::parse_instant(asked.phase, &asked.at).map_err(|error| ApiError::Bad(chain(&error)))?;
    let now = Timestamp::now();
    season::move_phase(&site.contest, &site.store, asked.phase, to, &me.name, now)
        .map_err(|_| ApiError::Failed("move the phase"))?
        .map_err(|refused| ApiError::Bad(chain(&refused)))?;
    // Every task waiting for an instant wakes now; one that waits next (it was between two waits) wakes at
    // once, so that none misses the move.
    site.phases_moved.notify_waiters();
    site.phases_moved.notify_one();
    season_at(site, now)
}

/// `POST /api/organiser/phases` with `{"phase": "freeze", "at": "2026-12-20T12:00:00Z"}`: the season after the
/// move; 400 with why it was refused; 403 to anyone but the organiser.
pub async fn api_move(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Json(asked): Json<MovePhase>,
) -> Result<Json<SeasonAnswer>, ApiError> {
    let me = organiser(&site, &headers)?;
    move_phase(&site, &me, &asked).map(Json)
}

/// `POST /organiser/phases`: the organiser page's form; back to the page, or why it was refused.
pub async fn page_move(State(site): State<Arc<Site>>, headers: HeaderMap, Form(asked): Form<MovePhase>) -> Response {
    let Some(me) = caller(&site, &headers).filter(|me| me.role == Role::Organiser) else {
        return refused(&site, None, ApiError::NotFound);
    };
    match move_phase(&site, &me, &asked) {
        Ok(_) => Redirect::to("/organiser").into_response(),
        Err(why) => refused(&site, Some(&me), why),
    }
}
