//! Strength: how strong each bot is, how sure that is, and how each pair of bots compares.
//!
//! The strength is part of the [`Standings`](crate::standings::Standings), made by the same
//! [`Tallies`](crate::standings::Tallies) from the journal's records, so the same records give the same
//! numbers from a finished run, an interrupted one, a resumed one or the shards of one. It needs no
//! record once counted: the ratings depend on the games only through the games and points of every
//! ordered pair of bots (pahtum-stats' [`PairMatrix`]), and the pair table through the pentanomial counts
//! of every two bots and their layout pairs still waiting for a partner ([`PairTally`]). The statistics
//! are pahtum-stats'; this module only decides which games go in and names things.
//!
//! # Ratings
//!
//! One joint fit of every game (see [`pahtum_stats::ratings`]): a logistic
//! Bradley–Terry model on the Elo scale, a draw counting half, a forfeit counting
//! as the loss it is, and a weak prior of [`PRIOR_DRAWS`] virtual draws per bot
//! against the pool average, so that a bot that won or lost everything still has
//! a finite rating and interval. Ratings are relative to the pool's average
//! (mean 0) or, with an [`AnchorSpec`] (`NAME=ELO`), to one bot at a given value.
//! Every rating has its 95% profile-likelihood interval (asymmetric where the
//! likelihood is) and the likelihood of superiority (LOS) over the next bot down;
//! the full LOS matrix is kept too.
//!
//! Bots without a game have no rating: they are listed as `unrated` and left out
//! of the fit. If the bots that played fall into groups that never met (through
//! any chain of games), their ratings are not comparable, so there is no fit:
//! [`Ratings::Disconnected`] names the groups, and the standings still print.
//!
//! # Pairs
//!
//! For every two bots that met: games and points, and the pentanomial counts of
//! their layout pairs, with the Elo difference, its 95% error from the
//! pentanomial variance and the normalized Elo (see
//! [`pahtum_stats::pentanomial`]). A layout pair is the two games between the
//! same two bots that share a record's `layout` key, with the seats swapped. A
//! game whose partner is missing (an interrupted run, a lone game) counts in the
//! ratings but not in the pentanomial; `unpaired_games` says how many.
//!
//! # JSON
//!
//! A [`Strength`] is written into `standings.json`, its keys beside the
//! standings' own (see [`crate::standings`] and `OUTPUTS.md`).

use std::collections::HashMap;
use std::str::FromStr;

use pahtum::Seat;
use pahtum_record::GameRecord;
use pahtum_stats::{Anchor, FitOptions, PairMatrix, Pentanomial, StatsError, fit};
use serde::{Deserialize, Serialize};

use crate::roster::PerPair;
use crate::tally::{SeatResults, half_points_of};

/// Virtual draws each bot gets against the pool average (pahtum-stats' default prior).
pub const PRIOR_DRAWS: f64 = 2.0;

/// A bot whose rating is fixed at a given value (`--anchor NAME=ELO`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AnchorSpec {
    /// The anchored bot's name.
    pub bot: String,
    /// The Elo the bot is fixed at; the others are rated relative to it.
    pub elo: f64,
}

/// Why a text is not an anchor (`NAME=ELO`); each says what to write instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnchorSpecError {
    /// The text has no `=`.
    #[error("{text:?} is not NAME=ELO: write e.g. heuristic=1500")]
    NotNameEqualsElo {
        /// The text given.
        text: String,
    },
    /// What follows the `=` is not a finite number.
    #[error("{text:?}: {elo:?} is not a rating: write e.g. heuristic=1500")]
    NotARating {
        /// The text given.
        text: String,
        /// What follows its `=`.
        elo: String,
    },
    /// Nothing but spaces comes before the `=`.
    #[error("{text:?} names no bot: write e.g. heuristic=1500")]
    NoBot {
        /// The text given.
        text: String,
    },
}

impl FromStr for AnchorSpec {
    type Err = AnchorSpecError;

    /// Reads `NAME=ELO`, e.g. `heuristic=1500`.
    fn from_str(text: &str) -> Result<AnchorSpec, AnchorSpecError> {
        let (bot, elo) = text
            .split_once('=')
            .ok_or_else(|| AnchorSpecError::NotNameEqualsElo { text: text.to_owned() })?;
        let rating = elo
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|elo| elo.is_finite())
            .ok_or_else(|| AnchorSpecError::NotARating {
                text: text.to_owned(),
                elo: elo.to_owned(),
            })?;
        let bot = bot.trim();
        if bot.is_empty() {
            return Err(AnchorSpecError::NoBot { text: text.to_owned() });
        }
        Ok(AnchorSpec {
            bot: bot.to_owned(),
            elo: rating,
        })
    }
}

/// Ratings and pair statistics of a set of games.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Strength {
    /// How the ratings were fitted (prior, anchor).
    pub rating_model: RatingModel,
    /// The bots' ratings, or why there are none.
    pub ratings: Ratings,
    /// Bots without a game, in the order of the bot list.
    pub unrated: Vec<String>,
    /// Every two bots that met, in the order of the bot list.
    pub pairs: Vec<PairStrength>,
    /// Games left out of the pentanomial counts because their layout pair is incomplete.
    pub unpaired_games: u32,
}

/// How the ratings were fitted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RatingModel {
    /// Virtual draws per bot against the pool average.
    pub prior_draws: f64,
    /// `None`: ratings are relative to the pool's average.
    pub anchor: Option<AnchorSpec>,
}

/// The joint fit, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Ratings {
    /// Every bot with games, rated in one fit.
    Fitted {
        /// Strongest first.
        bots: Vec<BotRating>,
        /// The likelihood of superiority between every two rated bots.
        los: LosMatrix,
    },
    /// The bots that played fall into groups that never met; each group is in the order of the bot list.
    Disconnected {
        /// The groups of bot names: no bot of one group played any bot of another.
        groups: Vec<Vec<String>>,
    },
    /// No game was played.
    NoGames,
}

/// One bot's rating.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BotRating {
    /// 1 for the strongest.
    pub rank: usize,
    /// The bot's name.
    pub bot: String,
    /// Games played.
    pub games: u64,
    /// Points scored (win 1, draw ½, loss 0).
    pub points: f64,
    /// The Elo, relative to the pool's average or to the anchor.
    pub elo: f64,
    /// The 95% interval.
    pub lower: f64,
    /// The upper end of the 95% interval.
    pub upper: f64,
    /// The symmetric large-sample standard error (the interval is better; this is for comparison with other tools).
    pub std_error: f64,
    /// Likelihood that this bot is stronger than the next one down; `None` for the last.
    pub los_next: Option<f64>,
}

/// Likelihood of superiority between every two rated bots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LosMatrix {
    /// Strongest first: the rows and the columns.
    pub bots: Vec<String>,
    /// `values[i][j]`: the likelihood that bot `i` is stronger than bot `j` (0.5 on the diagonal).
    pub values: Vec<Vec<f64>>,
}

/// Two bots that met, from the first one's side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairStrength {
    /// The first bot, whose side the figures take.
    pub first: String,
    /// The second bot.
    pub second: String,
    /// Every game between them.
    pub games: u32,
    /// The points of `first` in those games.
    pub points: f64,
    /// Layout pairs in which `first` scored 0, 1/2, 1, 3/2 and 2 points.
    pub pentanomial: [u64; 5],
    /// `None` without a complete layout pair, or when every layout pair had the same score: with no
    /// spread between them there is no variance to measure the error with, and pahtum-stats' regularized
    /// figures for that case are placeholders, not measurements (the ratings still rate such a pair).
    pub elo: Option<PairElo>,
    /// Games between them whose layout pair is incomplete.
    pub unpaired_games: u32,
}

/// The Elo difference of a pair from its layout pairs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairElo {
    /// Elo of `first` over `second`.
    pub elo: f64,
    /// Half-width of the 95% interval of `elo`, from the pentanomial variance.
    pub error95: f64,
    /// Normalized Elo, and the half-width of its 95% interval.
    pub nelo: f64,
    /// The half-width of the 95% interval of `nelo`.
    pub nelo_error95: f64,
}

/// What stops the ratings from being computed at all.
#[derive(Debug, thiserror::Error)]
pub enum StrengthError {
    /// The anchor names no bot of the tournament.
    #[error("the anchor {bot:?} is not one of the bots ({}); name one of them", bots.join(", "))]
    UnknownAnchor {
        /// The name the anchor gave.
        bot: String,
        /// The bots there are.
        bots: Vec<String>,
    },
    /// The anchor has no game, so nothing ties the other ratings to it.
    #[error("cannot anchor the ratings to {bot}: it has not played yet; anchor a bot that has games")]
    AnchorWithoutGames {
        /// The anchored bot.
        bot: String,
    },
    /// The rating fit itself failed (pahtum-stats' error).
    #[error("the rating fit failed")]
    Fit(#[source] StatsError),
}

impl Strength {
    /// The rating of `bot`, if it has one.
    pub fn rating(&self, bot: &str) -> Option<&BotRating> {
        match &self.ratings {
            Ratings::Fitted { bots, .. } => bots.iter().find(|rating| rating.bot == bot),
            _ => None,
        }
    }

    /// The likelihood that `a` is stronger than `b`, if both are rated.
    pub fn los(&self, a: &str, b: &str) -> Option<f64> {
        let Ratings::Fitted { los, .. } = &self.ratings else {
            return None;
        };
        let at = |name: &str| los.bots.iter().position(|bot| bot == name);
        Some(los.values[at(a)?][at(b)?])
    }
}

/// The ratings and pair table of `names` (in the roster's canonical order, so that bots without a game
/// appear) from their results by seat (`meetings`: the first seat's bot's against the second's) and their
/// layout pairs (`layout_pairs[low][high]`, `low < high`, from `low`'s side).
pub(crate) fn strength(
    names: &[String],
    meetings: &PerPair<SeatResults>,
    layout_pairs: &PerPair<LayoutPairing>,
    anchor: Option<&AnchorSpec>,
) -> Result<Strength, StrengthError> {
    let between = |i: usize, j: usize| meetings.get(i, j).games() + meetings.get(j, i).games();
    let has_games: Vec<bool> = (0..names.len())
        .map(|i| (0..names.len()).any(|j| between(i, j) > 0))
        .collect();
    let anchor = match anchor {
        None => None,
        Some(anchor) => match names.iter().position(|name| *name == anchor.bot) {
            None => {
                return Err(StrengthError::UnknownAnchor {
                    bot: anchor.bot.clone(),
                    bots: names.to_vec(),
                });
            }
            Some(index) if !has_games[index] => {
                return Err(StrengthError::AnchorWithoutGames {
                    bot: anchor.bot.clone(),
                });
            }
            Some(index) => Some((index, anchor)),
        },
    };
    let ratings = ratings(names, meetings, &has_games, anchor)?;
    let unrated = (0..names.len())
        .filter(|&bot| !has_games[bot])
        .map(|bot| names[bot].clone())
        .collect();
    let pairs: Vec<PairStrength> = (0..names.len())
        .flat_map(|low| (low + 1..names.len()).map(move |high| (low, high)))
        .filter(|&(low, high)| between(low, high) > 0)
        .map(|(low, high)| {
            let half_points =
                meetings.get(low, high).first_half_points() + meetings.get(high, low).second_half_points();
            layout_pairs
                .get(low, high)
                .summary(&names[low], &names[high], between(low, high), half_points)
        })
        .collect();
    let unpaired_games = pairs.iter().map(|pair| pair.unpaired_games).sum();
    Ok(Strength {
        rating_model: RatingModel {
            prior_draws: PRIOR_DRAWS,
            anchor: anchor.map(|(_, anchor)| anchor.clone()),
        },
        ratings,
        unrated,
        pairs,
        unpaired_games,
    })
}

/// The joint fit of the bots with games; `anchor` with its index in `names`.
fn ratings(
    names: &[String],
    meetings: &PerPair<SeatResults>,
    has_games: &[bool],
    anchor: Option<(usize, &AnchorSpec)>,
) -> Result<Ratings, StrengthError> {
    // The fit sees only the bots with games, re-indexed in roster order.
    let rated: Vec<usize> = (0..names.len()).filter(|&bot| has_games[bot]).collect();
    if rated.is_empty() {
        return Ok(Ratings::NoGames);
    }
    let mut fit_index = vec![usize::MAX; names.len()];
    for (position, &bot) in rated.iter().enumerate() {
        fit_index[bot] = position;
    }
    let name = |position: usize| names[rated[position]].clone();
    let mut matrix = PairMatrix::new(rated.len());
    for &first in &rated {
        for &second in &rated {
            let results = meetings.get(first, second);
            if results.games() > 0 {
                matrix
                    .add_games(
                        fit_index[first],
                        fit_index[second],
                        u64::from(results.games()),
                        results.first_half_points(),
                    )
                    .map_err(StrengthError::Fit)?;
            }
        }
    }
    let options = FitOptions {
        prior_draws: PRIOR_DRAWS,
        anchor: match anchor {
            None => Anchor::PoolAverage,
            Some((index, anchor)) => Anchor::Player {
                index: fit_index[index],
                rating: anchor.elo,
            },
        },
    };
    let fitted = match fit(&matrix, &options) {
        Ok(fitted) => fitted,
        Err(StatsError::Disconnected { components }) => {
            let groups = components
                .iter()
                .map(|group| group.iter().map(|&position| name(position)).collect())
                .collect();
            return Ok(Ratings::Disconnected { groups });
        }
        Err(error) => return Err(StrengthError::Fit(error)),
    };
    // Strongest first, as the fit ranks them, except that ratings equal to a millionth of an Elo (bots with
    // the same results against the same opposition) are listed by name, as the standings list equal scores.
    let mut order: Vec<usize> = fitted.ranking.iter().map(|entry| entry.player).collect();
    order.sort_by_cached_key(|&position| {
        let rating = (fitted.players[position].rating * 1e6).round() as i64;
        (std::cmp::Reverse(rating), name(position))
    });
    let bots = order
        .iter()
        .enumerate()
        .map(|(place, &position)| {
            let player = &fitted.players[position];
            BotRating {
                rank: place + 1,
                bot: name(position),
                games: player.games,
                points: player.points,
                elo: player.rating,
                lower: player.lower,
                upper: player.upper,
                std_error: player.std_error,
                los_next: order.get(place + 1).map(|&next| fitted.los[position][next]),
            }
        })
        .collect();
    let los = LosMatrix {
        bots: order.iter().map(|&position| name(position)).collect(),
        values: order
            .iter()
            .map(|&i| order.iter().map(|&j| fitted.los[i][j]).collect())
            .collect(),
    };
    Ok(Ratings::Fitted { bots, los })
}

/// The layout pairs of two bots, from the first one's side, paired as their games come.
///
/// A game waits for its partner: a game of the same layout key between the same bots with the seats
/// swapped. Games still waiting (an interrupted run's last game, a game without a layout key) are the
/// pair's unpaired games. Only the waiting games are kept, so the memory is that of the layout pairs
/// begun and not finished, not of the games. Two pairings of different games of the same bots
/// [merge](LayoutPairing::merge) into the pairing of all of them: a game waiting in one finds its partner
/// in the other. With at most one game per layout and seating (as in a journal, whose ids are unique),
/// which games pair does not depend on the order they come in.
#[derive(Debug, Clone, Default)]
pub(crate) struct LayoutPairing {
    pentanomial: Pentanomial,
    /// Games waiting for their partner, by layout key: whether the first bot sat in the first seat, and
    /// its half-points.
    waiting: HashMap<String, Vec<(bool, u8)>>,
    /// Games without a layout key.
    lone: u32,
}

impl LayoutPairing {
    /// Counts a game in which the first bot sat in the first seat or not and scored `half_points` (2 a
    /// win, 1 a draw); true when it completes a layout pair.
    pub(crate) fn add(&mut self, first_seated: bool, half_points: u8, layout: Option<&str>) -> bool {
        let Some(layout) = layout else {
            self.lone += 1;
            return false;
        };
        let Some(waiting) = self.waiting.get_mut(layout) else {
            self.waiting
                .insert(layout.to_owned(), vec![(first_seated, half_points)]);
            return false;
        };
        match waiting.iter().position(|&(seated, _)| seated != first_seated) {
            Some(partner) => {
                let (_, partner_half_points) = waiting.swap_remove(partner);
                if waiting.is_empty() {
                    self.waiting.remove(layout);
                }
                self.pentanomial.counts[usize::from(half_points + partner_half_points)] += 1;
                true
            }
            None => {
                waiting.push((first_seated, half_points));
                false
            }
        }
    }

    /// Adds the games of `other`, pairing the games waiting in either.
    pub(crate) fn merge(&mut self, other: LayoutPairing) {
        self.lone += other.lone;
        for (count, more) in self.pentanomial.counts.iter_mut().zip(other.pentanomial.counts) {
            *count += more;
        }
        for (layout, games) in other.waiting {
            for (first_seated, half_points) in games {
                self.add(first_seated, half_points, Some(&layout));
            }
        }
    }

    /// The same games from the second bot's side.
    pub(crate) fn flipped(mut self) -> LayoutPairing {
        self.pentanomial.counts.reverse();
        for games in self.waiting.values_mut() {
            for (first_seated, half_points) in games {
                *first_seated = !*first_seated;
                *half_points = 2 - *half_points;
            }
        }
        self
    }

    /// The pair's line of the pair table, with its `games` and the first bot's `half_points` in them.
    fn summary(&self, first: &str, second: &str, games: u32, half_points: u64) -> PairStrength {
        let waiting: usize = self.waiting.values().map(Vec::len).sum();
        PairStrength {
            first: first.to_owned(),
            second: second.to_owned(),
            games,
            points: half_points as f64 / 2.0,
            pentanomial: self.pentanomial.counts,
            elo: self
                .pentanomial
                .stats()
                .ok()
                .filter(|stats| !stats.regularized)
                .map(|stats| PairElo {
                    elo: stats.elo,
                    error95: stats.elo_error95,
                    nelo: stats.nelo,
                    nelo_error95: stats.nelo_error95,
                }),
            unpaired_games: self.lone + waiting as u32,
        }
    }
}

/// The games between two bots, from the first one's side, paired into layout pairs as they come: the score
/// of a head-to-head match as it is played.
///
/// A game waits for its partner: a game of the same layout key between the same bots with the seats
/// swapped. Games still waiting (an interrupted run's last game, a game without a layout key) are the
/// pair's unpaired games; only they are kept, not the games.
#[derive(Debug, Clone)]
pub struct PairTally {
    first: String,
    second: String,
    games: u32,
    /// The first bot's points, in half-points (a win 2, a draw 1), so that the sum is exact.
    half_points: u64,
    pairing: LayoutPairing,
}

impl PairTally {
    /// A tally of no games yet between `first` and `second`.
    pub fn new(first: &str, second: &str) -> PairTally {
        PairTally {
            first: first.to_owned(),
            second: second.to_owned(),
            games: 0,
            half_points: 0,
            pairing: LayoutPairing::default(),
        }
    }

    /// Counts `record` if it is a game between the two bots (others are ignored); true when it completes
    /// a layout pair.
    pub fn add(&mut self, record: &GameRecord) -> bool {
        let players = (record.players.first.as_str(), record.players.second.as_str());
        let first_seated = if players == (self.first.as_str(), self.second.as_str()) {
            true
        } else if players == (self.second.as_str(), self.first.as_str()) {
            false
        } else {
            return false;
        };
        let half_points = half_points_of(record, if first_seated { Seat::First } else { Seat::Second });
        self.games += 1;
        self.half_points += u64::from(half_points);
        self.pairing.add(first_seated, half_points, record.layout.as_deref())
    }

    /// The layout pairs counted so far.
    pub fn pentanomial(&self) -> Pentanomial {
        self.pairing.pentanomial
    }

    /// The pair's line of the pair table.
    pub fn summary(&self) -> PairStrength {
        self.pairing
            .summary(&self.first, &self.second, self.games, self.half_points)
    }
}

#[cfg(test)]
mod tests {
    use pahtum_protocol::Reason;

    use pahtum_stats::Game;

    use super::*;
    use pahtum_tournament::testing::{forfeited, record, scored, swapped};

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    /// The strength of the standings of `records`.
    fn strength(
        records: &[GameRecord],
        bots: &[String],
        anchor: Option<&AnchorSpec>,
    ) -> Result<Strength, StrengthError> {
        crate::standings::standings(records, bots, anchor).map(|standings| standings.strength)
    }

    /// A layout pair `key` between `a` and `b` in which `a` scores `a_points` (0, 0.5, 1, 1.5 or 2).
    fn layout_pair(key: &str, a: &str, b: &str, a_points: f64) -> [GameRecord; 2] {
        // `record` is a White (first seat) win; a draw is 5 to 5; a swap gives the second seat the win.
        let result = |game: GameRecord, first_points: f64| match first_points {
            1.0 => game,
            0.5 => scored(game, 5, 5),
            _ => swapped(game),
        };
        let (first_game, second_game) = match a_points {
            2.0 => (1.0, 0.0),
            1.5 => (1.0, 0.5),
            1.0 => (1.0, 1.0),
            0.5 => (0.5, 1.0),
            _ => (0.0, 1.0),
        };
        [
            result(record(&format!("{key}-a"), a, b), first_game),
            result(record(&format!("{key}-b"), b, a), second_game),
        ]
    }

    fn fitted(strength: &Strength) -> (&[BotRating], &LosMatrix) {
        match &strength.ratings {
            Ratings::Fitted { bots, los } => (bots, los),
            other => panic!("no fit: {other:?}"),
        }
    }

    #[test]
    fn two_bots_match_the_joint_fit_of_their_games() {
        // a scores 2, 1.5, 1 and 2 in four layout pairs: 6.5 of 8.
        let records: Vec<GameRecord> = [2.0, 1.5, 1.0, 2.0]
            .iter()
            .enumerate()
            .flat_map(|(round, &points)| layout_pair(&format!("000-{round:02}"), "a", "b", points))
            .collect();
        let s = strength(&records, &names(&["a", "b"]), None).unwrap();
        let (bots, los) = fitted(&s);
        assert_eq!((bots[0].bot.as_str(), bots[0].games, bots[0].points), ("a", 8, 6.5));
        let games: Vec<Game> = records
            .iter()
            .map(|r| Game {
                a: usize::from(r.players.first == "b"),
                b: usize::from(r.players.first == "a"),
                score_a: r.points_of(Seat::First),
            })
            .collect();
        let reference = fit(&PairMatrix::from_games(2, &games).unwrap(), &FitOptions::default()).unwrap();
        assert_eq!(bots[0].elo, reference.players[0].rating);
        assert_eq!(
            (bots[0].lower, bots[0].upper),
            (reference.players[0].lower, reference.players[0].upper)
        );
        assert_eq!(bots[0].elo, -bots[1].elo, "relative to the pool's average");
        // The score 6.5/8 is 252 Elo apart; the prior pulls the fit towards 0, not past it.
        let unshrunk = -400.0 * (1.0_f64 / (6.5 / 8.0) - 1.0).log10();
        let difference = bots[0].elo - bots[1].elo;
        assert!(
            difference > 0.5 * unshrunk && difference < unshrunk,
            "{difference} vs {unshrunk}"
        );
        assert!(bots[0].lower < bots[0].elo && bots[0].elo < bots[0].upper);
        assert_eq!(bots[0].los_next, Some(los.values[0][1]));
        assert!(los.values[0][1] > 0.9 && (los.values[0][1] + los.values[1][0] - 1.0).abs() < 1e-12);
        assert_eq!(bots[1].los_next, None);
        assert_eq!(s.los("a", "b"), Some(los.values[0][1]));
    }

    #[test]
    fn pairs_count_layout_pairs_from_the_first_bots_side() {
        let mut records: Vec<GameRecord> = [0.0, 0.5, 1.0, 1.5, 2.0, 2.0]
            .iter()
            .enumerate()
            .flat_map(|(round, &points)| layout_pair(&format!("000-{round:02}"), "b", "a", points))
            .collect();
        records.push(record("000-06-a", "a", "b")); // its partner is missing
        let s = strength(&records, &names(&["a", "b"]), None).unwrap();
        let pair = &s.pairs[0];
        assert_eq!(
            (pair.first.as_str(), pair.second.as_str()),
            ("a", "b"),
            "in bot-list order"
        );
        assert_eq!(pair.pentanomial, [2, 1, 1, 1, 1], "a's side: b's 2, 2, 1.5, 1, 0.5, 0");
        assert_eq!((pair.games, pair.points), (13, 5.0 + 1.0));
        assert_eq!((pair.unpaired_games, s.unpaired_games), (1, 1));
        let elo = pair.elo.unwrap();
        let stats = Pentanomial {
            counts: [2, 1, 1, 1, 1],
        }
        .stats()
        .unwrap();
        assert_eq!(
            (elo.elo, elo.error95, elo.nelo),
            (stats.elo, stats.elo_error95, stats.nelo)
        );
        assert!(elo.elo < 0.0);
    }

    #[test]
    fn games_that_do_not_form_a_seat_swapped_pair_are_unpaired() {
        let same_seats = [record("000-00-a", "a", "b"), record("000-00-b", "a", "b")];
        let mut lone = record("lone", "a", "b");
        lone.layout = None;
        let s = strength(
            &[same_seats[0].clone(), same_seats[1].clone(), lone],
            &names(&["a", "b"]),
            None,
        )
        .unwrap();
        assert_eq!(s.pairs[0].pentanomial, [0; 5]);
        assert_eq!(s.pairs[0].elo, None);
        assert_eq!(s.unpaired_games, 3);
        assert!(
            matches!(s.ratings, Ratings::Fitted { .. }),
            "every game still counts in the ratings"
        );
    }

    #[test]
    fn a_pair_tally_pairs_games_as_they_come() {
        let mut tally = PairTally::new("a", "b");
        let [first, second] = layout_pair("000-00", "b", "a", 1.5);
        assert!(!tally.add(&first), "half a layout pair");
        assert_eq!(tally.summary().unpaired_games, 1);
        assert!(!tally.add(&record("001-00-a", "a", "c")), "another pair's game");
        assert!(tally.add(&second));
        let summary = tally.summary();
        assert_eq!((summary.games, summary.points, summary.unpaired_games), (2, 0.5, 0));
        assert_eq!(tally.pentanomial().counts, [0, 1, 0, 0, 0]);
    }

    #[test]
    fn a_forfeit_counts_as_a_loss() {
        let records = [
            forfeited(record("000-00-a", "a", "b"), Seat::First, Reason::Timeout),
            record("000-00-b", "b", "a"),
        ];
        let s = strength(&records, &names(&["a", "b"]), None).unwrap();
        let (bots, _) = fitted(&s);
        assert_eq!((bots[0].bot.as_str(), bots[0].points), ("b", 2.0));
        assert_eq!(s.pairs[0].pentanomial, [1, 0, 0, 0, 0]);
    }

    #[test]
    fn one_game_and_a_bot_with_only_wins_stay_finite() {
        for records in [
            vec![record("000-00-a", "a", "b")],
            (0..10)
                .flat_map(|round| layout_pair(&format!("000-{round:02}"), "a", "b", 2.0))
                .collect(),
        ] {
            let s = strength(&records, &names(&["a", "b"]), None).unwrap();
            let (bots, los) = fitted(&s);
            assert_eq!(bots[0].bot, "a");
            for bot in bots {
                for value in [bot.elo, bot.lower, bot.upper, bot.std_error] {
                    assert!(value.is_finite(), "{bot:?}");
                }
                assert!(bot.lower < bot.elo && bot.elo < bot.upper, "{bot:?}");
            }
            assert!(los.values.iter().flatten().all(|v| v.is_finite()));
        }
        let s = strength(&[record("000-00-a", "a", "b")], &names(&["a", "b"]), None).unwrap();
        assert_eq!(s.pairs[0].elo, None, "one game is no layout pair");
    }

    #[test]
    fn all_draws_rate_everyone_equal() {
        let records: Vec<GameRecord> = (0..4)
            .flat_map(|round| layout_pair(&format!("000-{round:02}"), "a", "b", 1.0))
            .chain((0..4).flat_map(|round| layout_pair(&format!("001-{round:02}"), "b", "c", 1.0)))
            .collect();
        let records: Vec<GameRecord> = records.into_iter().map(|r| scored(r, 5, 5)).collect();
        let s = strength(&records, &names(&["a", "b", "c"]), None).unwrap();
        let (bots, _) = fitted(&s);
        for bot in bots {
            assert!(bot.elo.abs() < 1e-6, "{bot:?}");
        }
        assert!((s.los("a", "c").unwrap() - 0.5).abs() < 1e-6);
        assert_eq!(s.pairs[0].pentanomial, [0, 0, 4, 0, 0]);
        assert_eq!(
            s.pairs[0].elo, None,
            "no spread between the layout pairs, no error estimate"
        );
    }

    #[test]
    fn groups_that_never_met_are_reported_and_idle_bots_are_unrated() {
        let records = [
            record("000-00-a", "a", "b"),
            record("001-00-a", "c", "d"),
            record("001-00-b", "d", "c"),
        ];
        let s = strength(&records, &names(&["a", "c", "idle", "b", "d"]), None).unwrap();
        assert_eq!(
            s.ratings,
            Ratings::Disconnected {
                groups: vec![names(&["a", "b"]), names(&["c", "d"])]
            }
        );
        assert_eq!(s.unrated, ["idle"]);
        assert_eq!(s.rating("a"), None);
        assert_eq!(s.pairs.len(), 2, "the pair table does not need a connected pool");

        let s = strength(&records[..1], &names(&["a", "idle", "b"]), None).unwrap();
        assert_eq!(
            fitted(&s).0.len(),
            2,
            "a bot without games does not stop the others' fit"
        );
        assert_eq!(s.unrated, ["idle"]);
        let s = strength(&[], &names(&["a", "b"]), None).unwrap();
        assert_eq!((s.ratings, s.unrated), (Ratings::NoGames, names(&["a", "b"])));
    }

    #[test]
    fn an_anchor_fixes_one_bot_and_moves_the_rest_with_it() {
        let records: Vec<GameRecord> = [2.0, 1.5, 0.5]
            .iter()
            .enumerate()
            .flat_map(|(round, &points)| layout_pair(&format!("000-{round:02}"), "a", "b", points))
            .chain(layout_pair("001-00", "b", "c", 1.5))
            .collect();
        let bots = names(&["a", "b", "c"]);
        let pool = strength(&records, &bots, None).unwrap();
        let anchor: AnchorSpec = "b=1500".parse().unwrap();
        let anchored = strength(&records, &bots, Some(&anchor)).unwrap();
        let b = anchored.rating("b").unwrap();
        assert_eq!((b.elo, b.lower, b.upper), (1500.0, 1500.0, 1500.0));
        let shift = |bot: &str| anchored.rating(bot).unwrap().elo - pool.rating(bot).unwrap().elo;
        assert!(
            (shift("a") - shift("c")).abs() < 1e-6,
            "differences do not depend on the anchor"
        );
        assert_eq!(anchored.rating_model.anchor, Some(anchor));

        let unknown: AnchorSpec = "zed=0".parse().unwrap();
        let error = strength(&records, &bots, Some(&unknown)).unwrap_err().to_string();
        assert_eq!(
            error,
            "the anchor \"zed\" is not one of the bots (a, b, c); name one of them"
        );
        let idle: AnchorSpec = "idle=0".parse().unwrap();
        let error = strength(&records, &names(&["a", "b", "c", "idle"]), Some(&idle)).unwrap_err();
        assert!(matches!(error, StrengthError::AnchorWithoutGames { .. }), "{error}");
    }

    #[test]
    fn anchors_parse_as_name_equals_elo() {
        assert_eq!(
            " heuristic = -12.5".parse::<AnchorSpec>(),
            Ok(AnchorSpec {
                bot: "heuristic".into(),
                elo: -12.5
            })
        );
        for bad in ["heuristic", "heuristic=", "=1500", "a=inf", "a=x"] {
            assert!(bad.parse::<AnchorSpec>().is_err(), "{bad} accepted");
        }
    }

    /// A bad anchor says which part is wrong, and what to write (the flag's error shows the text).
    #[test]
    fn a_bad_anchor_says_what_is_wrong() {
        let error = |text: &str| text.parse::<AnchorSpec>().unwrap_err();
        assert!(matches!(error("heuristic"), AnchorSpecError::NotNameEqualsElo { .. }));
        assert_eq!(
            error("a= x"),
            AnchorSpecError::NotARating {
                text: "a= x".into(),
                elo: " x".into()
            }
        );
        assert_eq!(
            error(" =1500").to_string(),
            "\" =1500\" names no bot: write e.g. heuristic=1500"
        );
    }

    #[test]
    fn strength_round_trips_through_json() {
        let records: Vec<GameRecord> = layout_pair("000-00", "a", "b", 1.5).into_iter().collect();
        let s = strength(&records, &names(&["a", "b", "idle"]), None).unwrap();
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<Strength>(&json).unwrap(), s);
        assert!(json.contains("\"status\":\"fitted\""), "{json}");
    }

    #[test]
    fn equal_ratings_are_listed_by_name_as_the_standings_list_equal_scores() {
        let bots: Vec<String> = ["c", "b", "a"].map(String::from).to_vec();
        let records = [
            scored(record("000-00-a", "c", "b"), 5, 5),
            scored(record("001-00-a", "c", "a"), 5, 5),
            scored(record("002-00-a", "b", "a"), 5, 5),
        ];
        let strength = strength(&records, &bots, None).unwrap();
        let Ratings::Fitted { bots: rated, los } = &strength.ratings else {
            panic!("{:?}", strength.ratings)
        };
        assert_eq!(los.bots, ["a", "b", "c"]);
        let names: Vec<&str> = rated.iter().map(|rating| rating.bot.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        let standings = crate::standings::standings(&records, &bots, None).unwrap();
        let rows: Vec<&str> = standings.bots.iter().map(|row| row.bot.as_str()).collect();
        assert_eq!(rows, los.bots, "the standings and the LOS table list ties alike");
    }
}
