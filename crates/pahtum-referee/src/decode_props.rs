//! Properties of [`decode`](super::decode) against the protocol's own decoding (serde): on every answer
//! serde writes, and on those answers edited (a byte deleted, inserted or replaced, whitespace, a torn line,
//! members reordered or repeated, a key added), the hand reader and the one-pass serde reader give the
//! message the protocol's decoder gives, and an error where it refuses the line.

use pahtum_protocol as protocol;
use pahtum_protocol::{FromBot, decode_from_bot};
use proptest::prelude::*;

use super::{decode, move_by_hand, one_pass};

#[path = "../../pahtum-protocol/tests/common/json_edits.rs"]
mod json_edits;

use json_edits::{KEYS, VALUES, cell, edits, info, number, text};

/// Any answer a bot may print, with values from every corner of their domains.
fn answer() -> impl Strategy<Value = FromBot> {
    prop_oneof![
        3 => (number(), cell(), info()).prop_map(|(id, cell, info)| FromBot::Stone { id, cell, info }),
        2 => (number(), cell(), info()).prop_map(|(id, cell, info)| FromBot::Block { id, cell, info }),
        2 => (number(), any::<bool>(), info()).prop_map(|(id, swap, info)| FromBot::Pie { id, swap, info }),
        1 => number().prop_map(|id| FromBot::Pong { id }),
        1 => number().prop_map(|id| FromBot::Ready { id }),
        1 => (any::<u32>(), text(), proptest::option::of(text()), proptest::option::of(text())).prop_map(
            |(protocol, name, version, author)| FromBot::Hello {
                protocol,
                name,
                version,
                author,
            }
        ),
    ]
}

/// The answer as serde writes it, without its newline (the referee reads lines without it).
fn line_of(answer: &FromBot) -> String {
    serde_json::to_string(answer).unwrap()
}

/// Whether `decode` gives what the protocol's decoder gives for `line` (an error for a line that is not
/// UTF-8, which serde refuses too), and the two fast readers, where they take the line, the same.
fn agrees(line: &[u8]) -> Result<(), TestCaseError> {
    let decoded = decode(line).ok();
    let Ok(text) = std::str::from_utf8(line) else {
        prop_assert!(serde_json::from_slice::<FromBot>(line).is_err());
        prop_assert_eq!(decoded, None);
        return Ok(());
    };
    let by_serde = decode_from_bot(text).ok();
    prop_assert_eq!(&decoded, &by_serde, "{:?}", text);
    if let Some(by_hand) = move_by_hand(text) {
        prop_assert_eq!(Some(by_hand), by_serde.clone(), "by hand: {:?}", text);
    }
    if let Some(one_pass) = one_pass(text) {
        prop_assert_eq!(Some(one_pass), by_serde, "in one pass: {:?}", text);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every answer serde writes decodes as serde decodes it; a move without `info` (what most bots print)
    /// is read by hand.
    #[test]
    fn answers_as_serde_writes_them_decode_as_serde_decodes_them(answer in answer()) {
        let line = line_of(&answer);
        agrees(line.as_bytes())?;
        let plain_move = matches!(answer, FromBot::Stone { info: None, .. } | FromBot::Block { info: None, .. });
        prop_assert_eq!(move_by_hand(&line).is_some(), plain_move, "{}", line);
        prop_assert!(decode(line.as_bytes()).is_ok(), "{}", line);
    }

    /// Any edit of an answer, valid JSON or not, decodes as serde decodes it, or fails where it fails.
    #[test]
    fn edited_answers_decode_as_serde_decodes_them(answer in answer(), edits in edits()) {
        let line = json_edits::apply(line_of(&answer).as_bytes(), &edits, KEYS, VALUES);
        agrees(&line)?;
    }
}

proptest! {
    // Each case checks a line at many places, one at a time: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Each value of an answer in turn written otherwise (the same value spelt otherwise, a spelling serde
    /// refuses, another value) decodes as serde decodes it.
    #[test]
    fn respelled_answers_decode_as_serde_decodes_them(
        answer in answer(),
        hows in proptest::collection::vec(0..json_edits::RESPELLINGS, 32),
    ) {
        let line = line_of(&answer);
        for scalar in 0..json_edits::scalars(line.as_bytes()) {
            let how = hows[scalar % hows.len()];
            agrees(&json_edits::respell_at(line.as_bytes(), scalar, how).expect("a value of the line"))?;
        }
    }

    /// Each member of an answer in turn written twice (in another place, with its value or another one's)
    /// decodes as serde decodes it: refused where a message's field is twice.
    #[test]
    fn answers_with_a_member_twice_decode_as_serde_decodes_them(
        answer in answer(),
        at in any::<proptest::sample::Index>(),
        value_of in proptest::option::of(any::<proptest::sample::Index>()),
    ) {
        let line = line_of(&answer);
        let members = json_edits::members(line.as_bytes());
        for member in 0..members {
            let value_of = value_of.map_or(member, |value_of| value_of.index(members));
            agrees(&json_edits::repeat_member(line.as_bytes(), member, at.index(members + 1), value_of).expect("a member"))?;
        }
    }

    /// An answer torn anywhere (its writer killed mid-line) decodes as serde decodes it: never, but for
    /// the whole line.
    #[test]
    fn torn_answers_decode_as_serde_decodes_them(answer in answer()) {
        let line = line_of(&answer);
        for end in 0..line.len() {
            agrees(&line.as_bytes()[..end])?;
            let torn = &line.as_bytes()[..end];
            prop_assert!(decode(torn).is_err(), "{:?}", String::from_utf8_lossy(torn));
        }
    }
}

/// The edits reach both outcomes: edited answers that still decode, and those that do not.
#[test]
fn the_edits_reach_answers_kept_and_refused() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = (answer(), edits());
    let (mut kept, mut refused) = (0, 0);
    for _ in 0..400 {
        let (answer, edits) = strategy.new_tree(&mut runner).unwrap().current();
        let line = json_edits::apply(line_of(&answer).as_bytes(), &edits, KEYS, VALUES);
        if decode(&line).is_ok() {
            kept += 1;
        } else {
            refused += 1;
        }
    }
    assert!(kept > 40 && refused > 40, "{kept} kept, {refused} refused");
}
