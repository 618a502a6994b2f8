//! The check of every journal record against the rules and the tournament of its header.
//!
//! A journal is a text file: anyone can edit it, and a record that lies (a
//! move on an occupied cell, a result that contradicts the score, players
//! swapped, blocks changed, a bot that is not in the tournament) would flow
//! straight into the standings, the ratings and resume. So every reader
//! checks every record as it reads it ([`crate::read`]): an
//! [`Audit`] holds the [`Schedule`] of the header's tournament and, for each
//! record, checks that
//!
//! * both players are bots of the tournament;
//! * its id is a game of the schedule, recorded once;
//! * its players (by seat), layout key, seed, rules, blocks (unless the
//!   players placed them) and time controls are the ones the schedule gives
//!   that game ([`ScheduledGame::spec`](pahtum_tournament::schedule::ScheduledGame::spec));
//! * it replays by the rules ([`GameRecord::replay_moves`]): legal moves by the
//!   colour to act, the pie decision where the game reached it, the score the
//!   board's and the result the one its end gives;
//! * an adjudicated record's rule is the tournament's (`[rules] adjudicate`).
//!
//! Whether an adjudication holds (its margins proven again by the rules) is left to `arena verify`
//! ([`reprove`]): every reader checks each record, and proving costs a search.
//!
//! A [`Fault`] says what is wrong in words; the journal adds the line number.
//!
//! The audit never builds the schedule: it computes the one game a record
//! claims to be from its id ([`Schedule::game`]). It keeps nothing of the
//! records it checked, so that every core can check records at once; the
//! reader, which sees them in file order, finds a game recorded twice
//! ([`crate::JournalReader`]).

use std::collections::HashSet;

use pahtum::Bitboard;
use pahtum_protocol::Placement;
use pahtum_record::{BareMove, GameRecord, GameSpec, ReplayError, Unproven};
use serde::Serialize;

use pahtum_tournament::schedule::{Schedule, ScheduledGame};

/// What is wrong with one line of a journal.
#[derive(Debug, thiserror::Error)]
pub enum Fault {
    /// The line is not JSON of a game record; the source is serde's error.
    #[error("not a game record")]
    NotARecord(#[source] serde_json::Error),
    /// The header's hash does not match its tournament.
    #[error("the header's hash {hash} is not the hash of its tournament: the header was edited")]
    HeaderEdited {
        /// The hash the header gives.
        hash: String,
    },
    /// A player of the game is not a bot of the tournament.
    #[error("game {id:?} names the bot {bot:?}, which is not in the tournament (its bots: {})", bots.join(", "))]
    UnknownBot {
        /// The game's id.
        id: String,
        /// The unknown player, as recorded (untrusted text: escape it for a terminal).
        bot: String,
        /// The tournament's bots.
        bots: Vec<String>,
    },
    /// The id is not a game of the schedule.
    #[error("game {id:?} is not in the tournament's schedule")]
    UnknownGame {
        /// The recorded id.
        id: String,
    },
    /// A `joined` line that does not fit the lines before it.
    #[error("a `joined` line that does not fit the journal before it: {problem}")]
    BadJoin {
        /// What is wrong with it (bot names in it are untrusted text: escape it for a terminal).
        problem: String,
    },
    /// A game recorded a second time.
    #[error("game {id:?} was already recorded on line {first_line}")]
    Duplicate {
        /// The game's id.
        id: String,
        /// The line number (from 1) of its first record.
        first_line: usize,
    },
    /// A setting of the game differs from the one the schedule gives it.
    #[error("game {id:?} has {what} {recorded} but the schedule gives it {scheduled}")]
    NotAsScheduled {
        /// The game's id.
        id: String,
        /// Which setting, as the message names it ("the seed", "the blocks", ...).
        what: &'static str,
        /// The recorded value, as text.
        recorded: String,
        /// The scheduled value, as text.
        scheduled: String,
    },
    /// The game was adjudicated, and proving its margins again fails.
    #[error("game {id:?}: the adjudication after ply {ply}")]
    Unproven {
        /// The game's id.
        id: String,
        /// The ply after which it was adjudicated.
        ply: usize,
        /// Why the margins do not hold.
        #[source]
        source: Unproven,
    },
    /// The source says what the rules refuse.
    #[error("game {id:?}")]
    DoesNotReplay {
        /// The game's id.
        id: String,
        /// Why the moves do not replay by the rules.
        #[source]
        source: ReplayError,
    },
}

/// The checker of one journal's records, in journal order.
#[derive(Debug)]
pub struct Audit {
    /// The tournament's bots, in file order and as a set.
    bot_names: Vec<String>,
    bots: HashSet<String>,
    schedule: Schedule,
}

impl Audit {
    /// An audit of records of the games of `schedule` (of a tournament that bots may have joined).
    pub fn of(schedule: Schedule) -> Audit {
        let bot_names = schedule.tournament().bot_names();
        Audit {
            bots: bot_names.iter().cloned().collect(),
            bot_names,
            schedule,
        }
    }

    /// The schedule the records are checked against.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// Checks `record` alone: everything the module documentation lists but the replay ([`check_replay`]) and
    /// a second record of one game, which the reader sees ([`crate::JournalReader`]); returns its
    /// game's schedule index.
    pub fn check_scheduled(&self, record: &GameRecord) -> Result<usize, Fault> {
        let id = &record.id;
        for bot in [&record.players.first, &record.players.second] {
            if !self.bots.contains(bot) {
                return Err(Fault::UnknownBot {
                    id: id.clone(),
                    bot: bot.clone(),
                    bots: self.bot_names.clone(),
                });
            }
        }
        let index = self
            .schedule
            .index_of(id)
            .ok_or_else(|| Fault::UnknownGame { id: id.clone() })?;
        let game = self.schedule.game(index);
        as_scheduled(record, &game, &game.spec(self.schedule.tournament()))?;
        Ok(index)
    }
}

/// Checks that `record` replays by the rules with `moves` (its moves, which a reader may have kept apart).
pub fn check_replay(record: &GameRecord, moves: impl IntoIterator<Item = BareMove>) -> Result<(), Fault> {
    record
        .replay_moves(moves)
        .map(|_| ())
        .map_err(|source| Fault::DoesNotReplay {
            id: record.id.clone(),
            source,
        })
}

/// Checks that `record` has what the schedule gives `game`.
pub fn as_scheduled(record: &GameRecord, game: &ScheduledGame, spec: &GameSpec) -> Result<(), Fault> {
    as_laid_out(record, [&game.first, &game.second], spec.layout.as_deref(), spec)
}

/// [`as_scheduled`] given the game's `players` by seat and its `layout` key, the rest as `spec` has it (whose
/// own id and layout are not looked at): so that a reader that knows them need not build the game.
pub fn as_laid_out(
    record: &GameRecord,
    players: [&str; 2],
    layout: Option<&str>,
    spec: &GameSpec,
) -> Result<(), Fault> {
    let id = &record.id;
    same(
        id,
        "the players (by seat)",
        &[record.players.first.as_str(), &record.players.second],
        &players,
    )?;
    same(id, "the layout key", &record.layout.as_deref(), &layout)?;
    same(id, "the seed", &record.seed, &spec.seed)?;
    same(id, "the rules", &record.rules, &spec.rules)?;
    if spec.rules.placement != Placement::Players {
        let recorded: Bitboard = record.blocks.iter().copied().collect();
        let scheduled: Bitboard = spec.blocks.iter().copied().collect();
        if recorded != scheduled {
            let cells = |blocks: Bitboard| blocks.cells().collect::<Vec<_>>();
            same(id, "the blocks", &cells(recorded), &cells(scheduled))?;
        }
    }
    same(id, "the time control", &record.time, &spec.time)?;
    same(
        id,
        "the time controls by seat",
        &record.time_by_seat,
        &spec.time_by_seat,
    )?;
    same(id, "pause_idle", &record.pause_idle, &spec.pause_idle)?;
    if let Some(adjudication) = &record.termination.adjudicated {
        same(id, "the adjudication rule", &Some(adjudication.rule), &spec.adjudicate)?;
    }
    Ok(())
}

/// The search nodes each bound of an adjudication may take when [`reprove`] proves it again: far more than
/// the referee spends ending a game (so that whatever it proved is proven again), few enough that a record
/// claiming an adjudication early in a game is refused in seconds, not searched for hours.
pub const REPROVE_BUDGET: u64 = 50_000_000;

/// Proves the adjudication of the record `line` again, if it has one: replayed in full, the margins its rule
/// proves after its last ply must lie within the recorded ones ([`pahtum_record::Adjudication::holds`]).
/// `None` for a record that was not adjudicated or that holds; a record that does not replay is the
/// reader's fault to report, not this one's.
pub fn reprove(line: &[u8]) -> Option<Fault> {
    let record: GameRecord = serde_json::from_slice(line).ok()?;
    reprove_record(&record)
}

/// [`reprove`] of a record read with its moves (a league's journal's reader reads them).
pub fn reprove_record(record: &GameRecord) -> Option<Fault> {
    let adjudication = record.termination.adjudicated?;
    let game = record.replay().ok()?;
    adjudication
        .holds(&game, REPROVE_BUDGET)
        .err()
        .map(|source| Fault::Unproven {
            id: record.id.clone(),
            ply: adjudication.ply,
            source,
        })
}

/// Nothing when `recorded` is `scheduled`; else the fault of game `id`, showing both as JSON.
fn same<T: PartialEq + Serialize + ?Sized>(
    id: &str,
    what: &'static str,
    recorded: &T,
    scheduled: &T,
) -> Result<(), Fault> {
    if recorded == scheduled {
        return Ok(());
    }
    let json = |value: &T| serde_json::to_string(value).expect("a record's field serializes");
    Err(Fault::NotAsScheduled {
        id: id.to_owned(),
        what,
        recorded: json(recorded),
        scheduled: json(scheduled),
    })
}

#[cfg(test)]
mod tests {
    use pahtum_record::MoveRecord;

    use super::*;
    use pahtum_tournament::config::Tournament;
    use pahtum_tournament::schedule::{Schedule, schedule};
    use pahtum_tournament::testing::{tournament, won_by};

    fn checked(audit: &Audit, record: &GameRecord) -> Result<(), Fault> {
        audit.check_scheduled(record)?;
        check_replay(record, record.moves.iter().map(MoveRecord::bare))
    }

    /// Every game of the schedule passes, in any order.
    #[test]
    fn each_game_passes() {
        let t = tournament();
        let audit = Audit::of(Schedule::new(&t));
        let games = schedule(&t);
        for game in games.iter().rev() {
            let record = won_by(game, &game.spec(&t), &game.first);
            checked(&audit, &record).unwrap();
        }
    }

    /// A record is held to the game its id names: an id of another form is no game, and a record of one game
    /// under another's id is not as scheduled.
    #[test]
    fn a_record_is_held_to_the_game_its_id_names() {
        let t = Tournament {
            games_per_pair: 4,
            ..tournament()
        };
        let audit = Audit::of(Schedule::new(&t));
        let games = schedule(&t);
        let mut record = won_by(&games[0], &games[0].spec(&t), "a");
        record.id = "0-0-a".to_owned();
        let fault = checked(&audit, &record).unwrap_err();
        assert!(
            matches!(fault, Fault::UnknownGame { ref id } if id == "0-0-a"),
            "{fault:?}"
        );
        record.id = games[1].id.clone();
        let fault = checked(&audit, &record).unwrap_err().to_string();
        assert!(fault.contains("has the players (by seat) [\"a\",\"b\"]"), "{fault}");
        let later = games
            .iter()
            .find(|game| game.first == "a" && game.second == "b" && game.index > 0);
        record.id = later.expect("a later round of the pair").id.clone();
        let fault = checked(&audit, &record).unwrap_err().to_string();
        assert!(fault.contains("has the layout key \"000-00\""), "{fault}");
    }
}
