//! `arena play`: a person against a bot, at the terminal.
//!
//! The person types cells, `swap`/`keep`, `help`, `undo`, `board` or `quit`
//! at a prompt; the person is a seat of the ordinary referee ([`Human`],
//! the same as the browser's `/play`), so the bot plays under its time
//! control with the same verdicts and record as in any game. Input is read line by line,
//! so a game can be scripted through a pipe; bad input never ends or
//! corrupts the game ([`input`]), and quitting or the end of input resigns
//! (a loss, recorded with the reason `resign`), with the record saved if
//! `--out` was given and its replay page if `--html`. The game may start from
//! a position (`--moves`, `--from`: [`crate::opening`]). The board is drawn
//! by [`view`], at the end with the scoring runs marked.

mod input;
mod view;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use pahtum::{Action, Cell, Color, Game, Seat};
use pahtum_protocol::untrusted::escape;
use pahtum_protocol::{Reason, UNLIMITED_MOVE_MS, move_time};
use pahtum_record::{GameRecord, GameSpec, Players, unix_ms};
use pahtum_referee::{Bot, Human, HumanMove, Limits, Player, Turn, play_players};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::duration::parse_duration;
use crate::forfeit::Evidence;
use input::Input;

/// Which colour the person starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Side {
    White,
    Black,
    /// Drawn from the seed.
    Random,
}

/// Play a game against a bot at the terminal (or through piped input).
#[derive(Debug, clap::Args)]
#[command(after_long_help = "Examples:
  arena play engine
  arena play heuristic --as black --placed-blocks 5
  arena play \"python3 bots/python-random/bot.py\" --no-pie --out game.json --html game.html
  arena play \"python3 mybot.py\" --seed 7 --moves \"c6,keep,d3\"
  arena play \"python3 mybot.py\" --as black --from runs/t --game 003-01-b --ply 23

Starting from a position: --moves gives the plies so far (the layout and rules from --blocks or
--placed-blocks, --seed and --no-pie); --from FILE --game ID --ply N takes the layout, the rules and the
plies 1 to N-1 of a recorded game, so that the game goes on at ply N (--game is not needed for a single
record). The rules check every ply, and neither you nor the bot is asked for them (the pie decision
included); undo stops there. --as decides your seat, whoever played the recorded game, and the limits
are --move-time and --your-time.")]
pub struct Args {
    /// The bot: a command ("python3 bots/python-random/bot.py") or a built-in name (engine, heuristic, first-free).
    bot: String,
    /// The colour you start with (with the pie rule, the colours may be swapped after White's first stone).
    #[arg(long = "as", value_enum, default_value_t = Side::White)]
    side: Side,
    /// Random blocks, drawn from the seed (an odd number).
    #[arg(long, value_name = "N", default_value_t = 7, conflicts_with = "placed_blocks")]
    blocks: usize,
    /// The players place N blocks instead, Black first and last.
    #[arg(long, value_name = "N")]
    placed_blocks: Option<usize>,
    #[command(flatten)]
    pie: crate::flags::PieFlag,
    /// The bot's limit per answer, e.g. 100ms or 2s.
    #[arg(long, value_name = "TIME", default_value = "1s", value_parser = parse_duration)]
    move_time: Duration,
    /// Your own limit per move [default: none]: a move typed later loses on time.
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    your_time: Option<Duration>,
    /// The seed of the random blocks and of `--as random` [default: from the clock].
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    opening: crate::opening::OpeningFlags,
    /// Your name in the record.
    #[arg(long, default_value = "you")]
    name: String,
    /// Write the game's record as JSON to FILE when it ends (also when you quit).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write the game's page (the HTML replay viewer) to FILE when it ends (also when you quit).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let seed = args.seed.unwrap_or_else(unix_ms);
    let person = match args.side {
        Side::White => Seat::First,
        Side::Black => Seat::Second,
        Side::Random if seed % 2 == 0 => Seat::First,
        Side::Random => Seat::Second,
    };
    let bot_time = move_time(args.move_time);
    let person_time = move_time(args.your_time.unwrap_or(Duration::from_millis(UNLIMITED_MOVE_MS)));
    let spec = match args.placed_blocks {
        Some(count) => GameSpec::placed("play", count, args.pie.pie(), bot_time)?,
        None => GameSpec::random("play", args.blocks, seed, args.pie.pie(), bot_time)?,
    };
    let spec = match person {
        Seat::First => spec.with_seat_times(person_time, bot_time),
        Seat::Second => spec.with_seat_times(bot_time, person_time),
    };
    let spec = args.opening.spec(spec, true)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let record = runtime.block_on(play(&args, &spec, person))?;
    if let Some(out) = &args.out {
        let json = serde_json::to_string_pretty(&record)? + "\n";
        std::fs::write(out, json).with_context(|| format!("cannot write the record to {}", out.display()))?;
        crate::output::outln!("The record is in {}.", out.display());
    }
    if let Some(html) = &args.html {
        pahtum_report::run_report::write_game_page(html, &record, None)?;
        crate::output::outln!("The game's page is {}.", html.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// What the terminal shows of the game: the sides, and how many plies it
/// has announced.
struct Terminal<'a> {
    spec: &'a GameSpec,
    person: Seat,
    names: Players,
    /// The plies of the game's history already shown (the given ones count as shown).
    announced: usize,
}

impl Terminal<'_> {
    fn name(&self, game: &Game, color: Color) -> &str {
        self.names.of(game.seat_of(color))
    }

    fn draw(&self, game: &Game) {
        let (white, black) = (self.name(game, Color::White), self.name(game, Color::Black));
        crate::output::out!("\n{}", view::board(game, last_cell(game), white, black));
    }

    /// Says what the bot played since the last announcement.
    fn announce(&mut self, game: &Game) {
        let by = escape(self.names.of(self.person.other())).into_owned();
        let mut replayed = self.spec.initial_game();
        for (index, &action) in game.history().iter().enumerate() {
            let seat = replayed.seat_to_act();
            replayed.play(action).expect("the referee played it by the rules");
            if index < self.announced || seat == Some(self.person) {
                continue;
            }
            match action {
                Action::Pie(true) => crate::output::outln!(
                    "{by} swaps: White's first stone is now theirs, and you play {}.",
                    replayed.color_of(self.person)
                ),
                Action::Pie(false) => crate::output::outln!("{by} keeps the colours."),
                action => crate::output::outln!("{by} plays {action}."),
            }
        }
        self.announced = game.history().len();
    }

    /// Answers the person's turns from the lines they type, until the game
    /// ends (the referee drops the seat) or the person's time runs out.
    async fn prompts(&mut self, mut turns: tokio::sync::mpsc::Receiver<Turn>) {
        let mut lines = BufReader::new(tokio::io::stdin()).lines();
        while let Some(mut turn) = turns.recv().await {
            self.announce(&turn.game);
            self.draw(&turn.game);
            let answer = loop {
                let color = turn.game.color_to_act().expect("the game is on");
                crate::output::out!(
                    "Move {}, you are {color}: {}> ",
                    turn.game.history().len() + 1,
                    input::allowed(&turn.game)
                );
                let line = tokio::select! {
                    line = lines.next_line() => line,
                    () = turn.abandoned() => return,
                };
                let line = match line {
                    Ok(Some(line)) => line,
                    Ok(None) | Err(_) => {
                        crate::output::outln!("\n(end of input)");
                        break HumanMove::Resign("ended the game (end of input)".to_owned());
                    }
                };
                match input::parse(&turn.game, &line) {
                    Err(message) => crate::output::outln!("{message}"),
                    Ok(Input::Help) => crate::output::outln!("{}", input::HELP),
                    Ok(Input::Board) => self.draw(&turn.game),
                    Ok(Input::Quit) => break HumanMove::Resign("resigned".to_owned()),
                    Ok(Input::Undo) if turn.can_undo => break HumanMove::Undo,
                    Ok(Input::Undo) => crate::output::outln!("Nothing to undo: you have not moved yet."),
                    Ok(Input::Play(action)) => break HumanMove::Play(action),
                }
            };
            if answer == HumanMove::Undo {
                // The plies taken back are announced again when they are played again.
                self.announced = self.spec.opening.len();
            }
            turn.answer(answer);
        }
    }

    /// Says how the game ended: a full board with its scoring runs and the
    /// points; a resignation once, without the points of a board left unfilled;
    /// a forfeit with the board and its evidence.
    fn the_end(&mut self, record: &GameRecord) -> anyhow::Result<()> {
        let game = record.replay().context("the game's record does not replay")?;
        self.announce(&game);
        let winner = |color: Color| format!("{} ({color}) wins", escape(self.name(&game, color)));
        let termination = &record.termination;
        match (termination.reason, record.result.winner()) {
            (Reason::Normal, winner_color) => {
                let (white, black) = (self.name(&game, Color::White), self.name(&game, Color::Black));
                crate::output::out!("\n{}", view::final_board(&game, white, black));
                let score = game.score();
                match winner_color {
                    Some(color) => crate::output::outln!(
                        "{}, {} to {}.",
                        winner(color),
                        score.of_color(color),
                        score.of_color(color.opponent())
                    ),
                    None => crate::output::outln!("A draw, {} to {}.", score.white, score.black),
                }
            }
            (Reason::Resign, Some(color)) => crate::output::outln!("You resigned: {}.", winner(color)),
            (_, winner_color) => {
                self.draw(&game);
                match winner_color {
                    Some(color) => crate::output::outln!("{} by forfeit.", winner(color)),
                    None => crate::output::outln!("A draw: both sides forfeited."),
                }
                for (reason, forfeit) in termination.forfeits() {
                    crate::output::outln!(
                        "{} lost by {reason}: {}",
                        escape(&forfeit.bot),
                        Evidence::of_forfeit(forfeit).render("  ")
                    );
                }
            }
        }
        Ok(())
    }
}

/// The cell of the last block or stone played, marked on the board.
fn last_cell(game: &Game) -> Option<Cell> {
    game.history().iter().rev().find_map(|action| match action {
        Action::Block(cell) | Action::Stone(cell) => Some(*cell),
        Action::Pie(_) => None,
    })
}

/// Plays the game: the person is a seat of the referee ([`Human`]), answered
/// from the terminal, against the bot as in any game.
async fn play(args: &Args, spec: &GameSpec, person: Seat) -> anyhow::Result<GameRecord> {
    let bot_spec = pahtum_builtin::spec(&crate::names::default_name(&args.bot), &args.bot)?;
    let mut bot = Bot::start(&bot_spec, &Limits::default(), None)
        .await
        .map_err(crate::forfeit::explain)?;
    if bot.name() == args.name {
        bot.shutdown().await;
        anyhow::bail!(
            "you and the bot are both named {:?}: give yourself another name with --name",
            args.name
        );
    }
    let (human, turns) = Human::new(args.name.clone());
    let names = match person {
        Seat::First => Players {
            first: args.name.clone(),
            second: bot.name().to_owned(),
        },
        Seat::Second => Players {
            first: bot.name().to_owned(),
            second: args.name.clone(),
        },
    };
    crate::output::outln!(
        "You play {} against {}. Type help for the rules and commands.",
        spec.initial_game().color_of(person),
        escape(bot.name())
    );
    let mut terminal = Terminal {
        spec,
        person,
        names,
        announced: spec.opening.len(),
    };
    let game = async {
        // Owned here, the seat is dropped when the game ends, which ends the prompts.
        let mut human = human;
        let players = match person {
            Seat::First => (Player::Human(&mut human), Player::Bot(&mut bot)),
            Seat::Second => (Player::Bot(&mut bot), Player::Human(&mut human)),
        };
        play_players(spec, players.0, players.1, &mut |_| {}).await
    };
    let (record, ()) = tokio::join!(game, terminal.prompts(turns));
    bot.shutdown().await;
    terminal.the_end(&record)?;
    Ok(record)
}
