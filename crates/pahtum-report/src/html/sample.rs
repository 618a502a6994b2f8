//! Bounded samples of the games, the same whatever order the games come in.
//!
//! The report of a journal of any length lists and replays at most a few thousand games, chosen while the
//! records stream past. A game is ranked by a hash of its id ([`SampleKey`]), and a [`Sample`] keeps the
//! lowest-ranked games only (a bottom-k sample): that is the same set for the same games in any order, so the
//! page of a merged journal of shards is the page of an unsharded run, and it is spread over the whole journal
//! (ids hash at random), not its beginning. A sample may also hold a byte budget: it keeps the shortest run
//! of lowest-ranked games whose sizes reach the budget. Both bounds only ever drop the highest-ranked games,
//! which no game coming later can bring back, so a game dropped once is never needed again.

use std::collections::BTreeMap;

/// Where a game ranks in every sample: the hash of its id, then the id itself (for equal hashes).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SampleKey {
    hash: u64,
    id: String,
}

/// The rank of game `id` without its own copy of the id, to compare before keeping it.
#[derive(Debug, Clone, Copy)]
pub struct Rank<'a> {
    hash: u64,
    id: &'a str,
}

impl<'a> Rank<'a> {
    /// The rank of game `id`.
    pub fn of(id: &'a str) -> Rank<'a> {
        Rank {
            hash: fnv1a(id.as_bytes()),
            id,
        }
    }

    fn is_after(&self, key: &SampleKey) -> bool {
        (self.hash, self.id) > (key.hash, key.id.as_str())
    }

    fn key(&self) -> SampleKey {
        SampleKey {
            hash: self.hash,
            id: self.id.to_owned(),
        }
    }
}

/// The lowest-ranked games offered, at most `cap` of them and, with a budget, the shortest run of them whose
/// sizes reach it.
#[derive(Debug)]
pub struct Sample<T> {
    entries: BTreeMap<SampleKey, (T, usize)>,
    cap: usize,
    budget: usize,
    bytes: usize,
}

impl<T> Sample<T> {
    /// A sample of at most `cap` games, without a byte budget.
    pub fn new(cap: usize) -> Sample<T> {
        Sample::with_budget(cap, usize::MAX)
    }

    /// A sample of at most `cap` games, and no more of them than the shortest run of lowest-ranked games
    /// whose sizes reach `budget` bytes.
    pub fn with_budget(cap: usize, budget: usize) -> Sample<T> {
        Sample {
            entries: BTreeMap::new(),
            cap,
            budget,
            bytes: 0,
        }
    }

    /// Offers the game ranked `rank`: `make` gives its value and size only if the sample keeps it (a game
    /// already in the sample is not offered twice).
    pub fn offer(&mut self, rank: Rank<'_>, make: impl FnOnce() -> (T, usize)) {
        let kept = match self.entries.last_key_value() {
            Some((last, _)) if rank.is_after(last) => self.entries.len() < self.cap && self.bytes < self.budget,
            // Before the last game it stays (only games after it can be dropped for it), unless the sample
            // keeps nothing at all.
            _ => self.cap > 0 && self.budget > 0,
        };
        if !kept {
            return;
        }
        let key = rank.key();
        if self.entries.contains_key(&key) {
            return;
        }
        let (value, bytes) = make();
        self.bytes += bytes;
        self.entries.insert(key, (value, bytes));
        self.trim();
    }

    /// Lowers the cap to `cap` (or keeps it), dropping the highest-ranked games beyond it.
    pub fn lower_cap(&mut self, cap: usize) {
        self.cap = self.cap.min(cap);
        self.trim();
    }

    /// Lowers the byte budget to `budget` (or keeps it), dropping the highest-ranked games beyond it.
    pub fn lower_budget(&mut self, budget: usize) {
        self.budget = self.budget.min(budget);
        self.trim();
    }

    /// The games kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no game is kept.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The bytes of the games kept.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The games kept, lowest-ranked first, with their ids.
    pub fn into_values(self) -> impl Iterator<Item = (String, T)> {
        self.entries.into_iter().map(|(key, (value, _))| (key.id, value))
    }

    fn trim(&mut self) {
        while let Some((_, &(_, last_bytes))) = self.entries.last_key_value() {
            let over = self.entries.len() > self.cap || self.bytes - last_bytes >= self.budget;
            if !over {
                break;
            }
            self.entries.pop_last();
            self.bytes -= last_bytes;
        }
    }
}

/// The 64-bit FNV-1a hash: stable across runs and platforms, unlike the standard library's.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(sample: Sample<usize>) -> Vec<String> {
        sample.into_values().map(|(id, _)| id).collect()
    }

    fn offered(ids: impl Iterator<Item = String>, cap: usize, budget: usize) -> Sample<usize> {
        let mut sample = Sample::with_budget(cap, budget);
        for id in ids {
            sample.offer(Rank::of(&id), || (id.len(), 10));
        }
        sample
    }

    #[test]
    fn a_sample_keeps_the_lowest_ranked_games_in_any_order() {
        let games = || (0..200).map(|n| format!("{n:03}-00-a"));
        let forward = ids(offered(games(), 12, usize::MAX));
        assert_eq!(forward.len(), 12);
        let mut ranked: Vec<String> = games().collect();
        ranked.sort_by_key(|id| (fnv1a(id.as_bytes()), id.clone()));
        assert_eq!(forward, ranked[..12], "the twelve lowest hashes, lowest first");
        assert_eq!(forward, ids(offered(games().rev(), 12, usize::MAX)));
        let first_half: Vec<_> = games().take(100).collect();
        let interleaved = games().skip(100).zip(first_half).flat_map(|(a, b)| [a, b]);
        assert_eq!(forward, ids(offered(interleaved, 12, usize::MAX)));
        assert!(
            forward.iter().any(|id| id.as_str() >= "100"),
            "spread over the journal: {forward:?}"
        );
    }

    #[test]
    fn a_budget_keeps_the_shortest_run_that_reaches_it() {
        let games = || (0..50).map(|n| format!("{n:03}-00-a"));
        // Ten bytes a game: the run that reaches 35 bytes is four games long.
        assert_eq!(ids(offered(games(), 12, 35)).len(), 4);
        assert_eq!(ids(offered(games(), 12, 40)).len(), 4);
        assert_eq!(ids(offered(games(), 12, 41)).len(), 5);
        assert_eq!(ids(offered(games(), 12, 35)), ids(offered(games().rev(), 12, 35)));
        let mut sample = offered(games(), 12, usize::MAX);
        sample.lower_budget(20);
        assert_eq!((sample.len(), sample.bytes()), (2, 20));
        sample.lower_cap(1);
        assert_eq!(ids(sample), ids(offered(games(), 1, usize::MAX)));
        assert!(offered(games(), 0, usize::MAX).is_empty());
    }

    #[test]
    fn a_sample_that_keeps_nothing_makes_nothing() {
        for mut sample in [Sample::with_budget(5, 0), Sample::new(0)] {
            sample.offer(Rank::of("000-00-a"), || -> (usize, usize) {
                panic!("made a value it drops")
            });
            assert!(sample.is_empty());
        }
    }

    #[test]
    fn a_game_offered_twice_is_kept_once() {
        let mut sample = Sample::new(5);
        for _ in 0..2 {
            sample.offer(Rank::of("000-00-a"), || (1, 7));
        }
        assert_eq!((sample.len(), sample.bytes()), (1, 7));
    }
}
