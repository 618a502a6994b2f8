//! `arena game`: one game between two bots, the final board and scores on
//! the terminal, and the record as JSON.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use pahtum::Color;
use pahtum_protocol::untrusted::escape;
use pahtum_record::{GameRecord, GameSpec};
use pahtum_referee::{Bot, Limits, play_game};

use crate::duration::TimeFlags;
use crate::forfeit::Evidence;
use crate::names::NamesFlag;
use crate::output::{err, out, outln};

/// Play one game between two bots.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "Examples:
  arena game --white heuristic --black \"python3 bots/python-random/bot.py\"
  arena game --white engine --black heuristic --clock 10s+100ms --seed 7 --out game.json
  arena game --white \"engine --level 3\" --black heuristic --placed-blocks 5 --no-pie --json
  arena game --white engine --black \"python3 mybot.py\" --seed 7 --moves \"c6,keep,d3\"
  arena game --white engine --black \"python3 mybot.py\" --from runs/t --game 003-01-b --ply 23

Starting from a position: --moves gives the plies so far (the layout and rules from --blocks or
--placed-blocks, --seed and --no-pie); --from FILE --game ID --ply N takes the layout, the rules and the
plies 1 to N-1 of a recorded game, so that the bots play ply N again (--game is not needed for a single
record). Either way the rules check every ply, the bots see them in their requests' moves and are not
asked for them (the pie decision included), and the record says where the game started (its opening).
--white and --black decide who plays, whoever played the recorded game; with --from the time control is
the record's unless --move-time, --clock or --clock-kind is given.")]
pub struct Args {
    /// The bot that starts as White: a command ("python3 bots/python-random/bot.py") or a built-in name.
    #[arg(long, value_name = "CMD")]
    white: String,
    /// The bot that starts as Black.
    #[arg(long, value_name = "CMD")]
    black: String,
    /// Random blocks, drawn from the seed (an odd number).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 7,
        value_parser = crate::flags::parse_block_count,
        conflicts_with = "placed_blocks"
    )]
    blocks: usize,
    /// The players place N blocks instead, Black first and last.
    #[arg(long, value_name = "N", value_parser = crate::flags::parse_block_count)]
    placed_blocks: Option<usize>,
    #[command(flatten)]
    names: NamesFlag,
    #[command(flatten)]
    pie: crate::flags::PieFlag,
    #[command(flatten)]
    time: TimeFlags,
    /// Fair mode: pause (freeze) the bot that is not to move, so that it cannot use its opponent's CPU.
    #[arg(long)]
    pause_idle: bool,
    #[command(flatten)]
    sandbox: crate::flags::SandboxFlag,
    /// The seed of the random blocks [default: from the clock].
    #[arg(long, conflicts_with = "from")]
    seed: Option<u64>,
    #[command(flatten)]
    opening: crate::opening::OpeningFlags,
    /// Write the record as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write the game's page (the HTML replay viewer) to FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Write the record as JSON to stdout (the board then goes to stderr).
    #[arg(long)]
    json: bool,
    /// Append each bot's stderr to DIR/white.log and DIR/black.log.
    #[arg(long, value_name = "DIR")]
    logs: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let spec = game_spec(&args)?;
    // One game on one thread: the referee reads each answer on the thread
    // that waits for it (a multi-thread runtime's block_on would add a thread
    // wake-up to every answer; see the pahtum-referee docs).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let record = runtime.block_on(play(&args, &spec))?;
    let summary = summary(&record)?;
    if args.json {
        err!("{summary}");
        outln!("{}", serde_json::to_string_pretty(&record)?);
    } else {
        out!("{summary}");
    }
    if let Some(out) = &args.out {
        let json = serde_json::to_string_pretty(&record)? + "\n";
        std::fs::write(out, json).with_context(|| format!("cannot write the record to {}", out.display()))?;
    }
    if let Some(html) = &args.html {
        pahtum_report::run_report::write_game_page(html, &record, None)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn game_spec(args: &Args) -> anyhow::Result<GameSpec> {
    let [time, black_time] = args.time.time_controls()?;
    let spec = match args.placed_blocks {
        Some(count) => GameSpec::placed("game", count, args.pie.pie(), time)?,
        None => {
            let seed = args
                .seed
                .unwrap_or_else(|| pahtum_record::since_the_epoch().as_nanos() as u64);
            GameSpec::random("game", args.blocks, seed, args.pie.pie(), time)?
        }
    };
    let fresh = GameSpec {
        pause_idle: args.pause_idle,
        ..spec
    }
    .with_seat_times(time, black_time);
    args.opening.spec(fresh, args.time.given())
}

async fn play(args: &Args, spec: &GameSpec) -> anyhow::Result<GameRecord> {
    let limits = Limits::default();
    let log = |color: &str| args.logs.as_ref().map(|dir| dir.join(format!("{color}.log")));
    if let Some(dir) = &args.logs {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let (white_log, black_log) = (log("white"), log("black"));
    let [white_name, black_name] = args.names.names([&args.white, &args.black], ["white", "black"])?;
    crate::flags::require_sandbox(args.sandbox.sandbox)?;
    crate::flags::warn_of_signal_pausing(args.pause_idle);
    // A sandboxed bot sees neither the logs nor the other bot's folders.
    let specs = vec![
        pahtum_builtin::spec(&white_name, &args.white)?,
        pahtum_builtin::spec(&black_name, &args.black)?,
    ];
    let specs = args.sandbox.apply_to_all(specs, args.logs.as_deref());
    crate::flags::note_what_the_sandbox_shows(&specs);
    let [white, black] = <[_; 2]>::try_from(specs).expect("two bots");
    let (white, black) = tokio::join!(
        Bot::start(&white, &limits, white_log.as_deref()),
        Bot::start(&black, &limits, black_log.as_deref())
    );
    let (mut white, mut black) = match (white, black) {
        (Ok(white), Ok(black)) => (white, black),
        (Err(error), other) => {
            if let Ok(bot) = other {
                bot.shutdown().await;
            }
            return Err(crate::forfeit::explain(error));
        }
        (Ok(bot), Err(error)) => {
            bot.shutdown().await;
            return Err(crate::forfeit::explain(error));
        }
    };
    let record = play_game(spec, &mut white, &mut black, &mut |_| {}).await;
    tokio::join!(white.shutdown(), black.shutdown());
    Ok(record)
}

/// The board, the score and how the game ended, for the terminal.
fn summary(record: &GameRecord) -> anyhow::Result<String> {
    let game = record
        .replay()
        .context("the referee produced a record that does not replay")?;
    let name = |color: Color| match color {
        Color::White => &record.white,
        Color::Black => &record.black,
    };
    let last = record.moves.last().map(|played| played.cell);
    let labels = [
        format!("White {}", escape(&record.white)),
        format!("Black {}", escape(&record.black)),
    ];
    let mut text = pahtum_report::board::board(game.position(), last);
    text += &pahtum_report::board::runs(game.position(), [&labels[0], &labels[1]]);
    if let Some(opening) = &record.opening {
        text += &format!("Started at ply {}", opening.plies + 1);
        if let Some(from) = &opening.from {
            text += &format!(" of game {} in {}", escape(&from.game), escape(&from.file));
        }
        text += ": the plies before it were given.\n";
    }
    if let Some(swap) = record.swap {
        text += if swap {
            "Black swapped after the first stone.\n"
        } else {
            "Black kept the colours.\n"
        };
    }
    text += &match record.result.winner() {
        Some(color) => format!("Result: {} ({color}) wins", escape(name(color))),
        None => "Result: a draw".to_owned(),
    };
    if record.termination.forfeit.is_none() {
        text += ".\n";
    }
    for (index, (reason, forfeit)) in record.termination.forfeits().enumerate() {
        let by = if index == 0 { "" } else { "and" };
        text += &format!(
            "{by} by {reason} of {}: {}\n",
            escape(&forfeit.bot),
            Evidence::of_forfeit(forfeit).render("  ")
        );
    }
    Ok(text)
}
