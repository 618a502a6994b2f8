//! The data of the HTML page: what the template shows as tables, and what the viewer's script reads.
//!
//! The tables (standings, Elo chart, crosstable heat map, LOS, pairs) are
//! rendered by the template from the same cells as the terminal tables, so
//! they read the same; the standings add the forfeits in all and put their
//! less used columns last, which the page folds away until asked for, so that
//! the table fits a 1,400-pixel window. The games are data for the script: one
//! row per game for the game list (with its pie decision, so that the list
//! says who played White by choice), and the replay of each embedded game in a compact form
//! (cells as one string, times as one array, `info` only where a bot sent
//! one, with short keys, its pv as one string and its comment as an index into
//! a table of the distinct comments, since bots repeat theirs), so that a
//! 10,000-game report stays a few megabytes.

use std::collections::{BTreeMap, HashMap};

use pahtum::{Color, Outcome, Score, Seat};
use pahtum_protocol::{Info, Reason};
use pahtum_record::annotations::GameAnalysis;
use pahtum_record::{GameRecord, MoveKind, Players, Termination};
use pahtum_standings::standings::{Standings, greeting_notes};
use serde::{Deserialize, Serialize};

use crate::html::analysis::ReplayAnalysis;
use crate::render::{first_move_line, standings_rows};
use crate::strength_render::{LOS_NOTE, los_rows, pairs_note, pairs_rows, rating_note};
use crate::table::points;

/// The tables of the standings, as cells of text.
#[derive(Debug, Serialize)]
pub struct Tables {
    /// The standings, the columns shown first, then those folded away.
    pub standings: StandingsTable,
    /// What the Elo columns mean (or why there are none), then the bots without games.
    pub rating_note: String,
    /// Each bot that played under more than one greeting (`hello` name and version), with them: its
    /// results mix programs. Escaped for the terminal (control characters visible), then by the template.
    pub greeting_notes: Vec<String>,
    /// One row per rated bot, in the standings' order; empty when no bot is rated.
    pub chart: Vec<ChartRow>,
    /// The marks of the chart's Elo axis.
    pub chart_axis: Vec<ChartTick>,
    /// One row per bot, in the crosstable's order (by rank).
    pub crosstable: Vec<HeatRow>,
    /// The likelihood-of-superiority matrix (the first row is the header); `None`
    /// with two bots or fewer, or without fitted ratings.
    pub los: Option<Vec<Vec<String>>>,
    /// What the LOS table shows.
    pub los_note: &'static str,
    /// The layout-pair table (the first row is the header); `None` when no two
    /// bots met.
    pub pairs: Option<Vec<Vec<String>>>,
    /// What the pair table's columns mean, and what it leaves out.
    pub pairs_note: String,
    /// The first-move line: White's and the first seat's scores, draws, and the
    /// pie swaps.
    pub first_move: String,
    /// Forfeits by kind over all games, the kinds that happened.
    pub forfeits: Vec<(&'static str, u32)>,
}

/// The standings table of the page: the columns a bot's author reads first (rank, bot, games, wins, draws,
/// losses, points, score, Elo and its interval, and the forfeits in all), then the columns shown on demand
/// ([`FOLDED`]), so that the table fits a 1,400-pixel window with a bot name of the longest plain length.
#[derive(Debug, Serialize)]
pub struct StandingsTable {
    /// The first row is the header.
    pub rows: Vec<Vec<String>>,
    /// How many columns, from the first, are shown before the reader asks for all of them.
    pub shown: usize,
}

/// The columns of the terminal's standings that the page folds away until asked: the likelihood that a bot is
/// stronger than the next (the LOS table says more), the average Pah Tum points for and against, and the
/// forfeits by kind (the column `forfeits` counts them all, and the line below the table by kind).
pub const FOLDED: [&str; 8] = [
    "LOS next", "for", "against", "timeouts", "crashes", "illegal", "protocol", "stalls",
];

impl StandingsTable {
    fn of(standings: &Standings) -> StandingsTable {
        let mut rows = standings_rows(standings);
        let header = rows.next().expect("the standings have a header");
        let (folded, shown): (Vec<usize>, Vec<usize>) =
            (0..header.len()).partition(|&column| FOLDED.contains(&header[column].as_str()));
        let order = |row: &[String], forfeits: String| -> Vec<String> {
            let pick = |columns: &[usize]| columns.iter().map(|&column| row[column].clone()).collect::<Vec<_>>();
            [pick(&shown), vec![forfeits], pick(&folded)].concat()
        };
        let mut table = vec![order(&header, "forfeits".to_owned())];
        for (row, bot) in rows.zip(&standings.bots) {
            let f = &bot.forfeits;
            table.push(order(
                &row,
                (f.timeout + f.crash + f.illegal_move + f.protocol_error + f.stall).to_string(),
            ));
        }
        StandingsTable {
            rows: table,
            shown: shown.len() + 1,
        }
    }
}

/// One bot's Elo and its 95% interval, in percent of the chart's width.
#[derive(Debug, Serialize)]
pub struct ChartRow {
    /// The bot's name.
    pub bot: String,
    /// The Elo and its interval as text, `+35.2 [-10.4, +80.0]` (signed when no bot anchors the scale).
    pub label: String,
    /// The Elo, in percent of the chart's width (0 to 100).
    pub dot: f64,
    /// The interval's lower end, in percent of the chart's width.
    pub lower: f64,
    /// The interval's upper end, in percent of the chart's width.
    pub upper: f64,
}

/// A mark on the chart's axis.
#[derive(Debug, Serialize)]
pub struct ChartTick {
    /// Where the mark stands, in percent of the chart's width.
    pub at: f64,
    /// The mark's Elo, as text.
    pub label: String,
}

/// One row of the crosstable heat map.
#[derive(Debug, Serialize)]
pub struct HeatRow {
    /// The bot's rank, from 1.
    pub rank: usize,
    /// The bot's name.
    pub bot: String,
    /// One cell per column bot, the diagonal included.
    pub cells: Vec<HeatCell>,
}

/// One cell: the row's points against the column's, coloured by score (red 0% to green 100%).
#[derive(Debug, Serialize)]
pub struct HeatCell {
    /// `points/games` (`1.5/3`), `·` on the diagonal, empty where the bots did not meet.
    pub text: String,
    /// The column's bot, for the link to the pair's games; `None` on the diagonal and where they did not meet.
    pub against: Option<String>,
    /// The hue of the cell's colour, 0 (red) to 120 (green).
    pub hue: Option<u32>,
}

impl Tables {
    /// The tables of `standings`.
    pub fn of(standings: &Standings) -> Tables {
        let strength = &standings.strength;
        let (chart, chart_axis) = chart(standings);
        Tables {
            standings: StandingsTable::of(standings),
            rating_note: rating_note(strength),
            greeting_notes: greeting_notes(standings).collect(),
            chart,
            chart_axis,
            crosstable: heat_map(standings),
            los: los_rows(strength),
            los_note: LOS_NOTE,
            pairs: pairs_rows(strength),
            pairs_note: pairs_note(strength),
            first_move: first_move_line(standings),
            forfeits: forfeits_by_kind(standings),
        }
    }
}

fn chart(standings: &Standings) -> (Vec<ChartRow>, Vec<ChartTick>) {
    let signed = standings.strength.rating_model.anchor.is_none();
    let rated: Vec<_> = standings
        .bots
        .iter()
        .filter_map(|row| row.rating.map(|rating| (row, rating)))
        .collect();
    let Some(low) = rated.iter().map(|(_, r)| r.lower).min_by(f64::total_cmp) else {
        return (Vec::new(), Vec::new());
    };
    let high = rated.iter().map(|(_, r)| r.upper).max_by(f64::total_cmp).unwrap_or(low);
    let scale = Scale::new(low, high);
    let at = |elo: f64| scale.at(elo);
    let rows = rated
        .iter()
        .map(|(row, rating)| ChartRow {
            bot: row.bot.clone(),
            label: format!(
                "{} [{}, {}]",
                crate::strength_render::elo(rating.elo, signed),
                crate::strength_render::elo(rating.lower, signed),
                crate::strength_render::elo(rating.upper, signed)
            ),
            dot: at(rating.elo),
            lower: at(rating.lower),
            upper: at(rating.upper),
        })
        .collect();
    (rows, scale.ticks())
}

/// An Elo axis from `low` to `high`, widened to round marks: where an Elo stands on it, in percent.
#[derive(Debug, Clone, Copy)]
pub struct Scale {
    low: f64,
    high: f64,
    step: f64,
}

impl Scale {
    /// The axis that holds `low` to `high`.
    pub fn new(low: f64, high: f64) -> Scale {
        let step = tick_step(high - low);
        Scale {
            low: (low / step).floor() * step,
            high: (high / step).ceil() * step,
            step,
        }
    }

    /// Where `elo` stands, in percent of the axis (0 to 100, to a tenth).
    pub fn at(&self, elo: f64) -> f64 {
        (1000.0 * (elo - self.low) / (self.high - self.low).max(1.0)).round() / 10.0
    }

    /// The axis's marks.
    pub fn ticks(&self) -> Vec<ChartTick> {
        (0..)
            .map(|n| self.low + self.step * f64::from(n))
            .take_while(|&elo| elo <= self.high + self.step / 2.0)
            .map(|elo| ChartTick {
                at: self.at(elo),
                label: format!("{elo:.0}"),
            })
            .collect()
    }
}

/// A round step that gives the axis of `span` Elo four to ten marks.
fn tick_step(span: f64) -> f64 {
    [10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]
        .into_iter()
        .find(|step| span / step <= 8.0)
        .unwrap_or(2000.0)
}

fn heat_map(standings: &Standings) -> Vec<HeatRow> {
    let table = &standings.crosstable;
    table
        .bots
        .iter()
        .enumerate()
        .map(|(i, bot)| HeatRow {
            rank: i + 1,
            bot: bot.clone(),
            cells: table.results[i]
                .iter()
                .enumerate()
                .map(|(j, tally)| match tally {
                    Some(tally) if i != j => HeatCell {
                        text: format!("{}/{}", points(tally.points), tally.games),
                        against: Some(table.bots[j].clone()),
                        hue: (tally.games > 0).then(|| (120.0 * tally.points / f64::from(tally.games)).round() as u32),
                    },
                    _ => HeatCell {
                        text: if i == j { "·".to_owned() } else { String::new() },
                        against: None,
                        hue: None,
                    },
                })
                .collect(),
        })
        .collect()
}

fn forfeits_by_kind(standings: &Standings) -> Vec<(&'static str, u32)> {
    let sum = |count: fn(&pahtum_standings::standings::Forfeits) -> u32| {
        standings.bots.iter().map(|row| count(&row.forfeits)).sum::<u32>()
    };
    [
        ("timeouts", sum(|f| f.timeout)),
        ("crashes", sum(|f| f.crash)),
        ("illegal moves", sum(|f| f.illegal_move)),
        ("protocol errors", sum(|f| f.protocol_error)),
        ("stalls", sum(|f| f.stall)),
    ]
    .into_iter()
    .filter(|&(_, count)| count > 0)
    .collect()
}

/// The distinct `info` comments of the embedded replays, which [`MoveInfo::comment`] indexes: bots repeat
/// theirs, so the page holds each once.
#[derive(Debug, Default)]
pub struct Comments {
    texts: Vec<String>,
    index: HashMap<String, usize>,
}

impl Comments {
    /// The index of `comment`, added at the end if it is new.
    fn index_of(&mut self, comment: &str) -> usize {
        if let Some(&index) = self.index.get(comment) {
            return index;
        }
        let index = self.texts.len();
        self.index.insert(comment.to_owned(), index);
        self.texts.push(comment.to_owned());
        index
    }

    /// Adds the comments of `record`'s moves, then of its pie decision, in that order (the order in which
    /// [`Replay::of`] meets them).
    pub fn add(&mut self, record: &GameRecord) {
        let timings = record.moves.iter().map(|m| &m.timing).chain(&record.swap_move);
        let infos = timings.filter_map(|timing| timing.info.as_ref());
        for comment in infos.filter_map(|info| info.comment.as_deref()) {
            self.index_of(comment);
        }
    }

    /// The comments, in the order they were added.
    pub fn texts(&self) -> &[String] {
        &self.texts
    }
}

/// What a report's byte budget counts of a game's replay: its size written as JSON with a comment table of its
/// own (near enough, though the page's table may renumber them), and whether it has any comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplaySize {
    /// The bytes of the replay (4 bytes, not 8: the report's sample keeps one for each of up to 20,000
    /// games; a replay of 4 GiB or more counts as 4 GiB).
    pub bytes: u32,
    /// Whether a move's `info` or the pie decision's has a comment.
    pub commented: bool,
}

impl ReplaySize {
    /// The size of the replay of `record`, with its moves.
    pub fn of(record: &GameRecord) -> ReplaySize {
        let mut comments = Comments::default();
        let mut size = ByteCount(0);
        serde_json::to_writer(&mut size, &Replay::of(record, &mut comments, None)).expect("a replay serializes");
        ReplaySize {
            bytes: u32::try_from(size.0).unwrap_or(u32::MAX),
            commented: !comments.texts.is_empty(),
        }
    }

    /// The size of the same replay with `analysis`, which the page embeds with it.
    pub fn with_analysis(self, analysis: &GameAnalysis) -> ReplaySize {
        let mut size = ByteCount(",\"analysis\":".len());
        serde_json::to_writer(&mut size, &ReplayAnalysis::of(analysis)).expect("an analysis serializes");
        ReplaySize {
            bytes: u32::try_from(size.0).map_or(u32::MAX, |more| self.bytes.saturating_add(more)),
            ..self
        }
    }
}

/// A sink that counts the bytes written to it: the size of what would be written, without keeping it.
#[derive(Debug, Default)]
pub struct ByteCount(pub usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A bot's `info` about a move, compact: short keys, and the comment as an index into the page's [`Comments`].
#[derive(Debug, Serialize)]
pub struct MoveInfo {
    /// The bot's evaluation, from its own point of view (its own units).
    #[serde(rename = "e", skip_serializing_if = "Option::is_none")]
    pub eval: Option<f64>,
    /// The search depth the bot reported.
    #[serde(rename = "d", skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// The number of nodes the bot reported searching.
    #[serde(rename = "n", skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// The principal variation, its moves joined by spaces.
    #[serde(rename = "p", skip_serializing_if = "Option::is_none")]
    pub pv: Option<String>,
    /// The comment, as an index into the page's [`Comments`].
    #[serde(rename = "c", skip_serializing_if = "Option::is_none")]
    pub comment: Option<usize>,
}

impl MoveInfo {
    /// The `info` of a move, compact, with its comment in `comments`.
    fn of(info: &Info, comments: &mut Comments) -> MoveInfo {
        let comment = info.comment.as_deref().map(|comment| comments.index_of(comment));
        MoveInfo {
            eval: info.eval,
            depth: info.depth,
            nodes: info.nodes,
            pv: info.pv.as_ref().map(|pv| pv.join(" ")),
            comment,
        }
    }
}

/// One game in the game list.
#[derive(Debug, Serialize)]
pub struct GameRow {
    /// The game's id (unique within the tournament).
    pub id: String,
    /// The bots by seat: the first started as White.
    pub first: String,
    /// The bot in the second seat, which started as Black.
    pub second: String,
    /// The bots by colour at the end, after any pie swap.
    pub white: String,
    /// The bot that ended as Black.
    pub black: String,
    /// The result by colour.
    pub result: Outcome,
    /// The pie decision: `true` a swap, `false` a keep; absent when the pie rule was off or the game ended
    /// before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swap: Option<bool>,
    /// White's points, Black's.
    pub score: [u32; 2],
    /// How the game ended: [`Reason::Normal`] for a full board or an adjudicated game (see `adjudicated`),
    /// otherwise the forfeit's kind.
    pub reason: Reason,
    /// The bots that forfeited.
    pub forfeited: Vec<String>,
    /// For an adjudicated game, the adjudication in words ([`pahtum_record::Adjudication::summary`]);
    /// absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adjudicated: Option<String>,
}

/// The moves of one game, compact.
#[derive(Debug, Serialize)]
pub struct Replay {
    /// The blocks of the initial board (all but those the players placed), as one string of cells (`a1c3`).
    pub blocks: String,
    /// Every block placed by a player and every stone, in order, as one string of cells.
    pub cells: String,
    /// Per move: `b` a block, `s` a stone.
    pub kinds: String,
    /// Per move: the colour to act, `w` or `b`.
    pub colors: String,
    /// Per move: the seat that made it, `1` (first) or `2`.
    pub seats: String,
    /// Per move: the time the answer took, in milliseconds.
    pub ms: Vec<f64>,
    /// The `info` of a move, by the move's index, where the bot sent one.
    pub info: BTreeMap<usize, MoveInfo>,
    /// The pie decision (after the first stone), if made.
    pub swap: Option<bool>,
    /// The time the pie decision took, in milliseconds; `None` without one.
    pub swap_ms: Option<f64>,
    /// The bot's `info` about the pie decision, if it sent one.
    pub swap_info: Option<MoveInfo>,
    /// The forfeits, with their evidence (none in a game that ended normally).
    pub forfeits: Vec<ForfeitView>,
    /// How many plies were given before the bots played (`arena game --moves`, `--from`); absent for none.
    #[serde(skip_serializing_if = "is_zero")]
    pub given: usize,
    /// The game's analysis (`arena analyze`), when the report has one of this record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis: Option<ReplayAnalysis>,
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// A forfeit, with the evidence.
#[derive(Debug, Serialize)]
pub struct ForfeitView {
    /// The bot that forfeited.
    pub bot: String,
    /// Its seat.
    pub seat: Seat,
    /// Its colour when it forfeited (after any pie swap).
    pub color: Color,
    /// How it failed.
    pub reason: Reason,
    /// The verdict in words.
    pub verdict: &'static str,
    /// What happened, in a sentence for the bot's author.
    pub detail: String,
    /// The offending line the bot wrote, cut short, if there was one.
    pub line: Option<String>,
    /// The last lines of the bot's stderr.
    pub stderr_tail: Vec<String>,
}

/// What a row shows of a record: read without the moves, most of a record's bytes, which the parser skips.
#[derive(Deserialize)]
struct RowFields {
    id: String,
    players: Players,
    white: String,
    black: String,
    result: Outcome,
    swap: Option<bool>,
    score: Score,
    termination: Termination,
}

impl GameRow {
    /// The game list's row of the record written as `json`.
    pub fn read(json: &[u8]) -> serde_json::Result<GameRow> {
        let record: RowFields = serde_json::from_slice(json)?;
        Ok(GameRow {
            forfeited: record.termination.forfeits().map(|(_, f)| f.bot.clone()).collect(),
            id: record.id,
            first: record.players.first,
            second: record.players.second,
            white: record.white,
            black: record.black,
            result: record.result,
            swap: record.swap,
            score: [record.score.white, record.score.black],
            reason: record.termination.reason,
            adjudicated: record
                .termination
                .adjudicated
                .map(|adjudication| adjudication.summary()),
        })
    }
}

impl Replay {
    /// The replay of `record`, its comments indexing `comments` (added there if new), with `analysis`, the
    /// analysis of the record, if there is one.
    pub fn of(record: &GameRecord, comments: &mut Comments, analysis: Option<&GameAnalysis>) -> Replay {
        let cells = |cells: &mut dyn Iterator<Item = pahtum::Cell>| cells.map(|cell| cell.to_string()).collect();
        Replay {
            blocks: cells(&mut record.first_blocks().into_iter()),
            cells: cells(&mut record.moves.iter().map(|m| m.cell)),
            kinds: record
                .moves
                .iter()
                .map(|m| if m.kind == MoveKind::Block { 'b' } else { 's' })
                .collect(),
            colors: record
                .moves
                .iter()
                .map(|m| if m.color == Color::White { 'w' } else { 'b' })
                .collect(),
            seats: (0..record.moves.len())
                .map(|index| {
                    if record.seat_of_move(index) == Seat::First {
                        '1'
                    } else {
                        '2'
                    }
                })
                .collect(),
            ms: record.moves.iter().map(|m| tenths(m.timing.ms)).collect(),
            info: record
                .moves
                .iter()
                .enumerate()
                .filter_map(|(index, m)| m.timing.info.as_ref().map(|info| (index, MoveInfo::of(info, comments))))
                .collect(),
            swap: record.swap,
            given: record.opening.as_ref().map_or(0, |opening| opening.plies),
            analysis: analysis.map(ReplayAnalysis::of),
            swap_ms: record.swap_move.as_ref().map(|timing| tenths(timing.ms)),
            swap_info: record
                .swap_move
                .as_ref()
                .and_then(|timing| timing.info.as_ref())
                .map(|info| MoveInfo::of(info, comments)),
            forfeits: record
                .termination
                .forfeits()
                .map(|(reason, forfeit)| ForfeitView {
                    bot: forfeit.bot.clone(),
                    seat: forfeit.seat,
                    color: forfeit.color,
                    reason,
                    verdict: verdict(reason),
                    detail: forfeit.detail.clone(),
                    line: forfeit.line.clone(),
                    stderr_tail: forfeit.stderr_tail.clone(),
                })
                .collect(),
        }
    }
}

/// Milliseconds to a tenth, enough to read and short to write.
fn tenths(ms: f64) -> f64 {
    (ms * 10.0).round() / 10.0
}

/// A forfeit's reason in words.
fn verdict(reason: Reason) -> &'static str {
    match reason {
        Reason::Normal => "the board is full",
        Reason::Timeout => "lost on time: no answer within its time",
        Reason::Disconnect => "crashed: the bot exited or closed its pipes",
        Reason::IllegalMove => "an illegal move",
        Reason::ProtocolError => "broke the protocol",
        Reason::Stall => "stalled: no answer to new_game or ping",
        Reason::Memory => "killed for using more memory than its sandbox allows",
        Reason::Resign => "resigned",
    }
}

#[cfg(test)]
mod tests {
    use pahtum_tournament::testing::{forfeited, record, swapped};

    use super::*;

    #[test]
    fn a_replay_names_the_seat_of_every_move_of_an_old_record_after_a_swap() {
        let mut game = swapped(record("000-00-a", "a", "b"));
        game.moves = [("d4", Color::White), ("e5", Color::Black), ("c3", Color::White)]
            .map(|(cell, color)| pahtum_record::MoveRecord {
                kind: MoveKind::Stone,
                seat: None,
                color,
                cell: cell.parse().unwrap(),
                timing: pahtum_record::Timing {
                    ms: 1.23456,
                    ..Default::default()
                },
            })
            .to_vec();
        let replay = serde_json::to_value(Replay::of(&game, &mut Comments::default(), None)).unwrap();
        assert_eq!(replay["cells"], "d4e5c3");
        assert_eq!(replay["colors"], "wbw");
        // The first seat's White stone, then the swap: the first seat holds Black, the second White.
        assert_eq!(replay["seats"], "112");
        assert_eq!(replay["ms"], serde_json::json!([1.2, 1.2, 1.2]));
    }

    #[test]
    fn a_replays_size_counts_its_analysis() {
        let game = crate::fixtures::played("000-00-a", "a", "b");
        let analysis = crate::html::analysis::tests::analysis_of(
            &game,
            &[(3, pahtum_record::annotations::Grade::Mistake)],
            pahtum_record::annotations::Losing::default(),
        );
        let with = serde_json::to_vec(&Replay::of(&game, &mut Comments::default(), Some(&analysis))).unwrap();
        let size = ReplaySize::of(&game);
        assert_eq!(size.with_analysis(&analysis).bytes as usize, with.len());
        assert!((size.bytes as usize) < with.len());
        let replay: serde_json::Value = serde_json::from_slice(&with).unwrap();
        let plies = replay["analysis"]["plies"].as_array().unwrap();
        assert_eq!(plies.len(), game.replay().unwrap().history().len(), "one entry per ply");
        assert_eq!(plies[2]["g"], "?");
        assert_eq!(plies[2]["b"], serde_json::json!({"m": 3}));
        assert_eq!(plies[0]["a"], serde_json::json!({"x": 0.5}));
        assert_eq!(plies[0]["best"], "g7 #a2");
    }

    #[test]
    fn the_standings_show_the_essential_columns_and_the_forfeits_in_all_then_the_folded_ones() {
        let games = [
            forfeited(record("000-00-a", "a", "b"), Seat::Second, Reason::Timeout),
            forfeited(record("001-00-a", "b", "c"), Seat::First, Reason::IllegalMove),
            record("002-00-a", "c", "a"),
        ];
        let bots = pahtum_tournament::testing::tournament().bot_names();
        let standings = pahtum_standings::standings::standings(&games, &bots, None).unwrap();
        let table = StandingsTable::of(&standings);
        let header = &table.rows[0];
        assert_eq!(
            header[..table.shown].join(" "),
            "# bot games W D L points score Elo 95% interval forfeits"
        );
        assert_eq!(
            header[table.shown..],
            FOLDED,
            "every folded column, after the shown ones"
        );
        let b = table.rows.iter().find(|row| row[1] == "b").unwrap();
        let column = |name: &str| header.iter().position(|h| h == name).unwrap();
        assert_eq!(
            (&b[column("forfeits")], &b[column("timeouts")], &b[column("illegal")]),
            (&"2".to_owned(), &"1".to_owned(), &"1".to_owned())
        );
        assert!(table.rows.iter().all(|row| row.len() == header.len()));
    }

    #[test]
    fn the_row_of_a_game_has_its_pie_decision() {
        let row = |game: &GameRecord| GameRow::read(&serde_json::to_vec(game).unwrap()).unwrap();
        let mut game = record("000-00-a", "a", "b");
        assert_eq!(row(&game).swap, Some(false));
        assert_eq!(row(&swapped(game.clone())).swap, Some(true));
        game.swap = None;
        assert!(
            !serde_json::to_string(&row(&game)).unwrap().contains("swap"),
            "no pie decision, no key"
        );
    }

    #[test]
    fn the_row_of_a_forfeit_names_the_bot() {
        let game = forfeited(record("000-00-a", "a", "b"), Seat::Second, Reason::IllegalMove);
        let row = GameRow::read(&serde_json::to_vec(&game).unwrap()).unwrap();
        assert_eq!((row.id.as_str(), row.first.as_str()), ("000-00-a", "a"));
        assert_eq!(row.forfeited, ["b"]);
        assert_eq!(row.reason, Reason::IllegalMove);
    }
}
