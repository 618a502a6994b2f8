//! The contest's pages and its JSON API, on `arena serve`'s access rules,
//! headers and connection limits.
//!
//! Every request passes [`guard`] first: the `Host` is the contest's (its
//! public address, or loopback), a request that changes something comes
//! from the contest's own origin, and every answer carries the server's
//! security headers. Who asks is then the session or the token
//! ([`auth`]); what belongs to an author (its submissions, their logs, its
//! tokens) answers only to that author and the organiser, and 403 to anyone
//! else ([`pages`], [`api`]). Nothing a request
//! says becomes a path or a command: a submission is a number looked up in
//! the database, a log one of two fixed names.

pub mod api;
pub mod auth;
mod calendar;
pub mod final_page;
pub mod game;
pub mod jobs;
pub mod ladder;
pub mod organiser;
pub mod pages;
pub mod promotion;
pub mod records;
pub mod season;
mod site;

pub(crate) use calendar::closed_now;
pub use site::{Bells, MAX_FORM, Site};

use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use pahtum_serve::access::secure;

/// The contest's routes.
pub fn router(site: Arc<Site>) -> Router {
    let upload_limit = usize::try_from(site.contest.limits.upload_bytes).unwrap_or(usize::MAX);
    let uploads = Router::new()
        .route("/api/submissions", post(api::submit))
        .layer(DefaultBodyLimit::max(upload_limit));
    Router::new()
        .route("/", get(pages::ladder))
        .route("/games", get(pages::games))
        .route("/games/games", get(pages::games_in_progress))
        .route("/games/replay", get(pages::replay))
        .route("/games/{id}", get(game::game_page))
        .route("/login", get(pages::login_form).post(pages::login))
        .route("/logout", post(pages::logout))
        .route("/register", get(pages::register_form).post(pages::register))
        .route(
            "/invitation/{secret}",
            get(pages::invitation_form).post(pages::accept_invitation),
        )
        .route("/me", get(pages::own_page))
        .route("/me/tokens", post(pages::make_token))
        .route("/me/analyses", post(jobs::analysis_from_page))
        .route("/me/challenges", post(jobs::challenge_from_page))
        .route("/me/tokens/{id}/revoke", post(pages::revoke_token))
        .route("/submissions/{id}", get(pages::submission_page))
        .route("/organiser", get(organiser::page_view))
        .route("/organiser/authors/{id}/{state}", post(pages::set_account))
        .route("/organiser/games/{id}/void", post(organiser::page_void))
        .route("/api/organiser", get(organiser::api_view))
        .route("/api/games/{id}/void", post(organiser::api_void))
        .route("/api/ladder", get(api::ladder))
        .route("/final", get(final_page::final_page))
        .route("/api/final", get(final_page::final_api))
        .route("/api/final/journal", get(final_page::final_journal))
        .route("/api/journal", get(api::journal))
        .route("/api/games/{id}/bundle", get(game::bundle))
        .route("/api/games/{id}/stderr/{seat}", get(game::stderr))
        .route("/api/me", get(api::me))
        .route("/api/submissions", get(api::submissions))
        .route("/api/submissions/{id}", get(api::submission))
        .route("/api/submissions/{id}/logs/{log}", get(api::log))
        .route("/api/submissions/{id}/activate", post(api::activate))
        .route("/api/submissions/{id}/promotion", get(promotion::promotion))
        .route("/api/analyses", get(jobs::analyses).post(jobs::ask_analysis))
        .route("/api/challenges", get(jobs::challenges).post(jobs::ask_challenge))
        .route("/api/challenges/{id}/journal", get(jobs::challenge_journal))
        .route("/challenges/{id}", get(game::challenge_page))
        .route("/challenges/{id}/games/{game}", get(game::challenge_game_page))
        .route("/api/tokens", get(api::tokens).post(api::make_token))
        .route("/api/tokens/{id}", axum::routing::delete(api::revoke_token))
        .route("/season", get(season::season_page))
        .route("/api/season", get(season::api_season))
        .route("/organiser/phases", post(season::page_move))
        .route("/api/organiser/phases", post(season::api_move))
        .layer(DefaultBodyLimit::max(MAX_FORM))
        .merge(uploads)
        .layer(middleware::from_fn_with_state(Arc::clone(&site), guard))
        .with_state(site)
}

/// Checks every request against the access rules, and adds the security headers to every answer.
async fn guard(State(site): State<Arc<Site>>, request: Request, next: Next) -> Response {
    let checked = site.access.check(request.method(), None, request.headers());
    let mut response = match checked {
        Err(refusal) => (refusal.status(), refusal.message()).into_response(),
        Ok(_) => next.run(request).await,
    };
    secure(response.headers_mut());
    response
}
