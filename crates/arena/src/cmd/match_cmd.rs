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
//! crosses a bound, no new layout pair starts; the games already running finish
//! and count, and so does the second game of a layout pair already begun. That
//! rule is pahtum-tournament's [`SprtGate`], which this command owns and the runner asks
//! whether to play on; the progress (a view of the gate, run beside it by
//! [`Gated`]), the summary and `match.json` are pahtum-report's `match_report`,
//! and the journal and the games are pahtum-runner's: this command hands the
//! match's plan and one observer to `head_to_head::play` once, as `arena run`
//! does its file.
//!
//! Progress goes to stderr after every game: the score, the Elo difference with
//! its 95% error from the layout pairs, and the LLR with its bounds; one line
//! redrawn by indicatif on a terminal, a line every few seconds otherwise. At the end the
//! folder holds the journal, the standings with the ratings and the pair table
//! (as after `arena run`) and `match.json` (the games planned and played and the
//! SPRT's verdict); stdout shows the verdict and the standings.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use pahtum_referee::Limits;
use pahtum_report::match_report::{MatchProgress, match_json, summary};
use pahtum_report::run_report::LiveReport;
use pahtum_run::events::Tee;
use pahtum_run::sprt_gate::{Gated, SprtGate};
use pahtum_runner::games::Bots;
use pahtum_runner::head_to_head::{self, MatchPlan};
use pahtum_runner::live::Live;
use pahtum_standings::strength::AnchorSpec;
use pahtum_stats::Sprt;
use pahtum_tournament::book::Openings;
use pahtum_tournament::config::head_to_head::Match;
use pahtum_tournament::config::resolve::resolve_adjudicate;
use pahtum_tournament::config::{OnOverload, Restart, Tournament};
use pahtum_tournament::durability::Durability;
use pahtum_tournament::schedule;

use super::flow;
use super::notices::Notices;
use crate::duration::TimeFlags;
use crate::names::NamesFlag;
use crate::signals::StopSignals;

/// Play a head-to-head match between two bots.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "Examples:
  arena match engine heuristic --games 100
  arena match \"engine --level 5\" \"engine --level 4\" --games 2000 --sprt 0,20 --names l5,l4
  arena match \"python3 new/bot.py\" \"python3 old/bot.py\" --games 400 --move-time 50ms --pause-idle")]
pub struct Args {
    /// The first bot: a command ("python3 bots/python-random/bot.py") or a built-in name.
    #[arg(value_name = "A")]
    a: String,
    /// The second bot.
    #[arg(value_name = "B")]
    b: String,
    /// Games to play: an even number, as each layout is played twice with the seats swapped.
    #[arg(long, value_name = "N", value_parser = parse_games)]
    games: u32,
    /// Stop as soon as a sequential probability ratio test decides between H0 "A is at most ELO0 stronger
    /// than B" and H1 "at least ELO1"; ALPHA and BETA (the two error risks) default to 0.05.
    #[arg(long, value_name = "ELO0,ELO1[,ALPHA,BETA]")]
    sprt: Option<Sprt>,
    /// The output folder, for the journal and the tables [default: runs/A-vs-B].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    names: NamesFlag,
    /// Random blocks per layout: a count, or counts that the layouts take in turn (e.g. 5,7,9: the first
    /// layout pair has 5 blocks, the second 7, the third 9, the fourth 5 again), so that the games are
    /// balanced over the counts.
    #[arg(
        long,
        value_name = "N[,N...]",
        value_delimiter = ',',
        value_parser = crate::flags::parse_block_count,
        default_value = "5,7,9,11,13",
        conflicts_with = "placed_blocks"
    )]
    blocks: Vec<usize>,
    /// The players place N blocks instead (a count, or counts the layouts take in turn), Black first and
    /// last.
    #[arg(long, value_name = "N[,N...]", value_delimiter = ',', value_parser = crate::flags::parse_block_count)]
    placed_blocks: Option<Vec<usize>>,
    /// Start the games from an opening book instead: one opening a line, the blocks, `|`, the given plies
    /// (RECORD.md, "Opening books"); each opening is played as a layout pair, seats swapped.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["blocks", "placed_blocks"])]
    openings: Option<String>,
    /// The order the book is played in: its own, or shuffled by the seed.
    #[arg(long, value_name = "ORDER", value_enum, default_value_t = OpeningsOrder::Sequence, requires = "openings")]
    openings_order: OpeningsOrder,
    #[command(flatten)]
    pie: crate::flags::PieFlag,
    #[command(flatten)]
    time: TimeFlags,
    /// Fair mode: pause (freeze) the bot that is not to move, so that it cannot use its opponent's CPU.
    #[arg(long)]
    pause_idle: bool,
    /// End a game before its board is full: "decided" once its result can no longer change, whatever
    /// both bots play (RECORD.md, "Adjudication"); "solved", an assumption of perfect play, with the
    /// result the exact solver proves from --solved-cells free cells; "off" plays every game out.
    #[arg(long, value_name = "RULE", default_value = "off", value_parser = ["off", "decided", "solved"])]
    adjudicate: String,
    /// With --adjudicate solved: the free cells from which the solver ends a game, 1 to 20 [default: 16].
    #[arg(long, value_name = "N", requires = "adjudicate")]
    solved_cells: Option<i64>,
    /// The seed the layouts are drawn from (the same seed, bots and flags resume the match).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Games played at once [default: the number of cores].
    #[arg(long, value_name = "N", value_parser = crate::flags::parse_concurrency)]
    concurrency: Option<usize>,
    #[command(flatten)]
    affinity: crate::flags::AffinityFlags,
    /// When the journal is synced to the disk: game, batch or none (tournaments/reference.toml says what
    /// each can lose).
    #[arg(long, value_name = "MODE", default_value_t = Durability::default())]
    durability: Durability,
    /// Start afresh: any journal already in the output folder is moved aside (kept as journal-replaced-SECS.jsonl).
    #[arg(long)]
    fresh: bool,
    /// Fix a bot's rating in the tables, e.g. first-free=0.
    #[arg(long, value_name = "NAME=ELO")]
    anchor: Option<AnchorSpec>,
    #[command(flatten)]
    sandbox: crate::flags::SandboxFlag,
    #[command(flatten)]
    pub serve: crate::flags::ServeFlag,
    #[command(flatten)]
    wide: crate::flags::WideFlag,
}

/// The order an opening book is played in (`--openings-order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum OpeningsOrder {
    /// The book's own order.
    Sequence,
    /// An order drawn once from the seed.
    Shuffled,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    crate::runtime::runtime()?.block_on(play(args))
}

async fn play(args: Args) -> anyhow::Result<ExitCode> {
    crate::flags::require_sandbox(args.sandbox.sandbox)?;
    crate::flags::warn_of_signal_pausing(args.pause_idle);
    let plan = plan(&args)?;
    let (names, rules) = (plan.tournament.bot_names(), plan.tournament.rules.clone());
    let mut watched = Gated {
        gate: SprtGate::new(&names[0], &names[1], args.sprt),
        view: MatchProgress::new(schedule::len(&plan.tournament), flow::live_status()),
    };
    let mut live = LiveReport::default();
    let mut observer = Tee(&mut watched, &mut Tee(&mut live, &mut Notices::plain()));
    let serve = async |out: &Path, shown: &Arc<Live>| args.serve.start(out, shown).await;
    let played = head_to_head::play(plan, &mut observer, StopSignals::default(), serve).await?;

    // The games' code is not the report's: the report maps only what it runs.
    crate::resident::release_idle_pages();
    let journal = played.opened.journal.path();
    let (standings, mut written) =
        pahtum_report::run_report::write_run_reports(&played.out, journal, args.anchor.as_ref(), Some(live))?;
    let planned = played.opened.plan.schedule.len();
    let report_path = played.out.join("match.json");
    std::fs::write(&report_path, match_json(&watched.gate, standings.games, planned))
        .with_context(|| format!("cannot write {}", report_path.display()))?;
    written.push(report_path);
    let summary = summary(&watched.gate, &rules, standings.games, planned, played.ending);
    let resume = "run the same command again to resume";
    let fit = args.wide.fit();
    Ok(flow::report(
        &format!("{summary}\n"),
        &standings,
        fit,
        journal,
        &written,
        played.ending,
        resume,
    ))
}

/// The match the flags describe, its bots ready to launch, for pahtum-runner.
fn plan(args: &Args) -> anyhow::Result<MatchPlan> {
    let tournament = tournament(args)?;
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
    let concurrency = args
        .concurrency
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // A sandboxed bot sees neither the output folder nor the other bot's folders.
    let specs = [(&names[0], &args.a), (&names[1], &args.b)]
        .into_iter()
        .map(|(name, command)| pahtum_builtin::spec(name, command))
        .collect::<Result<Vec<_>, _>>()?;
    let bots = Bots {
        specs: args.sandbox.apply_to_all(specs, Some(&out)),
        limits: Limits::default(),
        restart: Restart::OnFailure,
        concurrency,
        on_overload: OnOverload::default(),
        affinity: args.affinity.choice(),
    };
    Ok(MatchPlan {
        tournament,
        bots,
        out,
        durability: args.durability,
        fresh: args.fresh,
    })
}

/// `--games`: an even number from 2 up.
fn parse_games(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(games) if games >= 2 && games % 2 == 0 => Ok(games),
        _ => Err("use an even number from 2 up, as each layout is played twice with the seats swapped".to_owned()),
    }
}

/// The two-bot tournament the flags describe (pahtum-tournament's rules of which flags enter the journal's
/// header, so that a match resumes).
fn tournament(args: &Args) -> anyhow::Result<Tournament> {
    let names = args.names.names([&args.a, &args.b], ["1", "2"])?;
    let times = args.time.time_controls()?;
    let head_to_head = Match {
        names,
        commands: [&args.a, &args.b],
        times,
        counts: args.placed_blocks.clone().unwrap_or_else(|| args.blocks.clone()),
        placed: args.placed_blocks.is_some(),
        openings: args
            .openings
            .as_deref()
            .map(|file| {
                let shuffled = args.openings_order == OpeningsOrder::Shuffled;
                Openings::read(file, shuffled, args.pie.pie(), |file| std::fs::read_to_string(file))
                    .context("--openings")
            })
            .transpose()?,
        games: args.games,
        seed: args.seed,
        pie: args.pie.pie(),
        pause_idle: args.pause_idle,
        adjudicate: resolve_adjudicate(Some(&args.adjudicate), args.solved_cells)
            .map_err(|error| anyhow::anyhow!("--adjudicate: {}; {}", error.problem, error.fix))?,
        builtins: pahtum_builtin::NAMES,
    };
    Ok(head_to_head.tournament()?)
}
