//! `arena league`: a league that lives for weeks (pahtum-tournament's `league` module has the data and
//! the pairing rule, pahtum-runner's the build, the check and the games, pahtum-report's the ladder).
//!
//! * `init DIR`: a `league.toml` of every default and an empty journal.
//! * `add DIR NAME [--version V] -- COMMAND...` or `add DIR --from FOLDER` (its `bot.toml`): the entrant's
//!   files are copied into the league, built (in the sandbox when the league asks), checked by
//!   `arena check`, and only then join; a failure says why and changes nothing.
//! * `run DIR`: plays the games the league needs now, a round at a time, until every active entrant's
//!   interval is as narrow as the target (`--until` another), `--games N` are played, or no pair may play
//!   more; resumable (a round decided is in the journal, and a resume plays what is left of it), and
//!   `--shard K/N` plays one round's share on one machine of N (`arena merge` joins them).
//! * `retire DIR NAME[@VERSION]`: the entrant (every active version of NAME) plays no more.
//! * `table DIR`: the ladder, one joint fit of every game.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use pahtum_builtin::FIRST_FREE;
use pahtum_journal::Moves;
use pahtum_journal::sink::Counts;
use pahtum_league::folder::{self, Opened, STAGING};
use pahtum_league::table::{fold, table};
use pahtum_league::{Entrant, Event, LayoutPair, LeagueState, Retirement, Round, pairing};
use pahtum_record::unix_ms;
use pahtum_report::league::render_table;
use pahtum_report::progress::{PLAIN_EVERY, Progress};
use pahtum_report::render::Format;
use pahtum_run::events::RunEnding;
use pahtum_run::resume::JOURNAL;
use pahtum_runner::games::{Bots, PlayError, play};
use pahtum_runner::launch::Launcher;
use pahtum_runner::league::{BuildPolicy, Round as RoundWork, build, check, command_line, tournament_file};
use pahtum_tournament::config::is_plain_name;
use pahtum_tournament::shard::Shard;

use super::standings::FormatArg;
use crate::flags::WideFlag;
use crate::output::{errln, out, outln};
use crate::signals::StopSignals;
use pahtum_run::events::Tee;
use pahtum_runner::live::Live;
use std::sync::Arc;

/// Run a league: bots and versions join over time, and play only the games their ratings need.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "Examples:
  arena league init leagues/class
  arena league add leagues/class greedy -- node bots/js-greedy/bot.js
  arena league add leagues/class --from my-bot          (my-bot/bot.toml: name, version, command, build)
  arena league run leagues/class --concurrency 4
  arena league table leagues/class")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Write a new league: DIR/league.toml (every rule at its default) and an empty journal.
    Init {
        /// The league's folder (created if missing).
        dir: PathBuf,
        /// The league's name [default: the folder's name].
        #[arg(long)]
        name: Option<String>,
    },
    /// Add a bot, or a new version of one: copied, built, checked, and only then in the league.
    Add(AddArgs),
    /// Play the games the league needs now (resumes a round cut off).
    Run(RunArgs),
    /// Retire an entrant (NAME@VERSION), or every active version of a bot (NAME): its games and
    /// rating stay, it plays no more.
    Retire {
        /// The league's folder.
        dir: PathBuf,
        /// NAME or NAME@VERSION.
        entrant: String,
    },
    /// Print the ladder: one joint fit of every game, active and retired apart, versions compared.
    Table {
        /// The league's folder.
        dir: PathBuf,
        /// The format.
        #[arg(long, default_value = "table")]
        format: FormatArg,
        #[command(flatten)]
        wide: WideFlag,
    },
}

#[derive(Debug, clap::Args)]
struct AddArgs {
    /// The league's folder.
    dir: PathBuf,
    /// The bot's name (its versions share it); with --from, the bot.toml's.
    #[arg(required_unless_present = "from", conflicts_with = "from")]
    name: Option<String>,
    /// The version [default: bot.toml's, else one more than the bot's versions so far].
    #[arg(long)]
    version: Option<String>,
    /// A folder with a bot.toml (name, version, command, optional build): the whole folder is copied.
    #[arg(long, value_name = "FOLDER")]
    from: Option<PathBuf>,
    /// The bot's command; the files it names are copied into the league.
    #[arg(last = true, required_unless_present = "from")]
    command: Vec<String>,
}

#[derive(Debug, clap::Args)]
struct RunArgs {
    /// The league's folder.
    dir: PathBuf,
    /// Play at most N games in this run.
    #[arg(long, value_name = "N")]
    games: Option<usize>,
    /// The half-width of the 95% interval to play every active entrant to, in Elo [default: the league's
    /// precision_elo].
    #[arg(long, value_name = "ELO")]
    until: Option<u32>,
    /// Games played at once [default: the number of cores].
    #[arg(long, value_name = "N", value_parser = crate::flags::parse_concurrency)]
    concurrency: Option<usize>,
    /// Play only shard K of N of the round (decided from the journal as every shard finds it); join the
    /// shards' league folders with `arena merge OUT DIR...`.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    #[command(flatten)]
    wide: WideFlag,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        Command::Init { dir, name } => init(&dir, name),
        Command::Add(add_args) => crate::runtime::runtime()?.block_on(add(add_args)),
        Command::Run(run_args) => crate::runtime::runtime()?.block_on(play_league(run_args)),
        Command::Retire { dir, entrant } => retire(&dir, &entrant),
        Command::Table { dir, format, wide } => {
            let (state, tallies) = fold(&dir.join(JOURNAL), Moves::Drop, &mut Counts)?;
            out!("{}", render_table(&table(&state, tallies, None)?, format.0, wide.fit()));
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn init(dir: &Path, name: Option<String>) -> anyhow::Result<ExitCode> {
    let name = match name {
        Some(name) => name,
        None => std::path::absolute(dir)?
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .context("give the league a name with --name")?,
    };
    folder::init(dir, &name)?;
    outln!(
        "A league {name} in {}: edit {}/league.toml before the first entrant if you like, then add bots with \
         `arena league add {} NAME -- COMMAND...`",
        dir.display(),
        dir.display(),
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

async fn add(args: AddArgs) -> anyhow::Result<ExitCode> {
    let mut opened = folder::open(&args.dir)?;
    let (name, file_version, command, build_command) = match &args.from {
        Some(from) => {
            let file = folder::bot_file(from)?;
            let command =
                shlex::split(&file.command).with_context(|| format!("{}/bot.toml: bad command", from.display()))?;
            (file.name, file.version, command, file.build)
        }
        None => (
            args.name.clone().expect("clap requires it"),
            None,
            args.command.clone(),
            None,
        ),
    };
    let version = match args.version.clone().or(file_version) {
        Some(version) => version,
        None => next_version(&opened.state, &name),
    };
    if !is_plain_name(&name) || !is_plain_name(&version) {
        bail!(
            "the name {:?} and version {:?} must be plain: {}",
            name,
            version,
            pahtum_tournament::config::PLAIN_NAME_RULE
        );
    }
    if command.is_empty() {
        bail!("the bot's command is empty; give it after --, e.g. -- python3 bot.py");
    }
    let label = pahtum_league::lines::label(&name, &version);
    if opened.state.number_of(&label).is_some() {
        bail!("{label} is in the league already; give another --version");
    }
    let staged = folder::stage(
        &args.dir,
        &label,
        args.from.as_deref(),
        &command,
        &opened.state.league().caps(),
    )?;
    let outcome = admit(&args.dir, &mut opened, &staged, (&name, &version, build_command)).await;
    let _ = std::fs::remove_dir_all(args.dir.join(STAGING));
    outcome?;
    outln!("{label} joined the league.");
    Ok(ExitCode::SUCCESS)
}

/// Builds and checks the staged entrant and, if both pass, lets it join.
async fn admit(
    dir: &Path,
    opened: &mut Opened,
    staged: &folder::Staged,
    (name, version, build_command): (&str, &str, Option<String>),
) -> anyhow::Result<()> {
    let label = pahtum_league::lines::label(name, version);
    let hash = folder::content_hash(&staged.dir, &staged.command, build_command.as_deref())?;
    if let Some(same) = opened.state.entrants().iter().find(|entrant| entrant.hash == hash) {
        bail!(
            "{label} has the same files and command as {} (content hash {hash}); nothing was added",
            same.label()
        );
    }
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))?;
    let league = opened.state.league();
    let sandbox = league.sandbox.is_some();
    crate::flags::require_sandbox(sandbox)?;
    let refused = |step| format!("{label} was not added: its {step} failed (the league is unchanged)");
    if let Some(command) = &build_command {
        let log = logs.join(format!("build-{label}.log"));
        let policy = BuildPolicy {
            sandbox: league
                .sandbox
                .as_ref()
                .map(|config| pahtum_runner::launch::configured_sandbox(config, dir)),
            time_limit: Duration::from_secs(league.build_timeout_s),
            env: league.build_env.clone().into_iter().collect(),
            cpu_percent: league.build_cpu_percent,
        };
        build(&staged.dir, command, &policy, &log)
            .await
            .with_context(|| refused("build"))?;
    }
    let log = logs.join(format!("check-{label}.log"));
    let line = command_line(&staged.command);
    let opponent = pahtum_builtin::spec(FIRST_FREE, FIRST_FREE)?;
    let bot = pahtum_builtin::spec("bot", &line).with_context(|| refused("check"))?;
    let bot = crate::flags::SandboxFlag { sandbox }.apply(bot);
    check(bot, &opponent, &staged.dir, &line, &log)
        .await
        .with_context(|| refused("check"))?;
    let entrant = Entrant {
        name: name.to_owned(),
        version: version.to_owned(),
        hash,
        command: staged.command.clone(),
        build: build_command,
        joined_unix_ms: unix_ms(),
    };
    folder::admit(dir, opened, &staged.dir, entrant)?;
    Ok(())
}

/// One more than the number of versions of `name` so far, as text (the first version is "1").
fn next_version(state: &LeagueState, name: &str) -> String {
    let versions = state.entrants().iter().filter(|entrant| entrant.name == name).count();
    (versions + 1..)
        .map(|number| number.to_string())
        .find(|version| state.number_of(&pahtum_league::lines::label(name, version)).is_none())
        .expect("a free version")
}

fn retire(dir: &Path, entrant: &str) -> anyhow::Result<ExitCode> {
    let mut opened = folder::open(dir)?;
    let state = &opened.state;
    let labels: Vec<String> = (0..state.entrants().len())
        .filter(|&number| !state.is_retired(number))
        .map(|number| state.entrants()[number].label())
        .filter(|label| label == entrant || label.split_once('@').is_some_and(|(name, _)| name == entrant))
        .collect();
    if labels.is_empty() {
        bail!(
            "no active entrant is {:?}; `arena league table {}` lists them",
            entrant,
            dir.display()
        );
    }
    for label in labels {
        opened.record(Event::Retired(Retirement {
            entrant: label.clone(),
            unix_ms: unix_ms(),
        }))?;
        outln!("{label} retired: its games and rating stay, it plays no more.");
    }
    Ok(ExitCode::SUCCESS)
}

async fn play_league(args: RunArgs) -> anyhow::Result<ExitCode> {
    let concurrency = args
        .concurrency
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let mut played = 0;
    let mut decided = false;
    let stop = StopSignals::default();
    let mut stop = std::pin::pin!(stop);
    loop {
        let mut opened = folder::open(&args.dir)?;
        let target = f64::from(args.until.unwrap_or(opened.state.league().precision_elo));
        let mut pending = opened.state.pending();
        if pending.is_empty() {
            // A shard plays one round: the next is decided once the shards are merged.
            if decided && args.shard.is_some() {
                break;
            }
            let pairs = next_round(&args.dir, &opened.state, target)?;
            if pairs.is_empty() {
                outln!("{}", settled_note(&opened.state, target));
                break;
            }
            let number = opened.state.rounds() + 1;
            opened.record(Event::Round(Round { number, pairs }))?;
            decided = true;
            pending = opened.state.pending();
        } else if let Some(shard) = args.shard {
            // Another shard's games are left: this one plays its own, if it has any left.
            if pending.iter().all(|game| !shard.contains(2 * game.unit)) {
                errln!(
                    "arena: shard {shard} has played its games of round {}; merge the shards' folders with `arena merge`",
                    opened.state.rounds()
                );
                break;
            }
        }
        if let Some(shard) = args.shard {
            pending.retain(|game| shard.contains(2 * game.unit));
        }
        if let Some(games) = args.games {
            if played >= games {
                break;
            }
            pending.truncate(games - played);
        }
        let count = pending.len();
        let ending = play_round(&args.dir, &mut opened, pending, concurrency, stop.as_mut()).await?;
        played += count;
        if ending == RunEnding::Interrupted {
            errln!("arena: interrupted; to resume, run the same command again");
            return Ok(crate::signals::interrupted());
        }
        if args.shard.is_some() && decided {
            break;
        }
    }
    let (state, tallies) = fold(&args.dir.join(JOURNAL), Moves::Drop, &mut Counts)?;
    out!(
        "{}",
        render_table(&table(&state, tallies, None)?, Format::Table, args.wide.fit())
    );
    Ok(ExitCode::SUCCESS)
}

/// `arena merge OUT DIR...` of league folders (the shards of a round): the merged journal in OUT, with the
/// rules and the entrants' snapshots of the first input's folder when OUT has none; prints the table.
pub fn merge(out: &Path, inputs: &[PathBuf], wide: WideFlag) -> anyhow::Result<ExitCode> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create the output folder {}", out.display()))?;
    let journal = out.join(JOURNAL);
    let merged = pahtum_league::merge::merge(inputs, &journal)?;
    if let Some(first) = inputs[0].parent() {
        folder::copy_league(first, out)?;
    }
    if merged.agreeing_duplicates > 0 {
        errln!(
            "arena: {} games were recorded the same in several journals (kept once)",
            merged.agreeing_duplicates
        );
    }
    let (state, tallies) = fold(&journal, Moves::Drop, &mut Counts)?;
    out!(
        "{}",
        render_table(&table(&state, tallies, None)?, Format::Table, wide.fit())
    );
    errln!(
        "arena: {} games from {} journals into {}",
        merged.games,
        inputs.len(),
        journal.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The layout pairs of the league's next round, by the pairing rule, from one fit of every game so far.
fn next_round(dir: &Path, state: &LeagueState, target: f64) -> anyhow::Result<Vec<LayoutPair>> {
    let (_, tallies) = fold(&dir.join(JOURNAL), Moves::Drop, &mut Counts)?;
    let table = table(state, tallies, None)?;
    let entrants: Vec<pairing::Entrant> = state
        .entrants()
        .iter()
        .enumerate()
        .map(|(number, entrant)| {
            let label = entrant.label();
            let row = table
                .active
                .iter()
                .chain(&table.retired)
                .find(|row| row.entrant == label);
            pairing::Entrant {
                active: !state.is_retired(number),
                rating: row.and_then(|row| Some((row.elo?, (row.upper? - row.lower?) / 2.0))),
                games: row.map_or(0, |row| u64::from(row.games)),
            }
        })
        .collect();
    let opponents = state.league().opponents as usize;
    let pairs = pairing::round(
        &entrants,
        target,
        opponents,
        |a, b| state.next_layout_round(a, b).is_some(),
        |a, b| state.decided_between(a, b),
    );
    Ok(pairs
        .into_iter()
        .map(|(a, b)| {
            let k = state
                .next_layout_round(a, b)
                .expect("the rule asked for a pair that may play");
            LayoutPair(a as u32, b as u32, k)
        })
        .collect())
}

/// Why a league needs no more games now, in words.
fn settled_note(state: &LeagueState, target: f64) -> String {
    let active = (0..state.entrants().len()).filter(|&n| !state.is_retired(n)).count();
    if active < 2 {
        "The league needs two active entrants to play; add bots with `arena league add`.".to_owned()
    } else {
        format!(
            "The league needs no more games now: every active entrant's 95% interval is within ±{target} Elo, \
             or its pairs have played every game the rules allow (games_per_pair)."
        )
    }
}

/// Plays `pending` games of the league with its active entrants, `concurrency` at once, until done or a stop
/// signal.
async fn play_round(
    dir: &Path,
    opened: &mut Opened,
    pending: Vec<pahtum_league::PendingGame>,
    concurrency: usize,
    stop: std::pin::Pin<&mut StopSignals>,
) -> anyhow::Result<RunEnding> {
    let arena = std::env::current_exe().context("cannot find the arena executable for the built-in bots")?;
    let file = tournament_file(&opened.state, dir, concurrency, pahtum_builtin::NAMES);
    crate::flags::require_sandbox(opened.state.league().sandbox.is_some())?;
    let launcher = Launcher::for_entrants(&file, &arena);
    let bots = Bots::of_file(&file, &launcher);
    let work = RoundWork::new(&opened.state, pending);
    let names = work.players();
    let mut progress = if super::flow::live_status() {
        Progress::bar()
    } else {
        Progress::lines(Box::new(std::io::stderr()), PLAIN_EVERY)
    };
    // Its games in progress, shown by `arena serve` as a run's are.
    let live = Arc::new(Live::default());
    let socket = super::flow::open_live_socket(dir, &live);
    let mut shown = &*live;
    let played = play(
        &work,
        &mut opened.journal,
        &names,
        dir,
        (bots, &live),
        &mut Tee(&mut progress, &mut shown),
        stop,
    )
    .await;
    if let Some(socket) = socket {
        socket.close().await;
    }
    match played {
        Err(PlayError::CannotStart(errors)) => {
            let mut message = String::from("some entrants cannot start, so no game was played:");
            for error in errors {
                message.push_str(&format!("\n  {}", crate::forfeit::start_error(&error, "    ")));
            }
            bail!(message)
        }
        played => Ok(played?),
    }
}
