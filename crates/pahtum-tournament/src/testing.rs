//! Fixtures for the unit tests and benchmarks: a small tournament and game records built by hand.

use std::path::Path;

use pahtum::{Action, Outcome, Score, Seat};
use pahtum_protocol::{Placement, Reason, Rules, TimeControl};
use pahtum_record::{Forfeit, GameRecord, MoveKind, MoveRecord, Players, Termination, Timing};

use pahtum_referee::GameSpec;

use crate::config::{self, Tournament};
use crate::runner::game_spec;
use crate::schedule::{ScheduledGame, schedule};

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
        moves: Vec::new(),
        swap: Some(false),
        swap_move: None,
        score: Score { white: 10, black: 3 },
        result: Outcome::White,
        termination: Termination::normal(),
        started_unix_ms: 0,
        ended_unix_ms: 1,
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
        }),
        also: None,
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
        }),
        also: None,
    };
    record
}

/// Game `id` of [`tournament`]'s schedule as the runner would record it, played to the end by two bots
/// that take the first free cell and keep the colours: a record that passes the journal's audit.
pub fn played(id: &str) -> GameRecord {
    let tournament = tournament();
    let game = schedule(&tournament)
        .into_iter()
        .find(|game| game.id == id)
        .unwrap_or_else(|| panic!("{id} is not a game of the test tournament"));
    let spec = game_spec(&game, &tournament);
    let mut board = spec.initial_game();
    let mut moves = Vec::new();
    while let Some(color) = board.color_to_act() {
        let action = match board.legal_moves()[0] {
            Action::Pie(_) => Action::Pie(false),
            action => action,
        };
        board.play(action).expect("a legal move");
        let (kind, cell) = match action {
            Action::Block(cell) => (MoveKind::Block, cell),
            Action::Stone(cell) => (MoveKind::Stone, cell),
            Action::Pie(_) => continue,
        };
        moves.push(MoveRecord {
            kind,
            color,
            cell,
            timing: Timing::default(),
        });
    }
    let players = Players {
        first: game.first,
        second: game.second,
    };
    let swap_move = board.swapped().map(|_| Timing::default());
    spec.record(players, &board, moves, swap_move, Termination::normal(), 0)
}
