//! One request at a time, for a caller that runs the game itself: `arena
//! play`, where one side is a person at the terminal and the other a bot.
//!
//! [`play_game`](crate::play_game) asks both seats in turn; here the caller
//! keeps the [`Game`], asks the bot only when it is the bot's turn, and may
//! take moves back between requests: every request carries the whole board,
//! so a bot needs no notice of an undo.

use std::time::Duration;

use pahtum::{Action, Game};
use pahtum_protocol::{Clock, GameOver, Info, NewGame, Reason, Rules, ToBot};
use pahtum_record::Forfeit;

use crate::bot::Bot;
use crate::clock::Budget;
use crate::game::{action_of, forfeit_of, illegal_move};
use crate::request;
use crate::verdict::Asked;

/// A legal action the bot chose, with what it said about it and its timing.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The action, already checked against the game (not yet played).
    pub action: Action,
    /// The bot's `info`, if it sent one.
    pub info: Option<Info>,
    /// Wall time from the request's write to the answer's read.
    pub elapsed: Duration,
    /// The bot's CPU time during the request, where the kernel tells it.
    pub cpu: Option<Duration>,
}

impl Bot {
    /// Starts a game: `new_game`, then `ready` within [`Limits::ready`](crate::Limits::ready).
    /// On failure the bot has been killed.
    pub async fn start_game(&mut self, new_game: NewGame) -> Result<(), crate::Failure> {
        let ready = self.new_game(new_game).await;
        if ready.is_err() {
            self.fail().await;
        }
        ready
    }

    /// Asks the bot for the action due in `game` (a block, a stone or the pie
    /// decision) within `move_time` plus `margin`, and checks it with the
    /// rules. On any failure the bot is killed and its forfeit returned, as
    /// in [`play_game`](crate::play_game).
    ///
    /// # Panics
    ///
    /// If the game is over.
    pub async fn choose(
        &mut self,
        game_id: &str,
        rules: Rules,
        game: &Game,
        move_time: Duration,
        margin: Duration,
    ) -> Result<Choice, (Reason, Forfeit)> {
        let (seat, color) = game
            .seat_to_act()
            .zip(game.color_to_act())
            .expect("the game is not over");
        let id = self.next_id();
        let clock = Clock::per_move(move_time.as_millis() as u64);
        let message = ToBot::request(id, game_id, rules, game, clock).expect("the game is not over");
        self.encode(&message);
        let asked = Asked {
            kind: request::kind_of(game.phase()),
            id: Some(id),
        };
        let chosen = match self
            .exchange(asked, Budget::wall(move_time + margin), Reason::Timeout)
            .await
        {
            Ok(answer) => action_of(asked, answer.message)
                .and_then(|(action, info)| {
                    game.check(action)
                        .map_err(|illegal| illegal_move(asked, action, &illegal))?;
                    Ok(Choice {
                        action,
                        info,
                        elapsed: answer.elapsed,
                        cpu: answer.cpu,
                    })
                })
                .map_err(|failure| failure.with_line(self.last_answer())),
            Err(failure) => Err(failure),
        };
        match chosen {
            Ok(choice) => Ok(choice),
            Err(failure) => Err(forfeit_of(self, seat, color, failure).await),
        }
    }

    /// Tells the bot how the game ended (`game_over`, no answer).
    pub async fn end_game(&mut self, over: GameOver) {
        self.tell(&ToBot::GameOver(over)).await;
    }
}
