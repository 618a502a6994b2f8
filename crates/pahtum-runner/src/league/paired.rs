//! A tournament paired as it is played (`format = "swiss"` or `"knockout"`) is
//! a league in its output folder.
//!
//! Its rounds cannot be laid out in advance: each is paired from the scores
//! so far. A league already decides its rounds from its journal, writes each
//! before it is played, resumes a round cut off, deals a round to shards and
//! takes them back, and `arena verify` decides each round again. So a Swiss
//! or knockout tournament is set up as a league ([`set_up`]) and played by
//! [`super::play()`]: its `league.toml` is written from the tournament file's
//! `name`, `seed`, `sandbox`, `[rules]` and `[time]`, word for word, with its
//! pairing rule ([`league_rules`]), and its entrants are its bots (all joined
//! at [`JOINED_UNIX_MS`], so that a set-up is the same on every machine),
//! version 1 each, copied into the league and checked as `arena league add`
//! does (a bot with a `dir`: the folder whole; otherwise the files its
//! command names; a built-in bot: nothing). A resume finds them there and
//! plays their copies; a tournament file whose rules changed since is
//! refused.

use std::path::{Path, PathBuf};

use pahtum_league::LEAGUE_FILE;
use pahtum_league::LeagueError;
use pahtum_league::folder;
use pahtum_league::lines::label;
use pahtum_league::service::{ServiceError, seeds_by_rating};
use pahtum_tournament::config::{BlockSource, BotConfig, Format, Launch, TournamentFile};

use super::admit::{AddError, Checker, Naming, Step, Submission, prepare};

/// The version every bot of a Swiss has in its league.
pub const VERSION: &str = "1";

/// When every bot of a Swiss or knockout joins its league: the epoch, not the moment of the set-up, so that
/// the league set up from one file on any machine has the same lines, and its shards, each set up where it
/// plays, merge.
pub const JOINED_UNIX_MS: u64 = 0;

/// Why a tournament paired as it is played cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum PairedError {
    /// The tournament file cannot be read again for its rules.
    #[error("cannot read the tournament file {} again", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The tournament's book cannot be a league's: its file name is one of the league's own files.
    #[error("{}: the book {name:?} cannot be copied into the league under its name", path.display())]
    BookName {
        /// The file.
        path: PathBuf,
        /// The book as the file names it.
        name: String,
    },
    /// The tournament's book cannot be copied into the league's folder.
    #[error("cannot copy the book {} into {}", from.display(), dir.display())]
    CopyBook {
        /// The book.
        from: PathBuf,
        /// The league's folder.
        dir: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A bot runs a program of its own but has no folder to copy it with.
    #[error(
        "bot {bot} runs a program of its own: give it a `dir` (its folder, copied whole into the league, its \
         command run there), as tournaments/swiss.toml does"
    )]
    NeedsDir {
        /// The bot's name.
        bot: String,
    },
    /// The output folder holds the league of other rules.
    #[error(
        "{} holds a league of other rules than {} gives now (its rules, its pairing rule, its book, or \
         --sandbox); put them back, or play it into another folder (--out)",
        dir.display(),
        path.display()
    )]
    Changed {
        /// The output folder.
        dir: PathBuf,
        /// The tournament file.
        path: PathBuf,
    },
    /// The league's folder or journal.
    #[error(transparent)]
    League(#[from] LeagueError),
    /// The ratings that seed a knockout cannot be read.
    #[error(transparent)]
    Seeds(#[from] ServiceError),
    /// A bot could not join.
    #[error(transparent)]
    Add(#[from] Box<AddError>),
}

/// The rules of the league a Swiss or knockout is played as.
#[derive(Debug, Clone)]
pub struct LeagueRules {
    /// Its `league.toml`.
    pub text: String,
    /// Its opening book, if it plays one: the tournament's file, and its name in the league's folder (the
    /// book's file name, which `[rules] openings` names there).
    pub book: Option<(PathBuf, String)>,
}

impl LeagueRules {
    /// The league these rules give, its book read from the tournament's file; `path` (its `league.toml`)
    /// names it in errors.
    pub fn parse(&self, path: &Path) -> Result<pahtum_league::League, pahtum_tournament::config::ConfigError> {
        let read = |name: &str| match &self.book {
            Some((from, _)) => std::fs::read_to_string(from),
            None => pahtum_league::rules::read_beside(Path::new("."), name),
        };
        pahtum_league::rules::parse_reading(path, &self.text, &read)
    }
}

/// The league of the Swiss or knockout of `file`: its `name`, `seed` and `sandbox`, its `[rules]` and
/// `[time]` as the file writes them (a book named by its file name, copied beside), and its pairing rule:
/// `[swiss] rounds`, or `[knockout]` with its `pairs`, `max_pairs` and `seeds` (the bots as the league labels
/// them, in file order or by the ratings of `seeds_from`); every bot in the sandbox with `sandbox` (the
/// command line's `--sandbox`) whatever the file says; `None` when the tournament is not paired as it is
/// played.
pub fn league_rules(file: &TournamentFile, sandbox: bool, out: &Path) -> Result<Option<LeagueRules>, PairedError> {
    let rule = match &file.tournament.format {
        Format::Swiss { rounds } => ("swiss", table([("rounds", i64::from(*rounds).into())])),
        Format::Knockout {
            pairs,
            max_pairs,
            seeds_from,
        } => {
            let names: Vec<String> = file.tournament.bots.iter().map(|bot| bot.name.clone()).collect();
            let seeds: Vec<toml::Value> = match (seeds_from, seeded(out)) {
                // Seeded once, when the knockout was set up: the earlier run may have played on since.
                (Some(_), Some(seeds)) => seeds,
                (Some(journal), None) => seeds_by_rating(&file.base_dir.join(journal), &names)?
                    .iter()
                    .map(|name| label(name, VERSION).into())
                    .collect(),
                (None, _) => names.iter().map(|name| label(name, VERSION).into()).collect(),
            };
            let rule = table([
                ("pairs", i64::from(*pairs).into()),
                ("max_pairs", i64::from(*max_pairs).into()),
                ("seeds", seeds.into()),
            ]);
            ("knockout", rule)
        }
        Format::RoundRobin | Format::Gauntlet { .. } => return Ok(None),
    };
    let text = std::fs::read_to_string(&file.path).map_err(|source| PairedError::Read {
        path: file.path.clone(),
        source,
    })?;
    let keys: toml::Table = toml::from_str(&text).expect("the file was read as TOML when it was loaded");
    let mut league = toml::Table::new();
    for key in ["name", "seed", "sandbox", "rules", "time"] {
        if let Some(value) = keys.get(key) {
            league.insert(key.to_owned(), value.clone());
        }
    }
    league.insert(rule.0.to_owned(), toml::Value::Table(rule.1));
    if sandbox {
        league.insert("sandbox".to_owned(), true.into());
    }
    let book = match &file.tournament.rules.blocks {
        BlockSource::Book(openings) => {
            let name = Path::new(&openings.file)
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .filter(|name| pahtum_league::rules::is_book_name(name))
                .ok_or_else(|| PairedError::BookName {
                    path: file.path.clone(),
                    name: openings.file.clone(),
                })?;
            let rules = league
                .get_mut("rules")
                .and_then(toml::Value::as_table_mut)
                .expect("a book is named in [rules]");
            rules.insert("openings".to_owned(), name.clone().into());
            Some((file.base_dir.join(&openings.file), name))
        }
        _ => None,
    };
    Ok(Some(LeagueRules {
        text: toml::to_string(&league).expect("a TOML table writes as TOML"),
        book,
    }))
}

/// Copies the book of `rules` into the league's folder `dir`, unless the same book is there; one that
/// differs is the league's of other rules.
fn copy_book(file: &TournamentFile, rules: &LeagueRules, dir: &Path) -> Result<(), PairedError> {
    let Some((from, name)) = &rules.book else {
        return Ok(());
    };
    let copy_error = |source| PairedError::CopyBook {
        from: from.clone(),
        dir: dir.to_owned(),
        source,
    };
    let wanted = std::fs::read(from).map_err(copy_error)?;
    match std::fs::read(dir.join(name)) {
        Ok(found) if found == wanted => Ok(()),
        Ok(_) => Err(PairedError::Changed {
            dir: dir.to_owned(),
            path: file.path.clone(),
        }),
        Err(_) => {
            std::fs::create_dir_all(dir).map_err(copy_error)?;
            std::fs::write(dir.join(name), wanted).map_err(copy_error)
        }
    }
}

/// The seeds of the knockout already set up in `out`, if there is one.
fn seeded(out: &Path) -> Option<Vec<toml::Value>> {
    let text = std::fs::read_to_string(out.join(LEAGUE_FILE)).ok()?;
    let keys: toml::Table = toml::from_str(&text).ok()?;
    keys.get("knockout")?.get("seeds")?.as_array().cloned()
}

/// The TOML table of `keys`.
fn table<const N: usize>(keys: [(&str, toml::Value); N]) -> toml::Table {
    keys.into_iter().map(|(key, value)| (key.to_owned(), value)).collect()
}

/// Sets up the Swiss of `file` in its output folder `dir`: the league of [`league_rules`] written if the
/// folder holds none (refused if it holds another), then each bot not yet in it copied, checked against
/// `checker`'s opponent and joined, `joining` told each bot's name as its turn comes. A bot that cannot join
/// stops the set-up with the league as it was (the bots before it stay, and a run again goes on from there).
pub async fn set_up(
    file: &TournamentFile,
    rules: &LeagueRules,
    dir: &Path,
    checker: &Checker<'_>,
    joining: &(dyn Fn(&str, Step) + Sync),
) -> Result<(), PairedError> {
    copy_book(file, rules, dir)?;
    match std::fs::read_to_string(dir.join(LEAGUE_FILE)) {
        Ok(found) if found == rules.text => {}
        Ok(_) => {
            return Err(PairedError::Changed {
                dir: dir.to_owned(),
                path: file.path.clone(),
            });
        }
        Err(_) => folder::init_with(dir, &rules.text)?,
    }
    for bot in &file.tournament.bots {
        let state = folder::open(dir)?.state;
        if state.number_of(&label(&bot.name, VERSION)).is_some() {
            continue;
        }
        let submission = submission(bot, &file.base_dir)?;
        let naming = Naming {
            version: Some(VERSION),
            ..Naming::default()
        };
        let step = |step: Step| joining(&bot.name, step);
        let prepared = prepare(dir, &state, &submission, naming, checker, &step)
            .await
            .map_err(Box::new)?;
        let mut opened = folder::open(dir)?;
        prepared.join_at(&mut opened, JOINED_UNIX_MS).map_err(Box::new)?;
    }
    Ok(())
}

/// How `bot` of a tournament whose folder is `base_dir` joins its league: a built-in bot by its command
/// line; a bot with a `dir` with that folder whole; any other with the files its command names, found from
/// `base_dir`, unless its program is a file of its own (`bots/mybot`), which only a `dir` copies with what it
/// needs beside it.
fn submission(bot: &BotConfig, base_dir: &Path) -> Result<Submission, PairedError> {
    let name = bot.name.clone();
    if let (Launch::Command(words), None) = (&bot.launch, &bot.dir)
        && words[0].contains('/')
        && Path::new(&words[0]).is_relative()
    {
        return Err(PairedError::NeedsDir { bot: name });
    }
    Ok(match (&bot.launch, &bot.dir) {
        (Launch::Builtin(line), _) => Submission::Command {
            name,
            command: line.split_whitespace().map(str::to_owned).collect(),
        },
        (Launch::Command(words), Some(dir)) => Submission::Tree {
            name,
            from: base_dir.join(dir),
            command: words.clone(),
        },
        (Launch::Command(words), None) => Submission::Command {
            name,
            command: words
                .iter()
                .map(|word| {
                    let path = base_dir.join(word);
                    if Path::new(word).is_relative() && path.is_file() {
                        path.to_string_lossy().into_owned()
                    } else {
                        word.clone()
                    }
                })
                .collect(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tournament file of `keys` and two bots, written to `dir/t.toml` and read.
    fn file(dir: &Path, keys: &str) -> TournamentFile {
        let text = format!(
            "name = \"t\"\nseed = 3\n{keys}\n[[bots]]\nname = \"a\"\nbuiltin = \"first-free\"\n\n[[bots]]\nname = \"b\"\n\
             builtin = \"heuristic\"\n"
        );
        std::fs::write(dir.join("t.toml"), text).unwrap();
        pahtum_tournament::config::load(&dir.join("t.toml")).unwrap()
    }

    #[test]
    fn the_league_has_the_files_rules_its_pairing_rule_and_the_flags_sandbox() {
        let dir = tempfile::tempdir().unwrap();
        let plain = file(dir.path(), "format = \"round-robin\"\n");
        assert!(league_rules(&plain, false, dir.path()).unwrap().is_none());

        let swiss = file(dir.path(), "format = \"swiss\"\nrounds = 3\n[time]\nmove_ms = 250\n");
        let rules = league_rules(&swiss, true, dir.path()).unwrap().unwrap();
        let league = rules.parse(&dir.path().join("out/league.toml")).unwrap();
        assert_eq!(league.swiss.map(|rule| rule.rounds), Some(3));
        assert_eq!((league.name.as_str(), league.seed), ("t", 3));
        assert_eq!(league.time.move_ms, Some(250));
        assert!(league.sandbox.is_some(), "--sandbox puts every bot in the sandbox");
        assert!(rules.book.is_none());

        let knockout = file(dir.path(), "format = \"knockout\"\npairs = 2\n");
        let league = league_rules(&knockout, false, dir.path()).unwrap().unwrap();
        let league = league.parse(&dir.path().join("out/league.toml")).unwrap();
        let rule = league.knockout.unwrap();
        assert_eq!((rule.pairs, rule.max_pairs), (2, 3));
        assert_eq!(rule.seeds, ["a@1", "b@1"], "file order");
        assert!(league.sandbox.is_none());
    }

    /// A knockout seeded by an earlier run keeps the seeds it was set up with: the earlier run may have
    /// played on, or gone, since.
    #[test]
    fn a_resumed_knockout_keeps_its_seeds() {
        let dir = tempfile::tempdir().unwrap();
        let knockout = file(
            dir.path(),
            "format = \"knockout\"\nseeds_from = \"gone/journal.jsonl\"\n",
        );
        let out = dir.path().join("out");
        assert!(
            league_rules(&knockout, false, &out).is_err(),
            "the earlier run is read to seed a new one"
        );
        std::fs::create_dir(&out).unwrap();
        std::fs::write(
            out.join(LEAGUE_FILE),
            "name = \"t\"\n[knockout]\nseeds = [\"b@1\", \"a@1\"]\n",
        )
        .unwrap();
        let rules = league_rules(&knockout, false, &out).unwrap().unwrap();
        let league = rules.parse(&out.join(LEAGUE_FILE)).unwrap();
        assert_eq!(league.knockout.unwrap().seeds, ["b@1", "a@1"]);
    }

    /// A bot whose program is a file of its own needs a `dir` to be copied with what lies beside it.
    #[test]
    fn a_bot_running_its_own_program_needs_a_dir() {
        let dir = tempfile::tempdir().unwrap();
        let text = "name = \"t\"\nformat = \"swiss\"\nrounds = 1\n\n[[bots]]\nname = \"a\"\ncommand = \"bots/a\"\n\n\
                    [[bots]]\nname = \"b\"\ncommand = \"python3 b.py\"\n";
        std::fs::write(dir.path().join("t.toml"), text).unwrap();
        let file = pahtum_tournament::config::load(&dir.path().join("t.toml")).unwrap();
        let bots = &file.tournament.bots;
        assert!(matches!(
            submission(&bots[0], dir.path()),
            Err(PairedError::NeedsDir { .. })
        ));
        assert!(matches!(
            submission(&bots[1], dir.path()),
            Ok(Submission::Command { .. })
        ));
    }

    #[test]
    fn a_book_is_named_by_its_file_name_in_the_league() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("books")).unwrap();
        std::fs::write(dir.path().join("books/b.txt"), "a1 b2 c3 | d4\n").unwrap();
        let swiss = file(
            dir.path(),
            "format = \"swiss\"\nrounds = 2\n[rules]\nopenings = \"books/b.txt\"\n",
        );
        let rules = league_rules(&swiss, false, dir.path()).unwrap().unwrap();
        assert_eq!(rules.book, Some((dir.path().join("books/b.txt"), "b.txt".to_owned())));
        assert!(rules.text.contains("openings = \"b.txt\""), "{}", rules.text);
        let league = rules.parse(&dir.path().join("out/league.toml")).unwrap();
        assert!(matches!(league.rules.blocks, BlockSource::Book(_)));

        std::fs::write(dir.path().join("books/journal.jsonl"), "a1 b2 c3 | d4\n").unwrap();
        let clash = file(
            dir.path(),
            "format = \"swiss\"\nrounds = 2\n[rules]\nopenings = \"books/journal.jsonl\"\n",
        );
        assert!(matches!(
            league_rules(&clash, false, dir.path()),
            Err(PairedError::BookName { .. })
        ));
    }
}
