//! The sequential test: bounds, the LLR formula, and decisions on
//! simulated matches.

mod common;

use pahtum_stats::sprt::MIN_PAIRS;
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
fn llr_is_the_normal_approximation() {
    // μ = 0.75, σ² = 0.0625 over 10 pairs (see the pentanomial example);
    // s0 = 0.5, s1 = 1 / (1 + 10^(−10/400)).
    let s1 = 1.0 / (1.0 + 10f64.powf(-10.0 / 400.0));
    let want = 10.0 * (s1 - 0.5) * (2.0 * 0.75 - 0.5 - s1) / (2.0 * 0.0625);
    let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
    let llr = sprt.llr(&Pentanomial {
        counts: [0, 1, 2, 3, 4],
    });
    assert!((llr - want).abs() < 1e-12, "{llr} vs {want}");
    assert!((llr - 0.558_928_081_181_839_3).abs() < 1e-12);
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
    let wins = decide([0, 0, 0, 0, 20]);
    assert!(wins.llr.is_finite());
    assert_eq!(wins.status, SprtStatus::AcceptH1);
    assert_eq!(decide([20, 0, 0, 0, 0]).status, SprtStatus::AcceptH0);
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
