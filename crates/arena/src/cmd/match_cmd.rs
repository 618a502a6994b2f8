//! `arena match A B --games N`: a head-to-head between two bots, optionally cut short by an SPRT.
//!
//! A match is a two-bot tournament built from the command line instead of a
//! file: N games are N/2 layout pairs (each layout played twice with the seats
//! swapped), played by pahtum-tournament's runner into a journal in the output
//! folder. So a match resumes like a tournament (the same command again plays
//! what is missing), and `arena standings DIR/journal.jsonl` reads it.
//!
//! With `--sprt elo0,elo1[,alpha,beta]`, a sequential probability ratio test
//! runs on the pentanomial results of the layout pairs (H0: A is at most `elo0`
//! stronger than B; H1: at least `elo1`). As soon as its log-likelihood ratio
//! crosses a bound, no new layout pair starts (the runner asks before each game:
//! [`Observer::may_start`]); the games already running finish and count, and so
//! does the second game of a layout pair already begun.
//!
//! Progress goes to stderr after every game: the score, the Elo difference with
//! its 95% error from the layout pairs, and the LLR with its bounds; one line
//! redrawn on a terminal, a line every few seconds otherwise. At the end the
//! folder holds the journal, the standings with the ratings and the pair table
//! (as after `arena run`) and `match.json` (the games planned and played and the
//! SPRT's verdict); stdout shows the verdict and the standings.

use std::collections::{BTreeMap, HashSet};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail};
use pahtum_record::GameRecord;
use pahtum_referee::Limits;
use pahtum_report::progress::{self, PLAIN_EVERY};
use pahtum_report::render::{Format, render};
use pahtum_stats::{Sprt, SprtOutcome, SprtStatus};
use pahtum_tournament::config::{self, BlockSource, BotConfig, Launch, Restart, RulesConfig, Tournament};
use pahtum_tournament::events::{Event, Observer};
use pahtum_tournament::pool::Pool;
use pahtum_tournament::resume::{Existing, ResumeError, open};
use pahtum_tournament::runner::Ending;
use pahtum_tournament::schedule::ScheduledGame;
use pahtum_tournament::strength::{AnchorSpec, PairStrength, PairTally};
use serde::Serialize;

use crate::duration::TimeFlags;

/// Play a head-to-head match between two bots.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The first bot: a command ("python3 bots/python-random/bot.py") or a built-in name.
    #[arg(value_name = "A")]
    a: String,
    /// The second bot.
    #[arg(value_name = "B")]
    b: String,
    /// Games to play: an even number, as each layout is played twice with the seats swapped.
    #[arg(long, value_name = "N")]
    games: u32,
    /// Stop as soon as a sequential probability ratio test decides between H0 "A is at most ELO0 stronger
    /// than B" and H1 "at least ELO1"; ALPHA and BETA (the two error risks) default to 0.05.
    #[arg(long, value_name = "ELO0,ELO1[,ALPHA,BETA]")]
    sprt: Option<Sprt>,
    /// The output folder, for the journal and the tables [default: runs/A-vs-B].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The bots' names in the tables [default: from the commands].
    #[arg(long, value_name = "NAME_A,NAME_B", value_delimiter = ',')]
    names: Option<Vec<String>>,
    /// Random blocks per layout: a count, or counts that the layouts cycle through (e.g. 5,7,9).
    #[arg(
        long,
        value_name = "N[,N...]",
        value_delimiter = ',',
        default_value = "5,7,9,11,13",
        conflicts_with = "placed_blocks"
    )]
    blocks: Vec<usize>,
    /// The players place N blocks instead (a count, or counts to cycle through), Black first and last.
    #[arg(long, value_name = "N[,N...]", value_delimiter = ',')]
    placed_blocks: Option<Vec<usize>>,
    #[command(flatten)]
    pie: super::PieFlag,
    #[command(flatten)]
    time: TimeFlags,
    /// Fair mode: stop the bot that is not to move, so that it cannot use its opponent's CPU.
    #[arg(long)]
    pause_idle: bool,
    /// The seed the layouts are drawn from (the same seed, bots and flags resume the match).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Games played at once [default: the number of cores].
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
    /// Start afresh: any journal already in the output folder is moved aside (kept as journal-replaced-SECS.jsonl).
    #[arg(long)]
    fresh: bool,
    /// Fix a bot's rating in the tables, e.g. first-free=0.
    #[arg(long, value_name = "NAME=ELO")]
    anchor: Option<AnchorSpec>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    super::runtime()?.block_on(play(args))
}

async fn play(args: Args) -> anyhow::Result<ExitCode> {
    let tournament = tournament(&args)?;
    let names = tournament.bot_names();
    if let Some(anchor) = &args.anchor
        && !names.contains(&anchor.bot)
    {
        bail!(
            "--anchor {}: the bots are named {}; anchor one of them",
            anchor.bot,
            names.join(" and ")
        );
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("runs").join(&tournament.name));
    let concurrency = match args.concurrency {
        Some(0) => bail!("--concurrency 0: use 1 or more games at once"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let existing = if args.fresh {
        Existing::StartAfresh
    } else {
        Existing::Resume
    };
    let mut opened = match open(&out, &tournament, existing) {
        Err(ResumeError::Changed { path, changes }) => bail!(
            "the journal {} is of a match with other bots or flags:\n{}\nrun the same command as before to \
             resume it, or pass --fresh to start afresh (the old journal is kept)",
            path.display(),
            changes
                .iter()
                .map(|change| format!("  {change}"))
                .collect::<Vec<_>>()
                .join("\n")
        ),
        opened => opened?,
    };
    if let Some(aside) = &opened.moved_aside {
        eprintln!("arena: the previous journal is kept as {}", aside.display());
    }

    let mut progress = MatchProgress::new(&names, args.sprt, opened.plan.schedule.len());
    for record in &opened.plan.done {
        progress.count_done(record);
    }
    let ending = if opened.plan.pending.is_empty() {
        Ending::Finished
    } else if !opened.plan.pending.iter().any(|game| progress.allows(game)) {
        Ending::Declined
    } else {
        let logs = out.join("logs");
        std::fs::create_dir_all(&logs).with_context(|| format!("cannot create the log folder {}", logs.display()))?;
        let specs = [(&names[0], &args.a), (&names[1], &args.b)]
            .into_iter()
            .map(|(name, command)| crate::builtin::spec(name, command))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let pool = Arc::new(Pool::new(specs, Limits::default(), Restart::OnFailure, Some(logs)));
        progress.show(true);
        let ending = super::play_games(
            &opened.plan,
            concurrency,
            &mut opened.journal,
            pool,
            &mut progress,
            |_| String::new(),
        )
        .await;
        progress.finish();
        ending?
    };

    let journal_path = opened.journal.path().to_owned();
    let (standings, mut written) = super::report::write_run_reports(&out, &journal_path, args.anchor.as_ref())?;
    let planned = opened.plan.schedule.len();
    let report_path = out.join("match.json");
    std::fs::write(&report_path, match_json(&progress, standings.games, planned))
        .with_context(|| format!("cannot write {}", report_path.display()))?;
    written.push(report_path);
    let summary = summary(
        &progress,
        &opened.plan.tournament.rules,
        standings.games,
        planned,
        ending,
    );
    print!("{summary}\n{}", render(&standings, Format::Table));
    let written: Vec<String> = written.iter().map(|path| path.display().to_string()).collect();
    eprintln!(
        "arena: journal {}; tables {}",
        journal_path.display(),
        written.join(", ")
    );
    match ending {
        Ending::Finished | Ending::Declined => Ok(ExitCode::SUCCESS),
        Ending::Interrupted => {
            eprintln!("arena: interrupted; run the same command again to resume");
            Ok(ExitCode::from(super::INTERRUPTED))
        }
    }
}

/// The two-bot tournament the flags describe.
fn tournament(args: &Args) -> anyhow::Result<Tournament> {
    if args.games < 2 || args.games % 2 != 0 {
        bail!(
            "--games {}: use an even number from 2 up, as each layout is played twice with the seats swapped",
            args.games
        );
    }
    let names = match &args.names {
        Some(names) if names.len() == 2 => names.clone(),
        Some(names) => bail!("--names {}: give two names, NAME_A,NAME_B", names.join(",")),
        None => crate::names::default_names([&args.a, &args.b], ["1", "2"]).to_vec(),
    };
    for name in &names {
        if !config::is_plain_name(name) {
            bail!(
                "the bot name {name:?} is not plain: give --names with 1 to 64 letters, digits, '-', '_' or '.' each"
            );
        }
    }
    if names[0] == names[1] {
        bail!(
            "both bots are named {:?}: give them different names with --names",
            names[0]
        );
    }
    let counts = args.placed_blocks.as_ref().unwrap_or(&args.blocks);
    if let Some(bad) = counts.iter().find(|&&count| pahtum::setup::check_count(count).is_err()) {
        bail!("{bad} blocks: use odd counts from 1 to 47, so that both colours get as many stones");
    }
    let blocks = match &args.placed_blocks {
        Some(counts) => BlockSource::Players { counts: counts.clone() },
        None => BlockSource::Random { counts: counts.clone() },
    };
    let bots = [(&names[0], &args.a), (&names[1], &args.b)]
        .into_iter()
        .map(|(name, command)| bot_config(name, command))
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(Tournament {
        name: format!("{}-vs-{}", names[0], names[1]),
        seed: args.seed,
        format: config::Format::RoundRobin,
        games_per_pair: args.games,
        rules: RulesConfig {
            pie: args.pie.pie(),
            blocks,
        },
        time: args.time.time_control(),
        pause_idle: args.pause_idle,
        bots,
    })
}

/// The journal header's description of a bot (how it starts decides whether a match resumes). A
/// command runs in the working directory, which is part of it: the same relative command run from
/// another folder may be another program, so it must not resume the match.
fn bot_config(name: &str, command: &str) -> anyhow::Result<BotConfig> {
    let command = command.trim();
    let (launch, dir) = if crate::builtin::NAMES.contains(&command) {
        (Launch::Builtin(command.to_owned()), None)
    } else {
        let words = match shlex::split(command) {
            Some(words) if !words.is_empty() => words,
            _ => bail!("bad bot command {command:?}: give a program and its arguments, quoted as in a shell"),
        };
        let here = std::env::current_dir().context("cannot find the working directory")?;
        (Launch::Command(words), Some(here.display().to_string()))
    };
    Ok(BotConfig {
        name: name.to_owned(),
        launch,
        dir,
        env: BTreeMap::new(),
        time: None,
    })
}

/// The match's score, Elo and SPRT as games finish, shown on stderr.
#[derive(Debug)]
struct MatchProgress {
    tally: PairTally,
    sprt: Option<Sprt>,
    total: usize,
    /// Layouts with one game started or done: their second game may still start after the test decides.
    half_played: HashSet<String>,
    /// The test has decided (it stays so even if the pairs completed afterwards move the LLR back).
    decided: bool,
    terminal: bool,
    /// When the last plain line was printed, and what it said.
    last_line: Option<(Instant, String)>,
}

impl MatchProgress {
    fn new(names: &[String], sprt: Option<Sprt>, total: usize) -> MatchProgress {
        MatchProgress {
            tally: PairTally::new(&names[0], &names[1]),
            sprt,
            total,
            half_played: HashSet::new(),
            decided: false,
            terminal: std::io::stderr().is_terminal(),
            last_line: None,
        }
    }

    /// Counts a game of the journal from an earlier run.
    fn count_done(&mut self, record: &GameRecord) {
        self.add(record);
        if let Some(layout) = &record.layout {
            self.toggle_half_played(layout);
        }
    }

    fn add(&mut self, record: &GameRecord) {
        self.tally.add(record);
        self.decided |= self
            .outcome()
            .is_some_and(|outcome| outcome.status != SprtStatus::Continue);
    }

    fn toggle_half_played(&mut self, layout: &str) {
        if !self.half_played.remove(layout) {
            self.half_played.insert(layout.to_owned());
        }
    }

    fn outcome(&self) -> Option<SprtOutcome> {
        self.sprt.map(|sprt| sprt.test(&self.tally.pentanomial()))
    }

    /// Whether `game` may start: any game until the test decides, then only the second game of a layout
    /// pair whose first game is recorded or running.
    fn allows(&self, game: &ScheduledGame) -> bool {
        !self.decided || self.half_played.contains(&game.layout)
    }

    fn status(&self) -> String {
        let pair = self.tally.summary();
        let mut line = format!(
            "{}/{} games: {} {}-{} {}",
            pair.games,
            self.total,
            pair.first,
            pair.points,
            f64::from(pair.games) - pair.points,
            pair.second
        );
        match pair.elo {
            Some(elo) => line.push_str(&format!(", Elo {:+.1} ± {:.1}", elo.elo, elo.error95)),
            None => line.push_str(", Elo -"),
        }
        if let Some(outcome) = self.outcome() {
            line.push_str(&format!(", {}", llr_text(&outcome)));
        }
        line
    }

    /// Redraws the line on a terminal; otherwise prints a line if `force` or enough time has passed.
    fn show(&mut self, force: bool) {
        let status = self.status();
        let mut stderr = std::io::stderr().lock();
        // Progress is best effort: a closed stderr must not stop the match.
        if self.terminal {
            let _ = write!(stderr, "\r\x1b[Karena: {status}");
        } else {
            let due = self
                .last_line
                .as_ref()
                .is_none_or(|(at, _)| at.elapsed() >= PLAIN_EVERY);
            let repeated = self.last_line.as_ref().is_some_and(|(_, line)| *line == status);
            if (force || due) && !repeated {
                let _ = writeln!(stderr, "arena: {status}");
                self.last_line = Some((Instant::now(), status));
            }
        }
    }

    fn note(&self, text: &str) {
        let clear = if self.terminal { "\r\x1b[K" } else { "" };
        eprintln!("{clear}{text}");
    }

    /// The last line, kept on the terminal.
    fn finish(&mut self) {
        if self.terminal {
            eprintln!();
        } else {
            self.show(true);
        }
    }
}

impl Observer for MatchProgress {
    fn on(&mut self, event: Event<'_>) {
        match event {
            Event::GameFinished { record } => {
                let was_decided = self.decided;
                self.add(record);
                for note in progress::forfeit_notes(record) {
                    self.note(&note);
                }
                self.show(self.decided && !was_decided);
            }
            Event::BotRestarted { bot } => self.note(&format!("arena: restarted bot {bot} after a failure")),
            Event::Started { .. } | Event::GameStarted { .. } | Event::Interrupted { .. } | Event::Finished { .. } => {}
        }
    }

    /// Once the test has decided, no new layout pair starts; the second game of one begun still does.
    fn may_start(&mut self, game: &ScheduledGame) -> bool {
        let allowed = self.allows(game);
        if allowed {
            self.toggle_half_played(&game.layout);
        }
        allowed
    }
}

fn llr_text(outcome: &SprtOutcome) -> String {
    format!("LLR {:.2} [{:.2}, {:.2}]", outcome.llr, outcome.lower, outcome.upper)
}

/// The rules of the match's games, in words.
fn rules_text(rules: &RulesConfig) -> String {
    let counts = |counts: &[usize]| counts.iter().map(ToString::to_string).collect::<Vec<_>>().join(",");
    let blocks = match &rules.blocks {
        BlockSource::Random { counts: these } => format!("{} random blocks", counts(these)),
        BlockSource::Players { counts: these } => format!("{} blocks placed by the players", counts(these)),
        BlockSource::Fixed { layouts } => format!("{} fixed layouts", layouts.len()),
    };
    let pie = if rules.pie { "pie rule" } else { "no pie rule" };
    format!("{pie}, {blocks}")
}

/// The result in words, for stdout.
fn summary(progress: &MatchProgress, rules: &RulesConfig, played: usize, planned: usize, ending: Ending) -> String {
    let pair: PairStrength = progress.tally.summary();
    let score = if played > 0 {
        100.0 * pair.points / played as f64
    } else {
        0.0
    };
    let mut text = format!(
        "Match {} vs {} ({}): {played} of {planned} games played; {} scored {}/{played} ({score:.1}%).\n",
        pair.first,
        pair.second,
        rules_text(rules),
        pair.first,
        pair.points
    );
    if let (Some(sprt), Some(outcome)) = (progress.sprt, progress.outcome()) {
        let verdict = match outcome.status {
            SprtStatus::AcceptH1 => format!(
                "H1 accepted: {} is at least {} Elo stronger than {}",
                pair.first,
                sprt.elo1(),
                pair.second
            ),
            SprtStatus::AcceptH0 => format!(
                "H0 accepted: {} is at most {} Elo stronger than {}",
                pair.first,
                sprt.elo0(),
                pair.second
            ),
            SprtStatus::Continue if ending == Ending::Interrupted => "no decision yet (interrupted)".to_owned(),
            SprtStatus::Continue => "no decision: the games ran out before a bound was crossed".to_owned(),
        };
        text.push_str(&format!(
            "SPRT elo0 {}, elo1 {}, alpha {}, beta {}: {}: {verdict}.\n",
            sprt.elo0(),
            sprt.elo1(),
            sprt.alpha(),
            sprt.beta(),
            llr_text(&outcome)
        ));
    }
    text
}

/// `match.json`: what was asked, what was played, and the SPRT's state.
#[derive(Debug, Serialize)]
struct MatchReport {
    schema: &'static str,
    bots: [String; 2],
    games_planned: usize,
    games_played: usize,
    sprt: Option<SprtReport>,
}

#[derive(Debug, Serialize)]
struct SprtReport {
    #[serde(flatten)]
    test: Sprt,
    outcome: SprtOutcome,
}

fn match_json(progress: &MatchProgress, played: usize, planned: usize) -> String {
    let pair = progress.tally.summary();
    let report = MatchReport {
        schema: "pahtum-arena/match/1",
        bots: [pair.first, pair.second],
        games_planned: planned,
        games_played: played,
        sprt: progress
            .sprt
            .zip(progress.outcome())
            .map(|(test, outcome)| SprtReport { test, outcome }),
    };
    let mut text = serde_json::to_string_pretty(&report).expect("the match report serializes");
    text.push('\n');
    text
}
