//! One game of the contest, of its league or of a challenge: its page (every
//! ply, and beside each the stderr that the viewer's own bot wrote while it
//! chose it), its stderr through the API, and its bundle to replay it at
//! home; and a challenge's page, its games listed.
//!
//! A game is public as the games are (`contest.toml`'s visibility); a bot's
//! stderr is its author's and the organiser's alone: anyone else gets 403
//! from the API, and the page leaves the column out. The game is named by an
//! id that is looked up in the league's journal, and the log by the label
//! the journal gives for its seat: nothing a request says becomes a path.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use minijinja::context;
use pahtum::{Outcome, Seat};
use pahtum_protocol::untrusted::escape;
use pahtum_record::{GameRecord, MoveKind};
use pahtum_referee::stderr_log::{StderrLine, When};
use serde::Serialize;

use super::api::{ApiError, may_view};
use super::auth::{caller, may_see};
use super::pages::{page, refused, to_login};
use super::records::{Games, find_game, is_of, journal_of, stderr_of};
use super::site::Site;
use crate::challenges::challenge_dir;
use crate::service::LEAGUE;
use crate::store::{Author, Job, JobKind, Role};

/// Whether `me` may read the stderr of the entrant `label`: its author, and the organiser.
pub fn owns(me: Option<&Author>, label: &str) -> bool {
    me.is_some_and(|me| me.role == Role::Organiser || is_of(label, &me.name))
}

/// Where a game lies: in the league's journal, or in a challenge's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// The contest's league.
    League,
    /// Challenge number N, in its own folder.
    Challenge(i64),
}

impl Source {
    /// The journal the games are in.
    fn journal(self, site: &Site) -> std::path::PathBuf {
        match self {
            Source::League => site.journal(),
            Source::Challenge(id) => challenge_dir(&site.dir, id).join(pahtum_run::resume::JOURNAL),
        }
    }

    /// The folder of their bots' stderr logs.
    fn logs(self, site: &Site) -> std::path::PathBuf {
        match self {
            Source::League => site.dir.join(LEAGUE).join("logs"),
            Source::Challenge(id) => challenge_dir(&site.dir, id).join("logs"),
        }
    }
}

/// Game `id`'s record in `source`, read off the async runtime, whether a later line voids it, and the
/// journal it is in.
async fn record_of(site: &Arc<Site>, source: Source, id: String) -> Result<(GameRecord, bool, Vec<u8>), ApiError> {
    let site = Arc::clone(site);
    tokio::task::spawn_blocking(move || {
        let journal = std::fs::read(source.journal(&site)).map_err(|_| ApiError::NotFound)?;
        let (record, voided) = find_game(&journal, &id).ok_or(ApiError::NotFound)?;
        Ok((record, voided, journal))
    })
    .await
    .map_err(|_| ApiError::Failed("read the journal"))?
}

/// Challenge `id`, where `me` may see it (its author and the organiser); 403 for anyone else.
pub(super) fn visible_challenge(site: &Site, me: &Author, id: i64) -> Result<Job, ApiError> {
    let job = site.store.job(id).map_err(|_| ApiError::Failed("read the challenge"))?;
    let job = job
        .filter(|job| job.kind == JobKind::Challenge)
        .ok_or(ApiError::NotFound)?;
    if !may_see(me, job.author) {
        return Err(ApiError::Forbidden("a challenge is its author's"));
    }
    Ok(job)
}

/// The stderr of the entrant in `seat` of `record`, where its author is `me` (or `me` is the organiser);
/// `Ok(None)` where the log holds nothing of the game.
fn seat_stderr(
    site: &Site,
    source: Source,
    me: Option<&Author>,
    record: &GameRecord,
    seat: Seat,
) -> Result<Option<Vec<StderrLine>>, ApiError> {
    let label = record.players.of(seat);
    if !owns(me, label) {
        return Err(ApiError::Forbidden("a bot's stderr is for its author alone"));
    }
    Ok(stderr_of(&source.logs(site), label, &record.id))
}

/// `GET /api/games/{id}/stderr/{seat}` (`first` or `second`): what the caller's bot in that seat wrote to
/// stderr in the game, each line with the ply it was written for.
pub async fn stderr(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Path((id, seat)): Path<(String, String)>,
) -> Result<Json<Vec<StderrLine>>, ApiError> {
    let me = caller(&site, &headers).ok_or(ApiError::Unauthorized)?;
    let seat = match seat.as_str() {
        "first" => Seat::First,
        "second" => Seat::Second,
        _ => return Err(ApiError::NotFound),
    };
    let (record, _, _) = record_of(&site, Source::League, id).await?;
    let lines = tokio::task::spawn_blocking(move || seat_stderr(&site, Source::League, Some(&me), &record, seat))
        .await
        .map_err(|_| ApiError::Failed("read the log"))??;
    Ok(Json(lines.unwrap_or_default()))
}

/// `GET /api/games/{id}/bundle`: the game as a league journal of its own (the header, the entrants with
/// their content hashes and commands, the rounds, and the game), which `arena verify` checks and
/// `arena game --from` replays from.
pub async fn bundle(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    if !may_view(&site, caller(&site, &headers).as_ref()) {
        return Err(ApiError::Unauthorized);
    }
    let (record, _, journal) = record_of(&site, Source::League, id).await?;
    let bundle = journal_of(&journal, &Games::One(&record.id));
    // The id is the journal's (the league numbers its games), not the request's.
    let file = format!("attachment; filename=\"game-{}.jsonl\"", record.id);
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-ndjson".to_owned()),
            (header::CONTENT_DISPOSITION, file),
        ],
        bundle,
    )
        .into_response())
}

/// One ply of the page.
#[derive(Debug, Serialize)]
struct Ply {
    number: usize,
    who: String,
    what: String,
    ms: String,
    /// The stderr lines of the first and the second seat's bot for this ply (shown only to their author).
    stderr: [Vec<String>; 2],
}

/// `GET /games/{id}`: the game's plies, with the viewer's own bots' stderr beside them.
pub async fn game_page(State(site): State<Arc<Site>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    let me = caller(&site, &headers);
    if !may_view(&site, me.as_ref()) {
        return to_login();
    }
    page_of_game(&site, me, Source::League, id).await
}

/// `GET /challenges/{id}/games/{game}`: a game of a challenge, as [`game_page`] shows the league's, to the
/// challenge's author and the organiser.
pub async fn challenge_game_page(
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Path((id, game)): Path<(i64, String)>,
) -> Response {
    let Some(me) = caller(&site, &headers) else {
        return to_login();
    };
    if let Err(why) = visible_challenge(&site, &me, id) {
        return refused(&site, Some(&me), why);
    }
    page_of_game(&site, Some(me), Source::Challenge(id), game).await
}

/// `GET /challenges/{id}`: a challenge and its games, to its author and the organiser.
pub async fn challenge_page(State(site): State<Arc<Site>>, headers: HeaderMap, Path(id): Path<i64>) -> Response {
    let Some(me) = caller(&site, &headers) else {
        return to_login();
    };
    let job = match visible_challenge(&site, &me, id) {
        Ok(job) => job,
        Err(why) => return refused(&site, Some(&me), why),
    };
    let journal = tokio::fs::read(Source::Challenge(id).journal(&site))
        .await
        .unwrap_or_default();
    let games: Vec<_> = journal
        .split(|&byte| byte == b'\n')
        .skip(1)
        .filter_map(|line| serde_json::from_slice::<GameRecord>(line).ok())
        .map(|record| {
            context! {
                id => record.id, first => record.players.first, second => record.players.second,
                result => result_of(&record),
            }
        })
        .collect();
    let context = context! {
        id => id, state => job.state, asked => job.asked, outcome => job.outcome,
        error => job.error.as_deref().map(|error| escape(error).into_owned()), games => games,
    };
    page(&site, "challenge.html", Some(&me), context)
}

/// The page of game `id` of `source` for `me`.
async fn page_of_game(site: &Arc<Site>, me: Option<Author>, source: Source, id: String) -> Response {
    let (record, voided, _) = match record_of(site, source, id).await {
        Ok(found) => found,
        Err(why) => return refused(site, me.as_ref(), why),
    };
    let made = {
        let (site, me) = (Arc::clone(site), me.clone());
        tokio::task::spawn_blocking(move || {
            let logs =
                [Seat::First, Seat::Second].map(|seat| seat_stderr(&site, source, me.as_ref(), &record, seat).ok());
            (record, logs)
        })
        .await
    };
    let Ok((record, logs)) = made else {
        return refused(site, me.as_ref(), ApiError::Failed("read the logs"));
    };
    let shown = logs.each_ref().map(Option::is_some);
    let mut plies = plies_of(&record);
    let mut before: [Vec<String>; 2] = Default::default();
    let mut after: [Vec<String>; 2] = Default::default();
    for (seat, lines) in logs.into_iter().enumerate() {
        for line in lines.flatten().into_iter().flatten() {
            let text = escape(&line.text).into_owned();
            match line.when {
                When::Start => before[seat].push(text),
                When::End => after[seat].push(text),
                When::Ply(number) => match plies.iter_mut().find(|ply| ply.number == number as usize) {
                    Some(ply) => ply.stderr[seat].push(text),
                    None => after[seat].push(text),
                },
            }
        }
    }
    let challenge = match source {
        Source::League => None,
        Source::Challenge(id) => Some(id),
    };
    let context = context! {
        game => record.id, first => record.players.first, second => record.players.second,
        white => record.white, black => record.black, result => result_of(&record), challenge => challenge,
        voided => voided,
        score => format!("{}–{}", record.score.white, record.score.black),
        reason => record.termination.reason.to_string(),
        detail => record.termination.forfeit.as_ref().map(|forfeit| escape(&forfeit.detail).into_owned()),
        plies => plies, shown => shown, before => before, after => after,
    };
    page(site, "game.html", me.as_ref(), context)
}

/// Who won `record`, in words.
fn result_of(record: &GameRecord) -> String {
    match record.result {
        Outcome::White => format!("{} (White) wins", record.white),
        Outcome::Black => format!("{} (Black) wins", record.black),
        Outcome::Draw => "a draw".to_owned(),
    }
}

/// The plies of `record` in the arena's numbering, the pie decision included.
fn plies_of(record: &GameRecord) -> Vec<Ply> {
    let ply = |number, seat: Seat, what: String, ms: f64| Ply {
        number,
        who: record.players.of(seat).to_owned(),
        what,
        ms: format!("{ms:.1}"),
        stderr: Default::default(),
    };
    let mut plies: Vec<Ply> = record
        .moves
        .iter()
        .enumerate()
        .map(|(index, played)| {
            let what = match played.kind {
                MoveKind::Block => format!("#{}", played.cell),
                MoveKind::Stone => played.cell.to_string(),
            };
            ply(
                record.ply_of_move(index),
                record.seat_of_move(index),
                what,
                played.timing.ms,
            )
        })
        .collect();
    if let (Some(number), Some(swap)) = (record.pie_ply(), record.swap) {
        let ms = record.swap_move.as_ref().map_or(0.0, |timing| timing.ms);
        let what = if swap { "swap" } else { "keep" };
        plies.insert(number - 1, ply(number, Seat::Second, what.to_owned(), ms));
    }
    plies
}
