//! Fixtures for the unit tests and benchmarks: a small tournament, game records built by hand, and large
//! synthetic journals.

use std::ops::Range;
use std::path::Path;

use pahtum::{Action, Bitboard, Cell, Color, Outcome, Score, Seat};
use pahtum_protocol::{ClockKind, Placement, Reason, Rules, TimeControl};
use pahtum_record::{Forfeit, GameRecord, GameSpec, MoveRecord, Players, Termination, Timing};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::config::{self, Tournament};
use crate::journal::{Joined, Journal, JournalReader, tournament_hash};
use crate::schedule::{Schedule, ScheduledGame};

/// A round-robin of bots `a`, `b` and `c`.
pub fn tournament() -> Tournament {
    let text = r#"
        name = "t"
        seed = 3
        [[bots]]
        name = "a"
        builtin = "heuristic"
        [[bots]]
        name = "b"
        builtin = "heuristic"
        [[bots]]
        name = "c"
        command = "python3 c.py"
    "#;
    config::parse(Path::new("t.toml"), text).unwrap().tournament
}

/// A match of `a` against `b`, `games` games (an even number).
pub fn head_to_head(games: u32) -> Tournament {
    let text = format!(
        "name = \"m\"\ngames_per_pair = {games}\n[[bots]]\nname = \"a\"\nbuiltin = \"heuristic\"\n\
         [[bots]]\nname = \"b\"\nbuiltin = \"first-free\"\n"
    );
    config::parse(Path::new("m.toml"), &text).unwrap().tournament
}

/// A normal game between `first` and `second`, no pie swap, White winning 10 to 3.
pub fn record(id: &str, first: &str, second: &str) -> GameRecord {
    GameRecord {
        id: id.to_owned(),
        layout: Some(id[..id.len().saturating_sub(2)].to_owned()),
        seed: Some(1),
        rules: Rules {
            pie: true,
            blocks: 5,
            placement: Placement::Random,
        },
        time: TimeControl {
            move_ms: Some(100),
            base_ms: None,
            increment_ms: 0,
            margin_ms: 20,
            clock: ClockKind::Wall,
        },
        time_by_seat: None,
        pause_idle: false,
        players: Players {
            first: first.to_owned(),
            second: second.to_owned(),
        },
        white: first.to_owned(),
        black: second.to_owned(),
        blocks: Vec::new(),
        opening: None,
        moves: Vec::new(),
        swap: Some(false),
        swap_move: None,
        score: Score { white: 10, black: 3 },
        result: Outcome::White,
        termination: Termination::normal(),
        started_unix_ms: 0,
        ended_unix_ms: 1,
        hello: None,
    }
}

/// The record of `game`, played by `spec`, won by `winner` (one of its bots): its opponent ran out of time
/// before its first move, so that the record passes the journal's audit.
pub fn won_by(game: &ScheduledGame, spec: &GameSpec, winner: &str) -> GameRecord {
    let players = Players {
        first: game.first.clone(),
        second: game.second.clone(),
    };
    let board = spec.initial_game();
    let loser = if game.first == winner {
        Seat::Second
    } else {
        Seat::First
    };
    let termination = Termination {
        reason: Reason::Timeout,
        forfeit: Some(Forfeit {
            bot: players.of(loser).to_owned(),
            seat: loser,
            color: board.color_of(loser),
            detail: "test".to_owned(),
            line: None,
            stderr_tail: Vec::new(),
            overloaded: false,
        }),
        also: None,
    };
    spec.record(players, &board, Vec::new(), None, termination, 0)
}

/// `record` with the given score, the result following it.
pub fn scored(mut record: GameRecord, white: u32, black: u32) -> GameRecord {
    record.score = Score { white, black };
    record.result = record.score.outcome();
    record
}

/// `record` after a pie swap: the second seat plays White.
pub fn swapped(mut record: GameRecord) -> GameRecord {
    record.swap = Some(true);
    std::mem::swap(&mut record.white, &mut record.black);
    record
}

/// `record` ended by a forfeit of the bot in `seat`.
pub fn forfeited(mut record: GameRecord, seat: Seat, reason: Reason) -> GameRecord {
    let color = record.color_of(seat);
    record.result = Outcome::win_for(color.opponent());
    record.termination = Termination {
        reason,
        forfeit: Some(Forfeit {
            bot: record.players.of(seat).to_owned(),
            seat,
            color,
            detail: "test".to_owned(),
            line: None,
            stderr_tail: Vec::new(),
            overloaded: false,
        }),
        also: None,
    };
    record
}

/// Writes a journal at `path` of a 12-bot round-robin with enough games per pair for `games`, its first
/// `games` games played at random (full games with timings, as long as real records); returns its size in bytes.
pub fn synthetic_journal(path: &Path, games: usize) -> u64 {
    let per_pair = games.div_ceil(66).next_multiple_of(2);
    let mut text = format!("name = \"bench\"\ngames_per_pair = {per_pair}\n");
    for i in 0..12 {
        text.push_str(&format!("[[bots]]\nname = \"bot{i:02}\"\nbuiltin = \"first-free\"\n"));
    }
    let tournament = config::parse(Path::new("bench.toml"), &text)
        .expect("a valid file")
        .tournament;
    Journal::create(path, &tournament).expect("a new journal");
    let schedule = Schedule::new(&tournament);
    append_random_games(path, Vec::new(), &schedule, 0..games.min(schedule.len()), 1)
}

/// Appends `lead` and the games of `schedule` at `indices`, played at random (from `seed`), to the journal
/// at `path`; returns its size in bytes.
fn append_random_games(path: &Path, mut lines: Vec<u8>, schedule: &Schedule, indices: Range<usize>, seed: u64) -> u64 {
    // Syncing each of 100,000 lines would time the disk, not the standings: append the records in one go.
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for game in schedule.games(indices) {
        let spec = game.spec(schedule.tournament());
        serde_json::to_writer(&mut lines, &random_game(&game, spec, &mut rng)).expect("a record serializes");
        lines.push(b'\n');
    }
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("the journal");
    std::io::Write::write_all(&mut file, &lines).expect("the records are written");
    std::fs::metadata(path).expect("the journal").len()
}

/// The `joined` line of the last join of `grown`.
pub fn joined_line(grown: &Schedule) -> Joined {
    let first = grown.joins().last().copied().expect("a schedule grown by a join");
    Joined {
        joined: grown.tournament().bots[first..].to_vec(),
        unix_ms: 1_700_000_000_000,
        games: grown.len(),
        hash: tournament_hash(grown.tournament()),
    }
}

/// [`synthetic_journal`] of `games` games, then `joining` bots (`joined1`, ...) that join it (a `joined`
/// line) and every game of theirs, played at random: the lines of a journal of a tournament that grew.
/// Returns the grown schedule and the journal's size in bytes.
pub fn synthetic_grown_journal(path: &Path, games: usize, joining: usize) -> (Schedule, u64) {
    synthetic_journal(path, games);
    let tournament = JournalReader::open(path)
        .expect("the journal")
        .header()
        .tournament
        .clone();
    let bots: Vec<config::BotConfig> = (1..=joining)
        .map(|i| config::BotConfig {
            name: format!("joined{i}"),
            ..tournament.bots[0].clone()
        })
        .collect();
    let old = Schedule::new(&tournament).len();
    let grown = Schedule::new(&tournament).join(&bots);
    let mut join = serde_json::to_vec(&joined_line(&grown)).expect("a line serializes");
    join.push(b'\n');
    let size = append_random_games(path, join, &grown, old..grown.len(), 2);
    (grown, size)
}

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
    use crate::league::{Entrant, Event, GameLine, LayoutPair, LeagueHeader, LeagueState, Round, rules};
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

/// Appends `value` to `lines` as one JSON line.
fn line(lines: &mut Vec<u8>, value: &impl serde::Serialize) {
    serde_json::to_writer(&mut *lines, value).expect("a line serializes");
    lines.push(b'\n');
}

/// A full game of random legal stones on the scheduled blocks, without a pie swap.
pub fn random_game(game: &ScheduledGame, spec: GameSpec, rng: &mut ChaCha8Rng) -> GameRecord {
    let blocks: Bitboard = game.blocks.iter().copied().collect();
    let mut free: Vec<Cell> = Cell::all().filter(|cell| !blocks.contains(*cell)).collect();
    for i in (1..free.len()).rev() {
        free.swap(i, rng.random_range(0..=i));
    }
    let (mut white, mut black) = (Bitboard::EMPTY, Bitboard::EMPTY);
    let moves = free
        .iter()
        .enumerate()
        .map(|(ply, &cell)| {
            let color = if ply % 2 == 0 { Color::White } else { Color::Black };
            match color {
                Color::White => white = white.with(cell),
                Color::Black => black = black.with(cell),
            }
            MoveRecord {
                kind: Default::default(),
                seat: Some(if color == Color::White {
                    Seat::First
                } else {
                    Seat::Second
                }),
                color,
                cell,
                timing: Timing {
                    ms: microseconds(rng.random_range(0.05..5.0)),
                    cpu_ms: Some(microseconds(rng.random_range(0.01..5.0))),
                    info: None,
                },
            }
        })
        .collect();
    let score = Score::of(white, black);
    GameRecord {
        id: spec.id,
        layout: spec.layout,
        seed: spec.seed,
        rules: spec.rules,
        time: spec.time,
        time_by_seat: spec.time_by_seat,
        pause_idle: spec.pause_idle,
        players: Players {
            first: game.first.clone(),
            second: game.second.clone(),
        },
        white: game.first.clone(),
        black: game.second.clone(),
        blocks: spec.blocks,
        opening: None,
        moves,
        swap: Some(false),
        swap_move: Some(Timing {
            ms: 0.2,
            cpu_ms: None,
            info: None,
        }),
        score,
        result: score.outcome(),
        termination: Termination::normal(),
        started_unix_ms: 1_700_000_000_000,
        ended_unix_ms: 1_700_000_000_100,
        hello: None,
    }
}

/// Milliseconds at the referee's resolution, a microsecond.
fn microseconds(ms: f64) -> f64 {
    (ms * 1e3).round() / 1e3
}

/// Game `id` of [`tournament`]'s schedule as the runner would record it, played to the end by two bots
/// that take the first free cell and keep the colours: a record that passes the journal's audit.
pub fn played(id: &str) -> GameRecord {
    let tournament = tournament();
    let schedule = Schedule::new(&tournament);
    let index = schedule
        .index_of(id)
        .unwrap_or_else(|| panic!("{id} is not a game of the test tournament"));
    let game = schedule.game(index);
    let spec = game.spec(&tournament);
    let players = Players {
        first: game.first,
        second: game.second,
    };
    spec.play_out(players, |board| match board.legal_moves()[0] {
        Action::Pie(_) => Action::Pie(false),
        action => action,
    })
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
    fn entrants(&self) -> Vec<crate::league::pairing::Entrant> {
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
            .map(|i| crate::league::pairing::Entrant {
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
        let round = crate::league::pairing::round(&entrants, target, opponents, may_meet, |a, b| decided[a][b]);
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
