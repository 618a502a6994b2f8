//! A league's ladder as text: the active entrants and the retired apart,
//! each with its rating, 95% interval, games, score and content hash; each
//! bot's versions with the change from one to the next; a Swiss's standings
//! with their tie-breaks, a final's prize places; and, under them, the
//! standings of every game as `arena standings` prints them (crosstable, LOS
//! and pair tables). JSON holds the whole [`Table`].
//!
//! Plain functions of a [`Table`] with every figure written to a fixed
//! precision, so that the same journal prints the same bytes.

use std::fmt::Write;

use pahtum_league::knockout::{Bracket, Decision, Side};
use pahtum_league::separation::{Boundary, boundaries};
use pahtum_league::swiss::Standing;
use pahtum_league::table::{Change, Row, Table};

use crate::fit::Fit;
use crate::render::{Format, render};
use crate::strength_render::elo;
use crate::table::{TableStyle, build, percent};

/// The characters of a content hash shown (after `sha256:`).
const HASH_SHOWN: usize = 12;

/// The ladder of `table` in `format` (CSV: the entrants' rows only), the standings of every game under it
/// fitted as `fit` says ([`crate::fit`]).
pub fn render_table(table: &Table, format: Format, fit: Fit) -> String {
    let style = match format {
        Format::Json => {
            let mut json = serde_json::to_string_pretty(table).expect("a table serializes");
            json.push('\n');
            return json;
        }
        Format::Csv => return csv(table),
        Format::Markdown => TableStyle::Markdown,
        Format::Table => TableStyle::Terminal,
    };
    let mut text = summary(table) + "\n";
    for (title, rows) in [("Active", &table.active), ("Retired", &table.retired)] {
        if rows.is_empty() {
            continue;
        }
        let rows = entrant_rows(rows, plays_to_precision(table));
        write!(text, "\n{title}\n{}\n", build(rows, style)).unwrap();
    }
    if let Some(swiss) = &table.swiss {
        write!(
            text,
            "\nSwiss standings ({SWISS_NOTE})\n{}\n",
            build(swiss_rows(&swiss.rows), style)
        )
        .unwrap();
    }
    if let Some(bracket) = &table.knockout {
        write!(
            text,
            "\nBracket ({})\n{}\n",
            bracket_note(bracket),
            build(bracket_rows(bracket), style)
        )
        .unwrap();
    }
    if let Some(rule) = &table.separate {
        let found = boundaries(table, rule);
        write!(
            text,
            "\nPrize places (apart when the upper's LOS is at least {}%)\n{}\n",
            f64::from(rule.confidence_permille) / 10.0,
            build(boundary_rows(&found), style)
        )
        .unwrap();
    }
    if !table.versions.is_empty() {
        write!(text, "\nVersions\n{}\n", build(version_rows(&table.versions), style)).unwrap();
    }
    write!(text, "\nEvery game\n{}", render(&table.standings, format, fit)).unwrap();
    text
}

/// The first line of the ladder: the league, its games and rounds, and its target.
pub fn summary(table: &Table) -> String {
    if let Some(rule) = &table.separate {
        return format!(
            "Final {}: {} games in {} rounds; its top {} places are played until each is apart from the next at a \
             LOS of {}%, or {} games",
            table.league,
            table.games,
            table.rounds,
            rule.places,
            f64::from(rule.confidence_permille) / 10.0,
            rule.max_games
        );
    }
    if let Some(bracket) = &table.knockout {
        let state = match (&bracket.champion, bracket.waiting.is_empty()) {
            (Some(champion), _) => format!("{champion} won the final"),
            (None, false) => format!("waiting for {} seed(s) to join", bracket.waiting.len()),
            (None, true) => format!("stage {} of {} in play", bracket.stages.len(), stages(bracket)),
        };
        return format!(
            "Knockout {}: {} games in {} rounds; {state}; the ratings are the joint fit of every game",
            table.league, table.games, table.rounds
        );
    }
    if let Some(swiss) = &table.swiss {
        return format!(
            "Swiss {}: {} games in {} of {} rounds; the Swiss standings rank by score, the ratings are the joint \
             fit of every game",
            table.league, table.games, table.rounds, swiss.rule.rounds
        );
    }
    format!(
        "League {}: {} games in {} rounds; each active entrant is played to a 95% interval of ±{} Elo",
        table.league, table.games, table.rounds, table.precision_elo
    )
}

/// Whether the league of `table` plays each entrant to a precision (not a final, a Swiss or a knockout), so
/// that its rows say whether each entrant is settled.
pub fn plays_to_precision(table: &Table) -> bool {
    table.separate.is_none() && table.swiss.is_none() && table.knockout.is_none()
}

/// The cells of the entrants `rows` (active or retired), ranked from 1, after a header; with `settled`,
/// whether each is as precise as the league's target.
pub fn entrant_rows(rows: &[Row], settled: bool) -> impl Iterator<Item = Vec<String>> + '_ {
    let header = [
        "#",
        "entrant",
        "Elo",
        "95% interval",
        "games",
        "score",
        "settled",
        "hash",
    ];
    let header: Vec<String> = header
        .into_iter()
        .filter(|&column| settled || column != "settled")
        .map(str::to_owned)
        .collect();
    std::iter::once(header).chain(
        rows.iter()
            .enumerate()
            .map(move |(rank, row)| row_cells(rank + 1, row, settled)),
    )
}

/// The cells of a final's prize boundaries, after a header: places not apart are tied.
pub fn boundary_rows(found: &[Boundary]) -> impl Iterator<Item = Vec<String>> + '_ {
    let header = ["places", "upper", "lower", "LOS", "apart"];
    std::iter::once(header.map(str::to_owned).to_vec()).chain(found.iter().map(|boundary| {
        vec![
            format!("{} and {}", boundary.place, boundary.place + 1),
            boundary.above.clone(),
            boundary.below.clone(),
            percent(boundary.los.map(|los| 100.0 * los)),
            if boundary.apart { "yes" } else { "no: tied" }.to_owned(),
        ]
    }))
}

/// The stages of the bracket of `bracket`'s field: one for each halving down to the final.
fn stages(bracket: &Bracket) -> u32 {
    bracket.rule.seeds.len().next_power_of_two().trailing_zeros()
}

/// How a knockout's matches are decided, in words.
pub fn bracket_note(bracket: &Bracket) -> String {
    format!(
        "each match {} layout pair(s), the more game points going on; level, one more pair at a time up to {}, \
         then the higher seed",
        bracket.rule.pairs, bracket.rule.max_pairs
    )
}

/// The cells of a knockout's bracket, after a header: each match of each stage known so far, in bracket
/// order.
pub fn bracket_rows(bracket: &Bracket) -> impl Iterator<Item = Vec<String>> + '_ {
    let header = ["stage", "upper", "points", "lower", "points", "pairs", "goes on", "by"];
    let total = stages(bracket);
    std::iter::once(header.map(str::to_owned).to_vec()).chain(bracket.stages.iter().enumerate().flat_map(
        move |(index, stage)| {
            let name = stage_name(index as u32, total);
            stage.iter().map(move |found| {
                let side = |side: &Side| format!("({}) {}", side.seed, side.entrant);
                let lower = found.lower.as_ref();
                vec![
                    name.clone(),
                    side(&found.upper),
                    lower.map_or_else(String::new, |_| format!("{:.1}", found.upper.points)),
                    lower.map_or_else(|| "bye".to_owned(), side),
                    lower.map_or_else(String::new, |lower| format!("{:.1}", lower.points)),
                    found.pairs.to_string(),
                    found.winner.clone().unwrap_or_else(|| "-".to_owned()),
                    match found.decision {
                        None => "in play",
                        Some(Decision::Bye) => "bye",
                        Some(Decision::Retired) => "retirement",
                        Some(Decision::Points) => "points",
                        Some(Decision::Seed) => "seed (level)",
                    }
                    .to_owned(),
                ]
            })
        },
    ))
}

/// The name of stage `index` (from 0) of `total`: the final, the semi-finals, the quarter-finals, else its
/// number.
fn stage_name(index: u32, total: u32) -> String {
    match total - index {
        1 => "final".to_owned(),
        2 => "semi-final".to_owned(),
        3 => "quarter-final".to_owned(),
        _ => format!("stage {}", index + 1),
    }
}

/// How a Swiss's standings rank, in words.
pub const SWISS_NOTE: &str = "by score (game points, a bye 2), then Buchholz (the opponents' scores), then \
                              Sonneborn-Berger (each opponent's score times the share of its points taken)";

/// The cells of a Swiss's standings, after a header: entrants that share a rank share its number.
pub fn swiss_rows(rows: &[Standing]) -> impl Iterator<Item = Vec<String>> + '_ {
    let header = ["#", "entrant", "score", "byes", "Buchholz", "Sonneborn-Berger"];
    std::iter::once(header.map(str::to_owned).to_vec()).chain(rows.iter().map(|row| {
        vec![
            row.rank.to_string(),
            row.entrant.clone(),
            format!("{:.1}", row.score),
            row.byes.to_string(),
            format!("{:.1}", row.buchholz),
            format!("{:.2}", row.sonneborn_berger),
        ]
    }))
}

/// The cells of the changes between versions, after a header.
pub fn version_rows(changes: &[Change]) -> impl Iterator<Item = Vec<String>> + '_ {
    let header = ["bot", "from", "to", "change", "±95%", "LOS"];
    std::iter::once(header.map(str::to_owned).to_vec()).chain(changes.iter().map(change_cells))
}

fn row_cells(rank: usize, row: &Row, settled: bool) -> Vec<String> {
    let dash = || "-".to_owned();
    let hash = row.hash.strip_prefix("sha256:").unwrap_or(&row.hash);
    let mut cells = vec![
        row.elo.map_or_else(dash, |_| rank.to_string()),
        row.entrant.clone(),
        row.elo.map_or_else(dash, |value| elo(value, true)),
        row.lower.zip(row.upper).map_or_else(dash, |(lower, upper)| {
            format!("[{}, {}]", elo(lower, true), elo(upper, true))
        }),
        row.games.to_string(),
        percent(row.score_pct),
        if row.settled { "yes" } else { "no" }.to_owned(),
        hash[..HASH_SHOWN.min(hash.len())].to_owned(),
    ];
    if !settled {
        cells.remove(6);
    }
    cells
}

fn change_cells(change: &Change) -> Vec<String> {
    let dash = || "-".to_owned();
    vec![
        change.bot.clone(),
        change.from.clone(),
        change.to.clone(),
        change.elo.map_or_else(dash, |value| elo(value, true)),
        change.error95.map_or_else(dash, |value| elo(value, false)),
        percent(change.los.map(|los| 100.0 * los)),
    ]
}

fn csv(table: &Table) -> String {
    let mut text = String::from("status,entrant,elo,lower,upper,games,score_pct,settled,hash\n");
    let number = |value: Option<f64>| value.map(|value| format!("{value:.1}")).unwrap_or_default();
    for (status, rows) in [("active", &table.active), ("retired", &table.retired)] {
        for row in rows {
            writeln!(
                text,
                "{status},{},{},{},{},{},{},{},{}",
                row.entrant,
                number(row.elo),
                number(row.lower),
                number(row.upper),
                row.games,
                number(row.score_pct),
                row.settled,
                row.hash
            )
            .unwrap();
        }
    }
    text
}
