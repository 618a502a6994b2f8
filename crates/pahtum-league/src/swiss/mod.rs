//! A Swiss as a league's pairing rule (`[swiss] rounds = N`): a fixed number
//! of rounds, in each of which every active entrant meets one of equal score
//! that it has not met, decided from the journal as it is played.
//!
//! A Swiss is a league like any other: its rounds are written to the journal
//! before they are played, so a resumed run, and every shard of a round, plays
//! exactly that round; `arena verify` decides each round again from the games
//! before it and refuses one the rule would not have paired. What is its own:
//! * the pairing of a round ([`pair`]): the Dutch system's order of
//!   preference over the entrants' scores, each pair one layout pair (two
//!   games on one layout, seats swapped, so colours need no balancing);
//! * every pair of round `r` plays layout round `r - 1`: each round has a
//!   layout of its own, the same for all its pairs;
//! * a score is game points (a win 1, a draw ½) plus 2 for each bye (a layout
//!   pair won);
//! * the standings' tie-breaks ([`standings`]): Buchholz (the sum of the
//!   opponents' scores) and Sonneborn-Berger (each opponent's score times the
//!   points taken from it, over 2), beside the joint rating fit, which stays
//!   the strength table.

mod pair;

use serde::Serialize;

pub use pair::{Pairing, Player, pair};

use super::lines::{Decided, LayoutPair};
use super::rules::Swiss;
use super::state::LeagueState;
use pahtum_standings::standings::Standings as Games;

/// What a bye scores: a won layout pair (FIDE C.04.1 (c): the points of a win).
pub const BYE_POINTS: f64 = 2.0;

/// Each entrant's Swiss score (by number): its game points in `games`, plus [`BYE_POINTS`] a bye.
fn scores(state: &LeagueState, games: &Games) -> Vec<f64> {
    state
        .entrants()
        .iter()
        .enumerate()
        .map(|(number, entrant)| {
            let label = entrant.label();
            let points = games
                .bots
                .iter()
                .find(|row| row.bot == label)
                .map_or(0.0, |row| row.points);
            points + BYE_POINTS * f64::from(state.byes(number))
        })
        .collect()
}

/// The next round of the Swiss `swiss` of the league `state`, whose games so far `games` counts: empty once
/// its rounds are played, or when no two active entrants that have not met are left.
pub fn next_round(state: &LeagueState, games: &Games, swiss: &Swiss) -> Decided {
    let round = state.rounds();
    if round >= swiss.rounds {
        return Decided::default();
    }
    let scores = scores(state, games);
    let field: Vec<usize> = (0..state.entrants().len())
        .filter(|&number| !state.is_retired(number))
        .collect();
    let players: Vec<Player> = field
        .iter()
        .map(|&number| Player {
            score: scores[number],
            byes: state.byes(number),
        })
        .collect();
    let pairing = pair(&players, |a, b| state.decided_between(field[a], field[b]) > 0);
    if pairing.pairs.is_empty() {
        return Decided::default();
    }
    let pairs = pairing
        .pairs
        .iter()
        .map(|&(a, b)| {
            let (a, b) = (field[a].min(field[b]), field[a].max(field[b]));
            LayoutPair(a as u32, b as u32, round)
        })
        .collect();
    Decided {
        pairs,
        bye: pairing.bye.map(|index| field[index] as u32),
    }
}

/// Why a Swiss needs no more rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Over {
    /// Its rounds are played.
    Played,
    /// Before its last round, no two active entrants were left that had not met.
    Unpairable,
}

impl Over {
    /// Why the Swiss of `state`, which decides no round now, is over.
    pub fn of(state: &LeagueState, swiss: &Swiss) -> Over {
        if state.rounds() >= swiss.rounds {
            Over::Played
        } else {
            Over::Unpairable
        }
    }
}

/// A Swiss's standings: its rule, and each entrant's line in order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Standings {
    /// The rule: the rounds it plays.
    pub rule: Swiss,
    /// Each entrant, by score and tie-breaks ([`standings`]).
    pub rows: Vec<Standing>,
}

/// One entrant's line of a Swiss's standings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Standing {
    /// 1 for the first; entrants equal on score and both tie-breaks share a rank.
    pub rank: usize,
    /// `NAME@VERSION`.
    pub entrant: String,
    /// Game points plus [`BYE_POINTS`] a bye.
    pub score: f64,
    /// The byes it had.
    pub byes: u32,
    /// The sum of its opponents' scores.
    pub buchholz: f64,
    /// Each opponent's score times the points it took from that opponent, over 2 (the points of a layout
    /// pair): the opponents it beat count whole, those it split with half.
    pub sonneborn_berger: f64,
}

/// The Swiss's standings of the league `state` whose games `games` counts: by score, then Buchholz, then
/// Sonneborn-Berger (then the pairing number, which orders but does not rank), every entrant, retired or not.
pub fn standings(state: &LeagueState, games: &Games) -> Vec<Standing> {
    let scores = scores(state, games);
    let crosstable = &games.crosstable;
    let number_of = |label: &str| state.number_of(label);
    let mut rows: Vec<(usize, Standing)> = state
        .entrants()
        .iter()
        .enumerate()
        .map(|(number, entrant)| {
            let label = entrant.label();
            let (mut buchholz, mut sonneborn_berger) = (0.0, 0.0);
            if let Some(i) = crosstable.bots.iter().position(|bot| *bot == label) {
                for (j, tally) in crosstable.results[i].iter().enumerate() {
                    let (Some(tally), Some(opponent)) = (tally, number_of(&crosstable.bots[j])) else {
                        continue;
                    };
                    buchholz += scores[opponent];
                    sonneborn_berger += scores[opponent] * tally.points / 2.0;
                }
            }
            let standing = Standing {
                rank: 0,
                entrant: label,
                score: scores[number],
                byes: state.byes(number),
                buchholz,
                sonneborn_berger,
            };
            (number, standing)
        })
        .collect();
    let key = |row: &Standing| [row.score, row.buchholz, row.sonneborn_berger];
    rows.sort_by(|(a_number, a), (b_number, b)| {
        let (a_key, b_key) = (key(a), key(b));
        b_key
            .iter()
            .zip(&a_key)
            .map(|(b, a)| b.total_cmp(a))
            .find(|order| order.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a_number.cmp(b_number))
    });
    let mut standings: Vec<Standing> = rows.into_iter().map(|(_, row)| row).collect();
    for index in 0..standings.len() {
        standings[index].rank = if index > 0 && key(&standings[index]) == key(&standings[index - 1]) {
            standings[index - 1].rank
        } else {
            index + 1
        };
    }
    standings
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use super::*;
    use crate::decide::Settled;
    use crate::testing::SimulatedLeague;
    use crate::{Event, LeagueFault, rules};

    /// A Swiss of `size` entrants 100 Elo apart over `rounds` rounds, played by its rule from `seed`.
    fn played(size: usize, rounds: u32, seed: u64) -> SimulatedLeague {
        let text = format!("name = \"swiss\"\n[swiss]\nrounds = {rounds}\n");
        let league = rules::parse(Path::new("league.toml"), &text).unwrap();
        let strength: Vec<f64> = (0..size).map(|i| 100.0 * i as f64).collect();
        let mut swiss = SimulatedLeague::of(&league, &strength, seed);
        while !swiss.decide().is_empty() {
            swiss.play_decided();
        }
        swiss
    }

    /// The round lines of a journal.
    fn rounds(journal: &[u8]) -> Vec<crate::Round> {
        std::str::from_utf8(journal)
            .unwrap()
            .lines()
            .filter_map(|line| match serde_json::from_str(line) {
                Ok(Event::Round(round)) => Some(round),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn nine_entrants_over_five_rounds_meet_once_each_with_a_bye_a_round() {
        for seed in 0..8 {
            let swiss = played(9, 5, seed);
            let rounds = rounds(swiss.journal());
            assert_eq!(rounds.len(), 5);
            let mut met = BTreeSet::new();
            let mut byes = BTreeSet::new();
            for (index, round) in rounds.iter().enumerate() {
                assert_eq!(round.pairs.len(), 4);
                let bye = round.bye.expect("a bye in an odd field");
                assert!(byes.insert(bye), "a second bye for {bye}");
                for pair in &round.pairs {
                    assert_eq!(pair.2, index as u32, "round {} plays its own layout round", index + 1);
                    assert!(met.insert((pair.0, pair.1)), "{pair:?} met twice");
                    assert!(pair.0 != bye && pair.1 != bye);
                }
            }
            assert_eq!(swiss.state().games(), 5 * 4 * 2);
            let table = swiss.table();
            assert_eq!(Settled::of(swiss.state(), &table, 100.0), Settled::Swiss(Over::Played));
            let rows = &table.swiss.as_ref().expect("a Swiss's standings").rows;
            let total: f64 = rows.iter().map(|row| row.score).sum();
            assert_eq!(total, 40.0 + 5.0 * BYE_POINTS, "every game's point and every bye");
            assert!(rows.windows(2).all(|two| two[0].score >= two[1].score));
        }
    }

    /// Round 1 pairs the upper half against the lower by pairing number; round 2 pairs within score groups:
    /// the leader meets another leader (two winners of round 1 never met), over seeds where the results
    /// differ.
    #[test]
    fn the_second_round_pairs_the_leaders() {
        for seed in 0..8 {
            let after_one = played(8, 1, seed);
            let table = after_one.table();
            let rows = &table.swiss.as_ref().unwrap().rows;
            let score = |n: u32| rows.iter().find(|row| row.entrant == format!("e{n}@1")).unwrap().score;
            let swiss = played(8, 2, seed);
            let rounds = rounds(swiss.journal());
            assert_eq!(
                rounds[0].pairs,
                [
                    LayoutPair(0, 4, 0),
                    LayoutPair(1, 5, 0),
                    LayoutPair(2, 6, 0),
                    LayoutPair(3, 7, 0)
                ]
            );
            let top = rows[0].score;
            let leaders: Vec<u32> = (0..8).filter(|&n| score(n) == top).collect();
            let leader = leaders[0];
            let pair = rounds[1]
                .pairs
                .iter()
                .find(|pair| pair.0 == leader || pair.1 == leader)
                .expect("the leader plays");
            let opponent = if pair.0 == leader { pair.1 } else { pair.0 };
            if leaders.len() >= 2 {
                assert_eq!(score(opponent), top, "seed {seed}: {leader} meets {opponent}");
            } else {
                assert!(score(opponent) < top);
            }
        }
    }

    #[test]
    fn a_field_that_has_all_met_is_over_before_its_last_round() {
        let swiss = played(4, 5, 1);
        assert_eq!(swiss.state().rounds(), 3, "three rounds pair four entrants every way");
        let table = swiss.table();
        assert_eq!(
            Settled::of(swiss.state(), &table, 100.0),
            Settled::Swiss(Over::Unpairable)
        );
    }

    /// A Swiss played by its rule verifies; a round whose bye is moved is refused with its line.
    #[test]
    fn a_round_the_rule_would_not_pair_is_refused_by_verify() {
        let swiss = played(5, 3, 2);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        std::fs::write(&path, swiss.journal()).unwrap();
        let verified = crate::verify(&path).unwrap();
        assert!(verified.faults.is_empty(), "{:?}", verified.faults);

        let text = String::from_utf8(swiss.journal().to_vec()).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let number = lines
            .iter()
            .position(|line| line.starts_with(r#"{"round":{"number":2,"#))
            .unwrap();
        let Ok(Event::Round(mut round)) = serde_json::from_str(&lines[number]) else {
            unreachable!()
        };
        // The bye handed to a player of the first pair, which then pairs with the old bye.
        let old = round.bye.unwrap();
        let first = round.pairs[0];
        round.bye = Some(first.0);
        round.pairs[0] = LayoutPair(old.min(first.1), old.max(first.1), first.2);
        lines[number] = serde_json::to_string(&Event::Round(round)).unwrap();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let verified = crate::verify(&path).unwrap();
        let fault = verified.faults.first().expect("a fault");
        assert_eq!(fault.line, number + 1);
        assert!(
            matches!(&fault.fault, LeagueFault::NotTheRule { number: 2, .. }),
            "{}",
            fault.fault
        );
    }

    #[test]
    fn a_bye_outside_a_swiss_or_inside_a_pair_is_refused() {
        let swiss = played(3, 1, 0);
        let state = swiss.state().clone();
        let round = |bye| {
            Event::Round(crate::Round {
                number: 2,
                pairs: vec![LayoutPair(0, 1, 1)],
                bye: Some(bye),
            })
        };
        assert!(matches!(
            state.clone().apply_event(round(1)),
            Err(LeagueFault::BadRound { number: 2, .. })
        ));
        let mut league = state.league().clone();
        league.swiss = None;
        league.games_per_pair = 4;
        let mut plain = SimulatedLeague::of(&league, &[0.0, 0.0, 0.0], 0).state().clone();
        assert!(matches!(
            plain.apply_event(Event::Round(crate::Round {
                number: 1,
                pairs: vec![LayoutPair(0, 1, 0)],
                bye: Some(2),
            })),
            Err(LeagueFault::BadRound { number: 1, .. })
        ));
    }
}
