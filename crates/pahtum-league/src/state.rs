//! A league as its journal says it is, checked line by line in file order.
//!
//! [`LeagueState`] is what the lines before a line say: the entrants and
//! which retired, the rounds decided, and for each pair of entrants which of
//! its layout rounds were decided and which of their games are in. Each line
//! is checked against it before it counts ([`LeagueState::apply_event`],
//! [`LeagueState::apply_game`]); a line that does not pass counts for nothing,
//! so that `arena verify` can go on past it:
//!
//! * an entrant: a plain name, a version of plain characters, a label
//!   (`NAME@VERSION`) not seen before, a content hash, a command;
//! * a retirement: an entrant that is active;
//! * a void: a game recorded and not voided since (its seat of its layout
//!   pair is pending again, and it may be recorded once more);
//! * a round: the next number; each layout pair two active entrants, the
//!   lower first, a layout round the rules allow (`games_per_pair / 2`) and not
//!   decided before, so that no pair plays more than the rules ask; a bye
//!   (a Swiss's only) an active entrant that is in none of the round's pairs;
//! * a game: an id naming a layout pair of a round decided before it, not
//!   recorded before; its players by seat, their content hashes, its layout,
//!   seed, rules, blocks and time control those the league gives it (the
//!   tournament's check, [`pahtum_journal::audit::as_scheduled`], of the tournament
//!   schedule's layout [`League::template`]); that it replays by the rules
//!   was checked as it was read ([`super::lines::parse`]).
//!
//! Its memory is the entrants and a few words per pair of them (the layout
//! rounds as bit sets), never the games: a league of 200 entrants holds
//! 20,000 pairs whether it has played a thousand games or a million.

use std::collections::HashMap;

use pahtum_record::GameRecord;

use pahtum_journal::audit::{Fault, as_laid_out};
use pahtum_tournament::config::{BotConfig, Launch, Tournament, is_plain_name};
use pahtum_tournament::schedule::{Schedule, ScheduledGame};

use super::lines::{Entrant, Event, LayoutPair, Round};
use super::rules::League;

/// What is wrong with one line of a league's journal, beyond what a tournament journal's line can have.
#[derive(Debug, thiserror::Error)]
pub enum LeagueFault {
    /// What a tournament journal's line can have wrong (not a record, not as scheduled, not replaying).
    #[error(transparent)]
    Line(#[from] Fault),
    /// The header's hash is not its league's.
    #[error("the header's hash is not the hash of its league: the header was edited")]
    HeaderEdited,
    /// An entrant line that cannot be.
    #[error("entrant {label:?}: {problem}")]
    BadEntrant {
        /// The entrant's label.
        label: String,
        /// What is wrong.
        problem: String,
    },
    /// A retirement of no active entrant.
    #[error("retires {entrant:?}, which is not an active entrant")]
    NotActive {
        /// The label retired.
        entrant: String,
    },
    /// A return of no retired entrant.
    #[error("returns {entrant:?}, which is not a retired entrant")]
    NotRetired {
        /// The label returned.
        entrant: String,
    },
    /// A round that cannot be.
    #[error("round {number}: {problem}")]
    BadRound {
        /// The round's number.
        number: u32,
        /// What is wrong.
        problem: String,
    },
    /// A final's or a Swiss's round that its rule does not decide from the games before it.
    #[error(
        "round {number} is not the round the league's rule decides from the games before it, which is {}{}",
        pairs_text(&decided.pairs),
        decided.bye.map(|bye| format!(" with the bye {bye}")).unwrap_or_default()
    )]
    NotTheRule {
        /// The round's number.
        number: u32,
        /// The round the rule decides.
        decided: super::lines::Decided,
    },
    /// The games before a final's round cannot be fitted, so the round cannot be decided again.
    #[error("round {number} cannot be decided again: the games before it cannot be rated")]
    Unrated {
        /// The round's number.
        number: u32,
        /// Why.
        #[source]
        source: pahtum_standings::strength::StrengthError,
    },
    /// A game no round decided.
    #[error("game {id:?} is no game of a round decided before it")]
    NotDecided {
        /// The game's id.
        id: String,
    },
    /// A void of a game that is not recorded (or was voided since).
    #[error("voids game {id:?}, which is not recorded")]
    NotRecorded {
        /// The game's id.
        id: String,
    },
    /// A game recorded twice.
    #[error("game {id:?} was already recorded")]
    Duplicate {
        /// The game's id.
        id: String,
    },
    /// A game whose entrants' hashes are not theirs.
    #[error("game {id:?} names the content hashes {recorded:?}, but its entrants' are {expected:?}")]
    WrongHashes {
        /// The game's id.
        id: String,
        /// As recorded, by seat.
        recorded: [String; 2],
        /// The entrants', by seat.
        expected: [String; 2],
    },
}

/// The layout rounds of one pair of entrants: decided, and played by seat.
#[derive(Debug, Clone, Copy, Default)]
struct PairRounds {
    decided: u64,
    played: [u64; 2],
}

/// A league as the lines read so far say (see the module documentation).
#[derive(Debug, Clone)]
pub struct LeagueState {
    league: League,
    template: Tournament,
    /// The layout of each layout round, from the template's schedule.
    layouts: Vec<ScheduledGame>,
    /// The spec of each layout round's games but for their id and layout key (the same for every pair of
    /// entrants, since they all play by the league's time control): what a game is checked against.
    specs: Vec<pahtum_record::GameSpec>,
    entrants: Vec<Entrant>,
    /// The entrants' labels, by number.
    labels: Vec<String>,
    retired: Vec<bool>,
    /// The byes each entrant has had (a Swiss's).
    byes: Vec<u32>,
    by_label: HashMap<String, usize>,
    rounds: u32,
    /// The layout pairs of the last round, in its order.
    last_round: Vec<LayoutPair>,
    pairs: HashMap<(u32, u32), PairRounds>,
    games: usize,
}

/// One game still to play: its layout pair, seat, and place in its round (what shards are dealt by).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingGame {
    /// The layout pair.
    pub pair: LayoutPair,
    /// 0: the pair's lower entrant in the first seat; 1: the other.
    pub seat: usize,
    /// The layout pair's place in the order pending games are dealt to shards.
    pub unit: usize,
}

impl LeagueState {
    /// A league of `league`'s rules with no line read yet.
    pub fn new(league: &League) -> LeagueState {
        let template = league.template();
        let mut two = template.clone();
        two.bots = ["a", "b"]
            .map(|name| BotConfig {
                name: name.to_owned(),
                launch: Launch::Builtin(name.to_owned()),
                dir: None,
                env: Default::default(),
                time: None,
                sandbox: None,
            })
            .to_vec();
        let schedule = Schedule::new(&two);
        let layouts: Vec<ScheduledGame> = schedule.games((0..league.rounds() as usize).map(|k| 2 * k)).collect();
        LeagueState {
            specs: layouts.iter().map(|layout| layout.spec(&template)).collect(),
            layouts,
            league: league.clone(),
            template,
            entrants: Vec::new(),
            labels: Vec::new(),
            retired: Vec::new(),
            byes: Vec::new(),
            by_label: HashMap::new(),
            rounds: 0,
            last_round: Vec::new(),
            pairs: HashMap::new(),
            games: 0,
        }
    }

    /// The league's rules.
    pub fn league(&self) -> &League {
        &self.league
    }

    /// Every entrant, in the order they joined (their numbers).
    pub fn entrants(&self) -> &[Entrant] {
        &self.entrants
    }

    /// Whether entrant `number` retired.
    pub fn is_retired(&self, number: usize) -> bool {
        self.retired[number]
    }

    /// The byes entrant `number` has had (in a Swiss's rounds).
    pub fn byes(&self, number: usize) -> u32 {
        self.byes[number]
    }

    /// The number of the entrant labelled `label`.
    pub fn number_of(&self, label: &str) -> Option<usize> {
        self.by_label.get(label).copied()
    }

    /// The rounds decided.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    /// The games recorded.
    pub fn games(&self) -> usize {
        self.games
    }

    /// The games of every round decided, played or not.
    pub fn decided_games(&self) -> usize {
        self.pairs
            .values()
            .map(|pair| 2 * pair.decided.count_ones() as usize)
            .sum()
    }

    /// The layout rounds decided between entrants `a` and `b` (in either order).
    pub fn decided_between(&self, a: usize, b: usize) -> u32 {
        let key = (a.min(b) as u32, a.max(b) as u32);
        self.pairs.get(&key).map_or(0, |pair| pair.decided.count_ones())
    }

    /// The next layout round the pair of `a` and `b` would play, if the rules allow one more.
    pub fn next_layout_round(&self, a: usize, b: usize) -> Option<u32> {
        let decided = self.decided_between(a, b);
        (decided < self.league.rounds()).then_some(decided)
    }

    /// The league as a tournament of its entrants (see [`League::tournament`]).
    pub fn tournament(&self) -> Tournament {
        let bots = self
            .entrants
            .iter()
            .map(|entrant| BotConfig {
                name: entrant.label(),
                launch: Launch::Command(entrant.command.clone()),
                dir: Some(entrant.dir()),
                env: Default::default(),
                time: None,
                sandbox: self.league.sandbox.clone(),
            })
            .collect();
        self.league.tournament(bots)
    }

    /// The games decided and not recorded between active entrants: the last round's in its order, then
    /// any other.
    pub fn pending(&self) -> Vec<PendingGame> {
        let mut units: Vec<LayoutPair> = self.last_round.clone();
        let mut older: Vec<LayoutPair> = self
            .pairs
            .iter()
            .flat_map(|(&(a, b), rounds)| {
                (0..64)
                    .filter(move |k| rounds.decided >> k & 1 == 1)
                    .map(move |k| LayoutPair(a, b, k))
            })
            .filter(|pair| !self.last_round.contains(pair))
            .collect();
        older.sort();
        units.extend(older);
        let mut pending = Vec::new();
        for (unit, pair) in units.into_iter().enumerate() {
            if self.retired[pair.0 as usize] || self.retired[pair.1 as usize] {
                continue;
            }
            let rounds = self.pairs[&(pair.0, pair.1)];
            for seat in 0..2 {
                if rounds.played[seat] >> pair.2 & 1 == 0 {
                    pending.push(PendingGame { pair, seat, unit });
                }
            }
        }
        pending
    }

    /// The game `pair` plays with `seat` in the first seat, as the league schedules it.
    pub fn game(&self, pair: LayoutPair, seat: usize) -> ScheduledGame {
        let labels = [pair.0, pair.1].map(|number| self.labels[number as usize].clone());
        let layout = &self.layouts[pair.2 as usize];
        ScheduledGame {
            index: 0,
            id: pair.id(seat),
            layout: pair.layout(),
            first: labels[seat].clone(),
            second: labels[1 - seat].clone(),
            seed: layout.seed,
            rules: layout.rules,
            blocks: layout.blocks.clone(),
            opening: layout.opening.clone(),
            book: layout.book.clone(),
        }
    }

    /// The spec of `game` (each entrant plays by the league's time control).
    pub fn spec(&self, game: &ScheduledGame) -> pahtum_record::GameSpec {
        game.spec(&self.template)
    }

    /// The content hashes of the entrants of `game`, by seat.
    pub fn hashes_of(&self, game: &ScheduledGame) -> [&str; 2] {
        [&game.first, &game.second].map(|label| self.entrants[self.by_label[label.as_str()]].hash.as_str())
    }

    /// Checks the event `event` against the lines before it, and counts it.
    pub fn apply_event(&mut self, event: Event) -> Result<(), LeagueFault> {
        match event {
            Event::Entrant(entrant) => self.join(entrant),
            Event::Retired(retirement) => match self.by_label.get(&retirement.entrant) {
                Some(&number) if !self.retired[number] => {
                    self.retired[number] = true;
                    Ok(())
                }
                _ => Err(LeagueFault::NotActive {
                    entrant: retirement.entrant,
                }),
            },
            Event::Returned(returned) => match self.by_label.get(&returned.entrant) {
                Some(&number) if self.retired[number] => {
                    self.retired[number] = false;
                    Ok(())
                }
                _ => Err(LeagueFault::NotRetired {
                    entrant: returned.entrant,
                }),
            },
            Event::Round(round) => self.decide(round),
            Event::Voided(voided) => self.void(&voided.game),
        }
    }

    /// Voids the recorded game `id`: its layout pair's seat is pending again.
    fn void(&mut self, id: &str) -> Result<(), LeagueFault> {
        let not_recorded = || LeagueFault::NotRecorded { id: id.to_owned() };
        let (pair, seat) = LayoutPair::of_id(id).ok_or_else(not_recorded)?;
        let rounds = self.pairs.get_mut(&(pair.0, pair.1)).ok_or_else(not_recorded)?;
        if pair.2 >= 64 || rounds.played[seat] >> pair.2 & 1 == 0 {
            return Err(not_recorded());
        }
        rounds.played[seat] &= !(1 << pair.2);
        self.games -= 1;
        Ok(())
    }

    fn join(&mut self, entrant: Entrant) -> Result<(), LeagueFault> {
        let label = entrant.label();
        let bad = |problem: &str| {
            Err(LeagueFault::BadEntrant {
                label: label.clone(),
                problem: problem.to_owned(),
            })
        };
        if !is_plain_name(&entrant.name) || !is_plain_name(&entrant.version) {
            return bad("its name and version must be plain names");
        }
        if self.by_label.contains_key(&label) {
            return bad("it joined before");
        }
        if !is_content_hash(&entrant.hash) {
            return bad("its hash is not \"sha256:\" and 64 hex digits");
        }
        if entrant.command.is_empty() {
            return bad("its command is empty");
        }
        self.by_label.insert(label.clone(), self.entrants.len());
        self.labels.push(label);
        self.entrants.push(entrant);
        self.retired.push(false);
        self.byes.push(0);
        Ok(())
    }

    fn decide(&mut self, round: Round) -> Result<(), LeagueFault> {
        let number = round.number;
        let bad = |problem: String| Err(LeagueFault::BadRound { number, problem });
        if number != self.rounds + 1 {
            return bad(format!("expected round {}", self.rounds + 1));
        }
        // The layout rounds each pair has decided with this round's, counted only once all of it passes.
        let mut decided: HashMap<(u32, u32), u64> = HashMap::new();
        for &LayoutPair(a, b, k) in &round.pairs {
            let active = |n: u32| (n as usize) < self.entrants.len() && !self.retired[n as usize];
            if a >= b || !active(a) || !active(b) {
                return bad(format!("[{a}, {b}, {k}] is not two active entrants, the lower first"));
            }
            if k >= self.league.rounds() {
                return bad(format!(
                    "[{a}, {b}, {k}]: a pair plays at most {} layout rounds",
                    self.league.rounds()
                ));
            }
            let before = self.pairs.get(&(a, b)).map_or(0, |rounds| rounds.decided);
            let rounds = decided.entry((a, b)).or_insert(before);
            if *rounds >> k & 1 == 1 {
                return bad(format!("[{a}, {b}, {k}] was decided before"));
            }
            *rounds |= 1 << k;
        }
        if let Some(bye) = round.bye {
            let active = (bye as usize) < self.entrants.len() && !self.retired[bye as usize];
            if self.league.swiss.is_none() {
                return bad(format!("a bye (entrant {bye}) in a league that is no Swiss"));
            }
            if !active || round.pairs.iter().any(|pair| pair.0 == bye || pair.1 == bye) {
                return bad(format!(
                    "the bye {bye} is not an active entrant left out of the round's pairs"
                ));
            }
        }
        for (pair, rounds) in decided {
            self.pairs.entry(pair).or_default().decided = rounds;
        }
        if let Some(bye) = round.bye {
            self.byes[bye as usize] += 1;
        }
        self.rounds = number;
        self.last_round = round.pairs;
        Ok(())
    }

    /// Checks the game `record`, with its entrants' hashes by seat, against the lines before it, and counts it.
    pub fn apply_game(&mut self, record: &GameRecord, hashes: &[String; 2]) -> Result<(), LeagueFault> {
        let id = &record.id;
        let unknown = || LeagueFault::Line(Fault::UnknownGame { id: id.clone() });
        let (pair, seat) = LayoutPair::of_id(id).ok_or_else(unknown)?;
        if pair.1 as usize >= self.entrants.len() || pair.0 >= pair.1 || pair.2 >= self.league.rounds() {
            return Err(unknown());
        }
        let rounds = self.pairs.get(&(pair.0, pair.1)).copied().unwrap_or_default();
        if rounds.decided >> pair.2 & 1 == 0 {
            return Err(LeagueFault::NotDecided { id: id.clone() });
        }
        if rounds.played[seat] >> pair.2 & 1 == 1 {
            return Err(LeagueFault::Duplicate { id: id.clone() });
        }
        // The game as `game` and `spec` give it, without building it: its entrants by seat, and its layout key,
        // which its id (as `of_id` checked) is with the seat after it.
        let seated = if seat == 0 { [pair.0, pair.1] } else { [pair.1, pair.0] }.map(|number| number as usize);
        let layout = &id[..id.len() - "-a".len()];
        as_laid_out(
            record,
            seated.map(|number| self.labels[number].as_str()),
            Some(layout),
            &self.specs[pair.2 as usize],
        )?;
        let expected = seated.map(|number| self.entrants[number].hash.as_str());
        if hashes.each_ref().map(String::as_str) != expected {
            return Err(LeagueFault::WrongHashes {
                id: id.clone(),
                recorded: hashes.clone(),
                expected: expected.map(str::to_owned),
            });
        }
        self.pairs.get_mut(&(pair.0, pair.1)).expect("decided").played[seat] |= 1 << pair.2;
        self.games += 1;
        Ok(())
    }
}

/// Layout pairs as the journal writes them: `[[a, b, k], ...]`, or `no round` for none.
fn pairs_text(pairs: &[LayoutPair]) -> String {
    if pairs.is_empty() {
        return "no round (the league is over)".to_owned();
    }
    let each: Vec<String> = pairs
        .iter()
        .map(|LayoutPair(a, b, k)| format!("[{a}, {b}, {k}]"))
        .collect();
    format!("[{}]", each.join(", "))
}

/// Whether `hash` is `"sha256:"` and 64 lowercase hex digits.
fn is_content_hash(hash: &str) -> bool {
    hash.strip_prefix("sha256:")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f')))
}
