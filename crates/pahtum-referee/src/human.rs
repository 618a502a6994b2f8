//! A person's seat: a player of the ordinary referee whose moves come from a
//! channel instead of a process, so that a game between a person and a bot
//! (`arena play` at the terminal, `/play` in the browser) is a normal game,
//! with the same clocks, verdicts for the bot and record as any other.
//!
//! When it is the person's turn, the referee sends a [`Turn`] (the game as it
//! stands, and its record so far) and waits for the answer on the seat's
//! clock: a legal action, an undo (the person's last action and everything
//! after it are taken back; every request carries the whole game, so the bot
//! needs no notice) or a resignation. Whoever shows the game to the person
//! holds the other end ([`Human::new`]); dropping it resigns.

use pahtum::{Action, Game};
use pahtum_record::GameRecord;
use tokio::sync::{mpsc, oneshot};

use crate::bot::Bot;

/// One of the two players of a game: a supervised bot process or a person.
#[derive(Debug)]
pub enum Player<'a> {
    /// A greeted bot process.
    Bot(&'a mut Bot),
    /// A person, whose moves come through [`Turn`]s.
    Human(&'a mut Human),
}

impl Player<'_> {
    /// The player's name in the record.
    pub fn name(&self) -> &str {
        match self {
            Player::Bot(bot) => bot.name(),
            Player::Human(human) => &human.name,
        }
    }

    /// The bot, if the player is one.
    pub(crate) fn bot(&mut self) -> Option<&mut Bot> {
        match self {
            Player::Bot(bot) => Some(bot),
            Player::Human(_) => None,
        }
    }
}

/// A person's seat, which asks for each move through a channel.
#[derive(Debug)]
pub struct Human {
    name: String,
    turns: mpsc::Sender<Turn>,
}

/// What a person answers to a [`Turn`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HumanMove {
    /// Play this action (checked again by the referee; an illegal one asks again).
    Play(Action),
    /// Take back the person's last action and everything after it (see [`Turn::can_undo`]).
    Undo,
    /// Resign, with what the record says of it ("resigned").
    Resign(String),
}

/// The person's turn: the game as it stands and a way to answer once.
#[derive(Debug)]
pub struct Turn {
    /// The game now; the person acts in it.
    pub game: Game,
    /// The game's record so far (as if it ended normally now): its moves
    /// with the bot's timings and `info`, for a display.
    pub record: GameRecord,
    /// Whether the person has played an action that [`HumanMove::Undo`] can
    /// take back (not one of the spec's given plies).
    pub can_undo: bool,
    answer: oneshot::Sender<HumanMove>,
}

impl Turn {
    /// Answers the turn; false if the referee stopped waiting (the game ended).
    pub fn answer(self, answer: HumanMove) -> bool {
        self.answer.send(answer).is_ok()
    }

    /// Completes when the referee stops waiting for this answer (the person's time ran out).
    pub async fn abandoned(&mut self) {
        self.answer.closed().await;
    }
}

/// Why a person's seat gave no action.
pub(crate) enum NoAction {
    Undo,
    Resign(String),
}

impl Human {
    /// A person's seat named `name`, and the channel its turns arrive on.
    pub fn new(name: impl Into<String>) -> (Human, mpsc::Receiver<Turn>) {
        let (turns, receiver) = mpsc::channel(1);
        let human = Human {
            name: name.into(),
            turns,
        };
        (human, receiver)
    }

    /// The person's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Asks for the person's action in `game` and waits for it; the caller
    /// bounds the wait. A closed channel is a resignation.
    pub(crate) async fn ask(&mut self, game: &Game, record: GameRecord, can_undo: bool) -> Result<Action, NoAction> {
        loop {
            let (answer, answered) = oneshot::channel();
            let turn = Turn {
                game: game.clone(),
                record: record.clone(),
                can_undo,
                answer,
            };
            if self.turns.send(turn).await.is_err() {
                return Err(NoAction::Resign("left the game".to_owned()));
            }
            match answered.await {
                Err(_) => return Err(NoAction::Resign("left the game".to_owned())),
                Ok(HumanMove::Play(action)) if game.check(action).is_ok() => return Ok(action),
                Ok(HumanMove::Play(_)) => continue,
                Ok(HumanMove::Undo) if can_undo => return Err(NoAction::Undo),
                Ok(HumanMove::Undo) => continue,
                Ok(HumanMove::Resign(detail)) => return Err(NoAction::Resign(detail)),
            }
        }
    }
}
