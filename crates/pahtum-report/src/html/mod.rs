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
//! memory bounded by its options, not by the number of games, and small: the
//! standings come counted already, and of the games only samples are kept (see
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
//!
//! When `arena analyze` wrote an analysis beside the journal (`analysis.jsonl`), the page shows it (see
//! [`analysis`]): with each embedded replay its analysis, counted in the replay's bytes, so the budget holds;
//! and per bot its marks by phase and its losing moves, over every analysed game.
//!
//! A league's journal gets a page with two more sections (see [`league`]): the ladder of `arena league table`,
//! and each bot's rating history over its versions and over time, drawn as inline SVG.
//!
//! A sample keeps, of each game, its id and where its record lies (a journal
//! offset, say: a locator of the caller's choice), not its row or its replay:
//! those are made again from the record, read back, when the page is written,
//! one game at a time straight into the file ([`ReportBuilder::finish`]). So
//! the report holds a few tens of bytes per sampled game, and never the page:
//! a whole page held as text, with its rows and replays, was the largest part
//! of a long run's peak memory.

pub mod analysis;
pub mod data;
pub mod league;
pub mod sample;

use std::io::{self, Write};

use std::collections::HashMap;

use minijinja::{Environment, Value, context};
use pahtum_record::GameRecord;
use pahtum_record::annotations::GameAnalysis;
use pahtum_standings::standings::Standings;
use serde::Serialize;

use self::analysis::{AnalysisIndex, AnalysisTables, Mistakes, Span};
use self::data::{Comments, GameRow, Replay, ReplaySize, Tables};
use self::league::LeaguePage;
use self::sample::{Entry, Rank, Sample, budget_run};

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
    /// The page without its style and viewer script: its tables alone, for a live page that fetches them to
    /// swap them in (`arena serve`), a fifth of the bytes.
    pub bare: bool,
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
            bare: false,
        }
    }
}

const TEMPLATE: &str = include_str!("report.html");
const STYLE: &str = include_str!("report.css");
/// The style of a league's sections, on a league's page only.
const LEAGUE_STYLE: &str = include_str!("league.css");
const SCRIPT: &str = include_str!("viewer.js");
/// Where the template takes the games' data, which is written between the parts rendered before and after.
const DATA_SLOT: &str = "{{ data }}";

/// Why a page cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum PageError<E: std::error::Error + 'static> {
    /// A sampled game's record cannot be read back.
    #[error("cannot read back the record of a game of the report")]
    Read(#[source] E),
    /// A record read back is no longer a record.
    #[error("a record read back for the report does not parse: the journal changed while the report was made")]
    NotARecord(#[source] serde_json::Error),
    /// A record read back is not the game that was sampled there.
    #[error("the record of game {expected} is no longer where it was: the journal changed while the report was made")]
    Moved {
        /// The game sampled there.
        expected: String,
    },
    /// The page cannot be written.
    #[error("cannot write the page")]
    Write(#[from] io::Error),
}

/// What the report keeps of a sampled game: where its record lies and its replay's size.
#[derive(Debug, Clone, Copy)]
struct Kept<L> {
    at: L,
    replay: ReplaySize,
    /// Where its analysis lies, if it has one.
    analysis: Option<Span>,
}

/// The report of a tournament or match journal, made from its records as they come: [`add`](Self::add)
/// every record (with its moves) and where it lies (`L`, a locator by which the caller reads its JSON back:
/// a journal's [`Span`](pahtum_journal::Span), an index), then [`finish`](Self::finish) with the
/// standings.
#[derive(Debug)]
pub struct ReportBuilder<L> {
    options: Options,
    games: usize,
    forfeits: usize,
    /// The games adjudicated, by rule name (`decided`, `solved`).
    adjudicated: std::collections::BTreeMap<&'static str, usize>,
    /// The forfeits listed; the replays are a run of their first (see [`sample`]).
    listed_forfeits: Sample<Kept<L>>,
    /// The other games listed; their replays are a run of their first too.
    listed_others: Sample<Kept<L>>,
    /// The analyses of the games, if there are any.
    analyses: Option<AnalysisIndex>,
    /// The bots' marks and losing moves over the analysed games.
    mistakes: Mistakes,
}

impl<L: Copy> ReportBuilder<L> {
    /// A report of no games yet.
    pub fn new(options: Options) -> ReportBuilder<L> {
        let listed = options.listed();
        ReportBuilder {
            options,
            games: 0,
            forfeits: 0,
            adjudicated: Default::default(),
            listed_forfeits: Sample::new(listed),
            listed_others: Sample::new(listed),
            analyses: None,
            mistakes: Mistakes::default(),
        }
    }

    /// The same report, which shows the analyses that `analyses` indexes of the games added with their
    /// record's hash ([`add_hashed`](Self::add_hashed)).
    pub fn with_analyses(self, analyses: Option<AnalysisIndex>) -> ReportBuilder<L> {
        ReportBuilder { analyses, ..self }
    }

    /// Whether the report shows analyses, so that the games need their record's hash.
    pub fn has_analyses(&self) -> bool {
        self.analyses.is_some()
    }

    /// Counts the game of `record`, whose replay has `replay` as its size ([`ReplaySize::of`] the record with
    /// its moves, which `record` itself need not hold), and keeps where it lies, `at`, if a sample takes it.
    pub fn add(&mut self, record: &GameRecord, replay: ReplaySize, at: L) {
        self.add_hashed(record, replay, at, None);
    }

    /// As [`add`](Self::add), with `hash`, the hash of the record with its moves
    /// ([`record_hash`](pahtum_record::annotations::record_hash)), by which its analysis is found. An analysis
    /// that cannot be read back is left out: it is a help to read the games, never a reason to refuse them.
    pub fn add_hashed(&mut self, record: &GameRecord, mut replay: ReplaySize, at: L, hash: Option<&str>) {
        let rank = Rank::of(&record.id);
        let mut analysis = None;
        if let (Some(index), Some(hash)) = (&self.analyses, hash)
            && let Some(span) = index.find(&record.id, hash)
            && let Ok(Some(read)) = index.read(span)
        {
            self.mistakes.add(record, &read);
            replay = replay.with_analysis(&read);
            analysis = Some(span);
        }
        let kept = || Kept { at, replay, analysis };
        self.games += 1;
        if let Some(adjudication) = &record.termination.adjudicated {
            *self.adjudicated.entry(adjudication.rule.name()).or_default() += 1;
        }
        if record.termination.forfeit.is_none() {
            self.listed_others.offer(rank, kept);
        } else {
            self.forfeits += 1;
            self.listed_forfeits.offer(rank, kept);
        }
    }

    /// What the report says of its adjudicated games: how many, by which rule, and what the rule means
    /// (a bound, or an assumption of perfect play); `None` when no game was adjudicated.
    fn adjudicated_note(&self) -> Option<String> {
        let rules: Vec<String> = self
            .adjudicated
            .iter()
            .map(|(&rule, &count)| {
                let meaning = if rule == "solved" {
                    "an assumption of perfect play: the solver's result from its free cells"
                } else {
                    "its result could no longer change, whatever both bots played: a bound"
                };
                format!("{count} by the rule {rule} ({meaning})")
            })
            .collect();
        (!rules.is_empty()).then(|| {
            format!(
                "Adjudicated, ended before the board was full: {}. Each says so in the list and its replay.",
                rules.join("; ")
            )
        })
    }

    /// The games whose place the report keeps: at most twice the list's bound, whatever the number of games
    /// added.
    pub fn kept(&self) -> usize {
        self.listed_forfeits.len() + self.listed_others.len()
    }

    /// Writes to `out` the page of the tournament `name`, which schedules `scheduled` games, with its
    /// `standings` (of the same games), reading the records of the sampled games back with `read` (a record
    /// as JSON, as the journal holds it), one at a time: each listed game once (its moves skipped), each
    /// replayed game once more, and once again before that if its replay has comments.
    pub fn finish<E: std::error::Error + 'static>(
        &self,
        name: &str,
        scheduled: usize,
        standings: &Standings,
        read: impl FnMut(L) -> Result<Vec<u8>, E>,
        out: &mut impl Write,
    ) -> Result<(), PageError<E>> {
        let title = format!("{name}: Pah Tum tournament");
        self.finish_as(&title, None, scheduled, standings, read, out)
    }

    /// As [`finish`](Self::finish), the page of the league of `league`'s sections: its ladder and each bot's
    /// rating history before the games.
    pub fn finish_league<E: std::error::Error + 'static>(
        &self,
        league: &LeaguePage,
        scheduled: usize,
        standings: &Standings,
        read: impl FnMut(L) -> Result<Vec<u8>, E>,
        out: &mut impl Write,
    ) -> Result<(), PageError<E>> {
        let title = format!("{}: Pah Tum league", league.name);
        self.finish_as(&title, Some(league), scheduled, standings, read, out)
    }

    fn finish_as<'s, E: std::error::Error + 'static>(
        &'s self,
        title: &str,
        league: Option<&LeaguePage>,
        scheduled: usize,
        standings: &Standings,
        read: impl FnMut(L) -> Result<Vec<u8>, E>,
        out: &mut impl Write,
    ) -> Result<(), PageError<E>> {
        let options = self.options;
        // The samples are read in place, each time it is needed, rather than copied into lists: at 10,000
        // listed games a copy would be the largest thing in the report's memory.
        let bytes = |sample: &'s Sample<Kept<L>>| sample.values().map(|(_, kept)| kept.replay.bytes as usize);
        // The forfeits' replays come first, within the byte budget; the other games get what they leave.
        let (forfeit_replays, forfeit_bytes) =
            budget_run(bytes(&self.listed_forfeits), usize::MAX, options.replay_bytes);
        let (other_replays, _) = budget_run(
            bytes(&self.listed_others),
            options.max_replays.saturating_sub(self.forfeits),
            options.replay_bytes.saturating_sub(forfeit_bytes),
        );
        // The forfeits' replays first, then the others', each lowest-ranked first: the order in which
        // their comments are numbered.
        let replayed = || {
            (self.listed_forfeits.values().take(forfeit_replays)).chain(self.listed_others.values().take(other_replays))
        };
        let mut replays: Vec<(&str, L, bool)> = Vec::with_capacity(forfeit_replays + other_replays);
        replays.extend(replayed().map(|(id, kept)| (id, kept.at, kept.replay.commented)));
        let analysed: HashMap<&str, Span> = replayed().filter_map(|(id, kept)| Some((id, kept.analysis?))).collect();
        let analysis_tables = self.mistakes.tables(|id| analysed.contains_key(id));
        let index = self.analyses.as_ref();
        let embedded = replays.len();
        // A reference to each listed game (8 bytes), sorted by id.
        let mut by_id: Vec<&Entry<Kept<L>>> = Vec::with_capacity(self.kept());
        by_id.extend(self.listed_forfeits.entries().chain(self.listed_others.entries()));
        by_id.sort_unstable_by(|a, b| a.id().cmp(b.id()));
        let listed_count = by_id.len();
        let listed: Box<dyn Iterator<Item = (&str, L)>> =
            Box::new(by_id.into_iter().map(|entry| (entry.id(), entry.value().at)));
        let replays_note = (embedded < self.games).then(|| {
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
                "The replays of {embedded} of the {} games are embedded: {chosen}, at most {} games and about \
                 {:.1} MB. Make the report with a higher --max-replays to embed more games.",
                self.games,
                options.max_replays,
                options.replay_bytes as f64 / 1e6
            )
        });
        let listed_note = (listed_count < self.games).then(|| {
            format!(
                "The list holds {} of the {} games: {}, and a sample of the other games chosen by game id, every \
                 game with a replay among them. The standings and the crosstable count every game.",
                listed_count,
                self.games,
                if self.forfeits <= options.listed() {
                    "every forfeit".to_owned()
                } else {
                    format!("a sample of the {} forfeits", self.forfeits)
                }
            )
        });
        let played = format!("{} of {scheduled} games played", self.games);
        let games = GameData {
            listed: Some(listed),
            played: self.games,
            replays,
            read,
            analysis: |id: &str| {
                let span = analysed.get(id)?;
                index?.read(*span).ok().flatten()
            },
        };
        write_page(
            out,
            Heading {
                title,
                summary: &played,
                bare: options.bare,
            },
            Some(Tables::of(standings)),
            league,
            analysis_tables,
            [replays_note, listed_note, self.adjudicated_note()]
                .into_iter()
                .flatten()
                .collect(),
            games,
        )
    }
}

/// Writes to `out` the page of one game: the viewer alone, with `analysis`, the game's analysis, if there is
/// one (of this record).
pub fn write_game_page(record: &GameRecord, analysis: Option<&GameAnalysis>, out: &mut impl Write) -> io::Result<()> {
    let summary = format!("{} (White) against {} (Black)", record.white, record.black);
    let heading = Heading {
        title: "Pah Tum game",
        summary: &summary,
        bare: false,
    };
    write_page(out, heading, None, None, None, Vec::new(), one_game(record, analysis)).map_err(io_error)
}

/// The viewer's data of one game (what [`write_game_page`] embeds), as JSON that can also stand inside a
/// `<script>` element: for a page that shows a game as it grows (`arena serve`'s `/play`).
pub fn game_data(record: &GameRecord) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    one_game(record, None).write(&mut out).map_err(io_error)?;
    Ok(out)
}

/// How a page of one game reads its record, and its analysis.
type ReadOne<'a> = Box<dyn FnMut(()) -> io::Result<Vec<u8>> + 'a>;
type AnalysisOf<'a> = Box<dyn FnMut(&str) -> Option<GameAnalysis> + 'a>;

/// The games' data of a page of the one game `record`.
fn one_game<'a>(
    record: &'a GameRecord,
    analysis: Option<&'a GameAnalysis>,
) -> GameData<'a, (), ReadOne<'a>, AnalysisOf<'a>> {
    GameData {
        listed: Some(Box::new(std::iter::once((record.id.as_str(), ())))),
        played: 1,
        replays: vec![(&record.id, (), true)],
        read: Box::new(|()| serde_json::to_vec(record).map_err(io::Error::from)),
        analysis: Box::new(move |_: &str| analysis.cloned()),
    }
}

/// A page of one game read from memory fails only to write.
fn io_error(error: PageError<io::Error>) -> io::Error {
    match error {
        PageError::Write(error) | PageError::Read(error) => error,
        PageError::NotARecord(error) => error.into(),
        PageError::Moved { .. } => unreachable!("the game is read from memory"),
    }
}

/// The games of a page, as the viewer's script reads them, still to be read back: the games listed, sorted
/// by id; the games replayed, in the order their comments are numbered; how to read a record back; and the
/// analysis of a game replayed, by its id, if it has one.
struct GameData<'a, L, R, A> {
    /// Taken when written.
    listed: Option<Box<dyn Iterator<Item = (&'a str, L)> + 'a>>,
    played: usize,
    replays: Vec<(&'a str, L, bool)>,
    read: R,
    analysis: A,
}

impl<L: Copy, E: std::error::Error + 'static, R: FnMut(L) -> Result<Vec<u8>, E>, A: FnMut(&str) -> Option<GameAnalysis>>
    GameData<'_, L, R, A>
{
    /// What `parse` makes of the record of game `id`, read back from `at`, if it is that game's (`id_of`).
    fn read<T>(
        &mut self,
        id: &str,
        at: L,
        parse: fn(&[u8]) -> serde_json::Result<T>,
        id_of: fn(&T) -> &str,
    ) -> Result<T, PageError<E>> {
        let json = (self.read)(at).map_err(PageError::Read)?;
        let read = parse(&json).map_err(PageError::NotARecord)?;
        if id_of(&read) != id {
            return Err(PageError::Moved {
                expected: id.to_owned(),
            });
        }
        Ok(read)
    }

    /// The record of game `id`, read back from `at`.
    fn record(&mut self, id: &str, at: L) -> Result<GameRecord, PageError<E>> {
        self.read(
            id,
            at,
            |json| serde_json::from_slice(json),
            |record: &GameRecord| &record.id,
        )
    }

    /// Writes the data as one JSON object, as [`script_json`] writes it: `games` (the rows of the games
    /// listed), `played`, `replays` (each replay by game id, in id order) and `comments` (the distinct
    /// comments the replays index, numbered in the order of `replays`).
    fn write(mut self, out: &mut impl Write) -> Result<(), PageError<E>> {
        let mut comments = Comments::default();
        let mut replays = std::mem::take(&mut self.replays);
        for (id, at, _) in replays.iter().filter(|(_, _, commented)| *commented) {
            comments.add(&self.record(id, *at)?);
        }
        // Sorted in place (a stable sort would take a buffer of half the list): the ids are distinct.
        replays.sort_unstable_by(|a, b| a.0.cmp(b.0));
        out.write_all(b"{\"games\":[")?;
        for (n, (id, at)) in self.listed.take().into_iter().flatten().enumerate() {
            let row = self.read(id, at, GameRow::read, |row| &row.id)?;
            write!(out, "{}{}", if n == 0 { "" } else { "," }, script_json(&row))?;
        }
        write!(out, "],\"played\":{},\"replays\":{{", self.played)?;
        for (n, (id, at, _)) in replays.into_iter().enumerate() {
            let analysis = (self.analysis)(id);
            let replay = Replay::of(&self.record(id, at)?, &mut comments, analysis.as_ref());
            let (id, replay) = (script_json(&id), script_json(&replay));
            write!(out, "{}{id}:{replay}", if n == 0 { "" } else { "," })?;
        }
        write!(out, "}},\"comments\":{}}}", script_json(&comments.texts()))?;
        Ok(())
    }
}

/// What a page says of itself, before its tables.
struct Heading<'a> {
    title: &'a str,
    summary: &'a str,
    /// Without the style and the viewer's script ([`Options::bare`]).
    bare: bool,
}

/// Writes the page to `out`: `notes` say what the game list leaves out; the template is rendered around the
/// games' data, which is written in between, one game at a time.
fn write_page<L: Copy, E: std::error::Error + 'static>(
    out: &mut impl Write,
    Heading { title, summary, bare }: Heading<'_>,
    tables: Option<Tables>,
    league: Option<&LeaguePage>,
    analysis: Option<AnalysisTables>,
    notes: Vec<String>,
    games: GameData<'_, L, impl FnMut(L) -> Result<Vec<u8>, E>, impl FnMut(&str) -> Option<GameAnalysis>>,
) -> Result<(), PageError<E>> {
    let (before, after) = TEMPLATE
        .split_once(DATA_SLOT)
        .expect("the report template has a slot for the data");
    // Named `.html`, the parts are escaped as HTML.
    let mut environment = Environment::new();
    for (name, part) in [("before.html", before), ("after.html", after)] {
        environment
            .add_template(name, part)
            .expect("the report template is valid");
    }
    let context = context! {
        title,
        summary,
        tables,
        league,
        analysis,
        notes,
        style => Value::from_safe_string(if bare { String::new() } else { STYLE.to_owned() }),
        league_style => Value::from_safe_string(LEAGUE_STYLE.to_owned()),
        script => Value::from_safe_string(if bare { String::new() } else { SCRIPT.to_owned() }),
    };
    let render = |name: &str| {
        environment
            .get_template(name)
            .expect("added above")
            .render(&context)
            .expect("the report template renders")
    };
    out.write_all(render("before.html").as_bytes())?;
    games.write(out)?;
    out.write_all(render("after.html").as_bytes())?;
    Ok(())
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
pub(crate) mod tests;
