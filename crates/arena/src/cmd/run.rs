//! `arena run FILE`: plays a tournament, or resumes it, and prints the standings.
//!
//! The library does the work (pahtum-tournament); this module wires it to the
//! command line: flags over the file's settings, the journal in the output
//! folder, the progress display, Ctrl-C, and the final tables.
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

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use pahtum_report::progress::{PLAIN_EVERY, Progress};
use pahtum_report::render::schedule_table;
use pahtum_report::run_report::LiveReport;
use pahtum_run::events::Tee;
use pahtum_run::hellos::HelloCheck;
use pahtum_run::resume;
use pahtum_runner::games::Bots;
use pahtum_runner::launch::{Launcher, check_programs};
use pahtum_tournament::config::{self, Restart, TournamentFile};
use pahtum_tournament::durability::Durability;
use pahtum_tournament::schedule;
use pahtum_tournament::shard::{Shard, ShardError};

use super::flow;
use crate::output::outln;

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
    let mut file = config::load(&args.file)?;
    if let Some(out) = &args.out {
        file.settings.out = out.clone();
    }
    let shard = args.shard.map(|shard| shard.resolve(args.shard_count)).transpose()?;
    if let Some(shard) = shard {
        file.settings.out = file.settings.out.join(shard.folder_name());
    }
    if let Some(concurrency) = args.concurrency {
        file.settings.concurrency = concurrency;
    }
    if args.restart_every_game {
        file.settings.restart = Restart::EveryGame;
    }
    if let Some(durability) = args.durability {
        file.settings.durability = durability;
    }
    if args.sandbox.sandbox {
        for bot in &mut file.tournament.bots {
            bot.sandbox.get_or_insert_with(Default::default);
        }
    }
    if let Some(affinity) = args.affinity.choice() {
        file.settings.affinity = Some(affinity);
    }
    let arena = std::env::current_exe().context("cannot find the arena executable for the built-in bots")?;
    let launcher = Launcher::new(&file, &arena);
    check_programs(&file, &launcher, pahtum_builtin::NAMES)?;
    check_replayed(&file, &args.replay)?;
    crate::flags::require_sandbox(file.tournament.bots.iter().any(|bot| bot.sandbox.is_some()))?;
    let specs: Vec<_> = file.tournament.bots.iter().map(|bot| launcher.spec(bot)).collect();
    crate::flags::note_what_the_sandbox_shows(&specs);
    flow::refuse_league(&file.settings.out)?;
    if args.dry_run {
        return dry_run(&file, shard);
    }
    crate::flags::warn_of_signal_pausing(file.tournament.pause_idle);

    let out = file.settings.out.clone();
    flow::drop_games_of(&out, &file.tournament, &args.replay)?;
    let bots = Bots::of_file(&file, &launcher);
    // A journal to resume: is each bot's program still the one of its games there?
    let mut greetings = if !args.fresh && out.join(resume::JOURNAL).exists() {
        let names: Vec<String> = file
            .tournament
            .bots
            .iter()
            .map(|bot| bot.name.clone())
            .filter(|name| !args.replay.contains(name))
            .collect();
        flow::greetings(&bots, &names).await
    } else {
        HelloCheck::default()
    };
    let mut progress = if flow::live_status() {
        Progress::bar()
    } else {
        Progress::lines(Box::new(std::io::stderr()), PLAIN_EVERY)
    };
    let mut opened = flow::open_journal(
        &out,
        &file.tournament,
        shard,
        args.fresh,
        file.settings.durability,
        &mut Tee(&mut progress, &mut greetings),
    )?;
    let resume = resume_command(&args, shard);
    flow::warn_of_changes(&greetings, |bot| format!("{resume} --replay {}", quote(bot)));
    if let Some(shard) = shard {
        opened.plan.only(shard);
    }
    let locate = |bot: &str| {
        let index = file
            .tournament
            .bots
            .iter()
            .position(|b| b.name == bot)
            .unwrap_or_default();
        format!("{}: key `{}`: ", file.path.display(), TournamentFile::bot_key(index))
    };
    let mut live = LiveReport::of(&opened);
    let ending = flow::play(
        &mut opened,
        &out,
        (bots, args.serve),
        &mut Tee(&mut progress, &mut live),
        locate,
    )
    .await?;
    let journal = opened.journal.path();
    let (standings, written) = pahtum_report::run_report::write_run_reports(&out, journal, None, Some(live))?;
    let resume = format!("to resume, run: {resume}");
    // A tournament's progress observer never declines a game.
    Ok(flow::report(
        "",
        &standings,
        args.wide.fit(),
        journal,
        &written,
        ending,
        &resume,
    ))
}

/// Refuses a `--replay` of a bot that the tournament does not have, naming those it has.
fn check_replayed(file: &TournamentFile, replay: &[String]) -> anyhow::Result<()> {
    let names: Vec<&str> = file.tournament.bots.iter().map(|bot| bot.name.as_str()).collect();
    if let Some(unknown) = replay.iter().find(|name| !names.contains(&name.as_str())) {
        anyhow::bail!(
            "--replay {unknown:?}: the tournament {} has no such bot; its bots are: {}",
            file.path.display(),
            names.join(", ")
        );
    }
    Ok(())
}

fn dry_run(file: &TournamentFile, shard: Option<Shard>) -> anyhow::Result<ExitCode> {
    let journal = file.settings.out.join(resume::JOURNAL);
    let preview = resume::preview(&file.settings.out, &file.tournament, shard);
    // The schedule of the journal, grown by the bots that would join, if there is one.
    let mut games = match &preview {
        Ok(Some(plan)) => plan.schedule.iter().collect(),
        _ => schedule::schedule(&file.tournament),
    };
    if let Some(shard) = shard {
        games.retain(|game| shard.contains(game.index));
    }
    outln!("{}", schedule_table(&games));
    outln!(
        "{} games, {} at once, into {}; nothing was played (--dry-run)",
        games.len(),
        file.settings.concurrency,
        file.settings.out.display()
    );
    match preview.with_context(|| format!("the journal {} cannot be resumed with this file", journal.display()))? {
        None => outln!("No journal yet in {}: a run starts one.", file.settings.out.display()),
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
