//! The tournament file: TOML in, a checked [`Tournament`] and its [`RunSettings`] out.
//!
//! The file is read in two layers. The first mirrors the file, every key
//! optional and unknown keys refused (a misspelt key is reported, not silently
//! ignored); the second checks each key and fills in every default, so that an
//! error can name the file, the key, what is wrong and what would be right.
//!
//! The result is split in two on purpose. [`Tournament`] holds what decides the
//! games (bots, rules, clocks, fair mode, seed, pairing); the journal keeps it in its
//! header and refuses to resume when it changes. [`RunSettings`] holds how the
//! games are run (concurrency, output folder, limits, restarts, durability); it may change
//! between a run and its resume, and flags on the command line override it.
//!
//! Paths: a bot's `dir` is relative to the tournament file's folder (so that a
//! file works from any working directory), and a bot's program, when it
//! contains a `/`, is relative to the bot's working directory, as if typed in a
//! shell there. The output folder, like `--out`, is relative to the working
//! directory of `arena run`.
//!
//! `tournaments/reference.toml` documents every key and its default. The
//! command lines that make a tournament (or a game) of two bots instead of
//! reading a file name and time them by [`two_bots`], and a match becomes a
//! tournament by [`head_to_head`].

pub mod head_to_head;
// The keys of a file as written, before they are checked: shared with `league.toml`'s reader
// (`pahtum-league`). Each field is the key of its name in tournaments/reference.toml.
#[allow(missing_docs)]
pub mod keys;
mod model;
pub mod names;
pub mod resolve;
#[cfg(test)]
mod tests;
pub mod two_bots;

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

pub use model::*;
pub use names::{MAX_NAME_LEN, PLAIN_NAME_RULE, is_plain_char, is_plain_name};

use keys::FileKeys;

/// Reads and checks the tournament file at `path`.
pub fn load(path: &Path) -> Result<TournamentFile, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })?;
    parse(path, &text)
}

/// Checks the text of a tournament file; `path` names it in errors and anchors its relative paths.
pub fn parse(path: &Path, text: &str) -> Result<TournamentFile, ConfigError> {
    let file: FileKeys = toml::from_str(text).map_err(|error| ConfigError::Syntax {
        path: path.to_owned(),
        message: error.to_string().trim_end().to_owned(),
    })?;
    let invalid = |key: &str, problem: String, fix: &str| ConfigError::Invalid {
        path: path.to_owned(),
        key: key.to_owned(),
        problem,
        fix: fix.to_owned(),
    };
    let base_dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    };
    let read_book = |book: &str| std::fs::read_to_string(base_dir.join(book));
    let (tournament, settings) = resolve::resolve(file, &read_book).map_err(|e| invalid(&e.key, e.problem, &e.fix))?;
    Ok(TournamentFile {
        path: path.to_owned(),
        base_dir,
        tournament,
        settings,
    })
}

/// The hash of a resolved tournament, as the journal's header holds it: `"sha256:"` and the lowercase hex SHA-256 of
/// the compact JSON of the tournament (serde_json, keys in the order of the structs).
pub fn tournament_hash(tournament: &Tournament) -> String {
    let json = serde_json::to_vec(tournament).expect("a tournament serializes to JSON");
    let digest = Sha256::digest(&json);
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}
