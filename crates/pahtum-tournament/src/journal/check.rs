//! The check of one line of a journal: parsed as a record (without its moves'
//! timings when the reader drops them, by the hand reader of [`super::fast`]
//! first), checked by the rules and the schedule ([`crate::audit`]), and
//! placed in the schedule.

use pahtum_record::{BareMove, GameRecord, MoveRecord};
use serde::Deserialize;

use crate::audit::{Audit, Fault};
use crate::config::Tournament;
use crate::shard::ScheduleShape;

use super::fast;

/// Whether a reader keeps the records' moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moves {
    /// The records as written, every move with its timing.
    Keep,
    /// The records without their moves (`moves` empty, `swap_move` `None`), which are checked all
    /// the same: all that standings need, in a fraction of the memory, and faster, since the
    /// moves' timings (most of a record's bytes) are skipped.
    Drop,
}

/// The check of each record of one tournament's journals.
#[derive(Debug)]
pub(crate) struct Checker {
    audit: Audit,
    shape: ScheduleShape,
}

impl Checker {
    /// The checker of records of `tournament`.
    pub(crate) fn new(tournament: &Tournament) -> Checker {
        Checker {
            audit: Audit::new(tournament),
            shape: ScheduleShape::of(tournament),
        }
    }

    /// The shape of the tournament's schedule.
    pub(crate) fn shape(&self) -> ScheduleShape {
        self.shape
    }

    /// Reads one line as a record (without its moves for [`Moves::Drop`]) and checks it
    /// ([`crate::audit`]); returns its game's schedule index with it.
    pub(super) fn check(&self, text: &[u8], moves: Moves) -> Result<(usize, GameRecord), Fault> {
        let record = read_record(text, moves, |record, moves| self.audit.check(record, moves))?;
        let index = self
            .shape
            .index_of(&record.id)
            .ok_or_else(|| Fault::UnknownGame { id: record.id.clone() })?;
        Ok((index, record))
    }
}

/// Reads one line as a record (without its moves for [`Moves::Drop`]) and checks it, with its moves,
/// with `check`: the reading of a record that every kind of journal shares.
pub(crate) fn read_record(
    text: &[u8],
    moves: Moves,
    check: impl FnOnce(&GameRecord, &mut dyn Iterator<Item = BareMove>) -> Result<(), Fault>,
) -> Result<GameRecord, Fault> {
    fn parse<T: serde::de::DeserializeOwned>(text: &[u8]) -> Result<T, Fault> {
        // A `&str` is parsed without checking each string's UTF-8 again: a fifth faster.
        match std::str::from_utf8(text) {
            Ok(text) => serde_json::from_str(text),
            Err(_) => serde_json::from_slice(text),
        }
        .map_err(Fault::NotARecord)
    }
    Ok(match moves {
        Moves::Keep => {
            let record: GameRecord = parse(text)?;
            check(&record, &mut record.moves.iter().map(MoveRecord::bare))?;
            record
        }
        Moves::Drop => {
            let fast = fast::split(text).and_then(|(rest, moves)| {
                let record = serde_json::from_slice::<WithoutMoves>(&rest).ok()?.split().0;
                Some((record, moves))
            });
            // Anything the hand reader does not take, serde reads whole (and names its fault).
            let (record, moves) = match fast {
                Some(read) => read,
                None => parse::<WithoutMoves>(text)?.split(),
            };
            check(&record, &mut moves.into_iter())?;
            record
        }
    })
}

/// A [`GameRecord`] as read without its moves' timings; unknown keys, `swap_move` among them, are skipped.
#[derive(Deserialize)]
pub(super) struct WithoutMoves {
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
    #[serde(default)]
    opening: Option<pahtum_record::Opening>,
    moves: Vec<BareMove>,
    swap: Option<bool>,
    score: pahtum::Score,
    result: pahtum::Outcome,
    termination: pahtum_record::Termination,
    started_unix_ms: u64,
    ended_unix_ms: u64,
    #[serde(default)]
    hello: Option<pahtum_record::Hellos>,
}

impl WithoutMoves {
    /// The record without its moves, and its bare moves.
    pub(super) fn split(self) -> (GameRecord, Vec<BareMove>) {
        let r = self;
        let record = GameRecord {
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
            opening: r.opening,
            moves: Vec::new(),
            swap: r.swap,
            swap_move: None,
            score: r.score,
            result: r.result,
            termination: r.termination,
            started_unix_ms: r.started_unix_ms,
            ended_unix_ms: r.ended_unix_ms,
            hello: r.hello,
        };
        (record, r.moves)
    }
}
