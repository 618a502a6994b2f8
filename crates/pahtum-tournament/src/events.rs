//! What the runner tells the world, apart from how it is shown.
//!
//! The runner emits typed [`Event`]s to an [`Observer`]; the progress bar, the
//! plain progress lines and any future display (an HTML report, a web page)
//! are observers, so the runner never prints.

use pahtum_record::GameRecord;

use crate::schedule::ScheduledGame;

/// Something that happened in a run.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// The run starts: `total` games in the schedule, of which `done` are in the journal already.
    Started {
        /// The tournament's name.
        tournament: &'a str,
        /// The games of the schedule.
        total: usize,
        /// The records already in the journal (resumed).
        done: &'a [GameRecord],
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
    },
    /// A game was lost on time under overload and played again
    /// ([`crate::config::OnOverload::Replay`]): this record of it is not journaled.
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
}

/// Receives the events of a run, in order, on the runner's task.
pub trait Observer {
    /// Called for every event, in order; it should return quickly (the runner waits).
    fn on(&mut self, event: Event<'_>);

    /// Consulted before each game starts, in schedule order. A game declined (`false`) is skipped for
    /// the rest of the run and the next one is asked about; the run then ends as
    /// [`crate::runner::Ending::Declined`] once the games started are recorded. An SPRT stops a match
    /// this way (declining the games that would begin new layout pairs); a tournament plays every game.
    fn may_start(&mut self, _game: &ScheduledGame) -> bool {
        true
    }
}

/// An observer that ignores everything (tests, benchmarks).
#[derive(Debug, Default, Clone, Copy)]
pub struct Quiet;

impl Observer for Quiet {
    fn on(&mut self, _event: Event<'_>) {}
}
