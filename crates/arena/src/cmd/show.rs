//! `arena show JOURNAL_OR_RECORD [GAME_ID]`: games in the terminal.
//!
//! With a game id (or a game's record, from `arena game --out` or `arena play
//! --out`), one game: by default on a screen or two (the final board with its
//! scoring runs, the plies with their times), with `--boards` the board after
//! every ply. Otherwise a list of the journal's games, all of them or those of
//! `--bot BOT` or `--lost-by BOT`, to choose one to look at; a bot that the
//! journal does not have is an error that lists those it has, not an empty
//! list. Bot text is escaped (see `pahtum_report::show`).
//!
//! A game that `arena analyze` has analysed (the analysis file beside the
//! journal or record holds a line of its record's hash: a record changed
//! since shows none) is shown with each ply's value and marks; otherwise a
//! line says the command that analyses it. An analysis file that cannot be
//! read is a warning, not a failure: the game is still shown.

use std::collections::HashMap;
use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use pahtum_record::GameRecord;
use pahtum_record::annotations::latest;
use pahtum_report::show::{Analysis, Select, View, game_list, game_text};
use pahtum_report::sources::Source;

use crate::inputs::source;
use crate::output::{errln, out};

/// Print a game, or list the games of a journal.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  arena show runs/quickstart --lost-by python-random\n  arena show runs/quickstart 003-01-b\n  arena show game.json --boards"
)]
pub struct Args {
    /// A journal (or a run's or a league's folder), or a game's record (what `arena game --out` and `arena play
    /// --out` write).
    pub source: PathBuf,
    /// The game to show [default: list the games of a journal; a record's game].
    pub game: Option<String>,
    /// List the games this bot played.
    #[arg(long, value_name = "BOT", conflicts_with_all = ["game", "lost_by"])]
    pub bot: Option<String>,
    /// List the games this bot lost.
    #[arg(long, value_name = "BOT", conflicts_with = "game")]
    pub lost_by: Option<String>,
    /// Show the board after every ply (its cell in parentheses) with the running score, and each info in full.
    #[arg(long, conflicts_with_all = ["bot", "lost_by"])]
    pub boards: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let source = source(std::slice::from_ref(&args.source))?;
    let a_record = matches!(source, Source::Record { .. });
    let file = source.analysis_path(&args.source);
    let games = source.games()?;
    let select = games.select(args.bot, args.lost_by, &args.source)?;
    let view = if args.boards { View::Boards } else { View::Compact };
    let shown = |record: &GameRecord| -> anyhow::Result<String> {
        let analyses = latest(&file, [record]).unwrap_or_else(|error| {
            errln!(
                "arena: cannot read the analysis {} ({error}); the game is shown without it",
                file.display()
            );
            HashMap::new()
        });
        let from = file.display().to_string();
        let mut command = format!("arena analyze {}", args.source.display());
        if !a_record {
            write!(command, " {}", record.id).unwrap();
        }
        let analysis = match analyses.get(&record.id) {
            Some(analysis) => Analysis::Found { analysis, from: &from },
            None => Analysis::Missing { command: &command },
        };
        Ok(game_text(record, view, analysis)?)
    };
    let text = match (&args.game, a_record && select == Select::All) {
        (Some(id), _) => shown(games.game(id, &args.source)?)?,
        (None, true) => shown(&games.records[0])?,
        (None, false) if args.boards => bail!(
            "--boards shows one game: give its id (`arena show {}` lists them)",
            args.source.display()
        ),
        (None, false) => game_list(&games.records, &select),
    };
    out!("{text}");
    Ok(ExitCode::SUCCESS)
}
