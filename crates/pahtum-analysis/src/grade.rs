//! Grading a move by what it cost, and which outcome a value stands for.
//!
//! **Exact values** (both sides of the move solved) are graded in points of
//! final margin and by the outcome: a move that turns a win into a draw or a
//! loss, or a draw into a loss, is a blunder whatever the points; otherwise
//! a loss of at least [`EXACT_MISTAKE`] points (a run of four, the second
//! scoring unit) is a mistake and one of at least [`EXACT_INACCURACY`] (a run
//! of three, the smallest unit) an inaccuracy.
//!
//! **Estimates** are graded as Lichess grades engine evaluations: by the drop
//! in winning chances. Lichess's thresholds (0.1, 0.2, 0.3 on its scale from
//! -1 to 1) are [`ESTIMATE_INACCURACY`], [`ESTIMATE_MISTAKE`] and
//! [`ESTIMATE_BLUNDER`] in expected result from 0 to 1. An estimate's outcome
//! is a win from [`WON`] up, a loss from [`LOST`] down, and a draw between:
//! the search's expected result is noisy, so only a clear side counts.

use std::cmp::Ordering;

use pahtum_record::annotations::{Grade, Value};

/// Points of margin lost for an inaccuracy where exact: a run of three.
pub const EXACT_INACCURACY: i32 = 3;
/// Points of margin lost for a mistake where exact: a run of four.
pub const EXACT_MISTAKE: i32 = 10;
/// Expected result lost for an inaccuracy where estimated.
pub const ESTIMATE_INACCURACY: f64 = 0.05;
/// Expected result lost for a mistake where estimated.
pub const ESTIMATE_MISTAKE: f64 = 0.10;
/// Expected result lost for a blunder where estimated.
pub const ESTIMATE_BLUNDER: f64 = 0.15;
/// An estimate at least this good counts as a win.
pub const WON: f64 = 2.0 / 3.0;
/// An estimate at most this good counts as a loss.
pub const LOST: f64 = 1.0 / 3.0;

/// The outcome a value stands for, for its player: `Greater` a win, `Equal`
/// a draw, `Less` a loss.
pub fn outcome(value: &Value) -> Ordering {
    match value.margin {
        Some(margin) => margin.cmp(&0),
        None if value.expected_result() >= WON => Ordering::Greater,
        None if value.expected_result() <= LOST => Ordering::Less,
        None => Ordering::Equal,
    }
}

/// What going from `before` to `after` cost the mover: points of margin when
/// both are exact, expected result otherwise (to four decimals); never below
/// 0 (an estimate may rise by noise, and no move gains value).
pub fn loss(before: &Value, after: &Value) -> f64 {
    let lost = match (before.margin, after.margin) {
        (Some(before), Some(after)) => f64::from(before - after),
        _ => before.expected_result() - after.expected_result(),
    };
    // To the estimates' four decimals, without the subtraction's float noise.
    ((lost * 10_000.0).round() / 10_000.0).max(0.0)
}

/// The grade of a move from `before` to `after`, if it is a mistake at all.
pub fn grade(before: &Value, after: &Value) -> Option<Grade> {
    let lost = loss(before, after);
    if before.exact && after.exact {
        if outcome(after) < outcome(before) {
            Some(Grade::Blunder)
        } else if lost >= f64::from(EXACT_MISTAKE) {
            Some(Grade::Mistake)
        } else if lost >= f64::from(EXACT_INACCURACY) {
            Some(Grade::Inaccuracy)
        } else {
            None
        }
    } else if lost >= ESTIMATE_BLUNDER {
        Some(Grade::Blunder)
    } else if lost >= ESTIMATE_MISTAKE {
        Some(Grade::Mistake)
    } else if lost >= ESTIMATE_INACCURACY {
        Some(Grade::Inaccuracy)
    } else {
        None
    }
}

/// Whether a move from `before` to `after` lost the mover's outcome: a worse
/// outcome, and where it is estimated, at least a mistake's worth of expected
/// result (so that noise across a boundary is no losing move).
pub fn loses(before: &Value, after: &Value) -> bool {
    outcome(after) < outcome(before) && (before.exact && after.exact || loss(before, after) >= ESTIMATE_MISTAKE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_outcome_changes_are_blunders_whatever_the_points() {
        assert_eq!(grade(&Value::exact(1), &Value::exact(0)), Some(Grade::Blunder));
        assert_eq!(grade(&Value::exact(30), &Value::exact(20)), Some(Grade::Mistake));
        assert_eq!(grade(&Value::exact(30), &Value::exact(27)), Some(Grade::Inaccuracy));
        assert_eq!(grade(&Value::exact(30), &Value::exact(28)), None);
        assert!(loses(&Value::exact(0), &Value::exact(-1)));
        assert!(!loses(&Value::exact(30), &Value::exact(1)));
    }

    #[test]
    fn estimates_are_graded_by_the_drop_in_expected_result() {
        let grade_of = |before: f64, after: f64| grade(&Value::estimated(before), &Value::estimated(after));
        assert_eq!(grade_of(0.6, 0.56), None);
        assert_eq!(loss(&Value::estimated(0.5418), &Value::estimated(0.4582)), 0.0836);
        assert_eq!(grade_of(0.6, 0.54), Some(Grade::Inaccuracy));
        assert_eq!(grade_of(0.6, 0.49), Some(Grade::Mistake));
        assert_eq!(grade_of(0.6, 0.44), Some(Grade::Blunder));
        assert_eq!(grade_of(0.4, 0.6), None);
        // Across the boundary of a win by noise alone: not a losing move.
        assert!(!loses(&Value::estimated(0.67), &Value::estimated(0.65)));
        assert!(loses(&Value::estimated(0.7), &Value::estimated(0.5)));
        // From an estimate to a proven loss.
        assert!(loses(&Value::estimated(0.5), &Value::exact(-3)));
    }
}
