//! A set of games by schedule index, one bit each.
//!
//! Resume must know which games of the schedule the journal holds, and
//! nothing else about them: the records stay in the journal. A set of ids or
//! records would grow by a hundred bytes or more a game; a bit per schedule
//! index keeps a run of a million games at 125 kB.

/// A set of schedule indices.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameSet {
    /// Bit `i % 64` of word `i / 64` is set when `i` is in the set; words past the last set bit may be missing.
    words: Vec<u64>,
    len: usize,
}

impl GameSet {
    /// An empty set.
    pub fn new() -> GameSet {
        GameSet::default()
    }

    /// Adds `index`; false when it was in the set already.
    pub fn insert(&mut self, index: usize) -> bool {
        let (word, bit) = (index / 64, 1u64 << (index % 64));
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        let new = self.words[word] & bit == 0;
        self.words[word] |= bit;
        self.len += usize::from(new);
        new
    }

    /// Whether `index` is in the set.
    pub fn contains(&self, index: usize) -> bool {
        self.words
            .get(index / 64)
            .is_some_and(|word| word & (1u64 << (index % 64)) != 0)
    }

    /// The number of indices in the set.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// Random inserts agree with a `BTreeSet` on membership, novelty and size, across word boundaries.
    #[test]
    fn it_agrees_with_a_set_of_numbers() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let (mut bits, mut model) = (GameSet::new(), BTreeSet::new());
        assert!(bits.is_empty() && !bits.contains(0) && !bits.contains(1 << 20));
        for _ in 0..2000 {
            let index = rng.random_range(0..700);
            assert_eq!(bits.insert(index), model.insert(index), "{index}");
        }
        for index in 0..800 {
            assert_eq!(bits.contains(index), model.contains(&index), "{index}");
        }
        assert_eq!(bits.len(), model.len());
        assert!(!bits.is_empty());
    }
}
