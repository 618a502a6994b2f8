//! The commands that set up and keep a contest's folder without serving it:
//! `arena contest init`, `invite` and `backup`, as library functions that
//! return data.
//!
//! A contest's folder holds:
//! * `contest.toml`: the organiser's settings ([`crate::config`]);
//! * `league/`: an ordinary league, in the sandbox, whose journal is the
//!   record of the contest's games;
//! * `contest.db`: what changes (accounts, sessions, tokens, submissions),
//!   in SQLite ([`crate::store`]);
//! * `uploads/`: every upload as it came, named by its SHA-256;
//! * `submissions/N/`: each submission's build and check logs.

use std::path::{Path, PathBuf};

use pahtum_league::folder as league_folder;
use pahtum_tournament::config::{PLAIN_NAME_RULE, is_plain_name};

use crate::accounts::{new_secret, secret_hash};
use crate::config::{CONTEST_FILE, ConfigError, Contest, default_file};
use crate::store::{AccountState, Role, Store, StoreError};

/// The league's folder in a contest's.
pub const LEAGUE: &str = "league";
/// The database in a contest's folder.
pub const DATABASE: &str = "contest.db";
/// The uploads' folder in a contest's.
pub const UPLOADS: &str = "uploads";
/// The submissions' logs' folder in a contest's.
pub const SUBMISSIONS: &str = "submissions";
/// The address `arena contest serve` listens at unless told.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8718";
/// The organiser's account, made by `init`.
pub const ORGANISER: &str = "organiser";

/// Why a contest's folder could not be set up or used.
#[derive(Debug, thiserror::Error)]
pub enum ContestError {
    /// `contest.toml`.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The database.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The league.
    #[error(transparent)]
    League(#[from] pahtum_league::LeagueError),
    /// The final's table.
    #[error(transparent)]
    Table(#[from] pahtum_league::service::ServiceError),
    /// The league could not be played, here or on the cluster.
    #[error(transparent)]
    Play(Box<crate::cluster::ClusterError>),
    /// A file or folder of the contest's.
    #[error("cannot {what} {}", path.display())]
    Io {
        /// What was done.
        what: &'static str,
        /// Where.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The folder holds a contest already.
    #[error("{} holds a contest already; use another folder", dir.display())]
    Exists {
        /// The folder.
        dir: PathBuf,
    },
    /// Not a contest's folder.
    #[error("{} is not a contest's folder (no contest.toml): make one with `arena contest init {}`", dir.display(), dir.display())]
    NotAContest {
        /// The folder.
        dir: PathBuf,
    },
    /// An author's name that cannot be an entrant's.
    #[error("the name {name:?} cannot be an author's: {PLAIN_NAME_RULE}")]
    BadName {
        /// The name.
        name: String,
    },
    /// The name is taken.
    #[error("there is an account named {name} already")]
    Taken {
        /// The name.
        name: String,
    },
}

impl From<crate::cluster::ClusterError> for ContestError {
    fn from(error: crate::cluster::ClusterError) -> ContestError {
        ContestError::Play(Box::new(error))
    }
}

impl From<pahtum_runner::league::PlayLeagueError> for ContestError {
    fn from(error: pahtum_runner::league::PlayLeagueError) -> ContestError {
        ContestError::from(crate::cluster::ClusterError::from(error))
    }
}

/// An `std::io::Error` as a [`ContestError`] about `path`.
pub(crate) fn io_error<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> ContestError + 'a {
    move |source| ContestError::Io {
        what,
        path: path.to_owned(),
        source,
    }
}

/// A contest's folder, opened: its settings and its database.
#[derive(Debug)]
pub struct Opened {
    /// The folder.
    pub dir: PathBuf,
    /// `contest.toml`.
    pub contest: Contest,
    /// `contest.db`.
    pub store: Store,
}

/// Opens the contest in `dir`.
pub fn open(dir: &Path) -> Result<Opened, ContestError> {
    if !dir.join(CONTEST_FILE).is_file() {
        return Err(ContestError::NotAContest { dir: dir.to_owned() });
    }
    let contest = Contest::load(dir)?;
    let store = Store::open(&dir.join(DATABASE))?;
    Ok(Opened {
        dir: dir.to_owned(),
        contest,
        store,
    })
}

/// The address an invitation's link starts with: the contest's public address, else the default one.
pub fn base_url(contest: &Contest) -> String {
    match contest.public_url.trim_end_matches('/') {
        "" => format!("http://{DEFAULT_LISTEN}"),
        url => url.to_owned(),
    }
}

/// What `init` made: the link that sets the organiser's password.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstLogin {
    /// The organiser's account.
    pub name: String,
    /// The link, good once.
    pub link: String,
}

/// Writes a new contest named `name` in `dir` (created if missing): `contest.toml`, a league in the
/// sandbox, the database with the organiser's account, and the organiser's one-time link.
pub fn init(dir: &Path, name: &str, now: i64) -> Result<FirstLogin, ContestError> {
    if dir.join(CONTEST_FILE).exists() || dir.join(DATABASE).exists() || dir.join(LEAGUE).exists() {
        return Err(ContestError::Exists { dir: dir.to_owned() });
    }
    std::fs::create_dir_all(dir).map_err(io_error("create", dir))?;
    let contest_file = dir.join(CONTEST_FILE);
    let text = default_file(name);
    let contest = Contest::parse(&contest_file, &text)?;
    let league = dir.join(LEAGUE);
    league_folder::init(&league, &plain_league_name(name))?;
    sandbox_the_league(&league)?;
    std::fs::write(&contest_file, text).map_err(io_error("write", &contest_file))?;
    for folder in [UPLOADS, SUBMISSIONS] {
        let path = dir.join(folder);
        std::fs::create_dir_all(&path).map_err(io_error("create", &path))?;
    }
    let store = Store::open(&dir.join(DATABASE))?;
    let organiser = store.add_author(ORGANISER, Role::Organiser, AccountState::Invited, now)?;
    let link = invitation_link(&store, &contest, organiser, now)?;
    Ok(FirstLogin {
        name: ORGANISER.to_owned(),
        link,
    })
}

/// The league's name: the contest's, made plain.
fn plain_league_name(name: &str) -> String {
    let plain: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if is_plain_name(&plain) {
        plain
    } else {
        "contest".to_owned()
    }
}

/// Turns the sandbox on in the league's fresh `league.toml`: a contest runs strangers' code.
fn sandbox_the_league(league: &Path) -> Result<(), ContestError> {
    let path = league.join(pahtum_league::LEAGUE_FILE);
    let text = std::fs::read_to_string(&path).map_err(io_error("read", &path))?;
    let sandboxed = text.replacen("sandbox = false", "sandbox = true", 1);
    std::fs::write(&path, sandboxed).map_err(io_error("write", &path))
}

/// An invitation as `invite` gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invitation {
    /// A one-time link where the author chooses a password.
    Link(String),
    /// An API token of the author's, for scripts (the account is active, with no password).
    Token(String),
}

/// Makes an account named `name` in the contest in `dir`, and its invitation: a link, or with `token` an
/// API token.
pub fn invite(dir: &Path, name: &str, token: bool, now: i64) -> Result<Invitation, ContestError> {
    let opened = open(dir)?;
    if !is_plain_name(name) {
        return Err(ContestError::BadName { name: name.to_owned() });
    }
    if opened.store.author_named(name)?.is_some() {
        return Err(ContestError::Taken { name: name.to_owned() });
    }
    let state = if token {
        AccountState::Active
    } else {
        AccountState::Invited
    };
    let author = opened.store.add_author(name, Role::Author, state, now)?;
    opened.store.log_action(ORGANISER, &format!("invited {name}"), now)?;
    if token {
        let secret = new_secret();
        opened
            .store
            .add_token(author, "invitation", &secret_hash(&secret), now)?;
        return Ok(Invitation::Token(secret));
    }
    Ok(Invitation::Link(invitation_link(
        &opened.store,
        &opened.contest,
        author,
        now,
    )?))
}

/// Records an invitation for `author` and gives its link.
fn invitation_link(store: &Store, contest: &Contest, author: i64, now: i64) -> Result<String, ContestError> {
    let secret = new_secret();
    let days = i64::from(contest.limits.invitation_days);
    store.add_invitation(author, &secret_hash(&secret), now + days * 86_400_000)?;
    Ok(format!("{}/invitation/{secret}", base_url(contest)))
}

/// Copies everything of the contest in `dir` into `out` (a new folder) while it runs: the settings, the
/// database as of one moment, the league (its journal to its last complete line), the uploads and the
/// logs. `out` then opens as the contest did.
pub fn backup(dir: &Path, out: &Path) -> Result<(), ContestError> {
    let opened = open(dir)?;
    if out.exists() {
        return Err(ContestError::Exists { dir: out.to_owned() });
    }
    std::fs::create_dir_all(out).map_err(io_error("create", out))?;
    let from = dir.join(CONTEST_FILE);
    std::fs::copy(&from, out.join(CONTEST_FILE)).map_err(io_error("copy", &from))?;
    opened.store.backup(&out.join(DATABASE))?;
    let league = out.join(LEAGUE);
    std::fs::create_dir_all(&league).map_err(io_error("create", &league))?;
    league_folder::copy_league(&dir.join(LEAGUE), &league)?;
    copy_files(&dir.join(LEAGUE).join("logs"), &league.join("logs"))?;
    let journal = pahtum_run::resume::JOURNAL;
    copy_complete_lines(&dir.join(LEAGUE).join(journal), &out.join(LEAGUE).join(journal))?;
    for folder in [UPLOADS, SUBMISSIONS] {
        copy_files(&dir.join(folder), &out.join(folder))?;
    }
    Ok(())
}

/// Copies the journal at `from` up to its last newline: a line being written is not copied half.
fn copy_complete_lines(from: &Path, to: &Path) -> Result<(), ContestError> {
    let bytes = std::fs::read(from).map_err(io_error("read", from))?;
    let end = bytes.iter().rposition(|&byte| byte == b'\n').map_or(0, |at| at + 1);
    std::fs::write(to, &bytes[..end]).map_err(io_error("write", to))
}

/// Copies the regular files of `from`, and of its folders, into `to`, never following a link.
fn copy_files(from: &Path, to: &Path) -> Result<(), ContestError> {
    std::fs::create_dir_all(to).map_err(io_error("create", to))?;
    let entries = match std::fs::read_dir(from) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(io_error("read", from)(error)),
    };
    for entry in entries {
        let entry = entry.map_err(io_error("read", from))?;
        let kind = entry.file_type().map_err(io_error("read", &entry.path()))?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_files(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).map_err(io_error("copy", &entry.path()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_makes_a_contest_with_its_organisers_link_and_refuses_a_second() {
        let dir = tempfile::tempdir().unwrap();
        let contest = dir.path().join("spring");
        let first = init(&contest, "Spring cup", 0).unwrap();
        assert_eq!(first.name, ORGANISER);
        assert!(
            first.link.starts_with("http://127.0.0.1:8718/invitation/"),
            "{}",
            first.link
        );
        let opened = open(&contest).unwrap();
        assert_eq!(opened.contest.name, "Spring cup");
        let secret = first.link.rsplit('/').next().unwrap();
        assert_eq!(
            opened.store.invitation(&secret_hash(secret), 1).unwrap().unwrap().name,
            ORGANISER
        );
        let league = pahtum_league::rules::load(&contest.join(LEAGUE).join(pahtum_league::LEAGUE_FILE)).unwrap();
        assert!(league.sandbox.is_some(), "a contest's league is sandboxed");
        assert!(matches!(init(&contest, "again", 0), Err(ContestError::Exists { .. })));
    }

    #[test]
    fn invitations_are_links_or_tokens_for_plain_new_names() {
        let dir = tempfile::tempdir().unwrap();
        init(dir.path(), "cup", 0).unwrap();
        let Invitation::Link(link) = invite(dir.path(), "ada", false, 0).unwrap() else {
            panic!("a link")
        };
        assert!(link.contains("/invitation/"));
        let Invitation::Token(token) = invite(dir.path(), "bob", true, 0).unwrap() else {
            panic!("a token")
        };
        let store = open(dir.path()).unwrap().store;
        assert_eq!(store.token(&secret_hash(&token), 1).unwrap().unwrap().name, "bob");
        assert!(matches!(
            invite(dir.path(), "ada", true, 0),
            Err(ContestError::Taken { .. })
        ));
        assert!(matches!(
            invite(dir.path(), "a b", true, 0),
            Err(ContestError::BadName { .. })
        ));
        let error = open(&dir.path().join("nothing")).unwrap_err().to_string();
        assert!(error.contains("arena contest init"), "{error}");
    }

    #[test]
    fn a_backup_opens_as_the_contest_did() {
        let dir = tempfile::tempdir().unwrap();
        let contest = dir.path().join("c");
        init(&contest, "cup", 0).unwrap();
        invite(&contest, "ada", true, 0).unwrap();
        std::fs::write(contest.join(UPLOADS).join("abc"), b"archive").unwrap();
        let out = dir.path().join("copy");
        backup(&contest, &out).unwrap();
        let copy = open(&out).unwrap();
        assert_eq!(
            copy.store.authors().unwrap(),
            open(&contest).unwrap().store.authors().unwrap()
        );
        assert_eq!(std::fs::read(out.join(UPLOADS).join("abc")).unwrap(), b"archive");
        pahtum_league::folder::open(&out.join(LEAGUE)).unwrap();
        assert!(matches!(backup(&contest, &out), Err(ContestError::Exists { .. })));
    }
}
