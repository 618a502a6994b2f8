//! The annotations of `analysis.jsonl`: the types of its lines, one
//! [`GameAnalysis`] a line, with serde and a JSON Schema
//! (`analysis.schema.json`, which RECORD.md's tables are held to), so that
//! other programs can read it; and the file on disk: where it lies beside the
//! games it analyses, and its lines read back.
//!
//! They live beside the record, not with the analysis that computes them
//! (`pahtum-analysis`, which links the engine's search), because they are
//! data about a record: `arena analyze` writes them, and `arena show`, the
//! report and the server read them, the last two without linking any search.
//!
//! A line that does not parse (a torn last line, a line of a newer format) is
//! skipped: an analysis is a help to read games, never a reason to refuse
//! them. A game may have several lines (its record changed, or it was
//! analysed again with another effort): [`latest`] takes the last line whose
//! hash is its record's.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use pahtum::{Color, Seat};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::GameRecord;

/// One game's analysis: a line of `analysis.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GameAnalysis {
    /// The game's id, as in its record.
    pub game: String,
    /// The hash of the record analysed ([`record_hash`]): an analysis whose
    /// hash differs from its record's is of another game and is not used.
    pub record: String,
    /// Every ply, in order: the record's moves one for one, with the pie
    /// decision (when there was one) in its place.
    pub moves: Vec<MoveAnalysis>,
    /// Each side's losing move.
    pub losing: Losing,
    /// How the values were found.
    pub effort: Effort,
}

/// The ply (in the one numbering of plies) of each side's losing move: the
/// first move of that side after which its outcome was worse than before
/// (a win drawn or lost, a draw lost); null when there was none. The sides
/// are the colours as the game ended (as the record's `result`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Losing {
    /// The losing move of the side that ended the game as White.
    pub white: Option<usize>,
    /// The losing move of the side that ended the game as Black.
    pub black: Option<usize>,
}

impl Losing {
    /// The losing move of the side that ended as `color`.
    pub fn of(&self, color: Color) -> Option<usize> {
        match color {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }
}

/// What kind of decision a ply is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A block placed by a player.
    Block,
    /// A stone.
    Stone,
    /// The pie decision.
    Pie,
}

/// One ply, from the point of view of the player who made it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MoveAnalysis {
    /// The ply's number (RECORD.md, "Move numbers").
    pub ply: usize,
    /// Block, stone or the pie decision.
    pub kind: Kind,
    /// The move played, in the protocol's notation: `d4`, `#d4`, `swap`, `keep`.
    #[serde(rename = "move")]
    pub played: String,
    /// The colour that acted (Black for the pie decision).
    pub color: Color,
    /// The seat that acted.
    pub seat: Seat,
    /// Whether the ply was given before the bots played (the record's
    /// `opening`): nobody's choice, so never graded nor a losing move.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub given: bool,
    /// The value of the position before the move, for the mover.
    pub before: Value,
    /// The value of the position after the move played, for the same player.
    pub after: Value,
    /// The best moves, in the same notation: every optimal one where exact,
    /// the search's choice where estimated.
    pub best: Vec<String>,
    /// What the move cost: `before` less `after`, in points of margin when
    /// both are exact, else in expected result (an exact value counts as 1, ½
    /// or 0); never below 0.
    pub loss: f64,
    /// The mistake's grade, absent for a good move or a given one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grade: Option<Grade>,
}

/// How bad a move was (see `grade` for the thresholds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Grade {
    /// A small loss.
    Inaccuracy,
    /// A clear loss.
    Mistake,
    /// A loss that changes the outcome (exact) or costs a large part of the
    /// winning chances (estimated).
    Blunder,
}

impl Grade {
    /// The grade as chess marks a move: `?!`, `?` or `??`.
    pub const fn mark(self) -> &'static str {
        match self {
            Grade::Inaccuracy => "?!",
            Grade::Mistake => "?",
            Grade::Blunder => "??",
        }
    }
}

/// A position's value for one player.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Value {
    /// Whether the value is proven (the solver's) rather than estimated.
    pub exact: bool,
    /// When exact: the final points difference (this player minus the
    /// other) with perfect play from both sides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<i32>,
    /// When estimated: the expected result (1 a win, 0.5 a draw, 0 a loss)
    /// by the engine's search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<f64>,
}

impl Value {
    /// A proven final margin.
    pub fn exact(margin: i32) -> Value {
        Value {
            exact: true,
            margin: Some(margin),
            expected: None,
        }
    }

    /// An estimated expected result, to four decimals (the search's own
    /// precision is far less).
    pub fn estimated(expected: f64) -> Value {
        Value {
            exact: false,
            margin: None,
            expected: Some((expected * 10_000.0).round() / 10_000.0),
        }
    }

    /// The expected result: 1, ½ or 0 for an exact value.
    pub fn expected_result(&self) -> f64 {
        match (self.margin, self.expected) {
            (Some(margin), _) => f64::from(margin.signum() + 1) / 2.0,
            (None, expected) => expected.unwrap_or(0.5),
        }
    }

    /// The value for the other player.
    pub fn flipped(self) -> Value {
        match self.margin {
            Some(margin) => Value::exact(-margin),
            None => Value::estimated(1.0 - self.expected_result()),
        }
    }
}

/// The effort behind the values, so that a reader knows what an estimate is
/// worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Effort {
    /// Positions with at most this many free cells (stones to come) were
    /// solved, unless the time budget ran out first.
    pub exact_from: u32,
    /// The tree search's playouts through each estimated position (those the search of the position before
    /// spent below the move played count).
    pub playouts: u64,
    /// The tree search's seed.
    pub seed: u64,
}

/// The hash of `record` that an analysis is keyed by: `"sha256:"` and the
/// lowercase hex SHA-256 of the record's compact JSON (as the arena writes
/// it), like the journal header's hash of its tournament.
pub fn record_hash(record: &GameRecord) -> String {
    let json = serde_json::to_vec(record).expect("a record serializes to JSON");
    let hex: String = Sha256::digest(&json).iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

/// The analysis file of the games in the file `games` (a journal or a
/// record): `analysis.jsonl` beside a `journal.jsonl`, else
/// `NAME.analysis.jsonl` beside `NAME.EXT`.
pub fn beside(games: &Path) -> PathBuf {
    if games.file_name().is_some_and(|name| name == "journal.jsonl") {
        return games.with_file_name("analysis.jsonl");
    }
    let stem = games.file_stem().unwrap_or_default().to_string_lossy();
    games.with_file_name(format!("{stem}.analysis.jsonl"))
}

/// Every line of the analysis file at `path` that parses, in order; nothing
/// when there is no such file.
pub fn lines(path: &Path) -> std::io::Result<impl Iterator<Item = GameAnalysis>> {
    let file = match std::fs::File::open(path) {
        Ok(file) => Some(std::io::BufReader::new(file)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => return Err(error),
    };
    Ok(file
        .into_iter()
        .flat_map(|reader| reader.split(b'\n'))
        .map_while(Result::ok)
        .filter_map(|line| serde_json::from_slice(&line).ok()))
}

/// The analysis of each of `records` that the file at `path` holds: for each,
/// its last line of the record's hash; records without one are left out.
/// Only the lines of `records` are kept, so a caller that wants a few games
/// keeps a few analyses, whatever the size of the file.
pub fn latest<'a>(
    path: &Path,
    records: impl IntoIterator<Item = &'a GameRecord>,
) -> std::io::Result<HashMap<String, GameAnalysis>> {
    let wanted: HashMap<String, String> = records
        .into_iter()
        .map(|record| (record.id.clone(), record_hash(record)))
        .collect();
    let mut found = HashMap::new();
    for analysis in lines(path)? {
        if wanted.get(&analysis.game) == Some(&analysis.record) {
            found.insert(analysis.game.clone(), analysis);
        }
    }
    Ok(found)
}
