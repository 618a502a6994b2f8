//! The journal: the one source of truth of a tournament, and the line reader, torn-line rule, writer
//! and streaming merge output that a league's journal shares.
//!
//! It holds the journal's lines read in bounded memory on every core ([`lines`]), the header
//! ([`Header`], [`Joined`]), the writer with its lock ([`Journal`]), the readers ([`JournalReader`],
//! [`read`], [`verify`]), the check of each record ([`audit`]), the follower of a growing journal
//! ([`Follower`]), the rewrite that drops games ([`drop_games`]) and the merge of shards' journals
//! ([`merge`]).
//!
//! A JSON Lines file, append-only. The first line is a [`Header`]: the format,
//! the resolved tournament (every default filled in) and its hash, and for the
//! journal of one shard of a sharded run, the shard. Every other
//! line is one [`GameRecord`](pahtum_record::GameRecord), written whole with its newline in one `write`
//! as its game ends, so that a killed referee loses nothing; it reaches the
//! disk as the journal's [`Durability`](pahtum_tournament::durability::Durability) says (group commit: one sync for the
//! games of up to 200 ms by default), which bounds what a power cut loses. Standings, tables and resume are all derived
//! from the journal, never from state kept elsewhere.
//!
//! A crash in the middle of a write leaves a *torn* last line: no newline at
//! its end, and not a valid record. Reading drops exactly that line (and
//! [`Journal::open`] truncates it away before appending). Blank lines (empty
//! or only whitespace, a trailing one too) are harmless and skipped, since
//! editors and `echo >>` leave them. Anything else is a record, and every
//! reader checks every record as it reads it ([`crate::audit`]: the rules
//! replay it, and the schedule of the header's tournament must have it): a
//! line that does not parse or does not pass is an error naming the line and
//! the fault, and [`verify`] lists every such line at once. A
//! [`JournalReader`] streams the records in bounded memory, on every core, in
//! file order; [`read`] is that stream collected.
//!
//! A tournament can gain bots after its journal was started: a run of its
//! file with more bots appends a [`Joined`] line, which names them, and from
//! that line on the journal's schedule has their games too
//! ([`pahtum_tournament::schedule`]'s bots that join later), every earlier game kept. A
//! reader checks each such line against the lines before it (new bots, the
//! hash and the number of games of the grown tournament) and each record
//! against the schedule as grown by the lines before it; [`Ending::schedule`]
//! is the schedule with every join.
//!
//! Only [`drop_games`] changes a journal otherwise: it rewrites it without
//! some games, so that a resume plays them again, and keeps the old one aside.
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

pub mod audit;
mod check;
pub mod entrants;
mod error;
mod fast;
mod follow;
mod header;
pub mod lines;
pub mod merge;
mod read;
mod rewrite;
pub mod sink;
pub mod tail;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
#[cfg(test)]
mod tests;
mod write;

pub use check::Moves;
pub use check::read_record;
pub use error::JournalError;
pub use follow::Follower;
pub use header::{FORMAT, Header, Joined};
pub(crate) use read::Item;
pub use read::open_first_line;
pub use read::{
    Contents, Ended, Ending, JournalReader, LineFault, LinesEnd, Span, Verified, parse_header, read, read_line_at,
    verify,
};
pub use rewrite::{Dropped, drop_games, keep_aside};
pub use tail::Growth;
pub use write::{Journal, lock};
