//! The contest's pages, made on the server from its templates, every value
//! escaped as HTML: the ladder, logging in, an invitation, an author's own
//! page and submissions, and the organiser's page.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, Form, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use minijinja::context;
use pahtum_serve::page::render_named;
use serde::Deserialize;

use super::api::{ApiError, logs_of, may_view, new_token, read_from, visible_submission};
use super::auth::{caller, session_cookie, session_of};
use super::calendar;
use super::promotion::promotion_of;
use super::records::recent_games_of;
use super::site::Site;
use crate::accounts::{DECOY_HASH, acceptable, hash_password, new_secret, secret_hash, verify_password};
use crate::builds::submission_dir;
use crate::config::Registration;
use crate::store::now_ms;
use crate::store::{AccountState, Author, JobKind, Role, SubmissionState};
use pahtum_tournament::config::{PLAIN_NAME_RULE, is_plain_name};

/// How many of an author's last games their page lists.
const RECENT_GAMES: usize = 30;

const TEMPLATES: &[(&str, &str)] = &[
    ("layout.html", include_str!("templates/layout.html")),
    ("ladder.html", include_str!("templates/ladder.html")),
    ("login.html", include_str!("templates/login.html")),
    ("me.html", include_str!("templates/me.html")),
    ("submission.html", include_str!("templates/submission.html")),
    ("organiser.html", include_str!("templates/organiser.html")),
    ("refused.html", include_str!("templates/refused.html")),
    ("register.html", include_str!("templates/register.html")),
    ("game.html", include_str!("templates/game.html")),
    ("challenge.html", include_str!("templates/challenge.html")),
    ("season.html", include_str!("templates/season.html")),
    ("final.html", include_str!("templates/final.html")),
    ("boundaries.html", include_str!("templates/boundaries.html")),
];

/// The page `name` for `me`, with the contest's name, its season, and `context`.
pub(super) fn page(site: &Site, name: &str, me: Option<&Author>, context: minijinja::Value) -> Response {
    let base = context! { contest => site.contest.name, me => me, season => calendar::shown(site) };
    render_named(TEMPLATES, name, context! { ..context, ..base })
}

/// A Unix time in milliseconds as `2026-12-03 21:05` (UTC).
pub(super) fn when(unix_ms: i64) -> String {
    jiff::Timestamp::from_millisecond(unix_ms)
        .map(|at| at.strftime("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_default()
}

pub(super) fn to_login() -> Response {
    Redirect::to("/login").into_response()
}

/// The page that says why a request was refused, with its status.
pub(super) fn refused(site: &Site, me: Option<&Author>, why: ApiError) -> Response {
    let (status, message) = why.parts();
    let heading = status.canonical_reason().unwrap_or("Refused");
    let mut answer = page(
        site,
        "refused.html",
        me,
        context! { heading => heading, message => message },
    );
    *answer.status_mut() = status;
    answer
}

/// `GET /`: the ladder.
pub async fn ladder(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    let me = caller(&site, &headers);
    if !may_view(&site, me.as_ref()) {
        return to_login();
    }
    let read = {
        let site = Arc::clone(&site);
        tokio::task::spawn_blocking(move || {
            site.ladder
                .get(&site.dir, &site.contest.name)
                .map_err(|error| error.to_string())
        })
        .await
    };
    match read {
        Ok(Ok(ladder)) => page(&site, "ladder.html", me.as_ref(), context! { ladder => ladder }),
        _ => (StatusCode::INTERNAL_SERVER_ERROR, "the league cannot be read now\n").into_response(),
    }
}

/// `GET /games`: every game of the contest's league with its replay, as `arena report` makes the page.
pub async fn games(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    if !may_view(&site, caller(&site, &headers).as_ref()) {
        return to_login();
    }
    let made = {
        let site = Arc::clone(&site);
        tokio::task::spawn_blocking(move || {
            let journal = site.journal();
            let mut games = site.games.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            games.page(&journal).map_err(|error| error.to_string())
        })
        .await
    };
    match made {
        Ok(Ok(page)) => axum::response::Html(with_games_in_progress(page)).into_response(),
        _ => refused(&site, None, ApiError::Failed("make the games' page")),
    }
}

/// The games' page with the games in progress above it, as `arena serve` shows a run's: its script follows
/// `/games/games` and asks `/games/replay` for a game that ends.
fn with_games_in_progress(mut page: Vec<u8>) -> Vec<u8> {
    let end = page
        .windows(7)
        .rposition(|window| window == b"</body>")
        .unwrap_or(page.len());
    page.splice(end..end, pahtum_serve::games::PAGE_PART.bytes());
    page
}

/// `GET /games/games`: the games in progress, as server-sent events.
pub async fn games_in_progress(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    if !may_view(&site, caller(&site, &headers).as_ref()) {
        return ApiError::Unauthorized.into_response();
    }
    pahtum_serve::games::events(Arc::clone(&site.in_progress), &site.journal())
}

/// `GET /games/replay?game=&offset=&len=`: the replay of a game that ended, where its end said it lies.
pub async fn replay(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    axum::extract::Query(at): axum::extract::Query<pahtum_serve::games::At>,
) -> Response {
    if !may_view(&site, caller(&site, &headers).as_ref()) {
        return ApiError::Unauthorized.into_response();
    }
    pahtum_serve::games::replay(site.journal(), at).await
}

/// `GET /login`.
pub async fn login_form(State(site): State<Arc<Site>>) -> Response {
    login_page(&site, None, StatusCode::OK)
}

fn login_page(site: &Site, message: Option<&str>, status: StatusCode) -> Response {
    let context = context! {
        heading => "Log in", action => "/login", ask_name => true, button => "Log in", message => message,
        registration_open => site.contest.registration == Registration::Approval,
    };
    let mut answer = page(site, "login.html", None, context);
    *answer.status_mut() = status;
    answer
}

/// A login's form.
#[derive(Debug, Deserialize)]
pub struct Login {
    name: String,
    password: String,
}

/// `POST /login`: checks the password (as long for a name that does not exist), within the failed
/// logins allowed per address and per account, and starts a new session.
pub async fn login(
    State(site): State<Arc<Site>>,
    ConnectInfo(from): ConnectInfo<SocketAddr>,
    Form(login): Form<Login>,
) -> Response {
    let limited = || {
        login_page(
            &site,
            Some("too many tries: wait a minute"),
            StatusCode::TOO_MANY_REQUESTS,
        )
    };
    if site.logins.check_key(&from.ip()).is_err() || site.accounts.check_key(&login.name).is_err() {
        return limited();
    }
    let found = site.store.password_of(&login.name).ok().flatten();
    let hash = found
        .as_ref()
        .and_then(|(_, hash)| hash.clone())
        .unwrap_or_else(|| DECOY_HASH.clone());
    let matched = verify_password(login.password, hash).await;
    match found {
        Some((author, _)) if matched && author.state == AccountState::Active => start_session(&site, &author),
        Some((author, _)) if matched && author.state == AccountState::Pending => login_page(
            &site,
            Some("your account waits for the organiser's approval"),
            StatusCode::FORBIDDEN,
        ),
        _ => login_page(&site, Some("wrong name or password"), StatusCode::UNAUTHORIZED),
    }
}

/// A new session for `author`, its cookie set, and the way to its page.
fn start_session(site: &Site, author: &Author) -> Response {
    let session = new_secret();
    if site
        .store
        .add_session(author.id, &secret_hash(&session), now_ms())
        .is_err()
    {
        return (StatusCode::INTERNAL_SERVER_ERROR, "cannot start a session; try again\n").into_response();
    }
    let mut answer = Redirect::to("/me").into_response();
    answer
        .headers_mut()
        .insert(header::SET_COOKIE, session_cookie(site, Some(&session)));
    answer
}

/// `POST /logout`.
pub async fn logout(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    if let Some(session) = session_of(&headers) {
        let _ = site.store.end_session(&secret_hash(session));
    }
    let mut answer = Redirect::to("/").into_response();
    answer
        .headers_mut()
        .insert(header::SET_COOKIE, session_cookie(&site, None));
    answer
}

/// `GET /invitation/{secret}`: the form that sets the invited account's password.
pub async fn invitation_form(State(site): State<Arc<Site>>, Path(secret): Path<String>) -> Response {
    match site.store.invitation(&secret_hash(&secret), now_ms()).ok().flatten() {
        Some(author) => invitation_page(&site, &secret, &author, None, StatusCode::OK),
        None => login_page(
            &site,
            Some("this invitation was used or has expired"),
            StatusCode::NOT_FOUND,
        ),
    }
}

fn invitation_page(site: &Site, secret: &str, author: &Author, message: Option<&str>, status: StatusCode) -> Response {
    let context = context! {
        heading => "Choose your password", action => format!("/invitation/{secret}"), ask_name => false,
        account => author.name, button => "Set the password", message => message,
    };
    let mut answer = page(site, "login.html", None, context);
    *answer.status_mut() = status;
    answer
}

/// An invitation's form.
#[derive(Debug, Deserialize)]
pub struct NewPassword {
    password: String,
}

/// `POST /invitation/{secret}`: sets the password, uses the invitation, and logs in.
pub async fn accept_invitation(
    State(site): State<Arc<Site>>,
    Path(secret): Path<String>,
    Form(form): Form<NewPassword>,
) -> Response {
    let hash = secret_hash(&secret);
    let Some(author) = site.store.invitation(&hash, now_ms()).ok().flatten() else {
        return login_page(
            &site,
            Some("this invitation was used or has expired"),
            StatusCode::NOT_FOUND,
        );
    };
    if let Err(weak) = acceptable(&form.password) {
        return invitation_page(
            &site,
            &secret,
            &author,
            Some(&weak.to_string()),
            StatusCode::BAD_REQUEST,
        );
    }
    let password = hash_password(form.password).await;
    // Used once, whoever comes first: the password is set only by the request that used it.
    match site.store.use_invitation(&hash, now_ms()).ok().flatten() {
        Some(author) => {
            if site
                .store
                .set_password(author.id, &password, AccountState::Active)
                .is_err()
            {
                return (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "cannot set the password; try again\n",
                )
                    .into_response();
            }
            let author = Author {
                state: AccountState::Active,
                ..author
            };
            start_session(&site, &author)
        }
        None => login_page(
            &site,
            Some("this invitation was used or has expired"),
            StatusCode::NOT_FOUND,
        ),
    }
}

/// `GET /me`: the caller's submissions and tokens.
pub async fn own_page(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    let Some(me) = caller(&site, &headers) else {
        return to_login();
    };
    own(&site, &me, None).await
}

async fn own(site: &Arc<Site>, me: &Author, made: Option<&str>) -> Response {
    let games = {
        let (site, name) = (Arc::clone(site), me.name.clone());
        tokio::task::spawn_blocking(move || {
            let journal = std::fs::read(site.journal()).unwrap_or_default();
            recent_games_of(&journal, &name, RECENT_GAMES)
        })
        .await
        .unwrap_or_default()
    };
    let games: Vec<_> = games
        .into_iter()
        .map(|g| {
            let result = match g.result {
                pahtum::Outcome::White => format!("{} wins", g.white),
                pahtum::Outcome::Black => format!("{} wins", g.black),
                pahtum::Outcome::Draw => "draw".to_owned(),
            };
            context! { id => g.id, first => g.players.first, second => g.players.second, result => result,
            when => when(i64::try_from(g.ended_unix_ms).unwrap_or_default()) }
        })
        .collect();
    let submissions: Vec<_> = site
        .store
        .submissions(Some(me.id))
        .unwrap_or_default()
        .into_iter()
        .map(
            |s| context! { id => s.id, label => s.label, state => s.state, when => when(s.created_ms), note => s.note },
        )
        .collect();
    let tokens: Vec<_> = site
        .store
        .tokens_of(me.id)
        .unwrap_or_default()
        .into_iter()
        .map(|t| {
            context! {
                id => t.id, name => t.name, created => when(t.created_ms),
                used => t.used_ms.map(when), revoked => t.revoked_ms.is_some(),
            }
        })
        .collect();
    let jobs = |kind, most| -> Vec<minijinja::Value> {
        let jobs = site.store.jobs(Some(me.id), Some(kind), most).unwrap_or_default();
        jobs.into_iter()
            .map(|job| {
                context! {
                    id => job.id, state => job.state, asked => job.asked, outcome => job.outcome,
                    error => job.error.as_deref().map(shown), when => when(job.updated_ms),
                }
            })
            .collect()
    };
    // The entrants that may be challenged: every other author's playing version.
    let opponents: Vec<String> = site
        .store
        .submissions(None)
        .unwrap_or_default()
        .into_iter()
        .filter(|submission| submission.author != me.id && submission.state == SubmissionState::Playing)
        .filter_map(|submission| submission.label)
        .collect();
    let limits = &site.contest.limits;
    let context = context! {
        opponents => opponents,
        submissions => submissions, tokens => tokens, made => made, games => games,
        analysis => jobs(JobKind::Analysis, 1).pop(), challenges => jobs(JobKind::Challenge, 10),
        analysis_games => limits.analysis_games, challenge_pairs => limits.challenge_pairs,
        challenges_per_day => limits.challenges_per_day, promotion_games => site.contest.promotion.max_games,
    };
    page(site, "me.html", Some(me), context)
}

/// A token's form.
#[derive(Debug, Deserialize)]
pub struct TokenName {
    name: String,
}

/// `POST /me/tokens`: makes a token and shows it once.
pub async fn make_token(State(site): State<Arc<Site>>, headers: HeaderMap, Form(form): Form<TokenName>) -> Response {
    let Some(me) = caller(&site, &headers) else {
        return to_login();
    };
    match new_token(&site, &me, &form.name) {
        Ok(made) => own(&site, &me, Some(&made.token)).await,
        Err(why) => refused(&site, Some(&me), why),
    }
}

/// `POST /me/tokens/{id}/revoke`.
pub async fn revoke_token(State(site): State<Arc<Site>>, headers: HeaderMap, Path(id): Path<i64>) -> Response {
    let Some(me) = caller(&site, &headers) else {
        return to_login();
    };
    let _ = site.store.revoke_token(me.id, id, now_ms());
    Redirect::to("/me").into_response()
}

/// `GET /submissions/{id}`: a submission with its logs, to its author and the organiser only.
pub async fn submission_page(State(site): State<Arc<Site>>, headers: HeaderMap, Path(id): Path<i64>) -> Response {
    let Some(me) = caller(&site, &headers) else {
        return to_login();
    };
    let submission = match visible_submission(&site, &me, id) {
        Ok(submission) => submission,
        Err(why) => return refused(&site, Some(&me), why),
    };
    let logs: Vec<_> = logs_of(&site, id)
        .into_iter()
        .map(|name| {
            let bytes = read_from(&submission_dir(&site.dir, id).join(format!("{name}.log")), 0).unwrap_or_default();
            context! { name => name, text => shown(&String::from_utf8_lossy(&bytes)) }
        })
        .collect();
    let error = submission.error.as_deref().map(shown);
    let promotion = promotion_of(&site, &submission).ok().flatten();
    let mine = submission.author == me.id;
    let owner = (me.role == Role::Organiser)
        .then(|| {
            site.store
                .author(submission.author)
                .ok()
                .flatten()
                .map(|author| author.name)
        })
        .flatten();
    page(
        &site,
        "submission.html",
        Some(&me),
        context! {
            s => submission, error => error, logs => logs, owner => owner, mine => mine,
            promotion => promotion.as_ref().map(super::promotion::shown),
        },
    )
}

/// What a stranger's build or check wrote, its control characters shown rather than obeyed, line by line
/// (the template escapes the HTML).
pub(super) fn shown(text: &str) -> String {
    let lines: Vec<_> = text.lines().map(pahtum_protocol::untrusted::escape).collect();
    lines.join("\n")
}

/// `POST /organiser/authors/{id}/{active|disabled}`: approves, disables or enables an author's account.
pub async fn set_account(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Path((id, state)): Path<(i64, String)>,
) -> Response {
    let Some(me) = caller(&site, &headers).filter(|me| me.role == Role::Organiser) else {
        return refused(&site, None, ApiError::NotFound);
    };
    let state = match state.as_str() {
        "active" => AccountState::Active,
        "disabled" => AccountState::Disabled,
        _ => return refused(&site, Some(&me), ApiError::NotFound),
    };
    match site.store.author(id).ok().flatten() {
        Some(author) if author.role == Role::Author => {
            let _ = site.store.set_account_state(id, state, &me.name, now_ms());
            site.ready.arrived.notify_one();
            Redirect::to("/organiser").into_response()
        }
        _ => refused(&site, Some(&me), ApiError::NotFound),
    }
}

/// `GET /register`: the form of a new account, where `contest.toml` opens registration.
pub async fn register_form(State(site): State<Arc<Site>>) -> Response {
    if site.contest.registration != Registration::Approval {
        return refused(&site, None, ApiError::NotFound);
    }
    page(&site, "register.html", None, context! { done => false })
}

/// `POST /register`: a new account, pending until the organiser approves it; limited per address as
/// logins are.
pub async fn register(
    State(site): State<Arc<Site>>,
    ConnectInfo(from): ConnectInfo<SocketAddr>,
    Form(form): Form<Login>,
) -> Response {
    if site.contest.registration != Registration::Approval {
        return refused(&site, None, ApiError::NotFound);
    }
    let again = |message: String, status: StatusCode| {
        let mut answer = page(
            &site,
            "register.html",
            None,
            context! { done => false, message => message },
        );
        *answer.status_mut() = status;
        answer
    };
    if site.logins.check_key(&from.ip()).is_err() {
        return again("too many tries: wait a minute".into(), StatusCode::TOO_MANY_REQUESTS);
    }
    if !is_plain_name(&form.name) {
        return again(
            format!("the name cannot be an entrant's: {PLAIN_NAME_RULE}"),
            StatusCode::BAD_REQUEST,
        );
    }
    if let Err(weak) = acceptable(&form.password) {
        return again(weak.to_string(), StatusCode::BAD_REQUEST);
    }
    let hash = hash_password(form.password).await;
    let added = site
        .store
        .add_author(&form.name, Role::Author, AccountState::Pending, now_ms());
    match added {
        Ok(id) if site.store.set_password(id, &hash, AccountState::Pending).is_ok() => {
            let message = "registered: you can log in once the organiser has approved your account";
            page(
                &site,
                "register.html",
                None,
                context! { done => true, message => message },
            )
        }
        _ => again("that name is taken: choose another".into(), StatusCode::CONFLICT),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_read_as_utc_dates() {
        assert_eq!(super::when(0), "1970-01-01 00:00");
        assert_eq!(super::when(1_796_331_900_000), "2026-12-03 21:05");
        assert_eq!(super::when(951_782_400_000), "2000-02-29 00:00");
    }
}
