//! Standings: game records counted into tables of numbers.
//!
//! [`Tallies`] count the records one at a time and [`finish`](Tallies::finish)
//! into [`Standings`]; they read nothing but the records, so the same records
//! give the same standings wherever they come from (a finished run, an
//! interrupted one, a resumed one, the shards of one). They keep counts, never
//! records, so a journal of any length is counted in the same memory, and
//! pieces of it counted in parallel merge into exactly the standings of the
//! whole. Presenting them is the `pahtum-report` crate's work.
//! The standings carry the bots' strength too ([`crate::strength`]): each row's
//! Elo with its 95% interval and its LOS over the next row, and the whole
//! [`Strength`] (ratings, LOS matrix, pair table) beside the tables.
//!
//! # Rank
//!
//! Bots are ranked by score (points per game, so that a gauntlet's challenger,
//! who plays more games, is compared fairly, and so that partial standings mean
//! something), then by points, then by name. Bots with equal score and points
//! share a rank. Bots without a game come last.
//!
//! # JSON (`standings.json`)
//!
//! [`Standings`] serialized; `OUTPUTS.md` at the root of the repository
//! documents every key, and `standings.schema.json` beside this crate's
//! manifest is the JSON Schema generated from these types (a test holds the
//! two together).
//!
//! A crash forfeit is the referee's `disconnect` (the bot exited or closed a
//! pipe); a stall is a bot that did not answer `new_game` or `ping` in time.
//! Readers must ignore unknown keys: new keys may be added.

use pahtum::{Color, Seat};
use pahtum_protocol::Reason;
use pahtum_record::GameRecord;
use serde::{Deserialize, Serialize};

use crate::roster::{PerPair, Roster};
use crate::strength::{AnchorSpec, LayoutPairing, Strength, StrengthError, strength};
use crate::tally::{SeatResults, half_points_of};

/// The value of the `schema` key.
pub const SCHEMA: &str = "pahtum-arena/standings/1";

/// Everything the standings report says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Standings {
    /// Always [`SCHEMA`]; a reader checks it before trusting the rest.
    pub schema: String,
    /// The game records counted.
    pub games: usize,
    /// In rank order.
    pub bots: Vec<BotStanding>,
    /// Every bot's results against every other bot.
    pub crosstable: Crosstable,
    /// How much the first move and the pie rule weigh, over all games.
    pub first_move: FirstMove,
    /// The ratings, the LOS matrix and the pair table (flattened into the
    /// standings' JSON).
    #[serde(flatten)]
    pub strength: Strength,
}

/// One bot's line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BotStanding {
    /// 1 for the best; bots with equal score and points share a rank.
    pub rank: usize,
    /// The bot's name.
    pub bot: String,
    /// Games played (forfeits included).
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Win 1, draw ½, loss 0.
    pub points: f64,
    /// `points` per game, in percent; `None` without games.
    pub score_pct: Option<f64>,
    /// The average Pah Tum points of the bot's colour, over its games ended
    /// normally with a full board (not adjudicated); `None` without one.
    pub pahtum_for: Option<f64>,
    /// The average Pah Tum points of the opponent's colour, over the same games.
    pub pahtum_against: Option<f64>,
    /// The bot's forfeits by kind.
    pub forfeits: Forfeits,
    /// `None` when the ratings could not be fitted, or for a bot without games.
    pub rating: Option<Rating>,
    /// The greetings (`hello`) under which the bot played, when its records carry more than one: its
    /// games were played by more than one program, which the standings mix; empty (and left out) otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub greetings: Vec<Greeting>,
}

/// A greeting under which a bot played some of its games: its `hello`'s name and version.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Greeting {
    /// The name the bot said (a bot's text: escape it for a terminal).
    pub name: String,
    /// The version it said, if it said one (a bot's text).
    pub version: Option<String>,
    /// Its games under this greeting.
    pub games: u32,
}

/// The most greetings kept per bot, so that a bot that says another version every game cannot make the
/// tallies grow with its games; the greetings past them are not listed.
const MAX_GREETINGS: usize = 16;

/// Adds `games` under the greeting `name`, `version` to `greetings` (unless it is new and they are full).
fn greeted(greetings: &mut Vec<Greeting>, name: &str, version: Option<&str>, games: u32) {
    match greetings
        .iter()
        .position(|greeting| greeting.name == name && greeting.version.as_deref() == version)
    {
        Some(at) => greetings[at].games += games,
        None if greetings.len() < MAX_GREETINGS => greetings.push(Greeting {
            name: name.to_owned(),
            version: version.map(str::to_owned),
            games,
        }),
        None => {}
    }
}

/// A note for each bot whose games were played under more than one greeting (escaped: they are bots' texts).
pub fn greeting_notes(standings: &Standings) -> impl Iterator<Item = String> + '_ {
    use pahtum_protocol::untrusted::escape;
    standings
        .bots
        .iter()
        .filter(|bot| !bot.greetings.is_empty())
        .map(|bot| {
            let greetings: Vec<String> = bot
                .greetings
                .iter()
                .map(|greeting| {
                    let version = greeting.version.as_deref().map(|v| format!(" {v}")).unwrap_or_default();
                    let name = escape(&format!("{}{version}", greeting.name)).into_owned();
                    let games = if greeting.games == 1 { "game" } else { "games" };
                    format!("\"{name}\" ({} {games})", greeting.games)
                })
                .collect();
            format!(
                "{} played its games under {} greetings (hello), so these standings mix its programs: {}.",
                escape(&bot.bot),
                bot.greetings.len(),
                greetings.join(", ")
            )
        })
}

/// A bot's Elo, as the standings show it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Rating {
    /// The Elo, on the scale of [`RatingModel`](crate::strength::RatingModel)
    /// (relative to the pool's average, or to the anchor).
    pub elo: f64,
    /// The 95% interval.
    pub lower: f64,
    /// The upper end of the 95% interval.
    pub upper: f64,
    /// The likelihood that the bot is stronger than the bot on the next row, if that one is rated.
    pub los_next: Option<f64>,
}

/// A bot's forfeits by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Forfeits {
    /// Games lost on time.
    pub timeout: u32,
    /// Games lost by exiting or closing a pipe (the referee's `disconnect`), or
    /// by running out of memory in a sandbox.
    pub crash: u32,
    /// Games lost by an illegal move.
    pub illegal_move: u32,
    /// Games lost by breaking the protocol.
    pub protocol_error: u32,
    /// Games lost by not answering `new_game` or `ping` in time.
    pub stall: u32,
    /// Of the timeouts, those on a wall clock while the machine was
    /// overloaded (the record's `overloaded`); left out when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub overloaded: u32,
}

fn is_zero(count: &u32) -> bool {
    *count == 0
}

/// What to do about forfeits under overload: the remedy the progress and
/// the standings' note give.
pub const OVERLOAD_REMEDY: &str = "lower --concurrency (or `concurrency`), use `clock = \"cpu\"` in [time] \
                                   (--clock-kind cpu), or `pause_idle = true`";

/// A note on the timeouts under overload, if there were any: the results
/// they decided measure the machine, not the bots.
pub fn overload_note(standings: &Standings) -> Option<String> {
    let overloaded: u32 = standings.bots.iter().map(|bot| bot.forfeits.overloaded).sum();
    (overloaded > 0).then(|| {
        let games = if overloaded == 1 { "game was" } else { "games were" };
        format!(
            "{overloaded} {games} lost on time while the machine was overloaded (the bot used under half \
             the wall time in CPU): those results measure the machine, not the bots; {OVERLOAD_REMEDY}."
        )
    })
}

impl Forfeits {
    fn merge(&mut self, other: Forfeits) {
        self.timeout += other.timeout;
        self.crash += other.crash;
        self.illegal_move += other.illegal_move;
        self.protocol_error += other.protocol_error;
        self.stall += other.stall;
        self.overloaded += other.overloaded;
    }

    fn count(&mut self, reason: Reason) {
        match reason {
            // A resignation (a person's, at `arena play`) is a loss but no bot's fault.
            Reason::Normal | Reason::Resign => {}
            Reason::Timeout => self.timeout += 1,
            // A bot killed for its memory is a crash in the tables; the
            // record's reason and detail say which.
            Reason::Disconnect | Reason::Memory => self.crash += 1,
            Reason::IllegalMove => self.illegal_move += 1,
            Reason::ProtocolError => self.protocol_error += 1,
            Reason::Stall => self.stall += 1,
        }
    }

    /// Forfeits of every kind (`overloaded` is not added: those are timeouts).
    pub fn total(&self) -> u32 {
        self.timeout + self.crash + self.illegal_move + self.protocol_error + self.stall
    }
}

/// The results between every two bots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Crosstable {
    /// Rank order: the rows and the columns.
    pub bots: Vec<String>,
    /// `results[i][j]`: bot `i` against bot `j`, from `i`'s side.
    pub results: Vec<Vec<Option<Tally>>>,
}

/// Games, wins, draws, losses and points, from one side.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Tally {
    /// Games between the two bots.
    pub games: u32,
    /// Games won by this side.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost by this side.
    pub losses: u32,
    /// Win 1, draw ½, loss 0, summed.
    pub points: f64,
}

impl Tally {
    fn of(wins: u32, draws: u32, losses: u32) -> Tally {
        Tally {
            games: wins + draws + losses,
            wins,
            draws,
            losses,
            points: (2 * u64::from(wins) + u64::from(draws)) as f64 / 2.0,
        }
    }

    fn plus(self, other: Tally) -> Tally {
        Tally::of(
            self.wins + other.wins,
            self.draws + other.draws,
            self.losses + other.losses,
        )
    }

    fn score_pct(&self) -> Option<f64> {
        (self.games > 0).then(|| 100.0 * self.points / f64::from(self.games))
    }
}

/// How much the first move and the pie rule weigh.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FirstMove {
    /// The games counted.
    pub games: usize,
    /// The points of the colour White (after any swap) per game, in percent;
    /// `None` without games.
    pub white_score_pct: Option<f64>,
    /// The points of the seat that started as White per game, in percent;
    /// `None` without games.
    pub first_seat_score_pct: Option<f64>,
    /// Drawn games, in percent; `None` without games.
    pub draw_pct: Option<f64>,
    /// Games in which the second player decided on the pie swap.
    pub pie_decisions: usize,
    /// Of those decisions, the swaps taken.
    pub swaps: usize,
    /// `swaps` in percent of `pie_decisions`; `None` without decisions.
    pub swap_pct: Option<f64>,
}

/// The standings being counted: everything [`Standings`] says, from records given one at a time.
///
/// It keeps counts, not records: per bot, per ordered pair of bots (by seat) and per first move, and the
/// layout pairs begun and not finished (see [`crate::strength`]), so its memory is the square of the
/// number of bots and the unfinished layout pairs, whatever the number of games. The records need not
/// carry their moves. Pieces of a journal counted apart (in parallel, or the shards of a run)
/// [merge](Tallies::merge) into the tallies of the whole; every sum is a whole number of half-points or
/// games, and the bots are put in one order before anything is computed, so the standings do not depend on
/// the order of the records or on how the pieces were cut and merged (as long as a layout holds at most one
/// game per seating, which a journal's unique ids ensure).
#[derive(Debug, Clone)]
pub struct Tallies {
    roster: Roster,
    games: usize,
    /// By roster index.
    bots: Vec<BotSums>,
    /// `[first][second]`: the games of the first seat's bot against the second seat's.
    meetings: PerPair<SeatResults>,
    /// `[low][high]`, `low < high`: the layout pairs of the two bots, from `low`'s side.
    layout_pairs: PerPair<LayoutPairing>,
    first_move: FirstMoveSums,
}

/// Per-bot sums while counting (the games, wins and points are in the pair tables).
#[derive(Debug, Clone, Default)]
struct BotSums {
    forfeits: Forfeits,
    normal_games: u32,
    pahtum_for: u64,
    pahtum_against: u64,
    /// The greetings of its records, in the order met (at most [`MAX_GREETINGS`]).
    greetings: Vec<Greeting>,
}

impl BotSums {
    fn merge(&mut self, other: BotSums) {
        for greeting in other.greetings {
            greeted(
                &mut self.greetings,
                &greeting.name,
                greeting.version.as_deref(),
                greeting.games,
            );
        }
        self.forfeits.merge(other.forfeits);
        self.normal_games += other.normal_games;
        self.pahtum_for += other.pahtum_for;
        self.pahtum_against += other.pahtum_against;
    }
}

impl Tallies {
    /// Tallies of no games yet for `bots` (in file order, so that bots without a game appear). Records
    /// naming a bot that is not in `bots` are counted under that name too, after the others (in name order).
    pub fn new(bots: &[String]) -> Tallies {
        let roster = Roster::new(bots);
        let size = roster.names.len();
        Tallies {
            roster,
            games: 0,
            bots: vec![BotSums::default(); size],
            meetings: PerPair::new(size),
            layout_pairs: PerPair::new(size),
            first_move: FirstMoveSums::default(),
        }
    }

    /// Counts the game of `record` (its moves are not read).
    pub fn add(&mut self, record: &GameRecord) {
        let seats = [&record.players.first, &record.players.second].map(|name| self.slot(name));
        let first_half_points = half_points_of(record, Seat::First);
        self.games += 1;
        self.meetings.get_mut(seats[0], seats[1]).add(first_half_points);
        // Only full boards: an adjudicated game's board is the one it ended on, not full.
        if record.termination.reason == Reason::Normal && record.termination.adjudicated.is_none() {
            for seat in [Seat::First, Seat::Second] {
                let color = record.color_of(seat);
                let sums = &mut self.bots[seats[seat.index()]];
                sums.normal_games += 1;
                sums.pahtum_for += u64::from(record.score.of_color(color));
                sums.pahtum_against += u64::from(record.score.of_color(color.opponent()));
            }
        }
        for seat in [Seat::First, Seat::Second] {
            if let Some(hello) = record.hello.as_ref().and_then(|hellos| hellos.of(seat)) {
                let greetings = &mut self.bots[seats[seat.index()]].greetings;
                greeted(greetings, &hello.name, hello.version.as_deref(), 1);
            }
        }
        for (reason, forfeit) in record.termination.forfeits() {
            let forfeits = &mut self.bots[seats[forfeit.seat.index()]].forfeits;
            forfeits.count(reason);
            forfeits.overloaded += u32::from(forfeit.overloaded);
        }
        self.first_move.add(record);
        let [first, second] = seats;
        let layout = record.layout.as_deref();
        if first <= second {
            self.layout_pairs
                .get_mut(first, second)
                .add(true, first_half_points, layout);
        } else {
            self.layout_pairs
                .get_mut(second, first)
                .add(false, 2 - first_half_points, layout);
        }
    }

    /// Adds the games counted by `other` (of the same bots, or not): the tallies of both pieces' records.
    pub fn merge(&mut self, other: Tallies) {
        let slots: Vec<usize> = other.roster.names.iter().map(|name| self.slot(name)).collect();
        self.games += other.games;
        for (bot, sums) in other.bots.into_iter().enumerate() {
            self.bots[slots[bot]].merge(sums);
        }
        for (first, second, results) in other.meetings.into_cells() {
            self.meetings.get_mut(slots[first], slots[second]).merge(results);
        }
        for (low, high, pairing) in other.layout_pairs.into_cells() {
            let (low, high) = (slots[low], slots[high]);
            if low <= high {
                self.layout_pairs.get_mut(low, high).merge(pairing);
            } else {
                self.layout_pairs.get_mut(high, low).merge(pairing.flipped());
            }
        }
        self.first_move.merge(other.first_move);
    }

    /// The standings of the games counted, with the ratings relative to the pool's average or to `anchor`.
    ///
    /// Fails only on an anchor that is not a bot with games (or if the rating fit fails, which the prior
    /// prevents).
    pub fn finish(self, anchor: Option<&AnchorSpec>) -> Result<Standings, StrengthError> {
        // The same tallies with the bots in the canonical order: the bot list, then the other names sorted.
        let names: Vec<String> = self
            .roster
            .canonical_order()
            .into_iter()
            .map(|bot| self.roster.names[bot].clone())
            .collect();
        let games = self.games;
        let mut canonical = Tallies::new(&names);
        canonical.merge(self);
        let Tallies {
            bots,
            meetings,
            layout_pairs,
            first_move,
            ..
        } = canonical;
        let strength = strength(&names, &meetings, &layout_pairs, anchor)?;

        // Bot `i` against bot `j`, from `i`'s side, in both seats.
        let between = |i: usize, j: usize| {
            let (seated_first, seated_second) = (meetings.get(i, j), meetings.get(j, i));
            Tally::of(
                seated_first.wins + seated_second.losses,
                seated_first.draws + seated_second.draws,
                seated_first.losses + seated_second.wins,
            )
        };
        let totals: Vec<Tally> = (0..names.len())
            .map(|i| {
                (0..names.len())
                    .map(|j| between(i, j))
                    .fold(Tally::default(), Tally::plus)
            })
            .collect();
        let mut order: Vec<usize> = (0..names.len()).collect();
        let key = |i: usize| (totals[i].score_pct(), totals[i].points);
        order.sort_by(|&i, &j| {
            let (score_i, points_i) = key(i);
            let (score_j, points_j) = key(j);
            score_j
                .partial_cmp(&score_i)
                .expect("scores are finite")
                .then(points_j.total_cmp(&points_i))
                .then_with(|| names[i].cmp(&names[j]))
        });
        let mut rows: Vec<BotStanding> = Vec::with_capacity(order.len());
        for (position, &i) in order.iter().enumerate() {
            let shares_rank = position > 0 && key(order[position - 1]) == key(i);
            let rank = if shares_rank {
                rows[position - 1].rank
            } else {
                position + 1
            };
            let (tally, sums) = (&totals[i], &bots[i]);
            let average = |total: u64| (sums.normal_games > 0).then(|| total as f64 / f64::from(sums.normal_games));
            rows.push(BotStanding {
                rank,
                bot: names[i].clone(),
                games: tally.games,
                wins: tally.wins,
                draws: tally.draws,
                losses: tally.losses,
                points: tally.points,
                score_pct: tally.score_pct(),
                pahtum_for: average(sums.pahtum_for),
                pahtum_against: average(sums.pahtum_against),
                forfeits: sums.forfeits,
                rating: None,
                greetings: match sums.greetings.len() {
                    0 | 1 => Vec::new(),
                    _ => {
                        let mut greetings = sums.greetings.clone();
                        greetings.sort();
                        greetings
                    }
                },
            });
        }
        for position in 0..rows.len() {
            let next = rows.get(position + 1).map(|row| row.bot.as_str());
            rows[position].rating = rating(&strength, &rows[position].bot, next);
        }
        let crosstable = Crosstable {
            bots: order.iter().map(|&i| names[i].clone()).collect(),
            results: order
                .iter()
                .map(|&i| {
                    order
                        .iter()
                        .map(|&j| Some(between(i, j)).filter(|tally| tally.games > 0))
                        .collect()
                })
                .collect(),
        };
        Ok(Standings {
            schema: SCHEMA.to_owned(),
            games,
            bots: rows,
            crosstable,
            first_move: first_move.finish(),
            strength,
        })
    }

    /// The roster index of `name`, the tables grown if it is new.
    fn slot(&mut self, name: &str) -> usize {
        let slot = self.roster.slot(name);
        let size = self.roster.names.len();
        if self.bots.len() < size {
            self.bots.resize_with(size, BotSums::default);
            self.meetings.grow(size);
            self.layout_pairs.grow(size);
        }
        slot
    }
}

/// The standings of `bots` (in file order, so that bots without a game appear) from `records`, with
/// the ratings relative to the pool's average or to `anchor`: the [`Tallies`] of the records, finished.
pub fn standings(
    records: &[GameRecord],
    bots: &[String],
    anchor: Option<&AnchorSpec>,
) -> Result<Standings, StrengthError> {
    let mut tallies = Tallies::new(bots);
    for record in records {
        tallies.add(record);
    }
    tallies.finish(anchor)
}

/// The row's rating of `bot`, with its LOS over `next`, the bot on the next row.
fn rating(strength: &Strength, bot: &str, next: Option<&str>) -> Option<Rating> {
    let fitted = strength.rating(bot)?;
    Some(Rating {
        elo: fitted.elo,
        lower: fitted.lower,
        upper: fitted.upper,
        los_next: next.and_then(|next| strength.los(bot, next)),
    })
}

/// The first-move counts, in whole half-points so that they add up exactly in any order.
#[derive(Debug, Clone, Default)]
struct FirstMoveSums {
    games: usize,
    white_half_points: u64,
    first_seat_half_points: u64,
    draws: usize,
    pie_decisions: usize,
    swaps: usize,
}

impl FirstMoveSums {
    fn add(&mut self, record: &GameRecord) {
        self.games += 1;
        self.white_half_points += match record.result.winner() {
            None => 1,
            Some(Color::White) => 2,
            Some(Color::Black) => 0,
        };
        self.first_seat_half_points += u64::from(half_points_of(record, Seat::First));
        self.draws += usize::from(record.result.winner().is_none());
        if let Some(swap) = record.swap {
            self.pie_decisions += 1;
            self.swaps += usize::from(swap);
        }
    }

    fn merge(&mut self, other: FirstMoveSums) {
        self.games += other.games;
        self.white_half_points += other.white_half_points;
        self.first_seat_half_points += other.first_seat_half_points;
        self.draws += other.draws;
        self.pie_decisions += other.pie_decisions;
        self.swaps += other.swaps;
    }

    fn finish(self) -> FirstMove {
        let pct = |part: f64, whole: usize| (whole > 0).then(|| 100.0 * part / whole as f64);
        let points = |half_points: u64| half_points as f64 / 2.0;
        FirstMove {
            games: self.games,
            white_score_pct: pct(points(self.white_half_points), self.games),
            first_seat_score_pct: pct(points(self.first_seat_half_points), self.games),
            draw_pct: pct(self.draws as f64, self.games),
            pie_decisions: self.pie_decisions,
            swaps: self.swaps,
            swap_pct: pct(self.swaps as f64, self.pie_decisions),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use pahtum_tournament::testing::{forfeited, record, scored, swapped};

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn wins_draws_losses_and_points() {
        let records = [
            record("000-00-a", "a", "b"),               // a White wins
            scored(record("000-00-b", "b", "a"), 5, 5), // draw
            swapped(record("001-00-a", "a", "c")),      // c swapped to White and wins
        ];
        let s = standings(&records, &names(&["a", "b", "c"]), None).unwrap();
        let row = |bot: &str| s.bots.iter().find(|r| r.bot == bot).unwrap();
        let a = row("a");
        assert_eq!((a.games, a.wins, a.draws, a.losses, a.points), (3, 1, 1, 1, 1.5));
        assert_eq!(a.score_pct, Some(50.0));
        assert_eq!(a.pahtum_for, Some((10.0 + 5.0 + 3.0) / 3.0));
        assert_eq!(a.pahtum_against, Some((3.0 + 5.0 + 10.0) / 3.0));
        let c = row("c");
        assert_eq!((c.games, c.wins, c.points, c.score_pct), (1, 1, 1.0, Some(100.0)));
        assert_eq!(
            s.bots.iter().map(|r| r.bot.as_str()).collect::<Vec<_>>(),
            ["c", "a", "b"]
        );
        assert_eq!(s.games, 3);
    }

    #[test]
    fn forfeits_are_counted_by_kind_against_the_loser() {
        let records = [
            forfeited(record("000-00-a", "a", "b"), Seat::Second, Reason::Timeout),
            forfeited(record("000-00-b", "b", "a"), Seat::First, Reason::Disconnect),
            forfeited(record("000-01-a", "a", "b"), Seat::Second, Reason::IllegalMove),
            forfeited(record("000-01-b", "b", "a"), Seat::First, Reason::ProtocolError),
            forfeited(record("000-02-a", "a", "b"), Seat::Second, Reason::Stall),
        ];
        let s = standings(&records, &names(&["a", "b"]), None).unwrap();
        let b = &s.bots[1];
        assert_eq!(b.bot, "b");
        assert_eq!(
            b.forfeits,
            Forfeits {
                timeout: 1,
                crash: 1,
                illegal_move: 1,
                protocol_error: 1,
                stall: 1,
                overloaded: 0,
            }
        );
        assert_eq!(b.forfeits.total(), 5);
        assert_eq!(b.losses, 5);
        assert_eq!(s.bots[0].forfeits.total(), 0);
        assert_eq!(b.pahtum_for, None, "forfeited boards are not averaged");
        assert_eq!(overload_note(&s), None);
    }

    /// An adjudicated game counts as any other, but its board, not full, is not averaged.
    #[test]
    fn an_adjudicated_game_counts_but_its_board_is_not_averaged() {
        let mut adjudicated = record("000-00-a", "a", "b");
        adjudicated.termination.adjudicated = Some(pahtum_record::Adjudication {
            rule: pahtum_record::AdjudicationRule::Decided,
            ply: 20,
            margin: pahtum::decided::Margins { low: 3, high: 40 },
        });
        let records = [adjudicated, scored(record("000-00-b", "b", "a"), 5, 5)];
        let s = standings(&records, &names(&["a", "b"]), None).unwrap();
        let a = s.bots.iter().find(|r| r.bot == "a").unwrap();
        assert_eq!((a.games, a.wins, a.draws, a.points), (2, 1, 1, 1.5));
        assert_eq!((a.pahtum_for, a.pahtum_against), (Some(5.0), Some(5.0)));
    }

    #[test]
    fn timeouts_under_overload_are_counted_and_noted() {
        let mut starved = forfeited(record("000-00-a", "a", "b"), Seat::Second, Reason::Timeout);
        starved.termination.forfeit.as_mut().unwrap().overloaded = true;
        let records = [
            starved,
            forfeited(record("000-00-b", "b", "a"), Seat::First, Reason::Timeout),
        ];
        let s = standings(&records, &names(&["a", "b"]), None).unwrap();
        let b = &s.bots[1];
        assert_eq!((b.forfeits.timeout, b.forfeits.overloaded), (2, 1));
        let json = serde_json::to_value(s.bots[0].forfeits).unwrap();
        assert!(json.get("overloaded").is_none(), "left out when 0: {json}");
        let note = overload_note(&s).unwrap();
        assert!(
            note.starts_with("1 game was lost on time while the machine was overloaded"),
            "{note}"
        );
        assert!(note.contains("clock = \"cpu\""), "{note}");
    }

    #[test]
    fn a_double_forfeit_is_a_draw_with_a_forfeit_for_each_bot() {
        let mut both = forfeited(record("000-00-a", "a", "b"), Seat::First, Reason::Stall);
        let also = forfeited(both.clone(), Seat::Second, Reason::Disconnect).termination;
        both.termination.also = Some(pahtum_record::OtherForfeit {
            reason: also.reason,
            forfeit: also.forfeit.unwrap(),
        });
        both.result = both.termination.result(both.score);
        let s = standings(&[both], &names(&["a", "b"]), None).unwrap();
        let row = |bot: &str| s.bots.iter().find(|r| r.bot == bot).unwrap();
        let (a, b) = (row("a"), row("b"));
        assert_eq!((a.draws, a.points, b.draws, b.points), (1, 0.5, 1, 0.5));
        assert_eq!((a.forfeits.stall, a.forfeits.total()), (1, 1));
        assert_eq!((b.forfeits.crash, b.forfeits.total()), (1, 1));
    }

    #[test]
    fn equal_scores_share_a_rank_and_idle_bots_come_last() {
        let records = [record("000-00-a", "a", "b"), record("000-00-b", "b", "a")];
        let s = standings(&records, &names(&["a", "b", "idle"]), None).unwrap();
        let ranks: Vec<_> = s.bots.iter().map(|r| (r.bot.as_str(), r.rank)).collect();
        assert_eq!(ranks, [("a", 1), ("b", 1), ("idle", 3)]);
        assert_eq!(s.bots[2].score_pct, None);
    }

    #[test]
    fn crosstable_is_from_the_row_side_in_rank_order() {
        let records = [
            record("000-00-a", "a", "b"),
            record("000-00-b", "b", "a"),
            record("001-00-a", "c", "a"),
            record("001-00-b", "a", "c"),
        ];
        let s = standings(&records, &names(&["a", "b", "c"]), None).unwrap();
        assert_eq!(s.crosstable.bots, ["a", "b", "c"]);
        let a_vs_b = s.crosstable.results[0][1].unwrap();
        assert_eq!(
            (a_vs_b.games, a_vs_b.wins, a_vs_b.losses, a_vs_b.points),
            (2, 1, 1, 1.0)
        );
        assert_eq!(s.crosstable.results[0][0], None);
        assert_eq!(s.crosstable.results[1][2], None, "b and c did not meet");
    }

    #[test]
    fn first_move_balance() {
        let records = [
            record("000-00-a", "a", "b"),
            swapped(record("000-00-b", "b", "a")),
            scored(record("000-01-a", "a", "b"), 1, 1),
            scored(record("000-01-b", "b", "a"), 0, 9),
        ];
        let f = standings(&records, &names(&["a", "b"]), None).unwrap().first_move;
        assert_eq!(f.games, 4);
        assert_eq!(f.white_score_pct, Some(100.0 * 2.5 / 4.0));
        assert_eq!(f.first_seat_score_pct, Some(100.0 * 1.5 / 4.0));
        assert_eq!(f.draw_pct, Some(25.0));
        assert_eq!((f.pie_decisions, f.swaps, f.swap_pct), (4, 1, Some(25.0)));
    }

    #[test]
    fn rows_carry_their_elo_and_the_los_over_the_next_row() {
        let records = [
            record("000-00-a", "a", "b"),
            swapped(record("000-00-b", "b", "a")),
            record("001-00-a", "b", "c"),
            swapped(record("001-00-b", "c", "b")),
        ];
        let s = standings(&records, &names(&["c", "b", "a", "idle"]), None).unwrap();
        let order: Vec<&str> = s.bots.iter().map(|row| row.bot.as_str()).collect();
        assert_eq!(order, ["a", "b", "c", "idle"]);
        let rating = |row: usize| s.bots[row].rating.unwrap();
        assert!(rating(0).elo > rating(1).elo && rating(1).elo > rating(2).elo);
        assert!(rating(0).lower < rating(0).elo && rating(0).elo < rating(0).upper);
        assert_eq!(rating(0).los_next, s.strength.los("a", "b"));
        assert_eq!(rating(1).los_next, s.strength.los("b", "c"));
        assert_eq!(rating(2).los_next, None, "the next row's bot has no rating");
        assert_eq!(s.bots[3].rating, None);
        assert_eq!(s.strength.unrated, ["idle"]);
    }

    #[test]
    fn a_pool_that_never_met_keeps_its_standings_without_elo() {
        let records = [record("000-00-a", "a", "b"), record("001-00-a", "c", "d")];
        let s = standings(&records, &names(&["a", "b", "c", "d"]), None).unwrap();
        assert_eq!(s.bots.len(), 4);
        assert!(s.bots.iter().all(|row| row.rating.is_none()));
        assert!(matches!(
            s.strength.ratings,
            crate::strength::Ratings::Disconnected { .. }
        ));
    }

    #[test]
    fn unknown_bots_in_records_are_counted_after_the_named_ones() {
        let s = standings(&[record("000-00-a", "a", "ghost")], &names(&["a"]), None).unwrap();
        assert_eq!(s.bots.len(), 2);
        assert_eq!(s.crosstable.bots, ["a", "ghost"]);
    }

    /// How a generated game ends.
    #[derive(Debug, Clone, Copy)]
    enum End {
        WhiteWins,
        BlackWins,
        Draw,
        Forfeit(Seat, Reason, bool),
        DoubleForfeit,
    }

    fn ended(game: GameRecord, end: End) -> GameRecord {
        match end {
            End::WhiteWins => game,
            End::BlackWins => scored(game, 3, 10),
            End::Draw => scored(game, 5, 5),
            End::Forfeit(seat, reason, overloaded) => {
                let mut game = forfeited(game, seat, reason);
                game.termination.forfeit.as_mut().unwrap().overloaded = overloaded;
                game
            }
            End::DoubleForfeit => {
                let mut both = forfeited(game, Seat::First, Reason::Stall);
                let also = forfeited(both.clone(), Seat::Second, Reason::Timeout).termination;
                both.termination.also = Some(pahtum_record::OtherForfeit {
                    reason: also.reason,
                    forfeit: also.forfeit.unwrap(),
                });
                both.result = both.termination.result(both.score);
                both
            }
        }
    }

    fn end() -> impl Strategy<Value = End> {
        let seat = prop_oneof![Just(Seat::First), Just(Seat::Second)];
        let reason = proptest::sample::select(vec![
            Reason::Timeout,
            Reason::Disconnect,
            Reason::Memory,
            Reason::IllegalMove,
            Reason::ProtocolError,
            Reason::Stall,
        ]);
        prop_oneof![
            3 => Just(End::WhiteWins),
            3 => Just(End::BlackWins),
            2 => Just(End::Draw),
            2 => (seat, reason, any::<bool>()).prop_map(|(seat, reason, overloaded)| End::Forfeit(seat, reason, overloaded)),
            1 => Just(End::DoubleForfeit),
        ]
    }

    /// The bots listed, then two names found only in records.
    const BOTS: [&str; 6] = ["d", "a", "c", "b", "zed", "ghost"];

    /// Records of layouts between random bots: each layout's first game, its seat-swapped second, or both
    /// (in the order given), some without a layout key; every game ended at random, some after a swap.
    fn records() -> impl Strategy<Value = Vec<GameRecord>> {
        let bots = (0..BOTS.len(), 1..BOTS.len()).prop_map(|(a, offset)| (a, (a + offset) % BOTS.len()));
        let game = || (end(), any::<bool>());
        let layout = (bots, 1..=3u8, game(), game(), proptest::bool::weighted(0.9));
        proptest::collection::vec(layout, 0..40).prop_map(|layouts| {
            let mut records = Vec::new();
            for (key, ((a, b), present, first, second, keyed)) in layouts.into_iter().enumerate() {
                let games = [("a", BOTS[a], BOTS[b], first), ("b", BOTS[b], BOTS[a], second)];
                for (bit, (side, first, second, (end, swap))) in games.into_iter().enumerate() {
                    if present & (1 << bit) == 0 {
                        continue;
                    }
                    let mut game = record(&format!("{key:03}-00-{side}"), first, second);
                    if swap {
                        game = swapped(game);
                    }
                    let mut game = ended(game, end);
                    if !keyed {
                        game.layout = None;
                    }
                    records.push(game);
                }
            }
            records
        })
    }

    /// The standings, or the error's message.
    fn outcome(tallies: Tallies, anchor: Option<&AnchorSpec>) -> Result<Standings, String> {
        tallies.finish(anchor).map_err(|error| error.to_string())
    }

    proptest! {
        /// The records shuffled, cut into pieces, each piece counted apart and the pieces merged in any order
        /// and shape: the same standings as counting them all in one go.
        #[test]
        fn pieces_counted_apart_merge_into_the_standings_of_the_whole(
            (records, shuffled) in records().prop_flat_map(|records| (Just(records.clone()), Just(records).prop_shuffle())),
            cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..6),
            merges in proptest::collection::vec(any::<proptest::sample::Index>(), 12),
            anchor in proptest::option::of(proptest::sample::select(vec!["a=100", "b=-50", "ghost=0", "zed=10"])),
        ) {
            let bots = names(&BOTS[..4]);
            let anchor: Option<AnchorSpec> = anchor.map(|anchor| anchor.parse().unwrap());
            let mut whole = Tallies::new(&bots);
            for record in &records {
                whole.add(record);
            }
            let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut.index(shuffled.len() + 1)).collect();
            cuts.extend([0, shuffled.len()]);
            cuts.sort_unstable();
            let mut pieces: Vec<Tallies> = cuts
                .windows(2)
                .map(|piece| {
                    let mut tallies = Tallies::new(&bots);
                    for record in &shuffled[piece[0]..piece[1]] {
                        tallies.add(record);
                    }
                    tallies
                })
                .collect();
            let mut choices = merges.iter().cycle();
            while pieces.len() > 1 {
                let from = choices.next().unwrap().index(pieces.len());
                let piece = pieces.remove(from);
                let into = choices.next().unwrap().index(pieces.len());
                pieces[into].merge(piece);
            }
            let merged = pieces.pop().unwrap();
            prop_assert_eq!(outcome(merged, anchor.as_ref()), outcome(whole, anchor.as_ref()));
        }
    }

    /// A bot whose records carry two greetings is listed with both, sorted, whatever the order of the records
    /// and of the pieces counted apart; one greeting, or none, lists none. The note escapes the bot's text.
    #[test]
    fn a_bot_that_greeted_otherwise_in_some_games_lists_its_greetings() {
        let greeted = |id: &str, first: &str, second: &str, version: &str| GameRecord {
            hello: Some(pahtum_record::Hellos {
                first: Some(pahtum_protocol::bot::Identity {
                    name: format!("{first}-bot"),
                    version: Some(version.to_owned()),
                    author: None,
                }),
                second: None,
            }),
            ..record(id, first, second)
        };
        let records = [
            greeted("000-00-a", "a", "b", "2\u{1b}[2J"),
            greeted("000-00-b", "b", "a", "1"),
            greeted("000-01-a", "a", "b", "1"),
            greeted("000-01-b", "b", "a", "1"),
            greeted("000-02-a", "a", "b", "1"),
        ];
        let bots = ["a".to_owned(), "b".to_owned()];
        let of = |records: &[GameRecord]| standings(records, &bots, None).unwrap();
        let whole = of(&records);
        let a = whole.bots.iter().find(|bot| bot.bot == "a").unwrap();
        let greeting = |version: &str, games| Greeting {
            name: "a-bot".to_owned(),
            version: Some(version.to_owned()),
            games,
        };
        assert_eq!(a.greetings, [greeting("1", 2), greeting("2\u{1b}[2J", 1)]);
        let b = whole.bots.iter().find(|bot| bot.bot == "b").unwrap();
        assert!(b.greetings.is_empty(), "one greeting: {:?}", b.greetings);
        let mut reversed = records.clone();
        reversed.reverse();
        assert_eq!(of(&reversed), whole);
        let mut pieces = Tallies::new(&bots);
        for piece in records.chunks(2).rev() {
            let mut tallies = Tallies::new(&bots);
            piece.iter().for_each(|record| tallies.add(record));
            pieces.merge(tallies);
        }
        assert_eq!(pieces.finish(None).unwrap(), whole);
        let notes: Vec<String> = greeting_notes(&whole).collect();
        assert_eq!(
            notes,
            [
                "a played its games under 2 greetings (hello), so these standings mix its programs: \
              \"a-bot 1\" (2 games), \"a-bot 2\\x1b[2J\" (1 game)."
            ]
        );
        assert!(of(&records[1..]).bots.iter().all(|bot| bot.greetings.is_empty()));
    }
}
