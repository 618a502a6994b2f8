//! Properties of the journal's hand reader ([`split`](super::split), with serde reading the rest) against
//! serde reading the line whole: on every record the arena writes (a tournament's line, or a league's game
//! line with its entrants), with values from every corner of their domains, and on those lines edited (a
//! byte deleted, inserted or replaced, whitespace, a torn line, members reordered or repeated, a key
//! added, a value spelt otherwise), the hand reader leaves the line to serde or reads what serde reads
//! (the record, the moves, the entrants); it never takes a line serde refuses, and never panics.

use pahtum::Seat;
use pahtum_protocol::bot::Identity;
use pahtum_record::{
    BookLine, Forfeit, GameRecord, Hellos, MoveKind, MoveRecord, Opening, Origin, OtherForfeit, Players, SeatTimes,
    Termination, Timing,
};
use proptest::prelude::*;
use proptest::sample::Index;

use super::tests::{agrees, by_hand, by_serde};
use crate::entrants::GameLine;

use pahtum_protocol as protocol;

#[path = "../../pahtum-protocol/tests/common/json_edits.rs"]
mod json_edits;

use json_edits::{KEYS, VALUES, cell, color, edits, float, info, number, reason, rules, score_and_result, text};

/// Either seat.
fn seat() -> impl Strategy<Value = Seat> {
    proptest::sample::select(&[Seat::First, Seat::Second][..])
}

/// A move: a stone or a block, its seat or not, and its timing, mostly without `info`.
fn move_record() -> BoxedStrategy<MoveRecord> {
    let kind = proptest::sample::select(&[MoveKind::Stone, MoveKind::Block][..]);
    let timing = (
        float(),
        proptest::option::of(float()),
        prop_oneof![5 => Just(None), 1 => info()],
    )
        .prop_map(|(ms, cpu_ms, info)| Timing { ms, cpu_ms, info });
    (kind, proptest::option::of(seat()), color(), cell(), timing)
        .prop_map(|(kind, seat, color, cell, timing)| MoveRecord {
            kind,
            seat,
            color,
            cell,
            timing,
        })
        .boxed()
}

/// A forfeit, with odd text in its detail, line and stderr.
fn forfeit() -> BoxedStrategy<Forfeit> {
    (
        (text(), seat(), color()),
        (
            text(),
            proptest::option::of(text()),
            proptest::collection::vec(text(), 0..3),
            any::<bool>(),
        ),
    )
        .prop_map(
            |((bot, seat, color), (detail, line, stderr_tail, overloaded))| Forfeit {
                bot,
                seat,
                color,
                detail,
                line,
                stderr_tail,
                overloaded,
            },
        )
        .boxed()
}

/// A bot's greeting.
fn identity() -> impl Strategy<Value = Identity> {
    (text(), proptest::option::of(text()), proptest::option::of(text())).prop_map(|(name, version, author)| Identity {
        name,
        version,
        author,
    })
}

/// A record with any values (not a game the rules would replay: the reader does not replay), mostly
/// with ids and names as the arena writes them.
fn record() -> BoxedStrategy<GameRecord> {
    let name = || prop_oneof![3 => "[a-z0-9_-]{1,10}", 1 => text()];
    let head = (
        prop_oneof![3 => "[0-9]{3}-[0-9]{2}-[ab]", 1 => text()],
        proptest::option::of(text()),
        proptest::option::of(number()),
        rules(),
        json_edits::time_control(),
        proptest::option::of((json_edits::time_control(), json_edits::time_control())),
        any::<bool>(),
    );
    let players = (name(), name(), name(), name());
    let origin = (text(), text()).prop_map(|(file, game)| Origin { file, game });
    let book = (text(), prop_oneof![1..60_usize, Just(usize::MAX)]).prop_map(|(file, line)| BookLine { file, line });
    let opening = proptest::option::of(
        (
            prop_oneof![0..12_usize, Just(usize::MAX)],
            proptest::option::of(origin),
            proptest::option::of(book),
        )
            .prop_map(|(plies, from, book)| Opening { plies, from, book }),
    );
    let play = (
        proptest::collection::vec(cell(), 0..8),
        opening,
        proptest::collection::vec(move_record(), 0..12),
        proptest::option::of(any::<bool>()),
        proptest::option::of(
            (float(), proptest::option::of(float()), info()).prop_map(|(ms, cpu_ms, info)| Timing { ms, cpu_ms, info }),
        ),
    );
    let also = (reason(), forfeit()).prop_map(|(reason, forfeit)| OtherForfeit { reason, forfeit });
    let termination =
        (reason(), proptest::option::of(forfeit()), proptest::option::of(also)).prop_map(|(reason, forfeit, also)| {
            Termination {
                reason,
                forfeit,
                also,
                adjudicated: None,
            }
        });
    let hello = proptest::option::of(
        (proptest::option::of(identity()), proptest::option::of(identity()))
            .prop_map(|(first, second)| Hellos { first, second }),
    );
    let end = (score_and_result(), termination, number(), number(), hello);
    (head.boxed(), players.boxed(), play.boxed(), end.boxed())
        .prop_map(
            |(
                (id, layout, seed, rules, time, time_by_seat, pause_idle),
                (first, second, white, black),
                (blocks, opening, moves, swap, swap_move),
                ((score, result), termination, started_unix_ms, ended_unix_ms, hello),
            )| GameRecord {
                id,
                layout,
                seed,
                rules,
                time,
                time_by_seat: time_by_seat.map(|(first, second)| SeatTimes { first, second }),
                pause_idle,
                players: Players { first, second },
                white,
                black,
                blocks,
                opening,
                moves,
                swap,
                swap_move,
                score,
                result,
                termination,
                started_unix_ms,
                ended_unix_ms,
                hello,
            },
        )
        .boxed()
}

/// A line as the arena writes it: a tournament's record, or a league's game line (the record and its
/// entrants' hashes, mostly as the league writes them); with it, whether every move is as the hand reader
/// reads it (no `info`, timings that JSON can hold).
fn written() -> BoxedStrategy<(Vec<u8>, bool)> {
    let hash = prop_oneof![3 => "sha256:[0-9a-f]{1,64}", 1 => text()];
    (record(), proptest::option::of((hash.clone(), hash)))
        .prop_map(|(record, entrants)| {
            let line = match entrants {
                None => serde_json::to_vec(&record).unwrap(),
                Some((a, b)) => serde_json::to_vec(&GameLine {
                    record: &record,
                    entrants: [&a, &b],
                })
                .unwrap(),
            };
            let moves_by_hand = record.moves.iter().all(|played| {
                let Timing { ms, cpu_ms, info } = &played.timing;
                info.is_none() && ms.is_finite() && cpu_ms.is_none_or(f64::is_finite)
            });
            (line, moves_by_hand)
        })
        .boxed()
}

/// A line as the arena writes it (see [`written`]).
fn line() -> BoxedStrategy<Vec<u8>> {
    written().prop_map(|(line, _)| line).boxed()
}

/// Whether the hand reader leaves `line` to serde or reads it as serde does (see [`agrees`]).
fn check(line: &[u8]) -> Result<(), TestCaseError> {
    prop_assert!(
        agrees(line),
        "read otherwise than serde: {}",
        String::from_utf8_lossy(line)
    );
    Ok(())
}

/// Whether the line's strings of `text` are as the hand reader reads them: without escapes or control
/// characters.
fn plain(text: &str) -> bool {
    text.bytes().all(|byte| byte != b'"' && byte != b'\\' && byte >= 0x20)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    /// Every line the arena writes is read by hand, as serde reads it, unless a move has `info` or a
    /// timing JSON cannot hold (serde writes `null`), which are serde's; a league's entrants are read by
    /// hand where they need no escapes.
    #[test]
    fn lines_as_the_arena_writes_them_are_read_by_hand_as_serde_reads_them((line, moves_by_hand) in written()) {
        check(&line)?;
        let (record, moves, entrants) = by_serde(&line).expect("serde reads what serde writes");
        let hand = by_hand(&line);
        prop_assert_eq!(hand.is_some(), moves_by_hand, "{}", String::from_utf8_lossy(&line));
        if let Some((by_hand_record, by_hand_moves, by_hand_entrants)) = hand {
            prop_assert_eq!(by_hand_record, record);
            prop_assert_eq!(by_hand_moves, moves);
            let plain_entrants = entrants.filter(|entrants| entrants.iter().all(|hash| plain(hash)));
            prop_assert_eq!(by_hand_entrants, plain_entrants, "{}", String::from_utf8_lossy(&line));
        }
    }

    /// Any edit of a line, valid JSON or not, is left to serde or read as serde reads it.
    #[test]
    fn edited_lines_are_left_to_serde_or_read_as_serde_reads_them(line in line(), edits in edits()) {
        check(&json_edits::apply(&line, &edits, KEYS, VALUES))?;
    }
}

proptest! {
    // Each case checks a line at many places, one at a time: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Values of a line spelt otherwise (the same value, a spelling serde refuses, another value), one at a
    /// time at sixteen of them, are left to serde or read as serde reads them.
    #[test]
    fn respelled_lines_are_left_to_serde_or_read_as_serde_reads_them(
        line in line(),
        values in proptest::collection::vec((any::<Index>(), 0..json_edits::RESPELLINGS), 16),
    ) {
        let scalars = json_edits::scalars(&line);
        for (value, how) in values {
            check(&json_edits::respell_at(&line, value.index(scalars), how).expect("a value of the line"))?;
        }
    }

    /// Each member of a line in turn written twice (in another place, with its value or another one's) is
    /// left to serde or read as serde reads it: serde refuses a key of the record twice, and skips an
    /// unknown one.
    #[test]
    fn lines_with_a_member_twice_are_left_to_serde_or_read_as_serde_reads_them(
        line in line(),
        at in any::<Index>(),
        value_of in proptest::option::of(any::<Index>()),
    ) {
        let members = json_edits::members(&line);
        for member in 0..members {
            let value_of = value_of.map_or(member, |value_of| value_of.index(members));
            check(&json_edits::repeat_member(&line, member, at.index(members + 1), value_of).expect("a member"))?;
        }
    }

    /// A line torn anywhere (at sixteen places of each line: a crash in the middle of a write) is refused
    /// by serde and left to it by the hand reader.
    #[test]
    fn torn_lines_are_left_to_serde(line in line(), tears in proptest::collection::vec(any::<Index>(), 16)) {
        for tear in tears {
            let torn = &line[..tear.index(line.len())];
            prop_assert!(by_hand(torn).is_none(), "{}", String::from_utf8_lossy(torn));
            prop_assert!(by_serde(torn).is_none(), "{}", String::from_utf8_lossy(torn));
        }
    }
}
