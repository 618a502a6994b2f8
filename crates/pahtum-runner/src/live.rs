//! The games in progress, as they are played: what a live page shows while
//! a run plays (each board advancing move by move, both bots' clocks, each
//! bot's `info`), and what a server in another process follows through the
//! run folder's socket ([`crate::live_socket`]).
//!
//! A [`Live`] keeps the state of each game in progress (its start and its
//! plies so far) and the last games that ended, and passes every change on
//! to its readers as one line of JSON, a [`LiveEvent`]. The runner feeds it:
//! a game's start and each move as the referee receives it, from the game's
//! own task (any thread: a pinned game runs on its lane), and a game's end
//! once its record is in the journal (as an [`Observer`], on the runner's
//! task). A server feeds its own `Live` from a socket's lines, so it holds
//! the same state and serves its clients the same way.
//!
//! **Readers never hold up the games.** Publishing takes a short lock, and
//! only when someone reads is the event written as JSON, once for every
//! reader, into a bounded ring ([`tokio::sync::broadcast`], [`CAPACITY`]
//! lines): a reader that falls more than that behind loses its place and
//! is given, instead of what it missed, a fresh [`LiveEvent::Snapshot`] (the
//! state of every game in progress), so that neither the games nor memory
//! wait on it. The first line every reader gets is a snapshot too, taken under
//! the same lock as the events, so that nothing is missed or seen twice.
//!
//! **A move costs its game alone.** Every move of every game passes here,
//! watched or not, so that a page opened mid-run sees each game from its
//! start. A game's task holds its entry ([`Playing`], from [`Live::started`]),
//! so a move neither looks its game up by id nor takes the run's lock while
//! nobody reads: it takes only its own game's lock, which no other game
//! takes, and reads the count of readers. A reader is counted before its
//! snapshot locks each game, so a move that saw no reader is in the snapshot;
//! a move that sees one takes the run's lock as every event does.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use pahtum::{Action, Cell, Color, Outcome, Seat};
use pahtum_protocol::{Info, Reason, Rules, TimeControl};
use pahtum_record::GameSpec;
use pahtum_referee::GameEvent;
use pahtum_run::events::{Event, Observer};
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast::{self, error::RecvError, error::TryRecvError};

/// The lines a reader may fall behind before it is given a snapshot instead.
pub const CAPACITY: usize = 512;

/// The games that ended that a snapshot still shows, the last first.
pub const ENDED_KEPT: usize = 16;

/// The most games in progress kept (a run plays at most one per core or so).
pub const MAX_GAMES: usize = 4096;

/// The most plies kept of a game: more than any game has (49 cells, and the pie decision).
const MAX_PLIES: usize = 2 * pahtum::CELLS;

/// The most lines handed to a reader at once.
const MAX_BATCH: usize = 256;

/// Something that happened to the games in progress: one line of a reader's stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LiveEvent {
    /// Every game in progress, by id, and the last games that ended (at most [`ENDED_KEPT`], the oldest
    /// first): a reader's first line, and the line it gets in place of those it fell behind on. A reader
    /// drops what it knew and takes this.
    Snapshot {
        /// The games in progress.
        games: Vec<LiveGame>,
        /// The last games that ended.
        ended: Vec<LiveEnd>,
    },
    /// A game started (or started again: a game replayed after an overload starts over).
    Start {
        /// The game, with the plies given before the bots play.
        game: LiveGame,
    },
    /// A ply of a game in progress, as the referee received it.
    Move {
        /// The game's id.
        game: String,
        /// The ply.
        ply: LivePly,
    },
    /// A game ended and its record is in the journal.
    End(LiveEnd),
}

/// A game in progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveGame {
    /// The game's id.
    pub id: String,
    /// The bot in the first seat (White at the start), as the tournament names it.
    pub first: String,
    /// The bot in the second seat.
    pub second: String,
    /// The rules.
    pub rules: Rules,
    /// The blocks of the initial board (empty when the players place them).
    pub blocks: Vec<Cell>,
    /// Each seat's time control, by seat.
    pub time: [TimeControl; 2],
    /// The plies so far, in order.
    pub plies: Vec<LivePly>,
}

/// A ply of a game in progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LivePly {
    /// Its number, from 1, as everything the arena shows numbers plies (RECORD.md, "Move numbers").
    pub ply: usize,
    /// The seat that played it.
    pub seat: Seat,
    /// The colour it played with.
    pub color: Color,
    /// The ply, written as the protocol writes it: `d4` a stone, `#d4` a block, `swap` or `keep` the pie
    /// decision (and refused in any other form when read).
    pub action: Action,
    /// Given before the bots played (no one's answer: no time, no clocks, no `info`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub given: bool,
    /// The answer's wall time, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<f64>,
    /// Both seats' clocks after it, by seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks: Option<[LiveClock; 2]>,
    /// The bot's `info` about it, as the record keeps it. Written by the bot: hostile text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<Info>,
    /// When the referee had it (or the given ply was played), in milliseconds since the Unix epoch.
    pub unix_ms: f64,
}

/// A seat's clock during a game.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LiveClock {
    /// The time left on its Fischer clock, in milliseconds; `None` without a base time (each answer has a
    /// limit of its own).
    pub left_ms: Option<u64>,
    /// The wall time its answers took so far, in milliseconds.
    pub used_ms: f64,
}

/// A game that ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveEnd {
    /// The game's id.
    pub game: String,
    /// The result by colour.
    pub result: Outcome,
    /// How it ended.
    pub reason: Reason,
    /// White's points, Black's.
    pub score: [u32; 2],
    /// Where its record's line begins in the run's journal.
    pub offset: u64,
    /// Its line's length, without the newline.
    pub len: usize,
}

/// The games in progress of a run, and their readers.
#[derive(Debug, Default)]
pub struct Live {
    state: Mutex<State>,
    /// The subscriptions: changed under `state`'s lock, read by a move without it (see the module's doc).
    readers: AtomicUsize,
}

/// A game in progress, shared by the run's list and the game's own [`Playing`]; locked after the run's
/// `state`, never before it.
type Shared = Arc<Mutex<LiveGame>>;

#[derive(Debug)]
struct State {
    games: HashMap<String, Shared>,
    ended: VecDeque<LiveEnd>,
    /// `None` once closed: the readers end after what they have.
    sender: Option<broadcast::Sender<Arc<str>>>,
    /// The snapshot of the state as it is, once made; only while someone reads (a move that nobody
    /// reads does not clear it).
    snapshot: Option<Arc<str>>,
}

impl Default for State {
    fn default() -> State {
        State {
            games: HashMap::new(),
            ended: VecDeque::new(),
            sender: Some(broadcast::channel(CAPACITY).0),
            snapshot: None,
        }
    }
}

impl State {
    /// Passes `event` on to the readers, written as JSON only if `read`.
    fn send(&self, read: bool, event: &LiveEvent) {
        if let Some(sender) = self.sender.as_ref().filter(|_| read) {
            let line = serde_json::to_string(event).expect("live events serialize");
            let _ = sender.send(line.into());
        }
    }

    fn apply(&mut self, event: &LiveEvent) {
        self.snapshot = None;
        match event {
            LiveEvent::Snapshot { games, ended } => {
                self.games.clear();
                for game in games {
                    self.start(game.clone());
                }
                self.ended = ended.iter().rev().take(ENDED_KEPT).rev().cloned().collect();
            }
            LiveEvent::Start { game } => {
                self.start(game.clone());
            }
            LiveEvent::Move { game, ply } => {
                if let Some(game) = self.games.get(game) {
                    lock(game).push(ply.clone());
                }
            }
            LiveEvent::End(end) => {
                self.games.remove(&end.game);
                if self.ended.len() == ENDED_KEPT {
                    self.ended.pop_front();
                }
                self.ended.push_back(end.clone());
            }
        }
    }

    /// Adds `game`, unless it would make more than [`MAX_GAMES`] (a server following a socket keeps no
    /// more, whatever the socket says); its entry, if added.
    fn start(&mut self, mut game: LiveGame) -> Option<Shared> {
        if self.games.len() >= MAX_GAMES && !self.games.contains_key(&game.id) {
            return None;
        }
        game.plies.truncate(MAX_PLIES);
        let shared = Arc::new(Mutex::new(game));
        let id = lock(&shared).id.clone();
        self.games.insert(id, Arc::clone(&shared));
        Some(shared)
    }

    fn snapshot(&mut self) -> Arc<str> {
        let games = &self.games;
        let ended = &self.ended;
        Arc::clone(self.snapshot.get_or_insert_with(|| {
            let mut games: Vec<LiveGame> = games.values().map(|game| lock(game).clone()).collect();
            games.sort_by(|a, b| a.id.cmp(&b.id));
            let snapshot = LiveEvent::Snapshot {
                games,
                ended: ended.iter().cloned().collect(),
            };
            serde_json::to_string(&snapshot).expect("live events serialize").into()
        }))
    }
}

impl LiveGame {
    /// Adds `ply`, unless the game has [`MAX_PLIES`] already.
    fn push(&mut self, ply: LivePly) {
        if self.plies.len() < MAX_PLIES {
            self.plies.push(ply);
        }
    }
}

/// Locks `game` (a game is never left half changed, so a panic elsewhere leaves it usable).
fn lock(game: &Mutex<LiveGame>) -> MutexGuard<'_, LiveGame> {
    game.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Live {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether anyone reads the events.
    fn is_read(&self) -> bool {
        self.readers.load(Ordering::SeqCst) > 0
    }

    /// Applies `event` and passes it on to the readers.
    pub fn publish(&self, event: LiveEvent) {
        let mut state = self.state();
        state.apply(&event);
        state.send(self.is_read(), &event);
    }

    /// A game of `spec` starts between `first` and `second` (the plies its opening gives are played): the
    /// entry its moves go to.
    pub fn started(&self, spec: &GameSpec, first: &str, second: &str) -> Playing<'_> {
        let mut game = spec.initial_game();
        let mut plies = Vec::with_capacity(MAX_PLIES);
        for &action in &spec.opening {
            let (Some(seat), Some(color)) = (game.seat_to_act(), game.color_to_act()) else {
                break;
            };
            if game.play(action).is_err() {
                break;
            }
            plies.push(LivePly {
                ply: plies.len() + 1,
                seat,
                color,
                action,
                given: true,
                ms: None,
                clocks: None,
                info: None,
                unix_ms: unix_ms(),
            });
        }
        let game = LiveGame {
            id: spec.id.clone(),
            first: first.to_owned(),
            second: second.to_owned(),
            rules: spec.rules,
            blocks: spec.blocks.clone(),
            time: [Seat::First, Seat::Second].map(|seat| spec.time_of(seat)),
            plies,
        };
        let mut state = self.state();
        state.snapshot = None;
        let read = self.is_read();
        let event = read.then(|| LiveEvent::Start { game: game.clone() });
        let game = state.start(game);
        if let Some(event) = event {
            state.send(read, &event);
        }
        Playing { live: self, game }
    }

    /// A reader: the snapshot first, then every event (see [`Subscription::next`]).
    pub fn subscribe(self: &Arc<Self>) -> Subscription {
        let mut state = self.state();
        // Counted before the snapshot locks each game: see the module's doc.
        self.readers.fetch_add(1, Ordering::SeqCst);
        let snapshot = state.snapshot();
        Subscription {
            live: Arc::clone(self),
            receiver: state.sender.as_ref().map(broadcast::Sender::subscribe),
            pending: Some(snapshot),
        }
    }

    /// How many readers there are (none once [`close`](Self::close)d).
    pub fn readers(&self) -> usize {
        let state = self.state();
        if state.sender.is_some() {
            self.readers.load(Ordering::SeqCst)
        } else {
            0
        }
    }

    /// Whether events still come (not [`close`](Self::close)d).
    pub fn is_open(&self) -> bool {
        self.state().sender.is_some()
    }

    /// No more events: each reader ends after the lines it has not read yet.
    pub fn close(&self) {
        self.state().sender = None;
    }
}

/// A game in progress, held by the task that plays it: where its moves go.
#[derive(Debug)]
pub struct Playing<'a> {
    live: &'a Live,
    /// `None` when the run had [`MAX_GAMES`] in progress already: the game is not shown.
    game: Option<Shared>,
}

impl Playing<'_> {
    /// What the referee says of the game as it is played (a move; its end comes from the journal).
    pub fn played(&mut self, event: GameEvent) {
        let GameEvent::Played {
            seat,
            color,
            action,
            ms,
            info,
            remaining_ms,
            ..
        } = event
        else {
            return;
        };
        let Some(shared) = &self.game else {
            return;
        };
        let unix_ms = unix_ms();
        let ply = |game: &LiveGame| {
            let last = game.plies.iter().rev().find_map(|ply| ply.clocks);
            let clocks = [Seat::First, Seat::Second].map(|each| LiveClock {
                left_ms: remaining_ms[each.index()],
                used_ms: to_the_microsecond(
                    last.map_or(0.0, |clocks| clocks[each.index()].used_ms) + if each == seat { ms } else { 0.0 },
                ),
            });
            LivePly {
                ply: game.plies.len() + 1,
                seat,
                color,
                action,
                given: false,
                ms: Some(ms),
                clocks: Some(clocks),
                info,
                unix_ms,
            }
        };
        {
            let mut game = lock(shared);
            if !self.live.is_read() {
                let ply = ply(&game);
                game.push(ply);
                return;
            }
        }
        // Read: the move and its event under the run's lock, in the same order for every reader as its
        // snapshot.
        let mut state = self.live.state();
        state.snapshot = None;
        let mut game = lock(shared);
        let ply = ply(&game);
        let event = LiveEvent::Move {
            game: game.id.clone(),
            ply: ply.clone(),
        };
        game.push(ply);
        drop(game);
        state.send(true, &event);
    }
}

/// Now, in milliseconds since the Unix epoch, to the microsecond.
fn unix_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |since| since.as_micros() as f64 / 1000.0)
}

/// `ms` rounded to the microsecond (a sum of times to the microsecond, without the float's noise).
fn to_the_microsecond(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

/// The end of each game, once its record is in the journal.
impl Observer for &Live {
    fn on(&mut self, event: Event<'_>) {
        if let Event::GameFinished { record, at } = event {
            self.publish(LiveEvent::End(LiveEnd {
                game: record.id.clone(),
                result: record.result,
                reason: record.termination.reason,
                score: [record.score.white, record.score.black],
                offset: at.offset,
                len: at.len,
            }));
        }
    }
}

/// A reader of a [`Live`].
#[derive(Debug)]
pub struct Subscription {
    live: Arc<Live>,
    /// `None` once the hub is closed.
    receiver: Option<broadcast::Receiver<Arc<str>>>,
    /// A snapshot not handed out yet.
    pending: Option<Arc<str>>,
}

impl Subscription {
    /// The next lines, each a [`LiveEvent`] as JSON, as many as are there (at least one; waits for it); a
    /// snapshot first, and a snapshot alone in place of what the reader fell behind on. `None` once the
    /// hub is closed and every line is read.
    pub async fn next(&mut self) -> Option<Vec<Arc<str>>> {
        let mut batch = Vec::new();
        if let Some(snapshot) = self.pending.take() {
            batch.push(snapshot);
        } else {
            match self.receiver.as_mut()?.recv().await {
                Ok(line) => batch.push(line),
                Err(RecvError::Lagged(_)) => return Some(vec![self.again()]),
                Err(RecvError::Closed) => return None,
            }
        }
        while batch.len() < MAX_BATCH {
            let Some(receiver) = self.receiver.as_mut() else {
                break;
            };
            match receiver.try_recv() {
                Ok(line) => batch.push(line),
                Err(TryRecvError::Lagged(_)) => return Some(vec![self.again()]),
                Err(TryRecvError::Empty | TryRecvError::Closed) => break,
            }
        }
        Some(batch)
    }

    /// A fresh snapshot, and the events after it.
    fn again(&mut self) -> Arc<str> {
        let mut state = self.live.state();
        let snapshot = state.snapshot();
        self.receiver = state.sender.as_ref().map(broadcast::Sender::subscribe);
        snapshot
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut state = self.live.state();
        if self.live.readers.fetch_sub(1, Ordering::SeqCst) == 1 {
            // The moves that nobody reads do not clear it.
            state.snapshot = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use pahtum::{Action, Bitboard, Position};
    use pahtum_protocol::fischer;

    use super::*;

    /// A game of `id` started on `live`, with a Fischer clock of a second and no increment.
    fn started<'a>(live: &'a Live, id: &str) -> Playing<'a> {
        let time = fischer(Duration::from_secs(1), Duration::ZERO);
        let spec = GameSpec::fixed(
            id,
            &["a1".parse().unwrap(), "b2".parse().unwrap(), "c3".parse().unwrap()],
            true,
            time,
        )
        .unwrap();
        live.started(&spec, "a", "b")
    }

    fn stone(game: &mut Playing<'_>, seat: Seat, cell: &str, ms: f64, left: [u64; 2]) {
        game.played(GameEvent::Played {
            seat,
            color: seat.starting_color(),
            action: Action::Stone(cell.parse().unwrap()),
            ms,
            position: Position::new(Bitboard::default()),
            info: None,
            remaining_ms: left.map(Some),
        });
    }

    fn parse(line: &str) -> LiveEvent {
        serde_json::from_str(line).unwrap()
    }

    /// A reader gets a snapshot, then each event; the clocks add up each seat's time; an end takes the game
    /// off and keeps its place in the journal.
    #[tokio::test]
    async fn a_reader_follows_the_games_from_a_snapshot() {
        let live = Arc::new(Live::default());
        let mut g1 = started(&live, "g1");
        stone(&mut g1, Seat::First, "d4", 10.5, [990, 1000]);
        let mut reader = live.subscribe();
        let first = reader.next().await.unwrap();
        let LiveEvent::Snapshot { games, ended } = parse(&first[0]) else {
            panic!("{first:?}")
        };
        assert_eq!((games.len(), games[0].plies.len(), ended.len()), (1, 1, 0));
        stone(&mut g1, Seat::Second, "d5", 2.25, [990, 998]);
        stone(&mut g1, Seat::First, "e4", 1.0, [989, 998]);
        let lines = reader.next().await.unwrap();
        assert_eq!(lines.len(), 2, "both moves at once");
        let LiveEvent::Move { ply, .. } = parse(&lines[1]) else {
            panic!("{lines:?}")
        };
        assert_eq!(ply.ply, 3);
        assert_eq!(
            ply.clocks.unwrap().map(|clock| (clock.left_ms, clock.used_ms)),
            [(Some(989), 11.5), (Some(998), 2.25)]
        );
        live.publish(LiveEvent::End(LiveEnd {
            game: "g1".into(),
            result: Outcome::Draw,
            reason: Reason::Normal,
            score: [0, 0],
            offset: 10,
            len: 20,
        }));
        assert!(matches!(parse(&reader.next().await.unwrap()[0]), LiveEvent::End(_)));
        let LiveEvent::Snapshot { games, ended } = parse(&live.subscribe().next().await.unwrap()[0]) else {
            panic!()
        };
        assert!(games.is_empty());
        assert_eq!((ended[0].offset, ended[0].len), (10, 20));
        live.close();
        assert_eq!(reader.next().await, None, "closed");
    }

    /// A reader that falls behind by more than the ring holds gets a fresh snapshot alone, not the backlog.
    #[tokio::test]
    async fn a_reader_that_falls_behind_gets_a_snapshot() {
        let live = Arc::new(Live::default());
        let mut reader = live.subscribe();
        reader.next().await.unwrap();
        started(&live, "g1");
        // "g1" starts again among them (a replayed game), in place of the first.
        let mut playing: Vec<Playing<'_>> = (0..CAPACITY)
            .map(|index| started(&live, &format!("g{index}")))
            .collect();
        stone(&mut playing[1], Seat::First, "d4", 1.0, [999, 1000]);
        let lines = reader.next().await.unwrap();
        assert_eq!(lines.len(), 1);
        let LiveEvent::Snapshot { games, .. } = parse(&lines[0]) else {
            panic!("{lines:?}")
        };
        assert_eq!(games.len(), CAPACITY);
        assert_eq!(games.iter().find(|game| game.id == "g1").unwrap().plies.len(), 1);
        stone(&mut playing[1], Seat::Second, "d5", 1.0, [999, 999]);
        let lines = reader.next().await.unwrap();
        assert!(
            matches!(parse(&lines[0]), LiveEvent::Move { .. }),
            "and the events after it"
        );
    }

    /// A reader that comes while a game plays, its moves going straight into their game while nobody
    /// read, has every ply once: those before it in its snapshot, the others as events.
    #[tokio::test]
    async fn a_reader_that_comes_mid_game_misses_no_move_and_sees_none_twice() {
        let cells: Vec<String> = Cell::all()
            .cycle()
            .take(MAX_PLIES)
            .map(|cell| cell.to_string())
            .collect();
        for _ in 0..50 {
            let live = Arc::new(Live::default());
            let mut game = started(&live, "g1");
            let start = std::sync::Barrier::new(2);
            let (mut reader, plies) = std::thread::scope(|scope| {
                let mover = scope.spawn(|| {
                    start.wait();
                    for cell in &cells {
                        stone(&mut game, Seat::First, cell, 1.0, [999, 1000]);
                    }
                });
                start.wait();
                let reader = live.subscribe();
                mover.join().unwrap();
                (reader, cells.len())
            });
            live.close();
            let mut seen = Vec::new();
            while let Some(lines) = reader.next().await {
                for line in lines {
                    match parse(&line) {
                        LiveEvent::Snapshot { games, .. } => {
                            seen.extend(games.iter().flat_map(|game| game.plies.iter().map(|ply| ply.ply)));
                        }
                        LiveEvent::Move { ply, .. } => seen.push(ply.ply),
                        other => panic!("{other:?}"),
                    }
                }
            }
            assert_eq!(seen, (1..=plies).collect::<Vec<_>>());
        }
    }
}
