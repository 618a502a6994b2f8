//! The HTML report: one self-contained page per run, match or game, with a replay viewer.
//!
//! A person opens it in a browser, offline, from `file://`, on a desktop or a
//! phone: the CSS, the script and the data are inline, and the board is SVG
//! drawn by the script, so the page needs no network. It is built from the
//! journal alone, like every other report.
//!
//! Much of what it shows was written by bots (names, `info` comments and
//! pvs, offending lines, stderr tails), so nothing a bot wrote reaches the page
//! unescaped: the template engine, [minijinja], escapes every value of an
//! `.html` template automatically (chosen over askama because it is a small,
//! well-kept crate by the author of Jinja itself that renders from serde data,
//! which the report has anyway, and needs no proc-macro build step); the games
//! are embedded as JSON in a `<script type="application/json">` element with
//! `<`, `>`, `&`, U+2028 and U+2029 written as `\u` escapes ([`script_json`]),
//! so that no text can close the element or start a comment; and the script
//! puts text on the page only as text (`textContent`), never as markup.
//!
//! For a large journal, the replays of at most [`Options::max_replays`] games,
//! and about [`Options::replay_bytes`] of them, are embedded: every forfeit,
//! and a deterministic sample of the rest (see [`data::sample`]); the page says
//! how many. The byte budget keeps a 10,000-game report under 8 MB even when
//! the bots send long `info` with every move.

pub mod data;

use minijinja::{Environment, Value, context};
use pahtum_record::GameRecord;
use pahtum_tournament::report::JournalResults;
use serde::Serialize;

use self::data::{GameRow, Games, Tables, sample};

/// How the report is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// The most replays embedded (every forfeit is, even beyond it).
    pub max_replays: usize,
    /// The most bytes of replays embedded, as JSON (every forfeit is, even beyond it).
    pub replay_bytes: usize,
}

/// The default bound on embedded replays: a 10,000-game journal has all of its replays, if they fit in
/// [`DEFAULT_REPLAY_BYTES`].
pub const DEFAULT_MAX_REPLAYS: usize = 10_000;

/// The default budget of the replays: with the game list and the tables, a page of at most 8 MB.
pub const DEFAULT_REPLAY_BYTES: usize = 5_500_000;

impl Default for Options {
    fn default() -> Options {
        Options {
            max_replays: DEFAULT_MAX_REPLAYS,
            replay_bytes: DEFAULT_REPLAY_BYTES,
        }
    }
}

const TEMPLATE: &str = include_str!("report.html");
const STYLE: &str = include_str!("report.css");
const SCRIPT: &str = include_str!("viewer.js");

/// The report of a tournament or match journal.
pub fn report(results: &JournalResults, options: Options) -> String {
    let plan = &results.plan;
    let mut records: Vec<&GameRecord> = plan.done.iter().collect();
    records.sort_by(|a, b| a.id.cmp(&b.id));
    let mut games = Games::new(records.iter().map(|record| GameRow::of(record)).collect());
    let mut bytes = 0;
    for record in sample(&plan.done, options.max_replays) {
        if record.termination.forfeit.is_none() && bytes >= options.replay_bytes {
            break;
        }
        bytes += games.embed(record);
    }
    let replays_note = (games.replays.len() < records.len()).then(|| {
        format!(
            "The replays of {} of the {} games are embedded: every forfeit, and a sample of the rest chosen by \
             game id (the same each time), at most {} games and about {:.1} MB. Make the report with a higher \
             --max-replays to embed more games.",
            games.replays.len(),
            records.len(),
            options.max_replays,
            options.replay_bytes as f64 / 1e6
        )
    });
    let played = format!("{} of {} games played", plan.done.len(), plan.scheduled);
    page(
        &format!("{}: Pah Tum tournament", plan.tournament.name),
        &played,
        Some(Tables::of(&results.standings)),
        replays_note,
        &games,
    )
}

/// The page of one game: the viewer alone.
pub fn game_page(record: &GameRecord) -> String {
    let mut games = Games::new(vec![GameRow::of(record)]);
    games.embed(record);
    let summary = format!("{} (White) against {} (Black)", record.white, record.black);
    page("Pah Tum game", &summary, None, None, &games)
}

fn page(title: &str, summary: &str, tables: Option<Tables>, replays_note: Option<String>, games: &Games) -> String {
    let mut environment = Environment::new();
    environment
        .add_template("report.html", TEMPLATE)
        .expect("the report template is valid");
    let template = environment.get_template("report.html").expect("added above");
    template
        .render(context! {
            title,
            summary,
            tables,
            replays_note,
            style => Value::from_safe_string(STYLE.to_owned()),
            script => Value::from_safe_string(SCRIPT.to_owned()),
            data => Value::from_safe_string(script_json(games)),
        })
        .expect("the report template renders")
}

/// `value` as JSON that can stand inside a `<script>` element: `<`, `>` and `&` (so no `</script>` or `<!--`),
/// and the line separators U+2028 and U+2029 are written as `\u` escapes, which JSON reads as the same text.
pub fn script_json(value: &impl Serialize) -> String {
    let json = serde_json::to_string(value).expect("report data serializes");
    let mut out = String::with_capacity(json.len() + json.len() / 16);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
