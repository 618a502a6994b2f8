//! `arena league`: a league that lives for weeks. The command only parses its flags, calls the league's
//! service and prints what comes back: pahtum-league has the data, the pairing rule and the commands that
//! play nothing (`init`, `retire`, the table, the merge: its `service`), pahtum-runner's `league` the
//! admission (build, check, join) and the rounds, pahtum-report the ladder and the progress.
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
use std::sync::Arc;

use anyhow::Context;
use pahtum_builtin::FIRST_FREE;
use pahtum_league::service::{self, table_of};
use pahtum_report::fit::Fit;
use pahtum_report::league::render_table;
use pahtum_report::progress::{PLAIN_EVERY, Progress};
use pahtum_report::render::Format;
use pahtum_run::events::Observer;
use pahtum_runner::league::{BoxError, Checker, Ended, Naming, Options, Show, Submission, add, play};
use pahtum_runner::live::Live;
use pahtum_runner::live_socket::LiveSocket;
use pahtum_tournament::config::OnOverload;
use pahtum_tournament::shard::Shard;

use super::standings::FormatArg;
use crate::flags::{SandboxFlag, WideFlag};
use crate::output::{errln, out, outln};
use crate::signals::StopSignals;

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
    /// Play again (up to 3 times, the last try standing) a game lost on time while the machine was
    /// overloaded: the bot used under half the wall time in CPU, so the machine, not the bot, was slow
    /// [default: such a game counts, and the table's notes say how many there were].
    #[arg(long)]
    replay_overloaded: bool,
    #[command(flatten)]
    wide: WideFlag,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        Command::Init { dir, name } => {
            let name = service::init(&dir, name.as_deref())?;
            let dir = dir.display();
            outln!(
                "A league {name} in {dir}: edit {dir}/league.toml before the first entrant if you like, then add \
                 bots with `arena league add {dir} NAME -- COMMAND...`"
            );
        }
        Command::Add(args) => {
            let submission = match args.from {
                Some(from) => Submission::Folder(from),
                None => Submission::Command {
                    name: args.name.expect("clap requires it"),
                    command: args.command,
                },
            };
            let checker = checker()?;
            let naming = Naming {
                version: args.version.as_deref(),
                ..Naming::default()
            };
            let added = add(&args.dir, &submission, naming, &checker);
            let label = crate::runtime::runtime()?.block_on(added)?;
            outln!("{label} joined the league.");
        }
        Command::Run(args) => return crate::runtime::runtime()?.block_on(play_league(args)),
        Command::Retire { dir, entrant } => service::retire(&dir, &entrant, |label| {
            outln!("{label} retired: its games and rating stay, it plays no more.")
        })?,
        Command::Table { dir, format, wide } => {
            out!("{}", render_table(&table_of(&dir)?, format.0, wide.fit()));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The bots of an entrant's admission check, which only the command line can make: the built-in bots run
/// in this executable.
pub(crate) fn checker() -> anyhow::Result<Checker<'static>> {
    Ok(Checker {
        opponent: pahtum_builtin::spec(FIRST_FREE, FIRST_FREE)?,
        entrant: &entrant_bot,
    })
}

/// An entrant's command line as the bot of its check, in the sandbox when its league asks.
fn entrant_bot(line: &str, sandbox: bool) -> Result<pahtum_referee::BotSpec, BoxError> {
    Ok(SandboxFlag { sandbox }.apply(pahtum_builtin::spec("bot", line)?))
}

/// A league's rounds shown as a run's games are: a progress bar on a terminal (plain lines otherwise), and
/// the games in progress through the folder's socket for `arena serve`.
struct Shown;

impl Show for Shown {
    fn progress(&mut self) -> Box<dyn Observer> {
        Box::new(if super::flow::live_status() {
            Progress::bar()
        } else {
            Progress::lines(Box::new(std::io::stderr()), PLAIN_EVERY)
        })
    }

    fn share(&mut self, dir: &Path, live: &Arc<Live>) -> Option<LiveSocket> {
        super::flow::open_live_socket(dir, live)
    }
}

async fn play_league(args: RunArgs) -> anyhow::Result<ExitCode> {
    let arena = std::env::current_exe().context("cannot find the arena executable for the built-in bots")?;
    let options = Options {
        games: args.games,
        until: args.until,
        concurrency: args
            .concurrency
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)),
        shard: args.shard,
        arena: &arena,
        builtins: pahtum_builtin::NAMES,
        on_overload: if args.replay_overloaded {
            OnOverload::Replay
        } else {
            OnOverload::Count
        },
    };
    play_shown(&args.dir, &options, args.wide.fit()).await
}

/// Plays the league in `dir` as `options` say, shown as a league's rounds are, then prints why it stopped and
/// its table, fitted as `fit` says (`arena league run`, and `arena run` of a Swiss).
pub(crate) async fn play_shown(dir: &Path, options: &Options<'_>, fit: Fit) -> anyhow::Result<ExitCode> {
    let stop = std::pin::pin!(StopSignals::default());
    match play(dir, options, &mut Shown, stop).await? {
        Ended::Settled(settled) => outln!("{settled}"),
        Ended::ShardDone { shard, round } => errln!(
            "arena: shard {shard} has played its games of round {round}; merge the shards' folders with `arena merge`"
        ),
        Ended::Played => {}
        Ended::Interrupted => {
            errln!("arena: interrupted; to resume, run the same command again");
            return Ok(crate::signals::interrupted());
        }
    }
    out!("{}", render_table(&table_of(dir)?, Format::Table, fit));
    Ok(ExitCode::SUCCESS)
}

/// `arena merge OUT DIR...` of league folders (the shards of a round): the merged journal in OUT, with the
/// rules and the entrants' snapshots of the first input's folder when OUT has none; prints the table.
pub fn merge(out: &Path, inputs: &[PathBuf], wide: WideFlag) -> anyhow::Result<ExitCode> {
    let merged = service::merge_folders(out, inputs)?;
    if merged.merged.agreeing_duplicates > 0 {
        errln!(
            "arena: {} games were recorded the same in several journals (kept once)",
            merged.merged.agreeing_duplicates
        );
    }
    out!("{}", render_table(&merged.table, Format::Table, wide.fit()));
    errln!(
        "arena: {} games from {} journals into {}",
        merged.merged.games,
        inputs.len(),
        merged.journal.display()
    );
    Ok(ExitCode::SUCCESS)
}
