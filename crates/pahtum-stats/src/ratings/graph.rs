//! Who met whom.
//!
//! Ratings only compare players that are linked by a chain of games. If the
//! pool splits into groups that never met, a joint fit would still return
//! numbers (the prior would tie each group to zero), but the gap between
//! the groups would be pure invention. So the fit refuses and names the
//! groups instead.

use super::matrix::PairMatrix;

/// The connected components of the "played at least one game" graph.
/// Each component is sorted; components are ordered by their first player.
pub(super) fn components(matrix: &PairMatrix) -> Vec<Vec<usize>> {
    let n = matrix.players();
    let mut seen = vec![false; n];
    let mut components = Vec::new();
    for start in 0..n {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        let mut component = vec![start];
        let mut next = 0;
        while let Some(&player) = component.get(next) {
            next += 1;
            for (other, seen_other) in seen.iter_mut().enumerate() {
                if !*seen_other && matrix.games(player, other) > 0 {
                    *seen_other = true;
                    component.push(other);
                }
            }
        }
        component.sort_unstable();
        components.push(component);
    }
    components
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;

    #[test]
    fn groups_and_loners_are_found() {
        let games = [
            Game {
                a: 0,
                b: 3,
                score_a: 1.0,
            },
            Game {
                a: 3,
                b: 5,
                score_a: 0.0,
            },
            Game {
                a: 1,
                b: 2,
                score_a: 0.5,
            },
        ];
        let matrix = PairMatrix::from_games(6, &games).unwrap();
        assert_eq!(components(&matrix), vec![vec![0, 3, 5], vec![1, 2], vec![4]]);
    }
}
