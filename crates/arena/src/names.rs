//! The bots' names in `arena game` and `arena match`: `--names`, or defaults from the bot commands.
//!
//! A name labels a bot in records and tables, so it must be short and plain (a command string like
//! `python3 bots/python-random/bot.py` is neither) and the two bots of a game must differ even when
//! they run the same command. "Plain" is the tournament files' rule, [`config::is_plain_name`]: one
//! rule for both.

use std::path::Path;

use anyhow::bail;
use pahtum_tournament::config;

/// `--names NAME_A,NAME_B`.
#[derive(Debug, clap::Args)]
pub struct NamesFlag {
    /// The bots' names in the records and tables [default: from the commands].
    #[arg(long, value_name = "NAME_A,NAME_B", value_delimiter = ',')]
    names: Option<Vec<String>>,
}

impl NamesFlag {
    /// The names given, else the defaults of `commands` (`suffixes` tell apart two bots of one name).
    pub fn names(&self, commands: [&str; 2], suffixes: [&str; 2]) -> anyhow::Result<[String; 2]> {
        let names = match self.names.as_deref() {
            Some([a, b]) => [a.clone(), b.clone()],
            Some(names) => bail!("--names {}: give two names, NAME_A,NAME_B", names.join(",")),
            None => return Ok(default_names(commands, suffixes)),
        };
        for name in &names {
            if !config::is_plain_name(name) {
                bail!(
                    "the bot name {name:?} is not plain: give --names with {} each",
                    config::PLAIN_NAME_RULE
                );
            }
        }
        if names[0] == names[1] {
            bail!(
                "both bots are named {:?}: give them different names with --names",
                names[0]
            );
        }
        Ok(names)
    }
}

/// Names for two bot commands: each a built-in's name, else the program's file name (its folder's for a
/// generic one like `bot.py`); when the two are the same, `-` and the matching suffix are added to each.
fn default_names(commands: [&str; 2], suffixes: [&str; 2]) -> [String; 2] {
    let names = commands.map(default_name);
    if names[0] == names[1] {
        let [a, b] = names;
        [format!("{a}-{}", suffixes[0]), format!("{b}-{}", suffixes[1])]
    } else {
        names
    }
}

/// The name of one bot command.
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
        .map(|c| if config::is_plain_char(c) { c } else { '-' })
        .take(config::MAX_NAME_LEN)
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
            assert!(config::is_plain_name(&name), "{command:?} gave {name:?}");
        }
    }
}
