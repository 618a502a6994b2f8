//! The JSON API: everything the pages show, for `arena submit` and authors'
//! scripts, with a token (`Authorization: Bearer`) or the session's cookie.
//!
//! Each answer is one of the types below, serialized as they are; an error
//! is `{"error": "..."}` with its status. `docs/contest-api.md` lists the
//! routes, and a test holds its examples to these types.

use std::io::Write;
use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::auth::{caller, may_see};
use super::calendar::closed_now;
use super::ladder::Ladder;
use super::records::{Games, journal_of};
use super::site::Site;
use crate::accounts::{new_secret, secret_hash};
use crate::builds::submission_dir;
use crate::config::Visibility;
use crate::service::UPLOADS;
use crate::store::now_ms;
use crate::store::{AccountState, Author, JobState, Refused, Role, Submission, SubmissionState, Token, Upload};

/// An error's answer.
#[derive(Debug, Serialize, Deserialize)]
pub struct ErrorAnswer {
    /// What went wrong, and what to do.
    pub error: String,
}

/// Why an API request was not answered, each with its status; the answer is `{"error": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiError {
    /// No session and no valid token.
    Unauthorized,
    /// Not there, or not the caller's to see: the two look the same.
    NotFound,
    /// The caller may not do this.
    Forbidden(&'static str),
    /// The season's phase does not allow it now, and why (with the instant it opens or closed).
    Closed(String),
    /// The request is wrong, and why.
    Bad(String),
    /// A quota is used up.
    TooMany(String),
    /// The server is too busy now.
    Busy(String),
    /// The server failed to do something.
    Failed(&'static str),
}

impl ApiError {
    /// Its status and its message.
    pub fn parts(self) -> (StatusCode, String) {
        match self {
            ApiError::Unauthorized => (
                StatusCode::UNAUTHORIZED,
                "log in, or send an API token as `Authorization: Bearer TOKEN` (make one on your page)".to_owned(),
            ),
            ApiError::NotFound => (StatusCode::NOT_FOUND, "there is no such thing here".to_owned()),
            ApiError::Forbidden(why) => (StatusCode::FORBIDDEN, why.to_owned()),
            ApiError::Closed(why) => (StatusCode::FORBIDDEN, why),
            ApiError::Bad(why) => (StatusCode::BAD_REQUEST, why),
            ApiError::TooMany(why) => (StatusCode::TOO_MANY_REQUESTS, why),
            ApiError::Busy(why) => (StatusCode::SERVICE_UNAVAILABLE, why),
            ApiError::Failed(what) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the server failed to {what}; try again"),
            ),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, message) = self.parts();
        (status, Json(ErrorAnswer { error: message })).into_response()
    }
}

/// The caller, or [`ApiError::Unauthorized`].
pub fn required(site: &Site, headers: &HeaderMap) -> Result<Author, ApiError> {
    caller(site, headers).ok_or(ApiError::Unauthorized)
}

/// Whether the public parts may be shown to `caller`.
pub fn may_view(site: &Site, caller: Option<&Author>) -> bool {
    site.contest.visibility == Visibility::Public || caller.is_some()
}

/// `GET /api/ladder`.
pub async fn ladder(State(site): State<Arc<Site>>, headers: HeaderMap) -> Result<Json<Ladder>, ApiError> {
    if !may_view(&site, caller(&site, &headers).as_ref()) {
        return Err(ApiError::Unauthorized);
    }
    let made = tokio::task::spawn_blocking(move || {
        site.ladder
            .get(&site.dir, &site.contest.name)
            .map_err(|error| error.to_string())
    })
    .await;
    match made {
        Ok(Ok(ladder)) => Ok(Json(ladder)),
        _ => Err(ApiError::Failed("read the league")),
    }
}

/// `GET /api/me`.
pub async fn me(State(site): State<Arc<Site>>, headers: HeaderMap) -> Result<Json<Author>, ApiError> {
    required(&site, &headers).map(Json)
}

/// `GET /api/submissions`: the caller's (the organiser's: everyone's), newest first.
pub async fn submissions(State(site): State<Arc<Site>>, headers: HeaderMap) -> Result<Json<Vec<Submission>>, ApiError> {
    let author = required(&site, &headers)?;
    let whose = (author.role != Role::Organiser).then_some(author.id);
    let list = site
        .store
        .submissions(whose)
        .map_err(|_| ApiError::Failed("read the submissions"))?;
    Ok(Json(list))
}

/// A submission queued.
#[derive(Debug, Serialize, Deserialize)]
pub struct Queued {
    /// Its number.
    pub id: i64,
    /// Where to follow it: `GET` it for its state.
    pub url: String,
}

/// Refuses a change of what plays, `what` ("submissions", "version changes"), outside the season's open
/// phase, with the instant it opens or closed.
fn open_to(site: &Site, what: &str) -> Result<(), ApiError> {
    match closed_now(site) {
        Ok(None) => Ok(()),
        Ok(Some(closed)) => Err(ApiError::Closed(closed.says(what))),
        Err(_) => Err(ApiError::Failed("read the season")),
    }
}

/// The header that names an upload that is a single source file.
pub const FILE_NAME_HEADER: &str = "x-file-name";

/// How a submission is made: `POST /api/submissions?if_not_weaker=true` makes it on condition.
#[derive(Debug, Deserialize)]
pub struct Condition {
    /// Make it the active version only if a test finds it not weaker than the one that plays
    /// ([`crate::promotions`]).
    #[serde(default)]
    pub if_not_weaker: bool,
}

/// `POST /api/submissions[?if_not_weaker=true]`: the body is the upload (a `.tar.gz`, a `.zip`, or one source
/// file named by `X-File-Name`), kept by its SHA-256, and queued within the author's daily quota and the
/// queue, while the season is open.
pub async fn submit(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Query(condition): Query<Condition>,
    body: Bytes,
) -> Result<(StatusCode, Json<Queued>), ApiError> {
    let author = required(&site, &headers)?;
    if author.role != Role::Author || author.state != AccountState::Active {
        return Err(ApiError::Forbidden("only an author's active account submits bots"));
    }
    open_to(&site, "submissions")?;
    if body.is_empty() {
        return Err(ApiError::Bad(
            "the upload is empty: send a .tar.gz, a .zip or a source file".into(),
        ));
    }
    let file_name = headers
        .get(FILE_NAME_HEADER)
        .and_then(|name| name.to_str().ok())
        .map(str::to_owned);
    let single = matches!(
        pahtum_upload::sniff(&body, None),
        pahtum_upload::Kind::SingleFile { .. }
    );
    if single && file_name.is_none() {
        return Err(ApiError::Bad(
            "the upload is neither a .tar.gz nor a .zip: send one, or a single source file named by the \
             X-File-Name header"
                .into(),
        ));
    }
    let archive = hex(&Sha256::digest(&body));
    let stored = {
        let site = Arc::clone(&site);
        let archive = archive.clone();
        tokio::task::spawn_blocking(move || keep_upload(&site, &archive, &body)).await
    };
    if !matches!(stored, Ok(Ok(()))) {
        return Err(ApiError::Failed("keep the upload"));
    }
    let limits = &site.contest.limits;
    let queued = site
        .store
        .submit(
            author.id,
            Upload {
                archive: &archive,
                file_name: file_name.filter(|_| single).as_deref(),
                if_not_weaker: condition.if_not_weaker,
            },
            now_ms(),
            limits.submissions_per_day,
            limits.build_queue,
        )
        .map_err(|_| ApiError::Failed("queue the submission"))?;
    match queued {
        Ok(id) => {
            site.queued.notify_one();
            let url = format!("/api/submissions/{id}");
            Ok((StatusCode::CREATED, Json(Queued { id, url })))
        }
        Err(Refused::Daily(quota)) => Err(ApiError::TooMany(format!(
            "you have made your {quota} submissions of today (UTC); submit again tomorrow"
        ))),
        Err(Refused::QueueFull(length)) => Err(ApiError::Busy(format!(
            "the build queue is full ({length} waiting); submit again in a few minutes"
        ))),
    }
}

/// Writes the upload under its hash, once: a partial file is never seen under the name.
fn keep_upload(site: &Site, archive: &str, body: &[u8]) -> std::io::Result<()> {
    let folder = site.dir.join(UPLOADS);
    let path = folder.join(archive);
    if path.exists() {
        return Ok(());
    }
    let mut partial = tempfile::NamedTempFile::new_in(&folder)?;
    partial.write_all(body)?;
    partial.as_file().sync_all()?;
    partial.persist(&path).map_err(|error| error.error)?;
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A submission as its owner sees it, with the logs it has.
#[derive(Debug, Serialize, Deserialize)]
pub struct SubmissionAnswer {
    /// The submission.
    #[serde(flatten)]
    pub submission: Submission,
    /// The logs it has so far (`build`, `check`), each at `/api/submissions/ID/logs/NAME`.
    pub logs: Vec<String>,
}

/// The submission `id`, if `author` may see it: [`ApiError::NotFound`] if there is none,
/// [`ApiError::Forbidden`] if it is another author's.
pub fn visible_submission(site: &Site, author: &Author, id: i64) -> Result<Submission, ApiError> {
    let submission = site
        .store
        .submission(id)
        .map_err(|_| ApiError::Failed("read the submission"))?
        .ok_or(ApiError::NotFound)?;
    if !may_see(author, submission.author) {
        return Err(ApiError::Forbidden(
            "this is another author's submission: only they and the organiser see it",
        ));
    }
    Ok(submission)
}

/// The logs a submission has, of the two it may have.
pub fn logs_of(site: &Site, id: i64) -> Vec<String> {
    LOGS.iter()
        .filter(|name| submission_dir(&site.dir, id).join(format!("{name}.log")).is_file())
        .map(|name| (*name).to_owned())
        .collect()
}

/// The logs a submission may have.
pub const LOGS: [&str; 2] = ["build", "check"];

/// `GET /api/submissions/{id}`.
pub async fn submission(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> Result<Json<SubmissionAnswer>, ApiError> {
    let author = required(&site, &headers)?;
    let submission = visible_submission(&site, &author, id)?;
    Ok(Json(SubmissionAnswer {
        logs: logs_of(&site, id),
        submission,
    }))
}

/// Where to read a log from.
#[derive(Debug, Deserialize)]
pub struct From {
    /// The byte to start at (what was read before).
    #[serde(default)]
    pub from: u64,
}

/// The most bytes of a log one answer holds.
const LOG_CHUNK: u64 = 1 << 20;

/// `GET /api/submissions/{id}/logs/{build|check}?from=N`: the log's bytes from `from`, as text.
pub async fn log(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Path((id, name)): Path<(i64, String)>,
    Query(from): Query<From>,
) -> Result<Response, ApiError> {
    let author = required(&site, &headers)?;
    let name = LOGS.iter().find(|log| **log == name).ok_or(ApiError::NotFound)?;
    visible_submission(&site, &author, id)?;
    let bytes =
        read_from(&submission_dir(&site.dir, id).join(format!("{name}.log")), from.from).ok_or(ApiError::NotFound)?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], bytes).into_response())
}

/// At most [`LOG_CHUNK`] bytes of the file at `path` from `from`.
pub fn read_from(path: &std::path::Path, from: u64) -> Option<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).ok()?;
    file.seek(SeekFrom::Start(from)).ok()?;
    let mut bytes = Vec::new();
    file.take(LOG_CHUNK).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// `GET /api/tokens`: the caller's tokens (never their secrets).
pub async fn tokens(State(site): State<Arc<Site>>, headers: HeaderMap) -> Result<Json<Vec<Token>>, ApiError> {
    let author = required(&site, &headers)?;
    let tokens = site
        .store
        .tokens_of(author.id)
        .map_err(|_| ApiError::Failed("read the tokens"))?;
    Ok(Json(tokens))
}

/// A token to make.
#[derive(Debug, Deserialize)]
pub struct NewToken {
    /// Its name (where it is used: "laptop", "CI").
    pub name: String,
}

/// A token made: its secret, shown this once.
#[derive(Debug, Serialize, Deserialize)]
pub struct MadeToken {
    /// Its number.
    pub id: i64,
    /// The secret, for `Authorization: Bearer`; it is not kept, so keep it.
    pub token: String,
}

/// Makes a token of `author`'s named `name`.
pub fn new_token(site: &Site, author: &Author, name: &str) -> Result<MadeToken, ApiError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 64 || name.chars().any(char::is_control) {
        return Err(ApiError::Bad(
            "name the token in 1 to 64 characters, none a control character".into(),
        ));
    }
    let token = new_secret();
    let id = site
        .store
        .add_token(author.id, name, &secret_hash(&token), now_ms())
        .map_err(|_| ApiError::Failed("make the token"))?;
    Ok(MadeToken { id, token })
}

/// `POST /api/tokens` with `{"name": ...}`.
pub async fn make_token(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Json(new): Json<NewToken>,
) -> Result<(StatusCode, Json<MadeToken>), ApiError> {
    let author = required(&site, &headers)?;
    Ok((StatusCode::CREATED, Json(new_token(&site, &author, &new.name)?)))
}

/// `DELETE /api/tokens/{id}`: revokes one of the caller's tokens.
pub async fn revoke_token(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> Result<StatusCode, ApiError> {
    let author = required(&site, &headers)?;
    match site.store.revoke_token(author.id, id, now_ms()) {
        Ok(true) => Ok(StatusCode::NO_CONTENT),
        Ok(false) => Err(ApiError::NotFound),
        Err(_) => Err(ApiError::Failed("revoke the token")),
    }
}

/// Which games a journal download holds.
#[derive(Debug, Deserialize)]
pub struct Whose {
    /// Only the games of the caller's own bot (`?mine=true`): still a league journal that `arena verify`
    /// checks, with every entrant, retirement and round line, and the games that one of the caller's
    /// versions played.
    #[serde(default)]
    pub mine: bool,
}

/// `GET /api/journal[?mine=true]`: the league's journal as it is now, to its last complete line: every game
/// with its record, which `arena verify` checks and `arena game --from` replays; with `mine`, only the
/// caller's games. Public, or for those logged in, as the ladder.
pub async fn journal(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Query(whose): Query<Whose>,
) -> Result<Response, ApiError> {
    let caller = caller(&site, &headers);
    if !may_view(&site, caller.as_ref()) {
        return Err(ApiError::Unauthorized);
    }
    let own = match (whose.mine, caller) {
        (false, _) => None,
        (true, Some(author)) => Some(author.name),
        (true, None) => return Err(ApiError::Unauthorized),
    };
    let path = site.journal();
    let mut bytes = tokio::fs::read(&path)
        .await
        .map_err(|_| ApiError::Failed("read the journal"))?;
    let end = bytes.iter().rposition(|&byte| byte == b'\n').map_or(0, |at| at + 1);
    bytes.truncate(end);
    if let Some(name) = own {
        bytes = tokio::task::spawn_blocking(move || journal_of(&bytes, &Games::Of(&name)))
            .await
            .map_err(|_| ApiError::Failed("read the journal"))?;
    }
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-ndjson"),
            (header::CONTENT_DISPOSITION, "attachment; filename=\"journal.jsonl\""),
        ],
        bytes,
    )
        .into_response())
}

/// `POST /api/submissions/{id}/activate`: makes the retired version of the caller's bot that submission
/// `id` made the one that plays again, at the ladder's next turn (the version playing now retires), while the
/// season is open.
pub async fn activate(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> Result<StatusCode, ApiError> {
    let author = required(&site, &headers)?;
    let submission = visible_submission(&site, &author, id)?;
    if submission.author != author.id {
        return Err(ApiError::Forbidden("only its author makes a version active"));
    }
    open_to(&site, "version changes")?;
    let testing = site
        .store
        .promotion_of(id)
        .map_err(|_| ApiError::Failed("read its test"))?
        .is_some_and(|job| matches!(job.state, JobState::Queued | JobState::Running));
    if testing {
        return Err(ApiError::Bad(
            "this version waits for its test, and becomes active if the test finds it not weaker: follow it on \
             its page"
                .into(),
        ));
    }
    match (submission.state, submission.label) {
        (SubmissionState::Retired, Some(label)) => {
            site.ready.activate(label);
            Ok(StatusCode::ACCEPTED)
        }
        _ => Err(ApiError::Bad("only a retired version can be made active again".into())),
    }
}
