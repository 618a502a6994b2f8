//! The final's pairing rule: play until the places that matter are told
//! apart, and say honestly which are not.
//!
//! A ladder plays every entrant to a precision ([`super::pairing`]); a final
//! only has to answer "who is first, second, third". Its `[separate]` rule
//! names the prizes' places (`places`), a confidence, and a cap on games. The
//! *boundaries* are the adjacent pairs of the joint fit's order among those
//! places, and the last prize place against the next (third against fourth:
//! whether third place is really third). A boundary is *apart* when the fit's
//! likelihood of superiority of the upper entrant over the lower is at least
//! the confidence.
//!
//! Each round is a pure function of the journal, so that anyone can decide
//! it again ([`super::read::verify`] does, round by round):
//! * while two active entrants have never met, the round is every such pair,
//!   one layout pair each: a round robin ties the whole field into the fit;
//! * then each boundary not apart plays `pairs_per_round` layout pairs
//!   between its two entrants, the games that tell most about the one
//!   difference that is in doubt; once the rules' games per pair let those
//!   two meet no more, each of them meets the nearest entrant of the table it
//!   may still meet instead (common opponents tie the two ratings closer);
//! * never past `max_games` decided games (the round is cut to fit), nor past
//!   the rules' games per pair.
//!
//! The final is over when every boundary is apart, or when no boundary left
//! in doubt may play more (the cap, or each of its pairs used up). Then the
//! places not apart are shown tied ([`places`]), with their likelihood of
//! superiority: the table never claims an order the games do not show.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::lines::LayoutPair;
use super::rules::Separate;
use super::state::LeagueState;
use super::table::{Row, Table};

/// One adjacent pair of the prize places, in the fit's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Boundary {
    /// The upper place's number (1: the boundary between first and second).
    pub place: u32,
    /// The upper entrant's label.
    pub above: String,
    /// The lower entrant's label.
    pub below: String,
    /// The fit's likelihood that the upper is the stronger, once both are rated.
    pub los: Option<f64>,
    /// Whether the likelihood reaches the rule's confidence.
    pub apart: bool,
}

/// Each active entrant's place, as far as the games tell it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Placed {
    /// The entrant's label.
    pub entrant: String,
    /// Its place: entrants on one side of no boundary that is apart share the upper one's.
    pub place: u32,
    /// Whether it shares its place with another entrant (shown `2=`).
    pub tied: bool,
}

/// The boundaries of the table's prize places, as the rule `separate` sees them.
pub fn boundaries(table: &Table, separate: &Separate) -> Vec<Boundary> {
    let rated: Vec<&Row> = table.active.iter().take_while(|row| row.elo.is_some()).collect();
    let unrated = rated.len() < table.active.len();
    let mut found = Vec::new();
    for place in 0..separate.places as usize {
        let (Some(above), Some(below)) = (table.active.get(place), table.active.get(place + 1)) else {
            break;
        };
        let los = (!unrated)
            .then(|| table.standings.strength.los(&above.entrant, &below.entrant))
            .flatten();
        found.push(Boundary {
            place: place as u32 + 1,
            above: above.entrant.clone(),
            below: below.entrant.clone(),
            los,
            apart: los.is_some_and(|los| los >= separate.confidence()),
        });
    }
    found
}

/// Every active entrant's place (strongest first): the prize places not apart are tied; below the prize
/// places each entrant keeps its rank in the fit.
pub fn places(table: &Table, boundaries: &[Boundary]) -> Vec<Placed> {
    let mut placed: Vec<Placed> = Vec::with_capacity(table.active.len());
    for (rank, row) in table.active.iter().enumerate() {
        let joined = rank > 0 && boundaries.get(rank - 1).is_some_and(|boundary| !boundary.apart);
        let place = if joined {
            let upper = placed.last_mut().expect("a place above");
            upper.tied = true;
            upper.place
        } else {
            rank as u32 + 1
        };
        placed.push(Placed {
            entrant: row.entrant.clone(),
            place,
            tied: joined,
        });
    }
    placed
}

/// The layout pairs of the final's next round (see the module documentation); empty when it is over
/// ([`Over::of`] says why).
pub fn next_round(state: &LeagueState, table: &Table, separate: &Separate) -> Vec<LayoutPair> {
    let active: Vec<usize> = (0..state.entrants().len())
        .filter(|&number| !state.is_retired(number))
        .collect();
    let mut wanted: Vec<(usize, usize, u32)> = Vec::new();
    for (i, &a) in active.iter().enumerate() {
        for &b in &active[i + 1..] {
            if state.decided_between(a, b) == 0 {
                wanted.push((a, b, 1));
            }
        }
    }
    if wanted.is_empty() {
        // A table of another moment's journal may name an entrant this state does not know yet: left out.
        let order: Vec<usize> = table
            .active
            .iter()
            .filter_map(|row| state.number_of(&row.entrant))
            .collect();
        for boundary in boundaries(table, separate).iter().filter(|boundary| !boundary.apart) {
            let (Some(a), Some(b)) = (state.number_of(&boundary.above), state.number_of(&boundary.below)) else {
                continue;
            };
            for (x, y) in meetings(state, &order, a, b) {
                let pair = (x.min(y), x.max(y), separate.pairs_per_round);
                if !wanted.iter().any(|&(p, q, _)| (p, q) == (pair.0, pair.1)) {
                    wanted.push(pair);
                }
            }
        }
    }
    let mut room = (separate.max_games as usize).saturating_sub(state.decided_games()) / 2;
    let mut round = Vec::new();
    for (a, b, count) in wanted {
        let first = state.decided_between(a, b);
        for k in first..first + count {
            if room == 0 || k >= state.league().rounds() {
                break;
            }
            round.push(LayoutPair(a as u32, b as u32, k));
            room -= 1;
        }
    }
    round
}

/// Who plays to tell `a` from `b` (adjacent in the fit's `order`, entrants' numbers strongest first): the
/// two of them, while the rules let them meet again; once they may not, each meets the nearest other
/// entrant of the order it may still meet, so that common opponents tie their ratings closer.
fn meetings(state: &LeagueState, order: &[usize], a: usize, b: usize) -> Vec<(usize, usize)> {
    if state.next_layout_round(a, b).is_some() {
        return vec![(a, b)];
    }
    let rank = |who: usize| order.iter().position(|&other| other == who).unwrap_or(order.len());
    [a, b]
        .into_iter()
        .filter_map(|x| {
            let nearest = order
                .iter()
                .copied()
                .filter(|&y| y != a && y != b && state.next_layout_round(x, y).is_some())
                .min_by_key(|&y| rank(y).abs_diff(rank(x)))?;
            Some((x, nearest))
        })
        .collect()
}

/// Why a final needs no round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Over {
    /// Fewer than two entrants are active.
    TooFewEntrants,
    /// Every boundary of the prize places is apart at the rule's confidence.
    Separated,
    /// Some boundary is not apart, and the cap on games (or the games per pair) lets it play no more: its
    /// places are tied.
    Capped,
}

impl Over {
    /// Why the final `state`, whose table is `table`, needs no round, when [`next_round`] finds none.
    pub fn of(state: &LeagueState, table: &Table, separate: &Separate) -> Over {
        let active = (0..state.entrants().len()).filter(|&n| !state.is_retired(n)).count();
        if active < 2 {
            Over::TooFewEntrants
        } else if boundaries(table, separate).iter().all(|boundary| boundary.apart) {
            Over::Separated
        } else {
            Over::Capped
        }
    }
}

impl fmt::Display for Over {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Over::TooFewEntrants => "The final needs two active entrants to play.",
            Over::Separated => "The final is over: every prize place is apart from the next at the rule's confidence.",
            Over::Capped => {
                "The final is over at its cap on games: the places not apart are tied, with their likelihood of \
                 superiority."
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{SimulatedLeague, separate};

    /// Four entrants far apart: a round robin first, then the boundaries in doubt alone, until each is apart.
    #[test]
    fn a_final_plays_the_round_robin_then_only_the_boundaries_in_doubt() {
        let rule = separate(3, 950, 400);
        let mut field = SimulatedLeague::new(&[600.0, 300.0, 0.0, -300.0], Some(rule), 1);
        let first = field.decide();
        assert_eq!(first.len(), 6, "every pair once: {first:?}");
        field.play_decided();
        let mut rounds = 1;
        loop {
            let round = field.decide();
            if round.is_empty() {
                break;
            }
            // After the round robin, only adjacent entrants of the fit's order meet.
            assert!(round.len() <= 3, "{round:?}");
            field.play_decided();
            rounds += 1;
            assert!(rounds < 200, "the final never ends");
        }
        let table = field.table();
        assert_eq!(Over::of(field.state(), &table, &rule), Over::Separated);
        let found = boundaries(&table, &rule);
        assert_eq!(found.len(), 3);
        assert!(found.iter().all(|boundary| boundary.apart), "{found:?}");
        let placed = places(&table, &found);
        assert_eq!(
            placed.iter().map(|p| (p.place, p.tied)).collect::<Vec<_>>(),
            [(1, false), (2, false), (3, false), (4, false)]
        );
        assert!(field.state().decided_games() <= 400);
    }

    /// Equal entrants cannot be told apart: the final stops at its cap, and the places are tied.
    #[test]
    fn equal_entrants_stop_at_the_cap_and_are_tied() {
        let rule = separate(2, 990, 40);
        let mut field = SimulatedLeague::new(&[0.0, 0.0, 0.0], Some(rule), 2);
        while !field.decide().is_empty() {
            field.play_decided();
        }
        assert_eq!(field.state().decided_games(), 40);
        let table = field.table();
        assert_eq!(Over::of(field.state(), &table, &rule), Over::Capped);
        let found = boundaries(&table, &rule);
        let placed = places(&table, &found);
        assert!(placed.iter().any(|p| p.tied), "{placed:?} {found:?}");
        assert!(found.iter().any(|boundary| !boundary.apart && boundary.los.is_some()));
    }

    #[test]
    fn tied_places_share_the_upper_number() {
        let boundary = |place, apart| Boundary {
            place,
            above: String::new(),
            below: String::new(),
            los: Some(0.5),
            apart,
        };
        let field = SimulatedLeague::new(&[300.0, 200.0, 100.0, 0.0, -100.0], None, 3);
        let mut table = field.table();
        for (n, row) in table.active.iter_mut().enumerate() {
            row.entrant = format!("e{n}");
        }
        let placed = places(&table, &[boundary(1, true), boundary(2, false), boundary(3, true)]);
        assert_eq!(
            placed.iter().map(|p| (p.place, p.tied)).collect::<Vec<_>>(),
            [(1, false), (2, true), (2, true), (4, false), (5, false)]
        );
    }
}
