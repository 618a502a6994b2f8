//! A synchronous bot loop: write a Rust bot by implementing [`Player`].
//!
//! [`run`] reads the referee's lines from stdin, answers the greeting, `ping`
//! and `new_game` itself, rebuilds the [`Game`] of each request and asks the
//! player for an [`Action`], then writes and flushes the answer with the
//! request's id. Starter bots and the reference engine are built on it.
//!
//! The loop itself costs a bot little per request: the line and the answer
//! are kept in buffers reused from request to request, a request written as
//! the referee writes it is read in place and only its new moves are played
//! on the last request's game, any other line is decoded without buffering
//! it as a tree (the two-step decoder of
//! [`decode_to_bot`](crate::decode_to_bot), which names what is wrong, runs
//! only on a line that fails), and the answer is one write. With instant
//! players, this loop was most of a tournament's CPU time per move.
//!
//! Those shortcuts are the per-move hot path of every bot built on this
//! loop, the arena's built-in bots included, and they live apart, in
//! `bot/fast.rs` (a private module): a player never sees them, and their
//! tests hold each one equal to the protocol's plain decoding, replay and
//! encoding. This file is the loop and what a bot implements.

mod fast;

use std::io::{self, BufRead, Write};

use pahtum::{Action, Game};

use crate::state::StateError;
use crate::{Clock, DecodeError, FromBot, GameOver, Info, NewGame, PROTOCOL_VERSION, ToBot};
use fast::{Memo, Replay, RequestText, decode, encode_answer};

/// Who the bot is, for the greeting: what it says in `hello` (and what a game record keeps of it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Identity {
    /// The name sent in `hello`, for the referee's logs.
    pub name: String,
    /// The bot's version, if it has one worth telling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The bot's author, if named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
}

impl Identity {
    /// What a record keeps of it: each text cut to
    /// [`HELLO_BYTES`](crate::untrusted::HELLO_BYTES), marked
    /// ([`untrusted::cut`](crate::untrusted::cut)).
    pub fn capped(mut self) -> Identity {
        use crate::untrusted::{HELLO_BYTES, cut_in_place};
        cut_in_place(&mut self.name, HELLO_BYTES);
        for text in [&mut self.version, &mut self.author].into_iter().flatten() {
            cut_in_place(text, HELLO_BYTES);
        }
        self
    }
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
    let mut replay = Replay::default();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        if line.trim().is_empty() {
            continue;
        }
        let answer = if let Some(request) = RequestText::read(&line, &mut memo) {
            let game = replay.game_of(&request)?;
            let (action, info) = player.choose(game, &request.clock);
            Some(answer(request.id, action, info, game)?)
        } else {
            match decode(&line)? {
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
            }
        };
        if let Some(answer) = answer {
            encode_answer(&answer, &mut encoded);
            output.write_all(&encoded)?;
            output.flush()?;
        }
    }
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
