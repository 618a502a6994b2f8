//! Properties of the bot loop's readers against the protocol's decoder (serde): on every message serde
//! writes to a bot, and on those messages edited (a byte deleted, inserted or replaced, whitespace, a torn
//! line, members reordered or repeated, a key added, a value spelt otherwise), [`decode`] gives what
//! [`decode_to_bot`] gives (the message, or an error), and a request that [`RequestText`] reads by hand is
//! the request the decoder reads, whose game [`Replay`] replays as [`Request::game`] does, with its memos
//! warm or cold.
//!
//! One disagreement is the reader's contract, documented at `leading_kind`: a line with a second `"type"`
//! at its top (which no referee writes) is taken by its first, where the decoder takes its last. There
//! the property is that the message is the decoder's, or one of the line's first `"type"`.

use pahtum::{Bitboard, Game};
use proptest::prelude::*;

use super::{Memo, Replay, RequestText, decode, strings};
use crate::{GameOver, NewGame, Request, ToBot, decode_to_bot};

use crate as protocol;

#[path = "../../tests/common/json_edits.rs"]
mod json_edits;

use json_edits::{
    KEYS, VALUES, cell, clock, color, edits, number, reason, rules, score_and_result, text, time_control,
};

/// A move of a request's list: mostly in the rules' notation, else any text.
fn move_text() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "#?[a-g][1-7]",
        1 => proptest::sample::select(&["swap", "keep"][..]).prop_map(str::to_owned),
        1 => text(),
    ]
}

/// A request with any values, a game or not: mostly ids and moves as the referee writes them.
fn request() -> BoxedStrategy<Request> {
    let cells = || proptest::collection::vec(cell(), 0..6);
    let game = prop_oneof![3 => "[a-z0-9-]{0,12}", 1 => text()];
    (
        (number(), game, color(), rules()),
        (cells(), cells(), cells()),
        proptest::collection::vec(move_text(), 0..8),
        clock(),
    )
        .prop_map(
            |((id, game, color, rules), (blocks, white, black), moves, clock)| Request {
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
        .boxed()
}

/// Any message the referee writes to a bot.
fn message() -> BoxedStrategy<ToBot> {
    let new_game = (
        number(),
        text(),
        color(),
        rules(),
        proptest::collection::vec(cell(), 0..6),
        time_control(),
    )
        .prop_map(|(id, game, color, rules, blocks, time)| NewGame {
            id,
            game,
            color,
            rules,
            blocks,
            time,
        });
    let game_over = (
        (text(), color(), score_and_result()),
        (reason(), proptest::option::of(color()), proptest::option::of(text())),
    )
        .prop_map(|((game, color, (score, result)), (reason, loser, detail))| GameOver {
            game,
            color,
            result,
            score,
            reason,
            loser,
            detail,
        });
    prop_oneof![
        3 => request().prop_map(ToBot::PlayStone),
        2 => request().prop_map(ToBot::PlaceBlock),
        2 => request().prop_map(ToBot::PieDecision),
        1 => (any::<u32>(), text()).prop_map(|(protocol, referee)| ToBot::Hello { protocol, referee }),
        1 => new_game.prop_map(ToBot::NewGame),
        1 => number().prop_map(|id| ToBot::Ping { id }),
        1 => game_over.prop_map(ToBot::GameOver),
        1 => Just(ToBot::Quit),
    ]
    .boxed()
}

/// A line the referee writes: a message of any values, or a request of a game played at random (some of
/// them made wrong), as the tests of the replay make them.
fn line() -> BoxedStrategy<String> {
    let played = (0..3_u64, any::<bool>(), 0..60_usize, 0..8_u8)
        .prop_filter_map("no request: the game is over", |(seed, players, moves, damage)| {
            super::tests::request_line(seed, players, moves, damage)
        });
    prop_oneof![3 => message().prop_map(|message| crate::encode(&message)), 1 => played].boxed()
}

/// The game `request` replays to, or its error by its debug text.
fn replayed(replay: &mut Replay, request: &RequestText<'_>) -> Result<Game, String> {
    replay.game_of(request).cloned().map_err(|error| format!("{error:?}"))
}

/// Whether the readers read `line` as the decoder does. `before` is a line read just before it, so that
/// the memo of the rules and clock and the replay's game are those a bot has after it.
fn agrees(line: &str, before: &str) -> Result<(), TestCaseError> {
    let by_serde = decode_to_bot(line).ok();
    let decoded = decode(line).ok();
    let type_keys = json_edits::keys(line.as_bytes())
        .map(|keys| keys.iter().filter(|key| *key == "type").count())
        .unwrap_or(0);
    if type_keys > 1 && decoded != by_serde {
        // The line's first "type", which the reader takes (documented).
        let first = line
            .strip_prefix("{\"type\":\"")
            .and_then(|rest| rest.split('"').next());
        prop_assert!(
            decoded.as_ref().is_none_or(|message| Some(message.kind()) == first),
            "{:?}: {:?}",
            line,
            decoded
        );
    } else {
        prop_assert_eq!(&decoded, &by_serde, "{:?}", line);
    }
    for warm in [false, true] {
        let (mut memo, mut replay) = (Memo::default(), Replay::default());
        if warm && let Some(before) = RequestText::read(before, &mut memo) {
            _ = replay.game_of(&before);
        }
        let Some(request) = RequestText::read(line, &mut memo) else {
            continue;
        };
        let Some(ToBot::PlaceBlock(expected) | ToBot::PlayStone(expected) | ToBot::PieDecision(expected)) = &by_serde
        else {
            return Err(TestCaseError::fail(format!(
                "read by hand, not a request for serde: {line:?}"
            )));
        };
        let set = |cells: &[pahtum::Cell]| cells.iter().copied().collect::<Bitboard>();
        let moves: Option<Vec<&str>> = strings(request.moves).collect();
        prop_assert_eq!(
            (request.id, request.rules, request.clock, moves),
            (
                expected.id,
                expected.rules,
                expected.clock,
                Some(expected.moves.iter().map(String::as_str).collect())
            ),
            "{:?}",
            line
        );
        prop_assert_eq!(
            (request.blocks, request.white, request.black),
            (set(&expected.blocks), set(&expected.white), set(&expected.black)),
            "{:?}",
            line
        );
        prop_assert_eq!(
            replayed(&mut replay, &request),
            expected.game().map_err(|error| format!("{error:?}")),
            "warm {}: {:?}",
            warm,
            line
        );
    }
    Ok(())
}

/// Whether `request` is one the referee writes as [`RequestText`] reads it: a game id and moves that
/// need no escapes (nor a comma or a `]`, in a move: the reader finds the list's end at its first `]`).
fn plain(request: &Request) -> bool {
    let plain = |text: &str| text.bytes().all(|byte| byte != b'"' && byte != b'\\' && byte >= 0x20);
    plain(&request.game)
        && request
            .moves
            .iter()
            .all(|text| plain(text) && !text.contains([',', ']']))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every line as the referee writes it decodes as the decoder decodes it, and every request whose
    /// strings need no escapes is read by hand.
    #[test]
    fn lines_as_the_referee_writes_them_are_read_as_serde_reads_them(message in message(), before in line()) {
        let line = crate::encode(&message);
        agrees(&line, &before)?;
        prop_assert!(decode(&line).is_ok(), "{}", line);
        if let ToBot::PlaceBlock(request) | ToBot::PlayStone(request) | ToBot::PieDecision(request) = &message {
            prop_assert_eq!(RequestText::read(&line, &mut Memo::default()).is_some(), plain(request), "{}", line);
        }
    }

    /// Any edit of a line, valid JSON or not, is read as the decoder reads it, or refused where it refuses
    /// it, never read by hand otherwise.
    #[test]
    fn edited_lines_are_read_as_serde_reads_them(line in line(), edits in edits()) {
        let edited = json_edits::apply(line.as_bytes(), &edits, KEYS, VALUES);
        // A bot reads its lines as text: a line that is not UTF-8 never reaches the readers.
        agrees(&String::from_utf8_lossy(&edited), &line)?;
    }
}

proptest! {
    // Each case checks a line at many places, one at a time: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Each value of a line in turn spelt otherwise (the same value, a spelling serde refuses, another
    /// value) is read as the decoder reads it.
    #[test]
    fn respelled_lines_are_read_as_serde_reads_them(
        line in line(),
        hows in proptest::collection::vec(0..json_edits::RESPELLINGS, 32),
    ) {
        for scalar in 0..json_edits::scalars(line.as_bytes()) {
            let how = hows[scalar % hows.len()];
            let edited = json_edits::respell_at(line.as_bytes(), scalar, how).expect("a value of the line");
            agrees(&String::from_utf8_lossy(&edited), &line)?;
        }
    }

    /// Each member of a line in turn written twice (in another place, with its value or another one's) is
    /// read as the decoder reads it: refused where a message's field is twice, and a second `"type"` as
    /// documented.
    #[test]
    fn lines_with_a_member_twice_are_read_as_serde_reads_them(
        line in line(),
        at in any::<proptest::sample::Index>(),
        value_of in proptest::option::of(any::<proptest::sample::Index>()),
    ) {
        let members = json_edits::members(line.as_bytes());
        for member in 0..members {
            let value_of = value_of.map_or(member, |value_of| value_of.index(members));
            let edited = json_edits::repeat_member(line.as_bytes(), member, at.index(members + 1), value_of);
            agrees(&String::from_utf8_lossy(&edited.expect("a member")), &line)?;
        }
    }

    /// A line torn anywhere (at sixteen places of each line) is refused, as the decoder refuses it.
    #[test]
    fn torn_lines_are_refused(line in line(), tears in proptest::collection::vec(any::<proptest::sample::Index>(), 16)) {
        let line = line.trim_end();
        for tear in tears {
            let end = (0..=tear.index(line.len())).rev().find(|&end| line.is_char_boundary(end)).unwrap_or(0);
            agrees(&line[..end], line)?;
            prop_assert!(decode(&line[..end]).is_err(), "{:?}", &line[..end]);
        }
    }
}
