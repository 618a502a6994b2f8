//! Whether a bot's program changed since its games in the journal: what it says in its `hello` now,
//! against what it said in its most recent record.
//!
//! A tournament file names a bot's command, not its program: a bot rebuilt or replaced between two
//! runs of the same file resumes the journal (or re-runs a finished one) as if nothing had changed,
//! and the standings mix two programs under one name. The records keep each seat's `hello` (name,
//! version, author); [`HelloCheck`] sees the journal's records stream by as it is opened
//! ([`Event::Resumed`]) and keeps, per bot, its last greeting and two counts, so that its memory
//! grows with the bots, not the games. Records from before the greetings were kept have none, and
//! never make a change.

use std::collections::BTreeMap;

use pahtum::Seat;
use pahtum_protocol::bot::Identity;
use pahtum_record::GameRecord;

use crate::events::{Event, Observer};

/// The greetings of a journal's records against the bots' greetings now.
#[derive(Debug, Clone, Default)]
pub struct HelloCheck {
    /// What each bot says now (a bot that could not be asked is not here).
    now: BTreeMap<String, Identity>,
    /// What the records say, per bot asked.
    seen: BTreeMap<String, Seen>,
}

/// What the records of one bot say.
#[derive(Debug, Clone, Default)]
struct Seen {
    /// Its greeting in its most recent record that has one.
    last: Option<Identity>,
    /// Its records.
    games: usize,
    /// Its records with a greeting other than the one now.
    other: usize,
}

/// A bot whose greeting changed since its most recent record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelloChange {
    /// The bot's name in the tournament.
    pub bot: String,
    /// Its greeting in its most recent record that has one.
    pub was: Identity,
    /// Its greeting now.
    pub now: Identity,
    /// Its records in the journal.
    pub games: usize,
    /// Those whose greeting is not the one now: played by another program.
    pub other: usize,
}

impl HelloCheck {
    /// A check against what each bot says `now` (name in the tournament, greeting).
    pub fn new(now: impl IntoIterator<Item = (String, Identity)>) -> HelloCheck {
        HelloCheck {
            now: now.into_iter().collect(),
            seen: BTreeMap::new(),
        }
    }

    /// Counts one record, which comes after every record counted before it.
    pub fn count(&mut self, record: &GameRecord) {
        for seat in [Seat::First, Seat::Second] {
            let bot = record.players.of(seat);
            let Some(now) = self.now.get(bot) else {
                continue;
            };
            let seen = self.seen.entry(bot.to_owned()).or_default();
            seen.games += 1;
            if let Some(hello) = record.hello.as_ref().and_then(|hellos| hellos.of(seat)) {
                seen.other += usize::from(hello != now);
                if seen.last.as_ref() != Some(hello) {
                    seen.last = Some(hello.clone());
                }
            }
        }
    }

    /// The bots whose most recent greeting in the records is not the one now, by name.
    pub fn changes(&self) -> Vec<HelloChange> {
        self.seen
            .iter()
            .filter_map(|(bot, seen)| {
                let now = &self.now[bot];
                let was = seen.last.as_ref().filter(|&was| was != now)?;
                Some(HelloChange {
                    bot: bot.clone(),
                    was: was.clone(),
                    now: now.clone(),
                    games: seen.games,
                    other: seen.other,
                })
            })
            .collect()
    }
}

impl Observer for HelloCheck {
    fn on(&mut self, event: Event<'_>) {
        if let Event::Resumed { record, .. } = event {
            self.count(record);
        }
    }
}

#[cfg(test)]
mod tests {
    use pahtum_record::Hellos;

    use super::*;
    use pahtum_tournament::testing::record;

    fn hello(name: &str, version: Option<&str>) -> Identity {
        Identity {
            name: name.to_owned(),
            version: version.map(str::to_owned),
            author: None,
        }
    }

    fn greeted(id: &str, first: (&str, &Identity), second: (&str, &Identity)) -> GameRecord {
        GameRecord {
            hello: Some(Hellos {
                first: Some(first.1.clone()),
                second: Some(second.1.clone()),
            }),
            ..record(id, first.0, second.0)
        }
    }

    #[test]
    fn a_bot_whose_last_greeting_differs_is_a_change_with_its_games_counted() {
        let (v1, v2, other) = (hello("py", Some("1")), hello("py", Some("2")), hello("x", None));
        let mut check = HelloCheck::new([("a".to_owned(), v2.clone()), ("b".to_owned(), other.clone())]);
        check.count(&greeted("000-00-a", ("a", &v1), ("b", &other)));
        // A record from before the greetings were kept counts as a game, not as another program.
        check.count(&record("000-00-b", "b", "a"));
        check.count(&greeted("000-01-a", ("b", &other), ("a", &v1)));
        assert_eq!(
            check.changes(),
            [HelloChange {
                bot: "a".to_owned(),
                was: v1.clone(),
                now: v2.clone(),
                games: 3,
                other: 2,
            }]
        );
        // Its most recent greeting is the one now: no change, though older records differ.
        check.count(&greeted("000-01-b", ("a", &v2), ("b", &other)));
        assert_eq!(check.changes(), []);
    }

    #[test]
    fn records_without_greetings_and_bots_not_asked_never_make_a_change() {
        let mut check = HelloCheck::new([("a".to_owned(), hello("py", Some("2")))]);
        check.count(&record("000-00-a", "a", "b"));
        check.count(&greeted(
            "000-00-b",
            ("b", &hello("old", None)),
            ("a", &hello("py", Some("2"))),
        ));
        assert_eq!(check.changes(), []);
    }
}
