//! `arena play`: a person against a bot, at the terminal.
//!
//! The person types cells, `swap`/`keep`, `help`, `undo`, `board` or `quit`
//! at a prompt; the bot answers under its time control through the
//! referee's one-request API ([`Bot::choose`]). Input is read line by line,
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
use std::time::{Duration, Instant};

use anyhow::Context;
use pahtum::{Action, Cell, Color, Game, Outcome, Seat};
use pahtum_protocol::untrusted::escape;
use pahtum_protocol::{DEFAULT_MARGIN_MS, GameOver, NewGame, Reason, UNLIMITED_MOVE_MS, move_time};
use pahtum_record::{Forfeit, GameRecord, GameSpec, MoveKind, MoveRecord, Players, Termination, Timing, unix_ms};
use pahtum_referee::{Bot, Limits};
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

/// One action of the game so far, with what the record keeps of it.
struct Played {
    action: Action,
    seat: Seat,
    color: Color,
    timing: Timing,
}

/// The game as it stands: its setup, the actions played (the given plies
/// of its opening first), and the sides.
struct Table<'a> {
    spec: &'a GameSpec,
    game: Game,
    played: Vec<Played>,
    person: Seat,
    names: Players,
}

impl<'a> Table<'a> {
    /// The game of `spec` between `names`, `person` in their seat, its
    /// opening played (given: no one is asked for it, and it has no timing).
    fn new(spec: &'a GameSpec, person: Seat, names: Players) -> Table<'a> {
        let mut table = Table {
            spec,
            game: spec.initial_game(),
            played: Vec::new(),
            person,
            names,
        };
        for &action in &spec.opening {
            table.play(action, Timing::default());
        }
        table
    }

    fn play(&mut self, action: Action, timing: Timing) {
        let seat = self.game.seat_to_act().expect("the game is on");
        let color = self.game.color_to_act().expect("the game is on");
        self.game.play(action).expect("checked before");
        self.played.push(Played {
            action,
            seat,
            color,
            timing,
        });
    }

    /// Takes back the person's last action and everything after it; false
    /// when the person has not played yet (the opening cannot be taken back).
    fn undo(&mut self) -> bool {
        let given = self.spec.opening.len();
        let Some(last) = self.played[given..]
            .iter()
            .rposition(|played| played.seat == self.person)
        else {
            return false;
        };
        self.played.truncate(given + last);
        self.game = self.spec.initial_game();
        for played in &self.played {
            self.game.play(played.action).expect("replayed as played");
        }
        true
    }

    /// The number of the next ply, from 1, in the one numbering of `arena
    /// show`, the viewer and `--ply` (the pie decision and blocks count).
    fn ply(&self) -> usize {
        self.played.len() + 1
    }

    fn last_cell(&self) -> Option<Cell> {
        self.played.iter().rev().find_map(|played| match played.action {
            Action::Block(cell) | Action::Stone(cell) => Some(cell),
            Action::Pie(_) => None,
        })
    }

    fn name(&self, color: Color) -> &str {
        self.names.of(self.game.seat_of(color))
    }

    fn draw(&self) {
        let (white, black) = (self.name(Color::White), self.name(Color::Black));
        crate::output::out!("\n{}", view::board(&self.game, self.last_cell(), white, black));
    }

    fn record(self, termination: Termination, started_unix_ms: u64) -> GameRecord {
        let mut moves = Vec::with_capacity(self.played.len());
        let mut swap_move = None;
        let given = self.spec.opening.len();
        for (index, played) in self.played.into_iter().enumerate() {
            let (kind, cell) = match played.action {
                Action::Block(cell) => (MoveKind::Block, cell),
                Action::Stone(cell) => (MoveKind::Stone, cell),
                Action::Pie(_) => {
                    // A given pie decision was nobody's answer.
                    swap_move = (index >= given).then_some(played.timing);
                    continue;
                }
            };
            moves.push(MoveRecord {
                kind,
                seat: Some(played.seat),
                color: played.color,
                cell,
                timing: played.timing,
            });
        }
        self.spec
            .record(self.names, &self.game, moves, swap_move, termination, started_unix_ms)
    }
}

async fn play(args: &Args, spec: &GameSpec, person: Seat) -> anyhow::Result<GameRecord> {
    let bot_spec = crate::builtin::spec(&crate::names::default_name(&args.bot), &args.bot)?;
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
    let bot_seat = person.other();
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
    let started_unix_ms = unix_ms();
    let mut table = Table::new(spec, person, names);
    crate::output::outln!(
        "You play {} against {}. Type help for the rules and commands.",
        table.game.color_of(person),
        escape(bot.name())
    );
    let new_game = NewGame {
        id: 0,
        game: spec.id.clone(),
        color: bot_seat.starting_color(),
        rules: spec.rules,
        blocks: spec.blocks.clone(),
        time: spec.time_of(bot_seat),
    };
    let termination = match bot.start_game(new_game).await {
        Err(failure) => {
            let forfeit = Forfeit {
                bot: bot.name().to_owned(),
                seat: bot_seat,
                color: table.game.color_of(bot_seat),
                detail: failure.detail,
                line: failure.line,
                stderr_tail: Vec::new(),
                overloaded: false,
            };
            Termination {
                reason: failure.reason,
                forfeit: Some(forfeit),
                also: None,
            }
        }
        Ok(()) => moves(&mut table, &mut bot, args).await,
    };
    let score = table.game.score();
    let result = termination.result(score);
    the_end(&table, &termination, result);
    if bot.is_reusable() {
        bot.end_game(GameOver {
            game: spec.id.clone(),
            color: table.game.color_of(bot_seat),
            result,
            score,
            reason: termination.reason,
            loser: termination.forfeit.as_ref().map(|forfeit| forfeit.color),
            detail: termination.forfeit.as_ref().map(|forfeit| forfeit.detail.clone()),
        })
        .await;
    }
    bot.shutdown().await;
    Ok(table.record(termination, started_unix_ms))
}

/// Says how the game ended: a full board with its scoring runs and the
/// points; a resignation once, without the points of a board left unfilled;
/// a forfeit with the board and its evidence.
fn the_end(table: &Table<'_>, termination: &Termination, result: Outcome) {
    let winner = |color: Color| format!("{} ({color}) wins", escape(table.name(color)));
    match (termination.reason, result.winner()) {
        (Reason::Normal, winner_color) => {
            let (white, black) = (table.name(Color::White), table.name(Color::Black));
            crate::output::out!("\n{}", view::final_board(&table.game, white, black));
            let score = table.game.score();
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
            table.draw();
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
}

/// Plays until the board is full, a side forfeits, or the person quits.
async fn moves(table: &mut Table<'_>, bot: &mut Bot, args: &Args) -> Termination {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let margin = Duration::from_millis(DEFAULT_MARGIN_MS);
    table.draw();
    while let Some(seat) = table.game.seat_to_act() {
        if seat != table.person {
            match bot
                .choose(&table.spec.id, table.spec.rules, &table.game, args.move_time, margin)
                .await
            {
                Ok(choice) => {
                    let timing = Timing {
                        ms: choice.elapsed.as_micros() as f64 / 1000.0,
                        cpu_ms: choice.cpu.map(|cpu| cpu.as_micros() as f64 / 1000.0),
                        info: choice.info,
                    };
                    let by = escape(bot.name()).into_owned();
                    table.play(choice.action, timing);
                    match choice.action {
                        Action::Pie(true) => crate::output::outln!(
                            "{by} swaps: White's first stone is now theirs, and you play {}.",
                            table.game.color_of(table.person)
                        ),
                        Action::Pie(false) => crate::output::outln!("{by} keeps the colours."),
                        action => crate::output::outln!("{by} plays {action}."),
                    }
                    table.draw();
                }
                Err((reason, forfeit)) => {
                    return Termination {
                        reason,
                        forfeit: Some(forfeit),
                        also: None,
                    };
                }
            }
            continue;
        }
        let color = table.game.color_to_act().expect("the game is on");
        crate::output::out!(
            "Move {}, you are {color}: {}> ",
            table.ply(),
            input::allowed(&table.game)
        );
        let asked = Instant::now();
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) | Err(_) => {
                crate::output::outln!("\n(end of input)");
                return resignation(table, "ended the game (end of input)");
            }
        };
        match input::parse(&table.game, &line) {
            Err(message) => crate::output::outln!("{message}"),
            Ok(Input::Help) => crate::output::outln!("{}", input::HELP),
            Ok(Input::Board) => table.draw(),
            Ok(Input::Quit) => return resignation(table, "resigned"),
            Ok(Input::Undo) => {
                if table.undo() {
                    table.draw();
                } else {
                    crate::output::outln!("Nothing to undo: you have not moved yet.");
                }
            }
            Ok(Input::Play(action)) => {
                let elapsed = asked.elapsed();
                if let Some(limit) = args.your_time.filter(|&limit| elapsed > limit) {
                    let detail = format!(
                        "answered after {} ms, past the limit of {} ms",
                        elapsed.as_millis(),
                        limit.as_millis()
                    );
                    return forfeit(table, Reason::Timeout, detail);
                }
                let timing = Timing {
                    ms: elapsed.as_micros() as f64 / 1000.0,
                    cpu_ms: None,
                    info: None,
                };
                table.play(action, timing);
            }
        }
    }
    Termination::normal()
}

/// The person ends the game early: a loss, recorded as a resignation.
fn resignation(table: &Table<'_>, detail: &str) -> Termination {
    forfeit(table, Reason::Resign, detail.to_owned())
}

fn forfeit(table: &Table<'_>, reason: Reason, detail: String) -> Termination {
    let forfeit = Forfeit {
        bot: table.names.of(table.person).to_owned(),
        seat: table.person,
        color: table.game.color_of(table.person),
        detail,
        line: None,
        stderr_tail: Vec::new(),
        overloaded: false,
    };
    Termination {
        reason,
        forfeit: Some(forfeit),
        also: None,
    }
}
