//! The games in progress of a run, live on its page: each board advancing
//! move by move, with both bots' clocks and each bot's `info`.
//!
//! * **Where they come from.** A server serving its own run (`arena run
//!   --serve`) reads the runner's [`Live`] in the process. Any other follows
//!   the run folder's socket ([`LIVE_SOCKET`], written by the arena that
//!   plays there): one connection per run, however many clients follow it,
//!   whose lines are checked ([`LiveEvent`]) and fed to a `Live` of the
//!   server's own, so that the server holds the same state and serves its
//!   clients as the runner serves its readers. The socket is found by
//!   listing the served folder ([`crate::runs`]), never from a request; one
//!   that is not a socket, or where no one listens (a killed run's), is no
//!   run playing.
//! * **`/runs/NAME/games`**, server-sent events: each event is one or more
//!   lines, each a [`LiveEvent`] as JSON, a snapshot first. Each client reads
//!   through its own bounded place in the ring ([`Subscription`]): one that
//!   falls behind (a stalled tab) gets a fresh snapshot instead of the
//!   backlog, and holds up neither the games nor the other clients. A
//!   client's events come at once while they are few, and at most one every
//!   [`EVENTS_APART`] when they are many (a bucket of [`BURST`]), each with
//!   what came meanwhile, so that a fast run costs a page a hundred events a
//!   second, not one per move. When no game is being played (none yet, or
//!   the run ended), the client gets an empty snapshot and the stream waits
//!   for a run to start.
//! * **`/runs/NAME/replay`**, when a game has ended: the replay of its record,
//!   read from the journal where the end said it lies and checked to be that
//!   game's, in the form the report's viewer replays (`games.js` hands it
//!   over, so that the game followed becomes its replay).
//!
//! Everything a bot wrote (names, `info`) is shown by `games.js` as text only.

use std::collections::HashMap;
use std::convert::Infallible;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::http::{StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use pahtum_journal::{Span, read_line_at};
use pahtum_record::GameRecord;
use pahtum_report::html::data::{Comments, GameRow, Replay};
use pahtum_runner::live::{Live, LiveEvent, Subscription};
use pahtum_runner::live_socket::LIVE_SOCKET;
use tokio::io::AsyncReadExt;
use tokio::net::UnixStream;
use tokio::time::Instant;

/// The time between two events of one client, once it has used its [`BURST`].
pub const EVENTS_APART: Duration = Duration::from_millis(10);

/// The events a client may be sent at once after a quiet spell, before [`EVENTS_APART`] holds: a move and
/// the answer to it come without delay.
pub const BURST: f64 = 8.0;

/// How often a client looks for a run to start, when none plays.
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// The longest line accepted from a socket (a snapshot of many games in progress).
const MAX_LINE: usize = 16 << 20;

/// The longest record read back for a replay.
const MAX_RECORD: usize = 16 << 20;

/// The style and script of the games in progress, added to a run's page.
pub const PAGE_PART: &str = concat!(
    "<style>",
    include_str!("games.css"),
    "</style>\n<script>",
    include_str!("games.js"),
    "</script>\n"
);

/// The games in progress that the server follows.
#[derive(Debug)]
pub struct InProgress {
    /// The runner's, when the server serves its own run.
    own: Option<Arc<Live>>,
    /// Each run folder's socket being followed, by folder.
    relays: Arc<Mutex<HashMap<PathBuf, Arc<Live>>>>,
}

impl InProgress {
    /// The games of the server's own run, from `own`; else of the runs' sockets.
    pub fn new(own: Option<Arc<Live>>) -> InProgress {
        InProgress {
            own,
            relays: Arc::default(),
        }
    }

    /// A new reader of the games in progress of the run in `folder`, if one is being played.
    async fn follow(&self, folder: &Path) -> Option<Subscription> {
        if let Some(own) = &self.own {
            return own.is_open().then(|| own.subscribe());
        }
        if let Some(live) = self.relays().get(folder).filter(|live| live.is_open()) {
            return Some(live.subscribe());
        }
        let socket = folder.join(LIVE_SOCKET);
        if !std::fs::symlink_metadata(&socket).is_ok_and(|meta| meta.file_type().is_socket()) {
            return None;
        }
        let stream = UnixStream::connect(&socket).await.ok()?;
        let mut relays = self.relays();
        if let Some(live) = relays.get(folder).filter(|live| live.is_open()) {
            return Some(live.subscribe());
        }
        let live = Arc::new(Live::default());
        // Subscribed before the relay starts, which ends when no one reads.
        let subscription = live.subscribe();
        relays.insert(folder.to_owned(), Arc::clone(&live));
        tokio::spawn(relay(stream, live, Arc::clone(&self.relays), folder.to_owned()));
        Some(subscription)
    }

    fn relays(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Arc<Live>>> {
        self.relays.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Feeds `live` the events read from `stream` until the run ends, a line is not an event, or no one
/// reads; then closes it and forgets it.
async fn relay(
    mut stream: UnixStream,
    live: Arc<Live>,
    relays: Arc<Mutex<HashMap<PathBuf, Arc<Live>>>>,
    folder: PathBuf,
) {
    let mut buffer = Vec::with_capacity(64 << 10);
    'read: while live.readers() > 0 && matches!(stream.read_buf(&mut buffer).await, Ok(1..)) {
        let mut start = 0;
        while let Some(end) = buffer[start..].iter().position(|&byte| byte == b'\n') {
            let Ok(event) = serde_json::from_slice::<LiveEvent>(&buffer[start..start + end]) else {
                break 'read;
            };
            live.publish(event);
            start += end + 1;
        }
        buffer.drain(..start);
        if buffer.len() > MAX_LINE {
            break;
        }
    }
    live.close();
    let mut relays = relays.lock().unwrap_or_else(PoisonError::into_inner);
    if relays.get(&folder).is_some_and(|followed| Arc::ptr_eq(followed, &live)) {
        relays.remove(&folder);
    }
}

/// No game in progress.
const NONE_PLAYING: &str = r#"{"type":"snapshot","games":[],"ended":[]}"#;

/// A client's stream of the games in progress of the run in `folder`.
struct Follow {
    games: Arc<InProgress>,
    folder: PathBuf,
    reading: Option<Subscription>,
    /// Whether an event was sent.
    sent: bool,
    /// The events that may be sent at once (at most [`BURST`]), as of `paced`.
    credit: f64,
    paced: Instant,
}

impl Follow {
    /// The next event's data: lines of JSON.
    async fn next(&mut self) -> String {
        loop {
            if self.reading.is_some() {
                self.pace().await;
            }
            if let Some(reading) = &mut self.reading {
                let lines = reading.next().await;
                self.sent = true;
                return match lines {
                    Some(lines) => lines.join("\n"),
                    None => {
                        self.reading = None;
                        NONE_PLAYING.to_owned()
                    }
                };
            }
            self.reading = self.games.follow(&self.folder).await;
            if self.reading.is_none() {
                if !self.sent {
                    self.sent = true;
                    return NONE_PLAYING.to_owned();
                }
                tokio::time::sleep(LOOK_EVERY).await;
            }
        }
    }

    /// Takes one event's credit, waiting for it if there is none: the credit grows by one every
    /// [`EVENTS_APART`], up to [`BURST`].
    async fn pace(&mut self) {
        let now = Instant::now();
        let grown = now.duration_since(self.paced).as_secs_f64() / EVENTS_APART.as_secs_f64();
        self.credit = (self.credit + grown).min(BURST);
        self.paced = now;
        if self.credit < 1.0 {
            let wait = EVENTS_APART.mul_f64(1.0 - self.credit);
            tokio::time::sleep(wait).await;
            self.credit = 1.0;
            self.paced = now + wait;
        }
        self.credit -= 1.0;
    }
}

/// The event stream of the games in progress of the run whose journal is `journal`, from `games`.
pub fn events(games: Arc<InProgress>, journal: &Path) -> Response {
    let follow = Follow {
        games,
        folder: journal.parent().unwrap_or(Path::new(".")).to_owned(),
        reading: None,
        sent: false,
        credit: BURST,
        paced: Instant::now(),
    };
    let stream = futures_util::stream::unfold(follow, |mut follow| async move {
        let data = follow.next().await;
        Some((Ok::<_, Infallible>(Event::default().data(data)), follow))
    });
    Sse::new(stream).keep_alive(KeepAlive::default()).into_response()
}

/// Where an ended game's record lies, as its end said.
#[derive(Debug, serde::Deserialize)]
pub struct At {
    game: String,
    offset: u64,
    len: usize,
}

/// The replay of the game `at` names, from the run's `journal`, as the viewer takes it: `game` (its row),
/// `replay` and `comments`.
pub async fn replay(journal: PathBuf, at: At) -> Response {
    if at.len > MAX_RECORD {
        return StatusCode::NOT_FOUND.into_response();
    }
    let read = tokio::task::spawn_blocking(move || {
        let file = std::fs::File::open(&journal).ok()?;
        let span = Span {
            offset: at.offset,
            len: at.len,
        };
        let line = read_line_at(&file, &journal, span).ok()?;
        let record: GameRecord = serde_json::from_slice(&line).ok()?;
        if record.id != at.game {
            return None;
        }
        let mut comments = Comments::default();
        let replay = Replay::of(&record, &mut comments, None);
        let game = GameRow::read(&line).ok()?;
        let data = serde_json::json!({ "game": game, "replay": replay, "comments": comments.texts() });
        Some(data.to_string())
    })
    .await;
    match read {
        Ok(Some(json)) => ([(header::CONTENT_TYPE, "application/json")], json).into_response(),
        _ => (StatusCode::NOT_FOUND, "no such game there\n").into_response(),
    }
}
