//! A league: a field of bots that grows for weeks, played as it needs.
//!
//! The crate holds the league's rules (`league.toml`), its journal's lines and their reading, its state
//! (entrants, retirements, rounds), the pairing rule, the table and the rating history, the follower of
//! its journal as it grows ([`follow`]), the staging of an entrant's folder, and the merge of a sharded
//! round's journals.
//!
//! Where a tournament is a fixed field played once, a league's entrants
//! arrive one by one (new bots, new versions of old ones), may retire, and
//! play only the games the league needs now: the entrants whose rating
//! interval is still wider than the target meet the opponents that tell the
//! most ([`pairing`]), a round at a time. Nothing is played twice: a pair of
//! entrants plays at most the layout rounds the rules allow, and an entrant
//! that joins later plays only its own games.
//!
//! The data is a tournament's, reused: the rules ([`rules`], `league.toml`)
//! are read by the tournament file's code and lay out the games by the
//! tournament's schedule; the journal ([`lines`]) is written by the
//! tournament's [`Journal`](pahtum_journal::Journal), read by its line reader
//! on every core and checked line by line ([`state`], [`read`]: the
//! tournament's record check, plus the league's own: entrants, retirements,
//! rounds, content hashes); the table ([`table`]) is the tournament's tallies
//! and joint rating fit. A league's journal is read by
//! `pahtum_report::fold::fold_journal` like a tournament's, so `arena standings`,
//! `arena report` and `arena serve` show a league as a run; `arena verify`
//! lists every faulty line of it ([`audit::verify`]), and decides each round
//! of a final again by its rule.
//!
//! A final is a league whose rules carry its own pairing rule
//! ([`separation`]): it plays until its prize places are apart. A round played
//! in shards (on a cluster) comes back through [`take`], which checks and
//! appends only what each shard added.
//!
//! An entrant's folder is a stranger's upload: [`folder`] stages it, and a
//! private module, `snapshot`, walks it through file descriptors (regular
//! files and folders only, within the league's caps), copies it and hashes
//! it.
//!
//! What the league decides from its state alone (an entrant's next version,
//! whom a retirement names, the next round by the pairing rule) is
//! [`decide`]; the commands that change or show a league's folder without
//! playing (`init`, `retire`, the table, the merge of shards' folders) are
//! [`service`]. Building and checking an entrant before it joins, and playing
//! the games, are `pahtum-runner`'s work; this crate has no processes.

pub mod audit;
pub mod decide;
pub mod folder;
pub mod follow;
pub mod history;
pub mod knockout;
pub mod lines;
pub mod merge;
pub mod pairing;
pub mod read;
pub mod rules;
pub mod separation;
pub mod service;
mod snapshot;
pub mod state;
pub mod swiss;
pub mod table;
pub mod take;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
#[cfg(test)]
mod tests;
mod voids;

pub use audit::{LineFault, Verified, verify};
pub use lines::{Decided, Entrant, Event, FORMAT, LayoutPair, LeagueHeader, Retirement, Round, Voided};
pub use read::{LeagueError, Read, is_league_journal, read};
pub use rules::{LEAGUE_FILE, League};
pub use state::{LeagueFault, LeagueState, PendingGame};
