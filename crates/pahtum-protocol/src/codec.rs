//! One line of JSON to and from a message.
//!
//! Decoding goes in two steps, so that the error says what was wrong: first
//! the line must be JSON, then an object with a known `"type"`, then a valid
//! message of that type.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::{FromBot, ToBot};

/// The longest line a bot may print, its newline (and a `\r` before it) excluded.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// How much of an offending line an error message shows.
const SHOWN_BYTES: usize = 200;

/// Why a line is not a message.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// The line is not JSON.
    #[error("not JSON: {line}")]
    NotJson {
        /// The line, cut to a few hundred bytes.
        line: String,
        /// Where the JSON parser gave up.
        #[source]
        source: serde_json::Error,
    },
    /// The line is JSON but not an object with a string `"type"`.
    #[error("not a JSON object with a string \"type\": {line}")]
    NoType {
        /// The line, cut to a few hundred bytes.
        line: String,
    },
    /// The `"type"` is unknown, or the message does not fit it (a missing
    /// field, a field of the wrong type).
    #[error("invalid {kind:?} message: {line}")]
    Invalid {
        /// The line's `"type"`, as written (escape it before printing).
        kind: String,
        /// The line, cut to a few hundred bytes.
        line: String,
        /// What serde found wrong.
        #[source]
        source: serde_json::Error,
    },
}

impl DecodeError {
    /// The offending line, cut to a few hundred bytes.
    pub fn line(&self) -> &str {
        match self {
            DecodeError::NotJson { line, .. } | DecodeError::NoType { line } | DecodeError::Invalid { line, .. } => {
                line
            }
        }
    }
}

/// Decodes one line from a bot.
pub fn decode_from_bot(line: &str) -> Result<FromBot, DecodeError> {
    decode(line)
}

/// Decodes one line from the referee.
pub fn decode_to_bot(line: &str) -> Result<ToBot, DecodeError> {
    decode(line)
}

fn decode<T: DeserializeOwned>(line: &str) -> Result<T, DecodeError> {
    let value: serde_json::Value = serde_json::from_str(line).map_err(|source| DecodeError::NotJson {
        line: shown(line),
        source,
    })?;
    let kind = match value.get("type").and_then(serde_json::Value::as_str) {
        Some(kind) => kind.to_owned(),
        None => return Err(DecodeError::NoType { line: shown(line) }),
    };
    serde_json::from_value(value).map_err(|source| DecodeError::Invalid {
        kind,
        line: shown(line),
        source,
    })
}

/// Whether every number in `line` is surely within `f64`'s range, so that
/// the protocol's decoders, which read the whole line into a JSON tree
/// first, parse each of them: `false` for a line with a run of 100 digits or
/// an exponent of three digits or more. A fast path that reads a line into a
/// struct skips the members it does not know without parsing their numbers;
/// it takes a line only when this is `true`, and leaves the rest (a
/// `1e400`, and a few harmless ones such as `1e100`, or a comment that says
/// `E123`) to the decoders, so that both refuse the same lines.
pub fn numbers_surely_in_range(line: &str) -> bool {
    const MOST_DIGITS: usize = 100;
    const MOST_EXPONENT_DIGITS: usize = 2;
    let bytes = line.as_bytes();
    let mut digits = 0;
    for (at, byte) in bytes.iter().enumerate() {
        if byte.is_ascii_digit() {
            digits += 1;
            if digits >= MOST_DIGITS {
                return false;
            }
            continue;
        }
        digits = 0;
        if matches!(byte, b'e' | b'E') {
            let exponent = &bytes[at + 1..];
            let exponent = exponent
                .strip_prefix(b"+")
                .or_else(|| exponent.strip_prefix(b"-"))
                .unwrap_or(exponent);
            if exponent.iter().take_while(|byte| byte.is_ascii_digit()).count() > MOST_EXPONENT_DIGITS {
                return false;
            }
        }
    }
    true
}

/// Encodes a message as one line, newline included.
pub fn encode<T: Serialize>(message: &T) -> String {
    let mut line = serde_json::to_string(message).expect("protocol messages always serialize");
    line.push('\n');
    line
}

/// `line` cut to a few hundred bytes at a character boundary, marked if cut
/// ([`untrusted::cut`](crate::untrusted::cut)).
pub fn shown(line: &str) -> String {
    crate::untrusted::cut(line, SHOWN_BYTES).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_problem() {
        assert!(matches!(decode_from_bot("hello"), Err(DecodeError::NotJson { .. })));
        assert!(matches!(
            decode_from_bot("{\"id\": 1}"),
            Err(DecodeError::NoType { .. })
        ));
        assert!(matches!(decode_from_bot("[1]"), Err(DecodeError::NoType { .. })));
        let err = decode_from_bot(r#"{"type":"stone","id":1,"cell":"h9"}"#).unwrap_err();
        assert!(
            matches!(err, DecodeError::Invalid { ref kind, .. } if kind == "stone"),
            "{err}"
        );
        assert!(err.to_string().contains("h9"), "{err}");
        let err = decode_from_bot(r#"{"type":"bestmove","id":1}"#).unwrap_err();
        // The cause is the error's source, not repeated in its message.
        let cause = std::error::Error::source(&err).expect("the JSON error").to_string();
        assert!(cause.contains("unknown variant"), "{cause}");
        assert!(!err.to_string().contains("unknown variant"), "{err}");
    }

    #[test]
    fn unknown_fields_are_ignored() {
        let message = decode_from_bot(r#"{"type":"pong","id":4,"extra":{"a":1}}"#).unwrap();
        assert_eq!(message, FromBot::Pong { id: 4 });
    }

    /// protocol.md tolerates a `\r` before the newline: it is JSON whitespace.
    #[test]
    fn carriage_returns_are_whitespace() {
        let message = decode_from_bot("{\"type\":\"pong\",\"id\":4}\r").unwrap();
        assert_eq!(message, FromBot::Pong { id: 4 });
    }

    #[test]
    fn long_lines_are_cut_in_errors() {
        let line = "x".repeat(10_000);
        let err = decode_from_bot(&line).unwrap_err();
        assert!(err.line().len() < 300);
        assert!(err.line().ends_with("… [cut: 9800 bytes]"), "{}", err.line());
    }

    /// Every JSON number, however written, that the check passes is one the decoders can read: within
    /// 100 digits and an exponent of two, the largest is below 1e100 * 1e99.
    mod range {
        use proptest::prelude::*;

        use super::*;

        proptest! {
            #[test]
            fn numbers_the_check_passes_parse(
                whole in "-?(0|[1-9][0-9]{0,120})",
                fraction in proptest::option::of("[0-9]{1,120}"),
                exponent in proptest::option::of("[eE][+-]?[0-9]{1,4}"),
            ) {
                let number = format!("{whole}{}{}", fraction.map(|digits| format!(".{digits}")).unwrap_or_default(), exponent.unwrap_or_default());
                let line = format!(r#"{{"type":"pong","id":1,"x":{number}}}"#);
                if numbers_surely_in_range(&line) {
                    prop_assert!(decode_from_bot(&line).is_ok(), "{}", line);
                }
            }
        }

        #[test]
        fn numbers_that_may_be_out_of_range_are_told() {
            for number in [
                "1e400",
                "1E+308",
                "-2e-400",
                &"9".repeat(100),
                &format!("0.{}", "1".repeat(100)),
            ] {
                assert!(!numbers_surely_in_range(&format!(r#"{{"x":{number}}}"#)), "{number}");
            }
            assert!(decode_from_bot(r#"{"type":"pong","id":1,"x":1e400}"#).is_err());
            for line in [
                r#"{"type":"stone","id":7,"cell":"e4","info":{"eval":1.5e-99,"pv":["e5"]}}"#,
                &"9".repeat(99),
            ] {
                assert!(numbers_surely_in_range(line), "{line}");
            }
        }
    }
}
