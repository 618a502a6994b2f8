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

use std::borrow::Cow;
use std::fmt::Write as _;

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
