//! A league's table: one joint fit of every game it played, the entrants
//! active and retired apart, and each bot's versions together with the
//! change from each version to the next.
//!
//! The games are counted by the tournament's [`Tallies`] as the journal
//! streams by ([`fold`]: bounded memory, whatever the number of games) and
//! fitted once ([`Tallies::finish`]: the ratings with their 95% intervals and
//! the likelihood of superiority). The tallies do not depend on the order of
//! the games, and the entrants are listed in the order they joined, so the
//! same games give the same table byte for byte, whether played on one
//! machine or merged from shards.
//!
//! The change between two versions of a bot is the difference of their
//! ratings in the joint fit; its 95% half-width is `1.96 √(s₁² + s₂²)` from
//! their standard errors (leaving out their covariance, which is positive
//! when they met the same opponents, so the interval is on the safe side),
//! and its LOS is the fit's likelihood that the newer version is stronger.

use std::path::Path;

use pahtum_record::GameRecord;
use serde::Serialize;

use pahtum_journal::Moves;
use pahtum_journal::sink::{Keep, Sink};
use pahtum_standings::standings::{Standings, Tallies};
use pahtum_standings::strength::{AnchorSpec, StrengthError};

use super::read::{LeagueError, read_with};
use super::state::LeagueState;

/// The z of a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// The league at `path` and the tallies of its games, in one pass in bounded memory: each game's record
/// (checked; its moves as `moves` says, made into what the sink's [`Keep`] keeps on the reading threads) is
/// counted and handed to `sink` without its moves, with where it lies. The tallies list every entrant, in
/// the order they joined.
pub fn fold(path: &Path, moves: Moves, sink: &mut impl Sink) -> Result<(LeagueState, Tallies), LeagueError> {
    fold_observed(path, moves, sink, |_, _| {})
}

/// As [`fold`], handing `before` each game's league as the lines before it say and the tallies of the games
/// before it (the league's ratings over time, [`super::history`], are taken there).
pub fn fold_observed(
    path: &Path,
    moves: Moves,
    sink: &mut impl Sink,
    mut before: impl FnMut(&LeagueState, &Tallies),
) -> Result<(LeagueState, Tallies), LeagueError> {
    let mut tallies = Tallies::new(&[]);
    let keeper = sink.keeper();
    let keep = |record: &GameRecord| keeper.keep(record);
    let read = read_with(path, moves, keep, |state, mut record, kept, span| {
        before(state, &tallies);
        count(&mut tallies, &mut record);
        sink.record(record, kept, span);
    })?;
    let all = listed(&read.state, tallies);
    Ok((read.state, all))
}

/// Counts a game's record in `tallies`, and drops its moves, which no sink is handed.
pub(crate) fn count(tallies: &mut Tallies, record: &mut GameRecord) {
    tallies.add(record);
    record.moves = Vec::new();
    record.swap_move = None;
}

/// `tallies` listing every entrant of `state`, in the order they joined.
pub(crate) fn listed(state: &LeagueState, tallies: Tallies) -> Tallies {
    let labels: Vec<String> = state.entrants().iter().map(super::lines::Entrant::label).collect();
    let mut all = Tallies::new(&labels);
    all.merge(tallies);
    all
}

/// A league's table.
#[derive(Debug, Clone, Serialize)]
pub struct Table {
    /// The league's name.
    pub league: String,
    /// The games played.
    pub games: usize,
    /// The rounds decided.
    pub rounds: u32,
    /// The target: the half-width of the 95% interval each active entrant is played to, in Elo.
    pub precision_elo: u32,
    /// The final's pairing rule, when the league is a final ([`super::separation`] tells its places).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub separate: Option<super::rules::Separate>,
    /// A Swiss's rule and standings, by score and its tie-breaks ([`super::swiss::standings`]), when the
    /// league is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swiss: Option<super::swiss::Standings>,
    /// A knockout's bracket ([`super::knockout::bracket`]), when the league is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub knockout: Option<super::knockout::Bracket>,
    /// The active entrants, strongest first (the unrated last, in the order they joined).
    pub active: Vec<Row>,
    /// The retired entrants, strongest first (the unrated last).
    pub retired: Vec<Row>,
    /// Each bot with more than one version: the change from each version to the next.
    pub versions: Vec<Change>,
    /// The standings of every game (the crosstable, first-move statistics and pair table).
    pub standings: Standings,
}

/// One entrant's line.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// `NAME@VERSION`.
    pub entrant: String,
    /// Its content hash.
    pub hash: String,
    /// Games played.
    pub games: u32,
    /// Its score, in percent.
    pub score_pct: Option<f64>,
    /// Its rating and 95% interval, once it has games in a connected field.
    pub elo: Option<f64>,
    /// The lower end of the interval.
    pub lower: Option<f64>,
    /// The upper end of the interval.
    pub upper: Option<f64>,
    /// Whether its interval is as narrow as the league's target.
    pub settled: bool,
}

/// The change from one version of a bot to the next.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// The bot.
    pub bot: String,
    /// The earlier version's label.
    pub from: String,
    /// The later version's label.
    pub to: String,
    /// The later one's rating minus the earlier one's, when both are rated.
    pub elo: Option<f64>,
    /// The half-width of the change's 95% interval.
    pub error95: Option<f64>,
    /// The likelihood that the later version is stronger.
    pub los: Option<f64>,
}

/// The table of the league `state` whose games `tallies` counted, the ratings relative to the field's
/// average or to `anchor`.
pub fn table(state: &LeagueState, tallies: Tallies, anchor: Option<&AnchorSpec>) -> Result<Table, StrengthError> {
    let standings = tallies.finish(anchor)?;
    let strength = &standings.strength;
    let target = f64::from(state.league().precision_elo);
    let mut active = Vec::new();
    let mut retired = Vec::new();
    for (number, entrant) in state.entrants().iter().enumerate() {
        let label = entrant.label();
        let standing = standings.bots.iter().find(|row| row.bot == label);
        let rating = strength.rating(&label);
        let row = Row {
            hash: entrant.hash.clone(),
            games: standing.map_or(0, |row| row.games),
            score_pct: standing.and_then(|row| row.score_pct),
            elo: rating.map(|rating| rating.elo),
            lower: rating.map(|rating| rating.lower),
            upper: rating.map(|rating| rating.upper),
            settled: rating.is_some_and(|rating| (rating.upper - rating.lower) / 2.0 <= target),
            entrant: label,
        };
        if state.is_retired(number) {
            retired.push(row);
        } else {
            active.push(row);
        }
    }
    for rows in [&mut active, &mut retired] {
        // Stable: the unrated keep the order they joined in, after the rated.
        rows.sort_by(|a, b| match (a.elo, b.elo) {
            (Some(x), Some(y)) => y.total_cmp(&x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
    }
    let mut versions = Vec::new();
    let entrants = state.entrants();
    for (later, entrant) in entrants.iter().enumerate() {
        let Some(earlier) = entrants[..later].iter().rposition(|other| other.name == entrant.name) else {
            continue;
        };
        let (from, to) = (entrants[earlier].label(), entrant.label());
        let (a, b) = (strength.rating(&from), strength.rating(&to));
        let both = a.zip(b);
        versions.push(Change {
            bot: entrant.name.clone(),
            elo: both.map(|(a, b)| b.elo - a.elo),
            error95: both.map(|(a, b)| Z95 * a.std_error.hypot(b.std_error)),
            los: strength.los(&to, &from),
            from,
            to,
        });
    }
    let swiss = state.league().swiss.map(|rule| super::swiss::Standings {
        rule,
        rows: super::swiss::standings(state, &standings),
    });
    let knockout = (state.league().knockout.as_ref()).map(|rule| super::knockout::bracket(state, &standings, rule));
    Ok(Table {
        league: state.league().name.clone(),
        games: state.games(),
        rounds: state.rounds(),
        precision_elo: state.league().precision_elo,
        separate: state.league().separate,
        active,
        retired,
        versions,
        standings,
        swiss,
        knockout,
    })
}
