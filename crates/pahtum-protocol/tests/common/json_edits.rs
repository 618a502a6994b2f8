//! Edits of a line of JSON, for the property tests that hold the hand-written readers (the journal's,
//! the bot library's and the referee's) to serde: random edits of its bytes (a byte deleted, inserted or
//! replaced, whitespace added, the line torn), and edits of its objects (members reordered, a key
//! repeated, a key added), and values of the protocol's types from every corner of their domains. One
//! file, included by path by each of the three crates' tests; the module that includes it names the
//! protocol crate `protocol` (`use pahtum_protocol as protocol;`, or `use crate as protocol;` in it).

#![allow(dead_code, reason = "each crate's tests use some of these")]

use std::fmt::Write as _;

use super::protocol;
use proptest::prelude::*;
use proptest::sample::Index;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// One edit of a line.
#[derive(Debug, Clone)]
pub enum Edit {
    /// The byte at the index removed.
    Delete(Index),
    /// A byte inserted before the index (or at the end).
    Insert(Index, u8),
    /// The byte at the index replaced.
    Replace(Index, u8),
    /// JSON whitespace inserted before the index.
    Whitespace(Index, &'static str),
    /// One of [`SNIPPETS`] inserted next to a token: just after one of `:,[{"`, where the grammar of a
    /// value, a key or a string starts (a leading zero, a sign, an escape).
    Snippet(Index, Index),
    /// The line cut before the index: a torn line (a crash in the middle of a write).
    Tear(Index),
    /// The members of an object (the index picks it: the line's own object half the time, else any of its
    /// objects) reordered by the swaps.
    Reorder(Index, Vec<(Index, Index)>),
    /// A member of an object written twice, the copy in another place and with the value of the member
    /// the last index picks (itself, or another one).
    Repeat(Index, Index, Index, Index),
    /// A value that is neither an object nor an array (the first index picks it) written otherwise, as
    /// [`respelled`] writes it by the second index: the same value in another spelling (an escape), or a
    /// spelling serde refuses (a leading zero), or another value.
    Respell(Index, Index),
    /// A member added to an object, in a place: one of the keys and one of the values given to
    /// [`apply`].
    Add(Index, Index, Index, Index),
}

/// Bytes that matter to JSON (and to UTF-8), more often than any other.
const BYTES: &[u8] = b"{}[]\",:\\ \t\n\r0123456789-+.eEtrufalsn\x00\x1f\x7f\xc3\xa9\xe2\x88\x91\xff";

/// Any byte, mostly one of [`BYTES`].
fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![3 => proptest::sample::select(BYTES), 1 => any::<u8>()]
}

/// One edit, of any kind.
pub fn edit() -> impl Strategy<Value = Edit> {
    let index = any::<Index>;
    prop_oneof![
        2 => index().prop_map(Edit::Delete),
        2 => (index(), byte()).prop_map(|(at, byte)| Edit::Insert(at, byte)),
        2 => (index(), byte()).prop_map(|(at, byte)| Edit::Replace(at, byte)),
        1 => (index(), proptest::sample::select(&[" ", "\t", "\n", "\r", "  \r\n"][..]))
            .prop_map(|(at, space)| Edit::Whitespace(at, space)),
        2 => (index(), index()).prop_map(|(at, snippet)| Edit::Snippet(at, snippet)),
        2 => index().prop_map(Edit::Tear),
        1 => (index(), proptest::collection::vec((index(), index()), 1..4))
            .prop_map(|(object, swaps)| Edit::Reorder(object, swaps)),
        1 => (index(), index(), index(), index()).prop_map(|(o, m, at, value)| Edit::Repeat(o, m, at, value)),
        1 => (index(), index(), index(), index()).prop_map(|(o, key, at, value)| Edit::Add(o, key, at, value)),
        2 => respell(),
    ]
}

/// One [`Edit::Respell`].
pub fn respell() -> impl Strategy<Value = Edit> {
    (any::<Index>(), any::<Index>()).prop_map(|(scalar, how)| Edit::Respell(scalar, how))
}

/// One to three edits.
pub fn edits() -> impl Strategy<Value = Vec<Edit>> {
    proptest::collection::vec(edit(), 1..4)
}

/// `line` with `edits` made, in order: the edits of objects while the line is still JSON (skipped once it
/// is not), then the others. An added member takes its key from `keys` and its value from `values`, both
/// as JSON text (a key with its quotes).
pub fn apply(line: &[u8], edits: &[Edit], keys: &[&str], values: &[&str]) -> Vec<u8> {
    let mut line = line.to_vec();
    for edit in edits {
        match edit {
            Edit::Delete(at) if !line.is_empty() => drop(line.remove(at.index(line.len()))),
            Edit::Insert(at, byte) => line.insert(at.index(line.len() + 1), *byte),
            Edit::Replace(at, byte) if !line.is_empty() => {
                let at = at.index(line.len());
                line[at] = *byte;
            }
            Edit::Whitespace(at, space) => {
                let at = at.index(line.len() + 1);
                line.splice(at..at, space.bytes());
            }
            Edit::Snippet(at, snippet) => {
                let starts: Vec<usize> = (1..=line.len())
                    .filter(|&at| b":,[{\"".contains(&line[at - 1]))
                    .collect();
                if let Some(&at) = starts.get(at.index(starts.len().max(1))) {
                    line.splice(at..at, SNIPPETS[snippet.index(SNIPPETS.len())].bytes());
                }
            }
            Edit::Tear(at) => line.truncate(at.index(line.len() + 1)),
            Edit::Respell(scalar, how) => {
                let scalars = scalars(&line);
                if let Some(respelled) = respell_at(&line, scalar.index(scalars.max(1)), how.index(RESPELLINGS)) {
                    line = respelled;
                }
            }
            Edit::Reorder(..) | Edit::Repeat(..) | Edit::Add(..) => {
                let Ok(mut tree) = serde_json::from_slice::<Tree>(&line) else {
                    continue;
                };
                let objects = tree.paths(&|tree| matches!(tree, Tree::Object(_)));
                if objects.is_empty() {
                    continue;
                }
                let (Edit::Reorder(object, ..) | Edit::Repeat(object, ..) | Edit::Add(object, ..)) = edit else {
                    unreachable!()
                };
                // The line's own object half the time: the one the readers know best.
                let object = objects.get(object.index(2 * objects.len())).unwrap_or(&objects[0]);
                let Tree::Object(members) = tree.at(object) else {
                    unreachable!("a path to an object")
                };
                match edit {
                    Edit::Reorder(_, swaps) if !members.is_empty() => {
                        let length = members.len();
                        for (a, b) in swaps {
                            members.swap(a.index(length), b.index(length));
                        }
                    }
                    Edit::Repeat(_, member, at, value) if !members.is_empty() => {
                        let key = members[member.index(members.len())].0.clone();
                        let value = members[value.index(members.len())].1.clone();
                        members.insert(at.index(members.len() + 1), (key, value));
                    }
                    Edit::Add(_, key, at, value) => {
                        let member = (
                            keys[key.index(keys.len())].to_owned(),
                            Tree::Raw(values[value.index(values.len())].to_owned()),
                        );
                        members.insert(at.index(members.len() + 1), member);
                    }
                    _ => continue,
                }
                line = tree.to_string().into_bytes();
            }
            _ => {}
        }
    }
    line
}

/// The number of values of the JSON `line` that are neither objects nor arrays; 0 if it is not JSON.
pub fn scalars(line: &[u8]) -> usize {
    serde_json::from_slice::<Tree>(line).map_or(0, |tree| tree.paths(&|tree| matches!(tree, Tree::Raw(_))).len())
}

/// The JSON `line` with its `scalar`th value that is neither an object nor an array (in the order of the
/// text) written the `how`th way of [`respelled`], the rest as serde_json writes it; `None` if the line is
/// not JSON or has no such value.
pub fn respell_at(line: &[u8], scalar: usize, how: usize) -> Option<Vec<u8>> {
    let mut tree = serde_json::from_slice::<Tree>(line).ok()?;
    let scalars = tree.paths(&|tree| matches!(tree, Tree::Raw(_)));
    let Tree::Raw(text) = tree.at(scalars.get(scalar)?) else {
        unreachable!("a path to a scalar")
    };
    *text = respelled(text, how);
    Some(tree.to_string().into_bytes())
}

/// The `member`th member of the object `line` written a second time, before the member at `at` (or last),
/// with the value of the `value_of`th member (itself, or another one), the rest as serde_json writes it;
/// `None` if the line is not a JSON object or has no such members.
pub fn repeat_member(line: &[u8], member: usize, at: usize, value_of: usize) -> Option<Vec<u8>> {
    let mut tree = serde_json::from_slice::<Tree>(line).ok()?;
    let Tree::Object(members) = &mut tree else {
        return None;
    };
    let copy = (members.get(member)?.0.clone(), members.get(value_of)?.1.clone());
    members.insert(at.min(members.len()), copy);
    Some(tree.to_string().into_bytes())
}

/// The number of ways [`respelled`] has.
pub const RESPELLINGS: usize = 18;

/// The JSON text `text` of a value written the `how`th way of [`RESPELLINGS`]: the same value otherwise
/// (a string's first character escaped, a number's exponent), a spelling JSON refuses (a
/// leading zero, a plus sign, a fraction or exponent without digits, a number without its integer part),
/// or another value.
pub fn respelled(text: &str, how: usize) -> String {
    let string = text.starts_with('"');
    match how {
        // The same value: a string's first character as an escape; a number with an exponent.
        0 | 1 if string => match text[1..].chars().next() {
            Some(first) if first != '"' && first.is_ascii() => format!("\"\\u{:04x}{}", first as u32, &text[2..]),
            _ => format!("\"\\/{}", &text[1..]),
        },
        0 => format!("{text}e0"),
        1 => format!("{text}E+00"),
        2 => format!("0{text}"),
        3 => format!("-{text}"),
        4 => format!("+{text}"),
        5 => format!("{text}."),
        6 => format!("{text}e"),
        7 => format!("{text}.0"),
        8 => format!(" {text} "),
        9 => "null".to_owned(),
        10 => "\"\"".to_owned(),
        11 => "1e400".to_owned(),
        12 => "[]".to_owned(),
        13 => format!("[{text}]"),
        14 if string => text.to_uppercase(),
        // The digits at the end cut (`0.` of `0.5`, `1e` of `1e21`), or at the start (`.5`, `e21`).
        16 => text.trim_end_matches(|c: char| c.is_ascii_digit()).to_owned(),
        17 => text
            .trim_start_matches(|c: char| c == '-' || c.is_ascii_digit())
            .to_owned(),
        _ => serde_json::to_string(text).expect("a string serializes"),
    }
}

/// Text worth inserting where a token starts.
pub const SNIPPETS: &[&str] = &[
    "0", "00", "1", "-", "+", ".", ".5", "e1", "E-", " ", "\\", "\\u0065", "\\\"", "\"", "\"\"", ",", ":", "}", "]",
    "{", "[", "null,", "\u{0}", "\u{1f}", "\u{7f}", "é", "\u{fffd}",
];

/// Keys worth adding to any object: unknown ones, and known ones of the three readers' lines.
pub const KEYS: &[&str] = &[
    r#""x""#,
    r#""""#,
    r#""type""#,
    r#""id""#,
    r#""moves""#,
    r#""blocks""#,
    r#""entrants""#,
    r#""cell""#,
    r#""color""#,
    r#""info""#,
    r#""swap""#,
    r#""clock""#,
    r#""mov\u0065s""#,
    r#""é∑😀""#,
];

/// Values worth adding: of every JSON kind, some of them what a known key holds.
pub const VALUES: &[&str] = &[
    "null",
    "0",
    "-1.5e-7",
    "18446744073709551616",
    "1e400",
    "true",
    r#""""#,
    r#""a1""#,
    r#""\"}]\\""#,
    "[]",
    "{}",
    r#"["a1","g7"]"#,
    r#"["x","y"]"#,
    r#"[{"color":"white","cell":"a1"}]"#,
    r#"{"a":[1,{"b":"}]\""}],"c":null}"#,
];

/// A JSON value with its objects' members in their written order (serde_json's `Value` sorts them), each
/// key and every value that is neither an object nor an array kept as JSON text.
#[derive(Debug, Clone)]
enum Tree {
    Raw(String),
    Array(Vec<Tree>),
    Object(Vec<(String, Tree)>),
}

impl Tree {
    /// The paths (indices of array items and object members) to every value in the tree that `wanted`
    /// wants, the tree itself included, in the order of the text.
    fn paths(&self, wanted: &dyn Fn(&Tree) -> bool) -> Vec<Vec<usize>> {
        let mut paths = Vec::new();
        self.collect(wanted, &mut Vec::new(), &mut paths);
        paths
    }

    fn collect(&self, wanted: &dyn Fn(&Tree) -> bool, path: &mut Vec<usize>, paths: &mut Vec<Vec<usize>>) {
        if wanted(self) {
            paths.push(path.clone());
        }
        let children: Vec<&Tree> = match self {
            Tree::Raw(_) => return,
            Tree::Array(items) => items.iter().collect(),
            Tree::Object(members) => members.iter().map(|(_, value)| value).collect(),
        };
        for (at, child) in children.into_iter().enumerate() {
            path.push(at);
            child.collect(wanted, path, paths);
            path.pop();
        }
    }

    /// The value at `path`.
    fn at(&mut self, path: &[usize]) -> &mut Tree {
        path.iter().fold(self, |tree, &at| match tree {
            Tree::Raw(_) => unreachable!("a path into a scalar"),
            Tree::Array(items) => &mut items[at],
            Tree::Object(members) => &mut members[at].1,
        })
    }
}

impl std::fmt::Display for Tree {
    /// Compact JSON, as serde_json writes it.
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tree::Raw(text) => out.write_str(text),
            Tree::Array(items) => {
                out.write_char('[')?;
                for (at, item) in items.iter().enumerate() {
                    if at > 0 {
                        out.write_char(',')?;
                    }
                    write!(out, "{item}")?;
                }
                out.write_char(']')
            }
            Tree::Object(members) => {
                out.write_char('{')?;
                for (at, (key, value)) in members.iter().enumerate() {
                    if at > 0 {
                        out.write_char(',')?;
                    }
                    write!(out, "{key}:{value}")?;
                }
                out.write_char('}')
            }
        }
    }
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Tree, D::Error> {
        deserializer.deserialize_any(TreeVisitor)
    }
}

/// Reads a [`Tree`]: each scalar written back as serde_json writes it (the same text as it read, for a
/// line that serde_json wrote).
struct TreeVisitor;

/// `value` as JSON text.
fn raw(value: impl serde::Serialize) -> Tree {
    Tree::Raw(serde_json::to_string(&value).expect("a scalar serializes"))
}

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = Tree;

    fn expecting(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        out.write_str("JSON")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Tree, E> {
        Ok(raw(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Tree, E> {
        Ok(raw(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Tree, E> {
        Ok(raw(value))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Tree, E> {
        Ok(raw(value))
    }

    fn visit_str<E>(self, value: &str) -> Result<Tree, E> {
        Ok(raw(value))
    }

    fn visit_unit<E>(self) -> Result<Tree, E> {
        Ok(Tree::Raw("null".to_owned()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Tree, A::Error> {
        let mut all = Vec::new();
        while let Some(item) = items.next_element()? {
            all.push(item);
        }
        Ok(Tree::Array(all))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<Tree, A::Error> {
        let mut all = Vec::new();
        while let Some((key, value)) = members.next_entry::<String, Tree>()? {
            all.push((serde_json::to_string(&key).expect("a string serializes"), value));
        }
        Ok(Tree::Object(all))
    }
}

/// Strings of every kind serde must escape or keep: empty, quotes, backslashes, control characters,
/// DEL, non-ASCII (two, three and four bytes of UTF-8, line separators), and any text at all.
pub fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z0-9 _:.-]{0,12}",
        3 => "[a-z\"\\\\/\u{0}-\u{1f}\u{7f}é∑😀\u{2028}\u{fffd}]{0,8}",
        1 => any::<String>(),
        1 => proptest::sample::select(&["", "\"", "\\", "\\u0000", "\u{0}", "\u{7f}", "}]", "moves"][..])
            .prop_map(str::to_owned),
    ]
}

/// A `u64`, often at an edge: 0, 1, 2^53 (where floats stop being exact), `u64::MAX`.
pub fn number() -> impl Strategy<Value = u64> {
    prop_oneof![
        2 => any::<u64>(),
        2 => 0..1000_u64,
        1 => proptest::sample::select(&[0, 1, 9, 10, (1 << 53) - 1, 1 << 53, (1 << 53) + 1, u64::MAX - 1, u64::MAX][..]),
    ]
}

/// An `f64`, often at an edge: zeros of both signs, the smallest and largest, subnormals, whole numbers,
/// and the values JSON cannot hold (serde writes `null` for them).
pub fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        2 => any::<f64>(),
        2 => -1e4..1e4_f64,
        1 => proptest::sample::select(
            &[
                0.0,
                -0.0,
                1.0,
                -1.5e-7,
                f64::MIN_POSITIVE,
                5e-324,
                f64::MAX,
                f64::MIN,
                f64::EPSILON,
                1e21,
                9_007_199_254_740_993.0,
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
            ][..]
        ),
    ]
}

/// Any cell of the board.
pub fn cell() -> impl Strategy<Value = pahtum::Cell> {
    (0..7_usize, 0..7_usize).prop_map(|(column, row)| pahtum::Cell::at(column, row).expect("a cell of the board"))
}

/// A bot's `info`, or none: every field optional, edge numbers, odd strings.
pub fn info() -> impl Strategy<Value = Option<protocol::Info>> {
    let fields = (
        proptest::option::of(float()),
        proptest::option::of(prop_oneof![any::<u32>(), Just(u32::MAX), Just(0)]),
        proptest::option::of(number()),
        proptest::option::of(proptest::collection::vec(text(), 0..3)),
        proptest::option::of(text()),
    );
    proptest::option::of(fields.prop_map(|(eval, depth, nodes, pv, comment)| protocol::Info {
        eval,
        depth,
        nodes,
        pv,
        comment,
    }))
}

/// Any rules: both pie rules, each placement, any number of blocks.
pub fn rules() -> impl Strategy<Value = protocol::Rules> {
    use protocol::Placement;
    let placement = proptest::sample::select(&[Placement::Random, Placement::Fixed, Placement::Players][..]);
    let blocks = prop_oneof![3 => 0..16_usize, 1 => any::<usize>()];
    (any::<bool>(), blocks, placement).prop_map(|(pie, blocks, placement)| protocol::Rules { pie, blocks, placement })
}

/// Either clock kind.
fn clock_kind() -> impl Strategy<Value = protocol::ClockKind> {
    proptest::sample::select(&[protocol::ClockKind::Wall, protocol::ClockKind::Cpu][..])
}

/// Any time control.
pub fn time_control() -> impl Strategy<Value = protocol::TimeControl> {
    let limits = (
        proptest::option::of(number()),
        proptest::option::of(number()),
        number(),
        number(),
    );
    (limits, clock_kind()).prop_map(
        |((move_ms, base_ms, increment_ms, margin_ms), clock)| protocol::TimeControl {
            move_ms,
            base_ms,
            increment_ms,
            margin_ms,
            clock,
        },
    )
}

/// Any clock of a request.
pub fn clock() -> impl Strategy<Value = protocol::Clock> {
    let fields = (
        proptest::option::of(number()),
        proptest::option::of(number()),
        number(),
        proptest::option::of(number()),
        number(),
    );
    (fields, clock_kind()).prop_map(
        |((remaining_ms, opponent_ms, increment_ms, move_ms, timeout_ms), kind)| protocol::Clock {
            remaining_ms,
            opponent_ms,
            increment_ms,
            move_ms,
            timeout_ms,
            kind,
        },
    )
}

/// Either colour.
pub fn color() -> impl Strategy<Value = pahtum::Color> {
    proptest::sample::select(&[pahtum::Color::White, pahtum::Color::Black][..])
}

/// Any reason a game ended.
pub fn reason() -> impl Strategy<Value = protocol::Reason> {
    proptest::sample::select(&protocol::Reason::ALL[..])
}

/// Any score, and any result (they need not agree here).
pub fn score_and_result() -> impl Strategy<Value = (pahtum::Score, pahtum::Outcome)> {
    use pahtum::Outcome;
    let points = prop_oneof![3 => 0..200_u32, 1 => any::<u32>()];
    (
        points.clone(),
        points,
        proptest::sample::select(&[Outcome::White, Outcome::Black, Outcome::Draw][..]),
    )
        .prop_map(|(white, black, result)| (pahtum::Score { white, black }, result))
}

/// The number of members of the object `line`; 0 if it is not a JSON object.
pub fn members(line: &[u8]) -> usize {
    keys(line).map_or(0, |keys| keys.len())
}

/// The keys of the top-level object of `line`, as serde reads them (escapes undone), in the line's order;
/// `None` if the line is not a JSON object.
pub fn keys(line: &[u8]) -> Option<Vec<String>> {
    match serde_json::from_slice::<Tree>(line).ok()? {
        Tree::Object(members) => members.iter().map(|(key, _)| serde_json::from_str(key).ok()).collect(),
        _ => None,
    }
}
