//! Records for the unit tests of this crate: played games that replay, built with the rules crate.

use pahtum::{Action, Cell, Game, Phase};
use pahtum_protocol::Info;
use pahtum_record::{GameRecord, MoveKind, MoveRecord, Timing};
use pahtum_tournament::testing::record;

/// A complete game between `first` and `second` on a board with one block (`a1`), without the pie rule: each
/// bot plays the first free cell, and says so in its `info`.
pub fn played(id: &str, first: &str, second: &str) -> GameRecord {
    played_with(id, first, second, None, |game| game.position().free().cells().next())
}

/// [`played`], with the pie rule when `swap` says what the second seat decides after White's first stone,
/// each stone on the cell that `choose` picks (`None`: the first free cell).
pub fn played_with(
    id: &str,
    first: &str,
    second: &str,
    swap: Option<bool>,
    choose: impl Fn(&Game) -> Option<Cell>,
) -> GameRecord {
    let mut played = record(id, first, second);
    played.rules.blocks = 1;
    played.rules.pie = swap.is_some();
    played.swap = swap;
    if swap == Some(true) {
        (played.white, played.black) = (second.to_owned(), first.to_owned());
    }
    played.blocks = vec!["a1".parse().unwrap()];
    let mut game = played.rules.start(&played.blocks).unwrap();
    while let (Some(color), Some(seat)) = (game.color_to_act(), game.seat_to_act()) {
        if let (Phase::PieDecision, Some(swap)) = (game.phase(), swap) {
            played.swap_move = Some(Timing {
                ms: 0.5,
                cpu_ms: None,
                info: None,
            });
            game.play(Action::Pie(swap)).unwrap();
            continue;
        }
        let cell = choose(&game).or_else(|| game.position().free().cells().next()).unwrap();
        let action = Action::Stone(cell);
        played.moves.push(MoveRecord {
            kind: MoveKind::Stone,
            seat: Some(seat),
            color,
            cell,
            timing: Timing {
                ms: 1.5,
                cpu_ms: None,
                info: Some(Info {
                    comment: Some("first free".to_owned()),
                    ..Info::default()
                }),
            },
        });
        game.play(action).unwrap();
    }
    played.score = game.score();
    played.result = played.score.outcome();
    played.replay().expect("the fixture replays");
    played
}

/// Game `id` of the test tournament's schedule, played to the end by two bots that take the first free
/// cell (`pahtum_tournament::testing::played`), between `first` and `second` (as the schedule has them),
/// each move saying so in its `info`.
pub fn scheduled(id: &str, first: &str, second: &str) -> GameRecord {
    let mut played = pahtum_tournament::testing::played(id);
    assert_eq!(
        (played.players.first.as_str(), played.players.second.as_str()),
        (first, second),
        "the schedule's players of {id}"
    );
    for played_move in &mut played.moves {
        played_move.timing = Timing {
            ms: 1.5,
            cpu_ms: None,
            info: Some(Info {
                comment: Some("first free".to_owned()),
                ..Info::default()
            }),
        };
    }
    played.replay().expect("the fixture replays");
    played
}
