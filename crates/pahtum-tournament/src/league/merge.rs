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

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::journal::{JournalError, Moves};

use super::read::{LeagueError, read};

/// What a merge did.
#[derive(Debug)]
pub struct Merged {
    /// The games of the merged journal.
    pub games: usize,
    /// Games found in more than one input, the same, kept once.
    pub agreeing_duplicates: usize,
}

/// One input's lines: the header, the lines that are not games, and the games after each of those
/// (`games[0]` before the first).
struct Input {
    header: String,
    events: Vec<String>,
    games: Vec<Vec<(String, String)>>,
}

fn read_input(path: &Path) -> Result<Input, LeagueError> {
    // Check it whole first: a merge never spreads a faulty line.
    read(path, Moves::Drop, |_| (), |_, _, (), _| {})?;
    let text = std::fs::read_to_string(path).map_err(|source| JournalError::Io {
        action: "read",
        path: path.to_owned(),
        source,
    })?;
    #[derive(Deserialize)]
    struct Id {
        id: String,
    }
    let mut lines = text.split_inclusive('\n').filter(|line| line.ends_with('\n'));
    let header = lines.next().unwrap_or_default().trim_end().to_owned();
    let mut input = Input {
        header,
        events: Vec::new(),
        games: vec![Vec::new()],
    };
    for line in lines.map(str::trim_end).filter(|line| !line.trim().is_empty()) {
        match serde_json::from_str::<Id>(line) {
            Ok(game) => input
                .games
                .last_mut()
                .expect("a segment")
                .push((game.id, line.to_owned())),
            Err(_) => {
                input.events.push(line.to_owned());
                input.games.push(Vec::new());
            }
        }
    }
    Ok(input)
}

/// Merges the league journals `inputs` into a new journal at `out` (see the module documentation).
pub fn merge(inputs: &[PathBuf], out: &Path) -> Result<Merged, LeagueError> {
    let inputs: Vec<Input> = inputs.iter().map(|path| read_input(path)).collect::<Result<_, _>>()?;
    let refuse = |message: String| Err(LeagueError::Refused(message));
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
    let mut text = format!("{}\n", longest.header);
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut merged = Merged {
        games: 0,
        agreeing_duplicates: 0,
    };
    for segment in 0..=longest.events.len() {
        if segment > 0 {
            text.push_str(&longest.events[segment - 1]);
            text.push('\n');
        }
        for (input_number, input) in inputs.iter().enumerate() {
            for (id, line) in input.games.get(segment).into_iter().flatten() {
                if let Some(&first) = seen.get(id) {
                    let same = inputs[first]
                        .games
                        .iter()
                        .flatten()
                        .any(|(other, text)| other == id && text == line);
                    if !same {
                        return refuse(format!("game {id:?} is recorded differently in two journals"));
                    }
                    merged.agreeing_duplicates += 1;
                    continue;
                }
                seen.insert(id.clone(), input_number);
                text.push_str(line);
                text.push('\n');
                merged.games += 1;
            }
        }
    }
    if out.exists() {
        return refuse(format!("{} exists; merge into a new folder", out.display()));
    }
    std::fs::write(out, text).map_err(|source| JournalError::Io {
        action: "write",
        path: out.to_owned(),
        source,
    })?;
    read(out, Moves::Drop, |_| (), |_, _, (), _| {})?;
    Ok(merged)
}
