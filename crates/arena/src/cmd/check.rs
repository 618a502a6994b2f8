//! `arena check CMD`: a conformance test for bot authors.
//!
//! It starts the bot, pings it, and plays it against the built-in
//! `first-free` bot through every situation the protocol has: both seats,
//! the pie decision from both sides, block placement by both colours, boards
//! with one free pair of cells left, and a Fischer clock. Each check prints
//! `ok` with what happened (the colour the bot held after the pie decision,
//! whose points are whose, who won) or `FAIL` with what went wrong in plain
//! words (the referee's failures carry the fix), the offending line and the
//! bot's stderr tail, all escaped ([`crate::forfeit`]). A failure that
//! repeats in several games is shown once, with the games it happened in. A
//! failed bot is started again for the next check, so that one bug does not
//! hide the others. The check ends with the bot's answer times (median and
//! maximum), so that its author knows which time controls are safe.
//!
//! Exit codes: 0 the bot conforms; 2 it does not (a failed greeting
//! included); 1 the bot could not be started at all (no such program, not
//! executable), or the check itself failed.

use std::process::ExitCode;
use std::time::Duration;

use pahtum::Seat;
use pahtum_protocol::untrusted::escape;
use pahtum_protocol::{fischer, move_time};
use pahtum_record::{GameRecord, GameSpec, MoveKind};
use pahtum_referee::{Bot, BotSpec, Limits, StartError, play_game};

use crate::duration::parse_duration;
use crate::forfeit::Evidence;
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
    sandbox: crate::flags::SandboxFlag,
    /// Check the bot as a league checks an entrant: in the sandbox it sees its working directory (the
    /// entrant's snapshot) whole, and no folder that its command names.
    #[arg(long, requires = "sandbox")]
    entrant: bool,
}

/// One game of the check.
struct Scenario {
    title: &'static str,
    seat: Seat,
    spec: GameSpec,
}

/// The built-in bot the checked bot plays against.
const OPPONENT: &str = "first-free";

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    crate::flags::require_sandbox(args.sandbox.sandbox)?;
    let mut bot = args.sandbox.apply(crate::builtin::spec("bot", &args.command)?);
    if let Some(sandbox) = bot.sandbox.as_mut().filter(|_| args.entrant) {
        sandbox.sees_working_dir = true;
        sandbox.named_folders = false;
    }
    crate::flags::note_what_the_sandbox_shows(std::slice::from_ref(&bot));
    let opponent = crate::builtin::spec(OPPONENT, OPPONENT)?;
    outln!("arena check: {}", escape(&args.command));
    if let Some(sandbox) = &bot.sandbox {
        let reads = if args.entrant {
            "its working directory (the entrant's snapshot)"
        } else {
            "the folders of the files its command names (`bot.py`: the folder it is started in)"
        };
        outln!(
            "In the sandbox: no network; it reads only the system and {reads}; /tmp and /dev/shm of {} MiB each; \
             {} MiB of memory; {} processes and threads; {} open files; files of at most {} MiB; no Unix sockets, \
             no namespaces, no risky system calls (SECURITY.md).",
            sandbox.tmp_mb,
            sandbox.memory_mb,
            sandbox.max_processes,
            sandbox.open_files,
            sandbox.file_size_mb
        );
    }
    let failures = crate::runtime::runtime()?.block_on(check(&bot, &opponent, &scenarios(args.move_time)?))?;
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
        Err(error @ StartError::Handshake { .. }) => {
            fail("greeting", &crate::forfeit::start_error(&error, ""));
            return Ok(1);
        }
        Err(error) => return Err(crate::forfeit::explain(error)),
    };
    let identity = bot.identity();
    ok(&format!(
        "greeting: \"{}\" {}, protocol {}",
        escape(&identity.name),
        identity.version.as_deref().map_or("(no version)".into(), escape),
        pahtum_protocol::PROTOCOL_VERSION
    ));
    let mut failures = 0;
    match bot.ping().await {
        Ok(round_trip) => ok(&format!(
            "ping answered in {}",
            millis(round_trip.as_secs_f64() * 1000.0)
        )),
        Err(failure) => {
            failures += 1;
            fail("ping", &Evidence::of_failure(&failure, &[]).render(""));
        }
    }
    let mut opponent = Bot::start(opponent, &limits, None)
        .await
        .map_err(crate::forfeit::explain)?;
    let mut verdicts = Vec::with_capacity(scenarios.len());
    let mut times = Vec::new();
    for scenario in scenarios {
        if !bot.is_reusable() {
            bot.shutdown().await;
            bot = Bot::start(spec, &limits, None).await.map_err(crate::forfeit::explain)?;
        }
        let record = match scenario.seat {
            Seat::First => play_game(&scenario.spec, &mut bot, &mut opponent, &mut |_| {}).await,
            Seat::Second => play_game(&scenario.spec, &mut opponent, &mut bot, &mut |_| {}).await,
        };
        times.extend(answer_times(&record, scenario.seat));
        verdicts.push(verdict(&record, scenario.seat));
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
    failures += report(scenarios, &verdicts);
    report_times(&mut times);
    Ok(failures)
}

/// Prints the verdict of every game, each failure once (with the other games
/// that failed the same way); returns the number of games that failed.
fn report(scenarios: &[Scenario], verdicts: &[Result<String, String>]) -> usize {
    let mut shown = vec![false; verdicts.len()];
    for (index, (scenario, verdict)) in scenarios.iter().zip(verdicts).enumerate() {
        match verdict {
            Ok(summary) => ok(&format!("{}: {summary}", scenario.title)),
            Err(_) if shown[index] => {}
            Err(problem) => {
                let same: Vec<usize> = (index + 1..verdicts.len())
                    .filter(|&other| verdicts[other].as_ref().err().is_some_and(|p| same_failure(p, problem)))
                    .collect();
                let mut text = problem.clone();
                if !same.is_empty() {
                    let titles: Vec<&str> = same.iter().map(|&other| scenarios[other].title).collect();
                    text += &format!(
                        "\nthe same failure in {} more game(s): {}",
                        same.len(),
                        titles.join("; ")
                    );
                }
                same.iter().for_each(|&other| shown[other] = true);
                fail(scenario.title, &text);
            }
        }
    }
    verdicts.iter().filter(|verdict| verdict.is_err()).count()
}

/// Whether two problems are one failure: the same words but for the numbers
/// (request ids, times).
fn same_failure(a: &str, b: &str) -> bool {
    fn words(text: &str) -> impl Iterator<Item = &str> {
        text.split(|c: char| c.is_ascii_digit()).filter(|part| !part.is_empty())
    }
    words(a).eq(words(b))
}

/// The bot's answer times: the median and the maximum.
fn report_times(times: &mut [f64]) {
    if times.is_empty() {
        return;
    }
    times.sort_by(f64::total_cmp);
    outln!(
        "Answer times of the bot: median {}, maximum {} ({} answers); \
         a time control should allow well over the maximum",
        millis(times[times.len() / 2]),
        millis(times[times.len() - 1]),
        times.len()
    );
}

fn millis(ms: f64) -> String {
    format!("{ms:.1} ms")
}

/// The wall times (ms) of the answers of the bot in `seat`: its blocks, its
/// stones and its pie decision.
fn answer_times(record: &GameRecord, seat: Seat) -> impl Iterator<Item = f64> + '_ {
    // Until the first stone has been answered the seats hold their starting
    // colours; after it, the colours after any swap.
    let first_stone = record.moves.iter().position(|m| m.kind == MoveKind::Stone);
    let moves = record.moves.iter().enumerate().filter_map(move |(index, m)| {
        let color = if first_stone.is_some_and(|first| index > first) {
            record.color_of(seat)
        } else {
            seat.starting_color()
        };
        (m.color == color).then_some(m.timing.ms)
    });
    let pie = record
        .swap_move
        .as_ref()
        .filter(|_| seat == Seat::Second)
        .map(|timing| timing.ms);
    moves.chain(pie)
}

/// What the bot did in one game: a summary, or the problem in words.
fn verdict(record: &GameRecord, seat: Seat) -> Result<String, String> {
    record
        .replay()
        .map_err(|e| format!("the referee's record does not replay ({e}); please report this"))?;
    let mut forfeits = record.termination.forfeits();
    if let Some((reason, forfeit)) = forfeits.find(|(_, forfeit)| forfeit.seat == seat) {
        return Err(format!("{reason}: {}", Evidence::of_forfeit(forfeit).render("")));
    }
    if let Some((reason, forfeit)) = record.termination.forfeits().next() {
        return Err(format!(
            "the game ended unexpectedly, by a {reason} of the opponent: {}",
            Evidence::of_forfeit(forfeit).render("")
        ));
    }
    let color = record.color_of(seat);
    let pie = match (record.swap, seat) {
        (None, _) => String::new(),
        (Some(swap), Seat::Second) => format!("the bot {} the colours, so ", if swap { "swapped" } else { "kept" }),
        (Some(swap), Seat::First) => format!("{OPPONENT} {} the colours, so ", if swap { "swapped" } else { "kept" }),
    };
    let result = match record.points_of(seat) {
        1.0 => "the bot won",
        0.0 => "the bot lost",
        _ => "a draw",
    };
    Ok(format!(
        "{} moves against {OPPONENT}; {pie}the bot played {color}; the bot {} points, {OPPONENT} {}: {result}",
        record.moves.len(),
        record.score.of_color(color),
        record.score.of_color(color.opponent()),
    ))
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
