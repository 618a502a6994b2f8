//! One game of the contest: its page (every ply, and beside each the stderr
//! that the viewer's own bot wrote while it chose it), its stderr through the
//! API, and its bundle to replay it at home.
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
use super::auth::caller;
use super::pages::{page, refused, to_login};
use super::records::{Games, find_game, is_of, journal_of, stderr_of};
use super::site::Site;
use crate::service::LEAGUE;
use crate::store::{Author, Role};

/// Whether `me` may read the stderr of the entrant `label`: its author, and the organiser.
pub fn owns(me: Option<&Author>, label: &str) -> bool {
    me.is_some_and(|me| me.role == Role::Organiser || is_of(label, &me.name))
}

/// The league's journal as it is now.
fn journal(site: &Site) -> Result<Vec<u8>, ApiError> {
    std::fs::read(site.journal()).map_err(|_| ApiError::Failed("read the journal"))
}

/// Game `id`'s record, read off the async runtime.
async fn record_of(site: &Arc<Site>, id: String) -> Result<(GameRecord, Vec<u8>), ApiError> {
    let site = Arc::clone(site);
    tokio::task::spawn_blocking(move || {
        let journal = journal(&site)?;
        let record = find_game(&journal, &id).ok_or(ApiError::NotFound)?;
        Ok((record, journal))
    })
    .await
    .map_err(|_| ApiError::Failed("read the journal"))?
}

/// The stderr of the entrant in `seat` of `record`, where its author is `me` (or `me` is the organiser);
/// `Ok(None)` where the log holds nothing of the game.
fn seat_stderr(
    site: &Site,
    me: Option<&Author>,
    record: &GameRecord,
    seat: Seat,
) -> Result<Option<Vec<StderrLine>>, ApiError> {
    let label = record.players.of(seat);
    if !owns(me, label) {
        return Err(ApiError::Forbidden("a bot's stderr is for its author alone"));
    }
    Ok(stderr_of(&site.dir.join(LEAGUE).join("logs"), label, &record.id))
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
    let (record, _) = record_of(&site, id).await?;
    let lines = tokio::task::spawn_blocking(move || seat_stderr(&site, Some(&me), &record, seat))
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
    let (record, journal) = record_of(&site, id).await?;
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
    let (record, _) = match record_of(&site, id).await {
        Ok(found) => found,
        Err(why) => return refused(&site, me.as_ref(), why),
    };
    let made = {
        let (site, me) = (Arc::clone(&site), me.clone());
        tokio::task::spawn_blocking(move || {
            let logs = [Seat::First, Seat::Second].map(|seat| seat_stderr(&site, me.as_ref(), &record, seat).ok());
            (record, logs)
        })
        .await
    };
    let Ok((record, logs)) = made else {
        return refused(&site, me.as_ref(), ApiError::Failed("read the logs"));
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
    let result = match record.result {
        Outcome::White => format!("{} (White) wins", record.white),
        Outcome::Black => format!("{} (Black) wins", record.black),
        Outcome::Draw => "a draw".to_owned(),
    };
    let context = context! {
        game => record.id, first => record.players.first, second => record.players.second,
        white => record.white, black => record.black, result => result,
        score => format!("{}–{}", record.score.white, record.score.black),
        reason => record.termination.reason.to_string(),
        detail => record.termination.forfeit.as_ref().map(|forfeit| escape(&forfeit.detail).into_owned()),
        plies => plies, shown => shown, before => before, after => after,
    };
    page(&site, "game.html", me.as_ref(), context)
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
