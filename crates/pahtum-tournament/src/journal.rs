//! The journal: the one source of truth of a tournament.
//!
//! A JSON Lines file, append-only. The first line is a [`Header`]: the format,
//! the resolved tournament (every default filled in) and its hash. Every other
//! line is one [`GameRecord`], written whole with its newline in one `write`
//! as its game ends, so that a killed referee loses nothing; it reaches the
//! disk as the journal's [`Durability`] says (group commit: one sync for the
//! games of up to 200 ms by default), which bounds what a power cut loses. Standings, tables and resume are all derived
//! from the journal, never from state kept elsewhere.
//!
//! A crash in the middle of a write leaves a *torn* last line: no newline at
//! its end, and not a valid record. Reading drops exactly that line (and
//! [`Journal::open`] truncates it away before appending); anything else that
//! does not parse is damage and an error.
//!
//! A [`Journal`] holds an exclusive lock (`flock`) on its file for as long as
//! it lives, so that two arenas never append to the same journal: the second
//! one fails with [`JournalError::Locked`] instead of interleaving its records
//! with the first one's.
//!
//! The hash is `"sha256:"` and the lowercase hex SHA-256 of the compact JSON of
//! the tournament (`serde_json`, keys in the order of the Rust structs, bot
//! environments sorted by key), as written in the header. Fair mode and a
//! bot's own time control are left out when unused, so a tournament without
//! them keeps the hash it had before they existed.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use pahtum_record::GameRecord;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::Tournament;
use crate::durability::{BATCH_INTERVAL, Durability};

/// The value of the header's `journal` key for this format.
pub const FORMAT: &str = "pahtum-arena/journal/1";

/// The journal's first line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The journal format, [`FORMAT`].
    pub journal: String,
    /// [`tournament_hash`] of `tournament`.
    pub hash: String,
    pub tournament: Tournament,
}

impl Header {
    pub fn new(tournament: &Tournament) -> Header {
        Header {
            journal: FORMAT.to_owned(),
            hash: tournament_hash(tournament),
            tournament: tournament.clone(),
        }
    }
}

/// The hash of a resolved tournament, as the module documentation defines it.
pub fn tournament_hash(tournament: &Tournament) -> String {
    let json = serde_json::to_vec(tournament).expect("a tournament serializes to JSON");
    let digest = Sha256::digest(&json);
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

/// What a journal holds.
#[derive(Debug, Clone)]
pub struct Contents {
    pub header: Header,
    /// The complete records, in the order they were written.
    pub records: Vec<GameRecord>,
    /// The length of the valid part of the file, in bytes (without a torn last line).
    pub valid_len: u64,
    /// Whether a torn last line was dropped.
    pub torn: bool,
    /// Whether the last record lacks its newline (complete, but its newline was not written).
    pub unterminated: bool,
}

/// A journal that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("cannot {action} the journal {}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "another arena is running this tournament: its journal {} is locked; \
         wait for that run to end (or stop it) before running this one",
        path.display()
    )]
    Locked { path: PathBuf },
    #[error("the journal {} is empty or its first line was torn; start afresh", path.display())]
    NoHeader { path: PathBuf },
    #[error("{} is not a pahtum-arena journal: its first line is not a journal header", path.display())]
    BadHeader {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("the journal {} has format {found:?}; this arena reads {FORMAT:?}", path.display())]
    Format { path: PathBuf, found: String },
    #[error(
        "line {line} of the journal {} is damaged (only a torn last line is dropped; repair or remove that \
         line): it is not a game record",
        path.display()
    )]
    BadRecord {
        path: PathBuf,
        line: usize,
        #[source]
        source: serde_json::Error,
    },
}

/// Reads a journal without changing it.
pub fn read(path: &Path) -> Result<Contents, JournalError> {
    parse::<GameRecord>(path, &read_bytes(path)?)
}

/// Reads a journal's records without their moves (`moves` empty, `swap_move`
/// `None`): all that standings need, several times faster than [`read`] on a
/// long journal, since the moves are most of a record's bytes.
pub fn read_results(path: &Path) -> Result<Contents, JournalError> {
    parse::<WithoutMoves>(path, &read_bytes(path)?)
}

fn read_bytes(path: &Path) -> Result<Vec<u8>, JournalError> {
    std::fs::read(path).map_err(|source| JournalError::Io {
        action: "read",
        path: path.to_owned(),
        source,
    })
}

/// A [`GameRecord`] as read without its moves; unknown keys, `moves` among them, are skipped.
#[derive(Deserialize)]
struct WithoutMoves {
    id: String,
    #[serde(default)]
    layout: Option<String>,
    #[serde(default)]
    seed: Option<u64>,
    rules: pahtum_protocol::Rules,
    time: pahtum_protocol::TimeControl,
    #[serde(default)]
    time_by_seat: Option<pahtum_record::SeatTimes>,
    #[serde(default)]
    pause_idle: bool,
    players: pahtum_record::Players,
    white: String,
    black: String,
    blocks: Vec<pahtum::Cell>,
    swap: Option<bool>,
    score: pahtum::Score,
    result: pahtum::Outcome,
    termination: pahtum_record::Termination,
    started_unix_ms: u64,
    ended_unix_ms: u64,
}

impl From<WithoutMoves> for GameRecord {
    fn from(r: WithoutMoves) -> GameRecord {
        GameRecord {
            id: r.id,
            layout: r.layout,
            seed: r.seed,
            rules: r.rules,
            time: r.time,
            time_by_seat: r.time_by_seat,
            pause_idle: r.pause_idle,
            players: r.players,
            white: r.white,
            black: r.black,
            blocks: r.blocks,
            moves: Vec::new(),
            swap: r.swap,
            swap_move: None,
            score: r.score,
            result: r.result,
            termination: r.termination,
            started_unix_ms: r.started_unix_ms,
            ended_unix_ms: r.ended_unix_ms,
        }
    }
}

/// Parses the bytes of the journal at `path` (named in errors), each record as an `R`.
fn parse<R>(path: &Path, bytes: &[u8]) -> Result<Contents, JournalError>
where
    R: DeserializeOwned + Into<GameRecord>,
{
    let mut lines = Lines { bytes, offset: 0 };
    let header_line = lines
        .next()
        .filter(|line| line.terminated)
        .ok_or_else(|| JournalError::NoHeader { path: path.to_owned() })?;
    let header: Header = serde_json::from_slice(header_line.text).map_err(|source| JournalError::BadHeader {
        path: path.to_owned(),
        source,
    })?;
    if header.journal != FORMAT {
        return Err(JournalError::Format {
            path: path.to_owned(),
            found: header.journal,
        });
    }
    let mut contents = Contents {
        header,
        records: Vec::new(),
        valid_len: lines.offset as u64,
        torn: false,
        unterminated: false,
    };
    let mut number = 1;
    while let Some(line) = lines.next() {
        number += 1;
        match serde_json::from_slice::<R>(line.text) {
            Ok(record) => {
                contents.records.push(record.into());
                contents.valid_len = lines.offset as u64;
                contents.unterminated = !line.terminated;
            }
            Err(_) if !line.terminated => contents.torn = true,
            Err(source) => {
                return Err(JournalError::BadRecord {
                    path: path.to_owned(),
                    line: number,
                    source,
                });
            }
        }
    }
    Ok(contents)
}

/// Lines of a byte buffer, each with whether it ended with a newline.
struct Lines<'a> {
    bytes: &'a [u8],
    offset: usize,
}

struct Line<'a> {
    text: &'a [u8],
    terminated: bool,
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        let rest = &self.bytes[self.offset..];
        if rest.is_empty() {
            return None;
        }
        let (text, terminated) = match rest.iter().position(|&b| b == b'\n') {
            Some(end) => (&rest[..end], true),
            None => (rest, false),
        };
        self.offset += text.len() + usize::from(terminated);
        Some(Line { text, terminated })
    }
}

/// A journal open for appending.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
    durability: Durability,
    /// When the oldest write not yet synced was made; `None` when everything written is synced.
    unsynced_since: Option<Instant>,
    /// The line being written, kept between appends so that an append does not allocate.
    line: Vec<u8>,
}

impl Journal {
    /// Creates a new journal at `path` with the header of `tournament`; fails if the file exists.
    pub fn create(path: &Path, tournament: &Tournament) -> Result<Journal, JournalError> {
        let io_error = |action| {
            move |source| JournalError::Io {
                action,
                path: path.to_owned(),
                source,
            }
        };
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(path)
            .map_err(io_error("create"))?;
        lock(&file, path)?;
        let mut journal = Journal::new(path, file);
        journal.write_line(&Header::new(tournament))?;
        journal.sync()?;
        // Make the new file's name durable too.
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            File::open(dir)
                .and_then(|dir| dir.sync_all())
                .map_err(io_error("sync the folder of"))?;
        }
        Ok(journal)
    }

    /// Opens an existing journal for appending: reads it, truncates a torn last
    /// line, and ends an unterminated last record with its newline.
    pub fn open(path: &Path) -> Result<(Journal, Contents), JournalError> {
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|source| JournalError::Io {
                action: "open",
                path: path.to_owned(),
                source,
            })?;
        lock(&file, path)?;
        let contents = read(path)?;
        let io_error = |source| JournalError::Io {
            action: "repair",
            path: path.to_owned(),
            source,
        };
        let mut journal = Journal::new(path, file);
        if contents.torn {
            journal.file.set_len(contents.valid_len).map_err(io_error)?;
            journal.file.sync_data().map_err(io_error)?;
        }
        if contents.unterminated {
            journal.write_bytes(b"\n")?;
            journal.sync()?;
        }
        Ok((journal, contents))
    }

    fn new(path: &Path, file: File) -> Journal {
        Journal {
            path: path.to_owned(),
            file,
            durability: Durability::default(),
            unsynced_since: None,
            line: Vec::new(),
        }
    }

    /// Sets when appends are synced to the disk (the default is [`Durability::Batch`]).
    pub fn set_durability(&mut self, durability: Durability) {
        self.durability = durability;
    }

    /// Appends one record: the whole line in one write, then synced as the durability says: at once
    /// (`game`), once [`BATCH_INTERVAL`] has passed since the oldest unsynced write (`batch`), or not
    /// (`none`). The caller syncs the rest: at [`Journal::sync_due`] and with [`Journal::sync`] at the end.
    pub fn append(&mut self, record: &GameRecord) -> Result<(), JournalError> {
        self.write_line(record)?;
        match self.durability {
            Durability::Game => self.sync(),
            Durability::Batch if self.sync_due().is_some_and(|due| Instant::now() >= due) => self.sync(),
            Durability::Batch | Durability::None => Ok(()),
        }
    }

    /// When the writes not yet synced are due to be: `None` when there are none, or when only the end of
    /// the run syncs them (`none`).
    pub fn sync_due(&self) -> Option<Instant> {
        match self.durability {
            Durability::None => None,
            Durability::Game | Durability::Batch => self.unsynced_since.map(|since| since + BATCH_INTERVAL),
        }
    }

    /// Syncs every write not yet synced to the disk (`fdatasync`); nothing to do when there is none.
    pub fn sync(&mut self) -> Result<(), JournalError> {
        if self.unsynced_since.is_some() {
            self.file.sync_data().map_err(|source| self.io_error("sync", source))?;
            self.unsynced_since = None;
        }
        Ok(())
    }

    /// Writes `value` as one JSON line, in one write, not synced.
    fn write_line(&mut self, value: &impl Serialize) -> Result<(), JournalError> {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        serde_json::to_writer(&mut line, value).expect("a journal line serializes");
        line.push(b'\n');
        let written = self.write_bytes(&line);
        self.line = line;
        written
    }

    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), JournalError> {
        self.file
            .write_all(bytes)
            .map_err(|source| self.io_error("append to", source))?;
        self.unsynced_since.get_or_insert_with(Instant::now);
        Ok(())
    }

    fn io_error(&self, action: &'static str, source: io::Error) -> JournalError {
        JournalError::Io {
            action,
            path: self.path.clone(),
            source,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
impl Journal {
    /// A journal on Linux's `/dev/full`: every append fails as on a full disk (for the runner's tests).
    pub(crate) fn on_a_full_disk() -> Journal {
        let path = PathBuf::from("/dev/full");
        let file = OpenOptions::new().append(true).open(&path).expect("/dev/full opens");
        Journal::new(&path, file)
    }
}

/// Takes the exclusive lock of the journal at `path`, open as `file`, without
/// waiting: the lock lasts as long as `file` is open.
pub fn lock(file: &File, path: &Path) -> Result<(), JournalError> {
    use rustix::fs::{FlockOperation, flock};
    flock(file, FlockOperation::NonBlockingLockExclusive).map_err(|errno| {
        if errno == rustix::io::Errno::WOULDBLOCK {
            JournalError::Locked { path: path.to_owned() }
        } else {
            JournalError::Io {
                action: "lock",
                path: path.to_owned(),
                source: errno.into(),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{record, tournament};

    fn journal_with(records: usize) -> (tempfile::TempDir, PathBuf, Vec<GameRecord>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut journal = Journal::create(&path, &tournament()).unwrap();
        let records: Vec<GameRecord> = (0..records)
            .map(|i| record(&format!("000-{i:02}-a"), "a", "b"))
            .collect();
        for r in &records {
            journal.append(r).unwrap();
        }
        (dir, path, records)
    }

    #[test]
    fn records_round_trip_after_the_header() {
        let (_dir, path, records) = journal_with(3);
        let contents = read(&path).unwrap();
        assert_eq!(contents.header, Header::new(&tournament()));
        assert_eq!(contents.records, records);
        assert!(!contents.torn && !contents.unterminated);
        assert!(
            Journal::create(&path, &tournament()).is_err(),
            "create must not overwrite"
        );
    }

    #[test]
    fn results_are_the_records_without_their_moves() {
        let (_dir, path, records) = journal_with(2);
        let mut with_moves = records.clone();
        with_moves[0].moves.push(pahtum_record::MoveRecord {
            kind: pahtum_record::MoveKind::Stone,
            seat: None,
            color: pahtum::Color::White,
            cell: "d4".parse().unwrap(),
            timing: Default::default(),
        });
        std::fs::remove_file(&path).unwrap();
        let mut journal = Journal::create(&path, &tournament()).unwrap();
        for r in &with_moves {
            journal.append(r).unwrap();
        }
        assert_eq!(read(&path).unwrap().records, with_moves);
        assert_eq!(read_results(&path).unwrap().records, records);
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_truncated_before_appending() {
        let (_dir, path, records) = journal_with(2);
        let full_len = std::fs::metadata(&path).unwrap().len();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend_from_slice(br#"{"id":"000-05-a","lay"#);
        std::fs::write(&path, &bytes).unwrap();

        let contents = read(&path).unwrap();
        assert!(contents.torn);
        assert_eq!(contents.records, records);
        assert_eq!(contents.valid_len, full_len);

        let (mut journal, _) = Journal::open(&path).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), full_len);
        let extra = record("000-09-a", "a", "b");
        journal.append(&extra).unwrap();
        let contents = read(&path).unwrap();
        assert_eq!(contents.records.len(), 3);
        assert_eq!(contents.records[2], extra);
        assert!(!contents.torn);
    }

    #[test]
    fn a_complete_record_without_its_newline_is_kept() {
        let (_dir, path, records) = journal_with(2);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        let (mut journal, contents) = Journal::open(&path).unwrap();
        assert_eq!(contents.records, records);
        journal.append(&record("000-09-a", "a", "b")).unwrap();
        assert_eq!(read(&path).unwrap().records.len(), 3);
    }

    /// `game` syncs at once; `batch` leaves the write due within the batch interval; `none` never asks.
    #[test]
    fn each_durability_syncs_when_it_says() {
        let (_dir, path, _) = journal_with(0);
        let (mut journal, _) = Journal::open(&path).unwrap();
        let game = record("000-01-a", "a", "b");
        let expected = [
            (Durability::Game, false),
            (Durability::Batch, true),
            (Durability::None, false),
        ];
        for (durability, due) in expected {
            journal.set_durability(durability);
            let before = Instant::now();
            journal.append(&game).unwrap();
            let sync_due = journal.sync_due();
            assert_eq!(sync_due.is_some(), due, "{durability}");
            assert!(sync_due.is_none_or(|at| at >= before + BATCH_INTERVAL), "{durability}");
            journal.sync().unwrap();
            assert_eq!(journal.sync_due(), None, "{durability}: synced");
        }
        assert_eq!(read(&path).unwrap().records.len(), 3, "every mode writes at once");
    }

    #[test]
    fn a_journal_in_use_cannot_be_opened_again() {
        let (_dir, path, _) = journal_with(1);
        let (first, _) = Journal::open(&path).unwrap();
        let error = Journal::open(&path).unwrap_err();
        assert!(matches!(error, JournalError::Locked { .. }), "{error}");
        assert!(
            error
                .to_string()
                .starts_with("another arena is running this tournament: "),
            "{error}"
        );
        drop(first);
        assert!(Journal::open(&path).is_ok(), "the lock ends with the journal");
    }

    #[test]
    fn damage_before_the_last_line_is_an_error_naming_the_line() {
        let (_dir, path, _) = journal_with(2);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.insert_str(text.find("\n{").unwrap() + 1, "garbage\n");
        std::fs::write(&path, text).unwrap();
        let error = read(&path).unwrap_err().to_string();
        assert!(error.contains("line 2 of the journal"), "{error}");
    }

    #[test]
    fn a_missing_or_foreign_header_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        std::fs::write(&path, "").unwrap();
        assert!(matches!(read(&path), Err(JournalError::NoHeader { .. })));
        std::fs::write(&path, "{\"hello\":1}\n").unwrap();
        assert!(matches!(read(&path), Err(JournalError::BadHeader { .. })));
    }

    #[test]
    fn the_hash_follows_the_tournament() {
        let t = tournament();
        assert_eq!(tournament_hash(&t), tournament_hash(&t.clone()));
        assert!(tournament_hash(&t).starts_with("sha256:"));
        assert_eq!(tournament_hash(&t).len(), "sha256:".len() + 64);
        let other = Tournament {
            seed: t.seed + 1,
            ..t.clone()
        };
        assert_ne!(tournament_hash(&other), tournament_hash(&t));
    }

    /// Journals written before fair mode and per-bot time existed must resume:
    /// a tournament that uses neither serializes (and hashes) as it did then.
    #[test]
    fn unused_fair_mode_and_bot_time_stay_out_of_the_hash() {
        let t = tournament();
        let json = serde_json::to_string(&t).unwrap();
        assert!(!json.contains("pause_idle"), "{json}");
        assert_eq!(json.matches("\"time\"").count(), 1, "only the tournament's: {json}");
        let fair = Tournament {
            pause_idle: true,
            ..t.clone()
        };
        assert_ne!(tournament_hash(&fair), tournament_hash(&t));
        let mut own_time = t.clone();
        own_time.bots[0].time = Some(pahtum_referee::move_time(std::time::Duration::from_millis(250)));
        assert_ne!(tournament_hash(&own_time), tournament_hash(&t));
    }
}
