//! Seeded simulation of games and layout pairs from known ratings, shared
//! by the integration tests. The Elo formula is written out again here so
//! the tests do not check the crate against itself.

#![allow(dead_code)] // each test file uses its own subset

use pahtum_stats::Game;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// Expected score per game of a player `elo` points above its opponent.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// `-400 log10(1/s - 1)`.
pub fn elo_from_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// One game's score for a player expected to score `p`. A share
/// `draw_share` of the smaller of the win and loss chances becomes draws,
/// which keeps the expected score at `p`.
pub fn game_score(rng: &mut ChaCha8Rng, p: f64, draw_share: f64) -> f64 {
    let draw = draw_share * 2.0 * p.min(1.0 - p);
    let u: f64 = rng.random();
    if u < p - draw / 2.0 {
        1.0
    } else if u < p + draw / 2.0 {
        0.5
    } else {
        0.0
    }
}

/// A round robin with `games_per_pair` games between every two players.
pub fn round_robin(rng: &mut ChaCha8Rng, ratings: &[f64], games_per_pair: usize, draw_share: f64) -> Vec<Game> {
    let mut games = Vec::new();
    for a in 0..ratings.len() {
        for b in a + 1..ratings.len() {
            let p = expected_score(ratings[a] - ratings[b]);
            for _ in 0..games_per_pair {
                let score_a = game_score(rng, p, draw_share);
                games.push(Game { a, b, score_a });
            }
        }
    }
    games
}

/// The score over one layout pair of a bot `elo` points stronger, when
/// the first seat is worth `seat_bias` Elo (so the two games differ).
pub fn layout_pair_score(rng: &mut ChaCha8Rng, elo: f64, seat_bias: f64, draw_share: f64) -> f64 {
    let first = game_score(rng, expected_score(elo + seat_bias), draw_share);
    let second = game_score(rng, expected_score(elo - seat_bias), draw_share);
    first + second
}

/// The ratings minus their mean.
pub fn centred(ratings: &[f64]) -> Vec<f64> {
    let mean = ratings.iter().sum::<f64>() / ratings.len() as f64;
    ratings.iter().map(|r| r - mean).collect()
}
