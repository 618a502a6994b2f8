//! A head-to-head match as a two-bot [`Tournament`]: what `arena match` builds
//! from its flags instead of reading a file.
//!
//! It lives here, beside the file's reader, because the tournament it makes
//! goes into the journal's header, whose hash decides whether a match resumes
//! ([`super::tournament_hash`]): which fields of a bot and of the clocks enter
//! it is a rule of the journal, kept with the other rules that make a
//! [`Tournament`], not a detail of the command line. Each rule below keeps the
//! hash of a match whose flags did not use a newer feature, so that it
//! resumes.

use std::collections::BTreeMap;

use pahtum_protocol::TimeControl;
use pahtum_record::AdjudicationRule;

use super::{BlockSource, BotConfig, Format, Launch, RulesConfig, Tournament};
use crate::book::Openings;

/// Why the flags of a match make no tournament.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// A bot's command does not split into a program and its arguments.
    #[error("bad bot command {command:?}: give a program and its arguments, quoted as in a shell")]
    BadCommand {
        /// The command as given.
        command: String,
    },
    /// The working directory, part of a command's description, could not be found.
    #[error("cannot find the working directory")]
    WorkingDir(#[source] std::io::Error),
}

/// What decides a match's games: its two bots, how many games, the rules and the clocks.
#[derive(Debug, Clone)]
pub struct Match<'a> {
    /// The bots' names, A's then B's.
    pub names: [String; 2],
    /// The bots' commands (a command line, or a built-in bot's name), A's then B's.
    pub commands: [&'a str; 2],
    /// The bots' time controls, A's then B's (the same twice when they share one).
    pub times: [TimeControl; 2],
    /// The block counts the layouts take in turn (one: every layout has that many).
    pub counts: Vec<usize>,
    /// Whether the players place the blocks, rather than the referee drawing them.
    pub placed: bool,
    /// An opening book that gives every layout instead (`counts` and `placed` then unused).
    pub openings: Option<Openings>,
    /// Games in all: an even number, each layout played twice with the seats swapped.
    pub games: u32,
    /// The seed the layouts are drawn from.
    pub seed: u64,
    /// Whether the pie rule is on.
    pub pie: bool,
    /// Fair mode: the bot not to move is paused.
    pub pause_idle: bool,
    /// The rule by which a game ends before its board is full (`--adjudicate`); `None`: played out.
    pub adjudicate: Option<AdjudicationRule>,
    /// The names of the built-in bots: a command that is one of them is that built-in bot.
    pub builtins: &'a [&'a str],
}

impl Match<'_> {
    /// The two-bot round robin the match is: named `A-vs-B`, `games` games per pair.
    pub fn tournament(&self) -> Result<Tournament, MatchError> {
        let times = self.times;
        // Each bot's own time control only when they differ, so that a match with one keeps its journal's hash.
        let own_times = times.map(|time| (times[0] != times[1]).then_some(time));
        // With one count, cycling and drawing are the same schedule: left off, a match keeps the journal
        // hash it had before the counts cycled, and resumes.
        let cycle_counts = self.counts.len() > 1;
        let counts = self.counts.clone();
        let blocks = match (&self.openings, self.placed) {
            (Some(book), _) => BlockSource::Book(book.clone()),
            (None, true) => BlockSource::Players { counts },
            (None, false) => BlockSource::Random { counts },
        };
        let cycle_counts = cycle_counts && self.openings.is_none();
        let bots = (0..2)
            .map(|bot| self.bot_config(&self.names[bot], self.commands[bot], own_times[bot]))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Tournament {
            name: format!("{}-vs-{}", self.names[0], self.names[1]),
            seed: self.seed,
            format: Format::RoundRobin,
            games_per_pair: self.games,
            rules: RulesConfig {
                pie: self.pie,
                blocks,
                cycle_counts,
                adjudicate: self.adjudicate,
            },
            time: times[0],
            pause_idle: self.pause_idle,
            bots,
        })
    }

    /// The journal header's description of a bot (how it starts decides whether a match resumes). A
    /// command runs in the working directory, which is part of it: the same relative command run from
    /// another folder may be another program, so it must not resume the match.
    fn bot_config(&self, name: &str, command: &str, time: Option<TimeControl>) -> Result<BotConfig, MatchError> {
        let command = command.trim();
        let (launch, dir) = if self.builtins.contains(&command) {
            (Launch::Builtin(command.to_owned()), None)
        } else {
            let words = match shlex::split(command) {
                Some(words) if !words.is_empty() => words,
                _ => {
                    return Err(MatchError::BadCommand {
                        command: command.to_owned(),
                    });
                }
            };
            let here = std::env::current_dir().map_err(MatchError::WorkingDir)?;
            (Launch::Command(words), Some(here.display().to_string()))
        };
        Ok(BotConfig {
            name: name.to_owned(),
            launch,
            dir,
            env: BTreeMap::new(),
            time,
            // The sandbox does not change a game's result: a match resumes with or without it.
            sandbox: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::config::tournament_hash;

    fn a_match(commands: [&'static str; 2], times: [TimeControl; 2], counts: Vec<usize>) -> Match<'static> {
        Match {
            names: ["a".to_owned(), "b".to_owned()],
            commands,
            times,
            counts,
            placed: false,
            openings: None,
            games: 10,
            seed: 3,
            pie: true,
            pause_idle: false,
            adjudicate: None,
            builtins: &["engine", "first-free"],
        }
    }

    fn second(seconds: u64) -> TimeControl {
        pahtum_protocol::move_time(Duration::from_secs(seconds))
    }

    #[test]
    fn a_match_is_a_two_bot_round_robin_of_its_flags() {
        let tournament = a_match(["engine", "python3 bot.py"], [second(1); 2], vec![5, 7])
            .tournament()
            .unwrap();
        assert_eq!(tournament.name, "a-vs-b");
        assert_eq!((tournament.seed, tournament.games_per_pair), (3, 10));
        assert_eq!(tournament.format, Format::RoundRobin);
        assert!(tournament.rules.pie && tournament.rules.cycle_counts);
        assert_eq!(tournament.bots[0].launch, Launch::Builtin("engine".to_owned()));
        assert_eq!(tournament.bots[0].dir, None);
        assert_eq!(
            tournament.bots[1].launch,
            Launch::Command(vec!["python3".to_owned(), "bot.py".to_owned()])
        );
        let here = std::env::current_dir().unwrap();
        assert_eq!(tournament.bots[1].dir.as_deref(), Some(&*here.display().to_string()));
    }

    /// The rules that keep a match's journal hash: one shared time control is no bot's own, and one
    /// block count does not cycle.
    #[test]
    fn a_shared_clock_and_one_count_leave_the_header_as_it_was() {
        let shared = a_match(["engine", "first-free"], [second(1); 2], vec![5])
            .tournament()
            .unwrap();
        assert!(shared.bots.iter().all(|bot| bot.time.is_none()));
        assert!(!shared.rules.cycle_counts);
        let own = a_match(["engine", "first-free"], [second(1), second(2)], vec![5])
            .tournament()
            .unwrap();
        assert_eq!(
            own.bots.iter().map(|bot| bot.time).collect::<Vec<_>>(),
            [Some(second(1)), Some(second(2))]
        );
        assert_ne!(tournament_hash(&shared), tournament_hash(&own));
    }

    #[test]
    fn a_command_that_does_not_split_is_refused() {
        let error = a_match(["engine", "python3 'bot.py"], [second(1); 2], vec![5])
            .tournament()
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "bad bot command \"python3 'bot.py\": give a program and its arguments, quoted as in a shell"
        );
    }
}
