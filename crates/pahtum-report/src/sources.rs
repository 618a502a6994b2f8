//! What a games source is: the games a command reads. A journal, a run's
//! folder (which holds `journal.jsonl`), or a folder of a sharded run's
//! `shard-K-of-N` folders; several of them are merged into one first, into a
//! temporary folder, as `arena merge` does. A league's folder (or its shards'
//! copies) does as well: its games are read by the league's reader, its
//! entrants are the bots. Where a command reads games rather than a
//! tournament (`arena show`, `arena report`, `arena analyze`), a single game's
//! record (what `arena game --out` and `arena play --out` write) does as
//! well: [`source`] tells the two apart.
//!
//! Nothing here prints: what a command should say beside its answer (games
//! missing from merged shards) comes back as [`Note`]s, and what goes wrong as
//! a [`SourceError`], each with what to do about it.

use std::collections::BTreeSet;
use std::fmt;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use pahtum_journal::merge::{MergeError, merge};
use pahtum_journal::sink::Records;
use pahtum_journal::{self as journal, JournalError, Moves};
use pahtum_league::{self as league, LeagueError};
use pahtum_record::annotations::beside;
use pahtum_record::{GameRecord, ReplayError};
use pahtum_run::resume::JOURNAL;
use pahtum_tournament::shard::Shard;
use tempfile::TempDir;

use crate::show::{Select, UnknownBot, bots_of};

/// Why the games of a source cannot be read, or the game asked for is not there. The journals' own errors
/// are boxed: they are large, and this one is returned on every path.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// A folder given could not be listed.
    #[error("cannot list the folder {}", path.display())]
    ListFolder {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A folder given is neither a run's nor one of shards' folders.
    #[error(
        "{} holds neither {JOURNAL} nor shard-K-of-N folders with one; give a journal or a run folder",
        path.display()
    )]
    NoJournal {
        /// The folder.
        path: PathBuf,
    },
    /// The temporary folder to merge journals in could not be made.
    #[error("cannot create a temporary folder to merge the journals in")]
    TempFolder(#[source] std::io::Error),
    /// The journals given do not merge.
    #[error(transparent)]
    Merge(Box<MergeError>),
    /// A journal cannot be read.
    #[error(transparent)]
    Journal(Box<JournalError>),
    /// A league's journal cannot be read, or its shards do not merge.
    #[error(transparent)]
    League(Box<LeagueError>),
    /// A game's record was given with other files.
    #[error(
        "{} is not a journal; a game's record is read alone, not with journals",
        path.display()
    )]
    NotAlone {
        /// The record's file.
        path: PathBuf,
    },
    /// A file could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A file is neither a journal nor a record.
    #[error(
        "{} is neither a journal nor a game's record (as `arena game --out` writes)",
        path.display()
    )]
    NotARecord {
        /// The file.
        path: PathBuf,
        /// What is wrong with it as a record.
        #[source]
        source: serde_json::Error,
    },
    /// A game's record does not replay by the rules.
    #[error("the game in {} does not replay", path.display())]
    Replay {
        /// The record's file.
        path: PathBuf,
        /// Why.
        #[source]
        source: ReplayError,
    },
    /// `--bot` or `--lost-by` named a bot that played none of the games.
    #[error("cannot list the games of {}", path.display())]
    Select {
        /// The source as the user named it.
        path: PathBuf,
        /// The bot and those the games have.
        #[source]
        source: UnknownBot,
    },
    /// The source has no game of this id.
    #[error(
        "{} has no game {id:?}; run `arena show {}` for the list",
        path.display(),
        path.display()
    )]
    NoGame {
        /// The source as the user named it.
        path: PathBuf,
        /// The id asked for.
        id: String,
    },
    /// A game's record was given with `--game` naming another game.
    #[error("{} is the record of game {record:?}, not {id:?}: leave --game out", path.display())]
    OtherRecord {
        /// The record's file.
        path: PathBuf,
        /// The record's game.
        record: String,
        /// The id asked for.
        id: String,
    },
    /// A journal of several games was given without `--game`.
    #[error(
        "{} is a journal of {games} games: say which with --game ID (`arena show {}` lists them)",
        path.display(),
        path.display()
    )]
    WhichGame {
        /// The source as the user named it.
        path: PathBuf,
        /// How many games it has.
        games: usize,
    },
}

impl From<MergeError> for SourceError {
    fn from(error: MergeError) -> SourceError {
        SourceError::Merge(Box::new(error))
    }
}

impl From<JournalError> for SourceError {
    fn from(error: JournalError) -> SourceError {
        SourceError::Journal(Box::new(error))
    }
}

impl From<LeagueError> for SourceError {
    fn from(error: LeagueError) -> SourceError {
        SourceError::League(Box::new(error))
    }
}

/// What a command says beside the games it read (on stderr, after `arena: `).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// The journals merged lack some of their tournament's games.
    Missing {
        /// How many games are missing.
        missing: usize,
        /// How many the tournament schedules.
        scheduled: usize,
    },
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::Missing { missing, scheduled } => write!(
                f,
                "{missing} of {scheduled} games are missing from these journals (arena merge lists them)"
            ),
        }
    }
}

/// A run's folder names its journal; anything else is the journal itself.
pub fn journal_path(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join(JOURNAL)
    } else {
        path.to_owned()
    }
}

/// The journals that `paths` name: a journal is itself, a run folder its journal.jsonl, and a folder
/// of shards the journals of its `shard-K-of-N` folders, in shard order.
pub fn journals(paths: &[PathBuf]) -> Result<Vec<PathBuf>, SourceError> {
    let mut journals = Vec::new();
    for path in paths {
        if !path.is_dir() {
            journals.push(path.clone());
            continue;
        }
        if path.join(JOURNAL).exists() {
            journals.push(path.join(JOURNAL));
            continue;
        }
        let entries = std::fs::read_dir(path).map_err(|source| SourceError::ListFolder {
            path: path.clone(),
            source,
        })?;
        let mut shards: Vec<(Shard, PathBuf)> = entries
            .filter_map(|entry| {
                let entry = entry.ok()?;
                let shard = Shard::from_folder_name(entry.file_name().to_str()?)?;
                Some((shard, entry.path().join(JOURNAL)))
            })
            .filter(|(_, journal)| journal.exists())
            .collect();
        if shards.is_empty() {
            return Err(SourceError::NoJournal { path: path.clone() });
        }
        shards.sort_by_key(|(shard, _)| (shard.count(), shard.index()));
        journals.extend(shards.into_iter().map(|(_, journal)| journal));
    }
    Ok(journals)
}

/// One journal to read: the one given, or those given merged into a temporary folder.
#[derive(Debug)]
pub struct OneJournal {
    /// The journal.
    pub path: PathBuf,
    /// The temporary folder of a merged journal, which lives as long as this.
    pub merged: Option<TempDir>,
    /// What to say about the merge (games missing).
    pub notes: Vec<Note>,
}

/// One journal for `paths` (see [`journals`]): the journal itself when there is one, else the
/// journals merged into a temporary folder (a league's shards as a league's merge joins them).
pub fn one_journal(paths: &[PathBuf]) -> Result<OneJournal, SourceError> {
    let inputs = journals(paths)?;
    if let [journal] = inputs.as_slice() {
        return Ok(OneJournal {
            path: journal.clone(),
            merged: None,
            notes: Vec::new(),
        });
    }
    let folder = tempfile::tempdir().map_err(SourceError::TempFolder)?;
    let path = folder.path().join(JOURNAL);
    let mut notes = Vec::new();
    if inputs.first().is_some_and(|first| league::is_league_journal(first)) {
        league::merge::merge(&inputs, &path)?;
    } else {
        let merged = merge(&inputs, &path)?;
        if !merged.missing.is_empty() {
            notes.push(Note::Missing {
                missing: merged.missing.len(),
                scheduled: merged.scheduled,
            });
        }
    }
    Ok(OneJournal {
        path,
        merged: Some(folder),
        notes,
    })
}

/// Where a command's games come from: one game's record, or a journal.
#[derive(Debug)]
pub enum Source {
    /// A game's record, as `arena game --out` and `arena play --out` write it; it replays.
    Record {
        /// The record's file.
        path: PathBuf,
        /// The game.
        record: Box<GameRecord>,
    },
    /// A journal: the one given or in the run folder given, or those given merged into a temporary
    /// folder.
    Journal(OneJournal),
}

/// The games of `paths`: a game's record alone, or journals, run folders and folders of shards as
/// [`one_journal`] takes them. A file is a journal if its first line is a journal's header.
pub fn source(paths: &[PathBuf]) -> Result<Source, SourceError> {
    for path in paths {
        if path.is_dir() || is_journal(path)? {
            continue;
        }
        if paths.len() > 1 {
            return Err(SourceError::NotAlone { path: path.clone() });
        }
        return Ok(Source::Record {
            path: path.clone(),
            record: Box::new(read_record(path)?),
        });
    }
    Ok(Source::Journal(one_journal(paths)?))
}

/// Every game of a source, in memory, and the names of its bots.
#[derive(Debug)]
pub struct Games {
    /// The records, in the order of the journal.
    pub records: Vec<GameRecord>,
    /// The bots of a journal's tournament or a league's entrants (those without a game too), or a record's
    /// two.
    pub bots: BTreeSet<String>,
}

impl Source {
    /// What to say about the source (games missing from merged journals).
    pub fn notes(&self) -> &[Note] {
        match self {
            Source::Record { .. } => &[],
            Source::Journal(journal) => &journal.notes,
        }
    }

    /// Where the analysis of the games of `named` (which is this source) lies: beside its journal or
    /// record ([`pahtum_record::annotations::beside`]), or in the folder of shards whose journals were
    /// merged.
    pub fn analysis_path(&self, named: &Path) -> PathBuf {
        match self {
            Source::Journal(OneJournal { path, merged: None, .. }) => beside(path),
            Source::Journal(OneJournal { merged: Some(_), .. }) => named.join("analysis.jsonl"),
            Source::Record { .. } => beside(named),
        }
    }

    /// Reads every game of the source.
    pub fn games(self) -> Result<Games, SourceError> {
        match self {
            Source::Record { record, .. } => Ok(Games {
                bots: bots_of(std::slice::from_ref(&record)),
                records: vec![*record],
            }),
            Source::Journal(OneJournal { path, .. }) if league::is_league_journal(&path) => {
                let mut records = Records::default();
                let read = league::read(&path, Moves::Keep, &mut records)?;
                let records = records.0;
                let mut bots = bots_of(&records);
                bots.extend(read.state.entrants().iter().map(league::Entrant::label));
                Ok(Games { records, bots })
            }
            Source::Journal(OneJournal { path, .. }) => {
                let contents = journal::read(&path)?;
                let mut bots = bots_of(&contents.records);
                bots.extend(contents.schedule.tournament().bot_names());
                Ok(Games {
                    records: contents.records,
                    bots,
                })
            }
        }
    }

    /// The game `id` of this source, which the user named `named`: a record's own game (which needs no
    /// id), or a journal's game of that id, or its only game.
    pub fn recorded_game(self, id: Option<&str>, named: &Path) -> Result<GameRecord, SourceError> {
        if let Source::Record { path, record } = &self
            && let Some(id) = id.filter(|&id| id != record.id)
        {
            return Err(SourceError::OtherRecord {
                path: path.clone(),
                record: record.id.clone(),
                id: id.to_owned(),
            });
        }
        let games = self.games()?;
        match (id, games.records.as_slice()) {
            (_, [only]) if id.is_none_or(|id| id == only.id) => Ok(only.clone()),
            (Some(id), _) => games.game(id, named).cloned(),
            (None, records) => Err(SourceError::WhichGame {
                path: named.to_owned(),
                games: records.len(),
            }),
        }
    }
}

impl Games {
    /// The games that `--bot` or `--lost-by` choose (every game without either), checked against the
    /// bots these games have; `source` is what the user named, for the error.
    pub fn select(&self, bot: Option<String>, lost_by: Option<String>, source: &Path) -> Result<Select, SourceError> {
        let select = match (bot, lost_by) {
            (Some(bot), _) => Select::Bot(bot),
            (None, Some(bot)) => Select::LostBy(bot),
            (None, None) => Select::All,
        };
        select.check(&self.bots).map_err(|unknown| SourceError::Select {
            path: source.to_owned(),
            source: unknown,
        })?;
        Ok(select)
    }

    /// The game `id`; `source` is what the user named, for the error.
    pub fn game(&self, id: &str, source: &Path) -> Result<&GameRecord, SourceError> {
        self.records
            .iter()
            .find(|record| record.id == id)
            .ok_or_else(|| SourceError::NoGame {
                path: source.to_owned(),
                id: id.to_owned(),
            })
    }
}

/// Whether the file at `path` starts with a journal's header: a JSON object with a `journal` key on the
/// first line (a record is one object, on one line or pretty-printed).
fn is_journal(path: &Path) -> Result<bool, SourceError> {
    let unreadable = |source| SourceError::Read {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let mut first = Vec::new();
    std::io::BufReader::new(file)
        .read_until(b'\n', &mut first)
        .map_err(unreadable)?;
    let header = serde_json::from_slice::<serde_json::Value>(&first);
    Ok(header.is_ok_and(|header| header.get("journal").is_some()))
}

/// The game record in the file at `path`, checked by replaying it.
fn read_record(path: &Path) -> Result<GameRecord, SourceError> {
    let text = std::fs::read_to_string(path).map_err(|source| SourceError::Read {
        path: path.to_owned(),
        source,
    })?;
    let record: GameRecord = serde_json::from_str(&text).map_err(|source| SourceError::NotARecord {
        path: path.to_owned(),
        source,
    })?;
    record.replay().map_err(|source| SourceError::Replay {
        path: path.to_owned(),
        source,
    })?;
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pahtum_journal::{Header, Journal};
    use pahtum_tournament::schedule::schedule;
    use pahtum_tournament::testing::{played, tournament};

    /// The error's message and each of its causes, as `arena` prints them.
    fn chain(error: &dyn std::error::Error) -> String {
        let mut text = error.to_string();
        let mut cause = error.source();
        while let Some(error) = cause {
            text.push_str(&format!(": {error}"));
            cause = error.source();
        }
        text
    }

    /// A journal of the test tournament at `path` with its games `ids`, its header naming `shard`.
    fn journal_of(path: &Path, shard: Option<Shard>, ids: &[&str]) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut journal = Journal::create_with(path, &Header::new(&tournament()).of_shard(shard)).unwrap();
        for id in ids {
            journal.append(&played(id)).unwrap();
        }
    }

    /// The ids of the games of the test tournament that `shard` plays.
    fn ids_of(shard: Shard) -> Vec<String> {
        let games = schedule(&tournament());
        games
            .into_iter()
            .filter(|game| shard.contains(game.index))
            .map(|game| game.id)
            .collect()
    }

    #[test]
    fn a_record_is_read_alone_and_replayed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.json");
        let record = played("000-00-a");
        std::fs::write(&path, serde_json::to_string_pretty(&record).unwrap()).unwrap();
        let named = [path.clone()];
        let read = source(&named).unwrap();
        assert!(matches!(&read, Source::Record { record: read, .. } if **read == record));
        assert_eq!(read.analysis_path(&path), dir.path().join("game.analysis.jsonl"));
        assert!(read.notes().is_empty());
        let games = read.games().unwrap();
        assert_eq!(games.records, std::slice::from_ref(&record));
        assert_eq!(games.bots, BTreeSet::from(["a".to_owned(), "b".to_owned()]));
        let game = source(&named).unwrap().recorded_game(None, &path).unwrap();
        assert_eq!(game, record);
        let other = source(&named)
            .unwrap()
            .recorded_game(Some("001-00-a"), &path)
            .unwrap_err();
        assert!(
            other
                .to_string()
                .ends_with("is the record of game \"000-00-a\", not \"001-00-a\": leave --game out")
        );
        // A record goes alone: not with a journal.
        let journal = dir.path().join("journal.jsonl");
        journal_of(&journal, None, &[]);
        let error = source(&[journal, path.clone()]).unwrap_err();
        assert!(matches!(error, SourceError::NotAlone { .. }), "{error}");
        assert!(
            error
                .to_string()
                .ends_with("game.json is not a journal; a game's record is read alone, not with journals")
        );
    }

    #[test]
    fn a_file_that_is_no_record_and_a_record_that_does_not_replay_say_so_with_their_cause() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        std::fs::write(&path, "hello\n").unwrap();
        let error = source(std::slice::from_ref(&path)).unwrap_err();
        assert!(matches!(error, SourceError::NotARecord { .. }), "{error:?}");
        let text = chain(&error);
        assert!(
            text.contains("notes.txt is neither a journal nor a game's record (as `arena game --out` writes): "),
            "{text}"
        );
        let mut record = played("000-00-a");
        record.moves.truncate(3);
        record.moves.push(record.moves[0].clone());
        std::fs::write(&path, serde_json::to_string(&record).unwrap()).unwrap();
        let error = source(std::slice::from_ref(&path)).unwrap_err();
        assert!(matches!(error, SourceError::Replay { .. }), "{error:?}");
        assert!(error.to_string().ends_with("notes.txt does not replay"), "{error}");
        assert!(std::error::Error::source(&error).is_some());
    }

    #[test]
    fn a_journal_and_a_run_folder_are_the_same_journal_and_its_games_are_selected() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL);
        journal_of(&path, None, &["000-00-a", "000-00-b"]);
        for named in [path.clone(), dir.path().to_owned()] {
            assert_eq!(journal_path(&named), path);
            assert_eq!(
                journals(std::slice::from_ref(&named)).unwrap(),
                std::slice::from_ref(&path)
            );
            let read = source(std::slice::from_ref(&named)).unwrap();
            let Source::Journal(OneJournal {
                path: read_path,
                merged: None,
                notes,
            }) = &read
            else {
                panic!("{read:?}");
            };
            assert_eq!((read_path, notes.as_slice()), (&path, &[][..]));
            assert_eq!(read.analysis_path(&named), dir.path().join("analysis.jsonl"));
            let games = read.games().unwrap();
            let ids: Vec<&str> = games.records.iter().map(|record| record.id.as_str()).collect();
            assert_eq!(ids, ["000-00-a", "000-00-b"]);
            // Every bot of the tournament, with a game or not.
            assert_eq!(games.bots.len(), 3, "{:?}", games.bots);
            assert_eq!(games.select(None, None, &named).unwrap(), Select::All);
            assert_eq!(
                games.select(None, Some("c".to_owned()), &named).unwrap(),
                Select::LostBy("c".to_owned())
            );
            let error = games.select(Some("d".to_owned()), None, &named).unwrap_err();
            assert!(matches!(error, SourceError::Select { .. }), "{error}");
            assert_eq!(
                error.to_string(),
                format!("cannot list the games of {}", named.display())
            );
            assert!(
                chain(&error).contains(": no bot named \"d\" played these games"),
                "{}",
                chain(&error)
            );
            assert_eq!(games.game("000-00-b", &named).unwrap().id, "000-00-b");
            let error = games.game("zzz", &named).unwrap_err();
            let shown = named.display();
            assert_eq!(
                error.to_string(),
                format!("{shown} has no game \"zzz\"; run `arena show {shown}` for the list")
            );
        }
        let which = source(std::slice::from_ref(&path))
            .unwrap()
            .recorded_game(None, &path)
            .unwrap_err();
        assert!(
            which
                .to_string()
                .contains("is a journal of 2 games: say which with --game ID (`arena show "),
            "{which}"
        );
        let game = source(std::slice::from_ref(&path)).unwrap();
        assert_eq!(game.recorded_game(Some("000-00-b"), &path).unwrap().id, "000-00-b");
    }

    #[test]
    fn a_folder_of_shards_is_merged_in_shard_order_and_its_missing_games_noted() {
        let dir = tempfile::tempdir().unwrap();
        let shards = [Shard::new(2, 2).unwrap(), Shard::new(1, 2).unwrap()];
        let mut expected = Vec::new();
        for shard in shards {
            let path = dir.path().join(shard.folder_name()).join(JOURNAL);
            let ids = ids_of(shard);
            // The first shard has every game, the second all but its last one.
            let ids: Vec<&str> = ids
                .iter()
                .map(String::as_str)
                .take(ids.len() - shard.index() + 1)
                .collect();
            journal_of(&path, Some(shard), &ids);
            expected.insert(0, path);
        }
        std::fs::create_dir(dir.path().join("not-a-shard")).unwrap();
        let named = [dir.path().to_owned()];
        assert_eq!(journals(&named).unwrap(), expected);
        let read = source(&named).unwrap();
        let Source::Journal(OneJournal {
            merged: Some(folder),
            path,
            ..
        }) = &read
        else {
            panic!("{read:?}");
        };
        assert_eq!(path, &folder.path().join(JOURNAL));
        let scheduled = schedule(&tournament()).len();
        assert_eq!(read.notes(), [Note::Missing { missing: 1, scheduled }]);
        assert_eq!(
            read.notes()[0].to_string(),
            format!("1 of {scheduled} games are missing from these journals (arena merge lists them)")
        );
        assert_eq!(read.analysis_path(&named[0]), dir.path().join("analysis.jsonl"));
        assert_eq!(read.games().unwrap().records.len(), scheduled - 1);
    }

    #[test]
    fn a_league_journal_has_its_entrants_as_bots() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL);
        pahtum_league::testing::synthetic_league_of(&path, &[("alpha", "1"), ("beta", "2"), ("gamma", "1")], 2);
        let read = source(&[dir.path().to_owned()]).unwrap();
        assert!(read.notes().is_empty());
        let games = read.games().unwrap();
        assert_eq!(games.records.len(), 2);
        assert_eq!(games.bots.len(), 3, "{:?}", games.bots);
        assert!(
            games.bots.iter().any(|bot| bot.starts_with("gamma")),
            "{:?}",
            games.bots
        );
    }

    #[test]
    fn a_missing_path_and_a_folder_without_journals_say_what_to_give() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nowhere.jsonl");
        let error = source(std::slice::from_ref(&missing)).unwrap_err();
        assert!(matches!(error, SourceError::Read { .. }), "{error:?}");
        assert_eq!(error.to_string(), format!("cannot read {}", missing.display()));
        assert!(std::error::Error::source(&error).is_some());
        // The standings' reader names a missing journal itself: it is passed on as it is.
        assert_eq!(
            journals(std::slice::from_ref(&missing)).unwrap(),
            std::slice::from_ref(&missing)
        );
        let error = journals(&[dir.path().to_owned()]).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "{} holds neither journal.jsonl nor shard-K-of-N folders with one; give a journal or a run folder",
                dir.path().display()
            )
        );
    }
}
