//! The pairing rule: which layout pairs a league plays next. A pure function
//! of the entrants' ratings, so that every machine (every shard) decides the
//! same round from the same journal.
//!
//! # Who plays
//!
//! An active entrant *needs games* while it is unrated or the half-width of
//! its 95% rating interval is wider than the league's target. The entrants in
//! need are served in order: unrated ones first (the newest, with the fewest
//! games, first), then the widest intervals first. Each meets up to
//! `opponents` active entrants, one layout pair each (two games, one layout,
//! seats swapped, which cancels the layout's luck and the first move's
//! advantage), never a pair whose layout rounds the rules have used up, and
//! never the same opponent twice in one round.
//!
//! # Whom it meets, and why
//!
//! A game tells the most about a rating when its outcome is least certain:
//! the Fisher information of one game on the logistic Elo model is
//! `p(1 - p)`, largest (0.25) between equals, and a quarter of that at 380
//! Elo apart. So opponents are chosen *near its rating*. But not all at one
//! point: the rating fit ties an entrant to the field through its opponents,
//! and one opponent's own error would move it whole; opponents at different
//! distances average their errors out, keep the field connected, and check
//! the model's transitivity. So the opponents are *spread*: slot `j` aims at
//! the entrant's rating plus `0, +w, -w, +2w, -2w` in turn, `w` its
//! interval's half-width (the range its true rating is likely in), and takes
//! the unchosen candidate nearest to that aim, each earlier meeting of the two
//! counting as `w/2` further (so that it meets new opponents rather than the
//! same neighbour again), preferring among equally near ones the better-known
//! (narrower interval), then the lower number. Each round starts one aim
//! further along than the last (by the layout pairs it played), so that an
//! entrant meeting one opponent a round still meets the field spread around
//! it. As the interval narrows the opponents close in.
//!
//! An unrated entrant has no rating to aim near: its opponents are taken at
//! the field's quantiles instead (the median first, then the quartiles, then
//! the octiles...), so that its first round brackets its strength as a binary
//! search would, and the next round aims near the rating that gave.

/// The aims a rated entrant's opponents are taken at, in turn: its rating, then one half-width above and
/// below, then two.
const AIMS: usize = 5;

/// What the rule knows of one entrant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entrant {
    /// Whether it still plays (not retired).
    pub active: bool,
    /// Its rating and the half-width of its 95% interval, in Elo; `None` while unrated.
    pub rating: Option<(f64, f64)>,
    /// Its games so far.
    pub games: u64,
}

/// The entrants that need games, in the order they are served (see the module documentation).
pub fn in_need(entrants: &[Entrant], target: f64) -> Vec<usize> {
    let mut needy: Vec<usize> = (0..entrants.len())
        .filter(|&i| entrants[i].active && entrants[i].rating.is_none_or(|(_, width)| width > target))
        .collect();
    needy.sort_by(|&i, &j| {
        let key = |e: &Entrant| (e.rating.is_some(), e.games);
        let width = |e: &Entrant| e.rating.map_or(f64::INFINITY, |(_, width)| width);
        key(&entrants[i])
            .cmp(&key(&entrants[j]))
            .then(width(&entrants[j]).total_cmp(&width(&entrants[i])))
            .then(j.cmp(&i))
    });
    needy
}

/// Up to `opponents` opponents for entrant `who` (see the module documentation), among the active
/// entrants for which `may_meet(who, other)` holds, strongest aims first.
pub fn opponents_of(
    entrants: &[Entrant],
    who: usize,
    opponents: usize,
    may_meet: impl Fn(usize, usize) -> bool,
    met: impl Fn(usize, usize) -> u32,
) -> Vec<usize> {
    let mut candidates: Vec<usize> = (0..entrants.len())
        .filter(|&other| other != who && entrants[other].active && may_meet(who, other))
        .collect();
    let mut chosen = Vec::with_capacity(opponents);
    // Where each candidate stands: its rating, or for the unrated, below every rated one by its number.
    let place = |i: usize| entrants[i].rating.map_or(f64::NEG_INFINITY, |(elo, _)| elo);
    let width = |i: usize| entrants[i].rating.map_or(f64::INFINITY, |(_, width)| width);
    match entrants[who].rating {
        Some((elo, half_width)) => {
            // Each round starts one aim further along, so that an entrant with few opponents a round still
            // meets the field spread out over its rounds.
            let turn = (entrants[who].games / 2) as usize;
            // How far a candidate is from an aim, each earlier meeting counting as half an interval further.
            let distance = |candidate: usize, aim: f64| {
                (place(candidate) - aim).abs() + f64::from(met(who, candidate)) * half_width / 2.0
            };
            for slot in 0..opponents {
                if candidates.is_empty() {
                    break;
                }
                let step = (slot + turn) % AIMS;
                let steps = step.div_ceil(2) as f64;
                let aim = elo + if step % 2 == 1 { steps } else { -steps } * half_width;
                let best = (0..candidates.len())
                    .min_by(|&x, &y| {
                        let (a, b) = (candidates[x], candidates[y]);
                        distance(a, aim)
                            .total_cmp(&distance(b, aim))
                            .then(width(a).total_cmp(&width(b)))
                            .then(a.cmp(&b))
                    })
                    .expect("a candidate");
                chosen.push(candidates.swap_remove(best));
            }
        }
        None => {
            candidates.sort_by(|&a, &b| place(a).total_cmp(&place(b)).then(a.cmp(&b)));
            let mut free = vec![true; candidates.len()];
            for quantile in quantiles(opponents.min(candidates.len())) {
                // The candidate at the quantile of the field, or the nearest one not chosen yet.
                let aim = (quantile * (candidates.len() - 1) as f64).round() as usize;
                let at = (0..candidates.len())
                    .filter(|&at| free[at])
                    .min_by_key(|&at| (at.abs_diff(aim), at))
                    .expect("fewer quantiles than candidates");
                free[at] = false;
                chosen.push(candidates[at]);
            }
        }
    }
    chosen
}

/// The first `count` quantiles in the order an unrated entrant meets them: 1/2, 1/4, 3/4, 1/8, 3/8, ...
fn quantiles(count: usize) -> Vec<f64> {
    let mut quantiles = Vec::with_capacity(count);
    let mut denominator = 2u32;
    while quantiles.len() < count {
        for numerator in (1..denominator).step_by(2) {
            if quantiles.len() < count {
                quantiles.push(f64::from(numerator) / f64::from(denominator));
            }
        }
        denominator *= 2;
    }
    quantiles
}

/// The layout pairs of the next round: for each entrant in need, in order, up to `opponents` opponents
/// for which `may_meet` holds (no pair twice in the round); each pair as `(lower, higher)` numbers.
/// `met(a, b)` is how often two entrants met before.
pub fn round(
    entrants: &[Entrant],
    target: f64,
    opponents: usize,
    may_meet: impl Fn(usize, usize) -> bool,
    met: impl Fn(usize, usize) -> u32,
) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut paired = std::collections::HashSet::new();
    for who in in_need(entrants, target) {
        let chosen = opponents_of(
            entrants,
            who,
            opponents,
            |a, b| !paired.contains(&(a.min(b), a.max(b))) && may_meet(a, b),
            &met,
        );
        for other in chosen {
            let pair = (who.min(other), who.max(other));
            paired.insert(pair);
            pairs.push(pair);
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rated(elo: f64, width: f64) -> Entrant {
        Entrant {
            active: true,
            rating: Some((elo, width)),
            games: 10,
        }
    }

    #[test]
    fn the_unrated_come_first_then_the_widest() {
        let new = Entrant {
            active: true,
            rating: None,
            games: 0,
        };
        let retired = Entrant { active: false, ..new };
        let field = [rated(0.0, 80.0), new, rated(10.0, 200.0), rated(5.0, 20.0), retired];
        assert_eq!(in_need(&field, 50.0), [1, 2, 0]);
    }

    #[test]
    fn a_rated_entrant_meets_the_nearest_then_spreads_out() {
        let field: Vec<Entrant> = (0..9).map(|i| rated(f64::from(i) * 100.0, 60.0)).collect();
        let chosen = opponents_of(&field, 4, 3, |_, _| true, |_, _| 0);
        // Aims at 400, 460, 340: the nearest of the others to each.
        assert_eq!(chosen, [3, 5, 2]);
        let chosen = opponents_of(&field, 4, 3, |_, other| other != 3, |_, _| 0);
        assert_eq!(chosen, [5, 6, 2]);
    }

    #[test]
    fn an_unrated_entrant_meets_the_median_then_the_quartiles() {
        let mut field: Vec<Entrant> = (0..9).map(|i| rated(f64::from(i) * 100.0, 60.0)).collect();
        field.push(Entrant {
            active: true,
            rating: None,
            games: 0,
        });
        assert_eq!(quantiles(5), [0.5, 0.25, 0.75, 0.125, 0.375]);
        assert_eq!(opponents_of(&field, 9, 3, |_, _| true, |_, _| 0), [4, 2, 6]);
    }

    #[test]
    fn a_round_never_pairs_twice_nor_beyond_the_rules() {
        let field: Vec<Entrant> = (0..6).map(|i| rated(f64::from(i) * 10.0, 100.0)).collect();
        let pairs = round(&field, 50.0, 3, |a, b| (a, b) != (0, 1) && (a, b) != (1, 0), |_, _| 0);
        let mut unique = pairs.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), pairs.len(), "{pairs:?}");
        assert!(!pairs.contains(&(0, 1)));
        assert!(pairs.iter().all(|&(a, b)| a < b));
    }
}
