//! The journals of a league's shards joined into one.
//!
//! Each machine of a sharded run plays its share of the same round, in its
//! own copy of the league's folder, so the shards' journals share their
//! header and their entrant, retirement and round lines, and differ only in
//! the games. [`merge`] checks every input whole ([`super::read`]), requires
//! the same header and that each input's other lines be the start of the
//! longest input's (a shard that decided fewer rounds is behind, never
//! apart), and writes those lines once, each followed by the games that
//! followed it in any input, in input order. A game in two inputs must be
//! the same line (it is kept once); two different records of one game are an
//! error. The result is checked again as any journal is read.
//!
//! It streams, as a tournament's merge does, through the same output
//! ([`pahtum_journal::merge::Output`]: a temporary file renamed into place
//! once synced, 8 bytes a game): the inputs are read line by line, each
//! once to find its events and once to copy its games, and only the events
//! (a few lines per entrant and round) are held. Each input's lines end
//! where its check says its sound lines end, so a torn last line is dropped
//! by the journal's one rule.

use std::fs::File;
use std::io::{BufRead, BufReader, Read as _};
use std::path::{Path, PathBuf};

use pahtum_journal::merge::{Added, Output};
use pahtum_journal::sink::Counts;
use pahtum_journal::{JournalError, Moves};
use serde::Deserialize;

use super::lines::{LayoutPair, LeagueHeader, is_event};
use super::read::{LeagueError, read};

/// What a merge did.
#[derive(Debug)]
pub struct Merged {
    /// The games of the merged journal.
    pub games: usize,
    /// Games found in more than one input, the same, kept once.
    pub agreeing_duplicates: usize,
}

/// One input: its header line, its event lines, and a reader of its sound lines after the header.
struct Input {
    path: PathBuf,
    header: Vec<u8>,
    events: Vec<Vec<u8>>,
    lines: BufReader<std::io::Take<File>>,
}

impl Input {
    /// Checks the journal at `path` whole (a merge never spreads a faulty line) and reads its events.
    fn open(path: &Path) -> Result<Input, LeagueError> {
        let sound = read(path, Moves::Drop, &mut Counts)?.ending.valid_len;
        let mut input = Input {
            path: path.to_owned(),
            header: Vec::new(),
            events: Vec::new(),
            lines: Input::reader(path, sound)?,
        };
        input.header = input.next_line()?.unwrap_or_default();
        while let Some(line) = input.next_line()? {
            if is_event(&line) {
                input.events.push(line);
            }
        }
        input.lines = Input::reader(path, sound)?;
        input.next_line()?;
        Ok(input)
    }

    /// The first `sound` bytes of the journal at `path`.
    fn reader(path: &Path, sound: u64) -> Result<BufReader<std::io::Take<File>>, LeagueError> {
        let file = File::open(path).map_err(|source| JournalError::Io {
            action: "read",
            path: path.to_owned(),
            source,
        })?;
        Ok(BufReader::with_capacity(1 << 20, file.take(sound)))
    }

    /// The next line that is not blank, without its newline; `None` at the end of the sound lines.
    fn next_line(&mut self) -> Result<Option<Vec<u8>>, LeagueError> {
        loop {
            let mut line = Vec::new();
            let read = self
                .lines
                .read_until(b'\n', &mut line)
                .map_err(|source| JournalError::Io {
                    action: "read",
                    path: self.path.clone(),
                    source,
                })?;
            if read == 0 {
                return Ok(None);
            }
            if line.last() == Some(&b'\n') {
                line.pop();
            }
            if !line.trim_ascii().is_empty() {
                return Ok(Some(line));
            }
        }
    }
}

/// The slot of a league's game in the merged journal: its layout pair (entrants `a < b`, layout round `k`
/// of the league's `rounds`) and seat, numbered pair by pair as entrants join, so that the slots of the
/// entrants so far stay where they are when another joins.
fn slot(pair: LayoutPair, seat: usize, rounds: usize) -> usize {
    let LayoutPair(a, b, k) = pair;
    let (a, b, k) = (a as usize, b as usize, k as usize);
    ((b * (b - 1) / 2 + a) * rounds + k) * 2 + seat
}

/// The slots of a league of `entrants` entrants.
fn slots(entrants: usize, rounds: usize) -> usize {
    entrants * entrants.saturating_sub(1) / 2 * rounds * 2
}

/// Merges the league journals `inputs` into a new journal at `out` (see the module documentation).
pub fn merge(inputs: &[PathBuf], out: &Path) -> Result<Merged, LeagueError> {
    let refuse = |message: String| Err(LeagueError::Refused(message));
    if out.exists() {
        return refuse(format!("{} exists; merge into a new folder", out.display()));
    }
    let mut inputs: Vec<Input> = inputs.iter().map(|path| Input::open(path)).collect::<Result<_, _>>()?;
    let Some(longest) = inputs.iter().max_by_key(|input| input.events.len()) else {
        return refuse("no journal to merge".to_owned());
    };
    for input in &inputs {
        if input.header != longest.header {
            return refuse("the journals are of different leagues (their first lines differ)".to_owned());
        }
        if longest.events[..input.events.len()] != input.events[..] {
            return refuse(
                "the journals' entrants, retirements or rounds differ: they are not shards of one league's round"
                    .to_owned(),
            );
        }
    }
    let (header, events) = (longest.header.clone(), longest.events.clone());
    let rounds = serde_json::from_slice::<LeagueHeader>(&header)
        .map_err(|_| LeagueError::Refused("the journals' first line is not a league's header".to_owned()))?
        .league
        .rounds() as usize;
    let mut output = Output::create(out, &header, 0)?;
    let mut merged = Merged {
        games: 0,
        agreeing_duplicates: 0,
    };
    let mut entrants = 0;
    #[derive(Deserialize)]
    struct Id {
        id: String,
    }
    for segment in 0..=events.len() {
        if segment > 0 {
            let event = &events[segment - 1];
            entrants += usize::from(event.trim_ascii_start().starts_with(br#"{"entrant":"#));
            output.grow(slots(entrants, rounds));
            output.line(event)?;
        }
        for input in &mut inputs {
            if segment > input.events.len() {
                continue;
            }
            while let Some(line) = input.next_line()? {
                if is_event(&line) {
                    break;
                }
                let game = serde_json::from_slice::<Id>(&line)
                    .ok()
                    .and_then(|game| LayoutPair::of_id(&game.id).map(|found| (game.id, found)));
                let Some((id, (pair, seat))) = game else {
                    return refuse(format!("{} holds a game that is not a league's", input.path.display()));
                };
                match output.add(slot(pair, seat, rounds), &line)? {
                    Added::Copied => merged.games += 1,
                    Added::Agrees => merged.agreeing_duplicates += 1,
                    Added::Disagrees => {
                        return refuse(format!("game {id:?} is recorded differently in two journals"));
                    }
                }
            }
        }
    }
    output.finish()?;
    read(out, Moves::Drop, &mut Counts)?;
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::synthetic_league;

    /// The lines of a synthetic league's journal of 3 entrants and 12 games, each with its newline.
    fn whole(dir: &Path) -> Vec<String> {
        let path = dir.join("whole.jsonl");
        synthetic_league(&path, 3, 12);
        std::fs::read_to_string(path)
            .unwrap()
            .split_inclusive('\n')
            .map(str::to_owned)
            .collect()
    }

    /// Writes `lines` to `dir/name`; returns the path.
    fn write(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, lines.concat()).unwrap();
        path
    }

    /// The header, every event, and the games whose number (from 0, in file order) `keep` takes.
    fn shard(lines: &[String], keep: impl Fn(usize) -> bool) -> Vec<String> {
        let mut game = 0;
        let mut shard = vec![lines[0].clone()];
        for line in &lines[1..] {
            if is_event(line.as_bytes()) {
                shard.push(line.clone());
            } else {
                game += 1;
                if keep(game - 1) {
                    shard.push(line.clone());
                }
            }
        }
        shard
    }

    /// The game lines of the journal at `path`, sorted.
    fn games(path: &Path) -> Vec<String> {
        let text = std::fs::read_to_string(path).unwrap();
        let mut games: Vec<String> = text
            .lines()
            .skip(1)
            .filter(|line| !is_event(line.as_bytes()))
            .map(str::to_owned)
            .collect();
        games.sort();
        games
    }

    #[test]
    fn shards_merge_into_every_game_once_and_a_journal_given_twice_agrees() {
        let dir = tempfile::tempdir().unwrap();
        let lines = whole(dir.path());
        let even = write(dir.path(), "even.jsonl", &shard(&lines, |game| game % 2 == 0));
        let odd = write(dir.path(), "odd.jsonl", &shard(&lines, |game| game % 2 == 1));
        let out = dir.path().join("merged.jsonl");
        let merged = merge(&[even.clone(), odd, even], &out).unwrap();
        assert_eq!((merged.games, merged.agreeing_duplicates), (12, 6));
        assert_eq!(games(&out), games(&write(dir.path(), "again.jsonl", &lines)));
        assert!(!out.with_extension("jsonl.partial").exists());
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_an_unterminated_sound_one_kept() {
        let dir = tempfile::tempdir().unwrap();
        let lines = whole(dir.path());
        let mut torn = shard(&lines, |game| game < 6);
        torn.push(lines.last().unwrap()[..40].to_owned());
        let torn = write(dir.path(), "torn.jsonl", &torn);
        let mut unterminated = shard(&lines, |game| game >= 6);
        let last = unterminated.pop().unwrap();
        unterminated.push(last.trim_end().to_owned());
        let unterminated = write(dir.path(), "unterminated.jsonl", &unterminated);
        let out = dir.path().join("merged.jsonl");
        let merged = merge(&[torn, unterminated], &out).unwrap();
        assert_eq!((merged.games, merged.agreeing_duplicates), (12, 0));
    }

    #[test]
    fn two_records_of_one_game_that_differ_are_refused_and_nothing_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let lines = whole(dir.path());
        let first = write(dir.path(), "first.jsonl", &lines);
        let game = lines.iter().position(|line| line.starts_with(r#"{"id""#)).unwrap();
        let mut edited = lines.clone();
        let at = edited[game].find(r#""ms":"#).unwrap() + 5;
        edited[game].insert(at, '1');
        let second = write(dir.path(), "second.jsonl", &edited);
        let out = dir.path().join("merged.jsonl");
        let error = merge(&[first, second], &out).unwrap_err();
        assert!(
            error.to_string().contains("is recorded differently in two journals"),
            "{error}"
        );
        assert!(!out.exists());
    }

    #[test]
    fn journals_of_other_leagues_or_other_rounds_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let lines = whole(dir.path());
        let one = write(dir.path(), "one.jsonl", &lines);
        let other = dir.path().join("other.jsonl");
        crate::testing::synthetic_league(&other, 4, 12);
        let error = merge(&[one.clone(), other], &dir.path().join("a.jsonl")).unwrap_err();
        assert!(error.to_string().contains("different leagues"), "{error}");
        // The same league's rules, other entrants: not shards of one round.
        let apart = dir.path().join("apart.jsonl");
        crate::testing::synthetic_league_of(&apart, &[("x", "1"), ("y", "1"), ("z", "1")], 12);
        let error = merge(&[one, apart], &dir.path().join("b.jsonl")).unwrap_err();
        assert!(
            error.to_string().contains("are not shards of one league's round"),
            "{error}"
        );
    }
}
