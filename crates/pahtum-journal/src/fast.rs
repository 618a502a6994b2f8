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
//! other members to serde, which checks them as it always does: the line
//! itself, with the values it read emptied in place. It reads two more
//! members when they are as the arena writes them: the `blocks` (cells, which
//! serde would read one by one through its visitors) and a league game's
//! `entrants` (two hashes, which the league would otherwise look for in the
//! line again), so that a line is read once. Anything else (a journal edited
//! by hand, a key it does not know, a bot's `info`, an escape in a key) is
//! left whole to serde: the caller reads the line as before. So what a line
//! means, and whether it is a record, never depends on which of the two read
//! it: the hand reader accepts only JSON that is valid (every byte it does not
//! give serde, it checks against the JSON grammar itself) and reads it as
//! serde would.

use pahtum::{Cell, Color, Seat};
use pahtum_record::{BareMove, MoveKind};

/// A record's line as the hand reader splits it.
#[derive(Debug)]
pub(super) struct Split {
    /// The line for serde: the values of the members read by hand made empty (`[]` for the moves and the
    /// blocks, so that the record's fields stay required as they are; `0` for `entrants`, a key the record
    /// does not know, which serde steps over); every other byte as it is.
    pub rest: Vec<u8>,
    /// The moves, read by hand, without their timings.
    pub moves: Vec<BareMove>,
    /// The blocks, where read by hand (an array of cells as the arena writes them); else serde reads them.
    pub blocks: Option<Vec<Cell>>,
    /// The value of the line's `entrants` member (a league's game), where it is as the arena writes it:
    /// `["…","…"]`, strings without escapes or control characters, in UTF-8.
    pub entrants: Option<[String; 2]>,
}

/// The record `line` split for serde and the hand reader ([`Split`]); `None` when the line is not in the
/// form this reads, for serde to read whole.
pub(super) fn split(line: &[u8]) -> Option<Split> {
    let mut text = Cursor { json: line, at: 0 };
    let (mut moves, mut blocks, mut entrants) = (None, None, None);
    // The spans of the values read by hand, in the line's order, with what serde is given instead.
    let mut read: [(std::ops::Range<usize>, &[u8]); 3] = Default::default();
    let mut spans = 0;
    let mut seen = [false; 3];
    text.whitespace();
    text.eat_byte(b'{')?;
    loop {
        text.whitespace();
        let key = text.plain_string()?;
        text.whitespace();
        text.eat_byte(b':')?;
        text.whitespace();
        let value = text.at;
        let by_hand = match key {
            b"moves" => 0,
            b"blocks" => 1,
            b"entrants" => 2,
            _ => 3,
        };
        // A key twice, and serde refuses the line: it reads it whole, and names the fault.
        if by_hand < 3 && std::mem::replace(&mut seen[by_hand], true) {
            return None;
        }
        let instead: &[u8] = match by_hand {
            0 => {
                moves = Some(text.array(Cursor::bare_move)?);
                b"[]"
            }
            1 => text.array(Cursor::cell).map_or(b"", |cells| {
                blocks = Some(cells);
                b"[]"
            }),
            2 => text.entrants().map_or(b"", |hashes| {
                entrants = Some(hashes);
                b"0"
            }),
            _ => b"",
        };
        if instead.is_empty() {
            // For serde, byte for byte.
            text.at = value;
            text.skip_value()?;
        } else {
            read[spans] = (value..text.at, instead);
            spans += 1;
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
    // Of its exact length: a buffer of a whole line would be a large allocation, which costs more.
    let length = read[..spans].iter().fold(line.len(), |length, (span, instead)| {
        length - span.len() + instead.len()
    });
    let mut rest = Vec::with_capacity(length);
    let mut copied = 0;
    for (span, instead) in &read[..spans] {
        rest.extend_from_slice(&line[copied..span.start]);
        rest.extend_from_slice(instead);
        copied = span.end;
    }
    rest.extend_from_slice(&line[copied..]);
    Some(Split {
        rest,
        moves: moves?,
        blocks,
        entrants,
    })
}

/// A place in JSON text.
struct Cursor<'a> {
    json: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    /// Steps over `expected` if the text goes on with it (of a length known when compiled, compared in place).
    #[inline]
    fn eat<const N: usize>(&mut self, expected: &[u8; N]) -> Option<()> {
        let next = self.json.get(self.at..self.at + N)?;
        (next == expected).then(|| self.at += N)
    }

    /// Steps over the byte `expected` if the text goes on with it.
    #[inline]
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

    /// A string without escapes or control characters (its quotes stepped over), in UTF-8: its text, as
    /// serde reads it.
    fn text(&mut self) -> Option<&'a str> {
        self.eat_byte(b'"')?;
        let start = self.at;
        let length = self.json[start..]
            .iter()
            .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)?;
        self.at += length;
        self.eat_byte(b'"')?;
        std::str::from_utf8(&self.json[start..start + length]).ok()
    }

    /// The value of `entrants` as the arena writes it: an array of two [`text`](Self::text)s, without spaces.
    fn entrants(&mut self) -> Option<[String; 2]> {
        self.eat_byte(b'[')?;
        let first = self.text()?;
        self.eat_byte(b',')?;
        let second = self.text()?;
        self.eat_byte(b']')?;
        Some([first, second].map(str::to_owned))
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
        // Most are short (ids, names, words): a loop beats a vectorized search.
        loop {
            match *self.json.get(self.at)? {
                b'"' => break,
                b'\\' => self.at += 2,
                _ => self.at += 1,
            }
        }
        self.at += 1;
        Some(())
    }

    /// Steps over a number, checking it against the JSON grammar: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`.
    #[inline(always)]
    fn number(&mut self) -> Option<()> {
        // Two numbers a move, the hottest loop here: on the text from here, every index checked once.
        let text = &self.json[self.at..];
        let mut at = usize::from(text.first() == Some(&b'-'));
        at = match text.get(at)? {
            b'0' => at + 1,
            b'1'..=b'9' => digits(text, at + 1),
            _ => return None,
        };
        if text.get(at) == Some(&b'.') {
            let end = digits(text, at + 1);
            (end > at + 1).then_some(())?;
            at = end;
        }
        if let Some(b'e' | b'E') = text.get(at) {
            at += 1;
            at += usize::from(matches!(text.get(at), Some(b'+' | b'-')));
            let end = digits(text, at);
            (end > at).then_some(())?;
            at = end;
        }
        self.at += at;
        Some(())
    }

    /// An array without spaces, every item as `item` reads it.
    #[inline]
    fn array<T>(&mut self, mut item: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let mut items = Vec::with_capacity(pahtum::CELLS);
        self.eat_byte(b'[')?;
        if self.eat_byte(b']').is_some() {
            return Some(items);
        }
        loop {
            items.push(item(self)?);
            if self.eat_byte(b',').is_none() {
                self.eat_byte(b']')?;
                return Some(items);
            }
        }
    }

    /// A cell as `Cell::from_str` reads it: a string of a column `a`-`g`, then a row `1`-`7`.
    #[inline]
    fn cell(&mut self) -> Option<Cell> {
        let cell = match *self.json.get(self.at..self.at + 4)? {
            [b'"', column @ b'a'..=b'g', row @ b'1'..=b'7', b'"'] => {
                Cell::at(usize::from(column - b'a'), usize::from(row - b'1'))?
            }
            _ => return None,
        };
        self.at += 4;
        Some(cell)
    }

    /// One move as a [`pahtum_record::MoveRecord`] serializes: `kind` (only for a block), `seat`,
    /// `color`, `cell`, then its timing's `ms` and `cpu_ms` (each where present), in that order. Each
    /// key is compared with its quotes, colon and the quote of its value at once.
    #[inline]
    fn bare_move(&mut self) -> Option<BareMove> {
        self.eat_byte(b'{')?;
        let mut kind = MoveKind::Stone;
        if self.eat(b"\"kind\":\"").is_some() {
            kind = if self.eat(b"block\",").is_some() {
                MoveKind::Block
            } else {
                self.eat(b"stone\",")?;
                MoveKind::Stone
            };
        }
        let mut seat = None;
        if self.eat(b"\"seat\":\"").is_some() {
            seat = Some(if self.eat(b"first\",").is_some() {
                Seat::First
            } else {
                self.eat(b"second\",")?;
                Seat::Second
            });
        }
        self.eat(b"\"color\":\"")?;
        let color = if self.eat(b"white\",\"cell\":").is_some() {
            Color::White
        } else {
            self.eat(b"black\",\"cell\":")?;
            Color::Black
        };
        let cell = self.cell()?;
        if self.eat(b",\"ms\":").is_some() {
            self.number()?;
        }
        if self.eat(b",\"cpu_ms\":").is_some() {
            self.number()?;
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

/// The index in `text` past the ASCII digits from `at` on.
#[inline(always)]
fn digits(text: &[u8], mut at: usize) -> usize {
    while text.get(at).is_some_and(u8::is_ascii_digit) {
        at += 1;
    }
    at
}

#[cfg(test)]
#[path = "fast_props.rs"]
mod props;

#[cfg(test)]
mod tests {
    use pahtum_record::GameRecord;
    use serde::Deserialize;

    use super::*;
    use crate::check::{WithoutMoves, split_record};
    use crate::entrants::{GameLine, entrants_of};
    use crate::testing::synthetic_journal;
    use pahtum_tournament::testing::played;

    /// A line's record, its moves and its `entrants` (if read).
    pub(super) type Read = (GameRecord, Vec<BareMove>, Option<[String; 2]>);

    /// What serde reads of `line`, whole: the record, and the `entrants` of the line's object if it has them
    /// as two strings (as a league reads them).
    pub(super) fn by_serde(line: &[u8]) -> Option<Read> {
        #[derive(Deserialize)]
        struct Entrants {
            entrants: [String; 2],
        }
        let (record, moves) = serde_json::from_slice::<WithoutMoves>(line).ok()?.split();
        let entrants = serde_json::from_slice::<Entrants>(line).ok().map(|line| line.entrants);
        Some((record, moves, entrants))
    }

    /// What the hand reader and serde read of `line` together, if the hand reader takes it.
    pub(super) fn by_hand(line: &[u8]) -> Option<Read> {
        split_record(split(line)?)
    }

    /// Whether the hand reader leaves `line` to serde or reads it as serde does: the same record and moves,
    /// and the same `entrants` where it reads them, which are those a league finds without it.
    pub(super) fn agrees(line: &[u8]) -> bool {
        match (by_hand(line), by_serde(line)) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some((record, moves, entrants)), Some((by_serde, moves_by_serde, entrants_by_serde))) => {
                record == by_serde
                    && moves == moves_by_serde
                    && entrants.is_none_or(|read| {
                        Some(&read) == entrants_by_serde.as_ref() && entrants_of(line).is_ok_and(|found| found == read)
                    })
            }
        }
    }

    /// The non-blank lines after the header of the journal `write` writes.
    fn journal_lines(write: impl FnOnce(&std::path::Path)) -> Vec<Vec<u8>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        write(&path);
        let text = std::fs::read(&path).unwrap();
        let mut lines: Vec<Vec<u8>> = text.split(|&b| b == b'\n').skip(1).map(<[u8]>::to_vec).collect();
        lines.retain(|line| !line.is_empty());
        lines
    }

    /// A league's game line of a played record, its entrants' hashes `a` and `b`.
    fn league_line(a: &str, b: &str) -> String {
        let record = played("000-00-a");
        String::from_utf8(
            serde_json::to_vec(&GameLine {
                record: &record,
                entrants: [a, b],
            })
            .unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn records_as_the_arena_writes_them_are_read_by_hand_as_serde_reads_them() {
        let mut lines = journal_lines(|path| _ = synthetic_journal(path, 300));
        for id in ["000-00-a", "001-00-b", "002-00-a"] {
            let mut record = played(id);
            record.moves[0].kind = MoveKind::Block;
            record.moves[1].seat = None;
            record.moves[2].timing.cpu_ms = Some(-1.5e-7);
            lines.push(serde_json::to_vec(&record).unwrap());
        }
        for line in &lines {
            assert!(split(line).is_some_and(|split| split.blocks.is_some()));
            let hand = by_hand(line);
            assert!(hand.is_some(), "{}", String::from_utf8_lossy(line));
            assert_eq!(hand, by_serde(line).map(|(record, moves, _)| (record, moves, None)));
        }
        // A league's games, their entrants read by hand too.
        let games: Vec<Vec<u8>> = journal_lines(|path| _ = synthetic_journal(path, 12))
            .iter()
            .map(|line| {
                let record: GameRecord = serde_json::from_slice(line).unwrap();
                let entrants = [&*format!("sha256:{:064x}", 1), &*format!("sha256:{:064x}", 2)];
                serde_json::to_vec(&GameLine {
                    record: &record,
                    entrants,
                })
                .unwrap()
            })
            .collect();
        assert_eq!(games.len(), 12);
        for line in &games {
            let hand = by_hand(line);
            assert!(
                hand.as_ref().is_some_and(|(_, _, entrants)| entrants.is_some()),
                "{}",
                String::from_utf8_lossy(line)
            );
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
            (r#""blocks":["#, r#""blocks": ["#),
            (r#""blocks":["#, r#""blocks":[ "#),
            (r#""blocks":["#, r#""blocks":["g7","#),
            (r#""blocks":["#, r#""blocks":["h1","#),
            (r#""blocks":["#, r#""blocks":["a0","#),
            (r#""blocks":["#, r#""blocks":["a11","#),
            (r#""blocks":["#, r#""blocks":["\u0061","#),
            (r#""blocks":["#, r#""blocks":[7,"#),
            (r#""blocks":["#, r#""blocks":[],"blocks":["#),
            (r#""blocks":["#, r#""blocks":["a1"],"blocks":["#),
            (r#""blocks":["#, r#""bl\u006fcks":["#),
            (r#""blocks":["#, r#""blocks":["a1"]]"#),
            (r#"","#, r#"" ,"#),
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
            assert!(agrees(edited.as_bytes()), "read otherwise than serde: {edited}");
        }
    }

    /// A line torn just after a backslash in a string (a crash in the middle of a write) is left to serde,
    /// which names the fault, whatever the string's place.
    #[test]
    fn a_line_torn_in_an_escape_is_left_to_serde() {
        let line = String::from_utf8(serde_json::to_vec(&played("000-00-a")).unwrap()).unwrap();
        for torn in [
            r#"{"id":"000\"#.to_owned(),
            r#"{"id":"000\\"#.to_owned(),
            r#"{"extra":["\"#.to_owned(),
            format!("{}\\", &line[..line.find("\"white\":\"").unwrap() + 9]),
            format!("{}\\", &line[..line.len() - 2]),
        ] {
            assert!(split(torn.as_bytes()).is_none(), "{torn}");
            assert!(by_serde(torn.as_bytes()).is_none(), "{torn}");
        }
    }

    /// A league's game line: its `entrants` read by hand where they are as the arena writes them, and
    /// whatever the edit, the line left to serde or read as serde reads it.
    #[test]
    fn a_league_games_entrants_are_read_by_hand_as_serde_reads_them() {
        let line = league_line("sha256:0a", "sha256:0b");
        let entrants = r#""entrants":["sha256:0a","sha256:0b"]"#;
        assert!(line.ends_with(&format!(",{entrants}}}")));
        let first = (r#"{"id":"#, format!(r#"{{{entrants},"id":"#));
        let unicode = league_line("é ∑ 😀", "");
        assert_eq!(
            by_hand(unicode.as_bytes()).and_then(|(_, _, entrants)| entrants),
            Some(["é ∑ 😀".to_owned(), String::new()])
        );
        let mut edits: Vec<Vec<u8>> = [
            (r#""entrants":["#, r#""entrants": ["#),
            (r#""entrants":["#, r#""entrants":[ "#),
            (r#"",""#, r#"" , ""#),
            (r#""]}"#, r#"" ]}"#),
            (r#""]}"#, r#"","sha256:0c"]}"#),
            (r#"",""#, r#"""#),
            (r#""sha256:0a""#, "7"),
            (r#""sha256:0a""#, "null"),
            (r#""sha256:0a""#, r#"["sha256:0a"]"#),
            (r#"sha256:0a"#, r#"sha256:\u0030a"#),
            (r#"sha256:0a"#, r#"sha256:\"0a"#),
            (r#"sha256:0a"#, "sha256:\t0a"),
            (r#"sha256:0a"#, "sha256:\u{7f}0a"),
            (r#"sha256:0a"#, r#"sha256:0a\"#),
            (r#""entrants":"#, r#""entr\u0061nts":"#),
            (r#""entrants":"#, r#""entrants":["x","y"],"entrants":"#),
            (r#""entrants":"#, r#""hello":{"entrants":["x","y"]},"entrants":"#),
            (r#""entrants":["sha256:0a","sha256:0b"]"#, r#""entrants":null"#),
            (r#""]}"#, r#""]} "#),
            (r#""]}"#, r#""] }"#),
            (r#""]}"#, r#""]}}"#),
            (r#""]}"#, r#""],"x":{"entrants":["x","y"]}}"#),
        ]
        .iter()
        .map(|(from, to)| line.replacen(from, to, 1).into_bytes())
        .chain([
            line.replacen(&format!(",{entrants}"), "", 1)
                .replacen(first.0, &first.1, 1)
                .into_bytes(),
            line.replacen(&format!(",{entrants}"), "", 1)
                .replacen(first.0, &format!("{}{{", first.1), 1)
                .into_bytes(),
            line.replacen("moves", "x", 1).into_bytes(),
        ])
        .collect();
        // Bytes that are not UTF-8, in a hash and in a key.
        let at = line.find("0a").unwrap();
        edits.push([&line.as_bytes()[..at], b"\xff", &line.as_bytes()[at..]].concat());
        edits.push(line.replacen("entrants", "entr\u{1}nts", 1).into_bytes());
        let mut read = 0;
        for edited in &edits {
            assert_ne!(edited, line.as_bytes());
            assert!(
                agrees(edited),
                "read otherwise than serde: {}",
                String::from_utf8_lossy(edited)
            );
            read += usize::from(by_hand(edited).is_some_and(|(_, _, entrants)| entrants.is_some()));
        }
        // Those as the arena writes them, in other places: read by hand.
        assert!(read >= 4, "{read}");
        let moved = line
            .replacen(&format!(",{entrants}"), "", 1)
            .replacen(first.0, &first.1, 1);
        assert_eq!(
            by_hand(moved.as_bytes()).and_then(|(_, _, entrants)| entrants),
            Some(["sha256:0a".to_owned(), "sha256:0b".to_owned()])
        );
    }
}
