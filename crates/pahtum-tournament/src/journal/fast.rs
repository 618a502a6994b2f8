//! A record's moves read by hand when they are as the arena writes them; the rest of the record by serde.
//!
//! The moves are most of a record's bytes (a stone is about 70 bytes of
//! JSON: its seat, colour and cell, and the timings that standings skip), and
//! serde spends some 1,800 instructions on each, going through its visitors
//! for every key and value: two thirds of the time of reading a journal.
//! [`split`] walks the record's top-level object itself, reads the `moves`
//! member by hand when it is exactly in the form `serde_json` writes for
//! [`pahtum_record::MoveRecord`]s (no spaces, the keys in the struct's order,
//! the words and cells the rules know, numbers for the timings), and gives the
//! other members, byte for byte, to serde, which checks them as it always
//! does. Anything else (a journal edited by hand, a key it does not know, a
//! bot's `info`, an escape in a key) is left whole to serde: the caller reads
//! the line as before. So what a line means, and whether it is a record, never
//! depends on which of the two read it: the hand reader accepts only JSON that
//! is valid (every byte it does not give serde, it checks against the JSON
//! grammar itself) and reads it as serde would.

use pahtum::{Cell, Color, Seat};
use pahtum_record::{BareMove, MoveKind};

/// The record `line` as a JSON object without its `moves` member, and the moves read by hand (without their
/// timings); `None` when the line is not in the form this reads, for serde to read whole.
pub(super) fn split(line: &[u8]) -> Option<(Vec<u8>, Vec<BareMove>)> {
    let mut text = Cursor { json: line, at: 0 };
    let mut rest = Vec::with_capacity(1024);
    let mut moves = None;
    text.whitespace();
    text.eat_byte(b'{')?;
    rest.push(b'{');
    loop {
        text.whitespace();
        let key = text.at;
        text.plain_string()?;
        let key = &line[key..text.at];
        text.whitespace();
        text.eat_byte(b':')?;
        text.whitespace();
        if key == b"\"moves\"" {
            if moves.is_some() {
                return None;
            }
            moves = Some(text.moves()?);
        } else {
            let value = text.at;
            text.skip_value()?;
            rest.extend_from_slice(key);
            rest.push(b':');
            rest.extend_from_slice(&line[value..text.at]);
            rest.push(b',');
        }
        text.whitespace();
        if text.eat_byte(b',').is_none() {
            text.eat_byte(b'}')?;
            break;
        }
    }
    text.whitespace();
    if text.at != line.len() {
        return None;
    }
    // Serde reads the moves' place as empty: the record's fields stay required as they are.
    rest.extend_from_slice(b"\"moves\":[]}");
    Some((rest, moves?))
}

/// A place in JSON text.
struct Cursor<'a> {
    json: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    /// Steps over `expected` if the text goes on with it.
    fn eat(&mut self, expected: &[u8]) -> Option<()> {
        let next = self.json.get(self.at..self.at + expected.len())?;
        (next == expected).then(|| self.at += expected.len())
    }

    /// Steps over the byte `expected` if the text goes on with it.
    fn eat_byte(&mut self, expected: u8) -> Option<()> {
        (self.json.get(self.at) == Some(&expected)).then(|| self.at += 1)
    }

    /// Steps over JSON whitespace.
    fn whitespace(&mut self) {
        while matches!(self.json.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// A string without escapes (its quotes stepped over): its bytes. Serde checks the bytes of what it
    /// is given; only keys and the moves' words come here, and both are compared with known words.
    fn plain_string(&mut self) -> Option<&'a [u8]> {
        self.eat_byte(b'"')?;
        let start = self.at;
        // Keys and words are short: a loop beats a vectorized search.
        loop {
            match *self.json.get(self.at)? {
                b'"' => break,
                b'\\' => return None,
                _ => self.at += 1,
            }
        }
        self.at += 1;
        Some(&self.json[start..self.at - 1])
    }

    /// Steps over one JSON value for serde to check: a string (escapes and all), an object or an array
    /// (nested ones too), or anything else up to the next `,`, `}`, `]` or whitespace. Exact for
    /// valid JSON; serde refuses what is not.
    fn skip_value(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            match *self.json.get(self.at)? {
                b'"' => self.skip_string()?,
                b'{' | b'[' => {
                    depth += 1;
                    self.at += 1;
                    continue;
                }
                b'}' | b']' if depth > 0 => {
                    depth -= 1;
                    self.at += 1;
                }
                b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => return Some(()),
                _ => {
                    self.at += 1;
                    continue;
                }
            }
            if depth == 0 {
                return Some(());
            }
        }
    }

    /// Steps over a string, escapes and all.
    fn skip_string(&mut self) -> Option<()> {
        self.eat_byte(b'"')?;
        loop {
            self.at += memchr::memchr2(b'"', b'\\', &self.json[self.at..])?;
            if self.eat_byte(b'"').is_some() {
                return Some(());
            }
            self.at += 2;
        }
    }

    /// Steps over a number, checking it against the JSON grammar: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`.
    fn number(&mut self) -> Option<()> {
        let _ = self.eat_byte(b'-');
        if self.eat_byte(b'0').is_none() {
            self.digits(b'1'..=b'9')?;
        }
        if self.eat_byte(b'.').is_some() {
            self.digits(b'0'..=b'9')?;
        }
        if self.eat_byte(b'e').or_else(|| self.eat_byte(b'E')).is_some() {
            let _ = self.eat_byte(b'+').or_else(|| self.eat_byte(b'-'));
            self.digits(b'0'..=b'9')?;
        }
        Some(())
    }

    /// Steps over a digit of `first`, then any digits.
    fn digits(&mut self, first: std::ops::RangeInclusive<u8>) -> Option<()> {
        if !first.contains(self.json.get(self.at)?) {
            return None;
        }
        self.at += 1;
        while self.json.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        Some(())
    }

    /// The moves array, every move as [`Cursor::bare_move`] reads it.
    fn moves(&mut self) -> Option<Vec<BareMove>> {
        let mut moves = Vec::with_capacity(pahtum::CELLS);
        self.eat_byte(b'[')?;
        if self.eat_byte(b']').is_some() {
            return Some(moves);
        }
        loop {
            moves.push(self.bare_move()?);
            if self.eat_byte(b',').is_none() {
                self.eat_byte(b']')?;
                return Some(moves);
            }
        }
    }

    /// The value of a string that must be one of `words`, each with what it means.
    fn word<T: Copy>(&mut self, words: &[(&[u8], T)]) -> Option<T> {
        let text = self.plain_string()?;
        words.iter().find(|(word, _)| *word == text).map(|&(_, value)| value)
    }

    /// An optional member `key` followed by a comma, whose value is one of `words`: `Some(None)` if
    /// the member is absent, `None` if it is present but not as expected.
    fn leading_member<T: Copy>(&mut self, key: &[u8], words: &[(&[u8], T)]) -> Option<Option<T>> {
        if self.eat(key).is_none() {
            return Some(None);
        }
        let value = self.word(words)?;
        self.eat_byte(b',')?;
        Some(Some(value))
    }

    /// One move as a [`pahtum_record::MoveRecord`] serializes: `kind` (only for a block), `seat`,
    /// `color`, `cell`, then its timing's `ms` and `cpu_ms` (each where present), in that order.
    fn bare_move(&mut self) -> Option<BareMove> {
        self.eat_byte(b'{')?;
        let kind = self
            .leading_member(
                b"\"kind\":",
                &[(b"block", MoveKind::Block), (b"stone", MoveKind::Stone)],
            )?
            .unwrap_or(MoveKind::Stone);
        let seat = self.leading_member(b"\"seat\":", &[(b"first", Seat::First), (b"second", Seat::Second)])?;
        self.eat(b"\"color\":")?;
        let color = self.word(&[(b"white", Color::White), (b"black", Color::Black)])?;
        self.eat(b",\"cell\":")?;
        let cell: Cell = std::str::from_utf8(self.plain_string()?).ok()?.parse().ok()?;
        for key in [&b",\"ms\":"[..], b",\"cpu_ms\":"] {
            if self.eat(key).is_some() {
                self.number()?;
            }
        }
        self.eat_byte(b'}')?;
        Some(BareMove {
            kind,
            seat,
            color,
            cell,
        })
    }
}

#[cfg(test)]
mod tests {
    use pahtum_record::GameRecord;

    use super::*;
    use crate::journal::check::WithoutMoves;
    use crate::testing::{played, synthetic_journal};

    /// What serde reads of `line`, whole.
    fn by_serde(line: &[u8]) -> Option<(GameRecord, Vec<BareMove>)> {
        serde_json::from_slice::<WithoutMoves>(line)
            .ok()
            .map(WithoutMoves::split)
    }

    /// What the hand reader and serde read of `line` together, if the hand reader takes it.
    fn by_hand(line: &[u8]) -> Option<(GameRecord, Vec<BareMove>)> {
        let (rest, moves) = split(line)?;
        let (record, none) = serde_json::from_slice::<WithoutMoves>(&rest).ok()?.split();
        assert!(none.is_empty());
        Some((record, moves))
    }

    #[test]
    fn records_as_the_arena_writes_them_are_read_by_hand_as_serde_reads_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        synthetic_journal(&path, 300);
        let text = std::fs::read(&path).unwrap();
        let mut lines: Vec<Vec<u8>> = text.split(|&b| b == b'\n').skip(1).map(<[u8]>::to_vec).collect();
        lines.retain(|line| !line.is_empty());
        for id in ["000-00-a", "001-00-b", "002-00-a"] {
            let mut record = played(id);
            record.moves[0].kind = MoveKind::Block;
            record.moves[1].seat = None;
            record.moves[2].timing.cpu_ms = Some(-1.5e-7);
            lines.push(serde_json::to_vec(&record).unwrap());
        }
        for line in &lines {
            let hand = by_hand(line);
            assert!(hand.is_some(), "{}", String::from_utf8_lossy(line));
            assert_eq!(hand, by_serde(line), "{}", String::from_utf8_lossy(line));
        }
    }

    /// Whatever the line, the hand reader either leaves it to serde or reads what serde reads: edits of a
    /// record, valid JSON or not.
    #[test]
    fn any_other_line_is_left_to_serde_or_read_as_serde_reads_it() {
        let line = String::from_utf8(serde_json::to_vec(&played("000-00-a")).unwrap()).unwrap();
        let first_move = line.find("{\"seat\"").unwrap();
        let edits: Vec<String> = [
            (r#""moves":["#, r#""moves" : [ "#),
            (r#""moves":["#, r#""mov\u0065s":["#),
            (r#""id":"#, r#""moves":[],"id":"#),
            (r#""id":"#, r#""id":"x","id":"#),
            (r#","ms":0.0"#, r#","ms":01"#),
            (r#","ms":0.0"#, r#","ms":1."#),
            (r#","ms":0.0"#, r#","ms":-"#),
            (r#","ms":0.0"#, r#","ms":1e"#),
            (r#","ms":0.0"#, r#","ms":"slow""#),
            (r#","ms":0.0"#, r#","ms":1,"info":{"depth":3}"#),
            (r#","ms":0.0"#, r#","ms":2.5E+3,"cpu_ms":-0"#),
            (r#""color":"white""#, r#""color":"whit\u0065""#),
            (r#""color":"white""#, r#""color":"grey""#),
            (r#""seat":"first","#, ""),
            (r#""seat":"first","#, r#""kind":"stone","seat":"first","#),
            (r#""seat":"first","#, r#""kind":"pass","seat":"first","#),
            (r#""cell":""#, r#""cell":"z"#),
            (r#""swap":"#, r#""swap" :"#),
            (r#""swap":"#, r#""extra":{"a":[1,{"b":"}]\""}],"c":null},"swap":"#),
            (r#""swap":"#, r#""extra":tru,"swap":"#),
            (r#""swap":"#, r#""extra":[1,,2],"swap":"#),
            (r#""swap":"#, r#""extra":"\"moves\":[]","swap":"#),
            ("{", " {"),
            ("{", "{,"),
        ]
        .iter()
        .map(|(from, to)| line.replacen(from, to, 1))
        .chain([
            format!("{line} "),
            format!("{line},"),
            format!("{line}}}"),
            line[..line.len() - 1].to_owned(),
            line.replace(r#""id":"000-00-a","#, ""),
            format!("{}]{}", &line[..first_move], &line[first_move..]),
        ])
        .collect();
        for edited in &edits {
            assert_ne!(edited, &line);
            let hand = by_hand(edited.as_bytes());
            assert!(
                hand.is_none() || hand == by_serde(edited.as_bytes()),
                "read otherwise than serde: {edited}"
            );
        }
    }
}
