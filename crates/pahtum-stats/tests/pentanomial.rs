//! Pentanomial statistics: a hand-computed example and the degenerate
//! samples that must stay finite.

mod common;

use pahtum_stats::{LayoutPair, Pentanomial, StatsError};

fn close(got: f64, want: f64, tolerance: f64) {
    assert!((got - want).abs() < tolerance, "got {got}, want {want}");
}

#[test]
fn hand_computed_example() {
    // 10 pairs scoring 1/2, 1, 1, 3/2 ×3, 2 ×4. Per pair, x = score/2:
    //   μ  = (0.25 + 2·0.5 + 3·0.75 + 4·1) / 10 = 0.75
    //   σ² = (1·0.0625 + 2·0.25 + 3·0.5625 + 4·1) / 10 − 0.75² = 0.0625
    //   Elo   = −400 log10(1/0.75 − 1) = 400 log10 3            = 190.8485
    //   error = 1.96 · sqrt(0.0625/10) · 400 / (ln 10 · 0.75 · 0.25) = 143.5592
    //   nElo  = 0.25 / sqrt(2 · 0.0625) · 800 / ln 10            = 245.6741
    //   error = 1.96 / sqrt(2 · 10) · 800 / ln 10                 = 152.2676
    let stats = Pentanomial {
        counts: [0, 1, 2, 3, 4],
    }
    .stats()
    .unwrap();
    assert_eq!(stats.pairs, 10);
    close(stats.score, 0.75, 1e-15);
    close(stats.elo, 400.0 * 3f64.log10(), 1e-9);
    close(stats.elo, 190.848_501_887_865, 1e-9);
    close(stats.elo_error95, 143.559_233_301_823_35, 1e-9);
    close(stats.nelo, 245.674_058_548_550_1, 1e-9);
    close(stats.nelo_error95, 152.267_561_054_491_38, 1e-9);
    assert!(!stats.regularized);
}

#[test]
fn mirrored_results_mirror_the_elo() {
    let even = Pentanomial {
        counts: [1, 2, 4, 2, 1],
    }
    .stats()
    .unwrap();
    assert_eq!((even.score, even.elo, even.nelo), (0.5, 0.0, 0.0));
    assert!(even.elo_error95 > 0.0);
    let good = Pentanomial {
        counts: [1, 2, 3, 5, 2],
    }
    .stats()
    .unwrap();
    let bad = Pentanomial {
        counts: [2, 5, 3, 2, 1],
    }
    .stats()
    .unwrap();
    close(good.elo, -bad.elo, 1e-9);
    close(good.nelo, -bad.nelo, 1e-9);
    close(good.elo_error95, bad.elo_error95, 1e-9);
}

#[test]
fn errors_shrink_with_the_square_root_of_the_pairs() {
    let small = Pentanomial {
        counts: [1, 3, 5, 4, 2],
    }
    .stats()
    .unwrap();
    let large = Pentanomial {
        counts: [4, 12, 20, 16, 8],
    }
    .stats()
    .unwrap();
    close(large.elo, small.elo, 1e-9);
    close(large.elo_error95, small.elo_error95 / 2.0, 1e-9);
    close(large.nelo_error95, small.nelo_error95 / 2.0, 1e-9);
}

#[test]
fn one_result_only_is_regularized_not_infinite() {
    for (counts, sign) in [([0, 0, 0, 0, 5], 1.0), ([5, 0, 0, 0, 0], -1.0), ([0, 0, 7, 0, 0], 0.0)] {
        let stats = Pentanomial { counts }.stats().unwrap();
        assert!(stats.regularized, "{counts:?}");
        for value in [stats.elo, stats.elo_error95, stats.nelo, stats.nelo_error95] {
            assert!(value.is_finite(), "{counts:?}: {stats:?}");
        }
        assert!(
            (stats.elo.clamp(-1.0, 1.0) - sign).abs() < 1e-9,
            "{counts:?}: {stats:?}"
        );
        assert!(stats.elo_error95 > 0.0 && stats.nelo_error95 > 0.0);
    }
    let all_wins = Pentanomial {
        counts: [0, 0, 0, 0, 5],
    }
    .stats()
    .unwrap();
    assert_eq!(all_wins.score, 1.0);
    assert!(all_wins.elo > 800.0, "{all_wins:?}");
    let all_draws = Pentanomial {
        counts: [0, 0, 7, 0, 0],
    }
    .stats()
    .unwrap();
    close(all_draws.elo, 0.0, 1e-9);
    close(all_draws.nelo, 0.0, 1e-9);
}

#[test]
fn an_empty_sample_is_an_error() {
    assert_eq!(Pentanomial::default().stats(), Err(StatsError::NoPairs));
}

#[test]
fn simulated_match_recovers_the_elo_difference() {
    let mut rng = common::rng(17);
    let pairs: Vec<LayoutPair> = (0..20_000)
        .map(|n| {
            let score = common::layout_pair_score(&mut rng, 40.0, 60.0, 0.3);
            // Alternate which bot is listed first; the counts are from bot 3's side.
            if n % 2 == 0 {
                LayoutPair {
                    a: 3,
                    b: 8,
                    score_a: score,
                }
            } else {
                LayoutPair {
                    a: 8,
                    b: 3,
                    score_a: 2.0 - score,
                }
            }
        })
        .collect();
    let stats = Pentanomial::from_layout_pairs(&pairs, 3, 8).unwrap().stats().unwrap();
    assert_eq!(stats.pairs, 20_000);
    // Within twice the 95% error: fails by chance about once in 10^4.
    assert!((stats.elo - 40.0).abs() < 2.0 * stats.elo_error95, "{stats:?}");
    assert!(stats.elo_error95 < 5.0, "{stats:?}");
}
