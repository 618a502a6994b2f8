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
//!
//! # An entrant's folder is hostile input
//!
//! `arena league add DIR --from FOLDER` copies a stranger's upload, so [`stage`] copies regular files
//! and folders only. It refuses the whole folder, naming the file (escaped) and the rule or the limit,
//! when the folder holds:
//!
//! - a symbolic link (to `/etc/shadow`, to `../..`, to anything): no link is copied or followed;
//! - a hard link (a regular file of more than one name): its other name may be a file outside;
//! - a FIFO, a socket, a block or character device: reading one blocks, or reads the machine;
//! - a name that is not UTF-8 or holds a control character (a newline, an escape): it would forge
//!   lines of a log or drive the organiser's terminal;
//! - more than [`Caps::files`] files and folders, a folder deeper than [`Caps::depth`], or more than
//!   [`Caps::mb`] MiB of files (`max_files`, `max_depth`, `max_mb` of `league.toml`), each file counted
//!   at its apparent size (a sparse file whole), so that a huge file is refused before a byte of it is
//!   copied. The walk stops at the first cap passed and keeps its own stack: a deep tree or a million
//!   files cost little and recurse nowhere.
//!
//! The folder is walked (module `snapshot`) through file descriptors: each name is looked up in its folder's descriptor
//! (`fstatat`, `openat` with `O_NOFOLLOW`), so that no link is followed even if one is swapped in
//! midway; only FOLDER itself, which the organiser names, may be reached through a link. A first walk
//! lists and checks everything and writes nothing; only then is the staging folder made, and a second
//! walk copies what was listed: each file is opened `O_NOFOLLOW | O_NONBLOCK` (a FIFO swapped in
//! cannot block), held by `fstat` to the regular file listed (same device and inode), and copied up to
//! its listed size: one that grew, or anything changed since the listing, is refused and the staging
//! folder removed. So a refused folder leaves the league byte for byte as it was. The copies are
//! plain files of mode 0644, or 0755 where the original was executable by anyone.
//!
//! The `bot.toml` is read the same way ([`bot_file`]: a regular file of one name, at most 64 KiB), and
//! a command that names a path outside the entrant's snapshot is refused ([`path_outside`]), so that
//! an entrant learns early that its sandbox shows it nothing but its snapshot and the system's
//! folders. [`copy_league`] copies a league's own snapshots, checked when they joined but maybe built
//! since, by the same walk without caps: a link a build made is copied as a link, never followed, and
//! a hard-linked file (a build's outputs may be) as a plain file; FIFOs, sockets and devices are
//! refused there too. [`content_hash`] walks the snapshot the same way.

use std::fs;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use pahtum_protocol::untrusted::escape;
use rustix::fs::{AtFlags, CWD, statat};
use serde::Deserialize;

use pahtum_journal::sink::Counts;
use pahtum_journal::{Journal, Moves};
use pahtum_run::resume::JOURNAL;
use pahtum_tournament::config::{BlockSource, ConfigError};

use super::lines::{Entrant, Event, LeagueHeader};
use super::read::{LeagueError, read};
use super::rules::{self, Caps, LEAGUE_FILE};
use super::state::LeagueState;

pub use super::snapshot::content_hash;
use super::snapshot::{Kind, Node, Trust, classify, copy_tree, io_error, list, open_listed, refusal};

/// The folder of an entrant's staged files.
pub const STAGING: &str = ".staging";

/// A league's folder opened: its journal locked for appending, and the league as it says.
#[derive(Debug)]
pub struct Opened {
    /// The journal.
    pub journal: Journal,
    /// The league.
    pub state: LeagueState,
    /// Whether the journal's header is of older rules (it has no other line yet): it is rewritten with
    /// the state's before the first line is recorded, so that opening a league writes nothing.
    stale_header: bool,
}

/// Writes a new league in `dir` (created if missing): a `league.toml` of every default named `name`, and
/// a journal of no entrant. Refuses a folder that holds either already.
pub fn init(dir: &Path, name: &str) -> Result<(), LeagueError> {
    init_with(dir, &rules::default_file(name))
}

/// Writes a new league in `dir` (created if missing) whose `league.toml` is `text`, checked before anything
/// is written, and a journal of no entrant. Refuses a folder that holds either already.
pub fn init_with(dir: &Path, text: &str) -> Result<(), LeagueError> {
    let rules_path = dir.join(LEAGUE_FILE);
    if rules_path.exists() || dir.join(JOURNAL).exists() {
        return Err(LeagueError::Refused(format!(
            "{} holds a league already; use another folder",
            dir.display()
        )));
    }
    let league = rules::parse(&rules_path, text)?;
    fs::create_dir_all(dir).map_err(|source| io_error("create", dir, source))?;
    fs::write(&rules_path, text).map_err(|source| io_error("write", &rules_path, source))?;
    Journal::create_with(&dir.join(JOURNAL), &LeagueHeader::new(&league))?;
    Ok(())
}

/// Opens the league in `dir`: locks its journal, reads and checks every line (a torn last line is
/// repaired), and holds `league.toml` to the journal's rules. A journal with no line yet but its header
/// takes the rules of `league.toml` as they are now (nothing was decided by the old ones): its header is
/// rewritten when the first line is recorded ([`Opened::record`]), so that a refused addition changes
/// nothing.
pub fn open(dir: &Path) -> Result<Opened, LeagueError> {
    let path = dir.join(JOURNAL);
    let league = rules::load(&dir.join(LEAGUE_FILE))?;
    let mut state = None;
    let (journal, _) = Journal::open_read(&path, |path| {
        let read = read(path, Moves::Drop, &mut Counts)?;
        state = Some(read.state);
        Ok::<_, LeagueError>(read.ending)
    })?;
    let state = state.expect("the journal was read");
    if *state.league() == league {
        return Ok(Opened {
            journal,
            state,
            stale_header: false,
        });
    }
    if !header_only(&path)? {
        return Err(LeagueError::Changed {
            path: dir.join(LEAGUE_FILE),
        });
    }
    Ok(Opened {
        journal,
        state: LeagueState::new(&league),
        stale_header: true,
    })
}

/// Whether the journal at `path` holds its header line and nothing else.
fn header_only(path: &Path) -> Result<bool, LeagueError> {
    let text = fs::read(path).map_err(|source| io_error("read", path, source))?;
    Ok(text.iter().filter(|&&byte| byte == b'\n').count() == 1 && text.ends_with(b"\n"))
}

impl Opened {
    /// Appends `event` to the journal and syncs it.
    pub fn record(&mut self, event: Event) -> Result<(), LeagueError> {
        if self.stale_header {
            self.rewrite_header()?;
        }
        let mut state = self.state.clone();
        state
            .apply_event(event.clone())
            .map_err(|fault| LeagueError::Refused(format!("not recorded: {fault}")))?;
        self.journal.append_line(&event)?;
        self.journal.sync()?;
        self.state = state;
        Ok(())
    }

    /// Replaces the journal (its header alone) by one of the rules of `league.toml`, and opens it.
    fn rewrite_header(&mut self) -> Result<(), LeagueError> {
        let path = self.journal.path().to_owned();
        let dir = path.parent().unwrap_or(Path::new(""));
        let fresh = dir.join(format!("{JOURNAL}.new"));
        let _ = fs::remove_file(&fresh);
        drop(Journal::create_with(&fresh, &LeagueHeader::new(self.state.league()))?);
        fs::rename(&fresh, &path).map_err(|source| io_error("replace", &path, source))?;
        let reopened = open(dir)?;
        if reopened.stale_header {
            return Err(LeagueError::Changed {
                path: dir.join(LEAGUE_FILE),
            });
        }
        *self = reopened;
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

/// The largest `bot.toml` read.
const MAX_BOT_FILE: u64 = 64 * 1024;

/// Reads the `bot.toml` of `folder`: a regular file of one name (not a link, whatever it names), at most
/// 64 KiB; the parser's message about it is escaped.
pub fn bot_file(folder: &Path) -> Result<BotFile, LeagueError> {
    let path = folder.join("bot.toml");
    let read_error = |source: io::Error| ConfigError::Read {
        path: path.clone(),
        source,
    };
    let node = statat(CWD, &path, AtFlags::SYMLINK_NOFOLLOW).map_err(|errno| read_error(errno.into()))?;
    let node = Node::of(&node);
    if classify(&path, CWD, &path, &node, Trust::Stranger)? != Kind::File {
        return Err(refusal(&path, "is a folder", "make bot.toml a file"));
    }
    if node.size > MAX_BOT_FILE {
        return Err(refusal(
            &path,
            format!("holds {} bytes, more than the {MAX_BOT_FILE} a bot.toml may", node.size),
            "keep to its four keys: name, version, command, build",
        ));
    }
    let mut text = String::new();
    open_listed(CWD, &path, &path, &node)?
        .take(MAX_BOT_FILE)
        .read_to_string(&mut text)
        .map_err(read_error)?;
    toml::from_str(&text).map_err(|error| {
        let message = error.to_string();
        let lines: Vec<_> = message.trim_end().lines().map(escape).collect();
        LeagueError::Config(ConfigError::Syntax {
            path: path.clone(),
            message: lines.join("\n"),
        })
    })
}

/// The system's folders: a command may name a program or file in them by its absolute path.
pub const SYSTEM_FOLDERS: [&str; 7] = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/// The first path that a word of an entrant's `command` names outside its snapshot, if any: an absolute
/// path outside the [`SYSTEM_FOLDERS`], or a relative one that climbs out of the snapshot (`..`, `../x`,
/// `a/../../b`). Each word is read lexically: when it holds a `=`, what follows the first (`--key=PATH`),
/// then the whole word.
pub fn path_outside(command: &[String]) -> Option<&str> {
    command
        .iter()
        .flat_map(|word| [word.split_once('=').map(|(_, path)| path), Some(word.as_str())])
        .flatten()
        .find(|path| leaves_snapshot(path))
}

/// Whether the word `path`, read lexically as a path, lies outside the snapshot and the system's folders.
fn leaves_snapshot(path: &str) -> bool {
    let path = Path::new(path);
    let mut inside = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(name) => inside.push(name),
            // `/..` is `/`; `..` of the snapshot leaves it.
            Component::ParentDir if inside.pop().is_none() && path.is_relative() => return true,
            _ => {}
        }
    }
    path.is_absolute()
        && !inside.first().is_some_and(|first| {
            SYSTEM_FOLDERS
                .iter()
                .any(|system| Path::new(system).file_name() == Some(first))
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

/// Copies an entrant's files into `league`'s staging folder, as `label`.
///
/// With `from`, the whole folder `from`, hostile input checked and copied as the module documentation
/// says, within `caps`; a `command` that names a path outside the snapshot is refused. A refusal writes
/// nothing into the league. Without `from` (the organiser's own command line), the files `command` names
/// (each argument, and a relative program, that is an existing file), each into the snapshot under its
/// file name and named so in the command; a program named by an absolute path or found on `PATH` is the
/// machine's, not copied.
pub fn stage(
    league: &Path,
    label: &str,
    from: Option<&Path>,
    command: &[String],
    caps: &Caps,
) -> Result<Staged, LeagueError> {
    let dir = league.join(STAGING).join(label);
    if let Some(from) = from {
        if let Some(path) = path_outside(command) {
            return Err(refusal(
                &from.join("bot.toml"),
                format!(
                    "has a command that names {}, a path outside the entrant's snapshot (its sandbox shows \
                     only the snapshot and the system's folders {})",
                    escape(path),
                    SYSTEM_FOLDERS.join(", ")
                ),
                "name the bot's files by paths inside its folder (bot.py, bin/bot) and programs by name \
                 or in the system's folders (python3, /usr/bin/python3)",
            ));
        }
        let listed = list(from, *caps)?;
        fresh_folder(&dir)?;
        let copied = copy_tree(from, &dir, Trust::Stranger, Some(&listed), *caps);
        if copied.is_err() {
            let _ = fs::remove_dir_all(&dir);
            let _ = fs::remove_dir(league.join(STAGING));
        }
        return copied.map(|()| Staged {
            dir,
            command: command.to_vec(),
        });
    }
    fresh_folder(&dir)?;
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

/// Makes `dir` an empty folder (clearing what an earlier add left there).
fn fresh_folder(dir: &Path) -> Result<(), LeagueError> {
    if dir.exists() {
        fs::remove_dir_all(dir).map_err(|source| io_error("clear", dir, source))?;
    }
    fs::create_dir_all(dir).map_err(|source| io_error("create", dir, source))
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

/// Writes a new league in `dir` whose rules are those of the league folder `from`, with the keys of the
/// TOML text `keys` put in their place (a key `keys` sets replaces `from`'s, a table whole): a final of a
/// ladder, say, played by the ladder's rules and time control, its own seed and pairing rule. The rules
/// are checked before anything is written; a folder that holds a league already is refused.
pub fn init_from(from: &Path, dir: &Path, keys: &str) -> Result<(), LeagueError> {
    let rules_path = dir.join(LEAGUE_FILE);
    let source = from.join(LEAGUE_FILE);
    let syntax = |path: &Path, error: toml::de::Error| {
        LeagueError::Config(ConfigError::Syntax {
            path: path.to_owned(),
            message: error.to_string().trim_end().to_owned(),
        })
    };
    let text = fs::read_to_string(&source).map_err(|source_error| io_error("read", &source, source_error))?;
    let mut table: toml::Table = toml::from_str(&text).map_err(|error| syntax(&source, error))?;
    let set: toml::Table = toml::from_str(keys).map_err(|error| syntax(&rules_path, error))?;
    table.extend(set);
    init_with(dir, &toml::to_string(&table).expect("a TOML table writes as TOML"))
}

/// Lets `entrant` of the league folder `from` join the league `opened` in `dir`, as it is, built: its
/// snapshot is copied as a league's own (no caps: it was checked when it joined `from`), and it is
/// recorded with the same content hash, so that its games in both leagues are of one bot.
pub fn transfer(from: &Path, dir: &Path, opened: &mut Opened, entrant: &Entrant) -> Result<(), LeagueError> {
    let staged = dir.join(STAGING).join(entrant.label());
    fresh_folder(&staged)?;
    copy_tree(&from.join(entrant.dir()), &staged, Trust::Snapshot, None, Caps::NONE)?;
    admit(dir, opened, &staged, entrant.clone())
}

/// Copies the rules (with the opening book they name) and the entrants' snapshots of the league folder
/// `from` into `to`, where `to` has no `league.toml` yet (the folder of a merged journal). The snapshots are
/// walked as the module documentation says, without caps (they were checked when they joined).
pub fn copy_league(from: &Path, to: &Path) -> Result<(), LeagueError> {
    if to.join(LEAGUE_FILE).exists() || !from.join(LEAGUE_FILE).exists() {
        return Ok(());
    }
    fs::copy(from.join(LEAGUE_FILE), to.join(LEAGUE_FILE)).map_err(|source| io_error("copy", from, source))?;
    if let BlockSource::Book(openings) = rules::load(&from.join(LEAGUE_FILE))?.rules.blocks {
        let book = from.join(&openings.file);
        fs::copy(&book, to.join(&openings.file)).map_err(|source| io_error("copy", &book, source))?;
    }
    let entrants = from.join("entrants");
    if entrants.is_dir() {
        fs::create_dir_all(to.join("entrants")).map_err(|source| io_error("create", to, source))?;
        copy_tree(&entrants, &to.join("entrants"), Trust::Snapshot, None, Caps::NONE)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;
    use std::fs::File;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::{PermissionsExt, symlink};

    use rustix::fs::{FileType, Mode, makedev, mknodat};

    use super::super::snapshot::KINDS_RULE;

    use super::*;

    const CAPS: Caps = Caps {
        files: 20,
        depth: 4,
        mb: 1,
    };

    /// A league folder and an entrant's folder of a bot.toml, `bot.py` and `data/a.txt`, in `root`.
    fn folders(root: &Path) -> (PathBuf, PathBuf) {
        let (league, from) = (root.join("league"), root.join("bot"));
        fs::create_dir_all(&league).unwrap();
        fs::create_dir_all(from.join("data")).unwrap();
        fs::write(from.join("bot.toml"), "name = \"b\"\ncommand = \"first-free\"\n").unwrap();
        fs::write(from.join("bot.py"), "print('hi')\n").unwrap();
        fs::write(from.join("data/a.txt"), "a").unwrap();
        (league, from)
    }

    fn stage_of(league: &Path, from: &Path, command: &[&str]) -> Result<Staged, LeagueError> {
        let command: Vec<String> = command.iter().map(|word| (*word).to_owned()).collect();
        stage(league, "b@1", Some(from), &command, &CAPS)
    }

    /// The message `stage` refuses the folder `from` (set up by `hostile`) with; it wrote nothing. Its
    /// control, the folder without that entry, is staged.
    fn refused(hostile: impl FnOnce(&Path)) -> String {
        let root = tempfile::tempdir().unwrap();
        let (league, from) = folders(root.path());
        stage_of(&league, &from, &["first-free"]).expect("the control is staged");
        fs::remove_dir_all(league.join(STAGING)).unwrap();
        hostile(&from);
        let error = stage_of(&league, &from, &["first-free"]).expect_err("refused");
        assert!(matches!(error, LeagueError::Entrant { .. }), "{error}");
        assert_eq!(fs::read_dir(&league).unwrap().count(), 0, "nothing written: {error}");
        error.to_string()
    }

    fn assert_names(message: &str, parts: &[&str]) {
        for part in parts {
            assert!(message.contains(part), "{part:?} not in: {message}");
        }
    }

    #[test]
    fn links_of_every_kind_are_refused_and_none_is_followed() {
        let message = refused(|from| symlink("/etc/shadow", from.join("data/key")).unwrap());
        assert_names(
            &message,
            &["bot/data/key is a symbolic link (to /etc/shadow)", KINDS_RULE],
        );
        let message = refused(|from| symlink("../..", from.join("up")).unwrap());
        assert_names(&message, &["bot/up is a symbolic link (to ../..)", KINDS_RULE]);
        let message = refused(|from| {
            fs::write(from.join("../outside.txt"), "secret").unwrap();
            fs::hard_link(from.join("../outside.txt"), from.join("data/same.txt")).unwrap();
        });
        assert_names(
            &message,
            &["bot/data/same.txt is a hard link (its file has 2 names", KINDS_RULE],
        );
    }

    #[test]
    fn fifos_sockets_and_devices_are_refused() {
        let message = refused(|from| mknodat(CWD, from.join("pipe"), FileType::Fifo, Mode::RUSR, 0).unwrap());
        assert_names(&message, &["bot/pipe is a FIFO", KINDS_RULE]);
        let message = refused(|from| drop(std::os::unix::net::UnixListener::bind(from.join("sock")).unwrap()));
        assert_names(&message, &["bot/sock is a socket", KINDS_RULE]);
        let null = makedev(1, 3);
        let probe = tempfile::tempdir().unwrap();
        if mknodat(
            CWD,
            probe.path().join("null"),
            FileType::CharacterDevice,
            Mode::RUSR,
            null,
        )
        .is_err()
        {
            println!("not root: the character device is not tried");
            return;
        }
        let message =
            refused(|from| mknodat(CWD, from.join("null"), FileType::CharacterDevice, Mode::RUSR, null).unwrap());
        assert_names(&message, &["bot/null is a character device", KINDS_RULE]);
    }

    #[test]
    fn names_with_controls_or_not_in_utf8_are_refused_escaped() {
        let message = refused(|from| fs::write(from.join("a\nb"), "x").unwrap());
        assert_names(&message, &["bot/a\\nb has a control character", "valid UTF-8"]);
        let message = refused(|from| fs::write(from.join("data/\u{1b}[31mred"), "x").unwrap());
        assert_names(&message, &["bot/data/\\x1b[31mred has a control character"]);
        let message = refused(|from| fs::write(from.join(OsStr::from_bytes(b"bad\xffname")), "x").unwrap());
        assert_names(&message, &["bot/bad\\xffname is named in invalid UTF-8"]);
    }

    #[test]
    fn each_cap_is_named_and_the_walk_stops_at_it() {
        let message = refused(|from| {
            for index in 0..100 {
                fs::write(from.join(format!("f{index}")), "").unwrap();
            }
        });
        assert_names(&message, &["is one past max_files = 20 files and folders"]);
        let message = refused(|from| fs::create_dir_all(from.join("1/2/3/4/5/6/7/8")).unwrap());
        assert_names(&message, &["bot/1/2/3/4/5 lies 5 folders deep, past max_depth = 4"]);
        let message = refused(|from| {
            File::create(from.join("sparse")).unwrap().set_len(10 << 30).unwrap();
        });
        assert_names(
            &message,
            &["bot/sparse (10737418240 bytes) brings the files to", "max_mb = 1 MiB"],
        );
    }

    #[test]
    fn a_file_that_grew_or_changed_after_the_listing_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let (_, from) = folders(root.path());
        let to = root.path().join("to");
        let listed = list(&from, CAPS).unwrap();
        fs::write(from.join("bot.py"), "print('hi, and more')\n").unwrap();
        fs::create_dir(&to).unwrap();
        let error = copy_tree(&from, &to, Trust::Stranger, Some(&listed), CAPS).unwrap_err();
        assert_names(
            &error.to_string(),
            &["bot/bot.py grew while it was copied, past the 12 bytes"],
        );
        fs::write(from.join("bot.py"), "print('hi')\n").unwrap();
        fs::write(from.join("data/new.txt"), "a").unwrap();
        fs::rename(from.join("data/new.txt"), from.join("data/a.txt")).unwrap();
        let error = copy_tree(&from, &to, Trust::Stranger, Some(&listed), CAPS).unwrap_err();
        assert_names(&error.to_string(), &["changed while the folder was copied"]);
    }

    #[test]
    fn a_clean_folder_is_copied_as_plain_files_and_hashes_as_before() {
        let root = tempfile::tempdir().unwrap();
        let (league, from) = folders(root.path());
        fs::write(from.join("run.sh"), "#!/bin/sh\n").unwrap();
        fs::set_permissions(from.join("run.sh"), fs::Permissions::from_mode(0o4775)).unwrap();
        let staged = stage_of(&league, &from, &["sh", "run.sh"]).unwrap();
        assert_eq!(fs::read(staged.dir.join("data/a.txt")).unwrap(), b"a");
        let mode = |name: &str| fs::metadata(staged.dir.join(name)).unwrap().permissions().mode() & 0o7777;
        assert_eq!((mode("run.sh"), mode("bot.py")), (0o755, 0o644));
        // The hash of this tree, a link included, as the code before the walk computed it.
        let dir = root.path().join("hashed");
        fs::create_dir_all(dir.join("src/deep")).unwrap();
        fs::write(dir.join("bot.py"), "print('hi')\n").unwrap();
        fs::write(dir.join("src/deep/a.txt"), "a").unwrap();
        fs::write(dir.join("src/b"), "").unwrap();
        fs::write(dir.join("run.sh"), "#!/bin/sh\n").unwrap();
        fs::set_permissions(dir.join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
        symlink("bot.py", dir.join("link")).unwrap();
        let words = ["python3".to_owned(), "bot.py".to_owned()];
        assert_eq!(
            content_hash(&dir, &words, Some("make")).unwrap(),
            "sha256:ab9217efda1493f96477be2db4d92c49ea6cbff019c0d226ad4a449e9c30e992"
        );
        assert_eq!(
            content_hash(&dir, &words[..1], None).unwrap(),
            "sha256:0e1c26a3b5e9cdc74f667fef183886dcd3a7815056351c2d6767a464a9537eaa"
        );
    }

    #[test]
    fn a_league_copy_keeps_a_build_s_links_as_links_and_refuses_a_fifo() {
        let root = tempfile::tempdir().unwrap();
        let (from, to) = (root.path().join("shard/league"), root.path().join("out"));
        let snapshot = from.join("entrants/b@1");
        fs::create_dir_all(&snapshot).unwrap();
        fs::create_dir_all(&to).unwrap();
        fs::write(from.join(LEAGUE_FILE), "name = \"l\"\n").unwrap();
        fs::write(snapshot.join("bin"), "x").unwrap();
        fs::hard_link(snapshot.join("bin"), snapshot.join("bin-again")).unwrap();
        symlink("/etc/shadow", snapshot.join("key")).unwrap();
        copy_league(&from, &to).unwrap();
        let copied = to.join("entrants/b@1");
        assert_eq!(fs::read_link(copied.join("key")).unwrap(), Path::new("/etc/shadow"));
        assert_eq!(fs::read(copied.join("bin-again")).unwrap(), b"x");
        mknodat(CWD, snapshot.join("pipe"), FileType::Fifo, Mode::RUSR, 0).unwrap();
        let again = root.path().join("again");
        fs::create_dir_all(&again).unwrap();
        let error = copy_league(&from, &again).unwrap_err();
        assert_names(&error.to_string(), &["entrants/b@1/pipe is a FIFO"]);
    }

    #[test]
    fn a_bot_toml_that_is_a_link_is_not_read() {
        let root = tempfile::tempdir().unwrap();
        let (_, from) = folders(root.path());
        assert_eq!(bot_file(&from).unwrap().command, "first-free");
        fs::remove_file(from.join("bot.toml")).unwrap();
        symlink("/etc/shadow", from.join("bot.toml")).unwrap();
        let error = bot_file(&from).unwrap_err();
        assert_names(
            &error.to_string(),
            &["bot/bot.toml is a symbolic link (to /etc/shadow)"],
        );
    }

    /// A journal of its header alone takes the edited rules, but is rewritten only with its first line.
    #[test]
    fn opening_a_league_writes_nothing_until_its_first_line() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("l");
        init(&dir, "l").unwrap();
        let header = fs::read(dir.join(JOURNAL)).unwrap();
        fs::write(dir.join(LEAGUE_FILE), "name = \"l\"\nmax_mb = 1\n").unwrap();
        assert_eq!(open(&dir).unwrap().state.league().max_mb, 1);
        assert_eq!(fs::read(dir.join(JOURNAL)).unwrap(), header);
        let entrant = Entrant {
            name: "b".to_owned(),
            version: "1".to_owned(),
            hash: format!("sha256:{}", "0".repeat(64)),
            command: vec!["first-free".to_owned()],
            build: None,
            joined_unix_ms: 0,
        };
        open(&dir).unwrap().record(Event::Entrant(entrant)).unwrap();
        let opened = open(&dir).unwrap();
        assert_eq!((opened.state.league().max_mb, opened.state.entrants().len()), (1, 1));
        let text = fs::read_to_string(dir.join(JOURNAL)).unwrap();
        assert!(text.lines().next().unwrap().contains("\"max_mb\":1"), "{text}");
    }

    #[test]
    fn a_command_naming_a_path_outside_the_snapshot_is_refused() {
        let words = |command: &str| shlex::split(command).unwrap();
        for (command, outside) in [
            ("python3 /root/x/key.txt", "/root/x/key.txt"),
            ("cat /etc/passwd", "/etc/passwd"),
            ("python3 bot.py ../secret", "../secret"),
            ("python3 a/../../b", "a/../../b"),
            ("./bot --key=/root/.ssh/id_ed25519", "/root/.ssh/id_ed25519"),
            ("./bot --data=../x", "../x"),
            ("/usr/../etc/shadow", "/usr/../etc/shadow"),
            ("/opt/python/bin/python3 bot.py", "/opt/python/bin/python3"),
            ("./bot ..", ".."),
            ("./bot /", "/"),
            ("/usrx/bin/python3", "/usrx/bin/python3"),
        ] {
            assert_eq!(path_outside(&words(command)), Some(outside), "{command}");
        }
        for command in [
            "first-free",
            "python3 bot.py",
            "/usr/bin/python3 bot.py",
            "/bin/sh run.sh",
            "/lib64/ld-linux-x86-64.so.2 ./bot",
            "./bin/bot --data=data/x.bin a/../b",
            "node dist/./bot.js",
        ] {
            assert_eq!(path_outside(&words(command)), None, "{command}");
        }
        let root = tempfile::tempdir().unwrap();
        let (league, from) = folders(root.path());
        let error = stage_of(&league, &from, &["python3", "bot.py", "/root/x/key.txt"])
            .err()
            .unwrap()
            .to_string();
        assert_names(
            &error,
            &["bot/bot.toml has a command that names /root/x/key.txt, a path outside"],
        );
        assert_eq!(fs::read_dir(&league).unwrap().count(), 0);
    }
}
