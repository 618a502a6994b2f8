//! The ladder as the pages and the API show it: one joint fit of the
//! league's games, each place marked tied with the one above where their 95%
//! intervals overlap, kept while the journal does not grow; with the rules
//! and the time control every game is played by, as the league's
//! `league.toml` gives them.

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pahtum_league::service::ServiceError;
use serde::{Deserialize, Serialize};

use crate::service::LEAGUE;

/// One line of the ladder.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LadderRow {
    /// Its place, from 1.
    pub place: usize,
    /// `NAME@VERSION`.
    pub entrant: String,
    /// Games played.
    pub games: u32,
    /// Score in percent.
    pub score_pct: Option<f64>,
    /// Rating (Elo, relative to the field's average).
    pub elo: Option<f64>,
    /// The 95% interval's lower end.
    pub lower: Option<f64>,
    /// Its upper end.
    pub upper: Option<f64>,
    /// Whether this place is statistically tied with the one above: the two 95% intervals overlap.
    pub tied_with_above: bool,
}

/// The ladder.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ladder {
    /// The contest's name.
    pub contest: String,
    /// Games played.
    pub games: usize,
    /// The active entrants, strongest first.
    pub rows: Vec<LadderRow>,
    /// The retired versions.
    pub retired: Vec<String>,
    /// How the games are played.
    pub rules: LadderRules,
}

/// How the contest's games are played: the league's rules, with the keys of `league.toml`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LadderRules {
    /// The layouts and the pie rule (`league.toml`'s `[rules]`).
    pub rules: pahtum_tournament::config::RulesConfig,
    /// The time control (`league.toml`'s `[time]`).
    pub time: pahtum_protocol::TimeControl,
    /// The most games two entrants play.
    pub games_per_pair: u32,
    /// The half-width of the 95% interval the ladder plays each entrant to, in Elo.
    pub precision_elo: u32,
}

/// The ladder last made: when, from how long a journal, and the ladder.
#[derive(Debug, Default)]
pub struct LadderCache(Mutex<Option<(Instant, u64, Ladder)>>);

impl LadderCache {
    /// The ladder of the league of the contest `name` in `dir`: the last one made while the journal has
    /// not grown, else made again, at most once a second however many ask (each making is one fit of the
    /// whole journal).
    pub fn get(&self, dir: &Path, name: &str) -> Result<Ladder, ServiceError> {
        let journal = dir.join(LEAGUE).join(pahtum_run::resume::JOURNAL);
        let length = std::fs::metadata(&journal).map_or(0, |metadata| metadata.len());
        let mut made = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((at, was, ladder)) = &*made
            && (*was == length || at.elapsed() < LADDER_APART)
        {
            return Ok(ladder.clone());
        }
        let ladder = fit_ladder(dir, name)?;
        *made = Some((Instant::now(), length, ladder.clone()));
        Ok(ladder)
    }
}

/// The least time between two fits of the ladder while the league plays.
const LADDER_APART: Duration = Duration::from_secs(1);

/// The ladder of the contest's league, from one fit of its journal.
fn fit_ladder(dir: &Path, name: &str) -> Result<Ladder, ServiceError> {
    let table = pahtum_league::service::table_of(&dir.join(LEAGUE))?;
    let league = pahtum_league::rules::load(&dir.join(LEAGUE).join(pahtum_league::LEAGUE_FILE))
        .map_err(pahtum_league::LeagueError::from)?;
    let mut rows: Vec<LadderRow> = Vec::with_capacity(table.active.len());
    for (index, row) in table.active.iter().enumerate() {
        let tied_with_above = index > 0
            && matches!(
                (table.active[index - 1].lower, row.upper),
                (Some(above_lower), Some(upper)) if above_lower <= upper
            );
        rows.push(LadderRow {
            place: index + 1,
            entrant: row.entrant.clone(),
            games: row.games,
            score_pct: row.score_pct,
            elo: row.elo,
            lower: row.lower,
            upper: row.upper,
            tied_with_above,
        });
    }
    Ok(Ladder {
        contest: name.to_owned(),
        games: table.games,
        rows,
        retired: table.retired.iter().map(|row| row.entrant.clone()).collect(),
        rules: LadderRules {
            rules: league.rules,
            time: league.time,
            games_per_pair: league.games_per_pair,
            precision_elo: league.precision_elo,
        },
    })
}
