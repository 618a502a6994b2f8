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
//! The page is built while the records stream past ([`ReportBuilder`]), in
//! memory bounded by its options, not by the number of games: the standings
//! come counted already, and of the games only samples are kept (see
//! [`sample`]), chosen by a hash of the game id, so the page does not depend on
//! the order of the records (a merged journal of shards gives the page of an
//! unsharded run):
//!
//! * the game list: every game of a run of up to [`Options::max_listed`] games;
//!   of a longer one, that many forfeits and that many of the other games, every
//!   game with a replay among them, and the page says how many of how many it
//!   lists (the standings and the crosstable count every game);
//! * the replays: of about [`Options::replay_bytes`] of them, the forfeits first
//!   (beyond [`Options::max_replays`], but not beyond the list's bound), then
//!   the other games in what the forfeits leave, at most `max_replays` games in
//!   all; the page says how many. The byte budget keeps a 10,000-game report
//!   under 8 MB even when the bots send long `info` with every move, and the page
//!   of any journal about that size.

pub mod data;
pub mod sample;

use minijinja::{Environment, Value, context};
use pahtum_record::GameRecord;
use pahtum_tournament::standings::Standings;
use serde::Serialize;

use self::data::{GameRow, Games, Tables, WrittenReplay};
use self::sample::{Rank, Sample};

/// How the report is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// The most replays embedded (the forfeits' are, even beyond it).
    pub max_replays: usize,
    /// The most bytes of replays embedded, as JSON (at least one forfeit's, if there is one).
    pub replay_bytes: usize,
    /// The most forfeits listed, and the most other games listed (at least `max_replays` of each, so that
    /// every game with a replay is listed).
    pub max_listed: usize,
}

/// The default bound on embedded replays: a 10,000-game journal has all of its replays, if they fit in
/// [`DEFAULT_REPLAY_BYTES`].
pub const DEFAULT_MAX_REPLAYS: usize = 10_000;

/// The default budget of the replays: with the game list and the tables, a page of at most 8 MB.
pub const DEFAULT_REPLAY_BYTES: usize = 5_500_000;

impl Options {
    /// The bound on the forfeits listed and on the other games listed: never below `max_replays`.
    fn listed(&self) -> usize {
        self.max_listed.max(self.max_replays)
    }
}

/// The default bound on the game list: a 10,000-game journal has all of its games listed.
pub const DEFAULT_MAX_LISTED: usize = 10_000;

impl Default for Options {
    fn default() -> Options {
        Options {
            max_replays: DEFAULT_MAX_REPLAYS,
            replay_bytes: DEFAULT_REPLAY_BYTES,
            max_listed: DEFAULT_MAX_LISTED,
        }
    }
}

const TEMPLATE: &str = include_str!("report.html");
const STYLE: &str = include_str!("report.css");
const SCRIPT: &str = include_str!("viewer.js");

/// The report of a tournament or match journal, made from its records as they come: [`add`](Self::add)
/// every record (with its moves), then [`finish`](Self::finish) with the standings.
#[derive(Debug)]
pub struct ReportBuilder {
    options: Options,
    games: usize,
    forfeits: usize,
    listed_forfeits: Sample<GameRow>,
    listed_others: Sample<GameRow>,
    forfeit_replays: Sample<WrittenReplay>,
    /// Bounded by the replays' count and byte budget less the forfeits'.
    other_replays: Sample<WrittenReplay>,
}

impl ReportBuilder {
    /// A report of no games yet.
    pub fn new(options: Options) -> ReportBuilder {
        let listed = options.listed();
        ReportBuilder {
            options,
            games: 0,
            forfeits: 0,
            listed_forfeits: Sample::new(listed),
            listed_others: Sample::new(listed),
            forfeit_replays: Sample::with_budget(listed, options.replay_bytes),
            other_replays: Sample::with_budget(options.max_replays, options.replay_bytes),
        }
    }

    /// Counts the game of `record`, and keeps its row and its replay if the samples take them.
    pub fn add(&mut self, record: &GameRecord) {
        let rank = Rank::of(&record.id);
        let row = || (GameRow::of(record), 0);
        let replay = || {
            let replay = WrittenReplay::of(record);
            let size = replay.size();
            (replay, size)
        };
        self.games += 1;
        if record.termination.forfeit.is_none() {
            self.listed_others.offer(rank, row);
            self.other_replays.offer(rank, replay);
            return;
        }
        self.forfeits += 1;
        self.listed_forfeits.offer(rank, row);
        self.forfeit_replays.offer(rank, replay);
        // The forfeits' replays come first: the other games get what they leave.
        self.other_replays
            .lower_cap(self.options.max_replays.saturating_sub(self.forfeits));
        self.other_replays
            .lower_budget(self.options.replay_bytes.saturating_sub(self.forfeit_replays.bytes()));
    }

    /// The page of the tournament `name`, which schedules `scheduled` games, with its `standings` (of the
    /// same games).
    pub fn finish(self, name: &str, scheduled: usize, standings: &Standings) -> String {
        let mut rows: Vec<GameRow> = self
            .listed_forfeits
            .into_values()
            .chain(self.listed_others.into_values())
            .map(|(_, row)| row)
            .collect();
        rows.sort_by(|a, b| a.id.cmp(&b.id));
        let (forfeit_replays, other_replays) = (self.forfeit_replays.len(), self.other_replays.len());
        let mut games = Games::new(rows, self.games);
        for (id, replay) in self
            .forfeit_replays
            .into_values()
            .chain(self.other_replays.into_values())
        {
            games.embed(&id, replay);
        }
        let options = self.options;
        let replays_note = (games.replays.len() < self.games).then(|| {
            let chosen = if forfeit_replays == self.forfeits {
                "every forfeit, and a sample of the rest chosen by game id (the same each time)".to_owned()
            } else {
                format!(
                    "{forfeit_replays} of the {} forfeits and {other_replays} other games, chosen by game id (the \
                     same each time)",
                    self.forfeits
                )
            };
            format!(
                "The replays of {} of the {} games are embedded: {chosen}, at most {} games and about {:.1} MB. \
                 Make the report with a higher --max-replays to embed more games.",
                games.replays.len(),
                self.games,
                options.max_replays,
                options.replay_bytes as f64 / 1e6
            )
        });
        let listed_note = (games.games.len() < self.games).then(|| {
            format!(
                "The list holds {} of the {} games: {}, and a sample of the other games chosen by game id, every \
                 game with a replay among them. The standings and the crosstable count every game.",
                games.games.len(),
                self.games,
                if self.forfeits <= options.listed() {
                    "every forfeit".to_owned()
                } else {
                    format!("a sample of the {} forfeits", self.forfeits)
                }
            )
        });
        let played = format!("{} of {scheduled} games played", self.games);
        page(
            &format!("{name}: Pah Tum tournament"),
            &played,
            Some(Tables::of(standings)),
            [replays_note, listed_note].into_iter().flatten().collect(),
            &games,
        )
    }
}

/// The page of one game: the viewer alone.
pub fn game_page(record: &GameRecord) -> String {
    let mut games = Games::new(vec![GameRow::of(record)], 1);
    games.embed(&record.id, WrittenReplay::of(record));
    let summary = format!("{} (White) against {} (Black)", record.white, record.black);
    page("Pah Tum game", &summary, None, Vec::new(), &games)
}

/// The page: `notes` say what the game list leaves out.
fn page(title: &str, summary: &str, tables: Option<Tables>, notes: Vec<String>, games: &Games) -> String {
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
            notes,
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
