//! The league's sections of the HTML report: the ladder, and each bot's rating history.
//!
//! The ladder is `arena league table`'s, cell for cell ([`crate::league`]'s rows of the same [`Table`]): the
//! active entrants and the retired apart, and the change between each two versions of a bot with its
//! interval. The history shows, per bot, its versions side by side on one Elo axis (the table's joint fit,
//! dot and 95% interval, as the standings' chart draws them), and its versions' ratings over time as an
//! inline SVG drawn here: one line per version through the checkpoints of the league's
//! [`History`] (at most twelve fits), each point with its interval. Every number of the drawing is computed
//! here; every text (bot names, versions) reaches the page with its control characters shown as escapes
//! ([`escape`]), then through the template's escaping of markup.

use pahtum_league::Entrant;
use pahtum_league::history::History;
use pahtum_league::table::{Row, Table};
use pahtum_protocol::untrusted::escape;
use pahtum_standings::strength::BotRating;
use serde::Serialize;

use crate::html::data::{ChartRow, ChartTick, Scale};
use crate::league::{
    SWISS_NOTE, bracket_note, bracket_rows, entrant_rows, plays_to_precision, summary, swiss_rows, version_rows,
};
use crate::strength_render::elo;

/// The width of the history's drawing, in its own units.
const WIDTH: f64 = 640.0;
/// The height of the history's plot.
const HEIGHT: f64 = 200.0;
/// The left margin, for the Elo marks.
const LEFT: f64 = 50.0;
/// The right margin.
const RIGHT: f64 = 16.0;
/// The top margin.
const TOP: f64 = 8.0;
/// The colours of a bot's versions, in the order they joined (repeating).
const COLOURS: [&str; 6] = ["#2f5fb3", "#c0392b", "#1e8449", "#8e44ad", "#b9770e", "#117a65"];

/// What the league's sections of the page show.
#[derive(Debug, Serialize)]
pub struct LeaguePage {
    /// The league's name.
    pub name: String,
    /// The ladder's first line.
    pub summary: String,
    /// The active entrants (the first row is the header).
    pub active: Vec<Vec<String>>,
    /// The retired entrants, if any.
    pub retired: Option<Vec<Vec<String>>>,
    /// A Swiss's standings (the first row is the header), if the league is one.
    pub swiss: Option<Vec<Vec<String>>>,
    /// How the Swiss's standings rank.
    pub swiss_note: &'static str,
    /// A knockout's bracket (the first row is the header), if the league is one.
    pub bracket: Option<Vec<Vec<String>>>,
    /// How the knockout's matches are decided.
    pub bracket_note: Option<String>,
    /// The changes between versions, if a bot has more than one.
    pub versions: Option<Vec<Vec<String>>>,
    /// What the history shows and what it cost.
    pub history_note: String,
    /// The marks of the versions' common Elo axis.
    pub axis: Vec<ChartTick>,
    /// Each bot, in the order it first joined.
    pub bots: Vec<BotHistory>,
}

/// One bot's versions and its rating over time.
#[derive(Debug, Serialize)]
pub struct BotHistory {
    /// The bot's name.
    pub bot: String,
    /// Its versions in the order they joined, those rated (the table's fit), on the common axis.
    pub versions: Vec<ChartRow>,
    /// Its versions without a rating yet.
    pub unrated: Vec<String>,
    /// The change from each version to the next, in words.
    pub changes: Vec<String>,
    /// Its versions' ratings over time; `None` while none was rated.
    pub time: Option<TimeChart>,
}

/// A drawing of ratings over the rounds.
#[derive(Debug, Serialize)]
pub struct TimeChart {
    /// The drawing's view box.
    pub view_box: String,
    /// The left and right ends of the plot and the bottom of it, for the axes.
    pub left: f64,
    /// The right end of the plot.
    pub right: f64,
    /// The bottom of the plot.
    pub bottom: f64,
    /// The Elo marks, at heights.
    pub elo_marks: Vec<Mark>,
    /// The round marks (each checkpoint), at places across.
    pub round_marks: Vec<Mark>,
    /// One line per version rated at some checkpoint.
    pub lines: Vec<TimeLine>,
}

/// A mark on an axis of the drawing.
#[derive(Debug, Serialize)]
pub struct Mark {
    /// Where it stands, in the drawing's units.
    pub at: f64,
    /// Its text.
    pub label: String,
}

/// One version's ratings over time.
#[derive(Debug, Serialize)]
pub struct TimeLine {
    /// The version's label.
    pub entrant: String,
    /// Its colour.
    pub colour: &'static str,
    /// Its points, `x,y x,y ...`.
    pub points: String,
    /// Each point with its interval.
    pub marks: Vec<TimePoint>,
}

/// A rating at a checkpoint, with its interval, in the drawing's units.
#[derive(Debug, Serialize)]
pub struct TimePoint {
    /// Across.
    pub x: f64,
    /// The rating's height.
    pub y: f64,
    /// The interval's upper end's height (smaller: higher up).
    pub top: f64,
    /// The interval's lower end's height.
    pub bottom: f64,
    /// The point in words.
    pub title: String,
}

impl LeaguePage {
    /// The sections of the league of `table`, whose entrants are `entrants` (in the order they joined), with its
    /// ratings over time `history`.
    pub fn of(table: &Table, entrants: &[Entrant], history: &History) -> LeaguePage {
        let signed = table.standings.strength.rating_model.anchor.is_none();
        let rows: Vec<&Row> = table.active.iter().chain(&table.retired).collect();
        let rated = || rows.iter().filter_map(|row| row.lower.zip(row.upper));
        let low = rated().map(|(lower, _)| lower).min_by(f64::total_cmp).unwrap_or(0.0);
        let high = rated().map(|(_, upper)| upper).max_by(f64::total_cmp).unwrap_or(0.0);
        let scale = Scale::new(low, high);
        let mut names: Vec<&str> = Vec::new();
        for entrant in entrants {
            if !names.contains(&entrant.name.as_str()) {
                names.push(&entrant.name);
            }
        }
        let bots = names
            .into_iter()
            .map(|name| {
                let labels: Vec<String> = entrants
                    .iter()
                    .filter(|entrant| entrant.name == name)
                    .map(Entrant::label)
                    .collect();
                bot_history(name, &labels, table, &rows, history, scale, signed)
            })
            .collect();
        let fits = history.points.len();
        let history_note = format!(
            "Each bot's versions: their ratings and 95% intervals in the ladder's joint fit of every game. Over \
             time: each version's rating and interval when the ratings were fitted again after every {} of the \
             {} rounds, and at the end ({fits} fits in all, the last the ladder's: at most {} however long the \
             league). Each fit is relative to the field of its time, so a line moves also when stronger or \
             weaker entrants join.",
            plural(history.stride, "round"),
            table.rounds,
            pahtum_league::history::MAX_CHECKPOINTS,
        );
        LeaguePage {
            name: shown(&table.league),
            summary: shown(&summary(table)),
            active: cells(entrant_rows(&table.active, plays_to_precision(table))),
            retired: (!table.retired.is_empty())
                .then(|| cells(entrant_rows(&table.retired, plays_to_precision(table)))),
            swiss: table.swiss.as_ref().map(|swiss| cells(swiss_rows(&swiss.rows))),
            swiss_note: SWISS_NOTE,
            bracket: table.knockout.as_ref().map(|bracket| cells(bracket_rows(bracket))),
            bracket_note: table.knockout.as_ref().map(bracket_note),
            versions: (!table.versions.is_empty()).then(|| cells(version_rows(&table.versions))),
            history_note,
            axis: scale.ticks(),
            bots,
        }
    }
}

/// `text` with its control, separator and bidi characters shown as escapes (the template escapes the markup).
fn shown(text: &str) -> String {
    escape(text).into_owned()
}

/// The cells `rows`, [`shown`].
fn cells(rows: impl Iterator<Item = Vec<String>>) -> Vec<Vec<String>> {
    rows.map(|row| row.iter().map(|cell| shown(cell)).collect()).collect()
}

fn plural(count: u32, noun: &str) -> String {
    if count == 1 {
        noun.to_owned()
    } else {
        format!("{count} {noun}s")
    }
}

/// The rating `elo` with its interval, as text.
fn rated(value: f64, lower: f64, upper: f64, signed: bool) -> String {
    format!(
        "{} [{}, {}]",
        elo(value, signed),
        elo(lower, signed),
        elo(upper, signed)
    )
}

/// The history of the bot `name`, whose versions are `labels`.
fn bot_history(
    name: &str,
    labels: &[String],
    table: &Table,
    rows: &[&Row],
    history: &History,
    scale: Scale,
    signed: bool,
) -> BotHistory {
    let mut versions = Vec::new();
    let mut unrated = Vec::new();
    for label in labels {
        let row = rows.iter().find(|row| &row.entrant == label);
        let retired = table.retired.iter().any(|row| &row.entrant == label);
        match row.and_then(|row| Some((row.elo?, row.lower?, row.upper?))) {
            Some((value, lower, upper)) => versions.push(ChartRow {
                bot: shown(&if retired {
                    format!("{label} (retired)")
                } else {
                    label.clone()
                }),
                label: rated(value, lower, upper, signed),
                dot: scale.at(value),
                lower: scale.at(lower),
                upper: scale.at(upper),
            }),
            None => unrated.push(shown(label)),
        }
    }
    let changes = version_rows(&table.versions)
        .skip(1)
        .zip(&table.versions)
        .filter(|(_, change)| change.bot == name)
        .map(|(cells, _)| {
            shown(&format!(
                "{} → {}: {} Elo, ±{} (95%), LOS {}",
                cells[1], cells[2], cells[3], cells[4], cells[5]
            ))
        })
        .collect();
    BotHistory {
        bot: shown(name),
        versions,
        unrated,
        changes,
        time: time_chart(labels, history, signed),
    }
}

/// The drawing of the ratings of `labels` over the checkpoints of `history`.
fn time_chart<'a>(labels: &'a [String], history: &'a History, signed: bool) -> Option<TimeChart> {
    let ratings = |label: &'a String| ratings_of(history, label);
    let all = || labels.iter().flat_map(ratings);
    let low = all().map(|(_, rating)| rating.lower).min_by(f64::total_cmp)?;
    let high = all().map(|(_, rating)| rating.upper).max_by(f64::total_cmp)?;
    let scale = Scale::new(low, high);
    let (right, bottom) = (WIDTH - RIGHT, TOP + HEIGHT);
    let last = history.points.last().map_or(1, |point| point.round.max(1));
    let x = |round: u32| tenth(LEFT + (right - LEFT) * f64::from(round) / f64::from(last));
    let y = |elo: f64| tenth(bottom - HEIGHT * scale.at(elo) / 100.0);
    let lines = labels
        .iter()
        .enumerate()
        .filter_map(|(number, label)| {
            let marks: Vec<TimePoint> = ratings(label)
                .map(|(round, rating)| TimePoint {
                    x: x(round),
                    y: y(rating.elo),
                    top: y(rating.upper),
                    bottom: y(rating.lower),
                    title: shown(&format!(
                        "{label} after round {round}: {}",
                        rated(rating.elo, rating.lower, rating.upper, signed)
                    )),
                })
                .collect();
            (!marks.is_empty()).then(|| TimeLine {
                entrant: shown(label),
                colour: COLOURS[number % COLOURS.len()],
                points: marks
                    .iter()
                    .map(|mark| format!("{},{}", mark.x, mark.y))
                    .collect::<Vec<_>>()
                    .join(" "),
                marks,
            })
        })
        .collect();
    Some(TimeChart {
        view_box: format!("0 0 {WIDTH} {}", bottom + 24.0),
        left: LEFT,
        right,
        bottom,
        elo_marks: scale
            .ticks()
            .into_iter()
            .map(|tick| Mark {
                at: tenth(bottom - HEIGHT * tick.at / 100.0),
                label: tick.label,
            })
            .collect(),
        round_marks: history
            .points
            .iter()
            .map(|point| Mark {
                at: x(point.round),
                label: point.round.to_string(),
            })
            .collect(),
        lines,
    })
}

/// The ratings of `label` at the checkpoints of `history` where it was rated, with their rounds.
fn ratings_of<'a>(history: &'a History, label: &'a str) -> impl Iterator<Item = (u32, &'a BotRating)> + 'a {
    history.points.iter().filter_map(move |point| {
        let rating = point.ratings.iter().find(|rating| rating.bot == label)?;
        Some((point.round, rating))
    })
}

fn tenth(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}
