//! `arena run FILE`: plays a tournament, or resumes it, and prints the standings.
//!
//! A thin command line: this module reads the file and the flags into a plan,
//! builds the run's one observer (the progress, the report folded as the games
//! end, and the [`Notices`] said on stderr), hands both to pahtum-runner once
//! (`tournament::play`, or `tournament::preview` for `--dry-run`), and shows
//! what comes back with pahtum-report: the tables, where the files are, the
//! exit code. The stop signals and the server of `--serve` are the process's,
//! handed in beside the plan.
//!
//! A journal already there is resumed (a finished one: its standings are
//! shown again). Each bot is first asked its `hello`, and a bot that greets
//! otherwise than in its last game in the journal (its program was replaced)
//! is warned of, with the command that plays its games again: `--replay BOT`
//! drops them from the journal (the old journal is kept aside) and plays them.
//!
//! Ctrl-C: the first stops starting games, ends the running ones with their
//! bots (nothing partial reaches the journal), writes and prints the standings
//! so far and the command that resumes; a second kills every bot's process
//! group and exits at once.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use pahtum_report::progress::{PLAIN_EVERY, Progress};
use pahtum_report::render::schedule_table;
use pahtum_report::run_report::{LiveReport, write_run_reports};
use pahtum_run::events::Tee;
use pahtum_run::resume;
use pahtum_runner::live::Live;
use pahtum_runner::tournament::{self, Preview, Settings, TournamentPlan};
use pahtum_tournament::config;
use pahtum_tournament::durability::Durability;
use pahtum_tournament::shard::{Shard, ShardError};

use super::flow;
use super::notices::Notices;
use crate::output::outln;
use crate::signals::StopSignals;

/// Play a tournament (or resume it) and print the standings.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "Examples:
  arena run tournaments/quickstart.toml
  arena run tournaments/quickstart.toml --dry-run
  arena run my.toml --out runs/my-2 --concurrency 4     (again after Ctrl-C: resumes)")]
pub struct Args {
    /// The tournament file (TOML; see tournaments/reference.toml).
    pub file: PathBuf,
    /// The output folder [default: the file's `out`, else runs/NAME].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Games played at once [default: the file's `concurrency`, else the number of cores].
    #[arg(long, value_name = "N", value_parser = crate::flags::parse_concurrency)]
    pub concurrency: Option<usize>,
    /// When the journal is synced to the disk: game, batch or none [default: the file's `durability`,
    /// else batch] (tournaments/reference.toml says what each can lose).
    #[arg(long, value_name = "MODE")]
    pub durability: Option<Durability>,
    /// Print the schedule without playing.
    #[arg(long)]
    pub dry_run: bool,
    /// Start afresh: any journal already in the output folder is moved aside (kept as journal-replaced-SECS.jsonl).
    #[arg(long)]
    pub fresh: bool,
    /// Play BOT's games again: drop them from the journal (the old journal is kept as
    /// journal-replaced-SECS.jsonl) and play them, e.g. after BOT's program was replaced. Repeatable.
    #[arg(long, value_name = "BOT", conflicts_with = "fresh")]
    pub replay: Vec<String>,
    /// Start new bot processes for every game instead of reusing them.
    #[arg(long)]
    pub restart_every_game: bool,
    /// Play only shard K of N (K from 1 to N, as nextest's --partition count:K/N), into OUT/shard-K-of-N;
    /// both games of a layout are in the same shard. `auto`: from SLURM_ARRAY_TASK_ID (less
    /// SLURM_ARRAY_TASK_MIN, of SLURM_ARRAY_TASK_COUNT) or JOB_COMPLETION_INDEX (from 0, of --shard-count).
    /// `arena merge` joins the shards' journals.
    #[arg(long, value_name = "K/N|auto")]
    pub shard: Option<ShardArg>,
    /// The number of shards for --shard auto in a Kubernetes Indexed Job [default: ARENA_SHARD_COUNT].
    #[arg(long, value_name = "N", requires = "shard")]
    pub shard_count: Option<usize>,
    /// Run every bot in the sandbox, with the limits the file gives it (or the defaults).
    #[command(flatten)]
    pub sandbox: crate::flags::SandboxFlag,
    #[command(flatten)]
    pub affinity: crate::flags::AffinityFlags,
    #[command(flatten)]
    pub serve: crate::flags::ServeFlag,
    #[command(flatten)]
    pub wide: crate::flags::WideFlag,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    crate::runtime::runtime()?.block_on(play(args))
}

async fn play(args: Args) -> anyhow::Result<ExitCode> {
    let plan = plan(&args)?;
    let out = plan
        .settings
        .out
        .clone()
        .unwrap_or_else(|| plan.file.settings.out.clone());
    if let Some(rules) = pahtum_runner::league::paired::league_rules(&plan.file, plan.settings.sandbox, &out)? {
        return super::paired::play(plan, &rules, args.dry_run, args.wide.fit()).await;
    }
    let resume = resume_command(&args, plan.shard);
    let replay = |bot: &str| format!("{resume} --replay {}", quote(bot));
    let mut notices = Notices { replay: &replay };
    if args.dry_run {
        return dry_run(tournament::preview(plan, &mut notices)?);
    }
    let mut progress = if flow::live_status() {
        Progress::bar()
    } else {
        Progress::lines(Box::new(std::io::stderr()), PLAIN_EVERY)
    };
    let mut live = LiveReport::default();
    let mut observer = Tee(&mut progress, &mut Tee(&mut live, &mut notices));
    let serve = async |out: &Path, shown: &Arc<Live>| args.serve.start(out, shown).await;
    let played = tournament::play(plan, &mut observer, StopSignals::default(), serve).await?;
    let resume = format!("to resume, run: {resume}");
    // The games' code is not the report's: the report maps only what it runs.
    crate::resident::release_idle_pages();
    let journal = played.opened.journal.path();
    let (standings, written) = write_run_reports(&played.out, journal, None, Some(live))?;
    // A tournament's progress observer never declines a game.
    Ok(flow::report(
        "",
        &standings,
        args.wide.fit(),
        journal,
        &written,
        played.ending,
        &resume,
    ))
}

/// The tournament the file and the flags describe, for pahtum-runner.
fn plan(args: &Args) -> anyhow::Result<TournamentPlan> {
    let file = config::load(&args.file)?;
    let shard = args.shard.map(|shard| shard.resolve(args.shard_count)).transpose()?;
    let arena = std::env::current_exe().context("cannot find the arena executable for the built-in bots")?;
    let settings = Settings {
        out: args.out.clone(),
        concurrency: args.concurrency,
        restart_every_game: args.restart_every_game,
        durability: args.durability,
        sandbox: args.sandbox.sandbox,
        affinity: args.affinity.choice(),
    };
    Ok(TournamentPlan {
        file,
        settings,
        shard,
        fresh: args.fresh,
        replay: args.replay.clone(),
        arena,
        builtins: pahtum_builtin::NAMES,
    })
}

fn dry_run(preview: Preview) -> anyhow::Result<ExitCode> {
    let journal = preview.out.join(resume::JOURNAL);
    outln!("{}", schedule_table(&preview.games));
    outln!("Adjudication: {}.", pahtum_record::describe_rule(preview.adjudicate));
    outln!(
        "{} games, {} at once, into {}; nothing was played (--dry-run)",
        preview.games.len(),
        preview.concurrency,
        preview.out.display()
    );
    let resumed = preview.resume;
    match resumed.with_context(|| format!("the journal {} cannot be resumed with this file", journal.display()))? {
        None => outln!("No journal yet in {}: a run starts one.", preview.out.display()),
        Some(plan) => outln!(
            "The journal {} can be resumed with this file: {} games done, {} to play.",
            journal.display(),
            plan.done.len(),
            plan.pending().count()
        ),
    }
    Ok(ExitCode::SUCCESS)
}

/// The command that resumes this run: the same file and the flags that change where and how it runs.
fn resume_command(args: &Args, shard: Option<Shard>) -> String {
    let mut words = vec![
        "arena".to_owned(),
        "run".to_owned(),
        quote(&args.file.display().to_string()),
    ];
    if let Some(out) = &args.out {
        words.extend(["--out".to_owned(), quote(&out.display().to_string())]);
    }
    if let Some(concurrency) = args.concurrency {
        words.extend(["--concurrency".to_owned(), concurrency.to_string()]);
    }
    if args.restart_every_game {
        words.push("--restart-every-game".to_owned());
    }
    match args.affinity.choice() {
        Some(true) => words.push("--affinity".to_owned()),
        Some(false) => words.push("--no-affinity".to_owned()),
        None => {}
    }
    if let Some(shard) = shard {
        words.extend(["--shard".to_owned(), shard.to_string()]);
    }
    if let Some(durability) = args.durability {
        words.extend(["--durability".to_owned(), durability.to_string()]);
    }
    words.join(" ")
}

/// `text` as one word of a shell's command line.
fn quote(text: &str) -> String {
    shlex::try_quote(text).map_or(text.to_owned(), |quoted| quoted.into_owned())
}

/// `--shard`: `K/N`, or `auto` (from the environment of a job array).
#[derive(Debug, Clone, Copy)]
pub enum ShardArg {
    Given(Shard),
    Auto,
}

impl std::str::FromStr for ShardArg {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<ShardArg, ShardError> {
        if text.trim() == "auto" {
            Ok(ShardArg::Auto)
        } else {
            text.parse().map(ShardArg::Given)
        }
    }
}

impl ShardArg {
    /// The shard this run plays: the one given, or the job array's, of `count` shards if given.
    fn resolve(self, count: Option<usize>) -> Result<Shard, ShardError> {
        match self {
            ShardArg::Given(shard) => Ok(shard),
            ShardArg::Auto => Shard::from_env(|name| std::env::var(name).ok(), count),
        }
    }
}
