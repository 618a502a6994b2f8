//! The format of a bot's stderr log, in one place: the drain writes it
//! ([`crate::stderr`]) and [`game_lines`] reads one game back, so that an
//! author sees their bot's stderr beside the plies that produced it.
//!
//! A log holds what the bot wrote, as it wrote it, between lines of the
//! referee's own, each beginning with [`MARK`]: `[arena] game ID` when a game
//! begins, `[arena] ply N` before the first line read while the bot was asked
//! for the game's ply N (numbered from 1 as everything the arena shows:
//! RECORD.md's "Move numbers", the request's `moves` and one), `[arena] game over` once the game has ended, and the
//! notes of a cut. A ply's marker is written only when the bot writes
//! something, so a quiet bot costs the log nothing. A line of the bot's that
//! begins with the mark (or with the start of it, at the end of a read) is
//! written with a space before it: no bot can forge a line of the referee's.
//!
//! Beside each log lies its index (`NAME-N.idx` for `NAME-N.log`): a line
//! `OFFSET GAME` where each game's part begins, so that one game is read
//! back without reading the whole log, which grows with every game the
//! process plays ([`game_lines_in`] reads at most [`MAX_PART`] bytes).
//!
//! A line belongs to the ply during which the referee read it. Stderr and
//! stdout are two pipes, so a line written just before an answer may be read
//! just after it and count for the next ply: the attribution is as close as
//! the two streams allow, and the log says nothing it did not see.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How every line of the referee's own begins.
pub const MARK: &[u8] = b"[arena] ";

/// When in a game a line was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum When {
    /// After the game began, before the bot was asked for its first ply.
    Start,
    /// While the bot was asked for this ply of the game (numbered from 1).
    Ply(u32),
    /// After the game ended.
    End,
}

impl When {
    /// The code that the drain shares with the referee: one atomic integer.
    pub(crate) fn code(self) -> u32 {
        match self {
            When::Start => 0,
            When::Ply(ply) => ply.saturating_add(1).min(u32::MAX - 1),
            When::End => u32::MAX,
        }
    }

    pub(crate) fn of_code(code: u32) -> When {
        match code {
            0 => When::Start,
            u32::MAX => When::End,
            ply => When::Ply(ply - 1),
        }
    }

    /// The referee's line that marks the start of this stretch.
    pub(crate) fn marker(self) -> String {
        match self {
            When::Start => "[arena] game start\n".to_owned(),
            When::Ply(ply) => format!("[arena] ply {ply}\n"),
            When::End => "[arena] game over\n".to_owned(),
        }
    }
}

/// The referee's line that begins game `game`'s part of a log.
pub(crate) fn game_header(game: &str) -> String {
    format!("[arena] game {game}\n")
}

/// The most bytes of one game's part read back: a part is at most the log's cap per game (1 MiB by
/// default) and the referee's lines; a longer one is read to this length.
pub const MAX_PART: u64 = 8 << 20;

/// A bot's stderr log and the index of its games, both appended to.
#[derive(Debug)]
pub struct LogFiles {
    pub(crate) log: File,
    index: File,
}

impl LogFiles {
    /// Opens the log at `path` and its index ([`index_of`]) for appending, creating them if missing.
    pub fn open(path: &Path) -> io::Result<LogFiles> {
        let append = |path: &Path| OpenOptions::new().create(true).append(true).open(path);
        Ok(LogFiles {
            log: append(path)?,
            index: append(&index_of(path))?,
        })
    }

    /// Notes that game `game`'s part begins where the log ends now.
    pub(crate) fn index_game(&mut self, game: &str) -> io::Result<()> {
        let offset = self.log.metadata()?.len();
        self.index.write_all(format!("{offset} {game}\n").as_bytes())
    }
}

/// The index of the log at `log`: the same name with `.idx` for its extension.
pub fn index_of(log: &Path) -> PathBuf {
    log.with_extension("idx")
}

/// Where game `game`'s last part begins, as the index `index` (its text) says.
pub fn offset_in(index: &[u8], game: &str) -> Option<u64> {
    index.split(|&byte| byte == b'\n').rev().find_map(|line| {
        let (offset, named) = std::str::from_utf8(line).ok()?.split_once(' ')?;
        (named == game).then(|| offset.parse().ok()).flatten()
    })
}

/// The lines of game `game` in the log at `log`, found through its index and read from where its last part
/// begins (at most [`MAX_PART`] bytes); `None` where the index names no such game.
pub fn game_lines_in(log: &Path, game: &str) -> io::Result<Option<Vec<StderrLine>>> {
    let index = match std::fs::read(index_of(log)) {
        Ok(index) => index,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error),
    };
    let Some(offset) = offset_in(&index, game) else {
        return Ok(None);
    };
    let mut file = File::open(log)?;
    file.seek(SeekFrom::Start(offset))?;
    let mut part = Vec::new();
    file.take(MAX_PART).read_to_end(&mut part)?;
    Ok(game_lines(&part, game))
}

/// One line of a game's part of a log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StderrLine {
    /// When it was read.
    pub when: When,
    /// Whether the referee wrote it (a note that the log was cut), not the bot.
    pub arena: bool,
    /// The line as the bot wrote it (not valid UTF-8 replaced), without its newline.
    pub text: String,
}

/// The lines of game `game` in the log `log`: its last part (a game played
/// again after an interruption has its last attempt shown), or `None` if the
/// log holds no part of that game.
pub fn game_lines(log: &[u8], game: &str) -> Option<Vec<StderrLine>> {
    let header = game_header(game);
    let header = header.as_bytes();
    let start = last_line_equal(log, header)? + header.len();
    let mut when = When::Start;
    let mut lines = Vec::new();
    for line in log[start..].split_inclusive(|&byte| byte == b'\n') {
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        if let Some(said) = text.strip_prefix(MARK) {
            if said.starts_with(b"game ") && said != b"game start" && said != b"game over" {
                break;
            }
            if let Some(marked) = referees_when(said) {
                when = marked;
                continue;
            }
        }
        lines.push(StderrLine {
            when,
            arena: text.starts_with(MARK),
            text: String::from_utf8_lossy(text).into_owned(),
        });
    }
    Some(lines)
}

/// The offset of the last line of `log` that is `line` (newline included).
fn last_line_equal(log: &[u8], line: &[u8]) -> Option<usize> {
    memchr::memmem::rfind_iter(log, line).find(|&at| at == 0 || log[at - 1] == b'\n')
}

/// What a marker line of the referee's (after its [`MARK`]) says.
fn referees_when(said: &[u8]) -> Option<When> {
    match said {
        b"game start" => Some(When::Start),
        b"game over" => Some(When::End),
        _ => {
            let ply = std::str::from_utf8(said.strip_prefix(b"ply ")?).ok()?;
            ply.parse().ok().map(When::Ply)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_is_read_through_the_index_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot-1.log");
        let mut files = LogFiles::open(&path).unwrap();
        for (game, text) in [("g1", "first\n"), ("g2", "second\n"), ("g1", "again\n")] {
            files.index_game(game).unwrap();
            files
                .log
                .write_all(format!("[arena] game {game}\n{text}").as_bytes())
                .unwrap();
        }
        let index = std::fs::read(index_of(&path)).unwrap();
        assert_eq!(String::from_utf8_lossy(&index), "0 g1\n22 g2\n45 g1\n");
        assert_eq!(offset_in(&index, "g1"), Some(45), "the last part");
        let lines = game_lines_in(&path, "g1").unwrap().unwrap();
        assert_eq!(
            lines.iter().map(|line| line.text.as_str()).collect::<Vec<_>>(),
            ["again"]
        );
        assert_eq!(game_lines_in(&path, "g2").unwrap().unwrap()[0].text, "second");
        assert_eq!(game_lines_in(&path, "g3").unwrap(), None);
        assert_eq!(game_lines_in(&dir.path().join("none.log"), "g1").unwrap(), None);
    }

    #[test]
    fn codes_round_trip() {
        for when in [When::Start, When::Ply(0), When::Ply(48), When::End] {
            assert_eq!(When::of_code(when.code()), when);
        }
    }

    #[test]
    fn reads_the_last_part_of_a_game_by_ply() {
        let log = b"[arena] game g1\nboot\n[arena] ply 1\nthinking\n[arena] game g2\nother\n\
[arena] game g1\nagain\n[arena] ply 3\nmove 3\n [arena] ply 9\n[arena] game over\nbye";
        let lines = game_lines(log, "g1").unwrap();
        let seen: Vec<_> = lines.iter().map(|line| (line.when, line.text.as_str())).collect();
        assert_eq!(
            seen,
            [
                (When::Start, "again"),
                (When::Ply(3), "move 3"),
                (When::Ply(3), " [arena] ply 9"),
                (When::End, "bye"),
            ]
        );
        assert_eq!(game_lines(log, "g2").unwrap()[0].text, "other");
        assert!(game_lines(log, "g3").is_none());
        // A header must be a whole line: a bot's line that ends with one is not.
        assert!(game_lines(b"x[arena] game g4\nline\n", "g4").is_none());
    }
}
