//! The pairing of one Swiss round: players of equal score meet, no pair meets twice, one bye when the field
//! is odd.
//!
//! The order of preference is the Dutch system's (FIDE Handbook C.04.3, "FIDE (Dutch) System"), as far as it
//! applies to layout pairs, in which each player plays both colours so that the colour rules (its criteria on
//! colour preferences and differences) have nothing to decide:
//! * players are ranked by score, then by pairing number (their order in the field: the seed);
//! * the bye (C.04.1 (d): at most one per player) goes to the lowest-ranked player who has had none, and
//!   whose bye leaves the others a pairing (once every player has had one, to the lowest-ranked of those
//!   with the fewest); it scores as a won round (C.04.1 (c): the points of a win), a layout pair won: 2;
//! * each score group is a bracket; its upper half S1 meets its lower half S2 in order (S1\[i\] with
//!   S2\[i\]); where that would repeat a pairing (C.04.1 (b): no two players meet twice), the transpositions of
//!   S2 are tried before the exchanges between S1 and S2, and a player its bracket cannot pair floats down
//!   to the next bracket, where it is paired first.
//!
//! The pairing is found by a depth-first search that takes, for the highest-ranked player not yet paired,
//! its opponents in that order and backs out of a choice that leaves the rest unpairable, so the first
//! complete pairing it finds is the one the order prefers. Where no complete pairing exists at all (a small
//! field after many rounds), the round is paired as far as it can be and the rest sit out; no pairs at all
//! says no pair can be made. A bye after which some player has no opponent it has not met is skipped at
//! once, and the search tries at most [`MAX_TRIES`] opponents for each choice of bye, so that a field whose
//! complete pairing is hard to rule out is paired greedily in moments rather than searched for hours: the
//! same pairing on every machine, either way.

use std::cell::Cell;

/// The most opponents the search for a complete pairing tries for one choice of bye.
pub const MAX_TRIES: u64 = 200_000;

/// A player of a Swiss round, as the pairing sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Player {
    /// Its score so far (a won game 1, a draw a half, a bye what the rules give).
    pub score: f64,
    /// The byes it has had.
    pub byes: u32,
}

/// One round's pairing: the pairs, each the higher-ranked player first, and the bye.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pairing {
    /// The pairs, by the players' pairing numbers (their index in the field), in rank order.
    pub pairs: Vec<(usize, usize)>,
    /// The player given the bye, if the field is odd.
    pub bye: Option<usize>,
}

/// The pairing of the next round of `players` (by pairing number), `met(a, b)` whether two have met.
pub fn pair(players: &[Player], met: impl Fn(usize, usize) -> bool) -> Pairing {
    let mut ranked: Vec<usize> = (0..players.len()).collect();
    ranked.sort_by(|&a, &b| players[b].score.total_cmp(&players[a].score).then(a.cmp(&b)));
    let brackets = brackets(players, &ranked);
    let search = Search {
        ranked: &ranked,
        brackets: &brackets,
        met: &met,
        tries: Cell::new(0),
    };
    let byes: Vec<Option<usize>> = if ranked.len() % 2 == 0 {
        vec![None]
    } else {
        // Those with the fewest byes (none, until every player has had one), the lowest-ranked first.
        let fewest = players.iter().map(|player| player.byes).min().unwrap_or(0);
        ranked
            .iter()
            .rev()
            .filter(|&&p| players[p].byes == fewest)
            .map(|&p| Some(p))
            .collect()
    };
    for bye in &byes {
        let mut paired = vec![false; players.len()];
        if let Some(bye) = bye {
            paired[*bye] = true;
        }
        // A bye after which a player has no opponent it has not met leaves no pairing: skipped at once.
        let stranded =
            (0..players.len()).any(|p| !paired[p] && (0..players.len()).all(|o| o == p || paired[o] || met(p, o)));
        if stranded {
            continue;
        }
        // Each choice of bye has the search's tries of its own.
        search.tries.set(0);
        let mut pairs = Vec::new();
        if search.complete(&mut paired, &mut pairs) {
            return Pairing { pairs, bye: *bye };
        }
    }
    // No complete pairing: as many pairs as the preference order gives, greedily.
    let bye = byes.first().copied().flatten();
    let mut paired = vec![false; players.len()];
    if let Some(bye) = bye {
        paired[bye] = true;
    }
    let mut pairs = Vec::new();
    for &player in &ranked {
        if paired[player] {
            continue;
        }
        if let Some(opponent) = search
            .preferences(player, &paired)
            .into_iter()
            .find(|&o| !met(player, o))
        {
            paired[player] = true;
            paired[opponent] = true;
            pairs.push((player, opponent));
        }
    }
    Pairing { pairs, bye }
}

/// Each player's bracket: the index, in rank order, of its score group.
fn brackets(players: &[Player], ranked: &[usize]) -> Vec<usize> {
    let mut bracket = vec![0; players.len()];
    let mut group = 0;
    for (rank, &player) in ranked.iter().enumerate() {
        if rank > 0 && players[ranked[rank - 1]].score != players[player].score {
            group += 1;
        }
        bracket[player] = group;
    }
    bracket
}

/// The search for a complete pairing in the Dutch order of preference.
struct Search<'a, M> {
    ranked: &'a [usize],
    brackets: &'a [usize],
    met: &'a M,
    /// The opponents tried so far, against [`MAX_TRIES`].
    tries: Cell<u64>,
}

impl<M: Fn(usize, usize) -> bool> Search<'_, M> {
    /// Pairs every player not yet `paired`, the highest-ranked first, each with its first acceptable
    /// opponent that leaves the rest pairable; `false` (and `paired`, `pairs` as they were) when none does.
    fn complete(&self, paired: &mut [bool], pairs: &mut Vec<(usize, usize)>) -> bool {
        let Some(&player) = self.ranked.iter().find(|&&p| !paired[p]) else {
            return true;
        };
        paired[player] = true;
        for opponent in self.preferences(player, paired) {
            if (self.met)(player, opponent) {
                continue;
            }
            self.tries.set(self.tries.get() + 1);
            if self.tries.get() > MAX_TRIES {
                break;
            }
            paired[opponent] = true;
            pairs.push((player, opponent));
            if self.complete(paired, pairs) {
                return true;
            }
            pairs.pop();
            paired[opponent] = false;
        }
        paired[player] = false;
        false
    }

    /// The opponents of `player` (the highest-ranked not yet paired) in the Dutch order of preference, among
    /// those not yet `paired`. Its bracket is the free players of its score group, the player first. The
    /// bracket's upper half S1 (the player first) meets its lower half S2: the player's first choice is S2's
    /// first, then the rest of S2 in order (the transpositions), then S1 below it (the exchanges), then the
    /// players of the lower groups in rank order (it floats down). Paired in that order, S1's next player
    /// meets S2's next, as the system asks. A player alone in its group has floated down: it is paired first
    /// in the next group with free players, with that group's players in rank order.
    fn preferences(&self, player: usize, paired: &[bool]) -> Vec<usize> {
        let free: Vec<usize> = self
            .ranked
            .iter()
            .copied()
            .filter(|&p| !paired[p] && p != player)
            .collect();
        let group = |wanted: usize| free.iter().copied().filter(move |&p| self.brackets[p] == wanted);
        let own = self.brackets[player];
        let residents: Vec<usize> = group(own).collect();
        let (bracket, mut order) = if residents.is_empty() {
            // Floated down: it alone is S1 of the next bracket, whose residents are its S2, in rank order.
            let next = free.iter().map(|&p| self.brackets[p]).filter(|&g| g > own).min();
            let bracket: Vec<usize> = next.map(|next| group(next).collect()).unwrap_or_default();
            (bracket.clone(), bracket)
        } else {
            // S1 is the player and the bracket's first `half - 1` others; S2 the rest.
            let half = residents.len().div_ceil(2);
            let (s1_rest, s2) = residents.split_at(half - 1);
            (residents.clone(), s2.iter().chain(s1_rest).copied().collect())
        };
        order.extend(free.iter().copied().filter(|p| !bracket.contains(p)));
        order
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::*;

    fn field(scores: &[f64]) -> Vec<Player> {
        scores.iter().map(|&score| Player { score, byes: 0 }).collect()
    }

    #[test]
    fn the_first_round_pairs_the_upper_half_against_the_lower() {
        let pairing = pair(&field(&[0.0; 8]), |_, _| false);
        assert_eq!(pairing.pairs, [(0, 4), (1, 5), (2, 6), (3, 7)]);
        assert_eq!(pairing.bye, None);
        let pairing = pair(&field(&[0.0; 9]), |_, _| false);
        assert_eq!(pairing.bye, Some(8), "the lowest-ranked player");
        assert_eq!(pairing.pairs, [(0, 4), (1, 5), (2, 6), (3, 7)]);
    }

    #[test]
    fn score_groups_pair_within_and_the_odd_one_floats_down() {
        // Scores 2, 2, 2, 1, 1, 1, 0, 0: the third of the top group floats into the next.
        let scores = [2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 0.0, 0.0];
        let pairing = pair(&field(&scores), |_, _| false);
        assert_eq!(pairing.pairs, [(0, 1), (2, 3), (4, 5), (6, 7)]);
        // 0 met 1 already: the transposition, 0 with 2, and 1 floats.
        let met = |a: usize, b: usize| (a.min(b), a.max(b)) == (0, 1);
        let pairing = pair(&field(&scores), met);
        assert_eq!(pairing.pairs, [(0, 2), (1, 3), (4, 5), (6, 7)]);
    }

    /// One player has met every other, so no complete pairing exists, which a plain search would take
    /// billions of tries to find out: the tries run out, and the others are paired greedily.
    #[test]
    fn a_field_without_a_complete_pairing_is_paired_greedily_within_the_tries() {
        let met = |a: usize, b: usize| a == 19 || b == 19;
        let pairing = pair(&field(&[0.0; 20]), met);
        assert_eq!(
            pairing.pairs.len(),
            9,
            "all but the player who met everyone, and one other"
        );
        assert!(pairing.pairs.iter().all(|&(a, b)| a != 19 && b != 19));
    }

    /// The lowest-ranked player's bye would strand the player who has met everyone but it: that one gets
    /// the bye instead, and everyone else is paired.
    #[test]
    fn a_bye_that_strands_a_player_goes_to_it_instead() {
        // 19 has met everyone but 20.
        let met = |a: usize, b: usize| (a == 19 || b == 19) && a.max(b) != 20;
        let pairing = pair(&field(&[0.0; 21]), met);
        assert_eq!(pairing.bye, Some(19));
        assert_eq!(pairing.pairs.len(), 10, "everyone else paired");
    }

    #[test]
    fn a_bye_goes_to_the_lowest_ranked_player_without_one() {
        let mut players = field(&[1.0, 1.0, 0.0, 0.0, 0.0]);
        players[4].byes = 1;
        let pairing = pair(&players, |_, _| false);
        assert_eq!(pairing.bye, Some(3));
    }

    /// A round of a simulated Swiss: the players before it, its pairing, and the pairs that had met.
    type Round = (Vec<Player>, Pairing, BTreeSet<(usize, usize)>);

    /// A Swiss of `n` players over `rounds` rounds, the results drawn from `seed`: each round's pairing.
    fn swiss(n: usize, rounds: usize, seed: u64) -> Vec<Round> {
        let mut players = field(&vec![0.0; n]);
        let mut met = BTreeSet::new();
        let mut state = seed;
        let mut history = Vec::new();
        for _ in 0..rounds {
            let before = met.clone();
            let pairing = pair(&players, |a, b| before.contains(&(a.min(b), a.max(b))));
            history.push((players.clone(), pairing.clone(), before));
            for &(a, b) in &pairing.pairs {
                met.insert((a.min(b), a.max(b)));
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // A layout pair: 2 points shared 2-0, 1-1 or 0-2.
                let a_points = (state >> 33) % 3;
                players[a].score += a_points as f64;
                players[b].score += 2.0 - a_points as f64;
            }
            if let Some(bye) = pairing.bye {
                players[bye].score += 2.0;
                players[bye].byes += 1;
            }
        }
        history
    }

    proptest! {
        /// Nine players over five rounds: every round pairs everyone but one bye, no pair meets twice, no
        /// player gets two byes, and the top-ranked player meets someone of its own score where one is free.
        #[test]
        fn a_swiss_of_nine_over_five_rounds_pairs_everyone_once(seed in any::<u64>()) {
            let history = swiss(9, 5, seed);
            let mut byes = BTreeSet::new();
            for (players, pairing, met) in &history {
                prop_assert_eq!(pairing.pairs.len(), 4);
                let bye = pairing.bye.expect("a bye in an odd field");
                prop_assert_eq!(players[bye].byes, 0);
                prop_assert!(byes.insert(bye), "a second bye for {}", bye);
                let mut seen = BTreeSet::from([bye]);
                for &(a, b) in &pairing.pairs {
                    prop_assert!(!met.contains(&(a.min(b), a.max(b))), "{} and {} meet twice", a, b);
                    prop_assert!(seen.insert(a) && seen.insert(b));
                }
            }
        }
    }
}
