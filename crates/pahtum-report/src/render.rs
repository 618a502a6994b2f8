//! Standings as text: a terminal table, Markdown, CSV and JSON.
//!
//! Plain functions of a [`Standings`], so that the same numbers read the same
//! in every format, and so that each format is snapshot-tested. The terminal
//! and Markdown forms hold: the standings in rank order, with each bot's Elo,
//! its 95% interval and its LOS over the next row, and a note on the ratings;
//! the crosstable (row against column, points of the row's bot out of the
//! games, columns numbered by rank); the likelihood-of-superiority matrix (for
//! three or more rated bots); the pair table (layout pairs, with Elo from the
//! pentanomial); and a line on the first move's balance. On a terminal the
//! standings table fits the terminal's width ([`crate::fit`]); Markdown holds
//! every column. The strength parts are in [`crate::strength_render`]. CSV holds the standings only, one row per bot
//! (the pair table has its own CSV file,
//! [`crate::strength_render::pairs_csv`]); JSON holds everything, in the schema
//! documented in [`pahtum_standings::standings`].

use std::str::FromStr;

use pahtum_protocol::Placement;
use pahtum_standings::standings::{BotStanding, Standings, Tally, greeting_notes, overload_note};
use pahtum_tournament::schedule::ScheduledGame;
use tabled::builder::Builder;
use tabled::settings::Style;

use crate::fit::{Fit, standings_table};
use crate::strength_render::{LOS_NOTE, elo, los_table, pairs_note, pairs_table, rating_note};
use crate::table::{TableStyle, build, csv_field, percent, points};

/// The formats standings can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The standings, ratings, crosstable and notes as text tables for a terminal.
    Table,
    /// The same sections in Markdown, each under a `##` title.
    Markdown,
    /// Comma-separated values: a header row, then one row per bot.
    Csv,
    /// The standings as JSON (`standings.json`; the schema is in
    /// `pahtum_standings::standings`).
    Json,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 4] = [Format::Table, Format::Markdown, Format::Csv, Format::Json];

    /// The format's name on the command line (`table`, `markdown`, `csv`, `json`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Markdown => "markdown",
            Format::Csv => "csv",
            Format::Json => "json",
        }
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(text: &str) -> Result<Format, String> {
        Format::ALL
            .into_iter()
            .find(|format| format.name() == text)
            .ok_or_else(|| format!("unknown format {text:?}: use table, markdown, csv or json"))
    }
}

/// `standings` in `format`, ending with a newline. `fit` shapes the terminal's standings table
/// ([`Format::Table`]; [`crate::fit`] says how): the other formats hold every column, whatever it says.
pub fn render(standings: &Standings, format: Format, fit: Fit) -> String {
    match format {
        Format::Table => terminal(standings, fit),
        Format::Markdown => markdown(standings),
        Format::Csv => csv(standings),
        Format::Json => {
            let mut json = serde_json::to_string_pretty(standings).expect("standings serialize");
            json.push('\n');
            json
        }
    }
}

const HEADERS: [&str; 18] = [
    "#",
    "bot",
    "games",
    "W",
    "D",
    "L",
    "points",
    "score",
    "Elo",
    "95% interval",
    "LOS next",
    "for",
    "against",
    "timeouts",
    "crashes",
    "illegal",
    "protocol",
    "stalls",
];

/// A row's cells; Elo figures are `signed` when they are relative to the pool's average.
fn standing_cells(row: &BotStanding, signed: bool) -> [String; 18] {
    let f = &row.forfeits;
    let rating = row.rating.as_ref();
    let dash = || "-".to_owned();
    [
        row.rank.to_string(),
        row.bot.clone(),
        row.games.to_string(),
        row.wins.to_string(),
        row.draws.to_string(),
        row.losses.to_string(),
        points(row.points),
        percent(row.score_pct),
        rating.map_or_else(dash, |r| elo(r.elo, signed)),
        rating.map_or_else(dash, |r| {
            format!("[{}, {}]", elo(r.lower, signed), elo(r.upper, signed))
        }),
        percent(rating.and_then(|r| r.los_next).map(|los| 100.0 * los)),
        decimal(row.pahtum_for),
        decimal(row.pahtum_against),
        f.timeout.to_string(),
        f.crash.to_string(),
        f.illegal_move.to_string(),
        f.protocol_error.to_string(),
        f.stall.to_string(),
    ]
}

fn crosstable_rows(standings: &Standings) -> Vec<Vec<String>> {
    let table = &standings.crosstable;
    let mut header = vec!["#".to_owned(), "bot".to_owned()];
    header.extend((1..=table.bots.len()).map(|n| n.to_string()));
    let mut rows = vec![header];
    for (i, bot) in table.bots.iter().enumerate() {
        let mut row = vec![(i + 1).to_string(), bot.clone()];
        row.extend(table.results[i].iter().enumerate().map(|(j, tally)| match tally {
            _ if i == j => "·".to_owned(),
            None => String::new(),
            Some(Tally { points: p, games, .. }) => format!("{}/{games}", points(*p)),
        }));
        rows.push(row);
    }
    rows
}

pub(crate) fn first_move_line(standings: &Standings) -> String {
    let f = &standings.first_move;
    let swaps = match f.swap_pct {
        Some(pct) => format!(
            "the pie swap was taken in {} of {} decisions ({})",
            f.swaps,
            f.pie_decisions,
            percent(Some(pct))
        ),
        None => "no pie decisions".to_owned(),
    };
    format!(
        "First move: White scored {} (the first seat {}) in {} games; {} draws; {swaps}.",
        percent(f.white_score_pct),
        percent(f.first_seat_score_pct),
        f.games,
        percent(f.draw_pct),
    )
}

pub(crate) fn standings_rows(standings: &Standings) -> impl Iterator<Item = Vec<String>> + '_ {
    std::iter::once(HEADERS.map(String::from).to_vec()).chain(
        standings
            .bots
            .iter()
            .map(|row| standing_cells(row, standings.strength.rating_model.anchor.is_none()).to_vec()),
    )
}

/// One part of the terminal and Markdown documents: a title, the lead of the Markdown form (the terminal
/// form says it in its title), and tables and notes.
struct Section {
    title: &'static str,
    terminal_title: Option<String>,
    lead: Option<String>,
    body: Vec<String>,
}

/// The sections of the terminal or Markdown document (tables in `style`, the standings fitted as `fit`
/// says), in order.
fn sections(standings: &Standings, style: TableStyle, fit: Fit) -> Vec<Section> {
    let strength = &standings.strength;
    let mut sections = vec![
        Section {
            title: "Standings",
            terminal_title: Some(format!("Standings after {} games", standings.games)),
            lead: Some(format!("After {} games.", standings.games)),
            body: standings_table(standings_rows(standings).collect(), style, fit)
                .into_iter()
                .chain([rating_note(strength)])
                .chain(overload_note(standings))
                .chain(greeting_notes(standings))
                .collect(),
        },
        Section {
            title: "Crosstable",
            terminal_title: Some("Crosstable (points of the row's bot against the column's / games)".to_owned()),
            lead: Some("Points of the row's bot against the column's, out of the games played.".to_owned()),
            body: vec![build(crosstable_rows(standings), style)],
        },
    ];
    if let Some(table) = los_table(strength, style) {
        sections.push(Section {
            title: "Likelihood of superiority",
            terminal_title: Some("Likelihood of superiority".to_owned()),
            lead: None,
            body: vec![table, LOS_NOTE.to_owned()],
        });
    }
    if let Some(table) = pairs_table(strength, style) {
        sections.push(Section {
            title: "Pairs",
            terminal_title: Some("Pairs".to_owned()),
            lead: None,
            body: vec![table, pairs_note(strength)],
        });
    }
    sections.push(Section {
        title: "First move",
        terminal_title: None,
        lead: None,
        body: vec![first_move_line(standings)],
    });
    sections
}

/// The document for the terminal: each section's title and body on lines of their own, a blank line between
/// sections.
fn terminal(standings: &Standings, fit: Fit) -> String {
    let sections: Vec<String> = sections(standings, TableStyle::Terminal, fit)
        .into_iter()
        .map(|section| {
            let lines: Vec<String> = section.terminal_title.into_iter().chain(section.body).collect();
            lines.join("\n") + "\n"
        })
        .collect();
    sections.join("\n")
}

/// The Markdown document: a heading per section, and paragraphs apart.
fn markdown(standings: &Standings) -> String {
    let sections: Vec<String> = sections(standings, TableStyle::Markdown, Fit::WIDE)
        .into_iter()
        .map(|section| {
            let paragraphs: Vec<String> = section.lead.into_iter().chain(section.body).collect();
            format!("## {}\n\n{}", section.title, paragraphs.join("\n\n"))
        })
        .collect();
    sections.join("\n\n") + "\n"
}

/// The schedule as a terminal table, for `arena run --dry-run`; with an `opening` column (the book's line and
/// its plies) when a game starts from an opening book.
pub fn schedule_table(games: &[ScheduledGame]) -> String {
    let openings = games.iter().any(|game| game.book.is_some());
    let mut header = vec![
        "#",
        "game",
        "layout",
        "first (White)",
        "second",
        "blocks",
        "seed",
        "cells",
    ];
    if openings {
        header.push("opening");
    }
    let words = |items: Vec<String>| items.join(" ");
    let rows = games.iter().map(|game| {
        let mut row = vec![
            game.index.to_string(),
            game.id.clone(),
            game.layout.clone(),
            game.first.clone(),
            game.second.clone(),
            format!("{} {}", game.rules.blocks, placement_name(game.rules.placement)),
            game.seed.map(|seed| format!("{seed:016x}")).unwrap_or_default(),
            words(game.blocks.iter().map(ToString::to_string).collect()),
        ];
        if openings {
            row.push(game.book.as_ref().map_or(String::new(), |book| {
                format!(
                    "line {}: {}",
                    book.line,
                    words(game.opening.iter().map(ToString::to_string).collect())
                )
            }));
        }
        row
    });
    let mut builder = Builder::default();
    builder.push_record(header);
    for row in rows {
        builder.push_record(row);
    }
    let mut table = builder.build();
    table.with(Style::sharp());
    table.to_string()
}

fn placement_name(placement: Placement) -> &'static str {
    match placement {
        Placement::Random => "random",
        Placement::Fixed => "fixed",
        Placement::Players => "placed",
    }
}

const CSV_HEADERS: [&str; 19] = [
    "rank",
    "bot",
    "games",
    "wins",
    "draws",
    "losses",
    "points",
    "score_pct",
    "pahtum_for",
    "pahtum_against",
    "timeouts",
    "crashes",
    "illegal_moves",
    "protocol_errors",
    "stalls",
    "elo",
    "elo_lower95",
    "elo_upper95",
    "los_next",
];

fn csv(standings: &Standings) -> String {
    let mut out = CSV_HEADERS.join(",");
    out.push('\n');
    for row in &standings.bots {
        let f = &row.forfeits;
        let rating = row.rating.as_ref();
        let fields = [
            row.rank.to_string(),
            csv_field(&row.bot),
            row.games.to_string(),
            row.wins.to_string(),
            row.draws.to_string(),
            row.losses.to_string(),
            row.points.to_string(),
            row.score_pct.map(|v| format!("{v:.2}")).unwrap_or_default(),
            row.pahtum_for.map(|v| format!("{v:.2}")).unwrap_or_default(),
            row.pahtum_against.map(|v| format!("{v:.2}")).unwrap_or_default(),
            f.timeout.to_string(),
            f.crash.to_string(),
            f.illegal_move.to_string(),
            f.protocol_error.to_string(),
            f.stall.to_string(),
            rating.map(|r| format!("{:.2}", r.elo)).unwrap_or_default(),
            rating.map(|r| format!("{:.2}", r.lower)).unwrap_or_default(),
            rating.map(|r| format!("{:.2}", r.upper)).unwrap_or_default(),
            rating
                .and_then(|r| r.los_next)
                .map(|los| format!("{los:.4}"))
                .unwrap_or_default(),
        ];
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

fn decimal(value: Option<f64>) -> String {
    value.map(|v| format!("{v:.1}")).unwrap_or_else(|| "-".to_owned())
}

#[cfg(test)]
mod tests {
    use pahtum::Seat;
    use pahtum_protocol::Reason;

    use super::*;
    use pahtum_standings::standings::standings;
    use pahtum_standings::strength::AnchorSpec;
    use pahtum_tournament::testing::{forfeited, record, scored, swapped};

    fn sample() -> Standings {
        let records = [
            record("000-00-a", "alpha", "beta"),
            swapped(record("000-00-b", "beta", "alpha")),
            scored(record("001-00-a", "alpha", "gamma"), 12, 12),
            forfeited(record("001-00-b", "gamma", "alpha"), Seat::First, Reason::Timeout),
            scored(record("002-00-a", "beta", "gamma"), 3, 25),
            forfeited(record("002-00-b", "gamma", "beta"), Seat::Second, Reason::Disconnect),
            record("000-01-a", "alpha", "beta"),
            scored(record("000-01-b", "beta", "alpha"), 7, 7),
            record("001-01-a", "alpha", "gamma"),
            record("001-01-b", "gamma", "alpha"),
            swapped(record("002-01-a", "beta", "gamma")), // its seat-swapped partner was not played
        ];
        standings(&records, &bots(), None).unwrap()
    }

    fn bots() -> Vec<String> {
        ["alpha", "beta", "gamma", "idle"].map(String::from).to_vec()
    }

    #[test]
    fn terminal_table() {
        insta::assert_snapshot!(render(&sample(), Format::Table, Fit::width(80)));
    }

    #[test]
    fn markdown_document() {
        insta::assert_snapshot!(render(&sample(), Format::Markdown, Fit::WIDE));
    }

    #[test]
    fn anchored_ratings_are_unsigned() {
        let records = [
            record("000-00-a", "alpha", "beta"),
            scored(record("000-00-b", "beta", "alpha"), 4, 4),
        ];
        let anchor: AnchorSpec = "beta=1500".parse().unwrap();
        insta::assert_snapshot!(render(
            &standings(&records, &bots(), Some(&anchor)).unwrap(),
            Format::Table,
            Fit::width(80)
        ));
    }

    #[test]
    fn a_pool_that_never_met_is_named_instead_of_rated() {
        let records = [record("000-00-a", "alpha", "beta"), record("001-00-a", "gamma", "idle")];
        insta::assert_snapshot!(render(
            &standings(&records, &bots(), None).unwrap(),
            Format::Markdown,
            Fit::WIDE
        ));
    }

    #[test]
    fn csv_rows() {
        insta::assert_snapshot!(render(&sample(), Format::Csv, Fit::WIDE));
    }

    #[test]
    fn json_round_trips() {
        let standings = sample();
        let json = render(&standings, Format::Json, Fit::WIDE);
        assert_eq!(serde_json::from_str::<Standings>(&json).unwrap(), standings);
        insta::assert_snapshot!(json);
    }

    #[test]
    fn schedule_for_a_dry_run() {
        let games = pahtum_tournament::schedule::schedule(&pahtum_tournament::testing::tournament());
        insta::assert_snapshot!(schedule_table(&games));
    }

    #[test]
    fn formats_parse_by_name() {
        for format in Format::ALL {
            assert_eq!(format.name().parse::<Format>(), Ok(format));
        }
        assert!("html".parse::<Format>().is_err());
    }

    #[test]
    fn csv_quotes_awkward_fields() {
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
    }
}
