//! Voided games: a `{"voided": {"game", "why", "unix_ms"}}` line says that a
//! game recorded before it counts for no one (the arena, not a bot, failed
//! it) and is pending again; its next record is the game played again.
//!
//! Every reader of a league's games leaves a voided record out. A void comes
//! after its record, so a pass finds the voids first ([`Voids::of_file`]: one
//! search of the file for the event's key, at memory speed, and a read of
//! each void line found; a journal without voids costs that search alone),
//! and then skips, of each voided game, as many of its first records as it
//! was voided ([`Voids::skips`]). A follower, which reads a journal as it
//! grows, cannot take back a record it handed on: a void it did not find
//! beforehand makes it start afresh ([`Voids::foreseen`]).

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use super::lines::Event;

/// How each void line begins.
const KEY: &[u8] = b"\n{\"voided\":";

/// The voids of a journal, found before its games are read.
#[derive(Debug, Clone, Default)]
pub(crate) struct Voids {
    /// Of each voided game, the records still to skip.
    to_skip: HashMap<String, u32>,
    /// Of each voided game, the voids not yet read.
    to_read: HashMap<String, u32>,
}

impl Voids {
    /// The voids of the journal at `path` (a line that only looks like one is left to the check).
    pub(crate) fn of_file(path: &Path) -> io::Result<Voids> {
        let mut voids = Voids::default();
        for offset in offsets(path)? {
            let mut file = BufReader::new(File::open(path)?);
            file.seek(SeekFrom::Start(offset))?;
            let mut line = Vec::new();
            file.read_until(b'\n', &mut line)?;
            if let Ok(Event::Voided(voided)) = serde_json::from_slice::<Event>(&line) {
                *voids.to_skip.entry(voided.game.clone()).or_default() += 1;
                *voids.to_read.entry(voided.game).or_default() += 1;
            }
        }
        Ok(voids)
    }

    /// Whether a record of game `id` is one that a later line voids: it is left out.
    pub(crate) fn skips(&mut self, id: &str) -> bool {
        take_one(&mut self.to_skip, id)
    }

    /// Whether the void of game `id` just read was found beforehand (its record was left out).
    pub(crate) fn foreseen(&mut self, id: &str) -> bool {
        take_one(&mut self.to_read, id)
    }
}

/// Takes one from the count of `id` in `counts`, if there is one to take.
fn take_one(counts: &mut HashMap<String, u32>, id: &str) -> bool {
    match counts.get_mut(id) {
        Some(count) if *count > 0 => {
            *count -= 1;
            true
        }
        _ => false,
    }
}

/// Where each line of the file at `path` that begins with a void's key begins (after its newline).
fn offsets(path: &Path) -> io::Result<Vec<u64>> {
    const CHUNK: usize = 4 << 20;
    let finder = memchr::memmem::Finder::new(KEY);
    let mut file = File::open(path)?;
    let mut buffer = vec![0; CHUNK + KEY.len()];
    // The buffer starts with the last bytes of the chunk before (a key may straddle two chunks); the file's
    // first line is the header, never a void.
    let (mut kept, mut start) = (0, 0u64);
    let mut found = Vec::new();
    loop {
        let read = file.read(&mut buffer[kept..])?;
        if read == 0 {
            return Ok(found);
        }
        let filled = kept + read;
        found.extend(finder.find_iter(&buffer[..filled]).map(|at| start + at as u64 + 1));
        kept = (KEY.len() - 1).min(filled);
        buffer.copy_within(filled - kept..filled, 0);
        start += (filled - kept) as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_voids_even_across_chunks_and_counts_each() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let void = |game: &str| format!("{{\"voided\":{{\"game\":\"{game}\",\"why\":\"test\",\"unix_ms\":1}}}}\n");
        let mut text = String::from("{\"journal\":\"header\"}\n");
        text += &"x".repeat((4 << 20) - text.len() - 3);
        text += "\n";
        text += &void("000-001-00-a");
        text += "{\"id\":\"000-001-00-a\"}\n";
        text += &void("000-001-00-a");
        text += &void("000-002-01-b");
        text += "{\"voided\": not json\n";
        std::fs::write(&path, &text).unwrap();
        let mut voids = Voids::of_file(&path).unwrap();
        assert!(voids.skips("000-001-00-a") && voids.skips("000-001-00-a") && !voids.skips("000-001-00-a"));
        assert!(voids.skips("000-002-01-b") && !voids.skips("000-002-01-b"));
        assert!(voids.foreseen("000-002-01-b") && !voids.foreseen("000-002-01-b"));
        assert!(!voids.foreseen("000-009-00-a"));
    }
}
