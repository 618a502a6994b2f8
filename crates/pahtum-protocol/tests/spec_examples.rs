//! Every JSON example of `protocol.md` against the message types.
//!
//! `protocol.md` is the contract bot authors write against, and this crate is
//! the same contract in types; this test keeps the two in step. It reads the
//! fenced blocks of the document (the conventions are stated in its last
//! section): lines of `json to-bot` and `json from-bot` blocks must decode in
//! their direction and encode back to the same JSON, and a `transcript` block
//! must also be a conversation that holds together, with each request
//! describing a real game and each move legal in it.

use pahtum_protocol::{FromBot, Reason, ToBot, decode_from_bot, decode_to_bot, encode};
use serde::Serialize;
use serde_json::Value;

const SPEC: &str = include_str!("../../../protocol.md");

/// One line of an example, with its line number in `protocol.md`.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    number: usize,
    text: &'a str,
}

/// A fenced block: its info string (`json to-bot`, `text`, ...) and its lines.
#[derive(Debug)]
struct Fence<'a> {
    info: &'a str,
    lines: Vec<Line<'a>>,
}

fn fences(spec: &str) -> Vec<Fence<'_>> {
    let mut fences = Vec::new();
    let mut open: Option<Fence> = None;
    for (index, text) in spec.lines().enumerate() {
        match (text.strip_prefix("```"), open.take()) {
            (Some(info), None) => {
                open = Some(Fence {
                    info: info.trim(),
                    lines: Vec::new(),
                })
            }
            (Some(_), Some(fence)) => fences.push(fence),
            (None, Some(mut fence)) => {
                if !text.trim().is_empty() {
                    fence.lines.push(Line {
                        number: index + 1,
                        text,
                    });
                }
                open = Some(fence);
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "protocol.md ends inside a fenced block");
    fences
}

fn lines_of<'a>(fences: &'a [Fence], info: &str) -> impl Iterator<Item = Line<'a>> {
    fences
        .iter()
        .filter(move |fence| fence.info == info)
        .flat_map(|fence| fence.lines.iter().copied())
}

/// Checks that encoding `message` gives the JSON of `line` again.
fn assert_reencodes<T: Serialize>(line: Line, json: &str, message: &T) {
    let encoded = encode(message);
    assert!(
        encoded.ends_with('\n') && !encoded[..encoded.len() - 1].contains('\n'),
        "protocol.md:{}: the encoding is not one line: {encoded:?}",
        line.number
    );
    let example: Value = serde_json::from_str(json).expect("decoded once already");
    let again: Value = serde_json::from_str(&encoded).expect("the encoder writes JSON");
    assert_eq!(
        again, example,
        "protocol.md:{}: encoding the decoded example gives other JSON (a field missing from the example, \
         or a number written as an integer where the encoder writes a float?)",
        line.number
    );
}

fn to_bot(line: Line, json: &str) -> ToBot {
    let message =
        decode_to_bot(json).unwrap_or_else(|err| panic!("protocol.md:{}: not a message to a bot: {err}", line.number));
    assert_reencodes(line, json, &message);
    message
}

fn from_bot(line: Line, json: &str) -> FromBot {
    let message = decode_from_bot(json)
        .unwrap_or_else(|err| panic!("protocol.md:{}: not a message from a bot: {err}", line.number));
    assert_reencodes(line, json, &message);
    message
}

/// A transcript line: a message and its direction, or `None` for a comment.
enum Said {
    ToBot(ToBot),
    FromBot(FromBot),
}

fn transcript_line(line: Line) -> Option<Said> {
    if line.text.starts_with('#') {
        None
    } else if let Some(json) = line.text.strip_prefix("> ") {
        Some(Said::ToBot(to_bot(line, json)))
    } else if let Some(json) = line.text.strip_prefix("< ") {
        Some(Said::FromBot(from_bot(line, json)))
    } else {
        panic!(
            "protocol.md:{}: a transcript line starts with \"> \", \"< \" or \"#\": {}",
            line.number, line.text
        )
    }
}

#[test]
fn json_examples_decode_and_encode_back() {
    let fences = fences(SPEC);
    for fence in &fences {
        assert!(
            !fence.info.starts_with("json") || fence.info == "json to-bot" || fence.info == "json from-bot",
            "protocol.md:{}: a json block must say its direction, `json to-bot` or `json from-bot`",
            fence.lines.first().map_or(0, |line| line.number - 1)
        );
    }
    let to_bot_lines: Vec<_> = lines_of(&fences, "json to-bot").collect();
    let from_bot_lines: Vec<_> = lines_of(&fences, "json from-bot").collect();
    assert!(to_bot_lines.len() >= 10, "{} to-bot examples", to_bot_lines.len());
    assert!(from_bot_lines.len() >= 10, "{} from-bot examples", from_bot_lines.len());
    for line in to_bot_lines {
        to_bot(line, line.text);
    }
    for line in from_bot_lines {
        from_bot(line, line.text);
    }
}

/// Requests describe valid games, the referee's own encoding of each game
/// gives the request back, answers answer the message before them, and moves
/// are legal.
#[test]
fn transcripts_are_conversations_that_hold_together() {
    let fences = fences(SPEC);
    let transcripts: Vec<_> = fences.iter().filter(|fence| fence.info == "transcript").collect();
    assert!(!transcripts.is_empty(), "protocol.md has no transcript");
    for transcript in transcripts {
        let mut pending: Option<(Line, ToBot)> = None;
        for &line in &transcript.lines {
            match transcript_line(line) {
                None => {}
                Some(Said::ToBot(message)) => {
                    if let Some((asked, _)) = &pending {
                        panic!(
                            "protocol.md:{}: the referee writes while the answer to line {} is due",
                            line.number, asked.number
                        );
                    }
                    if let ToBot::PlaceBlock(request) | ToBot::PlayStone(request) | ToBot::PieDecision(request) =
                        &message
                    {
                        let game = request
                            .game()
                            .unwrap_or_else(|err| panic!("protocol.md:{}: {err}", line.number));
                        let rebuilt = ToBot::request(request.id, &request.game, request.rules, &game, request.clock);
                        assert_eq!(
                            rebuilt.as_ref(),
                            Some(&message),
                            "protocol.md:{}: the referee would write this request otherwise",
                            line.number
                        );
                    }
                    if message.answer_kind().is_some() {
                        pending = Some((line, message));
                    }
                }
                Some(Said::FromBot(answer)) => {
                    let Some((_, message)) = pending.take() else {
                        panic!("protocol.md:{}: an answer with no message to answer", line.number);
                    };
                    assert_eq!(
                        Some(answer.kind()),
                        message.answer_kind(),
                        "protocol.md:{}",
                        line.number
                    );
                    assert_eq!(answer.id(), message.id(), "protocol.md:{}", line.number);
                    if let (
                        Some(action),
                        ToBot::PlaceBlock(request) | ToBot::PlayStone(request) | ToBot::PieDecision(request),
                    ) = (answer.action(), &message)
                    {
                        let game = request.game().expect("checked when the request was read");
                        game.check(action)
                            .unwrap_or_else(|err| panic!("protocol.md:{}: illegal: {err}", line.number));
                    }
                }
            }
        }
        assert!(pending.is_none(), "a transcript ends before an answer");
    }
}

#[test]
fn examples_show_every_message_type() {
    let fences = fences(SPEC);
    let mut to_bot_kinds: Vec<&str> = lines_of(&fences, "json to-bot")
        .map(|line| to_bot(line, line.text).kind())
        .collect();
    let mut from_bot_kinds: Vec<&str> = lines_of(&fences, "json from-bot")
        .map(|line| from_bot(line, line.text).kind())
        .collect();
    for line in lines_of(&fences, "transcript") {
        match transcript_line(line) {
            Some(Said::ToBot(message)) => to_bot_kinds.push(message.kind()),
            Some(Said::FromBot(message)) => from_bot_kinds.push(message.kind()),
            None => {}
        }
    }
    for kind in [
        "hello",
        "new_game",
        "place_block",
        "play_stone",
        "pie_decision",
        "ping",
        "game_over",
        "quit",
    ] {
        assert!(to_bot_kinds.contains(&kind), "no example of {kind:?} to a bot");
    }
    for kind in ["hello", "ready", "block", "stone", "pie", "pong"] {
        assert!(from_bot_kinds.contains(&kind), "no example of {kind:?} from a bot");
    }
}

/// The verdicts table has one row for each reason a game can end.
#[test]
fn every_reason_is_explained() {
    for reason in Reason::ALL {
        let row = format!("| `{reason}` ");
        assert!(SPEC.contains(&row), "protocol.md has no table row for {reason}");
    }
}
