//! What the runner tells the world, apart from how it is shown.
//!
//! The runner emits typed [`Event`]s to an [`Observer`]; the progress bar, the
//! plain progress lines and any future display (an HTML report, a web page)
//! are observers, so the runner never prints.
//!
//! An observer sees every record once, whichever run played it: the records of
//! earlier runs as [`Event::Resumed`] while the journal is opened
//! ([`crate::resume::open`]), the others as [`Event::GameFinished`]. So what
//! counts (a score, an SPRT) keeps its own tallies, and nobody keeps the
//! records.
//!
//! Around the games, a run played in one call (pahtum-runner's `tournament`
//! and `head_to_head`) tells its observer when its journal is open
//! ([`Event::Opened`]), when its games are about to be played and when they
//! are over ([`Event::Playing`], [`Event::Played`]), and what its organiser is
//! to be told ([`Event::Notice`]).

use pahtum_record::GameRecord;

use pahtum_journal::Span;
use pahtum_tournament::config::Tournament;
use pahtum_tournament::schedule::ScheduledGame;

use crate::notice::Notice;

/// Something that happened in a run.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// A record of an earlier run, read from the journal as it is opened (before [`Event::Started`]).
    Resumed {
        /// The game's index in the schedule.
        index: usize,
        /// The game's record, as journaled but without its moves (checked as it was read).
        record: &'a GameRecord,
    },
    /// The run starts: `total` games in the schedule, of which `done` are in the journal already.
    Started {
        /// The tournament's name.
        tournament: &'a str,
        /// The games of the schedule.
        total: usize,
        /// The records already in the journal (each shown as [`Event::Resumed`]).
        done: usize,
        /// Games played at once.
        concurrency: usize,
    },
    /// A game starts.
    GameStarted {
        /// The game's id.
        id: &'a str,
        /// The bot in the first seat (White at the start).
        first: &'a str,
        /// The bot in the second seat.
        second: &'a str,
    },
    /// A game ended and its record is in the journal.
    GameFinished {
        /// The game's record, as journaled.
        record: &'a GameRecord,
        /// Where its line lies in the journal.
        at: Span,
    },
    /// A game was lost on time under overload and played again
    /// ([`pahtum_tournament::config::OnOverload::Replay`]): this record of it is not journaled.
    Replayed {
        /// The discarded record.
        record: &'a GameRecord,
    },
    /// A process of `bot` failed, and a new one was started in its place.
    BotRestarted {
        /// The bot's name.
        bot: &'a str,
    },
    /// Ctrl-C: no new games start; the running ones are ended and not recorded.
    Interrupted {
        /// The games in the journal.
        done: usize,
        /// The games of the schedule.
        total: usize,
    },
    /// Every game of the schedule is in the journal.
    Finished {
        /// The games of the schedule (all in the journal).
        total: usize,
    },
    /// The run's journal is open, its records shown (each as [`Event::Resumed`]): what is left is to play.
    Opened {
        /// The tournament of the journal (with the bots that joined).
        tournament: &'a Tournament,
        /// The games of its schedule.
        scheduled: usize,
        /// The games with a record in the journal.
        done: usize,
    },
    /// The games are about to be played: no bot has started for them yet.
    Playing,
    /// The games are over, however they ended: done, stopped, or not played for an error.
    Played,
    /// Something the run tells whoever runs it, besides its games.
    Notice(Notice<'a>),
}

/// Receives the events of a run, in order, on the runner's task.
pub trait Observer {
    /// Called for every event, in order; it should return quickly (the runner waits).
    fn on(&mut self, event: Event<'_>);

    /// Consulted before each game starts, in schedule order. A game declined (`false`) is skipped for
    /// the rest of the run and the next one is asked about; the run then ends as
    /// [`RunEnding::Declined`] once the games started are recorded. An SPRT stops a match
    /// this way (declining the games that would begin new layout pairs); a tournament plays every game.
    fn may_start(&mut self, _game: &ScheduledGame) -> bool {
        true
    }

    /// Whether the game at schedule index `index` would be let start now, without starting it (nor
    /// counting it as [`Observer::may_start`] may): asked of the pending games before any bot starts, so
    /// that a match whose SPRT decided in an earlier run starts no bot.
    fn would_start(&self, _index: usize) -> bool {
        true
    }
}

/// An observer that ignores everything (tests, benchmarks).
#[derive(Debug, Default, Clone, Copy)]
pub struct Quiet;

impl Observer for Quiet {
    fn on(&mut self, _event: Event<'_>) {}
}

/// Two observers as one: each sees every event, in order, and a game starts only if both let it (both
/// are asked, so that each sees every game it is asked about).
pub struct Tee<'a>(pub &'a mut dyn Observer, pub &'a mut dyn Observer);

impl std::fmt::Debug for Tee<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tee").finish_non_exhaustive()
    }
}

impl Observer for Tee<'_> {
    fn on(&mut self, event: Event<'_>) {
        self.0.on(event);
        self.1.on(event);
    }

    fn may_start(&mut self, game: &ScheduledGame) -> bool {
        let first = self.0.may_start(game);
        let second = self.1.may_start(game);
        first && second
    }

    fn would_start(&self, index: usize) -> bool {
        self.0.would_start(index) && self.1.would_start(index)
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunEnding {
    /// Every game of the schedule is in the journal.
    Finished,
    /// Stopped before the end; running the same command again resumes.
    Interrupted,
    /// The observer declined some games; every game started was played and recorded.
    Declined,
}
