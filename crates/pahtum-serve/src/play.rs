//! Play in the browser (`/play`): a person against a bot of the server's
//! [`Roster`], each game a normal referee game in which the person is a seat
//! ([`Human`]) and the bot a supervised process started for that game alone.
//!
//! * `GET /play`: the form (`play.html`): the opponent, by its roster name
//!   only, the colour, the blocks, the pie rule and the bot's time per move;
//! * `POST /play/new`: starts a game, or says "busy" (503) when
//!   [`PlaySettings::max_games`] are being played; answers with the game's id
//!   once the person is first asked (or the game ended);
//! * `GET /play/ID`: the game's page, the report's one-game page (the one
//!   viewer) with the play controls (`play.js`) added; `GET /play/ID/state`
//!   its state as JSON, waiting (`?after=VERSION`) until it changes;
//! * `POST /play/ID/move`, `/undo`, `/resign`: the person's answer to the
//!   turn they are asked, which returns once the bot has answered.
//!
//! The transport is plain requests: the person drives the game, so each of
//! their actions gets the bot's answer as its response, and a page that
//! reloads asks for the state (waiting on it while the bot thinks). Every
//! state-changing request is a `POST`, checked by [`crate::access`] like any
//! other (token, `Origin`, `Sec-Fetch-Site`, the body's size).
//!
//! Each game is saved as the one game of a journal, `DIR/play/ID/journal.jsonl`,
//! whose tournament is the person and the bot with the game's rules, so that
//! `arena verify`, `arena report` and the replay read it as any other. A game
//! with no request for [`PlaySettings::abandon_after`] is resigned and its
//! bot stopped; the game's task ends with its game, so nothing outlives it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path as Param, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use pahtum::{Action, Color, Game, Phase};
use pahtum_journal::{Journal, JournalReader, Moves};
use pahtum_protocol::{Reason, UNLIMITED_MOVE_MS, move_time};
use pahtum_record::{GameRecord, GameSpec};
use pahtum_referee::{Bot, Human, HumanMove, Limits, Player, Turn, play_players};
use pahtum_tournament::config::{BlockSource, BotConfig, Format, Launch, RulesConfig, Tournament};
use pahtum_tournament::schedule::Schedule;
use serde::Deserialize;
use tokio::sync::watch;

use crate::roster::Roster;

const FORM_PAGE: &str = include_str!("play.html");
const PLAY_SCRIPT: &str = include_str!("play.js");
const CONTROLS: &str = include_str!("play-controls.html");

/// The folder of the played games inside the served folder.
pub const PLAY_DIR: &str = "play";

/// The journal's name in a game's folder.
const JOURNAL: &str = "journal.jsonl";

/// The person's name in the records, unless a bot of the roster has it.
const PERSON: &str = "you";

/// The bot's time per move that a game may ask for, in milliseconds.
const MOVE_MS: std::ops::RangeInclusive<u64> = 10..=60_000;

/// How long a request for the state waits for a change.
const STATE_WAIT: Duration = Duration::from_secs(20);

/// How play is offered.
#[derive(Debug, Clone)]
pub struct PlaySettings {
    /// The bots a person may play.
    pub roster: Roster,
    /// The most games played at once (each has its own bot process).
    pub max_games: usize,
    /// A game with no request for this long is resigned.
    pub abandon_after: Duration,
    /// The referee's limits off the game clock (start, ready, quit).
    pub limits: Limits,
}

/// The games of the server: those being played, and where they are saved.
#[derive(Debug)]
pub(crate) struct Games {
    settings: PlaySettings,
    /// `DIR/play`.
    dir: PathBuf,
    live: Mutex<HashMap<String, Arc<Session>>>,
}

/// One game being played.
#[derive(Debug)]
struct Session {
    /// The person's name and the bot's.
    person: String,
    bot: String,
    view: watch::Sender<View>,
    /// The turn the person is asked now, if it is theirs.
    turn: Mutex<Option<Turn>>,
    /// When a request last named the game.
    touched: Mutex<Instant>,
}

/// Where a game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
enum Stage {
    /// The person is asked.
    YourMove,
    /// The bot is asked (or the game is starting).
    Thinking,
    Over,
}

/// What the page shows of a game: its record so far and what is asked.
#[derive(Debug, Clone)]
struct View {
    version: u64,
    stage: Stage,
    record: Option<Arc<GameRecord>>,
    can_undo: bool,
    /// What the person is asked: a stone, a block or the pie decision.
    asked: Option<&'static str>,
}

/// The form of a new game.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    /// The roster name of the opponent.
    bot: String,
    /// `white`, `black` or `random`.
    color: String,
    blocks: Blocks,
    pie: bool,
    move_ms: u64,
}

/// The blocks of a new game.
#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum Blocks {
    /// N blocks drawn at random.
    Random { count: usize },
    /// A count drawn from an odd range, then the blocks at random.
    Range { min: usize, max: usize },
    /// N blocks placed by the players.
    Placed { count: usize },
}

/// The person's action.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Move {
    /// A cell for a stone or a block.
    cell: Option<String>,
    /// The pie decision.
    swap: Option<bool>,
}

/// A refusal: its status and what to do.
type Refusal = (StatusCode, String);

fn refuse(status: StatusCode, message: impl Into<String>) -> Refusal {
    (status, message.into() + "\n")
}

impl Games {
    pub(crate) fn new(settings: PlaySettings, served: &Path) -> Games {
        Games {
            settings,
            dir: served.join(PLAY_DIR),
            live: Mutex::default(),
        }
    }

    fn session(&self, id: &str) -> Option<Arc<Session>> {
        let live = self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let session = live.get(id).cloned()?;
        *session
            .touched
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Instant::now();
        Some(session)
    }

    /// The journal of the finished game `id`, if `id` is a game's id (hex digits) and its folder holds one.
    fn journal_of(&self, id: &str) -> Option<PathBuf> {
        let plain = !id.is_empty() && id.len() <= 64 && id.bytes().all(|byte| byte.is_ascii_hexdigit());
        let journal = self.dir.join(id).join(JOURNAL);
        (plain && journal.is_file()).then_some(journal)
    }

    /// The record of the finished game `id`, read from its journal, with the
    /// person's name and the bot's (its tournament's two bots).
    fn finished(&self, id: &str) -> Option<(GameRecord, String, String)> {
        let reader = JournalReader::open(&self.journal_of(id)?).ok()?;
        let names = reader.header().tournament.bot_names();
        let [person, bot] = <[String; 2]>::try_from(names).ok()?;
        let mut record = None;
        reader.for_each(Moves::Keep, |read| record = Some(read)).ok()?;
        Some((record?, person, bot))
    }

    /// Starts the game of `form`; its id once the person is first asked or the game ended.
    async fn start(self: &Arc<Games>, form: NewGame) -> Result<String, Refusal> {
        let Some(opponent) = self.settings.roster.get(&form.bot).cloned() else {
            return Err(refuse(
                StatusCode::BAD_REQUEST,
                format!("there is no bot {:?} here: choose one of the roster", form.bot),
            ));
        };
        if !MOVE_MS.contains(&form.move_ms) {
            return Err(refuse(
                StatusCode::BAD_REQUEST,
                format!(
                    "the bot's time per move must be {} to {} ms",
                    MOVE_MS.start(),
                    MOVE_MS.end()
                ),
            ));
        }
        let seed: u64 = rand::random();
        let person_first = match form.color.as_str() {
            "white" => true,
            "black" => false,
            "random" => seed % 2 == 0,
            _ => return Err(refuse(StatusCode::BAD_REQUEST, "the colour is white, black or random")),
        };
        let person = if opponent.config.name == PERSON {
            "person"
        } else {
            PERSON
        }
        .to_owned();
        let tournament = tournament(&form, &person, opponent.config.clone(), seed)?;
        let schedule = Schedule::new(&tournament);
        let index = (0..schedule.len())
            .find(|&index| (schedule.players(index).0 == person) == person_first)
            .expect("each layout is played with the seats both ways");
        let spec = schedule.game(index).spec(&tournament);
        let id = format!("{:032x}", rand::random::<u128>());
        let session = {
            let mut live = self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if live.len() >= self.settings.max_games {
                return Err(refuse(
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!(
                        "busy: {} games are being played, the most this server plays at once (--max-games); \
                         try again when one ends",
                        live.len()
                    ),
                ));
            }
            let session = Arc::new(Session {
                person: person.clone(),
                bot: opponent.config.name.clone(),
                view: watch::Sender::new(View {
                    version: 0,
                    stage: Stage::Thinking,
                    record: None,
                    can_undo: false,
                    asked: None,
                }),
                turn: Mutex::default(),
                touched: Mutex::new(Instant::now()),
            });
            live.insert(id.clone(), Arc::clone(&session));
            session
        };
        let started = self.begin(&id, &tournament, &opponent.spec).await;
        let (bot, journal) = match started {
            Ok(started) => started,
            Err(refusal) => {
                self.end(&id);
                return Err(refusal);
            }
        };
        let mut first_view = session.view.subscribe();
        let games = Arc::clone(self);
        let game_id = id.clone();
        tokio::spawn(async move {
            games.play(&game_id, &session, spec, bot, journal, person_first).await;
        });
        let _ = first_view.wait_for(|view| view.version > 0).await;
        Ok(id)
    }

    /// The bot of game `id`, started, and the game's journal (a bot that
    /// cannot start leaves no game behind).
    async fn begin(
        &self,
        id: &str,
        tournament: &Tournament,
        spec: &pahtum_referee::BotSpec,
    ) -> Result<(Bot, Journal), Refusal> {
        let bot = Bot::start(spec, &self.settings.limits, None).await.map_err(|error| {
            refuse(
                StatusCode::BAD_GATEWAY,
                format!("the bot {} could not start: {error}; try another", spec.name),
            )
        })?;
        let folder = self.dir.join(id);
        let journal = std::fs::create_dir_all(&folder)
            .map_err(|error| error.to_string())
            .and_then(|()| Journal::create(&folder.join(JOURNAL), tournament).map_err(|error| error.to_string()));
        match journal {
            Ok(journal) => Ok((bot, journal)),
            Err(error) => {
                bot.shutdown().await;
                Err(refuse(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("cannot save the game in {}: {error}", folder.display()),
                ))
            }
        }
    }

    /// Plays the game to its end, answering the person's turns from the
    /// requests, and saves its record.
    async fn play(
        &self,
        id: &str,
        session: &Session,
        spec: GameSpec,
        mut bot: Bot,
        mut journal: Journal,
        person_first: bool,
    ) {
        let (human, mut turns) = Human::new(session.person.clone());
        let record = {
            let game = async {
                let mut human = human;
                let (first, second) = if person_first {
                    (Player::Human(&mut human), Player::Bot(&mut bot))
                } else {
                    (Player::Bot(&mut bot), Player::Human(&mut human))
                };
                play_players(&spec, first, second, &mut |_| {}).await
            };
            tokio::pin!(game);
            let mut every_second = tokio::time::interval(Duration::from_secs(1));
            loop {
                tokio::select! {
                    record = &mut game => break record,
                    Some(turn) = turns.recv() => session.ask(turn),
                    _ = every_second.tick() => session.resign_if_abandoned(self.settings.abandon_after),
                }
            }
        };
        bot.shutdown().await;
        // A journal that cannot be written leaves the game unsaved; the page still shows it.
        if journal.append(&record).is_ok() {
            let _ = journal.sync();
        }
        drop(journal);
        session.publish(Stage::Over, Some(record), false, None);
        self.end(id);
    }

    fn end(&self, id: &str) {
        self.live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(id);
    }

    /// The person's answer to their turn in game `id`: `answer` makes it from the turn, or refuses.
    async fn act(
        &self,
        id: &str,
        answer: impl FnOnce(&Turn) -> Result<HumanMove, Refusal>,
    ) -> Result<serde_json::Value, Refusal> {
        let Some(session) = self.session(id) else {
            return Err(refuse(StatusCode::CONFLICT, "this game is not being played: it ended"));
        };
        let version = {
            let mut pending = session.turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let Some(turn) = pending.take() else {
                return Err(refuse(StatusCode::CONFLICT, "it is not your turn: the bot is thinking"));
            };
            match answer(&turn) {
                Err(refusal) => {
                    *pending = Some(turn);
                    return Err(refusal);
                }
                Ok(answer) => {
                    turn.answer(answer);
                }
            }
            session.thinking()
        };
        let mut views = session.view.subscribe();
        let _ = views.wait_for(|view| view.version > version).await;
        Ok(session.state())
    }
}

/// The one-game tournament of a game of `form` between `person` and `bot`:
/// its journal's header, and the schedule its spec comes from.
fn tournament(form: &NewGame, person: &str, mut bot: BotConfig, seed: u64) -> Result<Tournament, Refusal> {
    let odd = |count: usize| {
        pahtum::setup::check_count(count)
            .map(|()| count)
            .map_err(|error| refuse(StatusCode::BAD_REQUEST, format!("{error}")))
    };
    let blocks = match form.blocks {
        Blocks::Random { count } => BlockSource::Random {
            counts: vec![odd(count)?],
        },
        Blocks::Placed { count } => BlockSource::Players {
            counts: vec![odd(count)?],
        },
        Blocks::Range { min, max } => {
            let counts: Vec<usize> = (min..=max.min(pahtum::CELLS))
                .filter(|&count| odd(count).is_ok())
                .collect();
            if counts.is_empty() {
                return Err(refuse(
                    StatusCode::BAD_REQUEST,
                    "the range of block counts holds no valid count: give an odd count in it",
                ));
            }
            BlockSource::Random { counts }
        }
    };
    let time = move_time(Duration::from_millis(form.move_ms));
    bot.time = None;
    let person = BotConfig {
        name: person.to_owned(),
        launch: Launch::Command(vec!["(a person, in the browser)".to_owned()]),
        dir: None,
        env: Default::default(),
        time: Some(move_time(Duration::from_millis(UNLIMITED_MOVE_MS))),
        sandbox: None,
    };
    Ok(Tournament {
        name: format!("{} against {}", person.name, bot.name),
        seed,
        format: Format::RoundRobin,
        games_per_pair: 2,
        rules: RulesConfig {
            pie: form.pie,
            blocks,
            cycle_counts: false,
            adjudicate: None,
        },
        time,
        pause_idle: false,
        bots: vec![person, bot],
    })
}

impl Session {
    /// Publishes a new view.
    fn publish(&self, stage: Stage, record: Option<GameRecord>, can_undo: bool, asked: Option<&'static str>) -> u64 {
        let mut version = 0;
        self.view.send_modify(|view| {
            view.version += 1;
            version = view.version;
            view.stage = stage;
            if let Some(record) = record {
                view.record = Some(Arc::new(record));
            }
            view.can_undo = can_undo;
            view.asked = asked;
        });
        version
    }

    /// The person is asked: keeps the turn for their next request.
    fn ask(&self, turn: Turn) {
        let asked = match turn.game.phase() {
            Phase::PieDecision => "pie",
            Phase::PlaceBlocks => "block",
            _ => "stone",
        };
        let (record, can_undo) = (turn.record.clone(), turn.can_undo);
        *self.turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(turn);
        self.publish(Stage::YourMove, Some(record), can_undo, Some(asked));
    }

    /// The person answered: the bot is asked. Returns the view's version.
    fn thinking(&self) -> u64 {
        self.publish(Stage::Thinking, None, false, None)
    }

    /// Resigns for the person if no request named the game for `after`
    /// while it was their turn.
    fn resign_if_abandoned(&self, after: Duration) {
        let idle = self
            .touched
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .elapsed();
        if idle < after {
            return;
        }
        if let Some(turn) = self
            .turn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
        {
            turn.answer(HumanMove::Resign(format!(
                "abandoned: no request for {} s",
                after.as_secs()
            )));
        }
    }

    /// The state as the page reads it.
    fn state(&self) -> serde_json::Value {
        let view = self.view.borrow().clone();
        state_json(&view, &self.person, &self.bot)
    }
}

/// The state of a game as JSON: its version, stage, what the person is
/// asked and may do, their colour, the result once over, and the viewer's
/// data of the record so far.
fn state_json(view: &View, person: &str, bot: &str) -> serde_json::Value {
    let data = view
        .record
        .as_deref()
        .and_then(|record| pahtum_report::html::game_data(record).ok())
        .and_then(|data| serde_json::from_slice::<serde_json::Value>(&data).ok());
    let record = view.record.as_deref();
    let you = record.map(|record| if record.white == person { "white" } else { "black" });
    let result = record.filter(|_| view.stage == Stage::Over).map(result_text);
    serde_json::json!({
        "version": view.version,
        "stage": view.stage,
        "asked": view.asked,
        "can_undo": view.can_undo,
        "you": you,
        "bot": bot,
        "result": result,
        "data": data,
    })
}

/// How the game ended, in a sentence.
fn result_text(record: &GameRecord) -> String {
    let name = |color: Color| match color {
        Color::White => format!("{} (White)", record.white),
        Color::Black => format!("{} (Black)", record.black),
    };
    let (white, black) = (record.score.white, record.score.black);
    match (record.termination.reason, record.result.winner()) {
        (Reason::Normal, Some(color)) => format!("{} wins, {} to {}.", name(color), white.max(black), white.min(black)),
        (Reason::Normal, None) => format!("A draw, {white} to {black}."),
        (reason, Some(color)) => {
            let detail = record
                .termination
                .forfeit
                .as_ref()
                .map(|forfeit| format!("{} lost by {reason}: {}", forfeit.bot, forfeit.detail))
                .unwrap_or_default();
            format!("{} wins. {detail}", name(color))
        }
        (_, None) => "A draw: both sides forfeited.".to_owned(),
    }
}

/// The play routes, over `games`.
pub(crate) fn router<S: Clone + Send + Sync + 'static>(games: Arc<Games>) -> Router<S> {
    Router::new()
        .route("/play", get(form_page))
        .route("/play/new", post(new_game))
        .route("/play/{id}", get(game_page))
        .route("/play/{id}/state", get(game_state))
        .route("/play/{id}/move", post(play_move))
        .route("/play/{id}/undo", post(undo))
        .route("/play/{id}/resign", post(resign))
        .with_state(games)
}

/// The games played here, newest first, for the runs page: each game's id and its journal's tournament name.
pub(crate) fn played(dir: &Path) -> Vec<(String, String)> {
    let Ok(entries) = std::fs::read_dir(dir.join(PLAY_DIR)) else {
        return Vec::new();
    };
    let mut games: Vec<(std::time::SystemTime, String, String)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let id = entry.file_name().into_string().ok()?;
            let journal = entry.path().join(JOURNAL);
            let changed = std::fs::metadata(&journal).and_then(|meta| meta.modified()).ok()?;
            let name = JournalReader::open(&journal).ok()?.header().tournament.name.clone();
            Some((changed, id, name))
        })
        .collect();
    games.sort_by_key(|game| std::cmp::Reverse(game.0));
    games.into_iter().map(|(_, id, name)| (id, name)).collect()
}

async fn form_page(State(games): State<Arc<Games>>) -> Response {
    let context = minijinja::context! {
        bots => games.settings.roster.names(),
        max_games => games.settings.max_games,
    };
    crate::page::render(FORM_PAGE, context)
}

/// A JSON body of type `T`, or a refusal that says what is wrong.
fn body<T: serde::de::DeserializeOwned>(bytes: &Bytes) -> Result<T, Refusal> {
    serde_json::from_slice(bytes).map_err(|error| refuse(StatusCode::BAD_REQUEST, format!("bad request: {error}")))
}

fn json(value: serde_json::Value) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], value.to_string()).into_response()
}

async fn new_game(State(games): State<Arc<Games>>, bytes: Bytes) -> Response {
    let started = match body::<NewGame>(&bytes) {
        Ok(form) => games.start(form).await,
        Err(refusal) => Err(refusal),
    };
    match started {
        Ok(id) => json(serde_json::json!({ "id": id })),
        Err(refusal) => refusal.into_response(),
    }
}

async fn game_page(State(games): State<Arc<Games>>, Param(id): Param<String>) -> Response {
    let record = match games.session(&id) {
        Some(session) => session.view.borrow().record.as_deref().cloned(),
        None => games.finished(&id).map(|(record, _, _)| record),
    };
    let Some(record) = record else {
        return no_game();
    };
    let mut page = Vec::new();
    if pahtum_report::html::write_game_page(&record, None, &mut page).is_err() {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    Html(with_controls(&page, &id)).into_response()
}

/// The game page `page` with the play controls before its viewer and the play script before its `</body>`.
fn with_controls(page: &[u8], id: &str) -> Vec<u8> {
    let page = String::from_utf8_lossy(page);
    // The id is the server's own: hex digits, checked before any look-up.
    let controls = CONTROLS.replace("GAME_ID", id);
    page.replacen(
        "<section id=\"viewer\"",
        &format!("{controls}<section id=\"viewer\""),
        1,
    )
    .replacen("</body>", &format!("<script>{PLAY_SCRIPT}</script>\n</body>"), 1)
    .into_bytes()
}

fn no_game() -> Response {
    (StatusCode::NOT_FOUND, "no such game here: start one at /play\n").into_response()
}

#[derive(Debug, Deserialize)]
struct After {
    after: Option<u64>,
}

async fn game_state(State(games): State<Arc<Games>>, Param(id): Param<String>, Query(after): Query<After>) -> Response {
    let Some(session) = games.session(&id) else {
        return match games.finished(&id) {
            Some((record, person, bot)) => {
                let view = View {
                    version: u64::MAX,
                    stage: Stage::Over,
                    record: Some(Arc::new(record)),
                    can_undo: false,
                    asked: None,
                };
                json(state_json(&view, &person, &bot))
            }
            None => no_game(),
        };
    };
    if let Some(after) = after.after {
        let mut views = session.view.subscribe();
        let _ = tokio::time::timeout(STATE_WAIT, views.wait_for(|view| view.version > after)).await;
    }
    json(session.state())
}

async fn play_move(State(games): State<Arc<Games>>, Param(id): Param<String>, bytes: Bytes) -> Response {
    let played = match body::<Move>(&bytes) {
        Err(refusal) => Err(refusal),
        Ok(played) => {
            games
                .act(&id, |turn| action_of(&turn.game, &played).map(HumanMove::Play))
                .await
        }
    };
    match played {
        Ok(state) => json(state),
        Err(refusal) => refusal.into_response(),
    }
}

/// The action a move names in `game`, if the rules allow it now.
fn action_of(game: &Game, played: &Move) -> Result<Action, Refusal> {
    let action = match (game.phase(), played.swap, &played.cell) {
        (Phase::PieDecision, Some(swap), None) => Action::Pie(swap),
        (Phase::PieDecision, _, _) => {
            return Err(refuse(StatusCode::BAD_REQUEST, "it is the pie decision: swap or keep"));
        }
        (phase, None, Some(cell)) => {
            let cell = cell
                .parse()
                .map_err(|_| refuse(StatusCode::BAD_REQUEST, "a cell is a1 to g7"))?;
            if phase == Phase::PlaceBlocks {
                Action::Block(cell)
            } else {
                Action::Stone(cell)
            }
        }
        _ => return Err(refuse(StatusCode::BAD_REQUEST, "give a cell")),
    };
    game.check(action)
        .map_err(|illegal| refuse(StatusCode::BAD_REQUEST, format!("{action} cannot be played: {illegal}")))?;
    Ok(action)
}

async fn undo(State(games): State<Arc<Games>>, Param(id): Param<String>) -> Response {
    let undone = games
        .act(&id, |turn| {
            if turn.can_undo {
                Ok(HumanMove::Undo)
            } else {
                Err(refuse(StatusCode::CONFLICT, "nothing to undo: you have not moved yet"))
            }
        })
        .await;
    match undone {
        Ok(state) => json(state),
        Err(refusal) => refusal.into_response(),
    }
}

async fn resign(State(games): State<Arc<Games>>, Param(id): Param<String>) -> Response {
    match games.act(&id, |_| Ok(HumanMove::Resign("resigned".to_owned()))).await {
        Ok(state) => json(state),
        Err(refusal) => refusal.into_response(),
    }
}
