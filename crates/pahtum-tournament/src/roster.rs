//! The bots of a tournament by index, for the tables that count per bot.
//!
//! The standings and the strength both count games into per-bot arrays; this roster gives them the same
//! indices: the bot list first (so that a bot without a game still has a row), then any name found only in
//! the records, in the order met.

use std::collections::HashMap;

/// The bots by index: the bot list first, then names found only in records.
#[derive(Debug)]
pub(crate) struct Roster {
    /// The names by index.
    pub(crate) names: Vec<String>,
    pub(crate) index: HashMap<String, usize>,
}

impl Roster {
    pub(crate) fn new(bots: &[String]) -> Roster {
        let mut roster = Roster {
            names: Vec::new(),
            index: HashMap::new(),
        };
        for bot in bots {
            roster.slot(bot);
        }
        roster
    }

    /// The index of `name`, added at the end if it is new.
    pub(crate) fn slot(&mut self, name: &str) -> usize {
        if let Some(&index) = self.index.get(name) {
            return index;
        }
        self.names.push(name.to_owned());
        self.index.insert(name.to_owned(), self.names.len() - 1);
        self.names.len() - 1
    }
}
