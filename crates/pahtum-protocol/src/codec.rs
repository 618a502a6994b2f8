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
}
