//! A bot's line as a message of the protocol, or the failure that says what
//! is wrong with it.
//!
//! Answers to moves are decoded in one pass into a struct with borrowed
//! strings. serde's tagged enums (the protocol's [`FromBot`]) first copy every
//! field of a message into a buffer, which costs two allocations and most of
//! the decoding time of each move. Any line this fast path does not take,
//! because it is another message or because it is wrong, goes through the
//! protocol's own decoding, so that both paths accept the same lines (a test
//! holds them to it) and errors are explained one way. Before serde, a stone
//! or block answer written exactly as serde writes it, with nothing else
//! (`{"type":"stone","id":7,"cell":"d4"}`, what most bots print), is read by
//! hand, which costs a tenth of serde's instructions; anything else in it (a
//! space, an escape, a leading zero, `info`) leaves the line to serde.

use pahtum::Cell;
use pahtum_protocol::{FromBot, Info, Reason, decode_from_bot};
use serde::Deserialize;

use crate::verdict::Failure;

/// Decodes an answer line. An off-board cell is an illegal move.
pub(crate) fn decode(line: &[u8]) -> Result<FromBot, Failure> {
    let Ok(text) = std::str::from_utf8(line) else {
        return Err(Failure::new(Reason::ProtocolError, "printed a line that is not valid UTF-8").with_line(line));
    };
    if let Some(message) = move_by_hand(text) {
        return Ok(message);
    }
    if let Some(message) = one_pass(text) {
        return Ok(message);
    }
    let error = match decode_from_bot(text) {
        Ok(message) => return Ok(message),
        Err(error) => error,
    };
    if let Some(cell) = off_board_cell(text) {
        let detail = format!("played {cell:?}, which is not a cell of the board (a1 to g7, lowercase)");
        return Err(Failure::new(Reason::IllegalMove, detail).with_line(line));
    }
    Err(Failure::undecodable(text, &error))
}

/// A `stone` or `block` answer laid out exactly as
/// `{"type":"stone","id":7,"cell":"d4"}`, with an id of plain digits (no
/// leading zero, as JSON wants) and a cell of the board; `None` for any
/// other line.
fn move_by_hand(text: &str) -> Option<FromBot> {
    let (stone, rest) = match text.strip_prefix(r#"{"type":"stone","id":"#) {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix(r#"{"type":"block","id":"#)?),
    };
    let (id, rest) = rest.split_once(',')?;
    let digits = !id.is_empty() && id.bytes().all(|byte| byte.is_ascii_digit());
    if !digits || id.len() > 1 && id.starts_with('0') {
        return None;
    }
    let id = id.parse().ok()?;
    let cell = rest.strip_prefix(r#""cell":""#)?.strip_suffix(r#""}"#)?.parse().ok()?;
    Some(if stone {
        FromBot::Stone { id, cell, info: None }
    } else {
        FromBot::Block { id, cell, info: None }
    })
}

/// A `stone`, `block` or `pie` answer read in one serde pass into a
/// [`MoveAnswer`], if no number in the line could be out of range: a struct
/// skips the members it does not know without reading them, where the
/// protocol's decoder reads them and refuses a number out of `f64`'s range.
fn one_pass(text: &str) -> Option<FromBot> {
    pahtum_protocol::codec::numbers_surely_in_range(text)
        .then(|| serde_json::from_str(text).ok().and_then(MoveAnswer::message))
        .flatten()
}

/// The fields of `block`, `stone` and `pie` answers; unknown fields are
/// skipped, as the protocol says. The cell is parsed from the borrowed text
/// ([`Cell`]'s own deserializer copies it into a `String` first).
#[derive(Deserialize)]
struct MoveAnswer<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    id: u64,
    cell: Option<&'a str>,
    swap: Option<bool>,
    info: Option<Info>,
}

impl MoveAnswer<'_> {
    /// The message, if the fields make one of the three answers.
    fn message(self) -> Option<FromBot> {
        let MoveAnswer {
            kind,
            id,
            cell,
            swap,
            info,
        } = self;
        let cell: Option<Cell> = cell.map(str::parse).transpose().ok()?;
        match (kind, cell, swap) {
            ("block", Some(cell), _) => Some(FromBot::Block { id, cell, info }),
            ("stone", Some(cell), _) => Some(FromBot::Stone { id, cell, info }),
            ("pie", _, Some(swap)) => Some(FromBot::Pie { id, swap, info }),
            _ => None,
        }
    }
}

/// The `cell` of a `stone` or `block` answer, if it is not on the board.
fn off_board_cell(text: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let kind = value.get("type")?.as_str()?;
    let cell = value.get("cell")?.as_str()?;
    (matches!(kind, "stone" | "block") && cell.parse::<Cell>().is_err()).then(|| cell.to_owned())
}

#[cfg(test)]
#[path = "decode_props.rs"]
mod props;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_decode_or_say_what_is_wrong() {
        assert_eq!(decode(br#"{"type":"pong","id":3}"#).unwrap(), FromBot::Pong { id: 3 });
        let not_json = decode(b"e4 please").unwrap_err();
        assert_eq!(not_json.reason, Reason::ProtocolError);
        assert!(not_json.detail.contains("not JSON"), "{not_json}");
        assert_eq!(not_json.line.as_deref(), Some("e4 please"));
        let off_board = decode(br#"{"type":"stone","id":3,"cell":"h9"}"#).unwrap_err();
        assert_eq!(off_board.reason, Reason::IllegalMove);
        assert!(off_board.detail.contains("\"h9\""), "{off_board}");
        assert_eq!(decode(b"\xff").unwrap_err().reason, Reason::ProtocolError);
        let wrong_type = decode(br#"{"type":"stone","id":"x","cell":"a1"}"#).unwrap_err();
        assert_eq!(wrong_type.reason, Reason::ProtocolError);
    }

    /// Lines that the fast path takes, lines it leaves to the full decoding,
    /// and lines that are wrong: the result is the protocol's, every time.
    #[test]
    fn the_fast_path_accepts_exactly_what_the_protocol_accepts() {
        let lines = [
            r#"{"type":"stone","id":7,"cell":"d4"}"#,
            r#"{"type":"block","id":7,"cell":"g7"}"#,
            r#"{"type":"pie","id":7,"swap":false}"#,
            r#"{"type":"stone","id":7,"cell":"d4","info":{"eval":-1.5,"depth":3,"pv":["d4","e5"],"comment":"é\n"}}"#,
            r#"{"type":"stone","id":7,"cell":"d4","info":null}"#,
            r#"{"cell":"a1","id":7,"type":"stone","extra":[1,{"x":null}]}"#,
            r#"{"type":"stone","id":7,"cell":"d4","info":{"eval":1,"x":[2]}}"#,
            r#"{"type":"stone","id":7,"cell":"d4","extra":1e400}"#,
            r#"{"type":"stone","id":7,"cell":"d4","info":{"x":[1e400]}}"#,
            r#"{"type":"stone","id":7,"cell":"d4","info":{"eval":1e400}}"#,
            r#"{"type":"stone","id":7,"cell":"d4","swap":"not a bool"}"#,
            r#"{"type":"pie","id":7,"swap":true,"cell":"h9"}"#,
            r#"{"type":"st\u006fne","id":7,"cell":"d4"}"#,
            r#"{"type":"stone","id":7,"cell":"d\u0034"}"#,
            r#"{"type":"pong","id":7}"#,
            r#"{"type":"ready","id":7,"cell":"d4"}"#,
            r#"{"type":"hello","protocol":1,"name":"x"}"#,
            r#"{"type":"stone","id":7}"#,
            r#"{"type":"pie","id":7}"#,
            r#"{"type":"stone","id":-7,"cell":"d4"}"#,
            r#"{"type":"stone","id":7.5,"cell":"d4"}"#,
            r#"{"type":"stone","id":7,"id":8,"cell":"d4"}"#,
            r#"{"type":"stone","type":"block","id":7,"cell":"d4"}"#,
            r#"{"type":"stone","id":7,"cell":"D4"}"#,
            r#"{"type":"bestmove","id":7,"cell":"d4"}"#,
            r#"{"type":"stone","id":7,"cell":"d4","info":{"depth":"deep"}}"#,
            r#"{"type":"stone","id":7,"cell":"d4"} trailing"#,
            r#"{"type":"stone","id":07,"cell":"d4"}"#,
            r#"{"type":"block","id":18446744073709551616,"cell":"d4"}"#,
            r#"{"type":"stone","id":,"cell":"d4"}"#,
            r#"{"type":"stone","id":7,"cell":"d4","cell":"e4"}"#,
            r#"{"type":"stone","id":7,"cell":"d4"}}"#,
            r#"{"type":"stone","id":7,"cell":"dé"}"#,
            r#"[1,2]"#,
        ];
        for line in lines {
            assert_eq!(decode(line.as_bytes()).ok(), decode_from_bot(line).ok(), "{line}");
        }
        let taken: Vec<&str> = lines.iter().copied().filter(|line| one_pass(line).is_some()).collect();
        assert_eq!(taken, lines[..7]);
        let by_hand: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|line| move_by_hand(line).is_some())
            .collect();
        assert_eq!(by_hand, lines[..2]);
        let zero = FromBot::Stone {
            id: 0,
            cell: "d4".parse().unwrap(),
            info: None,
        };
        assert_eq!(
            move_by_hand(r#"{"type":"stone","id":0,"cell":"d4"}"#),
            Some(zero.clone())
        );
        let spaced = r#"{"type":"stone","id":0,"cell":"d4" }"#;
        assert_eq!(
            (move_by_hand(spaced), decode(spaced.as_bytes()).ok()),
            (None, Some(zero))
        );
    }

    mod generated {
        use proptest::prelude::*;
        use proptest::strategy::ValueTree;

        use super::*;

        /// One of `values`, or nothing (the field is left out).
        fn field(values: &[&'static str]) -> impl Strategy<Value = Option<String>> + use<> {
            let values: Vec<String> = values.iter().map(|value| (*value).to_owned()).collect();
            proptest::option::of(proptest::sample::select(values))
        }

        /// `value` most of the time, else something wrong or nothing.
        fn mostly(
            value: impl Strategy<Value = String>,
            wrong: &[&'static str],
        ) -> impl Strategy<Value = Option<String>> {
            prop_oneof![4 => value.prop_map(Some), 1 => field(wrong)]
        }

        /// A `"key":value` member, or nothing.
        fn member(
            key: &'static str,
            value: impl Strategy<Value = Option<String>>,
        ) -> impl Strategy<Value = Option<String>> {
            value.prop_map(move |value| value.map(|value| format!("\"{key}\":{value}")))
        }

        /// Answer-like lines: the fields of the three answers with right and wrong values, JSON escapes,
        /// unknown fields, any order, a repeated field, and something after the object.
        fn line() -> impl Strategy<Value = String> {
            let kind = mostly(
                proptest::sample::select(vec![r#""stone""#, r#""block""#, r#""pie""#]).prop_map(str::to_owned),
                &[
                    r#""pong""#,
                    r#""ready""#,
                    r#""hello""#,
                    r#""bestmove""#,
                    r#""st\u006fne""#,
                    r#""Stone""#,
                    "7",
                    "null",
                ],
            );
            let id = mostly(
                any::<u64>().prop_map(|id| id.to_string()),
                &["-7", "7.5", "7e0", r#""7""#, "18446744073709551616", "null"],
            );
            let cell = mostly(
                ("[a-g]", 1..=7u8).prop_map(|(column, row)| format!("\"{column}{row}\"")),
                &[r#""h9""#, r#""D4""#, r#""d\u0034""#, r#""""#, r#""a0""#, "4", "null"],
            );
            let swap = mostly(
                any::<bool>().prop_map(|swap| swap.to_string()),
                &[r#""true""#, "1", "null"],
            );
            let info = field(&[
                "null",
                r#"{"eval":-1.5,"depth":3,"pv":["d4","e5"],"comment":"\u00e9\n"}"#,
                r#"{"depth":"deep"}"#,
                r#"{"eval":1,"x":1e400}"#,
                "3",
                "{}",
            ]);
            let extra = field(&[r#"[1,{"x":null}]"#, r#""\u00e9""#, "{}", "1e400"]);
            let members = (
                member("type", kind),
                member("id", id),
                member("cell", cell),
                member("swap", swap),
                member("info", info),
                member("extra", extra),
            );
            let repeated = proptest::option::weighted(0.05, member("id", Just(Some("8".to_owned()))));
            let after = prop_oneof![
                8 => Just(""),
                1 => proptest::sample::select(vec![" ", "\t", " trailing", "}", ",", "{}"]),
            ];
            (members, repeated, after)
                .prop_flat_map(|((kind, id, cell, swap, info, extra), repeated, after)| {
                    let fields: Vec<String> = [kind, id, cell, swap, info, extra, repeated.flatten()]
                        .into_iter()
                        .flatten()
                        .collect();
                    (Just(fields).prop_shuffle(), Just(after))
                })
                .prop_map(|(fields, after)| format!("{{{}}}{after}", fields.join(",")))
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2048))]

            /// Whatever the line, the fast path gives the protocol's own result.
            #[test]
            fn the_fast_path_decodes_as_the_protocol(line in line()) {
                prop_assert_eq!(decode(line.as_bytes()).ok(), decode_from_bot(&line).ok(), "{}", line);
            }
        }

        /// The generator reaches both paths: lines the fast path takes, and lines it leaves.
        #[test]
        fn the_generated_lines_reach_both_paths() {
            let mut runner = proptest::test_runner::TestRunner::deterministic();
            let strategy = line();
            let (mut taken, mut left, mut valid) = (0, 0, 0);
            for _ in 0..2000 {
                let line = strategy.new_tree(&mut runner).unwrap().current();
                if one_pass(&line).is_some() {
                    taken += 1
                } else {
                    left += 1
                }
                valid += usize::from(decode_from_bot(&line).is_ok());
            }
            assert!(
                taken > 100 && left > 100 && valid > taken,
                "{taken} taken, {left} left, {valid} valid"
            );
        }
    }
}
