//! Whatever the results, every number that comes out is finite: random
//! small result sets through every entry point.

use pahtum_stats::{Anchor, FitOptions, Game, PairMatrix, Pentanomial, Sprt, StatsError, fit};
use proptest::prelude::*;

/// A pool of 1 to 6 players and up to 40 games among them.
fn pool() -> impl Strategy<Value = (usize, Vec<Game>)> {
    (1usize..=6).prop_flat_map(|players| {
        let games = if players < 2 {
            Just(Vec::new()).boxed()
        } else {
            let game = (0..players, 1..players, 0u8..=2).prop_map(move |(a, offset, half)| Game {
                a,
                b: (a + offset) % players,
                score_a: f64::from(half) / 2.0,
            });
            prop::collection::vec(game, 0..40).boxed()
        };
        (Just(players), games)
    })
}

fn options(players: usize) -> impl Strategy<Value = FitOptions> {
    let prior = prop_oneof![Just(0.0), Just(2.0), 0.1f64..20.0];
    let anchor = prop_oneof![
        Just(Anchor::PoolAverage),
        (0..players, -3000.0f64..3000.0).prop_map(|(index, rating)| Anchor::Player { index, rating }),
    ];
    (prior, anchor).prop_map(|(prior_draws, anchor)| FitOptions { prior_draws, anchor })
}

proptest! {
    #[test]
    fn fits_are_finite_or_explained(((players, games), options) in pool().prop_flat_map(|(n, g)| ((Just(n), Just(g)), options(n)))) {
        let matrix = PairMatrix::from_games(players, &games).unwrap();
        match fit(&matrix, &options) {
            Ok(r) => {
                for p in &r.players {
                    for value in [p.rating, p.lower, p.upper, p.std_error] {
                        prop_assert!(value.is_finite(), "{:?}", p);
                    }
                    prop_assert!(p.lower <= p.rating + 1e-9 && p.rating <= p.upper + 1e-9, "{:?}", p);
                }
                for row in &r.los {
                    prop_assert!(row.iter().all(|l| (0.0..=1.0).contains(l)));
                }
                prop_assert!(r.ranking.iter().flat_map(|e| e.los_next).all(|l| (0.0..=1.0).contains(&l)));
            }
            Err(StatsError::Disconnected { components }) => {
                prop_assert!(components.len() > 1);
                prop_assert_eq!(components.iter().map(Vec::len).sum::<usize>(), players);
            }
            // Without a prior an unbeaten or winless player has no finite
            // maximum-likelihood rating: an error, never infinity.
            Err(StatsError::NoConvergence { .. } | StatsError::IntervalFailed { .. })
                if options.prior_draws == 0.0 => {}
            Err(other) => prop_assert!(false, "unexpected error: {}", other),
        }
    }

    #[test]
    fn pentanomial_and_sprt_are_finite(
        counts in prop::array::uniform5(0u64..60),
        elo0 in -50.0f64..50.0,
        width in 0.5f64..50.0,
    ) {
        let results = Pentanomial { counts };
        match results.stats() {
            Ok(s) => {
                for value in [s.score, s.elo, s.elo_error95, s.nelo, s.nelo_error95] {
                    prop_assert!(value.is_finite(), "{:?}", s);
                }
                prop_assert!(s.elo_error95 >= 0.0 && s.nelo_error95 > 0.0);
            }
            Err(err) => prop_assert_eq!(err, StatsError::NoPairs),
        }
        let sprt = Sprt::new(elo0, elo0 + width, 0.05, 0.05).unwrap();
        prop_assert!(sprt.test(&results).llr.is_finite());
    }
}
