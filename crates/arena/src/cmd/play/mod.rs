//! `arena play`: a person against a bot, at the terminal.
//!
//! The person types cells, `swap`/`keep`, `help`, `undo`, `board` or `quit`
//! at a prompt; the person is a seat of the ordinary referee ([`Human`],
//! the same as the browser's `/play`), so the bot plays under its time
//! control with the same verdicts and record as in any game. Input is read line by line,
//! so a game can be scripted through a pipe; bad input never ends or
//! corrupts the game ([`pahtum_report::prompt`]), and quitting or the end of input resigns
//! (a loss, recorded with the reason `resign`), with the record saved if
//! `--out` was given and its replay page if `--html`. The game may start from
//! a position (`--moves`, `--from`: [`crate::opening`]). What the person
//! sees (the board, the bot's plies, the end, at the end with the scoring
//! runs marked) is [`pahtum_report::play`]'s text; this module reads the
//! terminal and runs the game.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use pahtum::Seat;
use pahtum_protocol::{UNLIMITED_MOVE_MS, move_time};
use pahtum_record::{GameRecord, GameSpec, Players, unix_ms};
use pahtum_referee::{Bot, Human, HumanMove, Limits, Player, Turn, play_players};
use pahtum_report::play::Commentary;
use pahtum_report::prompt::{self, Input};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::duration::parse_duration;
use crate::forfeit::Evidence;
use crate::output::{out, outln};

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
        outln!("The record is in {}.", out.display());
    }
    if let Some(html) = &args.html {
        pahtum_report::run_report::write_game_page(html, &record, None)?;
        outln!("The game's page is {}.", html.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Answers the person's turns from the lines they type, until the game
/// ends (the referee drops the seat) or the person's time runs out.
async fn prompts(commentary: &mut Commentary<'_>, mut turns: tokio::sync::mpsc::Receiver<Turn>) {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Some(mut turn) = turns.recv().await {
        out!("{}", commentary.announce(&turn.game));
        out!("{}", commentary.board(&turn.game));
        let answer = loop {
            out!("{}", prompt::prompt(&turn.game));
            let line = tokio::select! {
                line = lines.next_line() => line,
                () = turn.abandoned() => return,
            };
            let line = match line {
                Ok(Some(line)) => line,
                Ok(None) | Err(_) => {
                    outln!("\n(end of input)");
                    break HumanMove::Resign("ended the game (end of input)".to_owned());
                }
            };
            match prompt::parse(&turn.game, &line) {
                Err(message) => outln!("{message}"),
                Ok(Input::Help) => outln!("{}", prompt::HELP),
                Ok(Input::Board) => out!("{}", commentary.board(&turn.game)),
                Ok(Input::Quit) => break HumanMove::Resign("resigned".to_owned()),
                Ok(Input::Undo) if turn.can_undo => break HumanMove::Undo,
                Ok(Input::Undo) => outln!("Nothing to undo: you have not moved yet."),
                Ok(Input::Play(action)) => break HumanMove::Play(action),
            }
        };
        if answer == HumanMove::Undo {
            commentary.undone();
        }
        turn.answer(answer);
    }
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
    let mut commentary = Commentary::new(spec, person, names);
    out!("{}", commentary.welcome());
    let game = async {
        // Owned here, the seat is dropped when the game ends, which ends the prompts.
        let mut human = human;
        let players = match person {
            Seat::First => (Player::Human(&mut human), Player::Bot(&mut bot)),
            Seat::Second => (Player::Bot(&mut bot), Player::Human(&mut human)),
        };
        play_players(spec, players.0, players.1, &mut |_| {}).await
    };
    let (record, ()) = tokio::join!(game, prompts(&mut commentary, turns));
    bot.shutdown().await;
    let game = record.replay().context("the game's record does not replay")?;
    out!(
        "{}",
        commentary.ending(&game, &record, |forfeit| Evidence::of_forfeit(forfeit).render("  "))
    );
    Ok(record)
}
