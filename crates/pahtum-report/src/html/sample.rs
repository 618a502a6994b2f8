//! Bounded samples of the games, the same whatever order the games come in.
//!
//! The report of a journal of any length lists and replays at most a few thousand games, chosen while the
//! records stream past. A game is ranked by a hash of its id ([`SampleKey`]), and a [`Sample`] keeps the
//! lowest-ranked games only (a bottom-k sample): that is the same set for the same games in any order, so the
//! page of a merged journal of shards is the page of an unsharded run, and it is spread over the whole journal
//! (ids hash at random), not its beginning. The cap only ever drops the highest-ranked games, which no game
//! coming later can bring back, so a game dropped once is never needed again.
//!
//! The replays are the lowest-ranked games of the list within a count and a byte budget: a run of its first
//! games, the shortest whose sizes reach the budget ([`budget_run`]). So one sample serves both, and the
//! replays' bounds, which depend on the forfeits' count and bytes, apply once every game is known.

use compact_str::CompactString;

/// Where a game ranks in every sample: the hash of its id, then the id itself (for equal hashes).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SampleKey {
    hash: u64,
    /// Inline up to 24 bytes, as every id the arena gives is.
    id: CompactString,
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
            id: CompactString::from(self.id),
        }
    }
}

/// The lowest-ranked games offered, at most `cap` of them.
///
/// Held densely, in two sorted vectors rather than a tree: the games kept so far, and the last few games
/// offered, which join them once there are [`ARRIVALS`] of them (one sort of the whole, then the cap). At
/// 10,000 listed games a tree's nodes and the allocator's gaps between them held about twice the bytes of
/// the entries; two vectors hold the entries and a batch.
#[derive(Debug)]
pub struct Sample<T> {
    /// Sorted by key, at most `cap` of them.
    kept: Vec<Entry<T>>,
    /// Sorted by key, fewer than [`ARRIVALS`], none of them in `kept`.
    arrivals: Vec<Entry<T>>,
    cap: usize,
}

/// A game a sample keeps: its rank, and what the sample keeps of it.
#[derive(Debug)]
pub struct Entry<T> {
    key: SampleKey,
    value: T,
}

impl<T> Entry<T> {
    /// The game's id.
    pub fn id(&self) -> &str {
        &self.key.id
    }

    /// What the sample keeps of the game.
    pub fn value(&self) -> &T {
        &self.value
    }
}

/// How many games offered wait before they join the kept ones: each joins with a share of one sort of the
/// sample, and waits in a sorted vector whose insertions move at most this many entries.
const ARRIVALS: usize = 128;

impl<T> Sample<T> {
    /// A sample of at most `cap` games.
    pub fn new(cap: usize) -> Sample<T> {
        Sample {
            kept: Vec::new(),
            arrivals: Vec::new(),
            cap,
        }
    }

    /// Offers the game ranked `rank`: `make` gives its value only if the sample keeps it (a game already in
    /// the sample is not offered twice).
    pub fn offer(&mut self, rank: Rank<'_>, make: impl FnOnce() -> T) {
        // A full sample takes no game after its last one; a game before it stays (only games after it can
        // be dropped for it), unless the sample keeps nothing at all.
        let refused = match self.kept.last() {
            Some(last) => self.kept.len() >= self.cap && rank.is_after(&last.key),
            None => self.cap == 0,
        };
        let key = rank.key();
        let by_key = |entry: &Entry<T>| entry.key.cmp(&key);
        if refused || self.kept.binary_search_by(by_key).is_ok() {
            return;
        }
        let Err(place) = self.arrivals.binary_search_by(by_key) else {
            return;
        };
        self.arrivals.insert(place, Entry { key, value: make() });
        if self.arrivals.len() == ARRIVALS {
            // Exactly: the kept games never hold more than the cap and a batch.
            self.kept.reserve_exact(ARRIVALS);
            self.kept.append(&mut self.arrivals);
            self.kept.sort_unstable_by(|a, b| a.key.cmp(&b.key));
            self.kept.truncate(self.cap);
        }
    }

    /// The games kept.
    pub fn len(&self) -> usize {
        (self.kept.len() + self.arrivals.len()).min(self.cap)
    }

    /// Whether no game is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The games kept, lowest-ranked first.
    pub fn entries(&self) -> impl Iterator<Item = &Entry<T>> + '_ {
        let (mut kept, mut arrivals) = (self.kept.iter().peekable(), self.arrivals.iter().peekable());
        std::iter::from_fn(move || match (kept.peek(), arrivals.peek()) {
            (Some(a), Some(b)) if b.key < a.key => arrivals.next(),
            (Some(_), _) => kept.next(),
            (None, _) => arrivals.next(),
        })
        .take(self.cap)
    }

    /// The games kept, lowest-ranked first, with their ids (borrowed: a page of 10,000 games would
    /// otherwise copy each id into every list it makes of them).
    pub fn values(&self) -> impl Iterator<Item = (&str, T)> + '_
    where
        T: Copy,
    {
        self.entries().map(|entry| (entry.id(), entry.value))
    }
}

/// How many of the first games of `sizes` (their sizes, lowest-ranked first) make the shortest run whose
/// sizes reach `budget` bytes (all of them if they do not reach it), at most `cap` of them; and their bytes.
pub fn budget_run(sizes: impl IntoIterator<Item = usize>, cap: usize, budget: usize) -> (usize, usize) {
    let mut run = (0, 0);
    for size in sizes.into_iter().take(cap) {
        if run.1 >= budget {
            break;
        }
        run = (run.0 + 1, run.1 + size);
    }
    run
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
        sample.values().map(|(id, _)| id.to_owned()).collect()
    }

    fn offered(ids: impl Iterator<Item = String>, cap: usize) -> Sample<usize> {
        let mut sample = Sample::new(cap);
        for id in ids {
            sample.offer(Rank::of(&id), || id.len());
        }
        sample
    }

    #[test]
    fn a_sample_keeps_the_lowest_ranked_games_in_any_order() {
        let games = || (0..200).map(|n| format!("{n:03}-00-a"));
        let forward = ids(offered(games(), 12));
        assert_eq!(forward.len(), 12);
        let mut ranked: Vec<String> = games().collect();
        ranked.sort_by_key(|id| (fnv1a(id.as_bytes()), id.clone()));
        assert_eq!(forward, ranked[..12], "the twelve lowest hashes, lowest first");
        assert_eq!(forward, ids(offered(games().rev(), 12)));
        let first_half: Vec<_> = games().take(100).collect();
        let interleaved = games().skip(100).zip(first_half).flat_map(|(a, b)| [a, b]);
        assert_eq!(forward, ids(offered(interleaved, 12)));
        assert!(
            forward.iter().any(|id| id.as_str() >= "100"),
            "spread over the journal: {forward:?}"
        );
        assert!(offered(games(), 0).is_empty());
    }

    #[test]
    fn a_budget_run_is_the_shortest_that_reaches_it() {
        // Ten bytes a game: the run that reaches 35 bytes is four games long.
        let sizes = [10; 50];
        assert_eq!(budget_run(sizes, 12, 35), (4, 40));
        assert_eq!(budget_run(sizes, 12, 40), (4, 40));
        assert_eq!(budget_run(sizes, 12, 41), (5, 50));
        assert_eq!(budget_run(sizes, 3, 41), (3, 30), "no more than the cap");
        assert_eq!(budget_run(sizes, 12, usize::MAX), (12, 120));
        assert_eq!(
            budget_run([10, 50, 10], 12, 20),
            (2, 60),
            "a long game may end the run past the budget"
        );
        assert_eq!(budget_run(sizes, 12, 0), (0, 0));
    }

    #[test]
    fn a_sample_that_keeps_nothing_makes_nothing() {
        let mut sample = Sample::new(0);
        sample.offer(Rank::of("000-00-a"), || -> usize { panic!("made a value it drops") });
        assert!(sample.is_empty());
    }

    proptest::proptest! {
        /// The sample against the lowest `cap` distinct games offered, sorted, over offers that repeat
        /// games and cross the batches' bounds.
        #[test]
        fn a_sample_is_the_bottom_k_of_the_distinct_games_offered(
            cap in 0..3 * ARRIVALS,
            games in proptest::collection::vec(0..700_u32, 0..1200),
        ) {
            let games: Vec<String> = games.iter().map(|game| format!("{game:04}-00-a")).collect();
            let sample = offered(games.iter().cloned(), cap);
            let mut expected: Vec<&String> = games.iter().collect();
            expected.sort_by_key(|id| (fnv1a(id.as_bytes()), id.as_str()));
            expected.dedup();
            expected.truncate(cap);
            proptest::prop_assert_eq!(sample.len(), expected.len());
            proptest::prop_assert_eq!(ids(sample), expected.into_iter().cloned().collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_game_offered_twice_is_kept_once() {
        let mut sample = Sample::new(5);
        for _ in 0..2 {
            sample.offer(Rank::of("000-00-a"), || 1);
        }
        assert_eq!(sample.len(), 1);
    }
}
