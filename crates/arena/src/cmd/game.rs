//! `arena game`: one game between two bots (pahtum-runner's `one_game`), the
//! final board and scores on the terminal (pahtum-report's `game_summary`),
//! and the record as JSON.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use pahtum_record::GameSpec;
use pahtum_report::game_summary::summary;
use pahtum_runner::one_game::OneGame;

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
    let game = OneGame::open(args.logs.as_deref())?;
    let [white, black] = args.names.names([&args.white, &args.black], ["white", "black"])?;
    crate::flags::require_sandbox(args.sandbox.sandbox)?;
    crate::flags::warn_of_signal_pausing(args.pause_idle);
    // A sandboxed bot sees neither the logs nor the other bot's folders.
    let specs = vec![
        pahtum_builtin::spec(&white, &args.white)?,
        pahtum_builtin::spec(&black, &args.black)?,
    ];
    let specs = args.sandbox.apply_to_all(specs, args.logs.as_deref());
    crate::flags::note_what_the_sandbox_shows(&specs);
    let bots = <[_; 2]>::try_from(specs).expect("two bots");
    let record = game.play(&spec, bots)?;
    let summary = summary(&record, |forfeit| Evidence::of_forfeit(forfeit).render("  "))?;
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
