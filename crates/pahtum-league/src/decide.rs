//! What a league decides from its state alone: an entrant's next version,
//! whom a retirement names, the next round by the pairing rule over the
//! table, and why no round is needed.
//!
//! Each is a pure function of the [`LeagueState`] (and the [`Table`] of its
//! games), no file and no process, so that the commands that act on a league
//! (`pahtum-runner`'s admission and rounds, [`super::service`]'s retirement)
//! decide the same way everywhere, and each decision is tested here on its
//! own. [`next_round`] is what every shard of a round computes from the same
//! journal: the same pairs on every machine.

use std::fmt;

use super::lines::{Decided, LayoutPair, label};
use super::pairing;
use super::separation::{self, Over};
use super::state::LeagueState;
use super::table::Table;
use super::{knockout, swiss};

/// The version an entrant of `name` gets when none is given: one more than the number of versions of
/// `name` so far, as text (the first version is "1"), or the next number after it that is free.
pub fn next_version(state: &LeagueState, name: &str) -> String {
    let versions = state.entrants().iter().filter(|entrant| entrant.name == name).count();
    (versions + 1..)
        .map(|number| number.to_string())
        .find(|version| state.number_of(&label(name, version)).is_none())
        .expect("a free version")
}

/// The active entrants that `entrant` names, by label, in the order they joined: the one labelled
/// `entrant` (`NAME@VERSION`), or every active version of the bot `entrant` (`NAME`).
pub fn to_retire(state: &LeagueState, entrant: &str) -> Vec<String> {
    (0..state.entrants().len())
        .filter(|&number| !state.is_retired(number))
        .map(|number| state.entrants()[number].label())
        .filter(|label| label == entrant || label.split_once('@').is_some_and(|(name, _)| name == entrant))
        .collect()
}

/// The league's next round, from `table` (one fit of every game so far): by the final's rule when the league
/// has one ([`separation::next_round`]), by the Swiss's when it is one ([`swiss::next_round`]), else by the
/// pairing rule ([`pairing::round`]), every active entrant played to a 95% half-width of `target` Elo. Empty
/// when the league needs no more games now ([`Settled`] says why).
pub fn next_round(state: &LeagueState, table: &Table, target: f64) -> Decided {
    if let Some(separate) = &state.league().separate {
        return Decided::pairs(separation::next_round(state, table, separate));
    }
    if let Some(rule) = &state.league().swiss {
        return swiss::next_round(state, &table.standings, rule);
    }
    if let Some(rule) = &state.league().knockout {
        return knockout::next_round(state, &table.standings, rule);
    }
    let entrants: Vec<pairing::Entrant> = state
        .entrants()
        .iter()
        .enumerate()
        .map(|(number, entrant)| {
            let label = entrant.label();
            let row = table
                .active
                .iter()
                .chain(&table.retired)
                .find(|row| row.entrant == label);
            pairing::Entrant {
                active: !state.is_retired(number),
                rating: row.and_then(|row| Some((row.elo?, (row.upper? - row.lower?) / 2.0))),
                games: row.map_or(0, |row| u64::from(row.games)),
            }
        })
        .collect();
    let opponents = state.league().opponents as usize;
    let pairs = pairing::round(
        &entrants,
        target,
        opponents,
        |a, b| state.next_layout_round(a, b).is_some(),
        |a, b| state.decided_between(a, b),
    );
    Decided::pairs(
        pairs
            .into_iter()
            .map(|(a, b)| {
                let k = state
                    .next_layout_round(a, b)
                    .expect("the rule asked for a pair that may play");
                LayoutPair(a as u32, b as u32, k)
            })
            .collect(),
    )
}

/// Why a league needs no round now (its [`fmt::Display`] says it in words).
#[derive(Debug, Clone, PartialEq)]
pub enum Settled {
    /// Fewer than two entrants are active: there is no pair to play.
    TooFewEntrants,
    /// Every active entrant's 95% interval is within ±`target` Elo, or its pairs have played every game
    /// the rules allow.
    Done {
        /// The half-width played to, in Elo.
        target: f64,
    },
    /// The league is a final, and it is over.
    Final(Over),
    /// The league is a Swiss, and it is over.
    Swiss(swiss::Over),
    /// The league is a knockout: over, with its champion, or waiting for a seed to join (`None`).
    Knockout(Option<String>),
}

impl Settled {
    /// Why the league `state` of table `table`, played to ±`target` Elo, needs no round, when [`next_round`]
    /// finds none.
    pub fn of(state: &LeagueState, table: &Table, target: f64) -> Settled {
        if let Some(separate) = &state.league().separate {
            return Settled::Final(Over::of(state, table, separate));
        }
        if let Some(rule) = &state.league().swiss {
            return Settled::Swiss(swiss::Over::of(state, rule));
        }
        if let Some(rule) = &state.league().knockout {
            return Settled::Knockout(knockout::bracket(state, &table.standings, rule).champion);
        }
        let active = (0..state.entrants().len()).filter(|&n| !state.is_retired(n)).count();
        if active < 2 {
            Settled::TooFewEntrants
        } else {
            Settled::Done { target }
        }
    }
}

impl fmt::Display for Settled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Settled::TooFewEntrants => {
                f.write_str("The league needs two active entrants to play; add bots with `arena league add`.")
            }
            Settled::Done { target } => write!(
                f,
                "The league needs no more games now: every active entrant's 95% interval is within ±{target} Elo, \
                 or its pairs have played every game the rules allow (games_per_pair)."
            ),
            Settled::Final(over) => over.fmt(f),
            Settled::Swiss(swiss::Over::Played) => f.write_str("The Swiss is over: its rounds are played."),
            Settled::Swiss(swiss::Over::Unpairable) => f.write_str(
                "The Swiss is over before its last round: no two active entrants are left that have not met.",
            ),
            Settled::Knockout(Some(champion)) => write!(
                f,
                "The knockout is over: {} won the final.",
                pahtum_protocol::untrusted::escape(champion)
            ),
            Settled::Knockout(None) => f.write_str(
                "The knockout waits for its seeds: each entrant its [knockout] seeds names must join first.",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use pahtum_journal::Moves;
    use pahtum_journal::sink::Counts;

    use super::*;
    use crate::lines::{Event, Retirement};
    use crate::rules;
    use crate::table::{fold, table};
    use crate::testing::synthetic_league_of;

    /// A league of `games_per_pair` games a pair whose entrants are `labels` (`NAME@VERSION` each), the
    /// labels in `retired` retired.
    fn league(games_per_pair: u32, labels: &[&str], retired: &[&str]) -> LeagueState {
        let text = format!("name = \"test\"\ngames_per_pair = {games_per_pair}\n");
        let league = rules::parse(Path::new("league.toml"), &text).unwrap();
        let mut state = LeagueState::new(&league);
        for (number, label) in labels.iter().enumerate() {
            let (name, version) = label.split_once('@').unwrap();
            let entrant = crate::testing::entrant(number, name, version);
            state.apply_event(Event::Entrant(entrant)).unwrap();
        }
        for label in retired {
            let retirement = Retirement {
                entrant: (*label).to_owned(),
                unix_ms: 0,
            };
            state.apply_event(Event::Retired(retirement)).unwrap();
        }
        state
    }

    /// The state and table of a synthetic league of `names` with `games` games played.
    fn played(names: &[(&str, &str)], games: usize) -> (LeagueState, Table) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        synthetic_league_of(&path, names, games);
        let (state, tallies) = fold(&path, Moves::Drop, &mut Counts).unwrap();
        let table = table(&state, tallies, None).unwrap();
        (state, table)
    }

    #[test]
    fn the_next_version_counts_the_versions_and_skips_one_taken() {
        let state = league(2, &["a@1", "a@2", "b@7", "c@2"], &["a@1"]);
        assert_eq!(next_version(&state, "new"), "1");
        assert_eq!(next_version(&state, "a"), "3", "a retired version counts too");
        assert_eq!(next_version(&state, "b"), "2", "one version so far, whatever its name");
        assert_eq!(next_version(&state, "c"), "3", "c@2 is taken");
    }

    #[test]
    fn a_retirement_names_one_version_or_every_active_one() {
        let state = league(2, &["a@1", "a@2", "a@3", "ab@1", "b@1"], &["a@2"]);
        assert_eq!(to_retire(&state, "a"), ["a@1", "a@3"]);
        assert_eq!(to_retire(&state, "a@3"), ["a@3"]);
        assert!(to_retire(&state, "a@2").is_empty(), "retired already");
        assert!(to_retire(&state, "nobody").is_empty());
        assert!(to_retire(&state, "a@").is_empty());
    }

    #[test]
    fn a_retired_entrant_returns_once_and_plays_again() {
        let mut state = league(2, &["a@1", "a@2"], &["a@1"]);
        let event = |entrant: &str| Retirement {
            entrant: entrant.to_owned(),
            unix_ms: 1,
        };
        assert!(
            state.apply_event(Event::Returned(event("a@2"))).is_err(),
            "a@2 plays already"
        );
        state.apply_event(Event::Returned(event("a@1"))).unwrap();
        assert_eq!(to_retire(&state, "a"), ["a@1", "a@2"]);
        assert!(state.apply_event(Event::Returned(event("a@1"))).is_err(), "once");
        assert!(
            state.apply_event(Event::Returned(event("b@1"))).is_err(),
            "no such entrant"
        );
        state.apply_event(Event::Retired(event("a@1"))).unwrap();
        assert_eq!(to_retire(&state, "a"), ["a@2"]);
        let line = serde_json::to_string(&Event::Returned(event("a@1"))).unwrap();
        assert_eq!(line, r#"{"returned":{"entrant":"a@1","unix_ms":1}}"#);
    }

    #[test]
    fn a_new_field_plays_its_first_layout_round() {
        let state = league(4, &["a@1", "b@1", "c@1"], &["b@1"]);
        let (_, table) = played(&[("a", "1"), ("b", "1"), ("c", "1")], 0);
        assert_eq!(
            next_round(&state, &table, 50.0).pairs,
            [LayoutPair(0, 2, 0)],
            "never the retired b@1"
        );
    }

    #[test]
    fn a_pair_that_played_what_the_rules_allow_plays_no_more() {
        let (state, table) = played(&[("a", "1"), ("b", "1")], 2);
        assert_eq!(state.games(), 2);
        assert_eq!(state.league().games_per_pair, 2);
        assert!(next_round(&state, &table, 1.0).is_empty());
        assert_eq!(Settled::of(&state, &table, 1.0), Settled::Done { target: 1.0 });
    }

    #[test]
    fn why_no_round_is_needed_in_words() {
        let alone = league(2, &["a@1", "b@1"], &["b@1"]);
        let (_, table) = played(&[("a", "1"), ("b", "1")], 0);
        assert_eq!(Settled::of(&alone, &table, 100.0), Settled::TooFewEntrants);
        assert_eq!(
            Settled::of(&alone, &table, 100.0).to_string(),
            "The league needs two active entrants to play; add bots with `arena league add`."
        );
        let two = league(2, &["a@1", "b@1"], &[]);
        assert_eq!(
            Settled::of(&two, &table, 100.0).to_string(),
            "The league needs no more games now: every active entrant's 95% interval is within ±100 Elo, or its \
             pairs have played every game the rules allow (games_per_pair)."
        );
    }
}
