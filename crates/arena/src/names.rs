//! Default bot names from bot commands, shared by `arena game` and `arena match`.
//!
//! A name labels a bot in records and tables, so it must be short and plain (a command string like
//! `python3 bots/python-random/bot.py` is neither) and the two bots of a game must differ even when
//! they run the same command.

use std::path::Path;

/// Names for two bot commands: each a built-in's name, else the program's file name (its folder's for a
/// generic one like `bot.py`); when the two are the same, `-` and the matching suffix are added to each.
pub fn default_names(commands: [&str; 2], suffixes: [&str; 2]) -> [String; 2] {
    let names = commands.map(default_name);
    if names[0] == names[1] {
        let [a, b] = names;
        [format!("{a}-{}", suffixes[0]), format!("{b}-{}", suffixes[1])]
    } else {
        names
    }
}

/// The name of one bot command.
fn default_name(command: &str) -> String {
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
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .take(64)
        .collect();
    let plain = plain.trim_start_matches('.');
    if plain.is_empty() {
        "bot".to_owned()
    } else {
        plain.to_owned()
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
}
