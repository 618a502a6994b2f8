//! Property tests: every message survives encoding and decoding, in one line,
//! with or without fields from a future version; and a request written for a
//! game gives that game back.

use pahtum::{Cell, Color, Game, Layout, Outcome, Phase, Score};
use pahtum_protocol::{
    Clock, FromBot, GameOver, Info, NewGame, Placement, Reason, Request, Rules, TimeControl, ToBot, decode_from_bot,
    decode_to_bot, encode,
};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::Value;

fn cell() -> impl Strategy<Value = Cell> {
    (0..49usize).prop_map(|index| Cell::from_index(index).expect("below 49"))
}

fn cells() -> impl Strategy<Value = Vec<Cell>> {
    prop::collection::vec(cell(), 0..12)
}

fn color() -> impl Strategy<Value = Color> {
    select(vec![Color::White, Color::Black])
}

fn rules() -> impl Strategy<Value = Rules> {
    (
        any::<bool>(),
        0..48usize,
        select(vec![Placement::Random, Placement::Fixed, Placement::Players]),
    )
        .prop_map(|(pie, blocks, placement)| Rules { pie, blocks, placement })
}

fn time_control() -> impl Strategy<Value = TimeControl> {
    (
        any::<Option<u64>>(),
        any::<Option<u64>>(),
        any::<u64>(),
        any::<u64>(),
        clock_kind(),
    )
        .prop_map(|(move_ms, base_ms, increment_ms, margin_ms, clock)| TimeControl {
            move_ms,
            base_ms,
            increment_ms,
            margin_ms,
            clock,
        })
}

fn clock_kind() -> impl Strategy<Value = pahtum_protocol::ClockKind> {
    prop_oneof![
        Just(pahtum_protocol::ClockKind::Wall),
        Just(pahtum_protocol::ClockKind::Cpu)
    ]
}

fn clock() -> impl Strategy<Value = Clock> {
    (
        any::<Option<u64>>(),
        any::<Option<u64>>(),
        any::<u64>(),
        any::<Option<u64>>(),
        any::<u64>(),
        clock_kind(),
    )
        .prop_map(
            |(remaining_ms, opponent_ms, increment_ms, move_ms, timeout_ms, kind)| Clock {
                remaining_ms,
                opponent_ms,
                increment_ms,
                move_ms,
                timeout_ms,
                kind,
            },
        )
}

fn request() -> impl Strategy<Value = Request> {
    (
        any::<u64>(),
        any::<String>(),
        color(),
        rules(),
        (cells(), cells(), cells()),
        prop::collection::vec(any::<String>(), 0..6),
        clock(),
    )
        .prop_map(
            |(id, game, color, rules, (blocks, white, black), moves, clock)| Request {
                id,
                game,
                color,
                rules,
                blocks,
                white,
                black,
                moves,
                clock,
            },
        )
}

/// JSON has no NaN or infinity, so evaluations are finite.
fn info() -> impl Strategy<Value = Option<Info>> {
    let eval = prop::num::f64::NORMAL | prop::num::f64::SUBNORMAL | prop::num::f64::ZERO;
    proptest::option::of(
        (
            proptest::option::of(eval),
            any::<Option<u32>>(),
            any::<Option<u64>>(),
            proptest::option::of(prop::collection::vec(any::<String>(), 0..4)),
            any::<Option<String>>(),
        )
            .prop_map(|(eval, depth, nodes, pv, comment)| Info {
                eval,
                depth,
                nodes,
                pv,
                comment,
            }),
    )
}

fn to_bot() -> impl Strategy<Value = ToBot> {
    let new_game = (any::<u64>(), any::<String>(), color(), rules(), cells(), time_control()).prop_map(
        |(id, game, color, rules, blocks, time)| {
            ToBot::NewGame(NewGame {
                id,
                game,
                color,
                rules,
                blocks,
                time,
            })
        },
    );
    let game_over = (
        any::<String>(),
        color(),
        select(vec![Outcome::White, Outcome::Black, Outcome::Draw]),
        (any::<u32>(), any::<u32>()),
        select(Reason::ALL.to_vec()),
        proptest::option::of(color()),
        any::<Option<String>>(),
    )
        .prop_map(|(game, color, result, (white, black), reason, loser, detail)| {
            ToBot::GameOver(GameOver {
                game,
                color,
                result,
                score: Score { white, black },
                reason,
                loser,
                detail,
            })
        });
    prop_oneof![
        (any::<u32>(), any::<String>()).prop_map(|(protocol, referee)| ToBot::Hello { protocol, referee }),
        new_game,
        request().prop_map(ToBot::PlaceBlock),
        request().prop_map(ToBot::PlayStone),
        request().prop_map(ToBot::PieDecision),
        any::<u64>().prop_map(|id| ToBot::Ping { id }),
        game_over,
        Just(ToBot::Quit),
    ]
}

fn from_bot() -> impl Strategy<Value = FromBot> {
    prop_oneof![
        (
            any::<u32>(),
            any::<String>(),
            any::<Option<String>>(),
            any::<Option<String>>()
        )
            .prop_map(|(protocol, name, version, author)| FromBot::Hello {
                protocol,
                name,
                version,
                author
            }),
        any::<u64>().prop_map(|id| FromBot::Ready { id }),
        (any::<u64>(), cell(), info()).prop_map(|(id, cell, info)| FromBot::Block { id, cell, info }),
        (any::<u64>(), cell(), info()).prop_map(|(id, cell, info)| FromBot::Stone { id, cell, info }),
        (any::<u64>(), any::<bool>(), info()).prop_map(|(id, swap, info)| FromBot::Pie { id, swap, info }),
        any::<u64>().prop_map(|id| FromBot::Pong { id }),
    ]
}

/// `line` (an encoded object) with one more field, as a later version might add.
fn with_future_field(line: &str, name: &str, value: Value) -> String {
    let mut object: Value = serde_json::from_str(line).expect("encoded JSON");
    object
        .as_object_mut()
        .expect("every message is an object")
        .insert(format!("x_{name}"), value);
    object.to_string()
}

fn json_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<i64>().prop_map(Value::from),
        any::<String>().prop_map(Value::from),
        prop::collection::vec(any::<bool>(), 0..3).prop_map(Value::from),
    ]
}

fn is_one_line(line: &str) -> bool {
    line.ends_with('\n') && !line[..line.len() - 1].contains('\n')
}

proptest! {
    #[test]
    fn messages_to_bots_round_trip(message in to_bot(), name in "[a-z]{1,8}", extra in json_value()) {
        let line = encode(&message);
        prop_assert!(is_one_line(&line), "{line:?}");
        prop_assert_eq!(&decode_to_bot(&line).unwrap(), &message);
        prop_assert_eq!(decode_to_bot(&with_future_field(&line, &name, extra)).unwrap(), message);
    }

    #[test]
    fn messages_from_bots_round_trip(message in from_bot(), name in "[a-z]{1,8}", extra in json_value()) {
        let line = encode(&message);
        prop_assert!(is_one_line(&line), "{line:?}");
        prop_assert_eq!(&decode_from_bot(&line).unwrap(), &message);
        prop_assert_eq!(decode_from_bot(&with_future_field(&line, &name, extra)).unwrap(), message);
    }

    /// The referee writes a request from its game; a bot rebuilds the game
    /// from the request; the two games are the same, in every phase.
    #[test]
    fn requests_give_their_game_back(
        placed in any::<bool>(),
        half_blocks in 0..7usize,
        pie in any::<bool>(),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 0..49),
    ) {
        let count = 2 * half_blocks + 1;
        let (layout, placement) = if placed {
            (Layout::Placed { count }, Placement::Players)
        } else {
            let blocks = pahtum::setup::random_blocks(count, picks.len() as u64).unwrap().cells().collect();
            (Layout::Fixed { blocks }, Placement::Fixed)
        };
        let rules = Rules { pie, blocks: count, placement };
        let clock = Clock { remaining_ms: None, opponent_ms: None, increment_ms: 0, move_ms: Some(100), timeout_ms: 100, kind: pahtum_protocol::ClockKind::Wall };
        let mut game = Game::new(&layout, pie).unwrap();
        for pick in picks {
            let Some(message) = ToBot::request(7, "g", rules, &game, clock) else { break };
            let (ToBot::PlaceBlock(request) | ToBot::PlayStone(request) | ToBot::PieDecision(request)) = &message else {
                panic!("not a request: {message:?}")
            };
            let kind = match game.phase() {
                Phase::PlaceBlocks => "place_block",
                Phase::PieDecision => "pie_decision",
                _ => "play_stone",
            };
            prop_assert_eq!(message.kind(), kind);
            prop_assert_eq!(Some(request.color), game.color_to_act());
            prop_assert_eq!(&request.game().unwrap(), &game);
            let legal = game.legal_moves();
            game.play(*pick.get(&legal)).unwrap();
        }
    }
}
