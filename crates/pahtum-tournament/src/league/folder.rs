//! A league's folder: `league.toml`, the journal, and each entrant's
//! snapshot.
//!
//! ```text
//! DIR/league.toml          the rules (tournaments/league/league.toml)
//! DIR/journal.jsonl        the journal, the only source of truth
//! DIR/entrants/NAME@VER/   each entrant's files, copied when it joined
//! DIR/logs/                builds, checks, and the bots' stderr
//! DIR/.staging/            an entrant being built and checked
//! ```
//!
//! An entrant's files are copied into the folder before it is built
//! ([`stage`]): a later edit of the author's folder changes nothing of it.
//! Its content hash ([`content_hash`]) is the SHA-256 of its snapshot as
//! copied (every file's path, whether it is executable and its bytes, in
//! path order), its command and its build command, so that the same
//! submission gets the same hash on every machine. Only once it built and
//! passed its check does the staged folder move into `entrants/` and the
//! entrant's line go into the journal ([`admit`]); a failure leaves the
//! league as it was (the staged folder is removed, the logs kept).

use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::config::ConfigError;
use crate::journal::{Journal, JournalError, Moves};
use crate::resume::JOURNAL;

use super::lines::{Entrant, Event, LeagueHeader};
use super::read::{LeagueError, read};
use super::rules::{self, LEAGUE_FILE};
use super::state::LeagueState;

/// The folder of an entrant's staged files.
pub const STAGING: &str = ".staging";

/// A league's folder opened: its journal locked for appending, and the league as it says.
#[derive(Debug)]
pub struct Opened {
    /// The journal.
    pub journal: Journal,
    /// The league.
    pub state: LeagueState,
}

/// Writes a new league in `dir` (created if missing): a `league.toml` of every default named `name`, and
/// a journal of no entrant. Refuses a folder that holds either already.
pub fn init(dir: &Path, name: &str) -> Result<(), LeagueError> {
    let rules_path = dir.join(LEAGUE_FILE);
    if rules_path.exists() || dir.join(JOURNAL).exists() {
        return Err(LeagueError::Refused(format!(
            "{} holds a league already; use another folder",
            dir.display()
        )));
    }
    let league = rules::parse(&rules_path, &rules::default_file(name))?;
    fs::create_dir_all(dir).map_err(|source| io_error("create", dir, source))?;
    fs::write(&rules_path, rules::default_file(name)).map_err(|source| io_error("write", &rules_path, source))?;
    Journal::create_with(&dir.join(JOURNAL), &LeagueHeader::new(&league))?;
    Ok(())
}

fn io_error(action: &'static str, path: &Path, source: io::Error) -> LeagueError {
    LeagueError::Journal(JournalError::Io {
        action,
        path: path.to_owned(),
        source,
    })
}

/// Opens the league in `dir`: locks its journal, reads and checks every line (a torn last line is
/// repaired), and holds `league.toml` to the journal's rules. A journal with no line yet but its header
/// takes the rules of `league.toml` as they are now (nothing was decided by the old ones).
pub fn open(dir: &Path) -> Result<Opened, LeagueError> {
    let path = dir.join(JOURNAL);
    let league = rules::load(&dir.join(LEAGUE_FILE))?;
    let mut state = None;
    let (journal, _) = Journal::open_read(&path, |path| {
        let read = read(path, Moves::Drop, |_| (), |_, _, (), _| {})?;
        state = Some(read.state);
        Ok::<_, LeagueError>(read.ending)
    })?;
    let state = state.expect("the journal was read");
    if *state.league() == league {
        return Ok(Opened { journal, state });
    }
    if !header_only(&path)? {
        return Err(LeagueError::Changed {
            path: dir.join(LEAGUE_FILE),
        });
    }
    drop(journal);
    let fresh = dir.join(format!("{JOURNAL}.new"));
    let _ = fs::remove_file(&fresh);
    drop(Journal::create_with(&fresh, &LeagueHeader::new(&league))?);
    fs::rename(&fresh, &path).map_err(|source| io_error("replace", &path, source))?;
    open(dir)
}

/// Whether the journal at `path` holds its header line and nothing else.
fn header_only(path: &Path) -> Result<bool, LeagueError> {
    let text = fs::read(path).map_err(|source| io_error("read", path, source))?;
    Ok(text.iter().filter(|&&byte| byte == b'\n').count() == 1 && text.ends_with(b"\n"))
}

impl Opened {
    /// Appends `event` to the journal and syncs it.
    pub fn record(&mut self, event: Event) -> Result<(), LeagueError> {
        let mut state = self.state.clone();
        state
            .apply_event(event.clone())
            .map_err(|fault| LeagueError::Refused(format!("not recorded: {fault}")))?;
        self.journal.append_line(&event)?;
        self.journal.sync()?;
        self.state = state;
        Ok(())
    }
}

/// A `bot.toml`: what `arena league add DIR --from FOLDER` reads in the folder.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BotFile {
    /// The bot's name (its versions share it).
    pub name: String,
    /// The version; by default one more than the bot's versions so far.
    pub version: Option<String>,
    /// The command that starts the bot in its folder, split like a shell would.
    pub command: String,
    /// A build command run (by `sh -c`) in the snapshot before the check, if any.
    pub build: Option<String>,
}

/// Reads the `bot.toml` of `folder`.
pub fn bot_file(folder: &Path) -> Result<BotFile, ConfigError> {
    let path = folder.join("bot.toml");
    let text = fs::read_to_string(&path).map_err(|source| ConfigError::Read {
        path: path.clone(),
        source,
    })?;
    toml::from_str(&text).map_err(|error| ConfigError::Syntax {
        path,
        message: error.to_string().trim_end().to_owned(),
    })
}

/// An entrant's files copied into the league's staging folder, and its command there.
#[derive(Debug)]
pub struct Staged {
    /// The staged snapshot.
    pub dir: PathBuf,
    /// The command, its file arguments made relative to the snapshot.
    pub command: Vec<String>,
}

/// Copies an entrant's files into `league`'s staging folder, as `label`: the whole of `from` when
/// given; otherwise the files its `command` names (each argument, and a relative program, that is an
/// existing file), each into the snapshot under its file name and named so in the command. A program
/// named by an absolute path or found on `PATH` is the machine's, not copied.
pub fn stage(league: &Path, label: &str, from: Option<&Path>, command: &[String]) -> Result<Staged, LeagueError> {
    let dir = league.join(STAGING).join(label);
    if dir.exists() {
        fs::remove_dir_all(&dir).map_err(|source| io_error("clear", &dir, source))?;
    }
    fs::create_dir_all(&dir).map_err(|source| io_error("create", &dir, source))?;
    if let Some(from) = from {
        copy_tree(from, &dir)?;
        return Ok(Staged {
            dir,
            command: command.to_vec(),
        });
    }
    let mut words = Vec::with_capacity(command.len());
    for (index, word) in command.iter().enumerate() {
        let path = Path::new(word);
        let copied = (index > 0 || (word.contains('/') && path.is_relative())) && path.is_file();
        match path.file_name().filter(|_| copied) {
            Some(name) => {
                let target = dir.join(name);
                fs::copy(path, &target).map_err(|source| io_error("copy", path, source))?;
                words.push(format!("./{}", name.to_string_lossy()));
            }
            None => words.push(word.clone()),
        }
    }
    Ok(Staged { dir, command: words })
}

/// Copies the folder `from` into `to`, files, folders and links as they are.
fn copy_tree(from: &Path, to: &Path) -> Result<(), LeagueError> {
    let entries = fs::read_dir(from).map_err(|source| io_error("read", from, source))?;
    for entry in entries {
        let entry = entry.map_err(|source| io_error("read", from, source))?;
        let (source_path, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry
            .file_type()
            .map_err(|source| io_error("read", &source_path, source))?;
        if kind.is_dir() {
            fs::create_dir_all(&target).map_err(|source| io_error("create", &target, source))?;
            copy_tree(&source_path, &target)?;
        } else if kind.is_symlink() {
            let link = fs::read_link(&source_path).map_err(|source| io_error("read", &source_path, source))?;
            std::os::unix::fs::symlink(link, &target).map_err(|source| io_error("create", &target, source))?;
        } else {
            fs::copy(&source_path, &target).map_err(|source| io_error("copy", &source_path, source))?;
        }
    }
    Ok(())
}

/// The content hash of the snapshot `dir` with its `command` and `build` (see the module documentation).
pub fn content_hash(dir: &Path, command: &[String], build: Option<&str>) -> Result<String, LeagueError> {
    let mut files = Vec::new();
    list_files(dir, Path::new(""), &mut files)?;
    files.sort();
    let mut hasher = Sha256::new();
    hasher.update(b"pahtum-arena/entrant\0");
    for word in command {
        hasher.update((word.len() as u64).to_le_bytes());
        hasher.update(word.as_bytes());
    }
    hasher.update(build.unwrap_or("").as_bytes());
    hasher.update(b"\0");
    for relative in files {
        let path = dir.join(&relative);
        let meta = fs::symlink_metadata(&path).map_err(|source| io_error("read", &path, source))?;
        let bytes = if meta.is_symlink() {
            fs::read_link(&path)
                .map_err(|source| io_error("read", &path, source))?
                .into_os_string()
                .into_encoded_bytes()
        } else {
            fs::read(&path).map_err(|source| io_error("read", &path, source))?
        };
        let name = relative.into_os_string().into_encoded_bytes();
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(&name);
        hasher.update([
            u8::from(meta.permissions().mode() & 0o111 != 0),
            u8::from(meta.is_symlink()),
        ]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    let hex: String = hasher.finalize().iter().map(|byte| format!("{byte:02x}")).collect();
    Ok(format!("sha256:{hex}"))
}

/// The files and links under `dir`/`relative`, by their paths relative to `dir`.
fn list_files(dir: &Path, relative: &Path, files: &mut Vec<PathBuf>) -> Result<(), LeagueError> {
    let here = dir.join(relative);
    for entry in fs::read_dir(&here).map_err(|source| io_error("read", &here, source))? {
        let entry = entry.map_err(|source| io_error("read", &here, source))?;
        let path = relative.join(entry.file_name());
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            list_files(dir, &path, files)?;
        } else {
            files.push(path);
        }
    }
    Ok(())
}

/// Moves the staged snapshot of `entrant` into the league's `entrants/` and records it in the journal:
/// the entrant has joined.
pub fn admit(league: &Path, opened: &mut Opened, staged: &Path, entrant: Entrant) -> Result<(), LeagueError> {
    let target = league.join(entrant.dir());
    if target.exists() {
        // Left by an add that was cut off after the move and before its line: no entrant of the journal's.
        fs::remove_dir_all(&target).map_err(|source| io_error("clear", &target, source))?;
    }
    if let Some(parent) = target.parent() {
        fs::create_dir_all(parent).map_err(|source| io_error("create", parent, source))?;
    }
    fs::rename(staged, &target).map_err(|source| io_error("move", staged, source))?;
    opened.record(Event::Entrant(entrant))
}

/// Copies the rules and the entrants' snapshots of the league folder `from` into `to`, where `to` has
/// no `league.toml` yet (the folder of a merged journal).
pub fn copy_league(from: &Path, to: &Path) -> Result<(), LeagueError> {
    if to.join(LEAGUE_FILE).exists() || !from.join(LEAGUE_FILE).exists() {
        return Ok(());
    }
    fs::copy(from.join(LEAGUE_FILE), to.join(LEAGUE_FILE)).map_err(|source| io_error("copy", from, source))?;
    let entrants = from.join("entrants");
    if entrants.is_dir() {
        fs::create_dir_all(to.join("entrants")).map_err(|source| io_error("create", to, source))?;
        copy_tree(&entrants, &to.join("entrants"))?;
    }
    Ok(())
}
