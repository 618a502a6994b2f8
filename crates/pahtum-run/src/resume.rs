//! Resume: what is done, what is missing, and whether the journal still belongs to the file.
//!
//! Running a tournament again with the same output folder resumes it. The
//! journal's header must hold the same resolved tournament as the file (same
//! hash); otherwise the run refuses, listing what changed, unless told to
//! start afresh (the old journal is then kept under another name). Every
//! record must be a game of the schedule, at most once: anything else means
//! the journal was mixed up with another tournament's, and is an error.
//!
//! One change continues instead: bots added to the file. They *join* the
//! tournament: the run appends a `joined` line to the journal, which grows its
//! schedule by the pairs of the new bots and keeps every game it had
//! ([`pahtum_tournament::schedule`]'s bots that join later), so that only the new pairs are
//! played. The file must still have every bot of the journal (its header's and
//! those that joined before), each with the same settings, and the same rules:
//! a removed bot, or a bot whose command or settings changed, is refused as any
//! change is (its games are in the standings, played by the program the journal
//! names; a new program under a new name joins instead). The order of the bots
//! in the file does not matter to a resume: the journal's is kept.
//!
//! A resume keeps of the journal only what the run needs: which games are
//! done, a bit per game of the schedule ([`GameSet`]). The records stay in the
//! journal, and the pending games are computed one at a time as the runner
//! starts them ([`Plan::pending_games`]), so a run's memory does not grow with
//! its games. What counts the records (the progress display, an SPRT) sees
//! each one as an [`Event::Resumed`] while the journal is opened.

use std::path::{Path, PathBuf};

use pahtum_record::GameRecord;
use serde_json::Value;

use crate::events::{Event, Observer, Quiet};
use pahtum_journal::{self as journal, Ending, Header, Joined, Journal, JournalError, JournalReader, Moves};
use pahtum_tournament::config::{BotConfig, Tournament};
use pahtum_tournament::game_set::GameSet;
use pahtum_tournament::schedule::{Games, Schedule};
use pahtum_tournament::shard::Shard;

/// The schedule split into the games done (in the journal) and the games to play.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The schedule of the tournament of the journal's header.
    pub schedule: Schedule,
    /// The games with a record in the journal, by schedule index.
    pub done: GameSet,
    /// The shard this run plays, if it plays one ([`Plan::only`]).
    shard: Option<Shard>,
}

impl Plan {
    /// The tournament.
    pub fn tournament(&self) -> &Tournament {
        self.schedule.tournament()
    }

    /// Plays only the games of `shard`: the others are not pending.
    pub fn only(&mut self, shard: Shard) {
        self.shard = Some(shard);
    }

    /// The schedule indices of the games to play (without a record, in the shard if there is one), in
    /// schedule order.
    pub fn pending(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.schedule.len())
            .filter(|&index| !self.done.contains(index) && self.shard.is_none_or(|shard| shard.contains(index)))
    }

    /// The games to play, in schedule order, each computed as it is asked for.
    pub fn pending_games(&self) -> Games<'_, impl Iterator<Item = usize> + '_> {
        self.schedule.games(self.pending())
    }
}

/// Why a journal cannot be resumed.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    /// The journal cannot be read, written or locked.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// The journal's header holds another tournament than the file now gives.
    #[error(
        "the tournament changed since the journal {} was started:\n{}\n\
         run the same file as before to resume (bots may be added: they join; a bot whose command or settings \
         changed is another bot, which joins under a new name), or pass --fresh to start afresh (the old \
         journal is kept)",
        path.display(), changes.iter().map(|c| format!("  {c}")).collect::<Vec<_>>().join("\n")
    )]
    Changed {
        /// The journal.
        path: PathBuf,
        /// What changed, one line each, in words.
        changes: Vec<String>,
    },
    /// The journal is another shard's.
    #[error(
        "the journal {} holds shard {found} of the tournament, not {}; give the --shard it was started with \
         (or another output folder)",
        path.display(),
        match wanted { Some(shard) => format!("shard {shard}"), None => "every game".to_owned() }
    )]
    OtherShard {
        /// The journal.
        path: PathBuf,
        /// The shard its header names.
        found: Shard,
        /// The shard this run plays; `None` for every game.
        wanted: Option<Shard>,
    },
    /// A record's game is not in the schedule.
    #[error("the journal {} has a record of game {id:?}, which is not in the schedule; is it another tournament's journal?", path.display())]
    UnknownGame {
        /// The journal.
        path: PathBuf,
        /// The record's game id (untrusted text: escape it for a terminal).
        id: String,
    },
    /// Two records of the same game.
    #[error("the journal {} has two records of game {id:?}; remove one of them", path.display())]
    Duplicate {
        /// The journal.
        path: PathBuf,
        /// The game's id.
        id: String,
    },
    /// The output folder cannot be created.
    #[error("cannot create the output folder {}", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The existing journal cannot be renamed out of the way.
    #[error("cannot move the old journal {} aside", path.display())]
    MoveAside {
        /// The journal.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// How an existing journal is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// Resume it (refusing if the tournament changed).
    Resume,
    /// Move it aside and start a new one.
    StartAfresh,
}

/// What opening the output folder's journal did.
#[derive(Debug)]
pub struct Opened {
    /// The journal, open for appending and locked.
    pub journal: Journal,
    /// The games done and the games to play.
    pub plan: Plan,
    /// Whether a torn last line was dropped.
    pub repaired_torn_line: bool,
    /// Where an old journal was moved, when starting afresh.
    pub moved_aside: Option<PathBuf>,
    /// The `joined` line appended for the bots the file added, if it added any.
    pub joined: Option<Joined>,
}

/// The journal's name in the output folder.
pub const JOURNAL: &str = "journal.jsonl";

/// Opens (or creates) the journal in `out` for `tournament` (its `shard`, or every game) and plans what is
/// missing, showing each record of the journal to `observer` ([`Event::Resumed`]); bots that the file adds
/// join ([`Opened::joined`]).
pub fn open(
    out: &Path,
    tournament: &Tournament,
    shard: Option<Shard>,
    existing: Existing,
    observer: &mut dyn Observer,
) -> Result<Opened, ResumeError> {
    std::fs::create_dir_all(out).map_err(|source| ResumeError::Folder {
        path: out.to_owned(),
        source,
    })?;
    let path = out.join(JOURNAL);
    let mut moved_aside = None;
    if path.exists() && existing == Existing::StartAfresh {
        moved_aside = Some(move_aside(&path)?);
    }
    if !path.exists() {
        let journal = Journal::create_with(&path, &Header::new(tournament).of_shard(shard))?;
        return Ok(Opened {
            journal,
            plan: Planner::new(&path).finish(Schedule::new(tournament)),
            repaired_torn_line: false,
            moved_aside,
            joined: None,
        });
    }
    // The header first, so that a journal of another tournament or shard is refused as such before its
    // records are counted against this one's schedule.
    let header = JournalReader::open(&path)?.header().clone();
    check_unchanged(&header, tournament, &path)?;
    check_shard(&header, shard, &path)?;
    let (mut plan, (mut journal, torn)) = plan_streamed(&path, observer, |on_record| {
        let (journal, ending) = Journal::open(&path, on_record)?;
        Ok(((journal, ending.torn), ending))
    })?;
    let joining = joining(&plan.schedule, tournament, &path)?;
    let joined = (!joining.is_empty()).then(|| {
        plan.schedule = plan.schedule.join(&joining);
        Joined {
            joined: joining,
            unix_ms: pahtum_record::since_the_epoch().as_millis() as u64,
            games: plan.schedule.len(),
            hash: pahtum_tournament::config::tournament_hash(plan.schedule.tournament()),
        }
    });
    if let Some(joined) = &joined {
        journal.join(joined)?;
    }
    Ok(Opened {
        journal,
        plan,
        repaired_torn_line: torn,
        moved_aside,
        joined,
    })
}

/// What [`open`] would find in `out` for `tournament` (its `shard`, or every game), without creating,
/// locking or changing anything (for a dry run): `None` when there is no
/// journal yet, else the plan of resuming it (with the games of the bots that would join), or why it
/// cannot be resumed.
pub fn preview(out: &Path, tournament: &Tournament, shard: Option<Shard>) -> Result<Option<Plan>, ResumeError> {
    let path = out.join(JOURNAL);
    if !path.exists() {
        return Ok(None);
    }
    let reader = JournalReader::open(&path)?;
    check_unchanged(reader.header(), tournament, &path)?;
    check_shard(reader.header(), shard, &path)?;
    let (mut plan, ()) = plan_streamed(&path, &mut Quiet, |on_record| {
        reader
            .for_each_indexed(Moves::Drop, on_record)
            .map(|ending| ((), ending))
    })?;
    let joining = joining(&plan.schedule, tournament, &path)?;
    if !joining.is_empty() {
        plan.schedule = plan.schedule.join(&joining);
    }
    Ok(Some(plan))
}

/// The plan for `records` (of the journal at `path`, named in errors) of `tournament`, checking that each
/// is a distinct game of its schedule, and showing each to `observer` as it is counted.
pub fn plan(
    tournament: &Tournament,
    records: impl IntoIterator<Item = GameRecord>,
    path: &Path,
    observer: &mut dyn Observer,
) -> Result<Plan, ResumeError> {
    let schedule = Schedule::new(tournament);
    let mut planner = Planner::new(path);
    for record in records {
        let Some(index) = schedule.index_of(&record.id) else {
            return Err(ResumeError::UnknownGame {
                path: path.to_owned(),
                id: record.id,
            });
        };
        planner.add(index, record, observer)?;
    }
    Ok(planner.finish(schedule))
}

/// The plan of the records that `read` shows as a journal streams by (so that no record is kept), each with
/// its schedule index, and what `read` returns with the [`Ending`] of the journal, whose schedule the plan
/// is of; the first record that does not fit is the error, once read ends.
fn plan_streamed<T>(
    path: &Path,
    observer: &mut dyn Observer,
    read: impl FnOnce(&mut dyn FnMut(usize, GameRecord)) -> Result<(T, Ending), JournalError>,
) -> Result<(Plan, T), ResumeError> {
    let mut planner = Planner::new(path);
    let mut refused = None;
    let (read, ending) = read(&mut |index, record| {
        if refused.is_none() {
            refused = planner.add(index, record, observer).err();
        }
    })?;
    match refused {
        Some(error) => Err(error),
        None => Ok((planner.finish(ending.schedule), read)),
    }
}

/// A plan being counted, one record at a time.
struct Planner<'a> {
    done: GameSet,
    path: &'a Path,
}

impl<'a> Planner<'a> {
    fn new(path: &'a Path) -> Planner<'a> {
        Planner {
            done: GameSet::new(),
            path,
        }
    }

    /// Counts `record`, of the game at schedule `index`, as done, showing it to `observer`; refuses a game
    /// done twice.
    fn add(&mut self, index: usize, record: GameRecord, observer: &mut dyn Observer) -> Result<(), ResumeError> {
        if !self.done.insert(index) {
            return Err(ResumeError::Duplicate {
                path: self.path.to_owned(),
                id: record.id,
            });
        }
        observer.on(Event::Resumed { index, record: &record });
        Ok(())
    }

    fn finish(self, schedule: Schedule) -> Plan {
        Plan {
            schedule,
            done: self.done,
            shard: None,
        }
    }
}

/// Refuses a journal whose header names another shard than `shard` (`None`: every game). A header that
/// names none is of every game, or of a shard from before headers named their shards: a shard resumes it.
fn check_shard(header: &Header, shard: Option<Shard>, path: &Path) -> Result<(), ResumeError> {
    match (header.shard, shard) {
        (Some(found), wanted) if Some(found) != wanted => Err(ResumeError::OtherShard {
            path: path.to_owned(),
            found,
            wanted,
        }),
        _ => Ok(()),
    }
}

/// Refuses a journal whose header's tournament `tournament` does not continue, saying what changed:
/// `tournament` must have the same rules and every bot of the header with the same settings; it may
/// have more bots (they join when the journal is opened, [`open`]).
pub fn check_unchanged(header: &Header, tournament: &Tournament, path: &Path) -> Result<(), ResumeError> {
    let mut changes = changes(&header.tournament, tournament);
    if changes.is_empty() && header.hash != pahtum_tournament::config::tournament_hash(&header.tournament) {
        changes.push(format!(
            "the journal's hash {} is not the hash of its own tournament: the header was edited",
            header.hash
        ));
    }
    refuse_changes(changes, path)
}

/// The bots of `tournament` that join the journal at `path` of `schedule` (grown by the joins the journal
/// has): those it does not have, in file order; refused as [`check_unchanged`] says.
fn joining(schedule: &Schedule, tournament: &Tournament, path: &Path) -> Result<Vec<BotConfig>, ResumeError> {
    let journal = schedule.tournament();
    refuse_changes(changes(journal, tournament), path)?;
    Ok(tournament
        .bots
        .iter()
        .filter(|bot| journal.bot(&bot.name).is_none())
        .cloned()
        .collect())
}

fn refuse_changes(changes: Vec<String>, path: &Path) -> Result<(), ResumeError> {
    if changes.is_empty() {
        return Ok(());
    }
    Err(ResumeError::Changed {
        path: path.to_owned(),
        changes,
    })
}

/// What `after` changes of `before` but adding bots, in words: each rule, and each bot of `before` (named
/// by its place there) that `after` lacks or has with other settings.
fn changes(before: &Tournament, after: &Tournament) -> Vec<String> {
    let json = |tournament: &Tournament| {
        let rules = Tournament {
            bots: Vec::new(),
            ..tournament.clone()
        };
        serde_json::to_value(rules).expect("a tournament serializes")
    };
    let mut changes = Vec::new();
    differences("", &json(before), &json(after), &mut changes);
    for (index, bot) in before.bots.iter().enumerate() {
        let key = format!("bots[{index}]");
        match after.bot(&bot.name) {
            None => changes.push(format!(
                "{key}: the bot {:?} was removed (its games stay in the journal; a bot cannot leave)",
                bot.name
            )),
            Some(now) => {
                let value = |bot: &BotConfig| serde_json::to_value(bot).expect("a bot serializes");
                differences(&key, &value(bot), &value(now), &mut changes);
            }
        }
    }
    changes
}

/// The keys whose values differ between `before` and `after`, as `key: before -> after`.
fn differences(key: &str, before: &Value, after: &Value, out: &mut Vec<String>) {
    let join = |child: &str| {
        if key.is_empty() {
            child.to_owned()
        } else {
            format!("{key}.{child}")
        }
    };
    match (before, after) {
        (Value::Object(a), Value::Object(b)) => {
            for child in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
                let missing = Value::Null;
                differences(
                    &join(child),
                    a.get(child).unwrap_or(&missing),
                    b.get(child).unwrap_or(&missing),
                    out,
                );
            }
        }
        (a, b) if a != b => out.push(format!("{key}: {a} -> {b}")),
        _ => {}
    }
}

/// Moves the journal at `path` to a name of its own in its folder
/// ([`journal::keep_aside`]), never replacing a journal kept before. The journal is
/// locked meanwhile, so that one in use by a running arena stays where it is.
fn move_aside(path: &Path) -> Result<PathBuf, ResumeError> {
    let move_error = |source| ResumeError::MoveAside {
        path: path.to_owned(),
        source,
    };
    let held = std::fs::File::open(path).map_err(move_error)?;
    journal::lock(&held, path)?;
    let aside = journal::keep_aside(path).map_err(move_error)?;
    std::fs::remove_file(path).map_err(move_error)?;
    Ok(aside)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pahtum_tournament::config::Format;
    use pahtum_tournament::schedule::ScheduledGame;
    use pahtum_tournament::testing::{played, record, tournament, won_by};

    /// Writes down the games resumed, by index and id.
    #[derive(Default)]
    struct Resumed(Vec<(usize, String)>);

    impl Observer for Resumed {
        fn on(&mut self, event: Event<'_>) {
            if let Event::Resumed { index, record } = event {
                self.0.push((index, record.id.clone()));
            }
        }
    }

    #[test]
    fn a_new_folder_plans_every_game_and_a_resume_only_the_missing_ones() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("runs/t");
        let t = Tournament {
            games_per_pair: 4,
            ..tournament()
        };
        let mut opened = open(&out, &t, None, Existing::Resume, &mut Quiet).unwrap();
        let total = opened.plan.schedule.len();
        assert_eq!(
            opened.plan.pending().collect::<Vec<_>>(),
            (0..total).collect::<Vec<_>>()
        );
        let recorded = [opened.plan.schedule.game(1), opened.plan.schedule.game(8)];
        for game in &recorded {
            let spec = game.spec(&t);
            opened.journal.append(&won_by(game, &spec, &game.first)).unwrap();
        }
        drop(opened);

        let mut resumed = Resumed::default();
        let opened = open(&out, &t, None, Existing::Resume, &mut resumed).unwrap();
        let expected: Vec<(usize, String)> = recorded.iter().map(|game| (game.index, game.id.clone())).collect();
        assert_eq!(resumed.0, expected, "each record shown once, in journal order");
        assert_eq!(opened.plan.done.len(), 2);
        let pending: Vec<usize> = opened.plan.pending().collect();
        assert_eq!(pending.len(), total - 2);
        assert!(pending.iter().all(|&index| index != 1 && index != 8));
        let games: Vec<ScheduledGame> = opened.plan.pending_games().collect();
        assert_eq!(games, opened.plan.schedule.games(pending).collect::<Vec<_>>());
    }

    /// A shard's run plays the games of its shard only.
    #[test]
    fn a_shard_plays_only_its_games() {
        let t = Tournament {
            games_per_pair: 6,
            ..tournament()
        };
        let mut plan = plan(&t, [played("000-00-a")], Path::new("journal.jsonl"), &mut Quiet).unwrap();
        let shard = Shard::new(1, 3).unwrap();
        plan.only(shard);
        let pending: Vec<usize> = plan.pending().collect();
        let expected: Vec<usize> = (1..plan.schedule.len())
            .filter(|&index| shard.contains(index))
            .collect();
        assert_eq!(pending, expected);
    }

    #[test]
    fn a_changed_tournament_refuses_to_resume_and_says_what_changed() {
        let dir = tempfile::tempdir().unwrap();
        let t = tournament();
        open(dir.path(), &t, None, Existing::Resume, &mut Quiet).unwrap();
        let mut changed = t.clone();
        changed.seed = 99;
        changed.bots[1].env.insert("DEPTH".into(), "3".into());
        changed.format = Format::Gauntlet { challenger: "a".into() };
        changed.pause_idle = true;
        changed.bots[2].time = Some(pahtum_protocol::move_time(std::time::Duration::from_millis(250)));
        let error = open(dir.path(), &changed, None, Existing::Resume, &mut Quiet)
            .unwrap_err()
            .to_string();
        assert!(error.contains("pause_idle: null -> true"), "{error}");
        assert!(
            error.contains("bots[2].time: null -> {") && error.contains("\"move_ms\":250"),
            "{error}"
        );
        assert!(error.contains("seed: 3 -> 99"), "{error}");
        assert!(error.contains("bots[1].env.DEPTH: null -> \"3\""), "{error}");
        assert!(
            error.contains("format.kind: \"round-robin\" -> \"gauntlet\""),
            "{error}"
        );
        assert!(error.contains("--fresh"), "{error}");

        let opened = open(dir.path(), &changed, None, Existing::StartAfresh, &mut Quiet).unwrap();
        let aside = opened.moved_aside.unwrap();
        assert!(aside.exists());
        assert_eq!(journal::read(&aside).unwrap().header.tournament, t);
        assert_eq!(
            journal::read(&dir.path().join(JOURNAL)).unwrap().header.tournament,
            changed
        );
    }

    #[test]
    fn a_preview_says_what_a_resume_would_do_and_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let t = tournament();
        assert!(preview(dir.path(), &t, None).unwrap().is_none(), "no journal yet");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing was created");
        let mut opened = open(dir.path(), &t, None, Existing::Resume, &mut Quiet).unwrap();
        opened.journal.append(&played("000-00-a")).unwrap();
        let plan = preview(dir.path(), &t, None).unwrap().expect("a journal to resume");
        assert_eq!((plan.done.len(), plan.pending().count()), (1, plan.schedule.len() - 1));
        let changed = Tournament { seed: 99, ..t.clone() };
        let error = preview(dir.path(), &changed, None).unwrap_err().to_string();
        assert!(error.contains("seed: 3 -> 99") && error.contains("--fresh"), "{error}");
        drop(opened);
    }

    #[test]
    fn starting_afresh_twice_keeps_every_old_journal() {
        let dir = tempfile::tempdir().unwrap();
        let t = tournament();
        let mut kept: Vec<PathBuf> = (10..13)
            .filter_map(|seed| {
                let changed = Tournament { seed, ..t.clone() };
                open(dir.path(), &changed, None, Existing::StartAfresh, &mut Quiet)
                    .unwrap()
                    .moved_aside
            })
            .collect();
        assert_eq!(kept.len(), 2, "the first run had nothing to move: {kept:?}");
        kept.sort();
        kept.dedup();
        assert_eq!(kept.len(), 2, "each old journal has a name of its own");
        let mut kept_seeds: Vec<u64> = kept
            .iter()
            .map(|aside| journal::read(aside).unwrap().header.tournament.seed)
            .collect();
        kept_seeds.sort();
        assert_eq!(kept_seeds, [10, 11]);
    }

    #[test]
    fn a_journal_in_use_is_neither_resumed_nor_moved_aside() {
        let dir = tempfile::tempdir().unwrap();
        let t = tournament();
        let running = open(dir.path(), &t, None, Existing::Resume, &mut Quiet).unwrap();
        for existing in [Existing::Resume, Existing::StartAfresh] {
            let error = open(dir.path(), &t, None, existing, &mut Quiet)
                .unwrap_err()
                .to_string();
            assert!(error.starts_with("another arena is running this tournament"), "{error}");
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "nothing was moved");
        drop(running);
    }

    /// A shard's journal names its shard; it resumes only as that shard.
    #[test]
    fn a_shard_resumes_only_its_own_journal() {
        let dir = tempfile::tempdir().unwrap();
        let t = tournament();
        let [first, second] = [1, 2].map(|k| Shard::new(k, 2).unwrap());
        drop(open(dir.path(), &t, Some(first), Existing::Resume, &mut Quiet).unwrap());
        let path = dir.path().join(JOURNAL);
        assert_eq!(journal::read(&path).unwrap().header.shard, Some(first));
        assert!(open(dir.path(), &t, Some(first), Existing::Resume, &mut Quiet).is_ok());
        for wanted in [Some(second), None] {
            let error = open(dir.path(), &t, wanted, Existing::Resume, &mut Quiet).unwrap_err();
            assert!(
                matches!(error, ResumeError::OtherShard { found, .. } if found == first),
                "{error}"
            );
            assert!(matches!(
                preview(dir.path(), &t, wanted),
                Err(ResumeError::OtherShard { .. })
            ));
        }
        let message = open(dir.path(), &t, Some(second), Existing::Resume, &mut Quiet)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("holds shard 1/2 of the tournament, not shard 2/2"),
            "{message}"
        );
    }

    #[test]
    fn unknown_and_duplicate_games_are_errors() {
        let t = tournament();
        let path = Path::new("journal.jsonl");
        let error = plan(&t, vec![record("999-00-a", "a", "b")], path, &mut Quiet).unwrap_err();
        assert!(
            matches!(error, ResumeError::UnknownGame { ref id, .. } if id == "999-00-a"),
            "{error}"
        );
        let twice = vec![record("000-00-a", "a", "b"), record("000-00-a", "a", "b")];
        let error = plan(&t, twice, path, &mut Quiet).unwrap_err();
        assert!(matches!(error, ResumeError::Duplicate { .. }), "{error}");
    }

    /// `t` with a bot `name` (a copy of `a`) in the middle of its file.
    fn with_bot(t: &Tournament, name: &str) -> Tournament {
        let mut grown = t.clone();
        let mut bot = t.bots[0].clone();
        bot.name = name.to_owned();
        grown.bots.insert(1, bot);
        grown
    }

    /// Plays every pending game of `opened`, each won by its first seat.
    fn play_all(opened: &mut Opened) -> usize {
        let games: Vec<ScheduledGame> = opened.plan.pending_games().collect();
        let t = opened.plan.tournament().clone();
        for game in &games {
            opened
                .journal
                .append(&won_by(game, &game.spec(&t), &game.first))
                .unwrap();
        }
        games.len()
    }

    #[test]
    fn a_bot_added_to_the_file_joins_and_plays_only_the_new_pairs() {
        let dir = tempfile::tempdir().unwrap();
        let t = tournament();
        let mut opened = open(dir.path(), &t, None, Existing::Resume, &mut Quiet).unwrap();
        assert!(opened.joined.is_none());
        let old = play_all(&mut opened);
        drop(opened);

        let grown = with_bot(&t, "d");
        let mut resumed = Resumed::default();
        let opened = open(dir.path(), &grown, None, Existing::Resume, &mut resumed).unwrap();
        assert_eq!(resumed.0.len(), old, "every game played is kept");
        let joined = opened.joined.clone().expect("d joins");
        assert_eq!(joined.joined, [grown.bots[1].clone()]);
        assert_eq!(joined.games, opened.plan.schedule.len());
        assert_eq!(
            opened.plan.tournament().bot_names(),
            ["a", "b", "c", "d"],
            "the journal's order"
        );
        assert_eq!(opened.plan.done.len(), old);
        let pending: Vec<ScheduledGame> = opened.plan.pending_games().collect();
        assert_eq!(pending.len(), 3 * t.games_per_pair as usize, "d meets a, b and c");
        assert!(pending.iter().all(|game| game.first == "d" || game.second == "d"));
        assert!(pending.iter().all(|game| game.index >= old));
        drop(opened);

        // The journal has the join: a reader grows the schedule by it, and a resume does not join d again.
        let contents = journal::read(&dir.path().join(JOURNAL)).unwrap();
        assert_eq!(contents.joins, std::slice::from_ref(&joined));
        assert_eq!(contents.schedule.len(), joined.games);
        let mut opened = open(dir.path(), &grown, None, Existing::Resume, &mut Quiet).unwrap();
        assert!(opened.joined.is_none(), "d joined already");
        assert_eq!(play_all(&mut opened), pending.len());
        drop(opened);
        let preview = preview(dir.path(), &grown, None).unwrap().unwrap();
        assert_eq!((preview.done.len(), preview.pending().count()), (joined.games, 0));
    }

    #[test]
    fn a_dry_run_shows_the_games_of_a_bot_that_would_join_and_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let t = tournament();
        let mut opened = open(dir.path(), &t, None, Existing::Resume, &mut Quiet).unwrap();
        let old = play_all(&mut opened);
        drop(opened);
        let before = std::fs::read(dir.path().join(JOURNAL)).unwrap();
        let plan = preview(dir.path(), &with_bot(&t, "d"), None).unwrap().unwrap();
        assert_eq!(
            (plan.done.len(), plan.pending().count()),
            (old, 3 * t.games_per_pair as usize)
        );
        assert_eq!(std::fs::read(dir.path().join(JOURNAL)).unwrap(), before);
    }

    #[test]
    fn a_removed_or_changed_bot_or_a_changed_rule_is_still_refused_after_a_join() {
        let dir = tempfile::tempdir().unwrap();
        let t = tournament();
        drop(open(dir.path(), &t, None, Existing::Resume, &mut Quiet).unwrap());
        let grown = with_bot(&t, "d");
        drop(open(dir.path(), &grown, None, Existing::Resume, &mut Quiet).unwrap());
        let refused = |changed: &Tournament| {
            let error = open(dir.path(), changed, None, Existing::Resume, &mut Quiet).unwrap_err();
            assert!(matches!(error, ResumeError::Changed { .. }), "{error}");
            assert!(preview(dir.path(), changed, None).is_err());
            error.to_string()
        };
        // d, which joined, left the file again; and c, of the header.
        let error = refused(&t);
        assert!(error.contains("bots[3]: the bot \"d\" was removed"), "{error}");
        let mut without_c = grown.clone();
        without_c.bots.retain(|bot| bot.name != "c");
        let error = refused(&without_c);
        assert!(error.contains("bots[2]: the bot \"c\" was removed"), "{error}");
        assert!(error.contains("--fresh"), "{error}");
        // Another command for d: another program under d's name.
        let mut other_d = grown.clone();
        other_d.bots[1].launch = t.bots[2].launch.clone();
        let error = refused(&other_d);
        assert!(error.contains("bots[3]."), "{error}");
        assert!(
            error.contains("a bot whose command or settings changed is another bot"),
            "{error}"
        );
        // A rule, with a bot added at the same time: nothing joins.
        let changed = Tournament {
            games_per_pair: 4,
            ..with_bot(&grown, "e")
        };
        let error = refused(&changed);
        assert!(error.contains("games_per_pair: 2 -> 4"), "{error}");
        assert_eq!(journal::read(&dir.path().join(JOURNAL)).unwrap().joins.len(), 1);
        // The file's order of the bots does not matter.
        let mut reordered = grown.clone();
        reordered.bots.reverse();
        assert!(
            open(dir.path(), &reordered, None, Existing::Resume, &mut Quiet)
                .unwrap()
                .joined
                .is_none()
        );
    }

    /// A shard's journal grows as the whole one does: the new games are dealt to the shards as any game is.
    #[test]
    fn a_shard_plays_the_new_games_of_its_shard() {
        let dir = tempfile::tempdir().unwrap();
        let t = Tournament {
            games_per_pair: 4,
            ..tournament()
        };
        let shard = Shard::new(2, 3).unwrap();
        drop(open(dir.path(), &t, Some(shard), Existing::Resume, &mut Quiet).unwrap());
        let mut opened = open(
            dir.path(),
            &with_bot(&t, "d"),
            Some(shard),
            Existing::Resume,
            &mut Quiet,
        )
        .unwrap();
        assert!(opened.joined.is_some());
        opened.plan.only(shard);
        let pending: Vec<usize> = opened.plan.pending().collect();
        let expected: Vec<usize> = (0..opened.plan.schedule.len()).filter(|&i| shard.contains(i)).collect();
        assert_eq!(pending, expected);
    }
}
