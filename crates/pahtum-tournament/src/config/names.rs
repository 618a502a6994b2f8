//! The rule for names: a tournament's and a bot's names become file names
//! (the output folder, the bots' logs), so they must be plain; and the plain
//! name of a bot that has only a command (`arena game`, `arena match`).

use std::path::Path;

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

/// The name of one bot command: a built-in's name, else the program's file name (its folder's for a
/// generic one like `bot.py`), made plain ([`is_plain_name`]): other characters become `-`, a leading
/// `.` goes, and nothing left is `bot`.
pub fn default_name(command: &str) -> String {
    let words = shlex::split(command).unwrap_or_default();
    let program = words
        .iter()
        .rev()
        .find(|word| word.contains('/'))
        .or(words.first())
        .map_or("bot", String::as_str);
    let path = Path::new(program);
    let stem = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let generic = ["bot", "main", "run", "index", "__main__"].contains(&stem.as_str());
    let folder = path
        .parent()
        .and_then(Path::file_name)
        .map(|name| name.to_string_lossy().into_owned());
    let name = match folder {
        Some(folder) if generic => folder,
        _ => stem,
    };
    let plain: String = name
        .chars()
        .map(|c| if is_plain_char(c) { c } else { '-' })
        .take(MAX_NAME_LEN)
        .collect();
    let plain = plain.trim_start_matches('.');
    if plain.is_empty() {
        "bot".to_owned()
    } else {
        plain.to_owned()
    }
}

/// Names for two bot commands, each its [`default_name`]; when the two are the same, `-` and the matching
/// suffix are added to each (`suffixes` tell apart two bots of one name).
pub fn default_names(commands: [&str; 2], suffixes: [&str; 2]) -> [String; 2] {
    let names = commands.map(default_name);
    if names[0] == names[1] {
        let [a, b] = names;
        [format!("{a}-{}", suffixes[0]), format!("{b}-{}", suffixes[1])]
    } else {
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_commands() {
        assert_eq!(
            default_names(["heuristic", "first-free"], ["1", "2"]),
            ["heuristic", "first-free"]
        );
        assert_eq!(
            default_names(["heuristic", " heuristic"], ["1", "2"]),
            ["heuristic-1", "heuristic-2"]
        );
        assert_eq!(
            default_names(["python3 bots/x/bot.py", "python3 bots/x/bot.py"], ["white", "black"]),
            ["x-white", "x-black"]
        );
        assert_eq!(
            default_names(
                ["python3 bots/python-random/bot.py", "node bots/js/greedy.js --fast"],
                ["1", "2"]
            ),
            ["python-random", "greedy"]
        );
        assert_eq!(default_name("./my bot"), "my");
        assert_eq!(default_name("'weird name!.py'"), "weird-name-");
    }

    /// Whatever the command, the default name is plain by the tournament files' rule.
    #[test]
    fn default_names_are_plain() {
        let long = format!("python3 {}.py", "x".repeat(100));
        for command in [
            "",
            "'.hidden'",
            "'..'",
            "./é",
            long.as_str(),
            "a\tb",
            "'/'",
            "heuristic",
        ] {
            let name = default_name(command);
            assert!(is_plain_name(&name), "{command:?} gave {name:?}");
        }
    }
}
