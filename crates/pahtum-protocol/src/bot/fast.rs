//! The bot loop's fast path: a request line read in place, only its new
//! moves replayed, the answer framed by hand.
//!
//! It is the per-move hot path of every bot built on [`run`](super::run),
//! the arena's built-in bots included: with instant players, the plain path
//! (serde into a [`Request`] through a JSON tree, a replay from the first
//! move, serde out) was most of a tournament's CPU time per move. Each piece
//! here is a shortcut of a plain step of the protocol, and its tests hold
//! the two equal: [`RequestText`] reads what [`decode_to_bot`] reads,
//! [`Replay`] gives the game and the error that [`Request::game`] gives,
//! [`decode`] decodes the other lines as [`decode_to_bot`] does, and
//! [`encode_answer`] writes the bytes that [`encode`](crate::encode) writes.
//! A line the fast path does not take goes the plain way.

use pahtum::{Bitboard, Game};

use crate::state::StateError;
use crate::{Clock, DecodeError, FromBot, Request, ToBot, decode_to_bot};

/// `line` as a message, when [`RequestText::read`] did not take it: decoded
/// in one serde pass that allocates nothing but the [`Request`] itself, once
/// its `"type"` is known: read straight from the line's start where the line
/// begins as the referee writes it (`{"type":"play_stone",...`), else by a
/// first pass that reads only the `"type"` and skips the rest, if no number
/// in the line could be out of range (a [`Request`] skips the members it does
/// not know without reading them, where [`decode_to_bot`] reads and refuses
/// them). Any other
/// well-formed line is decoded directly into its message; a line that fails
/// either way goes to [`decode_to_bot`], whose error says what is wrong with
/// it.
pub(super) fn decode(line: &str) -> Result<ToBot, DecodeError> {
    let request = |message: fn(Request) -> ToBot| {
        let read = crate::codec::numbers_surely_in_range(line).then(|| serde_json::from_str(line).ok());
        read.flatten().map(message)
    };
    let kind = match leading_kind(line) {
        Some(kind) => Ok(kind),
        None => serde_json::from_str::<Kind>(line).map(|kind| kind.kind),
    };
    let fast = match kind {
        Ok("place_block") => request(ToBot::PlaceBlock),
        Ok("play_stone") => request(ToBot::PlayStone),
        Ok("pie_decision") => request(ToBot::PieDecision),
        _ => serde_json::from_str(line).ok(),
    };
    fast.map_or_else(|| decode_to_bot(line), Ok)
}

/// A request laid out exactly as the referee writes it (`protocol.md`'s
/// field order, no spaces, strings without escapes), read in place: the
/// line of every move, and most of this loop's work per move when it went
/// through serde into a [`Request`] and was replayed from its first move.
/// The lists of cells become sets, the moves stay the list's text for
/// [`Replay`], and only the two small objects, the rules and the clock, go
/// through serde, and only when their text differs from the last request's
/// ([`Memo`]). The game id and the colour are checked but not kept: the
/// replayed game says who acts. It accepts nothing serde would refuse
/// (strings with a quote, a backslash or a control character, numbers with
/// a sign or a leading zero are left to serde), and a test holds what it
/// reads equal to what the protocol's decoder reads.
#[derive(Debug)]
pub(super) struct RequestText<'a> {
    pub(super) id: u64,
    rules: crate::Rules,
    blocks: Bitboard,
    white: Bitboard,
    black: Bitboard,
    /// The content of the `moves` list (`"#a1","d4","swap"`), each item a
    /// plain string.
    moves: &'a str,
    pub(super) clock: Clock,
}

impl<'a> RequestText<'a> {
    /// The request `line` if it is laid out as the referee writes it.
    pub(super) fn read(line: &'a str, memo: &mut Memo) -> Option<RequestText<'a>> {
        let mut text = Fields(line.trim_end_matches(['\n', '\r', ' ', '\t']));
        text.expect("{\"type\":\"")?;
        if !matches!(text.until('"')?, "place_block" | "play_stone" | "pie_decision") {
            return None;
        }
        text.expect(",\"id\":")?;
        let id = text.until(',')?;
        if id.len() > 1 && id.starts_with('0') || !id.bytes().all(|byte| byte.is_ascii_digit()) {
            return None;
        }
        let id = id.parse().ok()?;
        text.expect("\"game\":\"")?;
        plain(text.until('"')?)?;
        text.expect(",\"color\":\"")?;
        if !matches!(text.until('"')?, "white" | "black") {
            return None;
        }
        text.expect(",\"rules\":")?;
        let rules = remembered(&mut memo.rules, text.object()?)?;
        text.expect(",\"blocks\":[")?;
        let blocks = cells(text.until(']')?)?;
        text.expect(",\"white\":[")?;
        let white = cells(text.until(']')?)?;
        text.expect(",\"black\":[")?;
        let black = cells(text.until(']')?)?;
        text.expect(",\"moves\":[")?;
        let moves = plain_strings(text.until(']')?)?;
        text.expect(",\"clock\":")?;
        let clock = remembered(&mut memo.clock, text.object()?)?;
        text.expect("}")?;
        text.0.is_empty().then_some(RequestText {
            id,
            rules,
            blocks,
            white,
            black,
            moves,
            clock,
        })
    }
}

/// The game of the last request read by hand, kept with the rules, blocks
/// and moves it was replayed from. The next request of a game repeats them
/// and adds a move or two, so only those are played: a request costs its new
/// moves, not the whole game. It is a memo of a pure replay (any request
/// whose moves do not extend the last ones is replayed from its start), so
/// the game, and every error, is what [`Request::game`] gives; a test holds
/// them equal.
#[derive(Debug, Default)]
pub(super) struct Replay(Option<Replayed>);

/// A game, with the rules, blocks and moves it was replayed from.
#[derive(Debug)]
struct Replayed {
    rules: crate::Rules,
    blocks: Bitboard,
    /// The content of the moves list that `game` replays.
    moves: String,
    game: Game,
}

impl Replayed {
    /// The moves of `request` still to play on this game: `None` unless
    /// `request` has the same rules and blocks and its moves extend these.
    fn unplayed<'r>(&self, request: &RequestText<'r>) -> Option<&'r str> {
        if self.rules != request.rules || self.blocks != request.blocks {
            return None;
        }
        let rest = request.moves.strip_prefix(self.moves.as_str())?;
        if rest.is_empty() || self.moves.is_empty() {
            Some(rest)
        } else {
            rest.strip_prefix(',')
        }
    }
}

impl Replay {
    /// The game `request` describes, checked against its blocks and stones.
    pub(super) fn game_of(&mut self, request: &RequestText<'_>) -> Result<&Game, StateError> {
        let last = self.0.take();
        let (mut replayed, unplayed) = match (last.as_ref().and_then(|last| last.unplayed(request)), last) {
            (Some(unplayed), Some(last)) => (last, unplayed),
            (_, last) => {
                let mut moves = last.map(|last| last.moves).unwrap_or_default();
                moves.clear();
                let replayed = Replayed {
                    rules: request.rules,
                    blocks: request.blocks,
                    moves,
                    game: request.rules.start_on(request.blocks).map_err(StateError::Setup)?,
                };
                (replayed, request.moves)
            }
        };
        // Each item was checked to be a plain string when the request was read.
        for (index, text) in (replayed.game.history().len()..).zip(strings(unplayed).flatten()) {
            replayed.game.play_text(text).map_err(|source| StateError::Move {
                index,
                text: text.to_owned(),
                source,
            })?;
        }
        // The request's moves start with those already replayed.
        replayed.moves.push_str(&request.moves[replayed.moves.len()..]);
        let position = replayed.game.position();
        if (position.blocks(), position.white(), position.black()) != (request.blocks, request.white, request.black) {
            return Err(StateError::Mismatch);
        }
        Ok(&self.0.insert(replayed).game)
    }
}

/// The rest of a line being read by [`RequestText::read`].
struct Fields<'a>(&'a str);

impl<'a> Fields<'a> {
    /// Skips `text`, which must come next.
    fn expect(&mut self, text: &str) -> Option<()> {
        self.0 = self.0.strip_prefix(text)?;
        Some(())
    }

    /// The text up to `end`, which is skipped.
    fn until(&mut self, end: char) -> Option<&'a str> {
        let (head, rest) = self.0.split_once(end)?;
        self.0 = rest;
        Some(head)
    }

    /// A flat JSON object (no object inside it), braces included.
    fn object(&mut self) -> Option<&'a str> {
        let end = self.0.find('}')? + 1;
        let (object, rest) = self.0.split_at(end);
        self.0 = rest;
        Some(object)
    }
}

/// `text` if it is the content of a JSON string as serde reads it without
/// escapes (no quote, no backslash, no control character).
fn plain(text: &str) -> Option<&str> {
    text.bytes()
        .all(|byte| byte != b'"' && byte != b'\\' && byte >= 0x20)
        .then_some(text)
}

/// The strings of a list's content (`"a1","b2"`; nothing for an empty list).
fn strings(list: &str) -> impl Iterator<Item = Option<&str>> {
    list.split(',')
        .filter(move |_| !list.is_empty())
        .map(|item| plain(item.strip_prefix('"')?.strip_suffix('"')?))
}

/// `list` if it is the content of a list of plain strings without commas
/// (`"#a1","d4"`; see [`plain`]), as [`strings`] reads them, checked in one
/// pass over its bytes: the moves of a request, checked at every request.
fn plain_strings(list: &str) -> Option<&str> {
    let mut in_string = false;
    let mut after_string = false;
    for byte in list.bytes() {
        match (in_string, byte) {
            (true, b'"') => (in_string, after_string) = (false, true),
            (true, b'\\' | b',' | ..0x20) => return None,
            (true, _) => {}
            (false, b'"') if !after_string => in_string = true,
            (false, b',') if after_string => after_string = false,
            (false, _) => return None,
        }
    }
    (list.is_empty() || after_string && !in_string).then_some(list)
}

/// The cells of a list's content, each written `"a1"`, as a set.
fn cells(list: &str) -> Option<Bitboard> {
    if list.is_empty() {
        return Some(Bitboard::EMPTY);
    }
    // Four bytes a cell and a comma between two: the last item has no comma.
    if (list.len() + 1) % 5 != 0 {
        return None;
    }
    list.as_bytes().chunks(5).try_fold(Bitboard::EMPTY, |set, item| {
        let (b'"', [column, row], b'"', b"" | b",") = (item[0], item.get(1..3)?, *item.get(3)?, &item[4..]) else {
            return None;
        };
        // What `Cell`'s parser accepts: a column a-g and a row 1-7.
        let cell = pahtum::Cell::at(column.wrapping_sub(b'a').into(), row.wrapping_sub(b'1').into())?;
        Some(set.with(cell))
    })
}

/// The rules and the clock of the last request read by hand, as text and
/// value: they change seldom from request to request, so serde decodes
/// them only when their text changes.
#[derive(Debug, Default)]
pub(super) struct Memo {
    rules: Option<(String, crate::Rules)>,
    clock: Option<(String, Clock)>,
}

/// The value of the JSON object `text`: the remembered one if `text` is the
/// remembered text, else decoded and remembered.
fn remembered<T: serde::de::DeserializeOwned + Copy>(memo: &mut Option<(String, T)>, text: &str) -> Option<T> {
    if let Some((last, value)) = memo
        && last == text
    {
        return Some(*value);
    }
    // A member `T` does not know is skipped unread; see `numbers_surely_in_range`.
    crate::codec::numbers_surely_in_range(text).then_some(())?;
    let value = serde_json::from_str(text).ok()?;
    *memo = Some((text.to_owned(), value));
    Some(value)
}

/// The `"type"` of a line that starts with it, written without spaces or
/// escapes (as the referee writes every line). A line with a second
/// `"type"` (which no referee writes) is taken by its first.
fn leading_kind(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("{\"type\":\"")?;
    let kind = &rest[..rest.find('"')?];
    (!kind.contains('\\')).then_some(kind)
}

/// The `"type"` of a line, borrowed from it; the other fields are skipped.
#[derive(serde::Deserialize)]
struct Kind<'a> {
    #[serde(rename = "type", borrow)]
    kind: &'a str,
}

/// Writes `answer` into `out` (cleared first), newline included. The answer
/// to a request without info, the line of every move, is framed by hand
/// around its id and cell, as serde writes it (a test holds the two equal);
/// any other message goes through serde.
pub(super) fn encode_answer(answer: &FromBot, out: &mut Vec<u8>) {
    out.clear();
    let (kind, id, value) = match answer {
        FromBot::Block { id, cell, info: None } => ("block", id, Answered::Cell(*cell)),
        FromBot::Stone { id, cell, info: None } => ("stone", id, Answered::Cell(*cell)),
        FromBot::Pie { id, swap, info: None } => ("pie", id, Answered::Swap(*swap)),
        _ => {
            serde_json::to_writer(&mut *out, answer).expect("protocol messages always serialize");
            out.push(b'\n');
            return;
        }
    };
    out.extend_from_slice(b"{\"type\":\"");
    out.extend_from_slice(kind.as_bytes());
    out.extend_from_slice(b"\",\"id\":");
    out.extend_from_slice(itoa::Buffer::new().format(*id).as_bytes());
    match value {
        Answered::Cell(cell) => {
            out.extend_from_slice(b",\"cell\":\"");
            out.extend_from_slice(&[b'a' + cell.column() as u8, b'1' + cell.row() as u8]);
            out.push(b'"');
        }
        Answered::Swap(true) => out.extend_from_slice(b",\"swap\":true"),
        Answered::Swap(false) => out.extend_from_slice(b",\"swap\":false"),
    }
    out.extend_from_slice(b"}\n");
}

/// What an answer written by [`encode_answer`] gives after its id.
enum Answered {
    Cell(pahtum::Cell),
    Swap(bool),
}

#[cfg(test)]
#[path = "fast_props.rs"]
mod props;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Info, Placement, Rules, encode};

    /// What the loop takes from a request line, read by hand: its id, its
    /// clock and its game (an error by its debug text). `None` if the line is
    /// left to serde.
    fn taken_by_hand(line: &str, memo: &mut Memo, replay: &mut Replay) -> Option<(u64, Clock, Result<Game, String>)> {
        let request = RequestText::read(line, memo)?;
        let game = replay.game_of(&request).cloned().map_err(|error| format!("{error:?}"));
        Some((request.id, request.clock, game))
    }

    /// The same, from the protocol's decoder and a replay from the start.
    fn taken_by_decoder(line: &str) -> (u64, Clock, Result<Game, String>) {
        let (ToBot::PlaceBlock(request) | ToBot::PlayStone(request) | ToBot::PieDecision(request)) =
            decode_to_bot(line).unwrap()
        else {
            panic!("not a request: {line}")
        };
        let game = request.game().map_err(|error| format!("{error:?}"));
        (request.id, request.clock, game)
    }

    /// Every request of a game is read by hand as the protocol's decoder
    /// reads it, unless its id needs escapes; the other messages, and the
    /// requests left to serde, decode as the decoder decodes them.
    #[test]
    fn requests_decode_as_the_protocol_decodes_them() {
        let rules = Rules {
            pie: true,
            blocks: 5,
            placement: Placement::Players,
        };
        for id in ["g \"1\"", "g-1"] {
            let mut game = Game::new(&pahtum::Layout::Placed { count: 5 }, true).unwrap();
            let mut kinds = std::collections::BTreeSet::new();
            let (mut memo, mut replay) = (Memo::default(), Replay::default());
            while let Some(message) = ToBot::request(3, id, rules, &game, Clock::per_move(50)) {
                let line = encode(&message);
                assert_eq!(decode(&line).unwrap(), decode_to_bot(&line).unwrap(), "{line}");
                // An escaped id is left to serde.
                let by_hand = (!line.contains('\\')).then(|| taken_by_decoder(&line));
                assert_eq!(
                    taken_by_hand(&line, &mut memo, &mut replay),
                    by_hand,
                    "read by hand: {line}"
                );
                kinds.insert(message.kind());
                game.play(game.legal_moves()[0]).unwrap();
            }
            assert_eq!(kinds.len(), 3, "{kinds:?}");
        }
        let escaped = "{\"type\":\"play\\u005fstone\",\"id\":1}";
        assert!(
            decode(escaped).is_err(),
            "an escaped type is judged by the protocol's decoder"
        );
        let request = encode(
            &ToBot::request(
                3,
                "g",
                rules,
                &Game::new(&pahtum::Layout::Placed { count: 5 }, true).unwrap(),
                Clock::per_move(50),
            )
            .unwrap(),
        );
        let unknown_out_of_range = request.trim_end().replace(",\"clock\"", ",\"x\":1e400,\"clock\"");
        assert!(decode_to_bot(&unknown_out_of_range).is_err());
        assert!(decode(&unknown_out_of_range).is_err(), "{unknown_out_of_range}");
        let quit = encode(&ToBot::Quit);
        assert_eq!(decode(&quit).unwrap(), ToBot::Quit);
    }

    /// A request that is not laid out as the referee writes it is left to
    /// serde, and one that serde refuses is never read by hand.
    #[test]
    fn only_the_referee_s_layout_is_read_by_hand() {
        let rules = Rules {
            pie: true,
            blocks: 5,
            placement: Placement::Random,
        };
        let mut game = Game::with_blocks(pahtum::setup::random_blocks(5, 2).unwrap(), true).unwrap();
        for _ in 0..3 {
            game.play(game.legal_moves()[0]).unwrap();
        }
        let message = ToBot::request(12, "g-1", rules, &game, Clock::per_move(50)).unwrap();
        let line = encode(&message);
        assert!(RequestText::read(&line, &mut Memo::default()).is_some());
        let edits = [
            ("\"id\":12", "\"id\":012"),
            ("\"id\":12", "\"id\":-12"),
            ("\"id\":12", "\"id\": 12"),
            ("\"g-1\"", "\"g\\u002d1\""),
            ("\"g-1\"", "\"g\t1\""),
            ("\"color\":\"", "\"colour\":\""),
            ("\"white\":[", "\"white\":[ "),
            ("],\"moves\"", ",],\"moves\""),
            ("],\"white\"", ",],\"white\""),
            ("\"blocks\":[\"", "\"blocks\":[\"a"),
            ("\"moves\":[\"", "\"moves\":[\"\\u0000"),
            ("\"moves\":[\"", "\"moves\":[\"\"\""),
            ("}}", "},\"extra\":1}"),
            ("}}", "}}x"),
        ];
        for (from, to) in edits {
            let edited = line.replacen(from, to, 1);
            assert_ne!(edited, line, "the edit {from:?} applies");
            assert!(RequestText::read(&edited, &mut Memo::default()).is_none(), "{edited}");
        }
    }

    /// The request for the player to act after `moves` random actions of a
    /// game (a `seed`, blocks placed by the players or not), then made wrong
    /// by `damage`: 1 repeats its last move, 2 drops a white stone from the
    /// board, 3 adds a block; 0 leaves it as it is.
    pub(super) fn request_line(seed: u64, players_place: bool, moves: usize, damage: u8) -> Option<String> {
        let rules = Rules {
            pie: seed % 2 == 0,
            blocks: 5 + 2 * (seed % 5) as usize,
            placement: if players_place {
                Placement::Players
            } else {
                Placement::Random
            },
        };
        let mut game = match rules.placement {
            Placement::Players => Game::new(&pahtum::Layout::Placed { count: rules.blocks }, rules.pie).unwrap(),
            _ => Game::with_blocks(pahtum::setup::random_blocks(rules.blocks, seed).unwrap(), rules.pie).unwrap(),
        };
        let mut pick = seed;
        for _ in 0..moves {
            let legal = game.legal_moves();
            if legal.is_empty() {
                break;
            }
            pick = pick
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            game.play(legal[(pick >> 33) as usize % legal.len()]).unwrap();
        }
        let (ToBot::PlaceBlock(mut request) | ToBot::PlayStone(mut request) | ToBot::PieDecision(mut request)) =
            ToBot::request(moves as u64, &format!("g{seed}"), rules, &game, Clock::per_move(50))?
        else {
            unreachable!("ToBot::request makes requests")
        };
        match damage {
            1 => request.moves.extend(request.moves.last().cloned()),
            2 => drop(request.white.pop()),
            3 => request
                .blocks
                .extend(pahtum::Cell::all().find(|&cell| !game.position().blocks().contains(cell))),
            _ => {}
        }
        Some(encode(&ToBot::PlayStone(request)))
    }

    proptest::proptest! {
        /// The one-pass check of a list of moves accepts what [`strings`]
        /// reads as plain strings, and nothing else.
        #[test]
        fn plain_strings_are_what_strings_reads(
            items in proptest::collection::vec("\"?[\",a1#\\\\\\x01é]{0,3}\"?", 0..5),
        ) {
            let list = items.join(",");
            proptest::prop_assert_eq!(
                plain_strings(&list).is_some(),
                strings(&list).all(|item| item.is_some()),
                "{:?}", list
            );
        }

        /// Requests from a few games, in any order, some of them wrong, read
        /// by hand with one [`Replay`] give the game, or the error, that a
        /// replay from the start gives.
        #[test]
        fn the_replay_memo_is_a_replay_from_the_start(
            requests in proptest::collection::vec((0..3_u64, proptest::bool::ANY, 0..60_usize, 0..8_u8), 1..40),
        ) {
            let (mut memo, mut replay) = (Memo::default(), Replay::default());
            for (seed, players_place, moves, damage) in requests {
                let Some(line) = request_line(seed, players_place, moves, damage) else { continue };
                proptest::prop_assert_eq!(
                    taken_by_hand(&line, &mut memo, &mut replay),
                    Some(taken_by_decoder(&line)),
                    "{}", line
                );
            }
        }
    }

    /// Answers framed by hand are the bytes serde writes, for every cell,
    /// both pie decisions and ids of every length; answers with info go
    /// through serde.
    #[test]
    fn answers_are_encoded_as_serde_encodes_them() {
        let info = Info {
            comment: Some("x".to_owned()),
            ..Info::default()
        };
        for id in [0, 7, 12_345, u64::MAX] {
            let answers = pahtum::Cell::all()
                .flat_map(|cell| {
                    [
                        FromBot::Block { id, cell, info: None },
                        FromBot::Stone { id, cell, info: None },
                    ]
                })
                .chain([true, false].map(|swap| FromBot::Pie { id, swap, info: None }))
                .chain([
                    FromBot::Pong { id },
                    FromBot::Pie {
                        id,
                        swap: true,
                        info: Some(info.clone()),
                    },
                ]);
            for answer in answers {
                let mut by_hand = Vec::new();
                encode_answer(&answer, &mut by_hand);
                assert_eq!(String::from_utf8(by_hand).unwrap(), encode(&answer), "{answer:?}");
            }
        }
    }
}
