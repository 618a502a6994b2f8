//! One game between two greeted bots, by the rules and the protocol.
//!
//! The referee keeps the authoritative [`Game`] and the text of a request that
//! grows with the game ([`RequestLine`]: blocks, stones and moves are appended
//! as JSON, never encoded again), so the per-move work is: copy the request
//! with its id and clock, write it, await the answer, decode it, check it with
//! the rules. Any failure of a bot ends the game at once as a loss for that
//! bot, with the reason, the offending line and the tail of its stderr in the
//! record; the bot is killed, the other one stays usable. When both bots fail
//! to get ready, both forfeit (a double forfeit, recorded as a draw). With
//! the spec's adjudication rule, a game whose result can no longer change ends
//! after the ply that fixed it ([`Adjudication::reached`]): the bots are told
//! it is over as after a full board, with the proven result.

use std::time::{Duration, Instant};

use crate::stderr_log::When;
use pahtum::{Action, Color, Game, IllegalAction, Outcome, Position, Seat};
use pahtum_protocol::{FromBot, GameOver, Info, NewGame, Reason, ToBot};
use pahtum_record::{
    Adjudication, AdjudicationRule, Forfeit, GameRecord, GameSpec, Hellos, MoveKind, MoveRecord, OtherForfeit, Players,
    Termination, Timing, unix_ms,
};

use crate::bot::{Answer, Bot, wrong_kind};
use crate::clock::Clocks;
use crate::human::{Human, NoAction, Player};
use crate::request::{self, RequestLine};
use crate::verdict::{Asked, Failure};

/// The search nodes the referee spends on each bound of an adjudication after a ply
/// ([`Adjudication::reached`]): a few milliseconds at most on the async runtime (docs/performance.md, "Exact
/// adjudication"); a position it does not prove plays on.
const ADJUDICATION_BUDGET: u64 = 100_000;

/// What happens during a game, as it happens (for live displays).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum GameEvent {
    /// A block, a stone or the pie decision was played.
    Played {
        /// The seat (first or second bot of the game) that played.
        seat: Seat,
        /// The colour it played with (seats swap colours when the pie is taken).
        color: Color,
        /// The action played.
        action: Action,
        /// The answer's wall time in milliseconds, to the microsecond (as
        /// the record keeps it).
        ms: f64,
        /// The board after the action.
        position: Position,
        /// The bot's `info` about it, as the record keeps it ([`Info::capped`]).
        info: Option<Info>,
        /// Each seat's time left on its Fischer clock after it, by seat (`None` for a seat without a base
        /// time, whose every answer has its own limit).
        remaining_ms: [Option<u64>; 2],
    },
    /// The game is over; the record follows.
    Ended {
        /// How it ended: [`Reason::Normal`] when the board filled or the game was adjudicated, otherwise how
        /// the bot that forfeited failed.
        reason: Reason,
        /// The result by colour (after a forfeit, the colour the failing bot
        /// held loses).
        result: Outcome,
    },
}

/// Plays one game: `first` holds White at the start. The spec's opening (the
/// plies given before the bots play, see [`GameSpec::opening`]) is played
/// first, by the rules; the bots see it in their requests' `moves` and the
/// record keeps it as given. Never panics on anything
/// a bot does: a bot's failure is a forfeit in the record, and that bot is
/// killed ([`Bot::is_reusable`] turns false).
///
/// # Panics
///
/// If `spec` contradicts itself (blocks that are not a legal layout, or that
/// disagree with `spec.rules`); the constructors of [`GameSpec`] check this.
pub async fn play_game(
    spec: &GameSpec,
    first: &mut Bot,
    second: &mut Bot,
    observer: &mut (dyn FnMut(GameEvent) + Send),
) -> GameRecord {
    play_players(spec, Player::Bot(first), Player::Bot(second), observer).await
}

/// Plays one game as [`play_game`] does, where either player may be a
/// person ([`Player::Human`]): the person is asked through their seat's
/// channel on their seat's clock, may take moves back, and resigns by
/// answering so or by dropping the channel. The bot's side is the same as in
/// any game: its requests, clock, verdicts and its record.
pub async fn play_players(
    spec: &GameSpec,
    first: Player<'_>,
    second: Player<'_>,
    observer: &mut (dyn FnMut(GameEvent) + Send),
) -> GameRecord {
    let started_unix_ms = unix_ms();
    let mut game = spec.initial_game();
    let mut bots = [first, second];
    let players = Players {
        first: bots[0].name().to_owned(),
        second: bots[1].name().to_owned(),
    };
    let mut moves = Vec::with_capacity(pahtum::CELLS);
    let mut swap_move = None;
    let mut play = Play {
        spec,
        game: &mut game,
        moves: &mut moves,
        swap_move: &mut swap_move,
        request: RequestLine::new(&spec.id, spec.rules, &spec.blocks),
        players: &players,
        started_unix_ms,
    };
    play.given_plies();
    let termination = match get_ready(spec, &mut bots).await {
        Err(failures) => {
            let colors = [Seat::First, Seat::Second].map(|seat| play.game.color_of(seat));
            forfeits_before_the_start(&mut bots, failures, colors).await
        }
        Ok(()) => {
            let termination = play.moves_until_the_end(&mut bots, observer).await;
            if termination.reason == Reason::Normal {
                let colors = [Seat::First, Seat::Second].map(|seat| game.color_of(seat));
                nothing_after_the_last_move(&mut bots, colors, termination).await
            } else {
                termination
            }
        }
    };
    let score = game.score();
    let result = termination.result(score);
    observer(GameEvent::Ended {
        reason: termination.reason,
        result,
    });
    for seat in [Seat::First, Seat::Second] {
        let Some(bot) = bots[seat.index()].bot() else {
            continue;
        };
        bot.resume();
        bot.stderr_at(When::End);
        let over = GameOver {
            game: spec.id.clone(),
            color: game.color_of(seat),
            result,
            score,
            reason: termination.reason,
            loser: termination.forfeit.as_ref().map(|forfeit| forfeit.color),
            detail: termination.forfeit.as_ref().map(|forfeit| forfeit.detail.clone()),
        };
        bot.tell(&ToBot::GameOver(over)).await;
    }
    let hello = |player: &Player<'_>| match player {
        Player::Bot(bot) => Some(bot.identity().clone()),
        Player::Human(_) => None,
    };
    let hello = Hellos {
        first: hello(&bots[0]),
        second: hello(&bots[1]),
    };
    let mut record = spec.record(players, &game, moves, swap_move, termination, started_unix_ms);
    record.hello = Some(hello);
    record
}

/// `new_game` to both bots at once, and both `ready`s (a person is ready).
/// On failure, each seat that failed, in seat order.
async fn get_ready(spec: &GameSpec, bots: &mut [Player<'_>; 2]) -> Result<(), Vec<(Seat, Failure)>> {
    let new_game = |seat: Seat| NewGame {
        id: 0,
        game: spec.id.clone(),
        color: seat.starting_color(),
        rules: spec.rules,
        blocks: spec.blocks.clone(),
        time: spec.time_of(seat),
    };
    let ready = async |bot: Option<&mut Bot>, seat: Seat| match bot {
        Some(bot) => bot.new_game(new_game(seat)).await,
        None => Ok(()),
    };
    let [first, second] = bots;
    let (first_ready, second_ready) = tokio::join!(ready(first.bot(), Seat::First), ready(second.bot(), Seat::Second));
    match (first_ready, second_ready) {
        (Ok(()), Ok(())) => {
            if spec.pause_idle {
                bots.iter_mut().filter_map(Player::bot).for_each(Bot::pause);
            }
            Ok(())
        }
        (first, second) => Err([(Seat::First, first), (Seat::Second, second)]
            .into_iter()
            .filter_map(|(seat, ready)| ready.err().map(|failure| (seat, failure)))
            .collect()),
    }
}

/// Ends a game before its first move: each bot in `failures` forfeits (both:
/// a double forfeit, a draw) and is killed. `colors`: each seat's colour
/// then, by seat (a given pie decision may have swapped them).
async fn forfeits_before_the_start(
    bots: &mut [Player<'_>; 2],
    failures: Vec<(Seat, Failure)>,
    colors: [Color; 2],
) -> Termination {
    let mut forfeits = Vec::with_capacity(failures.len());
    for (seat, failure) in failures {
        let bot = bots[seat.index()].bot().expect("only a bot fails to get ready");
        forfeits.push(forfeit_of(bot, seat, colors[seat.index()], failure).await);
    }
    let mut forfeits = forfeits.into_iter();
    let (reason, first) = forfeits.next().expect("a failure to get ready names a seat");
    Termination {
        reason,
        forfeit: Some(first),
        also: forfeits
            .next()
            .map(|(reason, forfeit)| OtherForfeit { reason, forfeit }),
        adjudicated: None,
    }
}

/// The end of a game whose board is full or that was adjudicated (`end`): a
/// bot that printed a line after the last move (a second answer to the last
/// request, say), before `game_over`, forfeits with a protocol error, as it
/// would have at any earlier move; the game is over only once `game_over` is
/// sent. Otherwise `end` stands.
/// `colors`: each seat's colour at the end, by seat.
async fn nothing_after_the_last_move(bots: &mut [Player<'_>; 2], colors: [Color; 2], end: Termination) -> Termination {
    for seat in [Seat::First, Seat::Second] {
        let Some(bot) = bots[seat.index()].bot() else {
            continue;
        };
        if let Err(failure) = bot.check_nothing_unasked(format_args!("seen after the last move, before game_over")) {
            let (reason, forfeit) = forfeit_of(bot, seat, colors[seat.index()], failure).await;
            return Termination {
                reason,
                forfeit: Some(forfeit),
                also: None,
                adjudicated: None,
            };
        }
    }
    end
}

/// The state of a game in play.
struct Play<'a> {
    spec: &'a GameSpec,
    game: &'a mut Game,
    moves: &'a mut Vec<MoveRecord>,
    swap_move: &'a mut Option<Timing>,
    /// The requests' text, which grows with the game.
    request: RequestLine,
    /// The players' names, for the record so far that a person sees.
    players: &'a Players,
    started_unix_ms: u64,
}

impl Play<'_> {
    /// Plays the spec's opening, the plies given before the bots play, as
    /// the rules do and without asking a bot: into the game, the requests'
    /// `moves` and the record (untimed; a given pie decision has no
    /// `swap_move`).
    fn given_plies(&mut self) {
        for &action in &self.spec.opening {
            let (seat, color) = self
                .game
                .seat_to_act()
                .zip(self.game.color_to_act())
                .expect("GameSpec::with_opening leaves the game on");
            self.game
                .play(action)
                .expect("GameSpec::with_opening checked the opening");
            self.request.played(action, color);
            self.record(action, seat, color, None);
        }
    }

    async fn moves_until_the_end(
        &mut self,
        bots: &mut [Player<'_>; 2],
        observer: &mut (dyn FnMut(GameEvent) + Send),
    ) -> Termination {
        let mut clocks = Clocks::new(self.spec.time_of(Seat::First), self.spec.time_of(Seat::Second));
        while let (Some(seat), Some(color)) = (self.game.seat_to_act(), self.game.color_to_act()) {
            let played = match &mut bots[seat.index()] {
                Player::Bot(bot) => self.bot_move(bot, seat, color, &clocks).await,
                Player::Human(human) => match self.human_move(human, seat, &clocks).await {
                    Ok(Some(played)) => Ok(played),
                    Ok(None) => continue,
                    Err(detail) => Err((detail.0, self.forfeit_of_person(human.name(), seat, color, detail.1))),
                },
            };
            let (action, timing, cost) = match played {
                Ok(played) => played,
                Err((reason, forfeit)) => {
                    return Termination {
                        reason,
                        forfeit: Some(forfeit),
                        also: None,
                        adjudicated: None,
                    };
                }
            };
            clocks.charge(seat, cost);
            self.request.played(action, color);
            observer(GameEvent::Played {
                seat,
                color,
                action,
                ms: timing.ms,
                position: *self.game.position(),
                info: timing.info.clone(),
                remaining_ms: clocks.remaining_ms(),
            });
            self.record(action, seat, color, Some(timing));
            if let Some(adjudication) = self.adjudication().await {
                return Termination::adjudicated(adjudication);
            }
        }
        Termination::normal()
    }

    /// The game's adjudication after the ply just played, if its rule ends it now. A `solved` game's one
    /// solve (milliseconds to most of a second at its most cells: docs/performance.md, "Exact
    /// adjudication") runs off the runtime's threads, so that no other game's clock waits for it; the
    /// `decided` check takes microseconds and runs here.
    async fn adjudication(&self) -> Option<Adjudication> {
        let rule = self.spec.adjudicate?;
        match rule {
            AdjudicationRule::Solved { cells } if self.game.position().free().len() <= cells => {
                let game = self.game.clone();
                let solve =
                    tokio::task::spawn_blocking(move || Adjudication::reached(rule, &game, ADJUDICATION_BUDGET));
                // A panic of the solve (no solver lent) goes on as itself, its message whole.
                solve
                    .await
                    .unwrap_or_else(|error| std::panic::resume_unwind(error.into_panic()))
            }
            _ => Adjudication::reached(rule, self.game, ADJUDICATION_BUDGET),
        }
    }

    /// Asks `bot` for its action and plays it; on any failure the bot is killed and forfeits.
    async fn bot_move(
        &mut self,
        bot: &mut Bot,
        seat: Seat,
        color: Color,
        clocks: &Clocks,
    ) -> Result<(Action, Timing, Duration), (Reason, Forfeit)> {
        let (kind, id) = (request::kind_of(self.game.phase()), bot.next_id());
        bot.stderr_at(When::Ply(
            u32::try_from(self.game.history().len() + 1).unwrap_or(u32::MAX),
        ));
        self.request.write(kind, id, color, &clocks.clock(seat), bot.line_mut());
        let asked = Asked { kind, id: Some(id) };
        if self.spec.pause_idle {
            bot.resume();
        }
        let answer = bot.exchange(asked, clocks.budget(seat), Reason::Timeout).await;
        // A verdict on the answer's content keeps the line as the bot wrote it.
        let played = answer.and_then(|answer| {
            self.apply(asked, answer)
                .map_err(|failure| failure.with_line(bot.last_answer()))
        });
        match played {
            Ok(played) => {
                if self.spec.pause_idle {
                    bot.pause();
                }
                Ok(played)
            }
            Err(failure) => Err(forfeit_of(bot, seat, color, failure).await),
        }
    }

    /// Asks the person in `seat` for their action within their clock and
    /// plays it; `None` after an undo (the person is asked again), an error
    /// (the reason and what the record says) when they resign or run out of
    /// time.
    async fn human_move(
        &mut self,
        human: &mut Human,
        seat: Seat,
        clocks: &Clocks,
    ) -> Result<Option<(Action, Timing, Duration)>, (Reason, String)> {
        let so_far = self.spec.record(
            self.players.clone(),
            self.game,
            self.moves.clone(),
            self.swap_move.clone(),
            Termination::normal(),
            self.started_unix_ms,
        );
        let last = self.last_ply_of(seat);
        let limit = clocks.budget(seat).wall_cap();
        let asked = Instant::now();
        let answer = tokio::time::timeout(limit, human.ask(self.game, so_far, last.is_some())).await;
        let elapsed = asked.elapsed();
        match answer {
            Err(_) => Err((
                Reason::Timeout,
                format!("no move within the limit of {} ms", limit.as_millis()),
            )),
            Ok(Err(NoAction::Resign(detail))) => Err((Reason::Resign, detail)),
            Ok(Err(NoAction::Undo)) => {
                self.take_back(last.expect("undo is offered after a move of the person's"));
                Ok(None)
            }
            Ok(Ok(action)) => {
                self.game.play(action).expect("the person's seat checked the action");
                let timing = Timing {
                    ms: elapsed.as_micros() as f64 / 1000.0,
                    cpu_ms: None,
                    info: None,
                };
                Ok(Some((action, timing, elapsed)))
            }
        }
    }

    /// The forfeit of the person `name` (a resignation or a timeout): no line, no stderr.
    fn forfeit_of_person(&self, name: &str, seat: Seat, color: Color, detail: String) -> Forfeit {
        Forfeit {
            bot: name.to_owned(),
            seat,
            color,
            detail,
            line: None,
            stderr_tail: Vec::new(),
            overloaded: false,
        }
    }

    /// The index in the game's history of the last action that `seat` chose
    /// (not a given ply of the opening), if there is one.
    fn last_ply_of(&self, seat: Seat) -> Option<usize> {
        let mut game = self.spec.initial_game();
        let mut last = None;
        for (index, &action) in self.game.history().iter().enumerate() {
            if index >= self.spec.opening.len() && game.seat_to_act() == Some(seat) {
                last = Some(index);
            }
            game.play(action).expect("the history was played by the rules");
        }
        last
    }

    /// Takes back the action at `ply` (an index in the game's history) and
    /// every one after it: from the game, the requests and the record.
    fn take_back(&mut self, ply: usize) {
        let kept = self.game.history()[..ply].to_vec();
        *self.game = self.spec.initial_game();
        self.request = RequestLine::new(&self.spec.id, self.spec.rules, &self.spec.blocks);
        for &action in &kept {
            let color = self.game.color_to_act().expect("the game was on");
            self.game.play(action).expect("the history was played by the rules");
            self.request.played(action, color);
        }
        let pie = kept.iter().any(|action| matches!(action, Action::Pie(_)));
        self.moves.truncate(kept.len() - usize::from(pie));
        if !pie {
            *self.swap_move = None;
        }
    }

    /// Checks the answer with the rules and plays it.
    fn apply(&mut self, asked: Asked, answer: Answer) -> Result<(Action, Timing, Duration), Failure> {
        let (action, info) = action_of(asked, answer.message)?;
        if let Err(illegal) = self.game.play(action) {
            return Err(illegal_move(asked, action, &illegal));
        }
        let timing = Timing {
            ms: answer.elapsed.as_micros() as f64 / 1000.0,
            cpu_ms: answer.cpu.map(|cpu| cpu.as_micros() as f64 / 1000.0),
            info,
        };
        Ok((action, timing, answer.cost))
    }

    /// Records `action`, with the bot's `timing`; `None` for a given ply.
    fn record(&mut self, action: Action, seat: Seat, color: Color, timing: Option<Timing>) {
        let (kind, cell) = match action {
            Action::Block(cell) => (MoveKind::Block, cell),
            Action::Stone(cell) => (MoveKind::Stone, cell),
            Action::Pie(_) => {
                *self.swap_move = timing;
                return;
            }
        };
        self.moves.push(MoveRecord {
            kind,
            seat: Some(seat),
            color,
            cell,
            timing: timing.unwrap_or_default(),
        });
    }
}

/// The action an answer plays, with what the record keeps of its `info`
/// ([`Info::capped`]: a bot cannot bloat the organiser's journal).
pub(crate) fn action_of(asked: Asked, message: FromBot) -> Result<(Action, Option<Info>), Failure> {
    let (action, info) = match message {
        FromBot::Block { cell, info, .. } => (Action::Block(cell), info),
        FromBot::Stone { cell, info, .. } => (Action::Stone(cell), info),
        FromBot::Pie { swap, info, .. } => (Action::Pie(swap), info),
        other => return Err(wrong_kind(asked, &other)),
    };
    Ok((action, info.map(Info::capped)))
}

pub(crate) fn illegal_move(asked: Asked, action: Action, illegal: &IllegalAction) -> Failure {
    let hint = match illegal {
        IllegalAction::WrongPhase { .. } => {
            "answer place_block with a block, play_stone with a stone and pie_decision with a pie message"
        }
        _ => "choose a free cell: one that is in none of the request's blocks, white and black",
    };
    Failure::new(
        Reason::IllegalMove,
        format!("answered {asked} with {action}: {illegal}; {hint}"),
    )
}

/// The forfeit of the bot in `seat`, and its reason: the bot is killed and its stderr tail kept.
pub(crate) async fn forfeit_of(bot: &mut Bot, seat: Seat, color: Color, failure: Failure) -> (Reason, Forfeit) {
    let stderr_tail = bot.fail().await;
    let forfeit = Forfeit {
        bot: bot.name().to_owned(),
        seat,
        color,
        detail: failure.detail,
        line: failure.line,
        stderr_tail,
        overloaded: failure.overloaded,
    };
    (failure.reason, forfeit)
}
