//! What changes in a contest, in SQLite: authors, their password hashes,
//! sessions, API tokens, invitations, submissions and their states, the
//! authors' jobs (analyses of their lost games, challenges, the tests of
//! versions submitted on condition), the
//! organiser's moves of the season's phases, and the organiser's actions.
//!
//! The games are not here: the league's journal is their record, append-only
//! and checked. This is the mutable rest, which a journal would only replay:
//! a session seen, a token revoked, a submission that moved from building to
//! checking. SQLite (bundled into the binary) in WAL mode gives readers that
//! never wait for the writer and a writer that survives a kill mid-write;
//! there is one connection, behind a mutex, so there is one writer. The
//! schema is migrated by the binary itself ([`MIGRATIONS`], numbered by
//! `PRAGMA user_version`), and [`Store::backup`] copies it consistently
//! while the contest runs (`VACUUM INTO`).
//!
//! Every secret is stored as its SHA-256 (sessions, tokens, invitations) or
//! its Argon2id hash (passwords): a copy of the database opens no account.
//! Every time is a Unix time in milliseconds given by the caller, so that
//! the rules (expiry, quotas) are tested without a clock.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::types::Type;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::season::{PhaseKey, PhaseMove};

/// The schema, one migration per step: the database's `user_version` is the number of steps applied.
const MIGRATIONS: &[&str] = &[
    r"
CREATE TABLE authors (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL CHECK (role IN ('organiser', 'author')),
    state TEXT NOT NULL CHECK (state IN ('invited', 'pending', 'active', 'disabled')),
    password TEXT,
    created_ms INTEGER NOT NULL
);
CREATE TABLE invitations (
    hash BLOB PRIMARY KEY,
    author INTEGER NOT NULL REFERENCES authors (id),
    expires_ms INTEGER NOT NULL,
    used_ms INTEGER
);
CREATE TABLE sessions (
    hash BLOB PRIMARY KEY,
    author INTEGER NOT NULL REFERENCES authors (id),
    created_ms INTEGER NOT NULL,
    seen_ms INTEGER NOT NULL
);
CREATE TABLE tokens (
    id INTEGER PRIMARY KEY,
    author INTEGER NOT NULL REFERENCES authors (id),
    name TEXT NOT NULL,
    hash BLOB NOT NULL UNIQUE,
    created_ms INTEGER NOT NULL,
    used_ms INTEGER,
    revoked_ms INTEGER
);
CREATE TABLE submissions (
    id INTEGER PRIMARY KEY,
    author INTEGER NOT NULL REFERENCES authors (id),
    archive TEXT NOT NULL,
    file_name TEXT,
    state TEXT NOT NULL CHECK (state IN ('queued', 'building', 'checking', 'playing', 'failed', 'retired')),
    label TEXT,
    error TEXT,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
);
CREATE INDEX submissions_by_state ON submissions (state, id);
CREATE INDEX submissions_by_author ON submissions (author, id);
CREATE TABLE actions (
    id INTEGER PRIMARY KEY,
    at_ms INTEGER NOT NULL,
    who TEXT NOT NULL,
    what TEXT NOT NULL
);
",
    r"
CREATE TABLE jobs (
    id INTEGER PRIMARY KEY,
    author INTEGER NOT NULL REFERENCES authors (id),
    kind TEXT NOT NULL CHECK (kind IN ('analysis', 'challenge')),
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
    asked TEXT NOT NULL,
    outcome TEXT,
    error TEXT,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
);
CREATE INDEX jobs_by_state ON jobs (kind, state, id);
CREATE INDEX jobs_by_author ON jobs (author, kind, id);
",
    r"
CREATE TABLE phase_moves (
    id INTEGER PRIMARY KEY,
    phase TEXT NOT NULL CHECK (phase IN ('open', 'freeze', 'final', 'end')),
    instant_ms INTEGER NOT NULL,
    who TEXT NOT NULL,
    moved_ms INTEGER NOT NULL
);
",
    // Promotions: a submission made on condition, what came of its test, and jobs of a third kind (SQLite
    // changes a CHECK only by making the table again).
    r"
ALTER TABLE submissions ADD COLUMN if_not_weaker INTEGER NOT NULL DEFAULT 0;
ALTER TABLE submissions ADD COLUMN note TEXT;
CREATE TABLE jobs_of_three_kinds (
    id INTEGER PRIMARY KEY,
    author INTEGER NOT NULL REFERENCES authors (id),
    kind TEXT NOT NULL CHECK (kind IN ('analysis', 'challenge', 'promotion')),
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
    asked TEXT NOT NULL,
    outcome TEXT,
    error TEXT,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
);
INSERT INTO jobs_of_three_kinds SELECT id, author, kind, state, asked, outcome, error, created_ms, updated_ms FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_of_three_kinds RENAME TO jobs;
CREATE INDEX jobs_by_state ON jobs (kind, state, id);
CREATE INDEX jobs_by_author ON jobs (author, kind, id);
",
];

/// Now, as the store counts time: Unix milliseconds.
pub fn now_ms() -> i64 {
    i64::try_from(pahtum_record::unix_ms()).unwrap_or(i64::MAX)
}

/// A day in milliseconds: quotas count per UTC day.
const DAY_MS: i64 = 86_400_000;

/// The contest's database, one connection behind a mutex: one writer.
#[derive(Debug)]
pub struct Store {
    connection: Mutex<Connection>,
}

/// Why the database could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused or failed.
    #[error("the contest's database failed")]
    Sql(#[from] rusqlite::Error),
    /// The database is of a newer arena.
    #[error("the contest's database is at schema {found}, newer than this arena's {known}: use a newer arena")]
    Newer {
        /// Its schema.
        found: usize,
        /// This binary's.
        known: usize,
    },
}

/// What an account may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Sees and manages everything.
    Organiser,
    /// Submits a bot and sees its own.
    Author,
}

/// Where an account stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccountState {
    /// Invited: no password yet.
    Invited,
    /// Registered, waiting for the organiser's approval.
    Pending,
    /// May log in and submit.
    Active,
    /// Disabled by the organiser: may not log in, and its bot plays no more.
    Disabled,
}

/// An account.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Author {
    /// Its number.
    pub id: i64,
    /// Its name: a plain name, which its bot's entrants carry.
    pub name: String,
    /// What it may do.
    pub role: Role,
    /// Where it stands.
    pub state: AccountState,
}

/// Where a submission stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SubmissionState {
    /// Waiting for its build.
    Queued,
    /// Unpacked and building.
    Building,
    /// Built; the conformance check runs.
    Checking,
    /// In the league: the active version of its author's bot.
    Playing,
    /// Refused: its upload, its build or its check failed (the error and the logs say why).
    Failed,
    /// In the league, but another version of its author's bot plays now.
    Retired,
}

/// A submission.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Submission {
    /// Its number.
    pub id: i64,
    /// Its author's number.
    pub author: i64,
    /// The SHA-256 of its upload, in hex: the name of the stored archive.
    pub archive: String,
    /// The uploaded file's name, for a single source file.
    pub file_name: Option<String>,
    /// Where it stands.
    pub state: SubmissionState,
    /// Its entrant's label (`NAME@VERSION`), once known.
    pub label: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
    /// Submitted on condition: it becomes its author's active version only if a test finds it not weaker
    /// than the active one ([`crate::promotions`]).
    pub if_not_weaker: bool,
    /// What came of its test, or where the test stands, in words.
    pub note: Option<String>,
    /// When it came.
    pub created_ms: i64,
    /// When its state last changed.
    pub updated_ms: i64,
}

/// An API token, as its owner sees it (never its secret).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Token {
    /// Its number.
    pub id: i64,
    /// The name its owner gave it.
    pub name: String,
    /// When it was made.
    pub created_ms: i64,
    /// When it was last used.
    pub used_ms: Option<i64>,
    /// When it was revoked.
    pub revoked_ms: Option<i64>,
}

/// What an author asked the contest to do beside the ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobKind {
    /// Analyse the author's latest lost games.
    Analysis,
    /// Play unrated games against a chosen entrant.
    Challenge,
    /// Test a version submitted on condition against its author's active version.
    Promotion,
}

/// Where a job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    /// Waiting for its worker.
    Queued,
    /// Being worked on.
    Running,
    /// Done: `outcome` says what came of it.
    Done,
    /// Failed: `error` says why.
    Failed,
}

/// A job of an author's: what was asked, and what came of it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Job {
    /// Its number.
    pub id: i64,
    /// Its author's number.
    pub author: i64,
    /// What kind of job.
    pub kind: JobKind,
    /// Where it stands.
    pub state: JobState,
    /// What was asked (an analysis: nothing; a challenge: `entrant`, `opponent`, `pairs`; a promotion:
    /// `submission`, `candidate`, `opponent`).
    pub asked: serde_json::Value,
    /// What came of it, once done (an analysis: `games`; a challenge: `wins`, `draws`, `losses`; a
    /// promotion: `promoted`, `games`, `llr`).
    pub outcome: Option<serde_json::Value>,
    /// Why it failed.
    pub error: Option<String>,
    /// When it was asked.
    pub created_ms: i64,
    /// When its state last changed.
    pub updated_ms: i64,
}

/// The rules a new job is held to, counted once it is recorded.
#[derive(Debug, Clone, Copy)]
pub struct JobRules {
    /// The author's jobs of this kind queued or running at once, this one included.
    pub at_once: usize,
    /// The author's jobs of this kind per day (UTC), this one included; `None`: no quota.
    pub per_day: Option<u32>,
    /// The jobs of this kind waiting, of all authors together.
    pub queue: usize,
}

/// Why a job was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobRefused {
    /// The author has as many of this kind queued or running as it may.
    Pending(usize),
    /// The author's jobs of this kind of the day are used up.
    Daily(u32),
    /// The queue of this kind is full.
    QueueFull(usize),
}

/// What a submission sends.
#[derive(Debug, Clone, Copy)]
pub struct Upload<'a> {
    /// The SHA-256 of its upload, in hex.
    pub archive: &'a str,
    /// The uploaded file's name, for a single source file.
    pub file_name: Option<&'a str>,
    /// Made on condition: active only if not weaker than its author's active version.
    pub if_not_weaker: bool,
}

/// Why a submission was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The author's submissions of the day are used up.
    Daily(u32),
    /// The build queue is full.
    QueueFull(usize),
}

impl Store {
    /// Opens (creating it if missing) the database at `path`, in WAL mode, migrated to this binary's schema.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let mut connection = Connection::open(path)?;
        connection.pragma_update(None, "journal_mode", "WAL")?;
        connection.pragma_update(None, "synchronous", "FULL")?;
        connection.pragma_update(None, "foreign_keys", true)?;
        connection.busy_timeout(std::time::Duration::from_secs(5))?;
        migrate(&mut connection)?;
        Ok(Store {
            connection: Mutex::new(connection),
        })
    }

    fn connection(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding it leaves SQLite consistent (a transaction not committed is rolled back).
        self.connection.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Copies the whole database, consistent as of one moment, to `out` (which must not exist).
    pub fn backup(&self, out: &Path) -> Result<(), StoreError> {
        let out = out.to_string_lossy().into_owned();
        self.connection().execute("VACUUM INTO ?1", params![out])?;
        Ok(())
    }

    /// Adds an account; its number.
    pub fn add_author(&self, name: &str, role: Role, state: AccountState, now: i64) -> Result<i64, StoreError> {
        let connection = self.connection();
        connection.execute(
            "INSERT INTO authors (name, role, state, created_ms) VALUES (?1, ?2, ?3, ?4)",
            params![name, role_text(role), state_text(state), now],
        )?;
        Ok(connection.last_insert_rowid())
    }

    /// The account named `name`.
    pub fn author_named(&self, name: &str) -> Result<Option<Author>, StoreError> {
        self.author_where("name = ?1", params![name])
    }

    /// The account numbered `id`.
    pub fn author(&self, id: i64) -> Result<Option<Author>, StoreError> {
        self.author_where("id = ?1", params![id])
    }

    fn author_where(&self, condition: &str, values: impl rusqlite::Params) -> Result<Option<Author>, StoreError> {
        let sql = format!("SELECT id, name, role, state FROM authors WHERE {condition}");
        Ok(self.connection().query_row(&sql, values, author_of_row).optional()?)
    }

    /// Every account, by name.
    pub fn authors(&self) -> Result<Vec<Author>, StoreError> {
        let connection = self.connection();
        let mut statement = connection.prepare("SELECT id, name, role, state FROM authors ORDER BY name")?;
        let authors = statement.query_map([], author_of_row)?.collect::<Result<_, _>>()?;
        Ok(authors)
    }

    /// The password hash of the account named `name`, with the account.
    pub fn password_of(&self, name: &str) -> Result<Option<(Author, Option<String>)>, StoreError> {
        let connection = self.connection();
        let found = connection
            .query_row(
                "SELECT id, name, role, state, password FROM authors WHERE name = ?1",
                params![name],
                |row| Ok((author_of_row(row)?, row.get(4)?)),
            )
            .optional()?;
        Ok(found)
    }

    /// Sets the password hash of account `id`, and its state.
    pub fn set_password(&self, id: i64, hash: &str, state: AccountState) -> Result<(), StoreError> {
        self.connection().execute(
            "UPDATE authors SET password = ?2, state = ?3 WHERE id = ?1",
            params![id, hash, state_text(state)],
        )?;
        Ok(())
    }

    /// Sets the state of account `id`, and logs who did it.
    pub fn set_account_state(&self, id: i64, state: AccountState, who: &str, now: i64) -> Result<(), StoreError> {
        let mut connection = self.connection();
        let transaction = connection.transaction()?;
        transaction.execute(
            "UPDATE authors SET state = ?2 WHERE id = ?1",
            params![id, state_text(state)],
        )?;
        transaction.execute(
            "INSERT INTO actions (at_ms, who, what) VALUES (?1, ?2, ?3)",
            params![now, who, format!("account {id} made {}", state_text(state))],
        )?;
        transaction.commit()?;
        Ok(())
    }

    /// Records an invitation for account `author`, known by its secret's `hash`.
    pub fn add_invitation(&self, author: i64, hash: &[u8], expires_ms: i64) -> Result<(), StoreError> {
        self.connection().execute(
            "INSERT INTO invitations (hash, author, expires_ms) VALUES (?1, ?2, ?3)",
            params![hash, author, expires_ms],
        )?;
        Ok(())
    }

    /// The account an unused, unexpired invitation is for, without using it.
    pub fn invitation(&self, hash: &[u8], now: i64) -> Result<Option<Author>, StoreError> {
        self.author_where(
            "id = (SELECT author FROM invitations WHERE hash = ?1 AND used_ms IS NULL AND expires_ms > ?2)",
            params![hash, now],
        )
    }

    /// Uses the invitation: the account it is for, if it was unused and unexpired (once only, however
    /// many ask at once).
    pub fn use_invitation(&self, hash: &[u8], now: i64) -> Result<Option<Author>, StoreError> {
        let author: Option<i64> = self
            .connection()
            .query_row(
                "UPDATE invitations SET used_ms = ?2 WHERE hash = ?1 AND used_ms IS NULL AND expires_ms > ?2 \
                 RETURNING author",
                params![hash, now],
                |row| row.get(0),
            )
            .optional()?;
        match author {
            Some(id) => self.author(id),
            None => Ok(None),
        }
    }

    /// Records a session of account `author`, known by its id's `hash`.
    pub fn add_session(&self, author: i64, hash: &[u8], now: i64) -> Result<(), StoreError> {
        self.connection().execute(
            "INSERT INTO sessions (hash, author, created_ms, seen_ms) VALUES (?1, ?2, ?3, ?3)",
            params![hash, author, now],
        )?;
        Ok(())
    }

    /// The active account of a live session (seen within `idle_ms`, begun within `max_ms`), marked seen now;
    /// an expired session is removed.
    pub fn session(&self, hash: &[u8], now: i64, idle_ms: i64, max_ms: i64) -> Result<Option<Author>, StoreError> {
        let connection = self.connection();
        let live: Option<i64> = connection
            .query_row(
                "UPDATE sessions SET seen_ms = ?2 WHERE hash = ?1 AND seen_ms > ?2 - ?3 AND created_ms > ?2 - ?4 \
                 RETURNING author",
                params![hash, now, idle_ms, max_ms],
                |row| row.get(0),
            )
            .optional()?;
        if live.is_none() {
            connection.execute("DELETE FROM sessions WHERE hash = ?1", params![hash])?;
        }
        drop(connection);
        Ok(match live {
            Some(id) => self.author(id)?.filter(|author| author.state == AccountState::Active),
            None => None,
        })
    }

    /// Ends a session.
    pub fn end_session(&self, hash: &[u8]) -> Result<(), StoreError> {
        self.connection()
            .execute("DELETE FROM sessions WHERE hash = ?1", params![hash])?;
        Ok(())
    }

    /// Records an API token of account `author` named `name`, known by its secret's `hash`; its number.
    pub fn add_token(&self, author: i64, name: &str, hash: &[u8], now: i64) -> Result<i64, StoreError> {
        let connection = self.connection();
        connection.execute(
            "INSERT INTO tokens (author, name, hash, created_ms) VALUES (?1, ?2, ?3, ?4)",
            params![author, name, hash, now],
        )?;
        Ok(connection.last_insert_rowid())
    }

    /// The active account of a token not revoked, its last use set to now.
    pub fn token(&self, hash: &[u8], now: i64) -> Result<Option<Author>, StoreError> {
        let author: Option<i64> = self
            .connection()
            .query_row(
                "UPDATE tokens SET used_ms = ?2 WHERE hash = ?1 AND revoked_ms IS NULL RETURNING author",
                params![hash, now],
                |row| row.get(0),
            )
            .optional()?;
        Ok(match author {
            Some(id) => self.author(id)?.filter(|author| author.state == AccountState::Active),
            None => None,
        })
    }

    /// The tokens of account `author`, newest first.
    pub fn tokens_of(&self, author: i64) -> Result<Vec<Token>, StoreError> {
        let connection = self.connection();
        let mut statement = connection.prepare(
            "SELECT id, name, created_ms, used_ms, revoked_ms FROM tokens WHERE author = ?1 ORDER BY id DESC",
        )?;
        let tokens = statement
            .query_map(params![author], |row| {
                Ok(Token {
                    id: row.get(0)?,
                    name: row.get(1)?,
                    created_ms: row.get(2)?,
                    used_ms: row.get(3)?,
                    revoked_ms: row.get(4)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(tokens)
    }

    /// Revokes token `id` of account `author` (another's token is left alone); whether one was revoked.
    pub fn revoke_token(&self, author: i64, id: i64, now: i64) -> Result<bool, StoreError> {
        let changed = self.connection().execute(
            "UPDATE tokens SET revoked_ms = ?3 WHERE id = ?2 AND author = ?1 AND revoked_ms IS NULL",
            params![author, id, now],
        )?;
        Ok(changed == 1)
    }

    /// Queues a submission of account `author` (its archive's hash, its file name for a single file, and
    /// whether it is made on condition), within its daily quota and the queue's length: recorded first, then
    /// counted in the same transaction, which is undone when over, so that requests at once cannot race past
    /// either.
    pub fn submit(
        &self,
        author: i64,
        upload: Upload<'_>,
        now: i64,
        per_day: u32,
        queue: usize,
    ) -> Result<Result<i64, Refused>, StoreError> {
        let mut connection = self.connection();
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        transaction.execute(
            "INSERT INTO submissions (author, archive, file_name, if_not_weaker, state, created_ms, updated_ms) \
             VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?5)",
            params![author, upload.archive, upload.file_name, upload.if_not_weaker, now],
        )?;
        let id = transaction.last_insert_rowid();
        let day_start = now - now.rem_euclid(DAY_MS);
        let today: u32 = transaction.query_row(
            "SELECT count(*) FROM submissions WHERE author = ?1 AND created_ms >= ?2",
            params![author, day_start],
            |row| row.get(0),
        )?;
        let queued: i64 =
            transaction.query_row("SELECT count(*) FROM submissions WHERE state = 'queued'", [], |row| {
                row.get(0)
            })?;
        let refused = if today > per_day {
            Some(Refused::Daily(per_day))
        } else if usize::try_from(queued).unwrap_or(usize::MAX) > queue {
            Some(Refused::QueueFull(queue))
        } else {
            None
        };
        commit_unless(transaction, id, refused)
    }

    /// Submission `id`.
    pub fn submission(&self, id: i64) -> Result<Option<Submission>, StoreError> {
        let connection = self.connection();
        let sql = format!("{SUBMISSION_COLUMNS} WHERE id = ?1");
        Ok(connection.query_row(&sql, params![id], submission_of_row).optional()?)
    }

    /// The submissions of account `author` (every account's for `None`), newest first.
    pub fn submissions(&self, author: Option<i64>) -> Result<Vec<Submission>, StoreError> {
        let connection = self.connection();
        let sql = format!("{SUBMISSION_COLUMNS} WHERE ?1 IS NULL OR author = ?1 ORDER BY id DESC");
        let mut statement = connection.prepare(&sql)?;
        let submissions = statement
            .query_map(params![author], submission_of_row)?
            .collect::<Result<_, _>>()?;
        Ok(submissions)
    }

    /// The submissions waiting to build.
    pub fn queued(&self) -> Result<usize, StoreError> {
        let count: i64 =
            self.connection()
                .query_row("SELECT count(*) FROM submissions WHERE state = 'queued'", [], |row| {
                    row.get(0)
                })?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    /// The submissions not settled yet: queued, building or checking (a checked one joins at the ladder's
    /// next turn, and is `playing` then).
    pub fn unsettled(&self) -> Result<usize, StoreError> {
        let count: i64 = self.connection().query_row(
            "SELECT count(*) FROM submissions WHERE state IN ('queued', 'building', 'checking')",
            [],
            |row| row.get(0),
        )?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    /// Claims the oldest queued submission of an author with none building or checking, if any: marked
    /// `building` in the same statement, so that builders at once never claim one twice.
    pub fn claim_next(&self, now: i64) -> Result<Option<Submission>, StoreError> {
        let connection = self.connection();
        let sql = format!(
            "UPDATE submissions SET state = 'building', updated_ms = ?1 WHERE id = \
             (SELECT id FROM submissions WHERE state = 'queued' AND author NOT IN \
             (SELECT author FROM submissions WHERE state IN ('building', 'checking')) ORDER BY id LIMIT 1) \
             RETURNING {}",
            SUBMISSION_COLUMNS
                .trim_start_matches("SELECT ")
                .trim_end_matches(" FROM submissions")
        );
        Ok(connection.query_row(&sql, params![now], submission_of_row).optional()?)
    }

    /// Sets the state of submission `id`, with its label and error where given.
    pub fn set_submission(
        &self,
        id: i64,
        state: SubmissionState,
        label: Option<&str>,
        error: Option<&str>,
        now: i64,
    ) -> Result<(), StoreError> {
        self.connection().execute(
            "UPDATE submissions SET state = ?2, label = coalesce(?3, label), error = ?4, updated_ms = ?5 \
             WHERE id = ?1",
            params![id, submission_state_text(state), label, error, now],
        )?;
        Ok(())
    }

    /// The entrants (labels) that play for accounts the organiser disabled: to retire.
    pub fn playing_for_disabled(&self) -> Result<Vec<String>, StoreError> {
        let connection = self.connection();
        let mut statement = connection.prepare(
            "SELECT label FROM submissions WHERE state = 'playing' AND label IS NOT NULL AND author IN \
             (SELECT id FROM authors WHERE state = 'disabled') ORDER BY id",
        )?;
        let labels = statement.query_map([], |row| row.get(0))?.collect::<Result<_, _>>()?;
        Ok(labels)
    }

    /// Sets the note of submission `id`: what came of its test, or where the test stands.
    pub fn set_note(&self, id: i64, note: &str, now: i64) -> Result<(), StoreError> {
        self.connection().execute(
            "UPDATE submissions SET note = ?2, updated_ms = ?3 WHERE id = ?1",
            params![id, note, now],
        )?;
        Ok(())
    }

    /// Marks the submission whose entrant is `label` retired: another version of its bot plays now.
    pub fn retire_label(&self, label: &str, now: i64) -> Result<(), StoreError> {
        self.connection().execute(
            "UPDATE submissions SET state = 'retired', updated_ms = ?2 WHERE label = ?1 AND state = 'playing'",
            params![label, now],
        )?;
        Ok(())
    }

    /// Marks the submission whose entrant is `label` playing again: its author made it the active version.
    pub fn return_label(&self, label: &str, now: i64) -> Result<(), StoreError> {
        self.connection().execute(
            "UPDATE submissions SET state = 'playing', updated_ms = ?2 WHERE label = ?1 AND state = 'retired'",
            params![label, now],
        )?;
        Ok(())
    }

    /// Queues again the submissions whose build or check was cut off (the server stopped): their builds
    /// start over. Their number.
    pub fn requeue_interrupted(&self, now: i64) -> Result<usize, StoreError> {
        Ok(self.connection().execute(
            "UPDATE submissions SET state = 'queued', updated_ms = ?1 WHERE state IN ('building', 'checking')",
            params![now],
        )?)
    }

    /// Records an action of the organiser's.
    pub fn log_action(&self, who: &str, what: &str, now: i64) -> Result<(), StoreError> {
        Ok(record_action(&self.connection(), who, what, now)?)
    }
}

impl Store {
    /// The organiser's moves of the season's phases, the first first.
    pub fn phase_moves(&self) -> Result<Vec<PhaseMove>, StoreError> {
        Ok(phase_moves_in(&self.connection())?)
    }

    /// Moves phase `key` to `to`, as `who` at `now`, if `allowed` (given every move so far, read in the same
    /// transaction as this one is recorded, so that moves at once cannot race past it) answers `Ok`; the move
    /// is logged as an action of `who`'s. What `allowed` answered.
    pub fn move_phase<T, R>(
        &self,
        key: PhaseKey,
        to: jiff::Timestamp,
        who: &str,
        now: i64,
        allowed: impl FnOnce(&[PhaseMove]) -> Result<T, R>,
    ) -> Result<Result<T, R>, StoreError> {
        let mut connection = self.connection();
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let answer = allowed(&phase_moves_in(&transaction)?);
        if answer.is_ok() {
            transaction.execute(
                "INSERT INTO phase_moves (phase, instant_ms, who, moved_ms) VALUES (?1, ?2, ?3, ?4)",
                params![key.name(), to.as_millisecond(), who, now],
            )?;
            record_action(&transaction, who, &format!("moved {} to {to}", key.name()), now)?;
            transaction.commit()?;
        }
        Ok(answer)
    }
}

fn record_action(connection: &Connection, who: &str, what: &str, now: i64) -> rusqlite::Result<()> {
    connection.execute(
        "INSERT INTO actions (at_ms, who, what) VALUES (?1, ?2, ?3)",
        params![now, who, what],
    )?;
    Ok(())
}

fn phase_moves_in(connection: &Connection) -> rusqlite::Result<Vec<PhaseMove>> {
    let mut statement = connection.prepare("SELECT phase, instant_ms, who, moved_ms FROM phase_moves ORDER BY id")?;
    let moves = statement.query_map([], |row| {
        let unreadable = |column, kind, error: Box<dyn std::error::Error + Send + Sync>| {
            rusqlite::Error::FromSqlConversionFailure(column, kind, error)
        };
        let phase: String = row.get(0)?;
        let phase = PhaseKey::named(&phase)
            .ok_or_else(|| unreadable(0, Type::Text, format!("no phase is named {phase:?}").into()))?;
        let at = jiff::Timestamp::from_millisecond(row.get(1)?)
            .map_err(|error| unreadable(1, Type::Integer, Box::new(error)))?;
        Ok(PhaseMove {
            phase,
            at,
            who: row.get(2)?,
            moved_ms: row.get(3)?,
        })
    })?;
    moves.collect()
}

impl Store {
    /// Queues a job of account `author` of `kind`, asking `asked`, within `rules`: recorded first, then
    /// counted in the same transaction (undone when over a rule), so that requests at once cannot race
    /// past a rule.
    pub fn request_job(
        &self,
        author: i64,
        kind: JobKind,
        asked: &serde_json::Value,
        rules: JobRules,
        now: i64,
    ) -> Result<Result<i64, JobRefused>, StoreError> {
        let kind = job_kind_text(kind);
        let mut connection = self.connection();
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        transaction.execute(
            "INSERT INTO jobs (author, kind, state, asked, created_ms, updated_ms) \
             VALUES (?1, ?2, 'queued', ?3, ?4, ?4)",
            params![author, kind, asked.to_string(), now],
        )?;
        let id = transaction.last_insert_rowid();
        let count = |sql: &str, values: &[&dyn rusqlite::ToSql]| -> rusqlite::Result<usize> {
            let count: i64 = transaction.query_row(sql, values, |row| row.get(0))?;
            Ok(usize::try_from(count).unwrap_or(usize::MAX))
        };
        let own = count(
            "SELECT count(*) FROM jobs WHERE author = ?1 AND kind = ?2 AND state IN ('queued', 'running')",
            &[&author, &kind],
        )?;
        let day_start = now - now.rem_euclid(DAY_MS);
        let today = count(
            "SELECT count(*) FROM jobs WHERE author = ?1 AND kind = ?2 AND created_ms >= ?3",
            &[&author, &kind, &day_start],
        )?;
        let queued = count(
            "SELECT count(*) FROM jobs WHERE kind = ?1 AND state = 'queued'",
            &[&kind],
        )?;
        let refused = if own > rules.at_once {
            Some(JobRefused::Pending(rules.at_once))
        } else if let Some(per_day) = rules.per_day.filter(|&per_day| today > per_day as usize) {
            Some(JobRefused::Daily(per_day))
        } else if queued > rules.queue {
            Some(JobRefused::QueueFull(rules.queue))
        } else {
            None
        };
        commit_unless(transaction, id, refused)
    }

    /// Claims the oldest queued job of `kind`, marked `running` in the same statement.
    pub fn claim_job(&self, kind: JobKind, now: i64) -> Result<Option<Job>, StoreError> {
        let sql = format!(
            "UPDATE jobs SET state = 'running', updated_ms = ?1 WHERE id = \
             (SELECT id FROM jobs WHERE kind = ?2 AND state = 'queued' ORDER BY id LIMIT 1) RETURNING {JOB_FIELDS}"
        );
        let kind = job_kind_text(kind);
        Ok(self
            .connection()
            .query_row(&sql, params![now, kind], job_of_row)
            .optional()?)
    }

    /// Ends job `id`: done with its `outcome`, or failed with its error.
    pub fn finish_job(&self, id: i64, outcome: Result<&serde_json::Value, &str>, now: i64) -> Result<(), StoreError> {
        let (state, outcome, error) = match outcome {
            Ok(outcome) => ("done", Some(outcome.to_string()), None),
            Err(error) => ("failed", None, Some(error)),
        };
        self.connection().execute(
            "UPDATE jobs SET state = ?2, outcome = ?3, error = ?4, updated_ms = ?5 WHERE id = ?1",
            params![id, state, outcome, error, now],
        )?;
        Ok(())
    }

    /// Job `id`.
    pub fn job(&self, id: i64) -> Result<Option<Job>, StoreError> {
        let sql = format!("SELECT {JOB_FIELDS} FROM jobs WHERE id = ?1");
        Ok(self.connection().query_row(&sql, params![id], job_of_row).optional()?)
    }

    /// The last `most` jobs of account `author` (every account's for `None`) of `kind` (every kind's for
    /// `None`), newest first.
    pub fn jobs(&self, author: Option<i64>, kind: Option<JobKind>, most: usize) -> Result<Vec<Job>, StoreError> {
        let connection = self.connection();
        let sql = format!(
            "SELECT {JOB_FIELDS} FROM jobs WHERE (?1 IS NULL OR author = ?1) AND (?2 IS NULL OR kind = ?2) \
             ORDER BY id DESC LIMIT ?3"
        );
        let mut statement = connection.prepare(&sql)?;
        let most = i64::try_from(most).unwrap_or(i64::MAX);
        let jobs = statement
            .query_map(params![author, kind.map(job_kind_text), most], job_of_row)?
            .collect::<Result<_, _>>()?;
        Ok(jobs)
    }

    /// The latest promotion of submission `id`: the test of a version made on condition.
    pub fn promotion_of(&self, id: i64) -> Result<Option<Job>, StoreError> {
        let sql = format!(
            "SELECT {JOB_FIELDS} FROM jobs WHERE kind = 'promotion' AND json_extract(asked, '$.submission') = ?1 \
             ORDER BY id DESC LIMIT 1"
        );
        Ok(self.connection().query_row(&sql, params![id], job_of_row).optional()?)
    }

    /// Queues again the jobs that a stop cut off. Their number.
    pub fn requeue_jobs(&self, now: i64) -> Result<usize, StoreError> {
        Ok(self.connection().execute(
            "UPDATE jobs SET state = 'queued', updated_ms = ?1 WHERE state = 'running'",
            params![now],
        )?)
    }
}

const JOB_FIELDS: &str = "id, author, kind, state, asked, outcome, error, created_ms, updated_ms";

fn job_kind_text(kind: JobKind) -> &'static str {
    match kind {
        JobKind::Analysis => "analysis",
        JobKind::Challenge => "challenge",
        JobKind::Promotion => "promotion",
    }
}

fn job_of_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Job> {
    let text = |index: usize| -> rusqlite::Result<String> { row.get(index) };
    let kind = match text(2)?.as_str() {
        "analysis" => JobKind::Analysis,
        "challenge" => JobKind::Challenge,
        _ => JobKind::Promotion,
    };
    let state = match text(3)?.as_str() {
        "queued" => JobState::Queued,
        "running" => JobState::Running,
        "done" => JobState::Done,
        _ => JobState::Failed,
    };
    let json = |text: &str| serde_json::from_str(text).unwrap_or(serde_json::Value::Null);
    Ok(Job {
        id: row.get(0)?,
        author: row.get(1)?,
        kind,
        state,
        asked: json(&text(4)?),
        outcome: row.get::<_, Option<String>>(5)?.map(|outcome| json(&outcome)),
        error: row.get(6)?,
        created_ms: row.get(7)?,
        updated_ms: row.get(8)?,
    })
}

/// Commits `transaction` and answers `id`, or, when a rule `refused` the row it added, undoes it and
/// answers why.
fn commit_unless<R>(
    transaction: rusqlite::Transaction<'_>,
    id: i64,
    refused: Option<R>,
) -> Result<Result<i64, R>, StoreError> {
    if let Some(refused) = refused {
        transaction.rollback()?;
        return Ok(Err(refused));
    }
    transaction.commit()?;
    Ok(Ok(id))
}

const SUBMISSION_COLUMNS: &str = "SELECT id, author, archive, file_name, state, label, error, created_ms, \
                                  updated_ms, if_not_weaker, note FROM submissions";

/// Applies the migrations the database has not had, each in a transaction with its new version.
fn migrate(connection: &mut Connection) -> Result<(), StoreError> {
    let applied: i64 = connection.pragma_query_value(None, "user_version", |row| row.get(0))?;
    let applied = usize::try_from(applied).unwrap_or(usize::MAX);
    if applied > MIGRATIONS.len() {
        return Err(StoreError::Newer {
            found: applied,
            known: MIGRATIONS.len(),
        });
    }
    for (step, sql) in MIGRATIONS.iter().enumerate().skip(applied) {
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Exclusive)?;
        transaction.execute_batch(sql)?;
        transaction.pragma_update(None, "user_version", i64::try_from(step + 1).expect("few migrations"))?;
        transaction.commit()?;
    }
    Ok(())
}

fn author_of_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Author> {
    let role: String = row.get(2)?;
    let state: String = row.get(3)?;
    Ok(Author {
        id: row.get(0)?,
        name: row.get(1)?,
        role: if role == "organiser" {
            Role::Organiser
        } else {
            Role::Author
        },
        state: match state.as_str() {
            "invited" => AccountState::Invited,
            "pending" => AccountState::Pending,
            "active" => AccountState::Active,
            _ => AccountState::Disabled,
        },
    })
}

fn submission_of_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Submission> {
    let state: String = row.get(4)?;
    Ok(Submission {
        id: row.get(0)?,
        author: row.get(1)?,
        archive: row.get(2)?,
        file_name: row.get(3)?,
        state: match state.as_str() {
            "queued" => SubmissionState::Queued,
            "building" => SubmissionState::Building,
            "checking" => SubmissionState::Checking,
            "playing" => SubmissionState::Playing,
            "retired" => SubmissionState::Retired,
            _ => SubmissionState::Failed,
        },
        label: row.get(5)?,
        error: row.get(6)?,
        if_not_weaker: row.get(9)?,
        note: row.get(10)?,
        created_ms: row.get(7)?,
        updated_ms: row.get(8)?,
    })
}

fn role_text(role: Role) -> &'static str {
    match role {
        Role::Organiser => "organiser",
        Role::Author => "author",
    }
}

fn state_text(state: AccountState) -> &'static str {
    match state {
        AccountState::Invited => "invited",
        AccountState::Pending => "pending",
        AccountState::Active => "active",
        AccountState::Disabled => "disabled",
    }
}

/// The name a submission's state has in the database and the API.
pub fn submission_state_text(state: SubmissionState) -> &'static str {
    match state {
        SubmissionState::Queued => "queued",
        SubmissionState::Building => "building",
        SubmissionState::Checking => "checking",
        SubmissionState::Playing => "playing",
        SubmissionState::Failed => "failed",
        SubmissionState::Retired => "retired",
    }
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
