//! Fixtures for the unit tests and benchmarks of the crates above: a small tournament and game records
//! built by hand or played at random. Compiled for this crate's tests and, with the `testing` feature,
//! for other crates' tests and benchmarks; never into a release build.

use std::path::Path;

use pahtum::{Action, Bitboard, Cell, Color, Outcome, Score, Seat};
use pahtum_protocol::{ClockKind, Placement, Reason, Rules, TimeControl};
use pahtum_record::{Forfeit, GameRecord, GameSpec, MoveRecord, Players, Termination, Timing};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::config::{self, Tournament};
use crate::schedule::{Schedule, ScheduledGame};

/// A round-robin of bots `a`, `b` and `c`.
pub fn tournament() -> Tournament {
    let text = r#"
        name = "t"
        seed = 3
        [[bots]]
        name = "a"
        builtin = "heuristic"
        [[bots]]
        name = "b"
        builtin = "heuristic"
        [[bots]]
        name = "c"
        command = "python3 c.py"
    "#;
    config::parse(Path::new("t.toml"), text).unwrap().tournament
}

/// A match of `a` against `b`, `games` games (an even number).
pub fn head_to_head(games: u32) -> Tournament {
    let text = format!(
        "name = \"m\"\ngames_per_pair = {games}\n[[bots]]\nname = \"a\"\nbuiltin = \"heuristic\"\n\
         [[bots]]\nname = \"b\"\nbuiltin = \"first-free\"\n"
    );
    config::parse(Path::new("m.toml"), &text).unwrap().tournament
}

/// A normal game between `first` and `second`, no pie swap, White winning 10 to 3.
pub fn record(id: &str, first: &str, second: &str) -> GameRecord {
    GameRecord {
        id: id.to_owned(),
        layout: Some(id[..id.len().saturating_sub(2)].to_owned()),
        seed: Some(1),
        rules: Rules {
            pie: true,
            blocks: 5,
            placement: Placement::Random,
        },
        time: TimeControl {
            move_ms: Some(100),
            base_ms: None,
            increment_ms: 0,
            margin_ms: 20,
            clock: ClockKind::Wall,
        },
        time_by_seat: None,
        pause_idle: false,
        players: Players {
            first: first.to_owned(),
            second: second.to_owned(),
        },
        white: first.to_owned(),
        black: second.to_owned(),
        blocks: Vec::new(),
        opening: None,
        moves: Vec::new(),
        swap: Some(false),
        swap_move: None,
        score: Score { white: 10, black: 3 },
        result: Outcome::White,
        termination: Termination::normal(),
        started_unix_ms: 0,
        ended_unix_ms: 1,
        hello: None,
    }
}

/// The record of `game`, played by `spec`, won by `winner` (one of its bots): its opponent ran out of time
/// before its first move, so that the record passes the journal's audit.
pub fn won_by(game: &ScheduledGame, spec: &GameSpec, winner: &str) -> GameRecord {
    let players = Players {
        first: game.first.clone(),
        second: game.second.clone(),
    };
    let board = spec.initial_game();
    let loser = if game.first == winner {
        Seat::Second
    } else {
        Seat::First
    };
    let termination = Termination {
        reason: Reason::Timeout,
        forfeit: Some(Forfeit {
            bot: players.of(loser).to_owned(),
            seat: loser,
            color: board.color_of(loser),
            detail: "test".to_owned(),
            line: None,
            stderr_tail: Vec::new(),
            overloaded: false,
        }),
        also: None,
        adjudicated: None,
    };
    spec.record(players, &board, Vec::new(), None, termination, 0)
}

/// `record` with the given score, the result following it.
pub fn scored(mut record: GameRecord, white: u32, black: u32) -> GameRecord {
    record.score = Score { white, black };
    record.result = record.score.outcome();
    record
}

/// `record` after a pie swap: the second seat plays White.
pub fn swapped(mut record: GameRecord) -> GameRecord {
    record.swap = Some(true);
    std::mem::swap(&mut record.white, &mut record.black);
    record
}

/// `record` ended by a forfeit of the bot in `seat`.
pub fn forfeited(mut record: GameRecord, seat: Seat, reason: Reason) -> GameRecord {
    let color = record.color_of(seat);
    record.result = Outcome::win_for(color.opponent());
    record.termination = Termination {
        reason,
        forfeit: Some(Forfeit {
            bot: record.players.of(seat).to_owned(),
            seat,
            color,
            detail: "test".to_owned(),
            line: None,
            stderr_tail: Vec::new(),
            overloaded: false,
        }),
        also: None,
        adjudicated: None,
    };
    record
}

/// A full game of random legal stones on the scheduled blocks, without a pie swap.
pub fn random_game(game: &ScheduledGame, spec: GameSpec, rng: &mut ChaCha8Rng) -> GameRecord {
    let blocks: Bitboard = game.blocks.iter().copied().collect();
    let mut free: Vec<Cell> = Cell::all().filter(|cell| !blocks.contains(*cell)).collect();
    for i in (1..free.len()).rev() {
        free.swap(i, rng.random_range(0..=i));
    }
    let (mut white, mut black) = (Bitboard::EMPTY, Bitboard::EMPTY);
    let moves = free
        .iter()
        .enumerate()
        .map(|(ply, &cell)| {
            let color = if ply % 2 == 0 { Color::White } else { Color::Black };
            match color {
                Color::White => white = white.with(cell),
                Color::Black => black = black.with(cell),
            }
            MoveRecord {
                kind: Default::default(),
                seat: Some(if color == Color::White {
                    Seat::First
                } else {
                    Seat::Second
                }),
                color,
                cell,
                timing: Timing {
                    ms: microseconds(rng.random_range(0.05..5.0)),
                    cpu_ms: Some(microseconds(rng.random_range(0.01..5.0))),
                    info: None,
                },
            }
        })
        .collect();
    let score = Score::of(white, black);
    GameRecord {
        id: spec.id,
        layout: spec.layout,
        seed: spec.seed,
        rules: spec.rules,
        time: spec.time,
        time_by_seat: spec.time_by_seat,
        pause_idle: spec.pause_idle,
        players: Players {
            first: game.first.clone(),
            second: game.second.clone(),
        },
        white: game.first.clone(),
        black: game.second.clone(),
        blocks: spec.blocks,
        opening: None,
        moves,
        swap: Some(false),
        swap_move: Some(Timing {
            ms: 0.2,
            cpu_ms: None,
            info: None,
        }),
        score,
        result: score.outcome(),
        termination: Termination::normal(),
        started_unix_ms: 1_700_000_000_000,
        ended_unix_ms: 1_700_000_000_100,
        hello: None,
    }
}

/// Milliseconds at the referee's resolution, a microsecond.
fn microseconds(ms: f64) -> f64 {
    (ms * 1e3).round() / 1e3
}

/// Game `id` of [`tournament`]'s schedule as the runner would record it, played to the end by two bots
/// that take the first free cell and keep the colours: a record that passes the journal's audit.
pub fn played(id: &str) -> GameRecord {
    let tournament = tournament();
    let schedule = Schedule::new(&tournament);
    let index = schedule
        .index_of(id)
        .unwrap_or_else(|| panic!("{id} is not a game of the test tournament"));
    let game = schedule.game(index);
    let spec = game.spec(&tournament);
    let players = Players {
        first: game.first,
        second: game.second,
    };
    spec.play_out(players, |board| match board.legal_moves()[0] {
        Action::Pie(_) => Action::Pie(false),
        action => action,
    })
}
