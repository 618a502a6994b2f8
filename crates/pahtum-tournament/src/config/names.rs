//! The rule for names: a tournament's and a bot's names become file names
//! (the output folder, the bots' logs), so they must be plain.

use super::keys::{KeyError, key_error};

/// The longest plain name, in characters.
pub const MAX_NAME_LEN: usize = 64;

/// [`is_plain_name`] in words.
pub const PLAIN_NAME_RULE: &str = "1 to 64 letters, digits, '-', '_' or '.', not starting with '.'";

/// Whether `c` may be in a plain name: an ASCII letter or digit, '-', '_' or '.'.
pub fn is_plain_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// Whether `name` can name a tournament or a bot: names become file names
/// (the output folder, the bots' logs), so they must be plain:
/// [`PLAIN_NAME_RULE`].
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_NAME_LEN && name.chars().all(is_plain_char) && !name.starts_with('.')
}

/// Checks that the name at `key` is a plain name ([`is_plain_name`]), or says which and why.
pub fn check_name(key: &str, name: &str) -> Result<(), KeyError> {
    if !is_plain_name(name) {
        return Err(key_error(
            key,
            format!("{name:?} is not a plain name"),
            format!("use {PLAIN_NAME_RULE}"),
        ));
    }
    Ok(())
}
