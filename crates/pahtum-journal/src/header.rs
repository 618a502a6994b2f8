//! The journal's first line: its format, the resolved tournament and the
//! tournament's hash (as the module documentation of [`crate`]
//! defines it), and for one shard's journal, the shard; and the line that says
//! which bots joined the tournament later ([`Joined`]).

use serde::{Deserialize, Serialize};

use pahtum_tournament::config::{BotConfig, Tournament, tournament_hash};
use pahtum_tournament::shard::Shard;

/// The value of the header's `journal` key for this format.
pub const FORMAT: &str = "pahtum-arena/journal/1";

/// The journal's first line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Header {
    /// The journal format, [`FORMAT`].
    pub journal: String,
    /// [`tournament_hash`] of `tournament`.
    pub hash: String,
    /// The resolved tournament the journal's games belong to.
    pub tournament: Tournament,
    /// The shard whose games the journal holds (`arena run --shard K/N`); absent for a journal of
    /// every game, and in journals written before shards were named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

impl Header {
    /// The header of a new journal of `tournament`, of every game.
    pub fn new(tournament: &Tournament) -> Header {
        Header {
            journal: FORMAT.to_owned(),
            hash: tournament_hash(tournament),
            tournament: tournament.clone(),
            shard: None,
        }
    }

    /// This header, naming `shard` (`None`: a journal of every game).
    pub fn of_shard(self, shard: Option<Shard>) -> Header {
        Header { shard, ..self }
    }
}

/// A line that says that bots joined the tournament after its journal was started: from it on, the
/// schedule has their games too ([`pahtum_tournament::schedule`]'s bots that join later).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Joined {
    /// The bots that joined, resolved as the header's bots are, in the order they join (after every bot
    /// of the header and of the earlier joins).
    pub joined: Vec<BotConfig>,
    /// When they joined, in milliseconds since the Unix epoch.
    pub unix_ms: u64,
    /// The games of the schedule with them: the new total.
    pub games: usize,
    /// [`tournament_hash`] of the tournament with them: the header's, with the bots of every join up to
    /// this one after its bots, in order.
    pub hash: String,
}
