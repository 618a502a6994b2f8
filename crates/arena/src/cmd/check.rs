//! `arena check CMD`: a conformance test for bot authors.
//!
//! It starts the bot, pings it, and plays it against the built-in
//! `first-free` bot through every situation the protocol has: both seats,
//! the pie decision from both sides, block placement by both colours, boards
//! with one free pair of cells left, and a Fischer clock. Each check prints
//! `ok` or `FAIL` with what went wrong in plain words (the referee's
//! failures carry the fix), the offending line and the bot's stderr tail. A
//! failed bot is started again for the next check, so that one bug does not
//! hide the others.

use std::process::ExitCode;
use std::time::Duration;

use pahtum::Seat;
use pahtum_protocol::Reason;
use pahtum_record::GameRecord;
use pahtum_referee::{Bot, BotSpec, GameSpec, Limits, fischer, move_time, play_game};

use crate::duration::parse_duration;
use crate::output::outln;

/// Check that a bot speaks the protocol correctly.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "Examples:
  arena check \"python3 my_bot.py\"
  arena check \"./target/release/my-bot --quiet\" --move-time 1s")]
pub struct Args {
    /// The bot: a command ("python3 bot.py") or a built-in name.
    #[arg(value_name = "CMD")]
    command: String,
    /// The limit per answer in the check's games (generous: this is not a speed test).
    #[arg(long, value_name = "TIME", value_parser = parse_duration, default_value = "5s")]
    move_time: Duration,
    /// Check the bot inside the sandbox, as a tournament with `sandbox = true` runs it.
    #[command(flatten)]
    sandbox: super::SandboxFlag,
}

/// What to look at when a bot does not start in the sandbox.
const SANDBOX_HINT: &str = "        In the sandbox the bot sees only the system's folders (/usr) and its own folder, read-only, \
     with no network, and runs as `nobody` when arena runs as root: use the system's interpreter \
     (/usr/bin/python3, not one under a home folder) or name more folders in `ro_paths`; see SECURITY.md.";

/// One game of the check.
struct Scenario {
    title: &'static str,
    seat: Seat,
    spec: GameSpec,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    super::require_sandbox(args.sandbox.sandbox)?;
    let bot = args.sandbox.apply(crate::builtin::spec("bot", &args.command)?);
    let opponent = crate::builtin::spec("first-free", "first-free")?;
    outln!("arena check: {}", args.command);
    if let Some(sandbox) = &bot.sandbox {
        outln!(
            "In the sandbox: no network; it reads only the system and its own folder; /tmp of {} MiB; {} MiB of \
             memory; {} processes and threads.",
            sandbox.tmp_mb,
            sandbox.memory_mb,
            sandbox.max_processes
        );
    }
    let failures = super::runtime()?.block_on(check(&bot, &opponent, &scenarios(args.move_time)?))?;
    if failures == 0 {
        outln!("The bot conforms to the protocol.");
        Ok(ExitCode::SUCCESS)
    } else {
        outln!("The bot does not conform: {failures} check(s) failed (see above).");
        Ok(ExitCode::from(crate::exit::NOT_CONFORMING))
    }
}

fn scenarios(limit: Duration) -> anyhow::Result<Vec<Scenario>> {
    let time = move_time(limit);
    let scenario = |title, seat, spec| Scenario { title, seat, spec };
    Ok(vec![
        scenario(
            "a game as White, pie rule on (the opponent decides)",
            Seat::First,
            GameSpec::random("check-white-pie", 7, 1, true, time)?,
        ),
        scenario(
            "a game as Black, pie rule on (the bot decides)",
            Seat::Second,
            GameSpec::random("check-black-pie", 7, 2, true, time)?,
        ),
        scenario(
            "a game as Black without the pie rule",
            Seat::Second,
            GameSpec::random("check-black", 9, 3, false, time)?,
        ),
        scenario(
            "placing blocks as Black (the first and the last)",
            Seat::Second,
            GameSpec::placed("check-place-black", 7, false, time)?,
        ),
        scenario(
            "placing blocks as White, pie rule on",
            Seat::First,
            GameSpec::placed("check-place-white", 7, true, time)?,
        ),
        scenario(
            "a near-full board (47 blocks) as White",
            Seat::First,
            GameSpec::random("check-full-white", 47, 4, true, time)?,
        ),
        scenario(
            "a near-full board (47 blocks) as Black",
            Seat::Second,
            GameSpec::random("check-full-black", 47, 5, false, time)?,
        ),
        scenario(
            "a Fischer clock (10 s + 100 ms)",
            Seat::Second,
            GameSpec::random(
                "check-fischer",
                5,
                6,
                false,
                fischer(Duration::from_secs(10), Duration::from_millis(100)),
            )?,
        ),
    ])
}

/// Runs every check; returns the number that failed.
async fn check(spec: &BotSpec, opponent: &BotSpec, scenarios: &[Scenario]) -> anyhow::Result<usize> {
    let limits = Limits::default();
    let mut bot = match Bot::start(spec, &limits, None).await {
        Ok(bot) => bot,
        Err(error) => {
            fail("greeting", &super::explain(error).to_string());
            if spec.sandbox.is_some() {
                outln!("{SANDBOX_HINT}");
            }
            return Ok(1);
        }
    };
    let identity = bot.identity();
    ok(&format!(
        "greeting: {:?} {}, protocol {}",
        identity.name,
        identity.version.as_deref().unwrap_or("(no version)"),
        pahtum_protocol::PROTOCOL_VERSION
    ));
    let mut failures = 0;
    match bot.ping().await {
        Ok(round_trip) => ok(&format!("ping answered in {:.1} ms", round_trip.as_secs_f64() * 1000.0)),
        Err(failure) => {
            failures += 1;
            fail("ping", &failure.to_string());
        }
    }
    let mut opponent = Bot::start(opponent, &limits, None).await.map_err(super::explain)?;
    for scenario in scenarios {
        if !bot.is_reusable() {
            bot.shutdown().await;
            bot = Bot::start(spec, &limits, None).await.map_err(super::explain)?;
        }
        let record = match scenario.seat {
            Seat::First => play_game(&scenario.spec, &mut bot, &mut opponent, &mut |_| {}).await,
            Seat::Second => play_game(&scenario.spec, &mut opponent, &mut bot, &mut |_| {}).await,
        };
        match verdict(&record, scenario.seat) {
            Ok(summary) => ok(&format!("{}: {summary}", scenario.title)),
            Err(problem) => {
                failures += 1;
                fail(scenario.title, &problem);
            }
        }
        if !opponent.is_reusable() {
            anyhow::bail!(
                "the built-in opponent failed in {}: {:?}",
                scenario.title,
                record.termination
            );
        }
    }
    bot.shutdown().await;
    opponent.shutdown().await;
    Ok(failures)
}

/// What the bot did in one game: a summary, or the problem in words.
fn verdict(record: &GameRecord, seat: Seat) -> Result<String, String> {
    record
        .replay()
        .map_err(|e| format!("the referee's record does not replay ({e}); please report this"))?;
    if let Some((reason, forfeit)) = record.termination.forfeits().find(|(_, forfeit)| forfeit.seat == seat) {
        let mut problem = format!("{reason}: {}", forfeit.detail);
        if let Some(line) = &forfeit.line {
            problem += &format!("\nthe line: {line}");
        }
        for line in &forfeit.stderr_tail {
            problem += &format!("\nstderr: {line}");
        }
        return Err(problem);
    }
    match (&record.termination.forfeit, record.termination.reason) {
        (None, Reason::Normal) => Ok(format!(
            "{} moves, {} to {}",
            record.moves.len(),
            record.score.white,
            record.score.black
        )),
        (forfeit, reason) => Err(format!("the game ended unexpectedly ({reason}): {forfeit:?}")),
    }
}

fn ok(what: &str) {
    outln!("  ok    {what}");
}

fn fail(what: &str, problem: &str) {
    outln!("  FAIL  {what}");
    for line in problem.lines() {
        outln!("        {line}");
    }
}
