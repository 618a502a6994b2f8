//! The gate of a head-to-head match: which games may still start while a sequential test runs.
//!
//! `arena match --sprt` runs a sequential probability ratio test on the
//! pentanomial results of the layout pairs. Once its log-likelihood ratio
//! crosses a bound the test has decided, and more games would only cost time;
//! but a layout pair cut in half would leave a game whose luck (the layout, the
//! first move) is not cancelled by its seat-swapped partner. So after the
//! decision no new layout pair starts, and the second game of a pair already
//! begun (recorded or running) still does. The decision stands even if the pairs
//! completed afterwards move the ratio back inside the bounds: a test that
//! could un-decide would not be sequential.
//!
//! This is tournament logic, not display: [`SprtGate`] is an [`Observer`] that
//! counts the games as the runner reports them and answers
//! [`Observer::may_start`]. It keeps the score's aggregates and the layout
//! pairs begun and not yet complete (a handful: the two games of a pair are
//! adjacent in the schedule), by number, never the records.
//!
//! A display of the match (its status line) needs the gate's score and test
//! after every game, but must not decide which games start. So the caller owns
//! the gate, and [`Gated`] runs the two side by side: the gate counts each
//! event first and alone answers `may_start`; the display, a [`GateView`], is
//! then shown the event with a read-only view of the gate.

use std::collections::HashSet;

use pahtum_record::GameRecord;
use pahtum_stats::{Sprt, SprtOutcome, SprtStatus};

use crate::events::{Event, Observer};
use pahtum_standings::strength::PairTally;
use pahtum_tournament::schedule::ScheduledGame;

/// The score of a two-bot match, its optional SPRT, and the layout pairs begun.
#[derive(Debug)]
pub struct SprtGate {
    tally: PairTally,
    sprt: Option<Sprt>,
    /// Layout pairs (schedule index / 2) with one game started or done: their second game may still start
    /// after the test decides.
    half_played: HashSet<usize>,
    /// The test's state when it decided, and the games counted then (it stays decided, see the module docs).
    decision: Option<Decision>,
}

/// The test's state at the moment it decided.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decision {
    /// The outcome that crossed a bound.
    pub outcome: SprtOutcome,
    /// The games counted when it did.
    pub games: usize,
}

impl SprtGate {
    /// A gate for a match between `first` and `second`; without `sprt`, every game may start.
    pub fn new(first: &str, second: &str, sprt: Option<Sprt>) -> SprtGate {
        SprtGate {
            tally: PairTally::new(first, second),
            sprt,
            half_played: HashSet::new(),
            decision: None,
        }
    }

    /// Counts a game that just finished; true when it is the one that made the test decide.
    pub fn count(&mut self, record: &GameRecord) -> bool {
        self.tally.add(record);
        if self.decision.is_some() {
            return false;
        }
        self.decision = self
            .outcome()
            .filter(|outcome| outcome.status != SprtStatus::Continue)
            .map(|outcome| Decision {
                outcome,
                games: self.tally.summary().games as usize,
            });
        self.decision.is_some()
    }

    /// Whether any of the games at these schedule indices may start: whether a match with these games
    /// pending plays on.
    pub fn allows_any(&self, indices: impl IntoIterator<Item = usize>) -> bool {
        indices.into_iter().any(|index| self.allows(index))
    }

    /// Counts what `event` reports (as [`Observer::on`]); true when it is the game that made the test
    /// decide.
    pub fn observe(&mut self, event: Event<'_>) -> bool {
        match event {
            Event::Resumed { index, record } => {
                self.toggle_half_played(index);
                self.count(record)
            }
            Event::GameFinished { record, .. } => self.count(record),
            _ => false,
        }
    }

    /// Notes that one more game of the layout pair of the game at schedule index `index` started.
    fn toggle_half_played(&mut self, index: usize) {
        if !self.half_played.remove(&(index / 2)) {
            self.half_played.insert(index / 2);
        }
    }

    /// Whether the game at schedule index `index` may start: any game until the test decides, then only
    /// the second game of a layout pair whose first game is recorded or running.
    pub fn allows(&self, index: usize) -> bool {
        self.decision.is_none() || self.half_played.contains(&(index / 2))
    }

    /// The test's state when it decided, if it has: the verdict, even if the layout pairs completed since
    /// moved the ratio back inside the bounds.
    pub fn decision(&self) -> Option<Decision> {
        self.decision
    }

    /// The test's state now, if there is a test.
    pub fn outcome(&self) -> Option<SprtOutcome> {
        self.sprt.map(|sprt| sprt.test(&self.tally.pentanomial()))
    }

    /// The test, if there is one.
    pub fn sprt(&self) -> Option<Sprt> {
        self.sprt
    }

    /// The match's score so far.
    pub fn tally(&self) -> &PairTally {
        &self.tally
    }
}

impl Observer for SprtGate {
    /// Counts every record; a record of an earlier run also marks its layout pair begun.
    fn on(&mut self, event: Event<'_>) {
        self.observe(event);
    }

    /// Once the test has decided, no new layout pair starts; the second game of one begun still does.
    fn may_start(&mut self, game: &ScheduledGame) -> bool {
        let allowed = self.allows(game.index);
        if allowed {
            self.toggle_half_played(game.index);
        }
        allowed
    }

    fn would_start(&self, index: usize) -> bool {
        self.allows(index)
    }
}

/// What watches a gated match: each event after the gate has counted it, and the gate as it then is.
pub trait GateView {
    /// `event` has just been counted by `gate`; `decided` when it is the game that made the test decide.
    fn on(&mut self, event: Event<'_>, gate: &SprtGate, decided: bool);
}

/// A match's gate and a view of it, observing the run together: the gate counts every event and alone
/// decides which games start; the view is told after it, and sees the gate only to read it.
#[derive(Debug)]
pub struct Gated<V> {
    /// The stopping rule.
    pub gate: SprtGate,
    /// What shows the match.
    pub view: V,
}

impl<V: GateView> Observer for Gated<V> {
    fn on(&mut self, event: Event<'_>) {
        let decided = self.gate.observe(event);
        self.view.on(event, &self.gate, decided);
    }

    fn may_start(&mut self, game: &ScheduledGame) -> bool {
        self.gate.may_start(game)
    }

    fn would_start(&self, index: usize) -> bool {
        self.gate.would_start(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pahtum_tournament::schedule::schedule;
    use pahtum_tournament::testing::{head_to_head, won_by};

    fn games() -> Vec<ScheduledGame> {
        schedule(&head_to_head(100))
    }

    fn won(game: &ScheduledGame, winner: &str) -> GameRecord {
        won_by(game, &game.spec(&head_to_head(100)), winner)
    }

    fn a_wins(game: &ScheduledGame) -> GameRecord {
        won(game, "a")
    }

    fn test() -> Option<Sprt> {
        Some("0,10".parse().unwrap())
    }

    #[test]
    fn without_a_test_every_game_may_start() {
        let mut gate = SprtGate::new("a", "b", None);
        for game in games() {
            assert!(gate.may_start(&game));
            assert!(!gate.count(&a_wins(&game)));
        }
        assert_eq!(gate.outcome(), None);
    }

    /// The games `a` must win, in schedule order, for the test to decide.
    fn games_to_decide(games: &[ScheduledGame]) -> usize {
        let mut gate = SprtGate::new("a", "b", test());
        let decided_at = games
            .iter()
            .position(|game| gate.may_start(game) && gate.count(&a_wins(game)))
            .expect("a wins every game: the test decides");
        assert_eq!(gate.outcome().unwrap().status, SprtStatus::AcceptH1);
        decided_at + 1
    }

    /// Game by game: the test decides with a completed pair, and then no new pair starts.
    #[test]
    fn after_the_decision_no_new_pair_starts() {
        let games = games();
        let n = games_to_decide(&games);
        assert_eq!(n % 2, 0, "a decision comes with a completed pair");
        let mut gate = SprtGate::new("a", "b", test());
        for game in &games[..n] {
            assert!(gate.may_start(game));
            gate.count(&a_wins(game));
        }
        assert!(games[n..].iter().all(|game| !gate.allows(game.index)));
    }

    /// Several games at once: the first game of a pair is running when the test decides; its partner
    /// still starts, no later game does, and the pair's results (won by `b`) do not undo the decision.
    #[test]
    fn a_pair_begun_is_finished_and_the_decision_stands() {
        let games = games();
        let n = games_to_decide(&games);
        let mut gate = SprtGate::new("a", "b", test());
        for game in &games[..=n] {
            assert!(gate.may_start(game));
        }
        for game in &games[..n] {
            gate.count(&a_wins(game));
        }
        let (running, partner, next) = (&games[n], &games[n + 1], &games[n + 2]);
        assert!(gate.may_start(partner) && !gate.allows(next.index));
        let decision = gate.decision().expect("the test decided");
        assert_eq!((decision.games, decision.outcome.status), (n, SprtStatus::AcceptH1));
        for game in [running, partner] {
            assert!(!gate.count(&won(game, "b")));
        }
        assert!(!gate.allows(next.index), "the decision stands");
        assert_eq!(gate.decision(), Some(decision), "as it was when it was made");
        assert!(gate.outcome().unwrap().llr < decision.outcome.llr);
    }

    /// A resumed match: the journal's games count, and a layout with one game recorded is half played, so
    /// its second game is played even though the test has decided.
    #[test]
    fn the_journal_of_an_earlier_run_counts() {
        let games = games();
        let n = games_to_decide(&games);
        // The journal: the games that decided, and the first game of the next pair.
        let mut resumed = SprtGate::new("a", "b", test());
        for game in &games[..=n] {
            resumed.on(Event::Resumed {
                index: game.index,
                record: &a_wins(game),
            });
        }
        assert_eq!(resumed.outcome().unwrap().status, SprtStatus::AcceptH1);
        assert_eq!(resumed.tally().summary().games as usize, n + 1);
        assert!(resumed.allows(n + 1), "the second game of the half-played pair");
        assert!(!resumed.allows(n + 2));
    }

    /// A view sees each game after the gate has counted it, and is told once, with the game that did it,
    /// that the test decided; the gate alone answers which games start.
    #[test]
    fn a_view_sees_the_gate_after_it_counts() {
        #[derive(Default)]
        struct Seen(Vec<(u32, bool)>);
        impl GateView for Seen {
            fn on(&mut self, event: Event<'_>, gate: &SprtGate, decided: bool) {
                if let Event::GameFinished { .. } = event {
                    self.0.push((gate.tally().summary().games, decided));
                }
            }
        }
        let games = games();
        let n = games_to_decide(&games);
        let mut watched = Gated {
            gate: SprtGate::new("a", "b", test()),
            view: Seen::default(),
        };
        for game in &games[..n] {
            assert!(watched.may_start(game));
            watched.on(Event::GameFinished {
                record: &a_wins(game),
                at: Default::default(),
            });
        }
        let expected: Vec<(u32, bool)> = (1..=n).map(|games| (games as u32, games == n)).collect();
        assert_eq!(watched.view.0, expected);
        assert!(!watched.may_start(&games[n]) && !watched.gate.allows_any(n..games.len()));
    }
}
