//! `arena show JOURNAL_OR_RECORD [GAME_ID]`: games in the terminal.
//!
//! With a game id (or a record file from `arena game --out`), one game move by
//! move: the board after each move, the running score and each bot's `info`.
//! Otherwise a list of the journal's games, all of them or those of
//! `--bot BOT` or `--lost-by BOT`, to choose one to look at. Bot text is
//! escaped (see `pahtum_report::show`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use pahtum_record::GameRecord;
use pahtum_report::show::{Select, game_list, game_text};
use pahtum_tournament::journal;

/// Print a game move by move, or list the games of a journal.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  arena show runs/quickstart --lost-by random\n  arena show runs/quickstart 003-01-b"
)]
pub struct Args {
    /// A journal (or a run's output folder), or a game record written by `arena game --out`.
    pub source: PathBuf,
    /// The game to show [default: list the games].
    pub game: Option<String>,
    /// List the games this bot played.
    #[arg(long, value_name = "BOT", conflicts_with_all = ["game", "lost_by"])]
    pub bot: Option<String>,
    /// List the games this bot lost.
    #[arg(long, value_name = "BOT", conflicts_with = "game")]
    pub lost_by: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let path = crate::inputs::journal_path(&args.source);
    let text = match (load(&path)?, &args.game) {
        (Source::Record(record), _) => game_text(&record)?,
        (Source::Journal(records), Some(id)) => {
            let Some(record) = records.iter().find(|record| &record.id == id) else {
                bail!(
                    "{} has no game {id:?}; run `arena show {}` for the list",
                    path.display(),
                    path.display()
                );
            };
            game_text(record)?
        }
        (Source::Journal(records), None) => {
            let select = match (args.bot, args.lost_by) {
                (Some(bot), _) => Select::Bot(bot),
                (None, Some(bot)) => Select::LostBy(bot),
                (None, None) => Select::All,
            };
            game_list(&records, &select)
        }
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// What a file holds: one game record, or a journal's.
enum Source {
    Record(Box<GameRecord>),
    Journal(Vec<GameRecord>),
}

fn load(path: &Path) -> anyhow::Result<Source> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    match serde_json::from_str::<GameRecord>(&text) {
        Ok(record) => Ok(Source::Record(Box::new(record))),
        Err(_) => Ok(Source::Journal(journal::read(path)?.records)),
    }
}
