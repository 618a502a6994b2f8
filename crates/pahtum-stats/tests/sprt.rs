//! The sequential test: bounds, the LLR formula, and decisions on
//! simulated matches.

mod common;

use pahtum_stats::sprt::{MIN_PAIRS, PRIOR_PAIRS};
use pahtum_stats::{Pentanomial, Sprt, SprtStatus};

#[test]
fn bounds_follow_wald() {
    let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
    assert!((sprt.lower_bound() - (0.05f64 / 0.95).ln()).abs() < 1e-15);
    assert!((sprt.upper_bound() - (0.95f64 / 0.05).ln()).abs() < 1e-15);
    assert!((sprt.upper_bound() - 2.944_438_979_166_440_3).abs() < 1e-12);
    let skewed = Sprt::new(0.0, 5.0, 0.1, 0.2).unwrap();
    assert!((skewed.lower_bound() - (0.2f64 / 0.9).ln()).abs() < 1e-15);
    assert!((skewed.upper_bound() - 8f64.ln()).abs() < 1e-15);
}

#[test]
fn llr_is_the_normal_approximation_with_the_prior() {
    // Counts [0, 1, 2, 3, 4] plus half a pair in each cell: weights
    // [½, 1½, 2½, 3½, 4½] over 12½, so μ = 8.75 / 12.5 = 0.7 and
    // σ² = Σ w (x − 0.7)² / 12.5; s0 = 0.5, s1 = 1 / (1 + 10^(−10/400)).
    assert_eq!(PRIOR_PAIRS, 0.5);
    let weights = [0.5, 1.5, 2.5, 3.5, 4.5];
    let xs = [0.0, 0.25, 0.5, 0.75, 1.0];
    let mean: f64 = weights.iter().zip(xs).map(|(w, x)| w * x).sum::<f64>() / 12.5;
    assert!((mean - 0.7).abs() < 1e-15);
    let variance: f64 = weights.iter().zip(xs).map(|(w, x)| w * (x - mean).powi(2)).sum::<f64>() / 12.5;
    let s1 = 1.0 / (1.0 + 10f64.powf(-10.0 / 400.0));
    let want = 10.0 * (s1 - 0.5) * (2.0 * mean - 0.5 - s1) / (2.0 * variance);
    let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
    let llr = sprt.llr(&Pentanomial {
        counts: [0, 1, 2, 3, 4],
    });
    assert!((llr - want).abs() < 1e-12, "{llr} vs {want}");
}

#[test]
fn a_few_pairs_of_one_score_prove_nothing() {
    // The case that made the prior: two engines that draw almost every
    // game, tested for non-regression. 22 pairs, all 1–1, gave an LLR of
    // 66 without the prior and stopped the test.
    let sprt: Sprt = "-10,0".parse().unwrap();
    let outcome = sprt.test(&Pentanomial {
        counts: [0, 0, 22, 0, 0],
    });
    assert_eq!(outcome.status, SprtStatus::Continue, "{outcome:?}");
    assert!(outcome.llr.abs() < 1.0, "{outcome:?}");
}

#[test]
fn too_few_pairs_continue_with_zero_llr() {
    let sprt: Sprt = "0,5".parse().unwrap();
    let mut results = Pentanomial::default();
    for _ in 1..MIN_PAIRS {
        results.add(2.0).unwrap();
        let outcome = sprt.test(&results);
        assert_eq!((outcome.llr, outcome.status), (0.0, SprtStatus::Continue));
    }
}

#[test]
fn one_repeated_result_still_decides_without_nan() {
    let sprt: Sprt = "0,5".parse().unwrap();
    let decide = |counts| sprt.test(&Pentanomial { counts });
    // With the prior's variance, 20 lost pairs are not yet enough against
    // bounds 5 Elo apart; 40 are.
    assert_eq!(decide([0, 0, 0, 0, 20]).status, SprtStatus::Continue);
    let wins = decide([0, 0, 0, 0, 40]);
    assert!(wins.llr.is_finite());
    assert_eq!(wins.status, SprtStatus::AcceptH1);
    assert_eq!(decide([40, 0, 0, 0, 0]).status, SprtStatus::AcceptH0);
    // Only draws: the bots look equal, which is H0 here.
    let draws = decide([0, 0, 400, 0, 0]);
    assert!(draws.llr.is_finite());
    assert_eq!(draws.status, SprtStatus::AcceptH0);
}

/// Plays layout pairs until the test decides; the status and the pairs used.
fn run(sprt: &Sprt, elo: f64, seed: u64) -> (SprtStatus, u64) {
    let mut rng = common::rng(seed);
    let mut results = Pentanomial::default();
    loop {
        results
            .add(common::layout_pair_score(&mut rng, elo, 50.0, 0.3))
            .unwrap();
        let outcome = sprt.test(&results);
        assert!(outcome.llr.is_finite());
        if outcome.status != SprtStatus::Continue || results.pairs() >= 100_000 {
            return (outcome.status, results.pairs());
        }
    }
}

/// How often, over 100 seeded matches, the test accepts `wanted`.
fn acceptance_rate(sprt: &Sprt, elo: f64, wanted: SprtStatus) -> f64 {
    let hits = (0..100).filter(|&seed| run(sprt, elo, seed).0 == wanted).count();
    hits as f64 / 100.0
}

#[test]
fn a_clearly_better_bot_passes() {
    let sprt: Sprt = "0,20".parse().unwrap();
    let (status, pairs) = run(&sprt, 80.0, 1);
    assert_eq!(status, SprtStatus::AcceptH1);
    assert!(pairs < 2_000, "{pairs} pairs");
    // β = 0.05 is the risk at elo1; far above it, failures are rare.
    assert!(acceptance_rate(&sprt, 40.0, SprtStatus::AcceptH1) >= 0.95);
}

#[test]
fn equal_bots_are_found_equal() {
    let sprt: Sprt = "0,20".parse().unwrap();
    assert_eq!(run(&sprt, 0.0, 2).0, SprtStatus::AcceptH0);
    // α = 0.05: at elo0 the test wrongly passes about 5% of the time.
    let rate = acceptance_rate(&sprt, 0.0, SprtStatus::AcceptH0);
    assert!(rate >= 0.88, "accepted H0 in {rate} of the runs");
}

#[test]
fn at_elo1_the_test_passes_with_probability_one_minus_beta() {
    let sprt: Sprt = "0,20".parse().unwrap();
    let rate = acceptance_rate(&sprt, 20.0, SprtStatus::AcceptH1);
    assert!((0.88..=1.0).contains(&rate), "accepted H1 in {rate} of the runs");
}
