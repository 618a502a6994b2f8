//! Text a bot wrote, made safe to show on a terminal.
//!
//! Everything a bot writes (its `hello` name, `info` comments, an offending
//! line, its stderr) is hostile input: printed raw, it could clear the
//! organiser's screen, set the window title, plant OSC 8 links, overwrite a
//! line with `\r` or reverse text with bidi overrides. [`escape`] and
//! [`escape_bytes`] make every such character visible as an escape
//! (`\x1b`, `\r`, `\u{202e}`), so that what is shown is exactly what the bot
//! sent, and inert. The raw bytes stay only in logs and JSON records.
//!
//! This is the one place that decides what is escaped; HTML output escapes
//! again for its own syntax (its templates do that).
//!
//! It is also the one place that decides how much of such text is kept: a
//! record or a journal keeps every move's `info` and each bot's `hello`, and a
//! bot that sends 60 KB of comment with every move would otherwise make one
//! game's record a megabyte. [`cut`] keeps a prefix of the text and says how
//! much it dropped; the caps below are what the referee keeps of each field
//! (protocol.md, "Optional info" and "Hello", and RECORD.md say the same).

use std::borrow::Cow;
use std::fmt::Write as _;

/// What a record keeps of an `info` comment, in bytes: a "short comment"
/// (the reference engine's are under 100 bytes) fits many times over, and
/// a game of 50 plies keeps at most some 50 KiB of comments.
pub const COMMENT_BYTES: usize = 1024;

/// What a record keeps of an `info` principal variation, in moves: more than
/// a game has plies (49 cells and the pie decision).
pub const PV_MOVES: usize = 64;

/// What a record keeps of each move of a principal variation, in bytes: the
/// longest move in the rules' notation (`"swap"`, `"keep"`) has 4.
pub const PV_MOVE_BYTES: usize = 8;

/// What a record keeps of each text of a `hello` (name, version, author), in
/// bytes: a name, a version such as `git describe` gives, or an author with an
/// address fit; tables and logs show it whole.
pub const HELLO_BYTES: usize = 128;

/// `text` cut to at most `max` bytes at a character boundary, followed by a
/// marker that says how many bytes were cut (`… [cut: 59000 bytes]`);
/// borrowed and unchanged when it is not longer than `max`.
pub fn cut(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}… [cut: {} bytes]", &text[..end], text.len() - end))
}

/// [`cut`] in place, for a field that is kept.
pub fn cut_in_place(text: &mut String, max: usize) {
    if let Cow::Owned(kept) = cut(text, max) {
        *text = kept;
    }
}

/// Whether `c` must not reach a terminal as it is: C0 and C1 controls, DEL,
/// line and paragraph separators, and the bidirectional formatting marks.
fn is_dangerous(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}'
        )
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `text` with every control, separator and bidi character shown as an escape;
/// borrowed when there is nothing to escape (the common case).
pub fn escape(text: &str) -> Cow<'_, str> {
    let Some(first) = text.find(is_dangerous) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if is_dangerous(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Bytes a bot wrote, shown as [`escape`] shows text, with each byte that is
/// not valid UTF-8 shown as `\xNN`.
pub fn escape_bytes(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return escape(text);
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        out.push_str(&escape(chunk.valid()));
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_text_is_borrowed_and_unchanged() {
        assert!(matches!(
            escape("engine v2 (depth 7) é"),
            Cow::Borrowed("engine v2 (depth 7) é")
        ));
    }

    #[test]
    fn terminal_attacks_are_made_visible() {
        assert_eq!(escape("\x1b[2J\x1b]0;pwned\x07"), "\\x1b[2J\\x1b]0;pwned\\x07");
        assert_eq!(escape("ok\rlost"), "ok\\rlost");
        assert_eq!(escape("a\u{202e}b\u{2066}c"), "a\\u{202e}b\\u{2066}c");
        assert_eq!(escape("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(escape("x\ny\tz\x7f"), "x\\ny\\tz\\x7f");
    }

    #[test]
    fn long_text_is_cut_at_a_character_boundary_with_a_marker() {
        assert!(matches!(cut("short", 5), Cow::Borrowed("short")));
        assert_eq!(cut("abcdef", 4), "abcd… [cut: 2 bytes]");
        // "é" is two bytes: a cut inside it keeps the whole characters before it.
        assert_eq!(cut("aéé", 4), "aé… [cut: 2 bytes]");
        assert_eq!(cut("éé", 1), "… [cut: 4 bytes]");
        let mut text = "x".repeat(60_000);
        cut_in_place(&mut text, COMMENT_BYTES);
        assert!(text.starts_with(&"x".repeat(COMMENT_BYTES)));
        assert!(text.ends_with("x… [cut: 58976 bytes]"), "{}", &text[1000..]);
    }

    #[test]
    fn invalid_utf8_bytes_are_shown_as_hex() {
        assert_eq!(escape_bytes(b"ab\xff\x1bc\xc3"), "ab\\xff\\x1bc\\xc3");
        assert_eq!(escape_bytes("é".as_bytes()), "é");
    }

    proptest! {
        #[test]
        fn escaped_text_holds_no_dangerous_character(bytes in proptest::collection::vec(any::<u8>(), 0..64), text in "\\PC*|[\\x00-\\x1f\\u{80}-\\u{9f}\\u{202a}-\\u{202e}a]*") {
            prop_assert!(!escape_bytes(&bytes).chars().any(is_dangerous));
            prop_assert!(!escape(&text).chars().any(is_dangerous));
        }
    }
}
