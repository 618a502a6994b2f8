//! The lines of a league's journal, and the reading of one line alone.
//!
//! The journal is a JSON Lines file like a tournament's, written by the same
//! [`Journal`](pahtum_journal::Journal) (one whole line per write, group commit,
//! an exclusive lock), so the same crash rules hold: a torn last line is
//! dropped, blank lines are skipped. Its first line is a [`LeagueHeader`]
//! (the format, the resolved `league.toml` and its hash); then, in the order
//! things happened:
//!
//! * `{"entrant": {...}}`: an [`Entrant`] joins, numbered by its place among
//!   the entrant lines (0 for the first);
//! * `{"retired": {...}}`: an entrant plays no more ([`Retirement`]);
//! * `{"round": {...}}`: the layout pairs the league decided to play next
//!   ([`Round`]), so that a resumed run, or every shard of one, plays exactly
//!   the games decided;
//! * anything else is a game: a [`GameRecord`](pahtum_record::GameRecord) as
//!   a tournament journal holds it, with one more key, `entrants`, the
//!   content hashes of its two entrants by seat ([`GameLine`](pahtum_journal::entrants::GameLine)).
//!
//! [`parse`] reads one line alone (on any core): a game's record is read by
//! the tournament journal's reader ([`pahtum_journal::read_record`], its fast
//! path for the moves included, which reads the `entrants` on the way) and
//! replayed by the rules; what needs the lines before it is checked in file
//! order by [`super::state`].

use pahtum_record::GameRecord;
use serde::{Deserialize, Serialize};

use pahtum_journal::audit::Fault;
use pahtum_journal::entrants::entrants_of;
use pahtum_journal::{Moves, read_record};

use super::rules::League;

/// The value of the header's `journal` key for a league's journal.
pub const FORMAT: &str = "pahtum-arena/league/1";

/// The first line of a league's journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeagueHeader {
    /// [`FORMAT`].
    pub journal: String,
    /// [`League::hash`] of `league`.
    pub hash: String,
    /// The league's rules.
    pub league: League,
}

impl LeagueHeader {
    /// The header of a new journal of `league`.
    pub fn new(league: &League) -> LeagueHeader {
        LeagueHeader {
            journal: FORMAT.to_owned(),
            hash: league.hash(),
            league: league.clone(),
        }
    }
}

/// An entrant: one version of one bot, its files a snapshot in the league's folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entrant {
    /// The bot's name; the versions of one bot share it.
    pub name: String,
    /// The version, unique among the bot's.
    pub version: String,
    /// The content hash of its snapshot and command (`"sha256:"` and 64 hex digits).
    pub hash: String,
    /// Its command, run in its snapshot folder ([`Entrant::dir`]).
    pub command: Vec<String>,
    /// The build command that was run in the snapshot before it joined, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    /// When it joined, in milliseconds since the Unix epoch.
    pub joined_unix_ms: u64,
}

impl Entrant {
    /// Its name in records and tables: `NAME@VERSION`.
    pub fn label(&self) -> String {
        label(&self.name, &self.version)
    }

    /// Its snapshot folder, relative to the league's folder.
    pub fn dir(&self) -> String {
        format!("entrants/{}", self.label())
    }
}

/// The name of version `version` of bot `name` in records and tables.
pub fn label(name: &str, version: &str) -> String {
    format!("{name}@{version}")
}

/// An entrant retired: its games and rating stay, it plays no more.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Retirement {
    /// The entrant's label (`NAME@VERSION`).
    pub entrant: String,
    /// When, in milliseconds since the Unix epoch.
    pub unix_ms: u64,
}

/// The layout pairs decided for the league's next round, in the order the shards are dealt them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Round {
    /// 1 for the first round, then one more each round.
    pub number: u32,
    /// The layout pairs to play.
    pub pairs: Vec<LayoutPair>,
    /// A Swiss round's bye: the entrant (by number) left out of an odd field, scored as a won layout
    /// pair ([`crate::swiss`]); never in another league's rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bye: Option<u32>,
}

/// A round a league decided, before its number is given (the round line's content): its layout pairs and, in a Swiss, its bye.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decided {
    /// The layout pairs to play; none when the league needs no round.
    pub pairs: Vec<LayoutPair>,
    /// The entrant (by number) left out of an odd Swiss field.
    pub bye: Option<u32>,
}

impl Decided {
    /// The round of `pairs`, with no bye.
    pub fn pairs(pairs: Vec<LayoutPair>) -> Decided {
        Decided { pairs, bye: None }
    }

    /// Whether the league needs no round.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

/// Two entrants (by number, the lower first) and the layout round they play: `[a, b, k]` in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LayoutPair(pub u32, pub u32, pub u32);

impl LayoutPair {
    /// The layout key the pair's two games share.
    pub fn layout(self) -> String {
        format!("{:03}-{:03}-{:02}", self.0, self.1, self.2)
    }

    /// The id of its game with entrant `a` in the first seat (`seat` 0) or with `b` there (1).
    pub fn id(self, seat: usize) -> String {
        format!("{}-{}", self.layout(), if seat == 0 { "a" } else { "b" })
    }

    /// The layout pair and seat of the game `id`, if `id` is exactly the id of one (what [`LayoutPair::id`]
    /// writes: each number in decimal digits, zero-padded to its width, without a leading zero beyond it).
    pub fn of_id(id: &str) -> Option<(LayoutPair, usize)> {
        let mut parts = id.split('-');
        let mut number = |width: usize| {
            let digits = parts.next()?;
            let padded = digits.len() == width || (digits.len() > width && !digits.starts_with('0'));
            (padded && digits.bytes().all(|byte| byte.is_ascii_digit()))
                .then(|| digits.parse::<u32>().ok())
                .flatten()
        };
        let pair = LayoutPair(number(3)?, number(3)?, number(2)?);
        let seat = match parts.next()? {
            "a" => 0,
            "b" => 1,
            _ => return None,
        };
        parts.next().is_none().then_some((pair, seat))
    }
}

/// A line that is not a game, as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Event {
    /// An entrant joined.
    Entrant(Entrant),
    /// An entrant retired.
    Retired(Retirement),
    /// A retired entrant plays again (its author made it the active version again).
    Returned(Retirement),
    /// A round was decided.
    Round(Round),
    /// A recorded game counts for no one and is to be played again (the arena, not a bot, failed it).
    Voided(Voided),
}

/// A recorded game voided: its record counts for no one, and the game is pending again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Voided {
    /// The game's id.
    pub game: String,
    /// Why, in a sentence (the organiser's).
    pub why: String,
    /// When, in milliseconds since the Unix epoch.
    pub unix_ms: u64,
}

/// One line read alone.
#[derive(Debug)]
pub(crate) enum Parsed {
    /// A line that is not a game.
    Event(Event),
    /// A game, replayed by the rules, with its entrants' hashes by seat.
    Game {
        record: Box<GameRecord>,
        hashes: [String; 2],
    },
}

/// Whether the line `text` is an event (an entrant, a retirement, a return, a round, a void) rather than a
/// game: the key an event's object starts with.
pub(crate) fn is_event(text: &[u8]) -> bool {
    let start = text.iter().position(|byte| !byte.is_ascii_whitespace()).unwrap_or(0);
    [
        &br#"{"entrant":"#[..],
        br#"{"retired":"#,
        br#"{"returned":"#,
        br#"{"round":"#,
        br#"{"voided":"#,
    ]
    .iter()
    .any(|prefix| text[start..].starts_with(prefix))
}

/// Reads one line alone: an event, or a game whose moves (kept as `moves` says) replay by the rules.
pub(crate) fn parse(text: &[u8], moves: Moves) -> Result<Parsed, Fault> {
    if is_event(text) {
        return serde_json::from_slice(text)
            .map(Parsed::Event)
            .map_err(Fault::NotARecord);
    }
    let (record, entrants) = read_record(text, moves, |record, moves| {
        record
            .replay_moves(moves)
            .map(drop)
            .map_err(|source| Fault::DoesNotReplay {
                id: record.id.clone(),
                source,
            })
    })?;
    Ok(Parsed::Game {
        hashes: match entrants {
            Some(hashes) => hashes,
            None => entrants_of(text)?,
        },
        record: Box::new(record),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layout_pair_and_its_ids_go_both_ways() {
        let pair = LayoutPair(3, 12, 1);
        assert_eq!(pair.id(0), "003-012-01-a");
        assert_eq!(LayoutPair::of_id("003-012-01-b"), Some((pair, 1)));
        for id in ["3-12-1-a", "003-012-01-c", "003-012-01-a-a", "003-012-a", "000-00-a"] {
            assert_eq!(LayoutPair::of_id(id), None, "{id}");
        }
    }

    /// An id is a layout pair's exactly when the pair writes it back the same: every way a number can be
    /// written otherwise (signs, spaces, other padding, too large) is none.
    #[test]
    fn an_id_is_a_layout_pairs_exactly_when_it_writes_back_the_same() {
        let numbers = [
            "",
            "0",
            "7",
            "00",
            "07",
            "70",
            "000",
            "007",
            "070",
            "700",
            "0007",
            "1000",
            "01000",
            "+07",
            "+007",
            " 07",
            "7 ",
            "-1",
            "0x7",
            "٣",
            "4294967295",
            "4294967296",
            "04294967295",
            "99999999999",
        ];
        let mut ids = 0;
        for a in numbers {
            for b in ["001", "012", "1234", "01234", "12", "+12", "0012"] {
                for k in numbers {
                    for seat in ["a", "b", "c", "", "a-a"] {
                        let id = format!("{a}-{b}-{k}-{seat}");
                        let expected = (|| {
                            let mut parts = id.split('-');
                            let mut number = || parts.next()?.parse::<u32>().ok();
                            let pair = LayoutPair(number()?, number()?, number()?);
                            let seat = match parts.next()? {
                                "a" => 0,
                                "b" => 1,
                                _ => return None,
                            };
                            (parts.next().is_none() && pair.id(seat) == id).then_some((pair, seat))
                        })();
                        assert_eq!(LayoutPair::of_id(&id), expected, "{id}");
                        ids += usize::from(expected.is_some());
                    }
                }
            }
        }
        assert!(ids > 100, "{ids}");
    }

    #[test]
    fn an_event_line_is_read_as_written() {
        let event = Event::Retired(Retirement {
            entrant: "x@1".to_owned(),
            unix_ms: 5,
        });
        let line = serde_json::to_vec(&event).unwrap();
        assert_eq!(line, br#"{"retired":{"entrant":"x@1","unix_ms":5}}"#);
        assert!(matches!(parse(&line, Moves::Drop), Ok(Parsed::Event(read)) if read == event));
        let edited = br#"{"retired":{"entrant":"x@1","unix_ms":5,"by":"me"}}"#;
        assert!(matches!(parse(edited, Moves::Drop), Err(Fault::NotARecord(_))));
    }
}
