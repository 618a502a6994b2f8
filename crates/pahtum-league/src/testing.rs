//! Fixtures for the tests and benchmarks: large synthetic league journals, and simulated fields that
//! compare the league's pairing rule with a round robin. Compiled for this crate's tests and, with the
//! `testing` feature, for other crates'; never into a release build.

use std::path::Path;

use pahtum_tournament::testing::random_game;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Writes a league's journal at `path` of `entrants` entrants (each a `first-free`) and its first `games`
/// games (full games of random stones with timings, as long as real records), the layout pairs in rounds:
/// layout round 0 of every pair, then round 1, and so on; returns its size in bytes.
pub fn synthetic_league(path: &Path, entrants: usize, games: usize) -> u64 {
    let names: Vec<(String, &str)> = (0..entrants).map(|number| (format!("bot{number:03}"), "1")).collect();
    let names: Vec<(&str, &str)> = names.iter().map(|(name, version)| (name.as_str(), *version)).collect();
    synthetic_league_of(path, &names, games)
}

/// [`synthetic_league`] of the entrants `names` (name and version each, in the order they join).
pub fn synthetic_league_of(path: &Path, names: &[(&str, &str)], games: usize) -> u64 {
    use crate::{Entrant, Event, LayoutPair, LeagueHeader, LeagueState, Round, rules};
    use pahtum_journal::entrants::GameLine;
    let entrants = names.len();
    let pairs = entrants * (entrants - 1) / 2;
    let per_pair = games.div_ceil(pairs).next_multiple_of(2).max(2);
    let text = format!("name = \"bench\"\ngames_per_pair = {per_pair}\n");
    let league = rules::parse(Path::new("league.toml"), &text).expect("a valid league.toml");
    let mut state = LeagueState::new(&league);
    let mut lines = Vec::new();
    line(&mut lines, &LeagueHeader::new(&league));
    for (number, (name, version)) in names.iter().enumerate() {
        let entrant = Entrant {
            name: (*name).to_owned(),
            version: (*version).to_owned(),
            hash: format!("sha256:{number:064x}"),
            command: vec!["first-free".to_owned()],
            build: None,
            joined_unix_ms: 1_700_000_000_000,
        };
        let event = Event::Entrant(entrant);
        line(&mut lines, &event);
        state.apply_event(event).expect("a new entrant");
    }
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut left = games;
    for k in 0..league.rounds() {
        let units: Vec<LayoutPair> = (0..entrants as u32)
            .flat_map(|b| (0..b).map(move |a| LayoutPair(a, b, k)))
            .take(left.div_ceil(2))
            .collect();
        if units.is_empty() {
            break;
        }
        let event = Event::Round(Round {
            number: k + 1,
            pairs: units.clone(),
            bye: None,
        });
        line(&mut lines, &event);
        state.apply_event(event).expect("a new round");
        for pair in units {
            for seat in 0..2 {
                if left == 0 {
                    break;
                }
                left -= 1;
                let game = state.game(pair, seat);
                let record = random_game(&game, state.spec(&game), &mut rng);
                line(
                    &mut lines,
                    &GameLine {
                        record: &record,
                        entrants: state.hashes_of(&game),
                    },
                );
            }
        }
    }
    std::fs::write(path, &lines).expect("the journal is written");
    lines.len() as u64
}

/// An entrant of the tests' leagues: a `first-free` joined at the epoch, its content hash made of `number`.
pub fn entrant(number: usize, name: &str, version: &str) -> crate::Entrant {
    crate::Entrant {
        name: name.to_owned(),
        version: version.to_owned(),
        hash: format!("sha256:{number:064x}"),
        command: vec!["first-free".to_owned()],
        build: None,
        joined_unix_ms: 0,
    }
}

/// Appends `value` to `lines` as one JSON line.
fn line(lines: &mut Vec<u8>, value: &impl serde::Serialize) {
    serde_json::to_writer(&mut *lines, value).expect("a line serializes");
    lines.push(b'\n');
}

/// A simulated league field of `size` bots of known strength (Elo evenly spread from -400 to +400), whose
/// games are won with the logistic Elo probability (no draws), rated as a league's table rates them.
struct Field {
    strength: Vec<f64>,
    matrix: pahtum_stats::PairMatrix,
    games: u64,
    rng: ChaCha8Rng,
}

impl Field {
    fn new(size: usize, seed: u64) -> Field {
        Field {
            strength: (0..size)
                .map(|i| -400.0 + 800.0 * i as f64 / (size - 1) as f64)
                .collect(),
            matrix: pahtum_stats::PairMatrix::new(size),
            games: 0,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// One layout pair: two games of `a` against `b`.
    fn play(&mut self, a: usize, b: usize) {
        let p = 1.0 / (1.0 + 10f64.powf((self.strength[b] - self.strength[a]) / 400.0));
        let wins = (0..2).filter(|_| self.rng.random::<f64>() < p).count() as u64;
        self.matrix.add_games(a, b, 2, 2 * wins).expect("two bots of the field");
        self.games += 2;
    }

    /// Each bot as the pairing rule sees it: its rating and interval from the joint fit of the bots with games.
    fn entrants(&self) -> Vec<crate::pairing::Entrant> {
        let size = self.strength.len();
        let rated: Vec<usize> = (0..size).filter(|&i| self.matrix.player_games(i) > 0).collect();
        let mut matrix = pahtum_stats::PairMatrix::new(rated.len());
        for (x, &a) in rated.iter().enumerate() {
            for (y, &b) in rated.iter().enumerate() {
                let games = self.matrix.games(a, b);
                if games > 0 {
                    let half_points = (2.0 * self.matrix.points(a, b)) as u64;
                    matrix.add_games(x, y, games, half_points).expect("two rated bots");
                }
            }
        }
        let fitted = pahtum_stats::fit(&matrix, &pahtum_stats::FitOptions::default()).ok();
        (0..size)
            .map(|i| crate::pairing::Entrant {
                active: true,
                rating: fitted.as_ref().and_then(|fitted| {
                    let player = fitted.players[rated.iter().position(|&r| r == i)?];
                    Some((player.rating, (player.upper - player.lower) / 2.0))
                }),
                games: self.matrix.player_games(i),
            })
            .collect()
    }

    fn settled(&self, target: f64) -> bool {
        self.entrants()
            .iter()
            .all(|entrant| entrant.rating.is_some_and(|(_, width)| width <= target))
    }
}

/// The games a simulated field of `size` bots (seeded by `seed`) plays by the league's pairing rule, a round
/// at a time with `opponents` opponents per entrant in need, until every 95% interval is within ±`target` Elo.
pub fn simulate_rule(size: usize, seed: u64, target: f64, opponents: usize) -> u64 {
    let mut field = Field::new(size, seed);
    let mut decided = vec![vec![0u32; size]; size];
    while !field.settled(target) {
        let entrants = field.entrants();
        let may_meet = |a: usize, b: usize| decided[a][b] < 64;
        let round = crate::pairing::round(&entrants, target, opponents, may_meet, |a, b| decided[a][b]);
        if round.is_empty() {
            break;
        }
        for (a, b) in round {
            decided[a][b] += 1;
            decided[b][a] += 1;
            field.play(a, b);
        }
    }
    field.games
}

/// The games the same field plays as a round robin (the tournament's order: layout round 0 of every pair,
/// then round 1, ...) until every 95% interval is within ±`target` Elo, checked every 15 layout pairs.
pub fn simulate_round_robin(size: usize, seed: u64, target: f64) -> u64 {
    let mut field = Field::new(size, seed);
    let pairs: Vec<(usize, usize)> = (0..size).flat_map(|a| (a + 1..size).map(move |b| (a, b))).collect();
    for _round in 0..64 {
        for (count, &(a, b)) in pairs.iter().enumerate() {
            field.play(a, b);
            if count % 15 == 14 && field.settled(target) {
                return field.games;
            }
        }
    }
    field.games
}

/// A league of entrants of known strength played in memory, round by round, by the league's own decision
/// ([`crate::decide::next_round`]) over its own table: each game a real record of the league's layout (random
/// stones) whose result is drawn from the logistic Elo probability. The final's rule is tested, and measured
/// against a round robin, on it.
#[derive(Debug)]
pub struct SimulatedLeague {
    state: crate::LeagueState,
    tallies: pahtum_standings::standings::Tallies,
    strength: Vec<f64>,
    rng: ChaCha8Rng,
    /// Its journal's lines so far.
    lines: Vec<u8>,
}

/// The final's rule of `places` places apart at `permille` thousandths, within `max_games`, one layout pair a
/// round per boundary.
pub fn separate(places: u32, permille: u32, max_games: u32) -> crate::rules::Separate {
    crate::rules::Separate {
        places,
        confidence_permille: permille,
        max_games,
        pairs_per_round: 1,
    }
}

impl SimulatedLeague {
    /// A league of entrants `e0`, `e1`, ... of Elo `strength`, 128 games per pair at most, decided by the
    /// final's rule `separate` (or the precision rule), its games drawn from `seed`.
    pub fn new(strength: &[f64], separate: Option<crate::rules::Separate>, seed: u64) -> SimulatedLeague {
        let text = "name = \"simulated\"\ngames_per_pair = 128\n";
        let mut league = crate::rules::parse(Path::new("league.toml"), text).expect("a valid league.toml");
        league.separate = separate;
        SimulatedLeague::of(&league, strength, seed)
    }

    /// A league of `league`'s rules whose entrants `e0`, `e1`, ... are of Elo `strength`, its games drawn
    /// from `seed`.
    pub fn of(league: &crate::League, strength: &[f64], seed: u64) -> SimulatedLeague {
        let mut state = crate::LeagueState::new(league);
        let mut lines = Vec::new();
        line(&mut lines, &crate::LeagueHeader::new(league));
        for number in 0..strength.len() {
            let joined = crate::Event::Entrant(entrant(number, &format!("e{number}"), "1"));
            line(&mut lines, &joined);
            state.apply_event(joined).expect("a new entrant");
        }
        let labels: Vec<String> = state.entrants().iter().map(crate::Entrant::label).collect();
        SimulatedLeague {
            state,
            tallies: pahtum_standings::standings::Tallies::new(&labels),
            strength: strength.to_vec(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            lines,
        }
    }

    /// Its journal: every line so far, as the league writes them.
    pub fn journal(&self) -> &[u8] {
        &self.lines
    }

    /// The league as its lines so far say.
    pub fn state(&self) -> &crate::LeagueState {
        &self.state
    }

    /// The league's table now.
    pub fn table(&self) -> crate::table::Table {
        crate::table::table(&self.state, self.tallies.clone(), None).expect("a fit")
    }

    /// Decides the next round as the league does and records it; its layout pairs, empty when none is needed.
    pub fn decide(&mut self) -> Vec<crate::LayoutPair> {
        let target = f64::from(self.state.league().precision_elo);
        let decided = crate::decide::next_round(&self.state, &self.table(), target);
        let pairs = decided.pairs.clone();
        if !pairs.is_empty() {
            let number = self.state.rounds() + 1;
            let round = crate::Event::Round(crate::Round {
                number,
                pairs: decided.pairs,
                bye: decided.bye,
            });
            line(&mut self.lines, &round);
            self.state.apply_event(round).expect("the rule decides a sound round");
        }
        pairs
    }

    /// Decides a round of the round robin, as a tournament orders it: every pair's next layout round; its
    /// layout pairs, empty once every pair has played what the rules allow.
    pub fn decide_round_robin(&mut self) -> Vec<crate::LayoutPair> {
        let size = self.state.entrants().len();
        let pairs: Vec<crate::LayoutPair> = (0..size)
            .flat_map(|a| (a + 1..size).map(move |b| (a, b)))
            .filter_map(|(a, b)| {
                let k = self.state.next_layout_round(a, b)?;
                Some(crate::LayoutPair(a as u32, b as u32, k))
            })
            .collect();
        if !pairs.is_empty() {
            let round = crate::Event::Round(crate::Round {
                number: self.state.rounds() + 1,
                pairs: pairs.clone(),
                bye: None,
            });
            line(&mut self.lines, &round);
            self.state.apply_event(round).expect("a round robin's round is sound");
        }
        pairs
    }

    /// Retires the entrant labelled `label`, as `arena league retire` does.
    pub fn retire(&mut self, label: &str) {
        let retired = crate::Event::Retired(crate::Retirement {
            entrant: label.to_owned(),
            unix_ms: 1,
        });
        line(&mut self.lines, &retired);
        self.state.apply_event(retired).expect("an active entrant");
    }

    /// Plays every game decided and not recorded.
    pub fn play_decided(&mut self) {
        for pending in self.state.pending() {
            let game = self.state.game(pending.pair, pending.seat);
            let seated = [&game.first, &game.second]
                .map(|label| self.strength[self.state.number_of(label).expect("an entrant")]);
            let first_wins = self.rng.random::<f64>() < 1.0 / (1.0 + 10f64.powf((seated[1] - seated[0]) / 400.0));
            let winner = if first_wins {
                pahtum::Seat::First
            } else {
                pahtum::Seat::Second
            };
            // Random stones until the winner drawn wins them: a record that replays, with the result wanted.
            let record = std::iter::repeat_with(|| random_game(&game, self.state.spec(&game), &mut self.rng))
                .find(|record| record.points_of(winner) == 1.0)
                .expect("random stones are won by either seat");
            let hashes = self.state.hashes_of(&game).map(str::to_owned);
            let written = pahtum_journal::entrants::GameLine {
                record: &record,
                entrants: self.state.hashes_of(&game),
            };
            line(&mut self.lines, &written);
            self.state.apply_game(&record, &hashes).expect("a decided game");
            self.tallies.add(&record);
        }
    }
}

/// A round cut out of a league's journal, as a cluster's shards leave it ([`cut_round`]).
#[derive(Debug)]
pub struct CutRound {
    /// The league's folder: its rules, and its journal without the round's games.
    pub league: std::path::PathBuf,
    /// The shards' journals: each a copy of the league's, with its share of the round's games after it.
    pub shards: Vec<std::path::PathBuf>,
    /// The length of the league's journal: where each shard's own lines start.
    pub from: u64,
    /// The games before the round's.
    pub before: usize,
}

/// Cuts the last `new` games of the journal at `path` (written by [`synthetic_league`], whose last round
/// holds them) out into `count` shards dealt in turn, beside it: a league's folder `league/` of the rest
/// (with a `league.toml` of the header's games per pair) and the shards' journals `shard-K.jsonl`.
pub fn cut_round(path: &Path, count: usize, new: usize) -> CutRound {
    use std::io::{BufRead, Write};
    let dir = path.parent().expect("a journal in a folder");
    let lines: Vec<String> = std::io::BufReader::new(std::fs::File::open(path).expect("the journal"))
        .lines()
        .map(|line| line.expect("a line"))
        .collect();
    let is_game = |line: &String| line.starts_with("{\"id\":");
    let games = lines.iter().filter(|line| is_game(line)).count();
    let league = dir.join("league");
    let _ = std::fs::remove_dir_all(&league);
    std::fs::create_dir_all(&league).expect("the league's folder");
    let header: serde_json::Value = serde_json::from_str(&lines[0]).expect("a header");
    let rules = format!(
        "name = \"bench\"\ngames_per_pair = {}\n",
        header["league"]["games_per_pair"]
    );
    std::fs::write(league.join("league.toml"), rules).expect("league.toml");
    let journal = league.join("journal.jsonl");
    let shards: Vec<std::path::PathBuf> = (1..=count).map(|k| dir.join(format!("shard-{k}.jsonl"))).collect();
    let create = |path: &Path| std::io::BufWriter::new(std::fs::File::create(path).expect("a journal"));
    let mut before = create(&journal);
    let mut writers: Vec<_> = shards.iter().map(|shard| create(shard)).collect();
    let mut seen = 0;
    for line in &lines {
        let of_the_round = is_game(line) && {
            seen += 1;
            seen > games - new
        };
        if of_the_round {
            writeln!(writers[seen % count], "{line}").expect("a shard's line");
        } else {
            writeln!(before, "{line}").expect("a line");
            for writer in &mut writers {
                writeln!(writer, "{line}").expect("a shard's line");
            }
        }
    }
    drop((before, writers));
    CutRound {
        from: std::fs::metadata(&journal).expect("the journal").len(),
        league,
        shards,
        before: games - new,
    }
}
