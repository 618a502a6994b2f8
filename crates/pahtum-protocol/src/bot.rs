//! A synchronous bot loop: write a Rust bot by implementing [`Player`].
//!
//! [`run`] reads the referee's lines from stdin, answers the greeting, `ping`
//! and `new_game` itself, rebuilds the [`Game`] of each request and asks the
//! player for an [`Action`], then writes and flushes the answer with the
//! request's id. Starter bots and the reference engine are built on it.
//!
//! The loop itself costs a bot little per request: the line and the answer
//! are kept in buffers reused from request to request, a request is decoded
//! straight into its [`Request`] without buffering the line as a tree (the
//! two-step decoder of [`decode_to_bot`], which names what is wrong, runs only
//! on a line that fails), and the answer is one write. With instant players,
//! this loop was most of a tournament's CPU time per move.

use std::io::{self, BufRead, Write};

use pahtum::{Action, Game};

use crate::state::StateError;
use crate::{Clock, DecodeError, FromBot, GameOver, Info, NewGame, PROTOCOL_VERSION, Request, ToBot, decode_to_bot};

/// Who the bot is, for the greeting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The name sent in `hello`, for the referee's logs.
    pub name: String,
    /// The bot's version, if it has one worth telling.
    pub version: Option<String>,
    /// The bot's author, if named.
    pub author: Option<String>,
}

/// A bot's decisions.
pub trait Player {
    /// The bot's name, version and author.
    fn identity(&self) -> Identity;

    /// A new game starts: do any heavy set-up here, before `ready` is sent.
    fn new_game(&mut self, _new_game: &NewGame) {}

    /// The action for `game` (a block, a stone or the pie decision, by its
    /// phase), with optional info. `clock` says how long the answer may take.
    fn choose(&mut self, game: &Game, clock: &Clock) -> (Action, Option<Info>);

    /// The game is over.
    fn game_over(&mut self, _over: &GameOver) {}
}

/// Why the loop stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// Stdin or stdout failed, such as a broken pipe once the referee is gone.
    #[error("reading from or writing to the referee failed")]
    Io(#[from] io::Error),
    /// A line from the referee is not a message this crate knows.
    #[error("the referee sent a line this bot does not understand")]
    Decode(#[from] DecodeError),
    /// A request's moves do not replay into its board.
    #[error("the referee's request does not describe a valid game")]
    State(#[from] StateError),
    /// [`Player::choose`] returned an action of the wrong kind for the phase
    /// (a bug in the player); nothing was sent.
    #[error("the player chose {action}, which does not answer a {request} request")]
    WrongAction {
        /// What the player chose.
        action: Action,
        /// The `"type"` of the request it should have answered.
        request: &'static str,
    },
}

/// Runs `player` on stdin and stdout until `quit` or the end of input.
pub fn run<P: Player>(player: &mut P) -> Result<(), BotError> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    run_with(player, stdin.lock(), stdout.lock())
}

/// Runs `player` on any reader and writer (for tests).
pub fn run_with<P: Player, R: BufRead, W: Write>(player: &mut P, mut input: R, mut output: W) -> Result<(), BotError> {
    let mut line = String::new();
    let mut encoded = Vec::new();
    let mut memo = Memo::default();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        if line.trim().is_empty() {
            continue;
        }
        let answer = match decode(&line, &mut memo)? {
            ToBot::Hello { .. } => {
                let me = player.identity();
                Some(FromBot::Hello {
                    protocol: PROTOCOL_VERSION,
                    name: me.name,
                    version: me.version,
                    author: me.author,
                })
            }
            ToBot::NewGame(new_game) => {
                player.new_game(&new_game);
                Some(FromBot::Ready { id: new_game.id })
            }
            ToBot::Ping { id } => Some(FromBot::Pong { id }),
            ToBot::PlaceBlock(request) | ToBot::PlayStone(request) | ToBot::PieDecision(request) => {
                let game = request.game()?;
                let (action, info) = player.choose(&game, &request.clock);
                Some(answer(request.id, action, info, &game)?)
            }
            ToBot::GameOver(over) => {
                player.game_over(&over);
                None
            }
            ToBot::Quit => return Ok(()),
        };
        if let Some(answer) = answer {
            encoded.clear();
            serde_json::to_writer(&mut encoded, &answer).expect("protocol messages always serialize");
            encoded.push(b'\n');
            output.write_all(&encoded)?;
            output.flush()?;
        }
    }
}

/// `line` as a message. A request, the line of every move, is read by hand
/// when it is laid out exactly as the referee writes it ([`request_by_hand`]);
/// otherwise it is decoded in one serde pass that allocates nothing but the
/// [`Request`] itself, once its `"type"` is known: read straight from the
/// line's start where the line begins as the referee writes it
/// (`{"type":"play_stone",...`), else by a first pass that reads only the
/// `"type"` and skips the rest. Any other well-formed line is decoded
/// directly into its message; a line that fails either way goes to
/// [`decode_to_bot`], whose error says what is wrong with it.
fn decode(line: &str, memo: &mut Memo) -> Result<ToBot, DecodeError> {
    if let Some(request) = request_by_hand(line, memo) {
        return Ok(request);
    }
    let request = |message: fn(Request) -> ToBot| serde_json::from_str(line).ok().map(message);
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

/// A request laid out exactly as the referee writes it (`protocol.md`'s field
/// order, no spaces, strings without escapes), read without serde's
/// machinery for its lists, which was most of this loop's instructions per
/// request: `None` for any other line, which serde then decodes. Only the
/// two small objects, the rules and the clock, go through serde, and only
/// when their text differs from the last request's ([`Memo`]). It accepts
/// nothing serde would refuse (strings with a backslash or a control
/// character, numbers with a sign or a leading zero go to serde), and a
/// test holds its requests equal to the protocol decoder's.
fn request_by_hand(line: &str, memo: &mut Memo) -> Option<ToBot> {
    let mut text = Fields(line.trim_end_matches(['\n', '\r', ' ', '\t']));
    text.expect("{\"type\":\"")?;
    let message: fn(Request) -> ToBot = match text.until('"')? {
        "place_block" => ToBot::PlaceBlock,
        "play_stone" => ToBot::PlayStone,
        "pie_decision" => ToBot::PieDecision,
        _ => return None,
    };
    text.expect(",\"id\":")?;
    let id = text.until(',')?;
    if id.len() > 1 && id.starts_with('0') || !id.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    let id = id.parse().ok()?;
    text.expect("\"game\":\"")?;
    let game = plain(text.until('"')?)?.to_owned();
    text.expect(",\"color\":\"")?;
    let color = match text.until('"')? {
        "white" => pahtum::Color::White,
        "black" => pahtum::Color::Black,
        _ => return None,
    };
    text.expect(",\"rules\":")?;
    let rules = remembered(&mut memo.rules, text.object()?)?;
    text.expect(",\"blocks\":[")?;
    let blocks = cells(text.until(']')?)?;
    text.expect(",\"white\":[")?;
    let white = cells(text.until(']')?)?;
    text.expect(",\"black\":[")?;
    let black = cells(text.until(']')?)?;
    text.expect(",\"moves\":[")?;
    let moves = moves(text.until(']')?)?;
    text.expect(",\"clock\":")?;
    let clock = remembered(&mut memo.clock, text.object()?)?;
    text.expect("}")?;
    text.0.is_empty().then(|| {
        message(Request {
            id,
            game,
            color,
            rules,
            blocks,
            white,
            black,
            moves,
            clock,
        })
    })
}

/// The rest of a line being read by [`request_by_hand`].
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
/// escapes (no backslash, no control character).
fn plain(text: &str) -> Option<&str> {
    text.bytes().all(|byte| byte != b'\\' && byte >= 0x20).then_some(text)
}

/// The strings of a list's content (`"a1","b2"`; nothing for an empty list).
fn strings(list: &str) -> impl Iterator<Item = Option<&str>> {
    list.split(',')
        .filter(move |_| !list.is_empty())
        .map(|item| plain(item.strip_prefix('"')?.strip_suffix('"')?))
}

/// The cells of a list's content, each written `"a1"`.
fn cells(list: &str) -> Option<Vec<pahtum::Cell>> {
    let mut cells = Vec::with_capacity(list.len() / 5 + 1);
    if list.is_empty() {
        return Some(cells);
    }
    // Four bytes a cell and a comma between two: the last item has no comma.
    if (list.len() + 1) % 5 != 0 {
        return None;
    }
    for item in list.as_bytes().chunks(5) {
        let (b'"', [column, row], b'"', b"" | b",") = (item[0], item.get(1..3)?, *item.get(3)?, &item[4..]) else {
            return None;
        };
        let text = [*column, *row];
        cells.push(std::str::from_utf8(&text).ok()?.parse().ok()?);
    }
    Some(cells)
}

/// The moves of a list's content (`"#a1","d4","swap"`).
fn moves(list: &str) -> Option<Vec<String>> {
    let mut moves = Vec::with_capacity(list.len() / 4 + 1);
    for text in strings(list) {
        moves.push(text?.to_owned());
    }
    Some(moves)
}

/// The rules and the clock of the last request read by hand, as text and
/// value: they change seldom from request to request, so serde decodes
/// them only when their text changes.
#[derive(Debug, Default)]
struct Memo {
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

fn answer(id: u64, action: Action, info: Option<Info>, game: &Game) -> Result<FromBot, BotError> {
    use pahtum::Phase;
    match (game.phase(), action) {
        (Phase::PlaceBlocks, Action::Block(cell)) => Ok(FromBot::Block { id, cell, info }),
        (Phase::FirstStone | Phase::Stones, Action::Stone(cell)) => Ok(FromBot::Stone { id, cell, info }),
        (Phase::PieDecision, Action::Pie(swap)) => Ok(FromBot::Pie { id, swap, info }),
        (phase, action) => Err(BotError::WrongAction {
            action,
            request: match phase {
                Phase::PlaceBlocks => "place_block",
                Phase::PieDecision => "pie_decision",
                _ => "play_stone",
            },
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Placement, Rules, decode_from_bot, encode};

    /// Plays the first legal action.
    struct First;

    impl Player for First {
        fn identity(&self) -> Identity {
            Identity {
                name: "first".to_owned(),
                version: None,
                author: None,
            }
        }

        fn choose(&mut self, game: &Game, _clock: &Clock) -> (Action, Option<Info>) {
            (game.legal_moves()[0], None)
        }
    }

    fn run_on(input: &str) -> (Result<(), BotError>, Vec<FromBot>) {
        let mut output = Vec::new();
        let ended = run_with(&mut First, input.as_bytes(), &mut output);
        let lines = String::from_utf8(output).unwrap();
        (
            ended,
            lines.lines().map(|line| decode_from_bot(line).unwrap()).collect(),
        )
    }

    #[test]
    fn answers_each_request_on_one_line_with_its_id() {
        let rules = Rules {
            pie: false,
            blocks: 1,
            placement: Placement::Random,
        };
        let mut game = Game::with_blocks(pahtum::setup::random_blocks(1, 3).unwrap(), false).unwrap();
        let first = ToBot::request(7, "g", rules, &game, Clock::per_move(100)).unwrap();
        let expected = game.legal_moves()[0];
        game.play(expected).unwrap();
        let second = ToBot::request(8, "g", rules, &game, Clock::per_move(100)).unwrap();
        let input = [
            encode(&ToBot::Ping { id: 5 }),
            encode(&first),
            "\n".to_owned(),
            encode(&second),
        ]
        .concat();
        let (ended, answers) = run_on(&input);
        assert!(ended.is_ok());
        assert_eq!(answers.len(), 3, "{answers:?}");
        assert_eq!(answers[0], FromBot::Pong { id: 5 });
        let Action::Stone(cell) = expected else {
            panic!("a stone")
        };
        assert_eq!(
            answers[1],
            FromBot::Stone {
                id: 7,
                cell,
                info: None
            }
        );
        assert_eq!(answers[2].id(), Some(8));
    }

    /// The two-pass decoding of requests gives what the protocol's decoder
    /// gives, for each kind of request and for the other messages.
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
            let mut memo = Memo::default();
            while let Some(message) = ToBot::request(3, id, rules, &game, Clock::per_move(50)) {
                let line = encode(&message);
                assert_eq!(
                    decode(&line, &mut memo).unwrap(),
                    decode_to_bot(&line).unwrap(),
                    "{line}"
                );
                // An escaped id is left to serde.
                let by_hand = (!line.contains('\\')).then(|| message.clone());
                assert_eq!(request_by_hand(&line, &mut memo), by_hand, "read by hand: {line}");
                kinds.insert(message.kind());
                game.play(game.legal_moves()[0]).unwrap();
            }
            assert_eq!(kinds.len(), 3, "{kinds:?}");
        }
        let escaped = "{\"type\":\"play\\u005fstone\",\"id\":1}";
        assert!(
            decode(escaped, &mut Memo::default()).is_err(),
            "an escaped type is judged by the protocol's decoder"
        );
        let quit = encode(&ToBot::Quit);
        assert_eq!(decode(&quit, &mut Memo::default()).unwrap(), ToBot::Quit);
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
        assert_eq!(request_by_hand(&line, &mut Memo::default()), Some(message));
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
            ("}}", "},\"extra\":1}"),
            ("}}", "}}x"),
        ];
        for (from, to) in edits {
            let edited = line.replacen(from, to, 1);
            assert_ne!(edited, line, "the edit {from:?} applies");
            assert_eq!(request_by_hand(&edited, &mut Memo::default()), None, "{edited}");
        }
    }

    /// A line that fails the direct decoding is still judged by the
    /// protocol's decoder, which names what is wrong.
    #[test]
    fn a_bad_line_stops_the_loop_with_the_decoder_s_error() {
        let (ended, answers) = run_on("{\"type\":\"ping\",\"id\":1}\n{\"type\":\"ping\"}\n");
        assert_eq!(answers, [FromBot::Pong { id: 1 }]);
        assert!(
            matches!(ended, Err(BotError::Decode(DecodeError::Invalid { ref kind, .. })) if kind == "ping"),
            "{ended:?}"
        );
        let (ended, _) = run_on("not json\n");
        assert!(
            matches!(ended, Err(BotError::Decode(DecodeError::NotJson { .. }))),
            "{ended:?}"
        );
    }
}
