//! The terminal's standings table, fitted to the terminal's width.
//!
//! The standings have 18 columns, about 170 characters wide, and a terminal often has 80: a wider table
//! wraps into a lattice nobody can read. So on a terminal the columns that rarely say anything show only
//! when they do, and when the table is still too wide the least important columns go, a group at a time,
//! in a fixed order ([`DROP_ORDER`]), so that the same standings at the same width always print the same
//! table, and a note under it names what was left out. A bot's name is never cut, even when the table
//! stays wider than the terminal. `--wide` ([`Fit::WIDE`]) shows every column; Markdown, CSV and JSON
//! always hold every column, since a file is not read through a terminal's window.
//!
//! The width is a plain number here: the command line finds it (`COLUMNS`, the terminal, else 80), so
//! that this stays a function of the standings and a width, snapshot-tested at any width.

use crate::table::{TableStyle, build, table};

/// How the terminal's standings table fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fit {
    /// The terminal's width, in columns (characters).
    pub width: usize,
    /// Every column, whatever the width and whatever they hold (`--wide`).
    pub wide: bool,
}

impl Fit {
    /// Every column (`--wide`, and the Markdown document).
    pub const WIDE: Fit = Fit {
        width: usize::MAX,
        wide: true,
    };

    /// The table fitted to `width` columns.
    pub fn width(width: usize) -> Fit {
        Fit { width, wide: false }
    }
}

/// The columns shown only when some bot's cell in them is not zero (or `-`): the average Pah Tum points
/// for and against (zero only where no game ended normally), and the forfeits by kind.
pub const RARE: [&str; 7] = ["for", "against", "timeouts", "crashes", "illegal", "protocol", "stalls"];

/// The groups of columns left out, first to last, while the table is wider than the terminal: the average
/// Pah Tum points for and against; the LOS over the next row (the LOS table below has it); the games, then
/// the score (the points say both); wins, draws and losses; the forfeits by kind; the Elo's interval; the
/// Elo; the points. The rank (`#`) and the bot's name always stay.
pub const DROP_ORDER: [&[&str]; 9] = [
    &["for", "against"],
    &["LOS next"],
    &["games"],
    &["score"],
    &["W", "D", "L"],
    &["timeouts", "crashes", "illegal", "protocol", "stalls"],
    &["95% interval"],
    &["Elo"],
    &["points"],
];

/// The standings table of `rows` (the first is the header) in `style`, fitted as `fit` says; then, when
/// columns were left out for the width, a line naming them.
pub(crate) fn standings_table(rows: Vec<Vec<String>>, style: TableStyle, fit: Fit) -> Vec<String> {
    if fit.wide {
        return vec![build(rows, style)];
    }
    let header = &rows[0];
    let mut shown: Vec<bool> = (0..header.len())
        .map(|column| !RARE.contains(&header[column].as_str()) || rows[1..].iter().any(|row| !is_zero(&row[column])))
        .collect();
    let mut left_out: Vec<&str> = Vec::new();
    let mut steps = DROP_ORDER.iter();
    let fitted = loop {
        let fitted = table(picked(&rows, &shown), style);
        if fitted.total_width() <= fit.width {
            break fitted;
        }
        let Some(group) = steps.next() else {
            break fitted;
        };
        for (column, name) in header.iter().enumerate() {
            if shown[column] && group.contains(&name.as_str()) {
                shown[column] = false;
                left_out.push(name);
            }
        }
    };
    let mut lines = vec![fitted.to_string()];
    if !left_out.is_empty() {
        lines.push(format!(
            "Left out to fit {} columns: {} (--wide shows every column).",
            fit.width,
            left_out.join(", ")
        ));
    }
    lines
}

/// Whether a cell says nothing: a count or an average of zero, or `-` (none).
fn is_zero(cell: &str) -> bool {
    cell == "-" || cell.parse::<f64>().is_ok_and(|value| value == 0.0)
}

/// The cells of `rows` in the `shown` columns.
fn picked(rows: &[Vec<String>], shown: &[bool]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|row| {
            row.iter()
                .zip(shown)
                .filter(|(_, shown)| **shown)
                .map(|(cell, _)| cell.clone())
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use pahtum::Seat;
    use pahtum_protocol::Reason;
    use pahtum_standings::standings::{Standings, standings};
    use pahtum_tournament::testing::{forfeited, record, scored, swapped};

    use super::*;
    use crate::render::standings_rows;

    /// Six games of three bots, one of them named at length, none forfeited.
    fn records() -> Vec<pahtum_record::GameRecord> {
        vec![
            record("000-00-a", "alpha", "a-rather-long-bot-name"),
            scored(swapped(record("000-00-b", "a-rather-long-bot-name", "alpha")), 12, 9),
            scored(record("001-00-a", "alpha", "gamma"), 8, 8),
            scored(record("001-00-b", "gamma", "alpha"), 4, 11),
            scored(record("002-00-a", "a-rather-long-bot-name", "gamma"), 3, 25),
            record("002-00-b", "gamma", "a-rather-long-bot-name"),
        ]
    }

    fn of(records: &[pahtum_record::GameRecord]) -> Standings {
        let bots = ["alpha", "a-rather-long-bot-name", "gamma"].map(String::from);
        standings(records, &bots, None).unwrap()
    }

    fn without_forfeits() -> Standings {
        of(&records())
    }

    /// [`without_forfeits`], but gamma's last game was lost on time.
    fn with_a_forfeit() -> Standings {
        let mut records = records();
        let last = records.pop().unwrap();
        records.push(forfeited(last, Seat::First, Reason::Timeout));
        of(&records)
    }

    fn text(standings: &Standings, fit: Fit) -> String {
        standings_table(standings_rows(standings).collect(), TableStyle::Terminal, fit).join("\n")
    }

    fn widest(text: &str) -> usize {
        text.lines()
            .filter(|line| !line.starts_with("Left out"))
            .map(|line| line.chars().count())
            .max()
            .unwrap()
    }

    #[test]
    fn without_forfeits_at_80_columns() {
        let text = text(&without_forfeits(), Fit::width(80));
        assert!(widest(&text) <= 80, "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn without_forfeits_at_200_columns() {
        insta::assert_snapshot!(text(&without_forfeits(), Fit::width(200)));
    }

    #[test]
    fn with_a_forfeit_at_80_columns() {
        let text = text(&with_a_forfeit(), Fit::width(80));
        assert!(widest(&text) <= 80, "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn with_a_forfeit_at_200_columns() {
        insta::assert_snapshot!(text(&with_a_forfeit(), Fit::width(200)));
    }

    #[test]
    fn with_a_forfeit_wide() {
        insta::assert_snapshot!(text(&with_a_forfeit(), Fit::WIDE));
    }

    /// Where no game ended normally, the points for and against say nothing, and do not show.
    #[test]
    fn for_and_against_show_only_after_a_game_that_ended_normally() {
        let forfeits = [forfeited(
            record("000-00-a", "alpha", "gamma"),
            Seat::First,
            Reason::Disconnect,
        )];
        let text = text(&of(&forfeits), Fit::width(200));
        let header = text.lines().nth(1).unwrap();
        assert!(
            header.contains("crashes") && !header.contains("against") && !header.contains("timeouts"),
            "{text}"
        );
    }

    /// A name wider than the terminal is shown whole: the table stays wider, with every other column gone.
    #[test]
    fn a_name_is_never_cut() {
        let name = "n".repeat(64);
        let bots = [name.clone(), "alpha".to_owned()];
        let standings = standings(&[record("000-00-a", &name, "alpha")], &bots, None).unwrap();
        let text = text(&standings, Fit::width(40));
        assert!(text.contains(&format!(" {name} ")), "{text}");
        assert_eq!(
            text.lines().nth(1).unwrap().split('│').count(),
            4,
            "only # and bot: {text}"
        );
    }

    /// Every column the rules name is a column of the standings, so that a renamed header cannot slip out
    /// of them.
    #[test]
    fn the_rules_name_columns_of_the_standings() {
        let header = standings_rows(&without_forfeits()).next().unwrap();
        for name in RARE.iter().chain(DROP_ORDER.iter().flat_map(|group| group.iter())) {
            assert!(header.iter().any(|column| column == name), "{name}");
        }
        let dropped: Vec<&str> = DROP_ORDER.concat();
        assert_eq!(
            dropped.len() + 2,
            header.len(),
            "every column but # and bot has its place"
        );
    }
}
