//! The conformance suite: what `arena check` runs on a bot, and a league on
//! an entrant before it joins.
//!
//! It lives in the library, not in the command line, so that the two share
//! one suite and a league reads its result as data (which checks failed)
//! rather than a child process's exit code; the command line only parses
//! its flags, calls [`run`] and prints the [`Report`].
//!
//! [`run`] starts the bot, pings it, and plays it against an opponent (the
//! built-in `first-free`, whose launch spec the caller gives: this crate
//! links no built-in bot) through every situation the protocol has: both
//! seats, the pie decision from both sides, block placement by both colours,
//! boards with one free pair of cells left, and a Fischer clock. Each
//! [`Check`] says what happened (the colour the bot held after the pie
//! decision, whose points are whose, who won) or what went wrong in plain
//! words (the referee's failures carry the fix), the offending line and the
//! bot's stderr tail, all escaped ([`crate::evidence`]). A failure that
//! repeats in several games is one check, with the games it happened in. A
//! failed bot is started again for the next game, so that one bug does not
//! hide the others. The report ends with the bot's answer times (median and
//! maximum), so that its author knows which time controls are safe; its
//! [`Display`](fmt::Display) is the text `arena check` prints.

use std::fmt;
use std::time::Duration;

use pahtum::{Seat, SetupError};
use pahtum_protocol::untrusted::escape;
use pahtum_protocol::{fischer, move_time};
use pahtum_record::{GameRecord, GameSpec, MoveKind};
use pahtum_referee::{Bot, BotSpec, Limits, Sandbox, StartError, play_game};

use crate::evidence::{Evidence, start_error};

/// The limit per answer in the suite's games unless the caller asks for
/// another: generous, as the suite is not a speed test.
pub const MOVE_TIME: Duration = Duration::from_secs(5);

/// Why the suite could not run to its end (a bot that fails a check is no
/// such error: its failure is in the [`Report`]).
#[derive(Debug, thiserror::Error)]
pub enum ConformanceError {
    /// The suite's games could not be set up.
    #[error("the check's games cannot be set up")]
    Scenario(#[source] SetupError),
    /// The bot (its program could not be started, or a restart failed) or the opponent could not start.
    #[error(transparent)]
    Start(Box<StartError>),
    /// The opponent failed in a game, which says nothing of the bot.
    #[error("the built-in opponent failed in {scenario}: {termination}")]
    OpponentFailed {
        /// The game's title.
        scenario: String,
        /// How the game ended, as the record says.
        termination: String,
    },
}

/// One game of the suite.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// What it checks, in words.
    pub title: &'static str,
    /// The bot's seat.
    pub seat: Seat,
    /// The game.
    pub spec: GameSpec,
}

/// What a check is about; it decides how its line reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The bot's `hello`.
    Greeting,
    /// The answer to a `ping`.
    Ping,
    /// One game against the opponent.
    Game,
}

/// One check of the suite and its verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// What it is about.
    pub kind: Kind,
    /// Its title: `greeting`, `ping` or the game's [`Scenario::title`].
    pub title: String,
    /// Passed, with what happened, or failed, with the problem.
    pub verdict: Verdict,
}

/// The verdict of one check.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Passed: what happened, in words.
    Ok(String),
    /// Failed.
    Failed(Problem),
}

/// What went wrong in a check, escaped.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// What went wrong, in one line.
    pub what: String,
    /// The evidence, a line each: the offending line, the bot's stderr tail, what the sandbox may have to
    /// do with it.
    pub evidence: Vec<String>,
    /// The titles of the later games that failed the same way (shown once, in this check).
    pub same_in: Vec<String>,
}

/// The bot's answer times over the suite's games, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnswerTimes {
    /// The median.
    pub median_ms: f64,
    /// The longest.
    pub max_ms: f64,
    /// How many answers were timed.
    pub answers: usize,
}

/// The suite's result: every check in order, and the answer times.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The checks, in order; a failed greeting is the only one (nothing else can be checked).
    pub checks: Vec<Check>,
    /// The bot's answer times; `None` when it answered nothing in a game.
    pub times: Option<AnswerTimes>,
}

impl Report {
    /// The number of checks that failed, each game of a repeated failure counted.
    pub fn failures(&self) -> usize {
        self.checks
            .iter()
            .map(|check| match &check.verdict {
                Verdict::Ok(_) => 0,
                Verdict::Failed(problem) => 1 + problem.same_in.len(),
            })
            .sum()
    }

    /// Whether the bot conforms to the protocol: no check failed.
    pub fn conforms(&self) -> bool {
        self.failures() == 0
    }

    /// The titles of the checks that failed, each game of a repeated failure named.
    pub fn failed(&self) -> Vec<&str> {
        let mut titles = Vec::new();
        for check in &self.checks {
            if let Verdict::Failed(problem) = &check.verdict {
                titles.push(check.title.as_str());
                titles.extend(problem.same_in.iter().map(String::as_str));
            }
        }
        titles
    }
}

/// The text `arena check` prints: a line `ok` or `FAIL` per check (a failure's problem and evidence on
/// indented lines below it), the answer times, and whether the bot conforms.
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for check in &self.checks {
            match (&check.verdict, check.kind) {
                (Verdict::Ok(what), Kind::Ping) => writeln!(f, "  ok    {} {what}", check.title)?,
                (Verdict::Ok(what), _) => writeln!(f, "  ok    {}: {what}", check.title)?,
                (Verdict::Failed(problem), _) => {
                    writeln!(f, "  FAIL  {}", check.title)?;
                    for line in std::iter::once(&problem.what).chain(&problem.evidence) {
                        writeln!(f, "        {line}")?;
                    }
                    if !problem.same_in.is_empty() {
                        writeln!(
                            f,
                            "        the same failure in {} more game(s): {}",
                            problem.same_in.len(),
                            problem.same_in.join("; ")
                        )?;
                    }
                }
            }
        }
        if let Some(times) = &self.times {
            writeln!(
                f,
                "Answer times of the bot: median {}, maximum {} ({} answers); \
                 a time control should allow well over the maximum",
                millis(times.median_ms),
                millis(times.max_ms),
                times.answers
            )?;
        }
        match self.failures() {
            0 => writeln!(f, "The bot conforms to the protocol."),
            failures => writeln!(f, "The bot does not conform: {failures} check(s) failed (see above)."),
        }
    }
}

/// The lines before a report: the command checked and, for a bot in the sandbox, what the sandbox lets it
/// do; `entrant` when it is checked as a league's entrant (it reads its working directory, the entrant's
/// snapshot, not the folders its command names).
pub fn header(command: &str, sandbox: Option<&Sandbox>, entrant: bool) -> String {
    let mut text = format!("arena check: {}\n", escape(command));
    if let Some(sandbox) = sandbox {
        let reads = if entrant {
            "its working directory (the entrant's snapshot)"
        } else {
            "the folders of the files its command names (`bot.py`: the folder it is started in)"
        };
        text += &format!(
            "In the sandbox: no network; it reads only the system and {reads}; /tmp and /dev/shm of {} MiB each; \
             {} MiB of memory; {} processes and threads; {} open files; files of at most {} MiB; no Unix sockets, \
             no namespaces, no risky system calls (SECURITY.md).\n",
            sandbox.tmp_mb, sandbox.memory_mb, sandbox.max_processes, sandbox.open_files, sandbox.file_size_mb
        );
    }
    text
}

/// `bot` as a league checks an entrant: in the sandbox it sees its working directory (the entrant's
/// snapshot) whole, and no folder that its command names.
pub fn as_entrant(bot: &mut BotSpec) {
    if let Some(sandbox) = bot.sandbox.as_mut() {
        sandbox.sees_working_dir = true;
        sandbox.named_folders = false;
    }
}

/// The suite's games, each answer limited to `limit`.
pub fn scenarios(limit: Duration) -> Result<Vec<Scenario>, SetupError> {
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

/// Runs the suite on `bot` against `opponent`, each answer limited to `move_time`: its greeting, a ping
/// and every [`scenarios`] game. A bot that fails a check is in the report; an error is a suite that
/// could not run (a bot that could not be started at all, an opponent that failed).
pub async fn run(bot: &BotSpec, opponent: &BotSpec, move_time: Duration) -> Result<Report, ConformanceError> {
    let scenarios = scenarios(move_time).map_err(ConformanceError::Scenario)?;
    let start_failed = |error| ConformanceError::Start(Box::new(error));
    let limits = Limits::default();
    let mut checks = Vec::new();
    let mut process = match Bot::start(bot, &limits, None).await {
        Ok(process) => process,
        Err(error @ StartError::Handshake { .. }) => {
            checks.push(Check::failed(Kind::Greeting, "greeting", &start_error(&error, "")));
            return Ok(Report { checks, times: None });
        }
        Err(error) => return Err(start_failed(error)),
    };
    let identity = process.identity();
    checks.push(Check::ok(
        Kind::Greeting,
        "greeting",
        format!(
            "\"{}\" {}, protocol {}",
            escape(&identity.name),
            identity.version.as_deref().map_or("(no version)".into(), escape),
            pahtum_protocol::PROTOCOL_VERSION
        ),
    ));
    checks.push(match process.ping().await {
        Ok(round_trip) => Check::ok(
            Kind::Ping,
            "ping",
            format!("answered in {}", millis(round_trip.as_secs_f64() * 1000.0)),
        ),
        Err(failure) => Check::failed(Kind::Ping, "ping", &Evidence::of_failure(&failure, &[]).render("")),
    });
    let mut opponent_process = Bot::start(opponent, &limits, None).await.map_err(start_failed)?;
    let mut verdicts = Vec::with_capacity(scenarios.len());
    let mut times = Vec::new();
    for scenario in &scenarios {
        if !process.is_reusable() {
            process.shutdown().await;
            process = Bot::start(bot, &limits, None).await.map_err(start_failed)?;
        }
        let record = match scenario.seat {
            Seat::First => play_game(&scenario.spec, &mut process, &mut opponent_process, &mut |_| {}).await,
            Seat::Second => play_game(&scenario.spec, &mut opponent_process, &mut process, &mut |_| {}).await,
        };
        times.extend(answer_times(&record, scenario.seat));
        verdicts.push(verdict(&record, scenario.seat, &escape(&opponent.name)));
        if !opponent_process.is_reusable() {
            return Err(ConformanceError::OpponentFailed {
                scenario: scenario.title.to_owned(),
                termination: format!("{:?}", record.termination),
            });
        }
    }
    process.shutdown().await;
    opponent_process.shutdown().await;
    checks.extend(game_checks(&scenarios, &verdicts));
    Ok(Report {
        checks,
        times: answer_summary(&mut times),
    })
}

impl Check {
    fn ok(kind: Kind, title: &str, what: String) -> Check {
        Check {
            kind,
            title: title.to_owned(),
            verdict: Verdict::Ok(what),
        }
    }

    /// A failed check whose problem is `text`: its first line what went wrong, the others the evidence.
    fn failed(kind: Kind, title: &str, text: &str) -> Check {
        let mut lines = text.lines().map(str::to_owned);
        Check {
            kind,
            title: title.to_owned(),
            verdict: Verdict::Failed(Problem {
                what: lines.next().unwrap_or_default(),
                evidence: lines.collect(),
                same_in: Vec::new(),
            }),
        }
    }
}

/// The check of every game, each failure once (with the other games that failed the same way).
fn game_checks(scenarios: &[Scenario], verdicts: &[Result<String, String>]) -> Vec<Check> {
    let mut shown = vec![false; verdicts.len()];
    let mut checks = Vec::new();
    for (index, (scenario, verdict)) in scenarios.iter().zip(verdicts).enumerate() {
        match verdict {
            Ok(summary) => checks.push(Check::ok(Kind::Game, scenario.title, summary.clone())),
            Err(_) if shown[index] => {}
            Err(problem) => {
                let same: Vec<usize> = (index + 1..verdicts.len())
                    .filter(|&other| verdicts[other].as_ref().err().is_some_and(|p| same_failure(p, problem)))
                    .collect();
                same.iter().for_each(|&other| shown[other] = true);
                let mut check = Check::failed(Kind::Game, scenario.title, problem);
                if let Verdict::Failed(problem) = &mut check.verdict {
                    problem.same_in = same.iter().map(|&other| scenarios[other].title.to_owned()).collect();
                }
                checks.push(check);
            }
        }
    }
    checks
}

/// Whether two problems are one failure: the same words but for the numbers
/// (request ids, times).
fn same_failure(a: &str, b: &str) -> bool {
    fn words(text: &str) -> impl Iterator<Item = &str> {
        text.split(|c: char| c.is_ascii_digit()).filter(|part| !part.is_empty())
    }
    words(a).eq(words(b))
}

/// The median and the maximum of the answer times `times`; `None` for none.
fn answer_summary(times: &mut [f64]) -> Option<AnswerTimes> {
    if times.is_empty() {
        return None;
    }
    times.sort_by(f64::total_cmp);
    Some(AnswerTimes {
        median_ms: times[times.len() / 2],
        max_ms: times[times.len() - 1],
        answers: times.len(),
    })
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

/// What the bot did in one game against `opponent`: a summary, or the problem in words.
fn verdict(record: &GameRecord, seat: Seat, opponent: &str) -> Result<String, String> {
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
        (Some(swap), Seat::First) => format!("{opponent} {} the colours, so ", if swap { "swapped" } else { "kept" }),
    };
    let result = match record.points_of(seat) {
        1.0 => "the bot won",
        0.0 => "the bot lost",
        _ => "a draw",
    };
    Ok(format!(
        "{} moves against {opponent}; {pie}the bot played {color}; the bot {} points, {opponent} {}: {result}",
        record.moves.len(),
        record.score.of_color(color),
        record.score.of_color(color.opponent()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bundled Python bot that plays a random legal move, under `name`: an opponent (this crate links
    /// no built-in bot) and a bot that conforms.
    fn python_random(name: &str) -> BotSpec {
        let bot = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bots/python-random/bot.py");
        BotSpec {
            args: vec![bot.to_owned()],
            ..BotSpec::from_command(name, "python3").unwrap()
        }
    }

    fn shell(script: &str) -> BotSpec {
        BotSpec {
            program: "sh".to_owned(),
            args: vec!["-c".to_owned(), script.to_owned()],
            ..BotSpec::from_command("bot", "sh").unwrap()
        }
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    /// A bot that prints a line that is not JSON fails its greeting: the report says so as data (the
    /// greeting is the one check, it failed, the offending line is its evidence) and in today's words.
    #[test]
    fn a_failed_greeting_is_the_one_failing_check_with_its_evidence() {
        let opponent = shell("exit 1");
        let report = runtime()
            .block_on(run(&shell("echo hello; cat"), &opponent, MOVE_TIME))
            .unwrap();
        assert_eq!(report.failed(), ["greeting"]);
        assert_eq!(report.failures(), 1);
        assert!(!report.conforms());
        assert!(report.times.is_none());
        let Verdict::Failed(problem) = &report.checks[0].verdict else {
            panic!("{report:?}");
        };
        assert_eq!(report.checks[0].kind, Kind::Greeting);
        assert!(
            problem
                .what
                .starts_with("bot \"bot\" failed its greeting: protocol_error: ")
                && problem.what.contains("not JSON"),
            "{problem:?}"
        );
        assert_eq!(problem.evidence, ["the line: hello"]);
        let text = report.to_string();
        assert!(
            text.starts_with("  FAIL  greeting\n        bot \"bot\" failed its greeting: ")
                && text
                    .ends_with("        the line: hello\nThe bot does not conform: 1 check(s) failed (see above).\n"),
            "{text}"
        );
    }

    /// A program that cannot be started is no failed check but an error: the suite could not run.
    #[test]
    fn a_bot_that_cannot_start_is_an_error() {
        let missing = BotSpec::from_command("bot", "./no-such-bot-here").unwrap();
        let error = runtime()
            .block_on(run(&missing, &shell("exit 1"), MOVE_TIME))
            .unwrap_err();
        assert!(matches!(error, ConformanceError::Start(_)), "{error:?}");
    }

    /// A bot that greets, then answers every request with nonsense fails the ping and every game: the
    /// games' failures are one check naming the seven other games, and the count says nine.
    #[test]
    fn a_failure_of_every_game_is_one_check_naming_the_others() {
        let opponent = python_random("random");
        let bot =
            shell(r#"read l; echo '{"type":"hello","protocol":1,"name":"x"}'; while read l; do echo nonsense; done"#);
        let report = runtime().block_on(run(&bot, &opponent, MOVE_TIME)).unwrap();
        let titles: Vec<&str> = report.checks.iter().map(|check| check.title.as_str()).collect();
        assert_eq!(titles, ["greeting", "ping", scenarios(MOVE_TIME).unwrap()[0].title]);
        assert_eq!(report.failures(), 9);
        let failed = report.failed();
        assert_eq!(failed.len(), 9);
        assert_eq!(
            failed[..2],
            ["ping", "a game as White, pie rule on (the opponent decides)"]
        );
        assert!(failed.contains(&"a Fischer clock (10 s + 100 ms)"));
        let Verdict::Failed(problem) = &report.checks[2].verdict else {
            panic!("{report:?}");
        };
        assert_eq!(problem.same_in.len(), 7);
        assert_eq!(problem.evidence, ["the line: nonsense"]);
        assert!(
            report
                .to_string()
                .contains("the same failure in 7 more game(s): a game as Black")
        );
    }

    /// A bot that conforms passes every check: the greeting, the ping and each game, in the scenarios'
    /// order, each saying what happened against the opponent (by its name), and the answer times.
    #[test]
    fn a_conforming_bot_passes_every_check_in_order() {
        let report = runtime()
            .block_on(run(&python_random("bot"), &python_random("random"), MOVE_TIME))
            .unwrap();
        assert!(report.conforms() && report.failed().is_empty(), "{report}");
        let titles: Vec<&str> = report.checks.iter().map(|check| check.title.as_str()).collect();
        let games: Vec<&str> = scenarios(MOVE_TIME).unwrap().iter().map(|game| game.title).collect();
        assert_eq!(titles[..2], ["greeting", "ping"]);
        assert_eq!(titles[2..], games);
        for check in &report.checks[2..] {
            let Verdict::Ok(what) = &check.verdict else {
                panic!("{report}");
            };
            assert!(what.contains(" moves against random; "), "{what}");
        }
        assert!(
            report
                .times
                .is_some_and(|times| times.answers > 0 && times.median_ms <= times.max_ms)
        );
        let text = report.to_string();
        assert!(
            text.starts_with("  ok    greeting: \"python-random\" 1.0, protocol 1\n  ok    ping answered in "),
            "{text}"
        );
        assert!(
            text.ends_with("a time control should allow well over the maximum\nThe bot conforms to the protocol.\n"),
            "{text}"
        );
    }

    /// The grouping of failures: numbers aside, the same words are one failure.
    #[test]
    fn failures_that_differ_only_in_numbers_are_one() {
        assert!(same_failure(
            "timeout: took 5012 ms (id 3)",
            "timeout: took 6000 ms (id 14)"
        ));
        assert!(!same_failure("timeout: took 5012 ms", "illegal_move: took 5012 ms"));
    }

    /// The header says what the sandbox lets the bot read, as a bot or as a league's entrant.
    #[test]
    fn the_header_names_the_command_and_what_the_sandbox_shows() {
        assert_eq!(header("python3 bot.py", None, false), "arena check: python3 bot.py\n");
        let sandbox = Sandbox::default();
        let bot = header("first-free", Some(&sandbox), false);
        assert!(bot.contains("the folders of the files its command names"), "{bot}");
        let entrant = header("first-free", Some(&sandbox), true);
        assert!(
            entrant.contains("its working directory (the entrant's snapshot)"),
            "{entrant}"
        );
        assert_eq!(entrant.lines().count(), 2);
    }
}
