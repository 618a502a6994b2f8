//! The analysis of the games (`analysis.jsonl`, written by `arena analyze`) on the page: where a game was
//! lost, shown where people look.
//!
//! The viewer gets, with each embedded replay, its analysis in a compact form ([`ReplayAnalysis`]: per ply
//! the value before and after for the mover, what the move cost, the best moves and the mistake's mark),
//! counted in the replay's bytes. The page gets, per bot, its marks per game by phase of the game and its
//! losing moves ([`Mistakes`]), counted over every game of the journal that has an analysis of its record.
//!
//! Memory: the analyses themselves are read one at a time (the report keeps where each lies in the file,
//! like the records); the report keeps, per analysed game, its id, its record's hash and where its line lies
//! ([`AnalysisIndex`]), per bot a few counts, and at most [`MAX_LOSING`] losing moves per bot.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{self, BufRead, Read, Seek, SeekFrom};
use std::num::NonZeroU32;
use std::path::Path;

use pahtum::Seat;
use pahtum_record::GameRecord;
use pahtum_record::annotations::{GameAnalysis, Grade, Kind, Losing, MoveAnalysis, Value};
use serde::{Deserialize, Serialize};

/// A ply is in the opening while more than this many cells are free (about the first third of the stones).
pub const OPENING_FREE: usize = 30;
/// A ply is in the endgame from this many free cells down: where the solver usually proves the values.
pub const ENDGAME_FREE: usize = 18;
/// The most losing moves listed per bot: its first, by game id and ply.
pub const MAX_LOSING: usize = 100;

/// The phases of a game, as the page names them.
pub const PHASES: [&str; 3] = ["opening", "middle", "endgame"];

/// Where the lines of an analysis file lie: for each game, the last line of each record's hash.
#[derive(Debug)]
pub struct AnalysisIndex {
    file: File,
    lines: HashMap<String, Vec<(String, Span)>>,
}

/// Where a line lies in the analysis file. Its length is never 0 (an empty line is no analysis), so that an
/// `Option<Span>`, which the report's sample of games keeps for each game, takes no more room than a span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    offset: u64,
    len: NonZeroU32,
}

/// What the index reads of a line.
#[derive(Deserialize)]
struct Key {
    game: String,
    record: String,
}

impl AnalysisIndex {
    /// The index of the analysis file at `path`; `None` when there is none.
    pub fn open(path: &Path) -> io::Result<Option<AnalysisIndex>> {
        let file = match File::open(path) {
            Ok(file) => file,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(error),
        };
        let mut lines: HashMap<String, Vec<(String, Span)>> = HashMap::new();
        let mut offset = 0;
        for line in io::BufReader::new(&file).split(b'\n') {
            let line = line?;
            let len = u32::try_from(line.len()).ok().and_then(NonZeroU32::new);
            let start = offset;
            offset += line.len() as u64 + 1;
            // A line that does not parse (a torn last line) is skipped, as `pahtum_record::annotations` skips it.
            let (Some(len), Ok(key)) = (len, serde_json::from_slice::<Key>(&line)) else {
                continue;
            };
            let span = Span { offset: start, len };
            let game = lines.entry(key.game).or_default();
            match game.iter_mut().find(|(hash, _)| *hash == key.record) {
                Some(found) => found.1 = span,
                None => game.push((key.record, span)),
            }
        }
        Ok(Some(AnalysisIndex { file, lines }))
    }

    /// Where the analysis of game `id`, whose record has the hash `hash`, lies; `None` without one.
    pub fn find(&self, id: &str, hash: &str) -> Option<Span> {
        let lines = self.lines.get(id)?;
        lines.iter().find(|(of, _)| of == hash).map(|(_, span)| *span)
    }

    /// The analysis at `span`, read back; `None` if the line is no analysis (it changed since).
    pub fn read(&self, span: Span) -> io::Result<Option<GameAnalysis>> {
        let mut line = vec![0; span.len.get() as usize];
        let mut file = &self.file;
        file.seek(SeekFrom::Start(span.offset))?;
        file.read_exact(&mut line)?;
        Ok(serde_json::from_slice(&line).ok())
    }
}

/// A value for the viewer: `{"m": margin}` when exact, `{"x": expected result}` when estimated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum ValueView {
    /// A proven final margin.
    #[serde(rename = "m")]
    Margin(i32),
    /// An estimated expected result, 0 to 1.
    #[serde(rename = "x")]
    Expected(f64),
}

impl ValueView {
    fn of(value: &Value) -> ValueView {
        match value.margin {
            Some(margin) => ValueView::Margin(margin),
            None => ValueView::Expected(value.expected_result()),
        }
    }
}

/// One ply's analysis for the viewer, from the mover's point of view.
#[derive(Debug, Serialize)]
pub struct PlyView {
    /// The value before the move.
    pub b: ValueView,
    /// The value after the move played.
    pub a: ValueView,
    /// What the move cost (points where both values are exact, expected result otherwise).
    pub l: f64,
    /// The best moves, in the protocol's notation, joined by spaces.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub best: String,
    /// The mistake's mark (`?!`, `?`, `??`), absent for a good move or a given one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub g: Option<&'static str>,
}

/// A game's analysis for the viewer: one entry per ply, as the viewer numbers them, and the losing moves.
#[derive(Debug, Serialize)]
pub struct ReplayAnalysis {
    /// Per ply, in order.
    pub plies: Vec<PlyView>,
    /// The ply of each side's losing move, by its colour at the end.
    pub losing: Losing,
}

impl ReplayAnalysis {
    /// The viewer's form of `analysis`.
    pub fn of(analysis: &GameAnalysis) -> ReplayAnalysis {
        ReplayAnalysis {
            plies: analysis
                .moves
                .iter()
                .map(|ply| PlyView {
                    b: ValueView::of(&ply.before),
                    a: ValueView::of(&ply.after),
                    l: ply.loss,
                    best: ply.best.join(" "),
                    g: ply.grade.map(Grade::mark),
                })
                .collect(),
            losing: analysis.losing,
        }
    }
}

/// A value as the page writes it: a signed margin when exact, the expected result when estimated.
pub fn value_text(value: &Value) -> String {
    match value.margin {
        Some(margin) => format!("{margin:+} (exact)"),
        None => format!("{:.2} expected", value.expected_result()),
    }
}

/// The phase of the game of a ply made with `free` cells free: 0 the opening, 1 the middle, 2 the endgame.
pub fn phase(free: usize) -> usize {
    if free > OPENING_FREE {
        0
    } else if free > ENDGAME_FREE {
        1
    } else {
        2
    }
}

/// A losing move, as the page lists it.
#[derive(Debug, Clone, Serialize)]
pub struct LosingMove {
    /// The game's id.
    pub game: String,
    /// The ply, in the one numbering of plies.
    pub ply: usize,
    /// The move played.
    pub played: String,
    /// The best moves, joined by spaces.
    pub best: String,
    /// The value before the move, for the mover, as text.
    pub before: String,
    /// The value after it.
    pub after: String,
    /// The address of the game's replay at the ply (`#game=ID&ply=N`), when the replay is on the page.
    pub link: Option<String>,
}

/// One bot's marks and losing moves.
#[derive(Debug, Default)]
struct BotTally {
    games: u32,
    /// By phase, then by grade (inaccuracy, mistake, blunder).
    marks: [[u32; 3]; 3],
    losing: usize,
    /// Its first losing moves, by game id and ply, at most [`MAX_LOSING`].
    listed: Vec<LosingMove>,
}

/// Each bot's marks by phase and its losing moves, over the analysed games.
#[derive(Debug, Default)]
pub struct Mistakes {
    bots: BTreeMap<String, BotTally>,
}

impl Mistakes {
    /// Counts `analysis`, of `record` (whose moves it need not hold).
    pub fn add(&mut self, record: &GameRecord, analysis: &GameAnalysis) {
        let bot = |seat: Seat| match seat {
            Seat::First => &record.players.first,
            Seat::Second => &record.players.second,
        };
        for name in [&record.players.first, &record.players.second] {
            self.bots.entry(name.clone()).or_default().games += 1;
        }
        // The free cells before the first ply: all but the blocks the board started with.
        let placed = analysis.moves.iter().filter(|ply| ply.kind == Kind::Block).count();
        let mut free = 49 - (record.blocks.len() - placed.min(record.blocks.len()));
        for ply in &analysis.moves {
            if let Some(grade) = ply.grade {
                let tally = self.bots.entry(bot(ply.seat).clone()).or_default();
                tally.marks[phase(free)][grade as usize] += 1;
            }
            if ply.kind != Kind::Pie {
                free = free.saturating_sub(1);
            }
        }
        let losing = [
            (&record.white, analysis.losing.white),
            (&record.black, analysis.losing.black),
        ];
        for (name, ply) in losing {
            let Some(played) = ply.and_then(|ply| analysis.moves.iter().find(|m| m.ply == ply)) else {
                continue;
            };
            let tally = self.bots.entry(name.clone()).or_default();
            tally.losing += 1;
            tally.listed.push(losing_move(&record.id, played));
            tally.listed.sort_by(|a, b| (&a.game, a.ply).cmp(&(&b.game, b.ply)));
            tally.listed.truncate(MAX_LOSING);
        }
    }

    /// The page's tables, `embedded` saying which games have their replay on the page; `None` without any
    /// analysed game.
    pub fn tables(&self, embedded: impl Fn(&str) -> bool) -> Option<AnalysisTables> {
        if self.bots.is_empty() {
            return None;
        }
        let mut phases = Vec::new();
        let mut losing = Vec::new();
        for (bot, tally) in &self.bots {
            let games = f64::from(tally.games.max(1));
            phases.push(PhaseRow {
                bot: bot.clone(),
                games: tally.games,
                cells: tally
                    .marks
                    .iter()
                    .flatten()
                    .map(|&count| MarkCell {
                        count,
                        per_game: format!("{:.2}", f64::from(count) / games),
                    })
                    .collect(),
                losing: tally.losing,
            });
            let mut moves = tally.listed.clone();
            for entry in &mut moves {
                entry.link =
                    embedded(&entry.game).then(|| format!("#game={}&ply={}", component(&entry.game), entry.ply));
            }
            losing.push(BotLosing {
                more: tally.losing - moves.len(),
                bot: bot.clone(),
                moves,
            });
        }
        Some(AnalysisTables {
            phases,
            losing,
            note: format!(
                "From analysis.jsonl (arena analyze), over the games whose record it analysed. Marks: ?! an \
                 inaccuracy, ? a mistake, ?? a blunder, per game the bot played. Phases by the cells free \
                 before the move: the opening more than {OPENING_FREE}, the middle {} to {OPENING_FREE}, the \
                 endgame {ENDGAME_FREE} or fewer. A losing move is the first after which the bot's outcome was \
                 worse (a win drawn or lost, a draw lost); at most {MAX_LOSING} are listed per bot, its first by \
                 game id.",
                ENDGAME_FREE + 1
            ),
        })
    }
}

fn losing_move(game: &str, played: &MoveAnalysis) -> LosingMove {
    LosingMove {
        game: game.to_owned(),
        ply: played.ply,
        played: played.played.clone(),
        best: played.best.join(" "),
        before: value_text(&played.before),
        after: value_text(&played.after),
        link: None,
    }
}

/// `text` as a component of an address, as the script's `encodeURIComponent` writes it.
fn component(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The analysis's part of the page.
#[derive(Debug, Serialize)]
pub struct AnalysisTables {
    /// Per bot, by name.
    pub phases: Vec<PhaseRow>,
    /// Per bot, by name.
    pub losing: Vec<BotLosing>,
    /// What the tables count.
    pub note: String,
}

/// A bot's marks per game by phase.
#[derive(Debug, Serialize)]
pub struct PhaseRow {
    /// The bot.
    pub bot: String,
    /// The analysed games it played.
    pub games: u32,
    /// By phase (opening, middle, endgame), then by mark (`?!`, `?`, `??`).
    pub cells: Vec<MarkCell>,
    /// Its losing moves.
    pub losing: usize,
}

/// A count of marks.
#[derive(Debug, Serialize)]
pub struct MarkCell {
    /// In all.
    pub count: u32,
    /// Per game, as text.
    pub per_game: String,
}

/// A bot's losing moves.
#[derive(Debug, Serialize)]
pub struct BotLosing {
    /// The bot.
    pub bot: String,
    /// The first [`MAX_LOSING`], by game id and ply.
    pub moves: Vec<LosingMove>,
    /// How many more it has.
    pub more: usize,
}

#[cfg(test)]
pub(crate) mod tests {
    use pahtum_record::annotations::Effort;

    use super::*;
    use crate::fixtures::played_with;

    /// An analysis of `record` (with its moves) whose every ply keeps an even estimate, but the plies of
    /// `graded` (with their grade), and whose losing moves are `losing`.
    pub(crate) fn analysis_of(record: &GameRecord, graded: &[(usize, Grade)], losing: Losing) -> GameAnalysis {
        let history = record.replay().unwrap().history().to_vec();
        let mut moves = Vec::new();
        for (index, action) in history.iter().enumerate() {
            let ply = index + 1;
            let (kind, seat) = match record
                .moves
                .iter()
                .enumerate()
                .find(|(i, _)| record.ply_of_move(*i) == ply)
            {
                Some((i, played)) => (
                    if played.kind == pahtum_record::MoveKind::Block {
                        Kind::Block
                    } else {
                        Kind::Stone
                    },
                    record.seat_of_move(i),
                ),
                None => (Kind::Pie, Seat::Second),
            };
            let grade = graded.iter().find(|(at, _)| *at == ply).map(|(_, grade)| *grade);
            moves.push(MoveAnalysis {
                ply,
                kind,
                played: action.to_string(),
                color: pahtum::Color::White,
                seat,
                given: false,
                before: Value::exact(3),
                after: if grade.is_some() {
                    Value::exact(-3)
                } else {
                    Value::estimated(0.5)
                },
                best: vec!["g7".to_owned(), "#a2".to_owned()],
                loss: if grade.is_some() { 6.0 } else { 0.0 },
                grade,
            });
        }
        GameAnalysis {
            game: record.id.clone(),
            record: pahtum_record::annotations::record_hash(record),
            moves,
            losing,
            effort: Effort {
                exact_from: 18,
                playouts: 10,
                seed: 1,
            },
        }
    }

    /// A played game with the pie rule, the second seat taking White, on a board of one block: 48 stones.
    fn swapped(id: &str) -> GameRecord {
        played_with(id, "a", "b", Some(true), |game| game.position().free().cells().next())
    }

    #[test]
    fn marks_are_counted_by_the_free_cells_before_the_move_for_the_bot_that_made_it() {
        let record = swapped("000-00-a");
        assert_eq!(record.pie_ply(), Some(2));
        // 48 free cells before ply 1, 47 before the pie decision (ply 2) and the stone after it (ply 3), then
        // one fewer per ply: more than 30 up to ply 19, 30 to 19 from ply 20 to 31, 18 from ply 32.
        let graded = [
            (2, Grade::Blunder),
            (19, Grade::Inaccuracy),
            (20, Grade::Mistake),
            (31, Grade::Mistake),
            (32, Grade::Blunder),
        ];
        let mut mistakes = Mistakes::default();
        mistakes.add(&record, &analysis_of(&record, &graded, Losing::default()));
        let tables = mistakes.tables(|_| true).unwrap();
        let counts = |bot: &str| -> Vec<u32> {
            let row = tables.phases.iter().find(|row| row.bot == bot).unwrap();
            assert_eq!(row.games, 1);
            row.cells.iter().map(|cell| cell.count).collect()
        };
        let (a, b) = (counts("a"), counts("b"));
        let sum: Vec<u32> = a.iter().zip(&b).map(|(a, b)| a + b).collect();
        // Opening ?! ? ??, middle ?! ? ??, endgame ?! ? ??.
        assert_eq!(sum, [1, 0, 1, 0, 2, 0, 0, 0, 1]);
        // The pie decision is the second seat's.
        assert_eq!(b[2], 1, "{b:?}");
        let bot_of = |ply: usize| {
            let index = (0..record.moves.len()).find(|&i| record.ply_of_move(i) == ply).unwrap();
            if record.seat_of_move(index) == Seat::First {
                &a
            } else {
                &b
            }
        };
        assert_eq!(bot_of(32)[8], 1, "the endgame blunder is its mover's");
        assert!(tables.note.contains("more than 30") && tables.note.contains("18 or fewer"));
    }

    #[test]
    fn losing_moves_are_the_bots_by_their_colour_at_the_end_linked_to_the_replay_and_capped() {
        let mut mistakes = Mistakes::default();
        let extra = 5;
        for n in (0..MAX_LOSING + extra).rev() {
            let record = swapped(&format!("{n:03}-00-a"));
            // After the swap the second seat, b, is White.
            let losing = Losing {
                white: Some(7),
                black: None,
            };
            mistakes.add(&record, &analysis_of(&record, &[], losing));
        }
        let tables = mistakes.tables(|id| id == "000-00-a").unwrap();
        let b = tables.losing.iter().find(|bot| bot.bot == "b").unwrap();
        assert_eq!((b.moves.len(), b.more), (MAX_LOSING, extra));
        let first = &b.moves[0];
        assert_eq!((first.game.as_str(), first.ply), ("000-00-a", 7));
        assert_eq!(
            (first.before.as_str(), first.after.as_str()),
            ("+3 (exact)", "0.50 expected")
        );
        assert_eq!(first.best, "g7 #a2");
        assert_eq!(first.link.as_deref(), Some("#game=000-00-a&ply=7"));
        assert_eq!(b.moves[1].link, None, "no replay, no link");
        assert!(
            b.moves.windows(2).all(|pair| pair[0].game < pair[1].game),
            "the first by game id"
        );
        let a = tables.losing.iter().find(|bot| bot.bot == "a").unwrap();
        assert!(a.moves.is_empty());
        assert_eq!(component("a b&c/é"), "a%20b%26c%2F%C3%A9");
    }
}
