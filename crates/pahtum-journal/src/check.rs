//! The check of one line of a journal: parsed as a record (without its moves'
//! timings when the reader drops them, by the hand reader of [`super::fast`]
//! first), checked by the rules and the schedule ([`crate::audit`]), and
//! placed in the schedule; or parsed as a [`Joined`] line, checked against the
//! schedule so far, which it grows.

use std::sync::Arc;

use pahtum_record::{BareMove, GameRecord, MoveRecord};
use serde::Deserialize;

use crate::audit::{Audit, Fault, check_replay};
use pahtum_tournament::schedule::{Schedule, ScheduleShape};

use super::fast;
use super::header::Joined;
use pahtum_tournament::config::tournament_hash;

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

/// The check of each record of one tournament's journals, as grown by the joins read so far.
#[derive(Debug)]
pub(crate) struct Checker {
    audit: Audit,
}

/// What one line of a journal is, once read and checked.
#[derive(Debug)]
pub(super) enum Line<T> {
    /// A record of the game at this schedule index, as kept.
    Record(usize, T),
    /// Bots that joined (not yet checked against the lines before it: the reader does that in order).
    Joined(Joined),
}

impl Checker {
    /// The checker of records of `schedule`'s games.
    pub(crate) fn new(schedule: Schedule) -> Checker {
        Checker {
            audit: Audit::of(schedule),
        }
    }

    /// The schedule the records are checked against.
    pub(crate) fn schedule(&self) -> &Schedule {
        self.audit.schedule()
    }

    /// The shape of the schedule.
    pub(crate) fn shape(&self) -> &ScheduleShape {
        self.schedule().shape()
    }

    /// Reads one line as a record (checked against this checker's schedule or, when it refuses the record's
    /// game, against the schedule that `grown` gives, if it gives one; its index with it) or as a [`Joined`]
    /// line (not checked).
    pub(super) fn read(
        &self,
        text: &[u8],
        moves: Moves,
        grown: impl FnOnce() -> Option<Arc<Checker>>,
    ) -> Result<Line<GameRecord>, Fault> {
        match self.check_grown(text, moves, grown) {
            Ok((index, record)) => Ok(Line::Record(index, record)),
            Err(Fault::NotARecord(error)) => match serde_json::from_slice::<Joined>(text) {
                Ok(joined) => Ok(Line::Joined(joined)),
                Err(_) => Err(Fault::NotARecord(error)),
            },
            Err(fault) => Err(fault),
        }
    }

    /// The checker of the schedule grown by `joined`, if it fits the schedule so far: bots not in the
    /// tournament yet, the hash of the tournament with them, and the number of games of its schedule.
    pub(super) fn join(&self, joined: &Joined) -> Result<Checker, Fault> {
        let fault = |problem: String| Err(Fault::BadJoin { problem });
        let tournament = self.schedule().tournament();
        if joined.joined.is_empty() {
            return fault("it names no bot".to_owned());
        }
        for (at, bot) in joined.joined.iter().enumerate() {
            if tournament.bot(&bot.name).is_some() || joined.joined[..at].iter().any(|b| b.name == bot.name) {
                return fault(format!("the bot {:?} is in the tournament already", bot.name));
            }
        }
        let schedule = self.schedule().join(&joined.joined);
        let hash = tournament_hash(schedule.tournament());
        if joined.hash != hash {
            return fault(format!(
                "its hash {} is not the hash of the tournament with its bots ({hash}): the line was edited",
                joined.hash
            ));
        }
        if joined.games != schedule.len() {
            return fault(format!(
                "it gives {} games, but the schedule with its bots has {}",
                joined.games,
                schedule.len()
            ));
        }
        Ok(Checker::new(schedule))
    }

    /// Reads one line as a record (without its moves for [`Moves::Drop`]) and checks it
    /// ([`crate::audit`]); returns its game's schedule index with it.
    pub(super) fn check(&self, text: &[u8], moves: Moves) -> Result<(usize, GameRecord), Fault> {
        self.check_grown(text, moves, || None)
    }

    /// [`check`](Self::check), against the schedule of `grown` when this one refuses the record's game, and
    /// `grown` gives one: the record is read once.
    fn check_grown(
        &self,
        text: &[u8],
        moves: Moves,
        grown: impl FnOnce() -> Option<Arc<Checker>>,
    ) -> Result<(usize, GameRecord), Fault> {
        let mut index = 0;
        let (record, _) = read_record(text, moves, |record, moves| {
            index = self.audit.check_scheduled(record).or_else(|fault| match grown() {
                Some(grown) => grown.audit.check_scheduled(record).map_err(|_| fault),
                None => Err(fault),
            })?;
            check_replay(record, moves)
        })?;
        Ok((index, record))
    }
}

/// Reads one line as a record (without its moves for [`Moves::Drop`]) and checks it, with its moves,
/// with `check`: the reading of a record that every kind of journal shares. With it, the value of the line's
/// `entrants` member (a league's game line) where the hand reader read it; `None` says nothing of it.
pub fn read_record(
    text: &[u8],
    moves: Moves,
    check: impl FnOnce(&GameRecord, &mut dyn Iterator<Item = BareMove>) -> Result<(), Fault>,
) -> Result<(GameRecord, Option<[String; 2]>), Fault> {
    Ok(match moves {
        Moves::Keep => {
            let record: GameRecord = parse(text)?;
            check(&record, &mut record.moves.iter().map(MoveRecord::bare))?;
            (record, None)
        }
        Moves::Drop => {
            let fast = fast::split(text).and_then(split_record);
            // Anything the hand reader does not take, serde reads whole (and names its fault).
            let (record, moves, entrants) = match fast {
                Some(read) => read,
                None => {
                    let (record, moves) = parse::<WithoutMoves>(text)?.split();
                    (record, moves, None)
                }
            };
            check(&record, &mut moves.into_iter())?;
            (record, entrants)
        }
    })
}

/// Parses `text` as a `T`.
fn parse<T: serde::de::DeserializeOwned>(text: &[u8]) -> Result<T, Fault> {
    // A `&str` is parsed without checking each string's UTF-8 again: a fifth faster.
    match std::str::from_utf8(text) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(text),
    }
    .map_err(Fault::NotARecord)
}

/// The record of a line as the hand reader `split` it, serde reading the rest: the record without its moves,
/// its bare moves, and the line's `entrants` where read; `None` where serde refuses the rest.
pub(super) fn split_record(split: fast::Split) -> Option<(GameRecord, Vec<BareMove>, Option<[String; 2]>)> {
    let mut record = parse::<WithoutMoves>(&split.rest).ok()?.split().0;
    if let Some(blocks) = split.blocks {
        record.blocks = blocks;
    }
    Some((record, split.moves, split.entrants))
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
