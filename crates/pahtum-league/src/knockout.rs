//! A knockout as a league's pairing rule (`[knockout]`): a seeded bracket,
//! each match a number of layout pairs, its winner on to the next stage.
//!
//! Like a Swiss's, its rounds are decided from the journal as it is played,
//! each written before it is played, and `arena verify` decides each again.
//! The rule:
//! * the field is `seeds`, in seed order (a tournament file's bots in file
//!   order, or by the ratings of an earlier run); it plays once all of them
//!   have joined;
//! * the bracket is the standard one: a size of the next power of two, seed
//!   1 against the last, 2 against the one before it, placed so that the top
//!   two seeds can meet only in the final and the top four only in the semi-
//!   finals; the places past the field are byes, which the top seeds get;
//! * a match is `pairs` layout pairs (two games each, seats swapped), all
//!   decided in one round; the more game points wins; tied, the two play one
//!   more layout pair a round until one leads or `max_pairs` are played, and
//!   then the higher seed goes on ([`Decision::Seed`]); the `j`-th layout pair
//!   of every match of stage `s` (from 0) plays layout round
//!   `s * max_pairs + j`, so that each stage has layouts of its own;
//! * an entrant that retires loses its open match (unless both did: the
//!   higher seed goes on); a match its games decided stays decided;
//! * each league round is the layout pairs every undecided match of the
//!   earliest undecided stage needs, so the stages are played in order and
//!   a stage's matches side by side; the last stage's winner is the champion.

use pahtum_standings::standings::{Standings as Games, Tally};
use serde::Serialize;

use super::lines::{Decided, LayoutPair};
use super::rules::Knockout;
use super::state::LeagueState;

/// How a match was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// It had no opponent.
    Bye,
    /// One side retired.
    Retired,
    /// More game points.
    Points,
    /// Level after `max_pairs` layout pairs: the higher seed goes on.
    Seed,
}

/// One side of a match.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    /// Its seed (1 for the first).
    pub seed: u32,
    /// `NAME@VERSION`.
    pub entrant: String,
    /// Its game points in the match.
    pub points: f64,
}

/// One match of the bracket.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Match {
    /// The higher seed's side (the upper line of the bracket).
    pub upper: Side,
    /// The lower seed's side; `None`: a bye.
    pub lower: Option<Side>,
    /// The layout pairs decided between them.
    pub pairs: u32,
    /// The games recorded between them.
    pub games: u32,
    /// The winner's entrant, once decided.
    pub winner: Option<String>,
    /// How it was decided.
    pub decision: Option<Decision>,
}

/// The bracket as the games so far make it: its stages, from the first, as far as they are known.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bracket {
    /// The rule: layout pairs a match, at most that many.
    pub rule: Knockout,
    /// Each stage's matches, in bracket order; the last one known may be undecided.
    pub stages: Vec<Vec<Match>>,
    /// The winner of the final.
    pub champion: Option<String>,
    /// The seeds that have not joined the league yet (the knockout waits for them).
    pub waiting: Vec<String>,
}

/// The places of a bracket of `size` (a power of two) in order, as seeds from 1: `[1, 4, 2, 3]` for 4, so
/// that each pair of places is a first-stage match and the top seeds meet as late as they can.
pub fn places(size: usize) -> Vec<usize> {
    let mut places = vec![1];
    while places.len() < size {
        let next = 2 * places.len() + 1;
        places = places.iter().flat_map(|&seed| [seed, next - seed]).collect();
    }
    places
}

/// The games and points of `a` against `b` in `games`, from `a`'s side.
fn tally(games: &Games, a: &str, b: &str) -> Tally {
    let table = &games.crosstable;
    let index = |label: &str| table.bots.iter().position(|bot| bot == label);
    index(a)
        .zip(index(b))
        .and_then(|(i, j)| table.results[i][j])
        .unwrap_or_default()
}

/// The bracket of the knockout `rule` of the league `state`, whose games so far `games` counts.
pub fn bracket(state: &LeagueState, games: &Games, rule: &Knockout) -> Bracket {
    let waiting: Vec<String> = rule
        .seeds
        .iter()
        .filter(|label| state.number_of(label).is_none())
        .cloned()
        .collect();
    let mut bracket = Bracket {
        rule: rule.clone(),
        stages: Vec::new(),
        champion: None,
        waiting,
    };
    if !bracket.waiting.is_empty() {
        return bracket;
    }
    let size = rule.seeds.len().next_power_of_two();
    // The seeds (from 1) in each place of the stage, `None` past the field.
    let mut field: Vec<Option<u32>> = places(size)
        .into_iter()
        .map(|seed| (seed <= rule.seeds.len()).then_some(seed as u32))
        .collect();
    while field.len() > 1 {
        let stage: Vec<Match> = field
            .chunks(2)
            .map(|two| match_of(state, games, rule, two[0], two[1]))
            .collect();
        let decided = stage.iter().all(|m| m.winner.is_some());
        field = stage
            .iter()
            .map(|m| m.winner.as_ref().map(|winner| seed_of(rule, winner)))
            .collect();
        bracket.stages.push(stage);
        if !decided {
            return bracket;
        }
    }
    bracket.champion = field[0].map(|seed| rule.seeds[seed as usize - 1].clone());
    bracket
}

/// The seed (from 1) of `entrant`.
fn seed_of(rule: &Knockout, entrant: &str) -> u32 {
    rule.seeds
        .iter()
        .position(|label| label == entrant)
        .expect("a seeded entrant") as u32
        + 1
}

/// The match of the seeds `a` and `b` (either may be a bye: `None`), as its games so far decide it.
fn match_of(state: &LeagueState, games: &Games, rule: &Knockout, a: Option<u32>, b: Option<u32>) -> Match {
    let side = |seed: u32, points: f64| Side {
        seed,
        entrant: rule.seeds[seed as usize - 1].clone(),
        points,
    };
    // Both are byes only past the field, where no stage reaches: one side is a seed.
    let (upper, lower) = match (a, b) {
        (Some(a), Some(b)) => (a.min(b), Some(a.max(b))),
        (Some(seed), None) | (None, Some(seed)) => (seed, None),
        (None, None) => unreachable!("a bracket's byes are never paired with each other"),
    };
    let Some(lower) = lower else {
        let upper = side(upper, 0.0);
        return Match {
            winner: Some(upper.entrant.clone()),
            upper,
            lower: None,
            pairs: 0,
            games: 0,
            decision: Some(Decision::Bye),
        };
    };
    let (upper_label, lower_label) = (&rule.seeds[upper as usize - 1], &rule.seeds[lower as usize - 1]);
    let number = |label: &str| state.number_of(label).expect("every seed has joined");
    let (u, l) = (number(upper_label), number(lower_label));
    let played = tally(games, upper_label, lower_label);
    let pairs = state.decided_between(u, l);
    let mut found = Match {
        upper: side(upper, played.points),
        lower: Some(side(lower, f64::from(played.games) - played.points)),
        pairs,
        games: played.games,
        winner: None,
        decision: None,
    };
    let (upper_out, lower_out) = (state.is_retired(u), state.is_retired(l));
    let complete = pairs >= rule.pairs && played.games == 2 * pairs;
    let lead = 2.0 * played.points - f64::from(played.games);
    // A match its games decided stays decided, whoever retires later: a retirement decides only a match
    // still open.
    let (winner, decision) = if complete && lead != 0.0 {
        (Some(lead > 0.0), Decision::Points)
    } else if complete && pairs >= rule.max_pairs {
        (Some(true), Decision::Seed)
    } else if upper_out || lower_out {
        let upper_goes_on = !upper_out || lower_out;
        (Some(upper_goes_on), Decision::Retired)
    } else {
        (None, Decision::Points)
    };
    if let Some(upper_goes_on) = winner {
        found.winner = Some(if upper_goes_on { upper_label } else { lower_label }.clone());
        found.decision = Some(decision);
    }
    found
}

/// The next round of the knockout `rule` of the league `state`, whose games so far `games` counts: the layout
/// pairs each undecided match of its earliest undecided stage needs (its first `pairs`, or one more after a
/// tie); empty while a seed has not joined, and once the champion is known.
pub fn next_round(state: &LeagueState, games: &Games, rule: &Knockout) -> Decided {
    let bracket = bracket(state, games, rule);
    let Some(stage) = bracket.stages.last().filter(|_| bracket.champion.is_none()) else {
        return Decided::default();
    };
    let first = (bracket.stages.len() as u32 - 1) * rule.max_pairs;
    let mut pairs = Vec::new();
    for found in stage.iter().filter(|found| found.winner.is_none()) {
        let lower = found.lower.as_ref().expect("a bye is decided");
        let (a, b) = (
            state.number_of(&found.upper.entrant).expect("joined") as u32,
            state.number_of(&lower.entrant).expect("joined") as u32,
        );
        let (a, b) = (a.min(b), a.max(b));
        let wanted = rule.pairs.max(found.pairs + 1);
        pairs.extend((found.pairs..wanted).map(|j| LayoutPair(a, b, first + j)));
    }
    Decided { pairs, bye: None }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::decide::Settled;
    use crate::testing::SimulatedLeague;
    use crate::{Event, rules};

    #[test]
    fn the_places_keep_the_top_seeds_apart() {
        assert_eq!(places(2), [1, 2]);
        assert_eq!(places(4), [1, 4, 2, 3]);
        assert_eq!(places(8), [1, 8, 4, 5, 2, 7, 3, 6]);
    }

    /// A knockout of `size` entrants 150 Elo apart, the strongest seeded first, played by its rule.
    fn played(size: usize, keys: &str, seed: u64) -> SimulatedLeague {
        let seeds: Vec<String> = (0..size).map(|n| format!("\"e{n}@1\"")).collect();
        let text = format!("name = \"ko\"\n[knockout]\nseeds = [{}]\n{keys}", seeds.join(", "));
        let league = rules::parse(Path::new("league.toml"), &text).unwrap();
        let strength: Vec<f64> = (0..size).map(|n| -150.0 * n as f64).collect();
        let mut knockout = SimulatedLeague::of(&league, &strength, seed);
        while !knockout.decide().is_empty() {
            knockout.play_decided();
        }
        knockout
    }

    #[test]
    fn eight_play_three_stages_to_one_champion() {
        for seed in 0..6 {
            let knockout = played(8, "pairs = 2\nmax_pairs = 4\n", seed);
            let table = knockout.table();
            let bracket = table.knockout.as_ref().expect("a bracket");
            assert_eq!(bracket.stages.iter().map(Vec::len).collect::<Vec<_>>(), [4, 2, 1]);
            let champion = bracket.champion.clone().expect("a champion");
            assert_eq!(bracket.stages[2][0].winner.as_ref(), Some(&champion));
            for (index, stage) in bracket.stages.iter().enumerate() {
                for found in stage {
                    let lower = found.lower.as_ref().expect("no bye in a field of 8");
                    assert!((2..=4).contains(&found.pairs), "{found:?}");
                    assert_eq!(found.games, 2 * found.pairs);
                    match found.decision {
                        Some(Decision::Points) => assert_ne!(found.upper.points, lower.points),
                        Some(Decision::Seed) => {
                            assert_eq!(found.pairs, 4);
                            assert_eq!(found.upper.points, lower.points);
                            assert_eq!(found.winner.as_ref(), Some(&found.upper.entrant));
                        }
                        other => panic!("stage {index}: {other:?}"),
                    }
                }
            }
            // The first stage is the seeded one: 1-8, 4-5, 2-7, 3-6.
            let first: Vec<(u32, u32)> = bracket.stages[0]
                .iter()
                .map(|m| (m.upper.seed, m.lower.as_ref().unwrap().seed))
                .collect();
            assert_eq!(first, [(1, 8), (4, 5), (2, 7), (3, 6)]);
            assert_eq!(
                Settled::of(knockout.state(), &table, 100.0),
                Settled::Knockout(Some(champion))
            );
        }
    }

    /// A retirement after the final changes no match: the games decided them. A retirement while a stage
    /// is open loses only the retired entrant's open match.
    #[test]
    fn a_retirement_decides_only_an_open_match() {
        let mut knockout = played(4, "", 5);
        let before = knockout.table().knockout.unwrap();
        let champion = before.champion.clone().unwrap();
        knockout.retire(&champion);
        let after = knockout.table().knockout.unwrap();
        assert_eq!(after.stages, before.stages, "every match as its games decided it");
        assert_eq!(after.champion, Some(champion));

        // Four seeds, the first stage decided; the winner of 1-4 retires before the final is decided.
        let seeds: Vec<String> = (0..4).map(|n| format!("\"e{n}@1\"")).collect();
        let text = format!("name = \"ko\"\n[knockout]\nseeds = [{}]\n", seeds.join(", "));
        let league = rules::parse(Path::new("league.toml"), &text).unwrap();
        let mut open = SimulatedLeague::of(&league, &[0.0, -150.0, -300.0, -450.0], 5);
        // Until the first stage is decided (a level match plays on) and the final is open.
        while open.table().knockout.unwrap().stages.len() < 2 {
            assert!(!open.decide().is_empty());
            open.play_decided();
        }
        let first = open.table().knockout.unwrap();
        assert!(first.stages[1][0].winner.is_none(), "the final not yet played");
        let finalist = first.stages[0][0].winner.clone().unwrap();
        open.retire(&finalist);
        let bracket = open.table().knockout.unwrap();
        assert_eq!(bracket.stages[0], first.stages[0], "the first stage stands");
        let final_ = &bracket.stages[1][0];
        assert_eq!(final_.decision, Some(Decision::Retired));
        assert_ne!(final_.winner.as_ref(), Some(&finalist));
        assert!(bracket.champion.is_some());
    }

    #[test]
    fn a_field_of_six_gives_the_top_two_seeds_byes() {
        let knockout = played(6, "", 1);
        let table = knockout.table();
        let bracket = table.knockout.as_ref().unwrap();
        let byes: Vec<u32> = bracket.stages[0]
            .iter()
            .filter(|m| m.decision == Some(Decision::Bye))
            .map(|m| m.upper.seed)
            .collect();
        assert_eq!(byes, [1, 2]);
        assert!(bracket.champion.is_some());
        // A round line is only the matches that play: the byes are the bracket's, not the journal's.
        let text = String::from_utf8(knockout.journal().to_vec()).unwrap();
        let first: Event = serde_json::from_str(text.lines().find(|l| l.contains("\"round\"")).unwrap()).unwrap();
        let Event::Round(round) = first else { unreachable!() };
        assert_eq!(round.pairs.len(), 2, "4-5 and 3-6, one layout pair each");
    }

    #[test]
    fn a_knockout_waits_for_its_seeds_and_verify_decides_every_round_again() {
        let knockout = played(4, "pairs = 1\nmax_pairs = 3\n", 2);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        std::fs::write(&path, knockout.journal()).unwrap();
        let verified = crate::verify(&path).unwrap();
        assert!(verified.faults.is_empty(), "{:?}", verified.faults);
        assert!(verified.state.rounds() >= 2);

        let text = "name = \"ko\"\n[knockout]\nseeds = [\"e0@1\", \"e1@1\", \"late@1\"]\n";
        let league = rules::parse(Path::new("league.toml"), text).unwrap();
        let waiting = SimulatedLeague::of(&league, &[0.0, 0.0], 0);
        let table = waiting.table();
        assert_eq!(table.knockout.as_ref().unwrap().waiting, ["late@1"]);
        assert!(next_round(waiting.state(), &table.standings, league.knockout.as_ref().unwrap()).is_empty());
        assert_eq!(Settled::of(waiting.state(), &table, 100.0), Settled::Knockout(None));
    }
}
