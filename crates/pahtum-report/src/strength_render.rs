//! The strength parts of the standings as text: the rating note, the LOS matrix and the pair table.
//!
//! [`crate::render`] puts them together with the standings (whose rows carry
//! each bot's Elo, interval and LOS over the next row) in every format; this
//! module holds the pieces that belong to the ratings, each with the note a
//! reader needs to trust it: which pool the ratings are relative to, the groups
//! that never met, the bots without games, and the games left out of the
//! pentanomial counts. [`pairs_csv`] is the pair table's own CSV file.

use std::fmt::Write;

use pahtum_standings::strength::{LosMatrix, PairStrength, Ratings, Strength};

use crate::table::{TableStyle, build, csv_field, percent, points};

/// What the Elo columns mean, or why there are none; then the bots without games.
pub(crate) fn rating_note(strength: &Strength) -> String {
    let mut note = match &strength.ratings {
        Ratings::Fitted { .. } => {
            let model = &strength.rating_model;
            let scale = match &model.anchor {
                None => "relative to the pool's average".to_owned(),
                Some(anchor) => format!("with {} fixed at {}", anchor.bot, elo(anchor.elo, false)),
            };
            format!(
                "Elo {scale}, fitted to every game jointly (a draw counts half, a forfeit is a loss), with {} \
                 virtual draws per bot against the pool's average; 95% profile-likelihood intervals; LOS next: \
                 the likelihood that the bot is stronger than the one on the next row.",
                points(model.prior_draws)
            )
        }
        Ratings::Disconnected { groups } => {
            let groups: Vec<String> = groups.iter().map(|group| format!("{{{}}}", group.join(", "))).collect();
            format!(
                "No Elo: the bots fall into groups that never met, so their strengths cannot be compared: {}. \
                 Play games between the groups to rate them together.",
                groups.join(", ")
            )
        }
        Ratings::NoGames => "No Elo: no game has been played.".to_owned(),
    };
    if !strength.unrated.is_empty() {
        write!(note, " Not rated (no games yet): {}.", strength.unrated.join(", ")).unwrap();
    }
    note
}

/// An Elo figure with one decimal, signed when it is relative to the pool (never `-0.0`).
pub(crate) fn elo(value: f64, signed: bool) -> String {
    let value = (value * 10.0).round() / 10.0 + 0.0;
    if signed {
        format!("{value:+.1}")
    } else {
        format!("{value:.1}")
    }
}

/// The likelihood-of-superiority matrix, when there are more than two rated bots (with two, the
/// standings' LOS column says it all).
pub(crate) fn los_table(strength: &Strength, style: TableStyle) -> Option<String> {
    los_rows(strength).map(|rows| build(rows, style))
}

pub(crate) const LOS_NOTE: &str =
    "The likelihood that the row's bot is stronger than the column's (rows and columns by Elo).";

/// The rows of the LOS table (the first is the header), when there is one (see [`los_table`]).
pub(crate) fn los_rows(strength: &Strength) -> Option<Vec<Vec<String>>> {
    match &strength.ratings {
        Ratings::Fitted { los, .. } if los.bots.len() > 2 => Some(los_matrix_rows(los)),
        _ => None,
    }
}

fn los_matrix_rows(los: &LosMatrix) -> Vec<Vec<String>> {
    let mut header = vec!["#".to_owned(), "bot".to_owned()];
    header.extend((1..=los.bots.len()).map(|n| n.to_string()));
    let rows = los.bots.iter().enumerate().map(|(i, bot)| {
        let mut row = vec![(i + 1).to_string(), bot.clone()];
        row.extend(los.values[i].iter().enumerate().map(|(j, &value)| {
            if i == j {
                "·".to_owned()
            } else {
                percent(Some(100.0 * value))
            }
        }));
        row
    });
    std::iter::once(header).chain(rows).collect()
}

/// The pair table, if any two bots met.
pub(crate) fn pairs_table(strength: &Strength, style: TableStyle) -> Option<String> {
    pairs_rows(strength).map(|rows| build(rows, style))
}

/// The rows of the pair table (the first is the header), if any two bots met.
pub(crate) fn pairs_rows(strength: &Strength) -> Option<Vec<Vec<String>>> {
    (!strength.pairs.is_empty()).then(|| pair_rows(&strength.pairs))
}

const PAIR_HEADERS: [&str; 8] = [
    "first",
    "second",
    "games",
    "points",
    "layout pairs 0/½/1/1½/2",
    "Elo",
    "nElo",
    "unpaired",
];

fn pair_rows(pairs: &[PairStrength]) -> Vec<Vec<String>> {
    let rows = pairs.iter().map(|pair| {
        let missing = if same_score_throughout(pair) { "n/a" } else { "-" };
        let pentanomial: Vec<String> = pair.pentanomial.iter().map(u64::to_string).collect();
        vec![
            pair.first.clone(),
            pair.second.clone(),
            pair.games.to_string(),
            format!("{}/{}", points(pair.points), pair.games),
            pentanomial.join(" "),
            pair.elo.map_or_else(
                || missing.to_owned(),
                |e| format!("{} ± {:.1}", elo(e.elo, true), e.error95),
            ),
            pair.elo.map_or_else(
                || missing.to_owned(),
                |e| format!("{} ± {:.1}", elo(e.nelo, true), e.nelo_error95),
            ),
            pair.unpaired_games.to_string(),
        ]
    });
    std::iter::once(PAIR_HEADERS.map(String::from).to_vec())
        .chain(rows)
        .collect()
}

/// What the pair table's columns mean, and what it leaves out.
pub(crate) fn pairs_note(strength: &Strength) -> String {
    let mut note = "Layout pairs: the two games of one layout with the seats swapped, scored 0, ½, 1, 1½ or 2 by \
                    the first bot; Elo and normalized Elo of the first bot over the second, with their 95% errors \
                    from the layout pairs."
        .to_owned();
    if strength.pairs.iter().any(same_score_throughout) {
        note.push_str(
            " n/a: every layout pair had the same score, so there is no spread to measure the error with \
             (the Elo column of the standings still counts these games).",
        );
    }
    if strength.unpaired_games > 0 {
        write!(
            note,
            " Left out of the layout pairs, but counted in the Elo column: {} game(s) without their \
             seat-swapped partner.",
            strength.unpaired_games
        )
        .unwrap();
    }
    note
}

/// Layout pairs were played, but all scored the same, so the pair has no Elo estimate.
fn same_score_throughout(pair: &PairStrength) -> bool {
    pair.elo.is_none() && pair.pentanomial.iter().any(|&count| count > 0)
}

const PAIRS_CSV_HEADERS: &str = "first,second,games,points,pairs_0,pairs_0.5,pairs_1,pairs_1.5,pairs_2,\
                                 elo,elo_error95,nelo,nelo_error95,unpaired_games";

/// The pair table as CSV, one row per pair of bots that met.
pub fn pairs_csv(strength: &Strength) -> String {
    let mut out = format!("{PAIRS_CSV_HEADERS}\n");
    for pair in &strength.pairs {
        let mut fields = vec![
            csv_field(&pair.first),
            csv_field(&pair.second),
            pair.games.to_string(),
            pair.points.to_string(),
        ];
        fields.extend(pair.pentanomial.iter().map(u64::to_string));
        match pair.elo {
            Some(e) => fields.extend([
                format!("{:.2}", e.elo),
                format!("{:.2}", e.error95),
                format!("{:.2}", e.nelo),
                format!("{:.2}", e.nelo_error95),
            ]),
            None => fields.extend(std::iter::repeat_n(String::new(), 4)),
        }
        fields.push(pair.unpaired_games.to_string());
        writeln!(out, "{}", fields.join(",")).unwrap();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pahtum_record::GameRecord;
    use pahtum_standings::standings::standings;
    use pahtum_tournament::testing::{record, scored, swapped};

    fn bots() -> Vec<String> {
        ["alpha", "beta", "gamma", "idle"].map(String::from).to_vec()
    }

    fn strength(records: &[GameRecord]) -> Strength {
        standings(records, &bots(), None).unwrap().strength
    }

    #[test]
    fn pairs_csv_has_a_row_per_pair() {
        let records = [
            record("000-00-a", "alpha", "beta"),
            swapped(record("000-00-b", "beta", "alpha")),
            scored(record("000-01-a", "alpha", "beta"), 4, 4),
            record("000-01-b", "beta", "alpha"),
            record("001-00-a", "alpha", "gamma"),
        ];
        insta::assert_snapshot!(pairs_csv(&strength(&records)));
    }

    #[test]
    fn groups_that_never_met_are_named_instead_of_rated() {
        let records = [record("000-00-a", "alpha", "beta"), record("001-00-a", "gamma", "idle")];
        let strength = strength(&records);
        assert_eq!(
            rating_note(&strength),
            "No Elo: the bots fall into groups that never met, so their strengths cannot be compared: \
             {alpha, beta}, {gamma, idle}. Play games between the groups to rate them together."
        );
        assert_eq!(los_table(&strength, TableStyle::Terminal), None);
    }

    #[test]
    fn elo_figures_never_show_minus_zero() {
        assert_eq!(elo(-0.01, true), "+0.0");
        assert_eq!(elo(-12.34, true), "-12.3");
        assert_eq!(elo(1500.0, false), "1500.0");
    }
}
