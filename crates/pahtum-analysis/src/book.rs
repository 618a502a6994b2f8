//! Openings for a book (`arena book`): random layouts and random plies, kept when the analysis's estimate
//! of the position they reach is near an even game.
//!
//! An opening book makes each game of a test tell something: a position the engines must fight for, not a
//! layout the first seat wins on its own. So the openings are drawn at random (each layout from its own seed,
//! its block count taken in turn from the counts given, then the given number of plies drawn uniformly
//! among the legal ones), and with a band each is kept only when the tree search's estimate of the first
//! seat's expected result (the analysis's [`Values::estimate`], with its playouts and seed) lies within
//! `0.5 ± band`. Everything is drawn from the seed, so the same settings make the same book on any machine.
//! The book's text (its line format) is `pahtum-tournament`'s; this module only chooses the openings.

use pahtum::{Action, Cell, Game, Seat};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::values::{Values, after};

/// How a book's openings are made.
#[derive(Debug, Clone, PartialEq)]
pub struct BookSettings {
    /// The openings wanted.
    pub count: usize,
    /// The plies of each opening, after its layout.
    pub plies: usize,
    /// The block counts the layouts take in turn (odd).
    pub block_counts: Vec<usize>,
    /// Whether the games are played with the pie rule (a pie decision is then a ply like the others).
    pub pie: bool,
    /// Keep only openings whose estimated expected result for the first seat is within `0.5 ± band`;
    /// `None`: keep every one.
    pub band: Option<f64>,
    /// The tree search's playouts per estimate.
    pub playouts: u64,
    /// What everything is drawn from.
    pub seed: u64,
    /// The most candidates drawn before making the book is given up (see [`TRIES_PER_OPENING`]).
    pub tries: usize,
}

/// The candidates `arena book` draws at most for each opening wanted.
pub const TRIES_PER_OPENING: usize = 200;

/// One opening made: its blocks, its plies, and the estimate of the first seat's expected result after them.
#[derive(Debug, Clone, PartialEq)]
pub struct MadeOpening {
    /// The blocks, in board order.
    pub blocks: Vec<Cell>,
    /// The plies after the layout.
    pub plies: Vec<Action>,
    /// The first seat's expected result after the plies, by the tree search.
    pub expected: f64,
}

/// A book made: its openings, and how many candidates were tried for them.
#[derive(Debug, Clone, PartialEq)]
pub struct MadeBook {
    /// The openings kept, in the order made.
    pub openings: Vec<MadeOpening>,
    /// The candidates drawn (the openings kept and those outside the band).
    pub tried: usize,
}

/// Why no book was made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BookError {
    /// A block count is no layout's.
    #[error("{0} blocks make no layout: use odd counts from 1 to 47")]
    Count(usize),
    /// The plies fill the board of some layout.
    #[error("{plies} plies fill the board of a layout of {blocks} blocks: ask for fewer plies or fewer blocks")]
    TooManyPlies {
        /// The plies asked for.
        plies: usize,
        /// The layout's blocks.
        blocks: usize,
    },
    /// Too few candidates fell within the band.
    #[error(
        "only {kept} of {tried} openings tried were within 0.5 ± {band}: widen the band (--balanced), or ask for \
         fewer openings or plies"
    )]
    TooFewBalanced {
        /// The openings kept.
        kept: usize,
        /// The candidates tried.
        tried: usize,
        /// The band.
        band: f64,
    },
}

/// Makes the openings of `settings`, telling `progress` after each candidate (tried, kept).
pub fn make(settings: &BookSettings, mut progress: impl FnMut(usize, usize)) -> Result<MadeBook, BookError> {
    for &count in &settings.block_counts {
        if pahtum::setup::check_count(count).is_err() {
            return Err(BookError::Count(count));
        }
        if count + settings.plies >= pahtum::CELLS {
            return Err(BookError::TooManyPlies {
                plies: settings.plies,
                blocks: count,
            });
        }
    }
    let mut values = Values::new(16, 0, settings.playouts, settings.seed);
    let mut openings = Vec::with_capacity(settings.count);
    let mut tried = 0;
    while openings.len() < settings.count {
        if tried == settings.tries {
            return Err(BookError::TooFewBalanced {
                kept: openings.len(),
                tried,
                band: settings.band.unwrap_or(0.5),
            });
        }
        let candidate = candidate(settings, tried);
        tried += 1;
        let opening = estimated(&mut values, candidate, settings.pie);
        if settings.band.is_none_or(|band| (opening.expected - 0.5).abs() <= band) {
            openings.push(opening);
        }
        progress(tried, openings.len());
    }
    Ok(MadeBook { openings, tried })
}

/// The `index`-th candidate of `settings`: its layout and plies, drawn from the seed and the index.
fn candidate(settings: &BookSettings, index: usize) -> (Vec<Cell>, Vec<Action>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(settings.seed ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let count = settings.block_counts[index % settings.block_counts.len()];
    let blocks = pahtum::setup::random_blocks(count, rng.random()).expect("the counts are checked");
    let mut game = Game::with_blocks(blocks, settings.pie).expect("a random layout is one");
    let mut plies = Vec::with_capacity(settings.plies);
    for _ in 0..settings.plies {
        let legal = game.legal_moves();
        let action = legal[rng.random_range(0..legal.len())];
        game = after(&game, action);
        plies.push(action);
    }
    (blocks.cells().collect(), plies)
}

/// The opening `blocks` and `plies` with its estimate.
fn estimated(values: &mut Values, (blocks, plies): (Vec<Cell>, Vec<Action>), pie: bool) -> MadeOpening {
    let mut game = Game::with_blocks(blocks.iter().copied().collect(), pie).expect("a candidate's layout");
    for &ply in &plies {
        game = after(&game, ply);
    }
    values.start_game(None);
    let expected = values.estimate(&game, Seat::First).0.expected_result();
    MadeOpening {
        blocks,
        plies,
        expected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(band: Option<f64>) -> BookSettings {
        BookSettings {
            count: 6,
            plies: 3,
            block_counts: vec![5, 7, 9],
            pie: true,
            band,
            playouts: 200,
            seed: 9,
            tries: 6 * TRIES_PER_OPENING,
        }
    }

    #[test]
    fn a_balanced_book_keeps_only_openings_near_an_even_game_and_is_the_same_every_time() {
        let book = make(&settings(Some(0.08)), |_, _| {}).unwrap();
        assert_eq!(book.openings.len(), 6);
        assert!(book.tried >= 6);
        for opening in &book.openings {
            assert!((opening.expected - 0.5).abs() <= 0.08, "{opening:?}");
            assert_eq!(opening.plies.len(), 3);
            assert!([5, 7, 9].contains(&opening.blocks.len()));
        }
        assert_eq!(make(&settings(Some(0.08)), |_, _| {}).unwrap(), book);
        // Without a band every candidate is kept: the first six, some of them outside the band.
        let all = make(&settings(None), |_, _| {}).unwrap();
        assert_eq!(all.tried, 6);
    }

    #[test]
    fn impossible_books_are_refused() {
        let mut wrong = settings(None);
        wrong.block_counts = vec![4];
        assert_eq!(make(&wrong, |_, _| {}), Err(BookError::Count(4)));
        let mut full = settings(None);
        full.plies = 44;
        assert!(matches!(make(&full, |_, _| {}), Err(BookError::TooManyPlies { .. })));
        let mut narrow = settings(Some(0.001));
        narrow.tries = 8;
        assert!(matches!(
            make(&narrow, |_, _| {}),
            Err(BookError::TooFewBalanced { tried: 8, .. })
        ));
    }
}
