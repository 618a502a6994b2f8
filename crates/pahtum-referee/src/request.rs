//! The request line of a game in play, kept as JSON text that grows with the
//! game.
//!
//! Every request carries the whole game (`protocol.md`, Requests), so encoding
//! each one from scratch would write the same lists again at every move, and
//! that was most of the referee's work per move. Here the lists that only grow
//! (blocks, white, black, moves) are kept as JSON text and appended to once per
//! action, the parts fixed for the game (its id and rules) are encoded once,
//! and a request is these pieces copied one after the other, with its type,
//! id, colour and clock filled in. The last clock encoded is kept with its
//! text and used again while it does not change (on a per-move limit without
//! a Fischer clock, every request of a seat shows the same clock; encoding it
//! was a fifth of the referee's own instructions per move). The cells and
//! actions are written by hand in the rules' notation, every other value is
//! encoded by serde, and a test holds the result to the protocol's own
//! encoder, byte for byte.

use std::io::Write;

use pahtum::{Action, Cell, Color, Phase};
use pahtum_protocol::{Clock, Rules};
use serde::Serialize;

/// The growing text of one game's requests.
#[derive(Debug)]
pub(crate) struct RequestLine {
    /// The game's id, as a JSON string.
    game: Vec<u8>,
    /// The rules, as a JSON object.
    rules: Vec<u8>,
    /// The elements of the lists, comma-separated, without brackets.
    blocks: Vec<u8>,
    white: Vec<u8>,
    black: Vec<u8>,
    moves: Vec<u8>,
    /// The clock of the last request, and its JSON text.
    clock: Option<(Clock, Vec<u8>)>,
}

/// Room for every element a list can reach (49 cells or 50 moves of at most
/// `"swap",`), so that appending never reallocates.
const LIST_BYTES: usize = 7 * (pahtum::CELLS + 1);

impl RequestLine {
    /// The requests of game `game` under `rules`, on the layout's `blocks`.
    pub(crate) fn new(game: &str, rules: Rules, blocks: &[Cell]) -> RequestLine {
        let mut line = RequestLine {
            game: to_json(game),
            rules: to_json(&rules),
            blocks: Vec::with_capacity(LIST_BYTES),
            white: Vec::with_capacity(LIST_BYTES),
            black: Vec::with_capacity(LIST_BYTES),
            moves: Vec::with_capacity(LIST_BYTES),
            clock: None,
        };
        for &cell in blocks {
            append_string(&mut line.blocks, "", &cell_text(cell));
        }
        line
    }

    /// Takes in `action`, played by (or, for a block, on the turn of) `color`.
    pub(crate) fn played(&mut self, action: Action, color: Color) {
        match action {
            Action::Block(cell) => {
                append_string(&mut self.blocks, "", &cell_text(cell));
                append_string(&mut self.moves, "#", &cell_text(cell));
            }
            Action::Stone(cell) => {
                let list = if color == Color::White {
                    &mut self.white
                } else {
                    &mut self.black
                };
                append_string(list, "", &cell_text(cell));
                append_string(&mut self.moves, "", &cell_text(cell));
            }
            Action::Pie(swap) => append_string(&mut self.moves, "", if swap { b"swap" } else { b"keep" }),
        }
    }

    /// Writes the request of type `kind` with `id`, for `color`, with `clock`,
    /// into `out` (cleared first), newline included.
    pub(crate) fn write(&mut self, kind: &str, id: u64, color: Color, clock: &Clock, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(b"{\"type\":\"");
        out.extend_from_slice(kind.as_bytes());
        out.extend_from_slice(b"\",\"id\":");
        write_json(out, &id);
        out.extend_from_slice(b",\"game\":");
        out.extend_from_slice(&self.game);
        out.extend_from_slice(b",\"color\":");
        write_json(out, &color);
        out.extend_from_slice(b",\"rules\":");
        out.extend_from_slice(&self.rules);
        for (name, list) in [
            (&b",\"blocks\":["[..], &self.blocks),
            (b"],\"white\":[", &self.white),
            (b"],\"black\":[", &self.black),
            (b"],\"moves\":[", &self.moves),
        ] {
            out.extend_from_slice(name);
            out.extend_from_slice(list);
        }
        out.extend_from_slice(b"],\"clock\":");
        out.extend_from_slice(self.clock_text(clock));
        out.extend_from_slice(b"}\n");
    }

    /// The JSON text of `clock`, encoded again only when it differs from the last one.
    fn clock_text(&mut self, clock: &Clock) -> &[u8] {
        let (last, text) = self.clock.get_or_insert_with(|| (*clock, to_json(clock)));
        if last != clock {
            *last = *clock;
            text.clear();
            write_json(text, clock);
        }
        text
    }
}

/// The request's `"type"` for the phase the game is in.
pub(crate) fn kind_of(phase: Phase) -> &'static str {
    match phase {
        Phase::PlaceBlocks => "place_block",
        Phase::PieDecision => "pie_decision",
        Phase::FirstStone | Phase::Stones | Phase::Finished => "play_stone",
    }
}

/// `cell` in the rules' notation (`d4`).
fn cell_text(cell: Cell) -> [u8; 2] {
    [b'a' + cell.column() as u8, b'1' + cell.row() as u8]
}

/// Appends `prefix` and `text` as a JSON string, written by hand: through serde and `Display`, a cell cost
/// more instructions than the rest of the request's text (docs/performance.md, issue 41). The rules'
/// notation is ASCII letters, digits and `#`, which a JSON string holds as they are; the test below holds
/// the requests to the protocol's encoder.
fn append_string(list: &mut Vec<u8>, prefix: &str, text: &[u8]) {
    if !list.is_empty() {
        list.push(b',');
    }
    list.push(b'"');
    list.extend_from_slice(prefix.as_bytes());
    list.extend_from_slice(text);
    list.push(b'"');
}

fn write_json(out: &mut impl Write, value: &(impl Serialize + ?Sized)) {
    serde_json::to_writer(out, value).expect("protocol values always serialize");
}

fn to_json(value: &(impl Serialize + ?Sized)) -> Vec<u8> {
    let mut json = Vec::new();
    write_json(&mut json, value);
    json
}

#[cfg(test)]
mod tests {
    use pahtum::{Game, Layout};
    use pahtum_protocol::{Placement, Request, ToBot, encode};

    use super::*;

    /// Plays `game` to the end, always taking the legal action at `pick`
    /// (modulo their number), and checks every request against the one the
    /// protocol's encoder makes from a [`Request`] built field by field.
    fn check_every_request(id: &str, rules: Rules, mut game: Game, pick: usize) {
        let blocks: Vec<Cell> = game.position().blocks().cells().collect();
        let mut line = RequestLine::new(id, rules, &blocks);
        let mut expected = Request {
            id: 0,
            game: id.to_owned(),
            color: Color::White,
            rules,
            blocks,
            white: Vec::new(),
            black: Vec::new(),
            moves: Vec::new(),
            clock: Clock {
                remaining_ms: None,
                opponent_ms: None,
                increment_ms: 0,
                move_ms: None,
                timeout_ms: 0,
                kind: pahtum_protocol::ClockKind::Wall,
            },
        };
        let mut out = Vec::new();
        for step in 0.. {
            let Some(color) = game.color_to_act() else { break };
            expected.id = 1000 + step as u64;
            expected.color = color;
            // The clock changes every other request, so that a request may show the clock of the last one.
            let tick = step / 2;
            expected.clock = Clock {
                remaining_ms: (tick % 2 == 0).then_some(60_000 - tick as u64),
                opponent_ms: Some(59_000),
                increment_ms: 100,
                move_ms: (tick % 3 == 0).then_some(2000),
                timeout_ms: 2000,
                kind: pahtum_protocol::ClockKind::Wall,
            };
            let kind = kind_of(game.phase());
            line.write(kind, expected.id, color, &expected.clock, &mut out);
            let message = match game.phase() {
                Phase::PlaceBlocks => ToBot::PlaceBlock(expected.clone()),
                Phase::PieDecision => ToBot::PieDecision(expected.clone()),
                _ => ToBot::PlayStone(expected.clone()),
            };
            assert_eq!(String::from_utf8(out.clone()).unwrap(), encode(&message));
            let legal = game.legal_moves();
            let action = legal[pick % legal.len()];
            game.play(action).unwrap();
            line.played(action, color);
            match action {
                Action::Block(cell) => expected.blocks.push(cell),
                Action::Stone(cell) if color == Color::White => expected.white.push(cell),
                Action::Stone(cell) => expected.black.push(cell),
                Action::Pie(_) => {}
            }
            expected.moves.push(action.to_string());
        }
        assert!(game.is_finished());
    }

    #[test]
    fn requests_match_the_protocol_encoder_byte_for_byte() {
        let placed = Rules {
            pie: true,
            blocks: 5,
            placement: Placement::Players,
        };
        let game = Game::new(&Layout::Placed { count: 5 }, true).unwrap();
        check_every_request("placed \"quoted\" \\ id", placed, game, 0);

        let random = Rules {
            pie: true,
            blocks: 7,
            placement: Placement::Random,
        };
        let blocks = pahtum::setup::random_blocks(7, 3).unwrap();
        for pick in [1, 4] {
            let game = Game::with_blocks(blocks, true).unwrap();
            check_every_request("r1-g2", random, game, pick);
        }

        let fixed = Rules {
            pie: false,
            blocks: 1,
            placement: Placement::Fixed,
        };
        let a1: Cell = "a1".parse().unwrap();
        let game = Game::with_blocks(pahtum::Bitboard::EMPTY.with(a1), false).unwrap();
        check_every_request("fixed", fixed, game, 7);
    }
}
