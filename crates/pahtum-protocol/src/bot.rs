//! A synchronous bot loop: write a Rust bot by implementing [`Player`].
//!
//! [`run`] reads the referee's lines from stdin, answers the greeting, `ping`
//! and `new_game` itself, rebuilds the [`Game`] of each request and asks the
//! player for an [`Action`], then writes and flushes the answer with the
//! request's id. Starter bots and the reference engine are built on it.

use std::io::{self, BufRead, Write};

use pahtum::{Action, Game};

use crate::state::StateError;
use crate::{Clock, DecodeError, FromBot, GameOver, Info, NewGame, PROTOCOL_VERSION, ToBot, decode_to_bot, encode};

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
pub fn run_with<P: Player, R: BufRead, W: Write>(player: &mut P, input: R, mut output: W) -> Result<(), BotError> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match decode_to_bot(&line)? {
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
            output.write_all(encode(&answer).as_bytes())?;
            output.flush()?;
        }
    }
    Ok(())
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
