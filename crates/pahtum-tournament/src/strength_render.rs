//! Strength tables as text: a terminal table, Markdown, CSV and JSON.
//!
//! Plain functions of a [`Strength`], snapshot-tested like [`crate::render`].
//! The terminal and Markdown forms hold the ratings (Elo, 95% interval, LOS over
//! the next bot down), the likelihood-of-superiority matrix and the pair table,
//! each followed by the notes a reader needs to trust them: which pool the
//! ratings are relative to, the groups that never met, the bots without games,
//! and the games left out of the pentanomial counts. CSV is one table per file:
//! [`render`] gives the ratings, [`pairs_csv`] the pairs. JSON holds everything,
//! in the schema documented in [`crate::strength`].

use std::fmt::Write;

use tabled::builder::Builder;
use tabled::settings::object::{Columns, Rows};
use tabled::settings::{Alignment, Style};

use crate::render::Format;
use crate::strength::{BotRating, LosMatrix, PairStrength, Ratings, Strength};

/// `strength` in `format`, ending with a newline; CSV gives the ratings only (see [`pairs_csv`]).
pub fn render(strength: &Strength, format: Format) -> String {
    match format {
        Format::Table => document(strength, Layout::Terminal),
        Format::Markdown => document(strength, Layout::Markdown),
        Format::Csv => ratings_csv(strength),
        Format::Json => {
            let mut json = serde_json::to_string_pretty(strength).expect("strength serializes");
            json.push('\n');
            json
        }
    }
}

/// The two text layouts of the tables.
#[derive(Clone, Copy)]
enum Layout {
    Terminal,
    Markdown,
}

impl Layout {
    /// A section title, with the blank lines the layout needs around it.
    fn heading(self, title: &str) -> String {
        match self {
            Layout::Terminal => format!("\n{title}\n"),
            Layout::Markdown => format!("\n## {title}\n\n"),
        }
    }
}

/// The three tables and their notes.
fn document(strength: &Strength, layout: Layout) -> String {
    let mut out = String::new();
    let signed = strength.model.anchor.is_none();
    out.push_str(layout.heading("Ratings").trim_start());
    match &strength.ratings {
        Ratings::Fitted { bots, los } => {
            writeln!(out, "{}\n", build(rating_rows(bots, signed), layout)).unwrap();
            writeln!(out, "{}", model_note(strength)).unwrap();
            out.push_str(&layout.heading("Likelihood of superiority"));
            writeln!(out, "{}\n", build(los_rows(los), layout)).unwrap();
            writeln!(
                out,
                "The likelihood that the row's bot is stronger than the column's (columns by rank)."
            )
            .unwrap();
        }
        Ratings::Disconnected { groups } => {
            let groups: Vec<String> = groups.iter().map(|group| format!("{{{}}}", group.join(", "))).collect();
            writeln!(
                out,
                "No ratings: the bots fall into groups that never met, so their strengths cannot be compared: {}. \
                 Play games between the groups to rate them together.",
                groups.join(", ")
            )
            .unwrap();
        }
        Ratings::NoGames => writeln!(out, "No ratings: no game has been played.").unwrap(),
    }
    if !strength.unrated.is_empty() {
        writeln!(out, "Not rated (no games yet): {}.", strength.unrated.join(", ")).unwrap();
    }
    if !strength.pairs.is_empty() {
        out.push_str(&layout.heading("Pairs"));
        writeln!(out, "{}\n", build(pair_rows(&strength.pairs), layout)).unwrap();
        writeln!(out, "{}", pairs_note(strength)).unwrap();
    }
    out
}

fn model_note(strength: &Strength) -> String {
    let scale = match &strength.model.anchor {
        None => "relative to the pool's average".to_owned(),
        Some(anchor) => format!("with {} fixed at {}", anchor.bot, elo(anchor.elo, false)),
    };
    format!(
        "Elo {scale}, fitted to every game jointly (a draw counts half, a forfeit is a loss), \
         with {} virtual draws per bot against the pool's average; 95% profile-likelihood intervals; \
         LOS: the likelihood that the bot is stronger than the next one down.",
        points(strength.model.prior_draws)
    )
}

fn pairs_note(strength: &Strength) -> String {
    let mut note = "Layout pairs: the two games of one layout with the seats swapped, scored 0, ½, 1, 1½ or 2 by \
                    the first bot; Elo and normalized Elo of the first bot over the second, with their 95% errors \
                    from the layout pairs."
        .to_owned();
    if strength.pairs.iter().any(same_score_throughout) {
        note.push_str(
            " n/a: every layout pair had the same score, so there is no spread to measure the error with \
             (the ratings above still count these games).",
        );
    }
    if strength.unpaired_games > 0 {
        write!(
            note,
            " Left out of the layout pairs, but counted in the ratings: {} game(s) without their \
             seat-swapped partner.",
            strength.unpaired_games
        )
        .unwrap();
    }
    note
}

const RATING_HEADERS: [&str; 7] = ["#", "bot", "games", "points", "Elo", "95% interval", "LOS next"];

fn rating_rows(bots: &[BotRating], signed: bool) -> Vec<Vec<String>> {
    let rows = bots.iter().map(|bot| {
        vec![
            bot.rank.to_string(),
            bot.bot.clone(),
            bot.games.to_string(),
            points(bot.points),
            elo(bot.elo, signed),
            format!("[{}, {}]", elo(bot.lower, signed), elo(bot.upper, signed)),
            bot.los_next.map_or_else(|| "-".to_owned(), percent),
        ]
    });
    std::iter::once(RATING_HEADERS.map(String::from).to_vec())
        .chain(rows)
        .collect()
}

fn los_rows(los: &LosMatrix) -> Vec<Vec<String>> {
    let mut header = vec!["#".to_owned(), "bot".to_owned()];
    header.extend((1..=los.bots.len()).map(|n| n.to_string()));
    let rows = los.bots.iter().enumerate().map(|(i, bot)| {
        let mut row = vec![(i + 1).to_string(), bot.clone()];
        row.extend(
            los.values[i]
                .iter()
                .enumerate()
                .map(|(j, &value)| if i == j { "·".to_owned() } else { percent(value) }),
        );
        row
    });
    std::iter::once(header).chain(rows).collect()
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

fn build(rows: Vec<Vec<String>>, layout: Layout) -> String {
    let mut builder = Builder::default();
    for row in rows {
        builder.push_record(row);
    }
    let mut table = builder.build();
    match layout {
        Layout::Terminal => table.with(Style::rounded()),
        Layout::Markdown => table.with(Style::markdown()),
    };
    table.modify(Columns::new(2..), Alignment::right());
    table.modify(Rows::first(), Alignment::center());
    table.to_string()
}

/// Layout pairs were played, but all scored the same, so the pair has no Elo estimate.
fn same_score_throughout(pair: &PairStrength) -> bool {
    pair.elo.is_none() && pair.pentanomial.iter().any(|&count| count > 0)
}

const RATINGS_CSV_HEADERS: &str = "rank,bot,games,points,elo,lower95,upper95,std_error,los_next";

fn ratings_csv(strength: &Strength) -> String {
    let mut out = format!("{RATINGS_CSV_HEADERS}\n");
    if let Ratings::Fitted { bots, .. } = &strength.ratings {
        for bot in bots {
            let fields = [
                bot.rank.to_string(),
                csv_field(&bot.bot),
                bot.games.to_string(),
                bot.points.to_string(),
                format!("{:.2}", bot.elo),
                format!("{:.2}", bot.lower),
                format!("{:.2}", bot.upper),
                format!("{:.2}", bot.std_error),
                bot.los_next.map(|los| format!("{los:.4}")).unwrap_or_default(),
            ];
            writeln!(out, "{}", fields.join(",")).unwrap();
        }
    }
    out
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

/// Bot names are plain (see [`crate::config`]), but quote defensively.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// An Elo figure with one decimal, signed when it is relative to the pool (never `-0.0`).
fn elo(value: f64, signed: bool) -> String {
    let value = (value * 10.0).round() / 10.0 + 0.0;
    if signed {
        format!("{value:+.1}")
    } else {
        format!("{value:.1}")
    }
}

fn points(points: f64) -> String {
    if points.fract() == 0.0 {
        format!("{points:.0}")
    } else {
        format!("{points:.1}")
    }
}

fn percent(value: f64) -> String {
    format!("{:.1}%", 100.0 * value)
}

#[cfg(test)]
mod tests {
    use pahtum::Seat;
    use pahtum_protocol::Reason;
    use pahtum_record::GameRecord;

    use super::*;
    use crate::strength::{AnchorSpec, strength};
    use crate::testing::{forfeited, record, scored, swapped};

    fn bots() -> Vec<String> {
        ["alpha", "beta", "gamma", "idle"].map(String::from).to_vec()
    }

    /// Three bots, two layout rounds each, one game of the last round missing.
    fn records() -> Vec<GameRecord> {
        vec![
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
            swapped(record("002-01-a", "beta", "gamma")),
        ]
    }

    fn sample() -> Strength {
        strength(&records(), &bots(), None).unwrap()
    }

    #[test]
    fn terminal_tables() {
        insta::assert_snapshot!(render(&sample(), Format::Table));
    }

    #[test]
    fn markdown_document() {
        insta::assert_snapshot!(render(&sample(), Format::Markdown));
    }

    #[test]
    fn anchored_ratings_are_unsigned() {
        let anchor: AnchorSpec = "beta=1500".parse().unwrap();
        let anchored = strength(&records(), &bots(), Some(&anchor)).unwrap();
        insta::assert_snapshot!(render(&anchored, Format::Table));
    }

    #[test]
    fn disconnected_pools_are_named_instead_of_rated() {
        let records = [record("000-00-a", "alpha", "beta"), record("001-00-a", "gamma", "idle")];
        let text = render(&strength(&records, &bots(), None).unwrap(), Format::Table);
        insta::assert_snapshot!(text);
    }

    #[test]
    fn csv_tables() {
        let strength = sample();
        insta::assert_snapshot!(format!("{}\n{}", render(&strength, Format::Csv), pairs_csv(&strength)));
    }

    #[test]
    fn json_round_trips() {
        let strength = sample();
        let json = render(&strength, Format::Json);
        assert_eq!(serde_json::from_str::<Strength>(&json).unwrap(), strength);
        insta::assert_snapshot!(json);
    }

    #[test]
    fn elo_figures_never_show_minus_zero() {
        assert_eq!(elo(-0.01, true), "+0.0");
        assert_eq!(elo(-12.34, true), "-12.3");
        assert_eq!(elo(1500.0, false), "1500.0");
    }
}
