//! `arena run FILE`: plays a tournament, or resumes it, and prints the standings.
//!
//! The library does the work (pahtum-tournament); this module wires it to the
//! command line: flags over the file's settings, the journal in the output
//! folder, the progress display, Ctrl-C, and the final tables.
//!
//! Ctrl-C: the first stops starting games, ends the running ones with their
//! bots (nothing partial reaches the journal), writes and prints the standings
//! so far and the command that resumes; a second kills every bot's process
//! group and exits at once.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use pahtum_tournament::config::{self, Restart, TournamentFile};
use pahtum_tournament::launch::{Launcher, check_programs};
use pahtum_tournament::pool::Pool;
use pahtum_tournament::progress::{PLAIN_EVERY, Progress};
use pahtum_tournament::render::{Format, render, schedule_table};
use pahtum_tournament::resume::{self, Existing, open};
use pahtum_tournament::runner::Ending;
use pahtum_tournament::{report, schedule};

/// Play a tournament (or resume it) and print the standings.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The tournament file (TOML; see tournaments/reference.toml).
    pub file: PathBuf,
    /// The output folder [default: the file's `out`, else runs/NAME].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Games played at once [default: the file's `concurrency`, else the number of cores].
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Print the schedule without playing.
    #[arg(long)]
    pub dry_run: bool,
    /// Start afresh: any journal already in the output folder is moved aside (kept as journal-replaced-SECS.jsonl).
    #[arg(long)]
    pub fresh: bool,
    /// Start new bot processes for every game instead of reusing them.
    #[arg(long)]
    pub restart_every_game: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    super::runtime()?.block_on(play(args))
}

async fn play(args: Args) -> anyhow::Result<ExitCode> {
    let mut file = config::load(&args.file)?;
    if let Some(out) = &args.out {
        file.settings.out = out.clone();
    }
    if let Some(concurrency) = args.concurrency {
        if concurrency == 0 {
            bail!("--concurrency 0: use 1 or more games at once");
        }
        file.settings.concurrency = concurrency;
    }
    if args.restart_every_game {
        file.settings.restart = Restart::EveryGame;
    }
    let arena = std::env::current_exe().context("cannot find the arena executable for the built-in bots")?;
    let launcher = Launcher::new(&file, &arena);
    check_programs(&file, &launcher, crate::builtin::NAMES)?;
    if args.dry_run {
        return dry_run(&file);
    }

    let out = file.settings.out.clone();
    let existing = if args.fresh {
        Existing::StartAfresh
    } else {
        Existing::Resume
    };
    let mut opened = open(&out, &file.tournament, existing)?;
    if let Some(aside) = &opened.moved_aside {
        eprintln!("arena: the previous journal is kept as {}", aside.display());
    }
    if opened.repaired_torn_line {
        eprintln!(
            "arena: dropped the torn last line of the journal (a game cut off by a crash; it will be played again)"
        );
    }

    let ending = if opened.plan.pending.is_empty() {
        Ending::Finished
    } else {
        let logs = out.join("logs");
        std::fs::create_dir_all(&logs).with_context(|| format!("cannot create the log folder {}", logs.display()))?;
        let specs = file.tournament.bots.iter().map(|bot| launcher.spec(bot)).collect();
        let pool = Arc::new(Pool::new(
            specs,
            file.settings.limits.limits(),
            file.settings.restart,
            Some(logs),
        ));
        let mut progress = if std::io::stderr().is_terminal() {
            Progress::bar()
        } else {
            Progress::lines(Box::new(std::io::stderr()), PLAIN_EVERY)
        };
        let locate = |bot: &str| {
            let index = file
                .tournament
                .bots
                .iter()
                .position(|b| b.name == bot)
                .unwrap_or_default();
            format!("{}: key `{}`: ", file.path.display(), TournamentFile::bot_key(index))
        };
        super::play_games(
            &opened.plan,
            file.settings.concurrency,
            &mut opened.journal,
            pool,
            &mut progress,
            locate,
        )
        .await?
    };

    let standings = report::standings_of_journal(opened.journal.path(), None)?;
    let written = report::write_standings(&out, &standings)
        .with_context(|| format!("cannot write the standings into {}", out.display()))?;
    print!("{}", render(&standings, Format::Table));
    let names: Vec<String> = written.iter().map(|path| path.display().to_string()).collect();
    eprintln!(
        "arena: journal {}; standings {}",
        opened.journal.path().display(),
        names.join(", ")
    );
    match ending {
        // A tournament's progress observer never declines a game.
        Ending::Finished | Ending::Declined => Ok(ExitCode::SUCCESS),
        Ending::Interrupted => {
            eprintln!("arena: interrupted; to resume, run: {}", resume_command(&args));
            Ok(ExitCode::from(super::INTERRUPTED))
        }
    }
}

fn dry_run(file: &TournamentFile) -> anyhow::Result<ExitCode> {
    let games = schedule::schedule(&file.tournament);
    println!("{}", schedule_table(&games));
    println!(
        "{} games, {} at once, into {}; nothing was played (--dry-run)",
        games.len(),
        file.settings.concurrency,
        file.settings.out.display()
    );
    let journal = file.settings.out.join(resume::JOURNAL);
    match resume::preview(&file.settings.out, &file.tournament)
        .with_context(|| format!("the journal {} cannot be resumed with this file", journal.display()))?
    {
        None => println!("No journal yet in {}: a run starts one.", file.settings.out.display()),
        Some(plan) => println!(
            "The journal {} can be resumed with this file: {} games done, {} to play.",
            journal.display(),
            plan.done.len(),
            plan.pending.len()
        ),
    }
    Ok(ExitCode::SUCCESS)
}

/// The command that resumes this run: the same file and the flags that change where and how it runs.
fn resume_command(args: &Args) -> String {
    let mut words = vec!["arena".to_owned(), "run".to_owned(), quote(&args.file)];
    if let Some(out) = &args.out {
        words.extend(["--out".to_owned(), quote(out)]);
    }
    if let Some(concurrency) = args.concurrency {
        words.extend(["--concurrency".to_owned(), concurrency.to_string()]);
    }
    if args.restart_every_game {
        words.push("--restart-every-game".to_owned());
    }
    words.join(" ")
}

fn quote(path: &Path) -> String {
    let text = path.display().to_string();
    shlex::try_quote(&text).map_or(text.clone(), |quoted| quoted.into_owned())
}
