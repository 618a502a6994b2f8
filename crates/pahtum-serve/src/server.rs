//! The server: the routes over the served folder, behind [`Access`].
//!
//! * `/`: the runs of the folder ([`crate::runs`]), kept current by the
//!   folder's event stream (`/events`);
//! * `/runs/NAME`: the run's `report.html`, made from its journal as
//!   `arena report` makes it, with a small script (`live.js`) that swaps in
//!   the new tables (`/runs/NAME/tables`: the same page without its games)
//!   when the run's event stream (`/runs/NAME/events`) says the journal grew,
//!   and the games in progress (`games.js`, from `/runs/NAME/games`; a game
//!   that ended replayed from `/runs/NAME/replay`: [`crate::games`]).
//!
//! Each page of a run is kept with the fold it was made from
//! ([`FollowedReport`]), which reads only the journal's new complete lines
//! when the page is made again: following a run costs the server in
//! proportion to the games played since it last looked, not to the journal's
//! size, whichever process writes the journal. The runs page's summaries
//! come from the same folds.
//!
//! The live data are server-sent events: one way, plain HTTP, reconnected by
//! the browser by itself, which is all a page that watches needs. Each
//! client's stream looks at the journal's length on its own, a few times a
//! second, and sends one line when it changed: no queue is kept for a
//! client, so one that stops reading costs the server nothing but its
//! connection.
//!
//! Every answer carries headers that keep the pages to themselves: no
//! framing, no sniffing, no referrer (an address may hold the token), and a
//! content security policy that allows the pages' own inline script and
//! style and connections to this server only.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Path as Param, Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use pahtum_report::run_report::{FollowedReport, RunReportError};
use tokio::net::TcpListener;

use crate::access::{Access, NeedsToken, TOKEN_COOKIE};
use crate::connections::{self, Limits};
use crate::games::{self, InProgress};
use crate::play::{self, Games, PlaySettings};
use crate::runs::{self, JOURNAL};

/// The largest request body accepted.
pub const MAX_BODY: usize = 16 * 1024;

/// How often a client's stream looks at what it follows.
const FOLLOW_EVERY: Duration = Duration::from_millis(250);

/// The least time between two events of one stream: a page that follows a
/// fast run asks for the page at most this often.
const EVENTS_APART: Duration = Duration::from_secs(1);

/// The least time between two makings of one page of a run: while a fast run
/// plays, its page is made at most this often, however many clients follow
/// it (a request that needs a newer page waits for the next one).
const PAGES_APART: Duration = Duration::from_secs(1);

/// How soon a browser reconnects a live stream that was cut.
const RECONNECT_AFTER: Duration = Duration::from_millis(500);

const LIVE_SCRIPT: &str = include_str!("live.js");
const RUNS_PAGE: &str = include_str!("runs.html");

/// What to serve, and where.
#[derive(Debug, Clone)]
pub struct Serve {
    /// The served folder: its runs are its folders with a journal.
    pub dir: PathBuf,
    /// The address to listen on.
    pub listen: SocketAddr,
    /// The access token; required when `listen` is not loopback.
    pub token: Option<String>,
    /// Serve only this run of `dir` (`arena run --serve`, `arena match --serve`).
    pub only: Option<String>,
    /// The games in progress of the run `only`, from its runner in this process.
    pub live: Option<Arc<pahtum_runner::live::Live>>,
    /// Offer play in the browser (`/play`), and how.
    pub play: Option<PlaySettings>,
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// No token for an address other than loopback.
    #[error(transparent)]
    NeedsToken(#[from] NeedsToken),
    /// The address could not be bound.
    #[error("cannot listen on {listen}")]
    Bind {
        /// The address.
        listen: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The served folder is not a folder.
    #[error("cannot serve {}: not a folder", dir.display())]
    NotAFolder {
        /// The folder.
        dir: PathBuf,
    },
    /// Serving failed.
    #[error("the server stopped")]
    Serve(#[source] std::io::Error),
}

/// A server bound to its address, not yet serving.
#[derive(Debug)]
pub struct Bound {
    listener: TcpListener,
    state: Arc<Served>,
    url: String,
    games: Option<Arc<Games>>,
}

#[derive(Debug)]
struct Served {
    dir: PathBuf,
    access: Access,
    only: Option<String>,
    /// The games in progress of the runs.
    in_progress: Arc<InProgress>,
    /// Whether play in the browser is offered.
    play: bool,
    /// Each run's pages, followed as its journal grows: one of each kind per run at most, made by one
    /// request at a time ([`Served::page`]).
    pages: std::sync::Mutex<std::collections::HashMap<(String, Kind), Slot>>,
}

/// Where a run's page of one kind is followed.
type Slot = Arc<std::sync::Mutex<Option<Followed>>>;

/// A run's page of one kind: the fold of its journal, and the page made last from it.
#[derive(Debug)]
struct Followed {
    report: FollowedReport,
    made: Option<Made>,
}

/// Which page of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    /// The whole report, with its games and replays.
    Report,
    /// The report's tables only (no game listed, no replay): what the live
    /// script swaps in, a few KiB where the whole page may be megabytes.
    Tables,
}

impl Kind {
    fn options(self) -> pahtum_report::html::Options {
        match self {
            Kind::Report => pahtum_report::html::Options::default(),
            Kind::Tables => pahtum_report::html::Options {
                max_replays: 0,
                replay_bytes: 0,
                max_listed: 0,
                bare: true,
            },
        }
    }
}

/// A run's page as it was made.
#[derive(Debug, Clone)]
struct Made {
    /// The journal's length it was made from.
    length: u64,
    /// When.
    at: std::time::Instant,
    page: Bytes,
}

impl Serve {
    /// Binds the address.
    pub async fn bind(self) -> Result<Bound, ServeError> {
        if !self.dir.is_dir() {
            return Err(ServeError::NotAFolder { dir: self.dir });
        }
        let access = Access::new(self.listen, self.token)?;
        let listener = TcpListener::bind(self.listen)
            .await
            .map_err(|source| ServeError::Bind {
                listen: self.listen,
                source,
            })?;
        let bound = listener.local_addr().map_err(ServeError::Serve)?;
        let host = if bound.ip().is_loopback() && bound.is_ipv4() {
            format!("127.0.0.1:{}", bound.port())
        } else {
            bound.to_string()
        };
        let page = match &self.only {
            Some(name) => format!("runs/{}", encode(name)),
            None => String::new(),
        };
        let url = match access.token() {
            Some(token) => format!("http://{host}/{page}?token={token}"),
            None => format!("http://{host}/{page}"),
        };
        let games = self.play.map(|settings| Arc::new(Games::new(settings, &self.dir)));
        let served = Served {
            play: games.is_some(),
            dir: self.dir,
            access,
            only: self.only,
            in_progress: Arc::new(InProgress::new(self.live)),
            pages: Default::default(),
        };
        Ok(Bound {
            listener,
            state: Arc::new(served),
            url,
            games,
        })
    }
}

impl Bound {
    /// The address to open, with the token when there is one.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Serves until `shutdown` completes.
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<(), ServeError> {
        let router = Router::new();
        let router = match self.games {
            Some(games) => router.merge(play::router(games)),
            None => router,
        };
        let router = router
            .route("/", get(runs_page))
            .route("/events", get(folder_events))
            .route("/runs/{name}", get(run_page))
            .route("/runs/{name}/tables", get(run_tables))
            .route("/runs/{name}/events", get(run_events))
            .route("/runs/{name}/games", get(run_games))
            .route("/runs/{name}/replay", get(run_replay))
            .layer(DefaultBodyLimit::max(MAX_BODY))
            .layer(middleware::from_fn_with_state(Arc::clone(&self.state), guard))
            .with_state(self.state);
        connections::serve(self.listener, router, Limits::default(), shutdown)
            .await
            .map_err(ServeError::Serve)
    }
}

/// Checks every request against [`Access`], and adds the headers every answer carries.
async fn guard(State(served): State<Arc<Served>>, request: Request, next: Next) -> Response {
    let checked = served
        .access
        .check(request.method(), request.uri().query(), request.headers());
    let mut response = match checked {
        Err(refusal) => (refusal.status(), refusal.message()).into_response(),
        Ok(granted) => {
            let mut response = next.run(request).await;
            if granted.set_cookie
                && let Some(token) = served.access.token()
                && let Ok(cookie) =
                    HeaderValue::from_str(&format!("{TOKEN_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/"))
            {
                response.headers_mut().insert(header::SET_COOKIE, cookie);
            }
            response
        }
    };
    crate::access::secure(response.headers_mut());
    response
}

async fn runs_page(State(served): State<Arc<Served>>) -> Response {
    // Taken before the summaries: a change made meanwhile makes the page reload.
    let state = folder_event(&served.dir);
    let summaries = Arc::clone(&served);
    let listed = tokio::task::spawn_blocking(move || summaries.summaries()).await;
    let Ok(runs) = listed else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let context = minijinja::context! {
        folder => served.dir.display().to_string(),
        runs => runs,
        state => state,
        play => served.play,
        played => play::played(&served.dir),
    };
    crate::page::render(RUNS_PAGE, context)
}

/// What a page request may say: the journal's length that the page must
/// show at least (from the run's event), else its length now.
#[derive(Debug, serde::Deserialize)]
struct AtLeast {
    length: Option<u64>,
}

async fn run_page(
    State(served): State<Arc<Served>>,
    Param(name): Param<String>,
    Query(at): Query<AtLeast>,
) -> Response {
    page_of(served, name, Kind::Report, at.length).await
}

async fn run_tables(
    State(served): State<Arc<Served>>,
    Param(name): Param<String>,
    Query(at): Query<AtLeast>,
) -> Response {
    page_of(served, name, Kind::Tables, at.length).await
}

async fn page_of(served: Arc<Served>, name: String, kind: Kind, at_least: Option<u64>) -> Response {
    let Some(journal) = served.journal_of(&name) else {
        return not_a_run();
    };
    let at_least = at_least.unwrap_or_else(|| length(&journal));
    // Waited here, not on a blocking thread: a run's page is made at most once every PAGES_APART.
    tokio::time::sleep(served.wait_for_page(&name, kind, at_least)).await;
    let made = tokio::task::spawn_blocking(move || served.page(&name, kind, &journal, at_least)).await;
    match made {
        Ok(Ok(made)) if kind == Kind::Report => Html(live(&made)).into_response(),
        Ok(Ok(made)) => Html(Body::from(made.page)).into_response(),
        Ok(Err(error)) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot make the page: {error}\n"),
        )
            .into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// The journal's length now (0 if it cannot be read).
fn length(journal: &Path) -> u64 {
    std::fs::metadata(journal).map(|meta| meta.len()).unwrap_or(0)
}

impl Served {
    /// The journal of the run `name`, if it is served.
    fn journal_of(&self, name: &str) -> Option<PathBuf> {
        if self.only.as_ref().is_some_and(|only| only != name) {
            return None;
        }
        runs::journal_of(&self.dir, name)
    }

    /// The summaries of the runs served, by name; a run whose journal cannot be read is left out.
    fn summaries(&self) -> Vec<runs::RunSummary> {
        let mut listed = runs::list(&self.dir);
        if let Some(only) = &self.only {
            listed.retain(|(name, _)| name == only);
        }
        listed
            .into_iter()
            .filter_map(|(name, journal)| {
                let slot = self.slot(&name, Kind::Tables);
                let mut followed = slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                let folded =
                    follow(&mut followed, Kind::Tables, &journal).and_then(|followed| followed.report.folded());
                Some(runs::summary(name, &journal, &folded.ok()?))
            })
            .collect()
    }

    /// The place of the last page of the run `name` of `kind`.
    fn slot(&self, name: &str, kind: Kind) -> Slot {
        match self.pages.lock() {
            Ok(mut pages) => Arc::clone(pages.entry((name.to_owned(), kind)).or_default()),
            Err(_) => Arc::default(),
        }
    }

    /// How long to wait before a page made from at least `at_least` bytes of
    /// the journal may be made: none if the last page is recent enough or
    /// old enough, else the rest of [`PAGES_APART`].
    fn wait_for_page(&self, name: &str, kind: Kind, at_least: u64) -> Duration {
        let slot = self.slot(name, kind);
        let followed = slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match followed.as_ref().and_then(|followed| followed.made.as_ref()) {
            Some(made) if made.length < at_least => PAGES_APART.saturating_sub(made.at.elapsed()),
            _ => Duration::ZERO,
        }
    }

    /// The page of the run `name`, whose journal is `journal`, made from at
    /// least `at_least` bytes of it (or all its complete lines): the one made
    /// last if it is, else a new one, from the fold of the journal brought up
    /// to date. One request at a time makes a run's page; the others wait for
    /// it and take it when it is recent enough for them.
    fn page(&self, name: &str, kind: Kind, journal: &Path, at_least: u64) -> Result<Made, RunReportError> {
        let slot = self.slot(name, kind);
        let mut followed = slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(made) = followed.as_ref().and_then(|followed| followed.made.as_ref())
            && made.length >= at_least
        {
            return Ok(made.clone());
        }
        let Followed { report, made } = follow(&mut followed, kind, journal)?;
        let length = report.bytes_read();
        if let Some(made) = made
            && made.length == length
        {
            return Ok(made.clone());
        }
        Ok(made
            .insert(Made {
                length,
                at: std::time::Instant::now(),
                page: Bytes::from(report.page()?),
            })
            .clone())
    }
}

/// The run's page of `kind` in `followed`, its fold brought up to date with the journal at `journal`
/// (started if there was none). A fold that fails is dropped, so that the next request reads the journal
/// afresh.
fn follow<'a>(
    followed: &'a mut Option<Followed>,
    kind: Kind,
    journal: &Path,
) -> Result<&'a mut Followed, RunReportError> {
    let mut current = match followed.take() {
        Some(current) => current,
        None => Followed {
            report: FollowedReport::open(journal, kind.options())?,
            made: None,
        },
    };
    current.report.update()?;
    Ok(followed.insert(current))
}

/// `name` for an address's path: letters, digits and `-_.~` as they are,
/// every other byte as `%XX`.
fn encode(name: &str) -> String {
    name.bytes()
        .map(|byte| match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (byte as char).to_string(),
            other => format!("%{other:02X}"),
        })
        .collect()
}

fn not_a_run() -> Response {
    (StatusCode::NOT_FOUND, "no such run here\n").into_response()
}

/// The page `made` with the live script before its `</body>`, told the journal's length the page shows.
/// The page's bytes are shared by every answer, not copied for each.
fn live(made: &Made) -> Body {
    let page = &made.page;
    let end = page
        .windows(7)
        .rposition(|window| window == b"</body>")
        .unwrap_or(page.len());
    let script = format!(
        "<script>const journalShown = {};\n{LIVE_SCRIPT}</script>\n",
        made.length
    );
    let parts = [
        page.slice(..end),
        Bytes::from(script),
        Bytes::from_static(games::PAGE_PART.as_bytes()),
        page.slice(end..),
    ];
    Body::from_stream(futures_util::stream::iter(parts.map(Ok::<_, Infallible>)))
}

async fn run_events(State(served): State<Arc<Served>>, Param(name): Param<String>) -> Response {
    let Some(journal) = served.journal_of(&name) else {
        return not_a_run();
    };
    changes(move || length(&journal).to_string()).into_response()
}

async fn run_games(State(served): State<Arc<Served>>, Param(name): Param<String>) -> Response {
    match served.journal_of(&name) {
        Some(journal) => games::events(Arc::clone(&served.in_progress), &journal),
        None => not_a_run(),
    }
}

async fn run_replay(
    State(served): State<Arc<Served>>,
    Param(name): Param<String>,
    Query(at): Query<games::At>,
) -> Response {
    match served.journal_of(&name) {
        Some(journal) => games::replay(journal, at).await,
        None => not_a_run(),
    }
}

async fn folder_events(State(served): State<Arc<Served>>) -> Response {
    let dir = served.dir.clone();
    changes(move || folder_event(&dir)).into_response()
}

/// What the folder's event stream says: the sum of its journals' lengths and how many there are.
fn folder_event(dir: &Path) -> String {
    let (bytes, runs) = folder_state(dir);
    format!("{bytes} {runs}")
}

/// What changes when a run of `dir` changes: the sum of its journals'
/// lengths and how many there are.
fn folder_state(dir: &Path) -> (u64, u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (0, 0);
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| std::fs::metadata(entry.path().join(JOURNAL)).ok())
        .fold((0, 0), |(bytes, runs), meta| (bytes + meta.len(), runs + 1))
}

/// A stream that sends what `look` gives (as text) at once, then each time it gives another
/// answer than the time before, looking every [`FOLLOW_EVERY`], and then not again for
/// [`EVENTS_APART`]. Sending the state at once lets a client that lost its connection
/// (the browser reconnects by itself) catch up with what changed meanwhile.
fn changes(
    look: impl Fn() -> String + Send + 'static,
) -> Sse<impl futures_util::Stream<Item = Result<Event, Infallible>>> {
    let stream = async_stream(look);
    Sse::new(stream).keep_alive(KeepAlive::default())
}

fn async_stream(
    look: impl Fn() -> String + Send + 'static,
) -> impl futures_util::Stream<Item = Result<Event, Infallible>> {
    // After an event, the stream is quiet for EVENTS_APART: a fast run's page
    // is fetched at most that often. The first look is sent whatever it finds.
    futures_util::stream::unfold((look, None, Duration::ZERO), |(look, mut seen, mut pause)| async move {
        loop {
            tokio::time::sleep(pause).await;
            pause = FOLLOW_EVERY;
            let now = look();
            if seen.as_ref() != Some(&now) {
                let event = Event::default().data(&now).retry(RECONNECT_AFTER);
                seen = Some(now);
                return Some((Ok(event), (look, seen, EVENTS_APART)));
            }
        }
    })
}
