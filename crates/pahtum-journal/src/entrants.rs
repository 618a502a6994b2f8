//! The line of a game that names its entrants: a league writes each game as its record with the content
//! hashes of the two entrants that played it ([`GameLine`]). The journal's hand reader reads them where
//! the arena writes them (the line's last key), and [`entrants_of`] finds them anywhere else, so a
//! league's journal is read by the same reader as a tournament's.

use pahtum_record::GameRecord;
use serde::{Deserialize, Serialize};

use crate::audit::Fault;

/// A game's line as written: its record, and its entrants' content hashes by seat.
#[derive(Debug, Serialize)]
pub struct GameLine<'a> {
    /// The record.
    #[serde(flatten)]
    pub record: &'a GameRecord,
    /// The content hashes of the entrants in the first and the second seat.
    pub entrants: [&'a str; 2],
}

/// The `entrants` of a game's line where the record's reader did not read them: the last key as the arena
/// writes it, found from the end (a bot's text comes before it); anywhere else, serde finds it.
pub fn entrants_of(text: &[u8]) -> Result<[String; 2], Fault> {
    #[derive(Deserialize)]
    struct Entrants {
        entrants: [String; 2],
    }
    const KEY: &[u8] = br#""entrants":"#;
    if let Some(at) = memchr::memmem::rfind(text, KEY) {
        let mut values = serde_json::Deserializer::from_slice(&text[at + KEY.len()..]).into_iter::<[String; 2]>();
        if let Some(Ok(hashes)) = values.next() {
            if text[at + KEY.len() + values.byte_offset()..].trim_ascii() == b"}" {
                return Ok(hashes);
            }
        }
    }
    serde_json::from_slice::<Entrants>(text)
        .map(|line| line.entrants)
        .map_err(Fault::NotARecord)
}
