//! What a fold over a journal does with each record beside what the fold itself counts.
//!
//! The readers (a tournament's journal folded into its standings, a league's into its table and
//! history, a growing journal followed) read every line on every core, check it and count it; a caller
//! may want each record too, or something small computed from its moves. [`Sink`] is that seam, as
//! ripgrep's `Sink` is between its searcher and its printers: its [`Keep`] part runs on the reading
//! threads (the moves are there, then dropped), and [`Sink::record`] takes each record in file order.
//! A caller that wants only the fold's own result passes [`Counts`].

use pahtum_record::GameRecord;

use crate::Span;

/// What the reading threads make of each record before it is handed on: it runs on every core at once,
/// on the record with its moves, hence `Sync` and `&self`.
pub trait Keep: Sync {
    /// What is kept of a record.
    type Kept: Send;

    /// What to keep of `record`.
    fn keep(&self, record: &GameRecord) -> Self::Kept;
}

/// What a fold hands each record to, in file order.
pub trait Sink {
    /// The reading threads' part.
    type Keep: Keep;

    /// The reading threads' part, taken once before the fold starts (so that the threads share it while
    /// [`Sink::record`] borrows the sink).
    fn keeper(&self) -> Self::Keep;

    /// Takes each record (without its moves), what [`Keep::keep`] kept of it, and where its line lies in
    /// the file. Does nothing by default.
    fn record(&mut self, record: GameRecord, kept: <Self::Keep as Keep>::Kept, span: Span) {
        let _ = (record, kept, span);
    }
}

/// The fold's own result alone: nothing kept, no record taken.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counts;

impl Keep for Counts {
    type Kept = ();

    fn keep(&self, _: &GameRecord) {}
}

impl Sink for Counts {
    type Keep = Counts;

    fn keeper(&self) -> Counts {
        Counts
    }
}

/// Every record, in file order, without its moves unless the fold kept them.
#[derive(Debug, Default)]
pub struct Records(pub Vec<GameRecord>);

impl Sink for Records {
    type Keep = Counts;

    fn keeper(&self) -> Counts {
        Counts
    }

    fn record(&mut self, record: GameRecord, (): (), _: Span) {
        self.0.push(record);
    }
}
