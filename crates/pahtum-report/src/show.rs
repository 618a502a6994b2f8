//! Games in the terminal: one game for a person to read, or a list of games to choose from.
//!
//! `arena show` prints one game so that it fits on a screen or two
//! ([`View::Compact`]): who sat where and played which colour, the result and
//! how the game ended (a forfeit with its verdict, offending line and stderr
//! tail), the final board with its scoring runs marked and listed (in capitals,
//! and in bold where the terminal shows colour), and the numbered plies with
//! the time each answer took and a short `info`.
//! [`View::Boards`] shows instead the board after every ply with that ply's
//! cell in parentheses, the running score and each `info` in full. Plies are
//! numbered as everywhere (RECORD.md, "Move numbers"): the players' blocks
//! and the pie decision count, so that ply 11 here is ply 11 in the HTML
//! viewer. Everything a bot wrote (names, info, lines) goes through
//! [`pahtum_protocol::untrusted::escape`], so that it cannot move the cursor
//! or recolour the terminal.
//!
//! Where the game has an analysis (`arena analyze`, [`Analysis::Found`]),
//! each ply also shows, in columns, the value of the position after it for
//! the player who made it (`=+12`: a proven final margin, `53%`: an estimated
//! result), what the move lost, its grade as chess marks it (`?!` an
//! inaccuracy, `?` a mistake, `??` a blunder), `← losing move` on each side's
//! losing move and the best moves where the one played was not among them:
//! the question a bot author comes with is which move lost the game. Without
//! one, a line says how to make it.

use std::collections::BTreeSet;
use std::fmt::{self, Write};

use pahtum::{Action, Cell, Color, Seat};
use pahtum_protocol::untrusted::escape;
use pahtum_protocol::{Info, Placement};
use pahtum_record::annotations::{GameAnalysis, Grade, MoveAnalysis, Value};
use pahtum_record::{GameRecord, MoveKind, ReplayError, Timing};

use crate::board::{board, runs};

/// How much of a game [`game_text`] prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// The final board and the list of plies: about a screen for a whole game.
    Compact,
    /// The board after every ply, with the running score and each `info` in full.
    Boards,
}

/// What is known of a game's analysis.
#[derive(Debug, Clone, Copy)]
pub enum Analysis<'a> {
    /// The game's analysis (of its record as it is), and where it was read from.
    Found {
        /// The analysis.
        analysis: &'a GameAnalysis,
        /// The file it was read from, as the user would name it.
        from: &'a str,
    },
    /// None: the command that would make one (`arena analyze runs/x 003-01-b`).
    Missing {
        /// The command.
        command: &'a str,
    },
}

/// The most characters of a ply's `info` that the compact list shows; `--boards` shows it all.
const SHORT_INFO: usize = 40;

/// The most best moves the compact list names; `--boards` names them all.
const SHORT_BEST: usize = 3;

/// `record` for a person with what `analysis` says of it (see the module docs); fails if it does not replay.
pub fn game_text(record: &GameRecord, view: View, analysis: Analysis<'_>) -> Result<String, ReplayError> {
    let end = record.replay()?;
    let plies = plies(record);
    let found = match analysis {
        Analysis::Found { analysis, .. } => Some(analysis),
        Analysis::Missing { .. } => None,
    };
    let list = PlyList::of(record, found, view);
    let mut out = header(record);
    out.push_str(&analysis_lines(analysis));
    out.push('\n');
    if view == View::Boards {
        // The record replayed above, so neither its setup nor its plies are refused here.
        let mut game = record.rules.start(&record.blocks).map_err(ReplayError::Setup)?;
        out.push_str(&board(game.position(), None));
        for ply in &plies {
            game.play(ply.action)
                .map_err(|error| ReplayError::IllegalPly { ply: ply.number, error })?;
            writeln!(out, "\n{}", list.line(ply)).unwrap();
            out.push_str(&board(game.position(), cell_of(ply.action)));
            let score = game.score();
            writeln!(out, "  White {} - {} Black", score.white, score.black).unwrap();
        }
        out.push('\n');
    } else {
        out.push_str(&board(end.position(), plies.last().and_then(|ply| cell_of(ply.action))));
    }
    out.push_str(&runs(end.position(), ["White", "Black"]));
    out.push_str("  W B: stones in a scoring run, w b: the others, (x): the last ply\n");
    if view == View::Compact {
        let columns = if found.is_some() {
            "each answer's time, the value after it, its marks and info"
        } else {
            "each answer's time and info"
        };
        writeln!(
            out,
            "\nPlies (the pie decision and the players' blocks count), {columns}:"
        )
        .unwrap();
        for ply in &plies {
            writeln!(out, "{}", list.line(ply)).unwrap();
        }
    }
    Ok(out)
}

/// Who played, the rules, the result and how the game ended.
fn header(record: &GameRecord) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "Game {}: {} (first seat) against {} (second seat)",
        escape(&record.id),
        escape(&record.players.first),
        escape(&record.players.second),
    )
    .unwrap();
    let placement = match record.rules.placement {
        Placement::Random => "random",
        Placement::Fixed => "fixed",
        Placement::Players => "placed by the players",
    };
    let pie = match (record.rules.pie, record.swap) {
        (false, _) => "pie rule off".to_owned(),
        (true, None) => "pie rule on, not reached".to_owned(),
        (true, Some(swap)) => format!(
            "pie rule on: {} {}",
            escape(&record.players.second),
            if swap { "swapped" } else { "kept the colours" }
        ),
    };
    writeln!(
        out,
        "{} blocks ({placement}), {pie}; White {}, Black {}",
        record.rules.blocks,
        escape(&record.white),
        escape(&record.black)
    )
    .unwrap();
    writeln!(
        out,
        "Result: White {} - {} Black, {}; end: {}",
        record.score.white,
        record.score.black,
        outcome(record),
        record.termination.end()
    )
    .unwrap();
    if let Some(opening) = &record.opening {
        let game = opening
            .from
            .as_ref()
            .map(|origin| format!(" from game {} of {}", escape(&origin.game), escape(&origin.file)));
        let book = opening
            .book
            .as_ref()
            .map(|book| format!(" from line {} of the book {}", book.line, escape(&book.file)));
        let from = game.or(book).unwrap_or_default();
        writeln!(
            out,
            "Started at ply {}: plies 1 to {} were given{from}, not played by the bots",
            opening.plies + 1,
            opening.plies
        )
        .unwrap();
    }
    for (reason, forfeit) in record.termination.forfeits() {
        writeln!(
            out,
            "Forfeit by {} ({} seat, {}; {reason}): {}",
            escape(&forfeit.bot),
            forfeit.seat,
            forfeit.color,
            escape(&forfeit.detail)
        )
        .unwrap();
        if let Some(line) = &forfeit.line {
            writeln!(out, "  offending line: {}", escape(line)).unwrap();
        }
        for line in &forfeit.stderr_tail {
            writeln!(out, "  stderr: {}", escape(line)).unwrap();
        }
    }
    out
}

/// The lines under the header that say where the analysis came from, its effort and what its marks mean;
/// or, without one, how to make it.
fn analysis_lines(analysis: Analysis<'_>) -> String {
    match analysis {
        Analysis::Found { analysis, from } => {
            let effort = &analysis.effort;
            format!(
                "Analysis ({}): solved exactly from {} free cells, estimated before by {} playouts (seed {})\n  \
                 after each move, for its mover: =+12 a proven final margin, 53% an estimated result; -3, -8%: \
                 what it lost; ?! inaccuracy, ? mistake, ?? blunder\n",
                escape(from),
                effort.exact_from,
                effort.playouts,
                effort.seed
            )
        }
        Analysis::Missing { command } => {
            format!("(no analysis: {} to see where it was lost)\n", escape(command))
        }
    }
}

/// One ply of a record, numbered as everywhere (see [`GameRecord::ply_of_move`]).
struct Ply<'a> {
    number: usize,
    action: Action,
    color: Color,
    seat: Seat,
    /// The answer's time and info (the pie decision of an old record has none,
    /// a given ply neither).
    timing: Option<&'a Timing>,
    /// Given before the bots played (`--moves`, `--from`), not a bot's choice.
    given: bool,
}

/// Every ply of `record` in order: its moves, and the pie decision in its place.
fn plies(record: &GameRecord) -> Vec<Ply<'_>> {
    let mut plies: Vec<Ply<'_>> = record
        .moves
        .iter()
        .enumerate()
        .map(|(index, played)| Ply {
            number: record.ply_of_move(index),
            action: match played.kind {
                MoveKind::Block => Action::Block(played.cell),
                MoveKind::Stone => Action::Stone(played.cell),
            },
            color: played.color,
            seat: record.seat_of_move(index),
            given: record.is_given(index),
            timing: Some(&played.timing).filter(|_| !record.is_given(index)),
        })
        .collect();
    if let (Some(number), Some(swap)) = (record.pie_ply(), record.swap) {
        plies.insert(
            number - 1,
            Ply {
                number,
                action: Action::Pie(swap),
                color: Color::Black,
                seat: Seat::Second,
                timing: record.swap_move.as_ref(),
                given: record.opening.as_ref().is_some_and(|opening| number <= opening.plies),
            },
        );
    }
    plies
}

/// The cell an action puts something on.
fn cell_of(action: Action) -> Option<Cell> {
    match action {
        Action::Block(cell) | Action::Stone(cell) => Some(cell),
        Action::Pie(_) => None,
    }
}

/// The lines of a game's plies, its bots' names escaped and padded to one width, with the analysis's columns
/// where there is one.
struct PlyList<'a> {
    /// By seat.
    names: [String; 2],
    width: usize,
    analysis: Option<&'a GameAnalysis>,
    view: View,
}

impl<'a> PlyList<'a> {
    fn of(record: &GameRecord, analysis: Option<&'a GameAnalysis>, view: View) -> PlyList<'a> {
        let names = [Seat::First, Seat::Second].map(|seat| escape(record.players.of(seat)).into_owned());
        let given = if record.opening.is_some() { "given".len() } else { 0 };
        let width = names
            .iter()
            .map(|name| name.chars().count())
            .max()
            .unwrap_or(0)
            .max(given);
        PlyList {
            names,
            width,
            analysis,
            view,
        }
    }

    /// `12. d4    white  heuristic   12.3 ms  =+12    -3 ?!  best e5  eval 0.5, depth 4`: the analysis's
    /// columns where there is one, the info cut in the compact view.
    fn line(&self, ply: &Ply<'_>) -> String {
        let bot = if ply.given {
            "given"
        } else {
            &self.names[usize::from(ply.seat == Seat::Second)]
        };
        let mut line = format!(
            "{:>3}. {:<4}  {:<5}  {bot:<width$}",
            ply.number,
            ply.action.to_string(),
            ply.color.to_string(),
            width = self.width
        );
        match ply.timing {
            Some(timing) => write!(line, "  {:>7.1} ms", timing.ms).unwrap(),
            None if self.analysis.is_some() => line.push_str(&" ".repeat(12)),
            None => {}
        }
        if let Some(analysis) = self.analysis {
            line.push_str(&self.marks(analysis, ply));
        }
        if let Some(info) = ply.timing.and_then(|timing| timing.info.as_ref()) {
            let chars = if self.view == View::Compact {
                SHORT_INFO
            } else {
                usize::MAX
            };
            write!(line, "  {}", cut(&info_text(info), chars)).unwrap();
        }
        line.trim_end().to_owned()
    }

    /// The analysis's columns for `ply`: the value after it, the loss and the grade, then the losing move's
    /// marker and the best moves where the one played was not among them.
    fn marks(&self, analysis: &GameAnalysis, ply: &Ply<'_>) -> String {
        let Some(entry) = move_analysis(analysis, ply) else {
            return String::new();
        };
        let mut marks = format!(
            "  {:>5} {:>5} {:<2}",
            value_text(&entry.after),
            loss_text(entry),
            entry.grade.map_or("", Grade::mark)
        );
        if [analysis.losing.white, analysis.losing.black].contains(&Some(ply.number)) {
            marks.push_str("  ← losing move");
        }
        if !entry.best.is_empty() && !entry.best.contains(&entry.played) {
            let named = if self.view == View::Compact {
                SHORT_BEST
            } else {
                usize::MAX
            };
            let best: Vec<String> = entry
                .best
                .iter()
                .take(named)
                .map(|best| escape(best).into_owned())
                .collect();
            write!(marks, "  best {}", best.join(" ")).unwrap();
            if entry.best.len() > best.len() {
                write!(marks, " (+{})", entry.best.len() - best.len()).unwrap();
            }
        }
        marks
    }
}

/// The analysis of `ply`, if the analysis has that ply and it is the move played.
fn move_analysis<'a>(analysis: &'a GameAnalysis, ply: &Ply<'_>) -> Option<&'a MoveAnalysis> {
    analysis
        .moves
        .get(ply.number - 1)
        .filter(|entry| entry.ply == ply.number && entry.played == ply.action.to_string())
}

/// `=+12`, `=-3`, `=0` (a proven final margin) or `53%` (an estimated result).
fn value_text(value: &Value) -> String {
    match value.margin {
        Some(0) => "=0".to_owned(),
        Some(margin) => format!("={margin:+}"),
        None => format!("{:.0}%", value.expected_result() * 100.0),
    }
}

/// What a move lost: `-3` points of proven margin, `-8%` of expected result; nothing when it lost nothing.
fn loss_text(entry: &MoveAnalysis) -> String {
    let text = if entry.before.exact && entry.after.exact {
        format!("-{:.0}", entry.loss)
    } else {
        format!("-{:.0}%", entry.loss * 100.0)
    };
    if text.trim_start_matches('-').trim_end_matches('%') == "0" {
        String::new()
    } else {
        text
    }
}

/// The first `chars` characters of `text`, with `…` for the rest.
fn cut(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

fn outcome(record: &GameRecord) -> String {
    match record.result.winner() {
        Some(color) => format!(
            "{color} ({}) won",
            escape(record.players.of(seat_of_color(record, color)))
        ),
        None => "draw".to_owned(),
    }
}

fn seat_of_color(record: &GameRecord, color: Color) -> Seat {
    if record.color_of(Seat::First) == color {
        Seat::First
    } else {
        Seat::Second
    }
}

/// `eval 0.5, depth 4, pv d4 e5, "comment"`.
fn info_text(info: &Info) -> String {
    let mut parts = Vec::new();
    if let Some(eval) = info.eval {
        parts.push(format!("eval {eval}"));
    }
    if let Some(depth) = info.depth {
        parts.push(format!("depth {depth}"));
    }
    if let Some(nodes) = info.nodes {
        parts.push(format!("nodes {nodes}"));
    }
    if let Some(pv) = &info.pv {
        parts.push(format!("pv {}", escape(&pv.join(" "))));
    }
    if let Some(comment) = &info.comment {
        parts.push(format!("\"{}\"", escape(comment)));
    }
    parts.join(", ")
}

/// Which games a list shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Select {
    /// Every game.
    All,
    /// The games a bot played.
    Bot(String),
    /// The games a bot lost (forfeits included).
    LostBy(String),
}

impl Select {
    /// Whether `record` is one of the games chosen.
    pub fn takes(&self, record: &GameRecord) -> bool {
        let seat_of = |bot: &str| {
            [Seat::First, Seat::Second]
                .into_iter()
                .find(|&seat| record.players.of(seat) == bot)
        };
        match self {
            Select::All => true,
            Select::Bot(bot) => seat_of(bot).is_some(),
            Select::LostBy(bot) => seat_of(bot).is_some_and(|seat| record.points_of(seat) == 0.0),
        }
    }

    /// Checks that the bot this selection names is one of `bots` (those of the games it selects from):
    /// an unknown name would select nothing, silently.
    pub fn check(&self, bots: &BTreeSet<String>) -> Result<(), UnknownBot> {
        match self {
            Select::Bot(bot) | Select::LostBy(bot) if !bots.contains(bot) => Err(UnknownBot {
                name: bot.clone(),
                known: bots.iter().cloned().collect(),
            }),
            _ => Ok(()),
        }
    }
}

/// A bot name that none of the games has: the name, and those they have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct UnknownBot {
    /// The name asked for (unescaped).
    pub name: String,
    /// The names the games have, sorted (unescaped).
    pub known: Vec<String>,
}

impl UnknownBot {
    /// The known name closest to the one asked for, if one is close: one holds the other (`random` for
    /// `python-random`), or it is a couple of typos away.
    pub fn suggestion(&self) -> Option<&str> {
        let asked = self.name.to_lowercase();
        let contains = |known: &str| {
            let known = known.to_lowercase();
            known.contains(&asked) || asked.contains(&known)
        };
        self.known
            .iter()
            .find(|known| contains(known))
            .or_else(|| {
                self.known
                    .iter()
                    .map(|known| (strsim::levenshtein(&asked, &known.to_lowercase()), known))
                    .filter(|&(distance, _)| distance <= 2)
                    .min_by_key(|&(distance, _)| distance)
                    .map(|(_, known)| known)
            })
            .map(String::as_str)
    }
}

impl fmt::Display for UnknownBot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no bot named \"{}\" played these games", escape(&self.name))?;
        if let Some(close) = self.suggestion() {
            write!(f, " (did you mean \"{}\"?)", escape(close))?;
        }
        let known: Vec<_> = self.known.iter().map(|name| escape(name)).collect();
        write!(f, "; give one of: {}", known.join(", "))
    }
}

/// The bots that played `records`.
pub fn bots_of(records: &[GameRecord]) -> BTreeSet<String> {
    records
        .iter()
        .flat_map(|record| [record.players.first.clone(), record.players.second.clone()])
        .collect()
}

/// One line per game of `records` that `select` takes, sorted by id, and a line with the count.
pub fn game_list(records: &[GameRecord], select: &Select) -> String {
    let mut chosen: Vec<&GameRecord> = records.iter().filter(|record| select.takes(record)).collect();
    chosen.sort_by(|a, b| a.id.cmp(&b.id));
    let mut out = String::new();
    for record in &chosen {
        writeln!(
            out,
            "{}  {} (White) - {} (Black)  {}-{}  {}  {}",
            escape(&record.id),
            escape(&record.white),
            escape(&record.black),
            record.score.white,
            record.score.black,
            outcome(record),
            record.termination.end()
        )
        .unwrap();
    }
    writeln!(out, "{} game(s)", chosen.len()).unwrap();
    out
}

#[cfg(test)]
mod tests {
    use pahtum::Seat;
    use pahtum_protocol::Reason;
    use pahtum_tournament::testing::{forfeited, record};

    use super::*;
    use crate::board::{BLACK_STONE, BLOCK, WHITE_STONE};
    use crate::fixtures::{played, played_with};
    use pahtum::{Cell, SIZE};

    /// No analysis of the game, and the command that would make one.
    const MISSING: Analysis<'static> = Analysis::Missing {
        command: "arena analyze game.json",
    };

    /// The text of `game` without its colours, as `arena` prints it where stdout is no terminal.
    fn plain(game: &GameRecord, view: View) -> String {
        plain_with(game, view, MISSING)
    }

    /// [`plain`] with what is known of the game's analysis.
    fn plain_with(game: &GameRecord, view: View, analysis: Analysis<'_>) -> String {
        anstream::adapter::strip_str(&game_text(game, view, analysis).unwrap()).to_string()
    }

    #[test]
    fn lists_select_by_bot_and_by_loss() {
        let records = [
            record("001-00-a", "a", "b"),
            forfeited(record("000-00-a", "b", "c"), Seat::First, Reason::Timeout),
            record("002-00-a", "c", "a"),
        ];
        let list = game_list(&records, &Select::Bot("b".into()));
        assert_eq!(list.lines().count(), 3, "{list}");
        assert!(list.starts_with("000-00-a  b (White) - c (Black)"), "{list}");
        assert!(list.ends_with("2 game(s)\n"), "{list}");
        let lost = game_list(&records, &Select::LostBy("a".into()));
        assert!(lost.starts_with("002-00-a") && lost.ends_with("1 game(s)\n"), "{lost}");
    }

    #[test]
    fn an_unknown_bot_is_an_error_that_lists_the_bots_and_suggests_a_close_one() {
        let records = [
            record("000-00-a", "python-random", "heuristic"),
            record("001-00-a", "js-greedy", "python-random"),
        ];
        let bots = bots_of(&records);
        assert_eq!(Select::All.check(&bots), Ok(()));
        assert_eq!(Select::LostBy("heuristic".into()).check(&bots), Ok(()));
        let error = Select::LostBy("random".into()).check(&bots).unwrap_err();
        assert_eq!(
            error.to_string(),
            "no bot named \"random\" played these games (did you mean \"python-random\"?); \
             give one of: heuristic, js-greedy, python-random"
        );
        let error = Select::Bot("Heuristc".into()).check(&bots).unwrap_err();
        assert_eq!(error.suggestion(), Some("heuristic"));
        let error = Select::Bot("engine".into()).check(&bots).unwrap_err();
        assert_eq!(error.suggestion(), None);
        let hostile = UnknownBot {
            name: "\u{1b}[2J".into(),
            known: vec!["\u{1b}]0;x\u{7}".into()],
        };
        assert_eq!(
            hostile.to_string(),
            "no bot named \"\\x1b[2J\" played these games; give one of: \\x1b]0;x\\x07"
        );
    }

    /// The compact view of a whole game: the header, the final board with its runs, and one line per ply,
    /// numbered as the viewer numbers them (the pie decision is ply 2).
    #[test]
    fn a_game_is_shown_compactly_with_its_final_board_runs_and_plies() {
        // White fills rows 2, 4 and 6, Black rows 3 and 5, then each takes the first free cell.
        let rows = |color| match color {
            Color::White => [1, 3, 5].as_slice(),
            Color::Black => [2, 4].as_slice(),
        };
        let game = played_with("000-00-a", "a", "b", Some(false), |game| {
            let color = game.color_to_act()?;
            let free = game.position().free();
            rows(color)
                .iter()
                .flat_map(|&row| (0..SIZE).filter_map(move |column| Cell::at(column, row)))
                .find(|&cell| free.contains(cell))
        });
        let text = plain(&game, View::Compact);
        insta::assert_snapshot!(text);
        let coloured = game_text(&game, View::Compact, MISSING).unwrap();
        let bold = WHITE_STONE.bold();
        assert!(coloured.contains(&format!(" {bold}W{bold:#} ")), "{coloured:?}");
        let lines = text.lines().count();
        assert!((40..=70).contains(&lines), "{lines} lines");
    }

    #[test]
    fn plies_are_numbered_as_everywhere_the_pie_decision_included() {
        for swap in [false, true] {
            let game = played_with("000-00-a", "first", "second", Some(swap), |_| None);
            let text = plain(&game, View::Compact);
            let decision = if swap { "swap" } else { "keep" };
            assert!(
                text.contains(&format!("\n  2. {decision}  black  second      0.5 ms\n")),
                "{text}"
            );
            // The record's second move is the viewer's ply 3.
            let second = &game.moves[1];
            assert_eq!(game.ply_of_move(1), 3);
            let bot = if swap { "first " } else { "second" };
            assert!(
                text.contains(&format!(
                    "\n  3. {:<4}  black  {bot}      1.5 ms",
                    second.cell.to_string()
                )),
                "{text}"
            );
        }
        let game = played("000-00-a", "a", "b");
        let text = plain(&game, View::Compact);
        assert!(
            text.contains("\n  2. c1    black  b      1.5 ms  \"first free\"\n"),
            "{text}"
        );
        assert!(text.contains("pie rule off; White a, Black b\n"), "{text}");
    }

    #[test]
    fn given_plies_are_shown_as_given_not_as_a_bots() {
        let mut game = played_with("000-00-a", "first", "second", Some(true), |_| None);
        game.opening = Some(pahtum_record::Opening {
            plies: 2,
            from: Some(pahtum_record::Origin {
                file: "runs/x".into(),
                game: "001-02-b".into(),
            }),
            book: None,
        });
        for played in &mut game.moves[..1] {
            played.timing = Timing::default();
        }
        game.swap_move = None;
        game.replay().unwrap();
        let text = plain(&game, View::Compact);
        assert!(
            text.contains("Started at ply 3: plies 1 to 2 were given from game 001-02-b of runs/x"),
            "{text}"
        );
        let first = game.moves[0].cell.to_string();
        assert!(text.contains(&format!("\n  1. {first:<4}  white  given\n")), "{text}");
        assert!(text.contains("\n  2. swap  black  given\n"), "{text}");
        assert!(text.contains("\n  3. "), "{text}");
        assert!(!text.contains("\n  3. c1    black  given"), "{text}");
    }

    #[test]
    fn boards_show_every_ply_with_its_cell_marked_and_the_running_score() {
        let game = played_with("000-00-a", "a", "b", Some(true), |_| None);
        let text = plain(&game, View::Boards);
        assert!(
            text.starts_with("Game 000-00-a: a (first seat) against b (second seat)\n"),
            "{text}"
        );
        let plies = game.moves.len() + 1;
        assert_eq!(
            text.matches("    +---------------+\n      a b c d e f g").count(),
            plies + 1
        );
        // Every stone's board marks it; the pie decision's board marks none.
        let marked = text
            .lines()
            .filter(|line| line.contains(" |") && line.contains('('))
            .count();
        assert_eq!(marked, game.moves.len());
        assert!(
            text.contains("\n  1. b1    white  a      1.5 ms  \"first free\"\n"),
            "{text}"
        );
        assert!(text.contains("\n  1 | #(w). . . . . | 1\n"), "{text}");
        assert!(text.contains("\n  2. swap  black  b      0.5 ms\n"), "{text}");
        assert!(text.contains("\n  3. c1    black  a      1.5 ms"), "{text}");
        assert!(text.contains("\n  1 | # w(b). . . . | 1\n"), "{text}");
        let final_score = format!("  White {} - {} Black\n", game.score.white, game.score.black);
        assert!(text.contains(&final_score), "{text}");
    }

    #[test]
    fn a_long_info_is_cut_in_the_list_and_whole_with_the_boards() {
        let mut game = played("000-00-a", "a", "b");
        let long = "x".repeat(100);
        game.moves[0].timing.info.as_mut().unwrap().comment = Some(long.clone());
        let compact = plain(&game, View::Compact);
        assert!(compact.contains(&format!("\"{}…\n", "x".repeat(38))), "{compact}");
        assert!(!compact.contains(&long), "{compact}");
        assert!(plain(&game, View::Boards).contains(&long));
    }

    #[test]
    fn bot_text_is_escaped_in_the_terminal() {
        let mut game = forfeited(played("000-00-a", "a", "b"), Seat::Second, Reason::IllegalMove);
        let hostile = "\u{1b}[2J\u{1b}]0;t\u{7}\r\u{202e}";
        for name in [&mut game.players.first, &mut game.white] {
            *name = hostile.to_owned();
        }
        let forfeit = game.termination.forfeit.as_mut().unwrap();
        forfeit.line = Some(format!("{hostile}{{\"type\":\"stone\"}}"));
        forfeit.stderr_tail = vec![hostile.into()];
        forfeit.detail = hostile.into();
        let info = game.moves[0].timing.info.as_mut().unwrap();
        info.comment = Some(hostile.into());
        info.pv = Some(vec![hostile.into()]);
        game.replay().unwrap();
        let shown = "\\x1b[2J\\x1b]0;t\\x07\\r\\u{202e}";
        for view in [View::Compact, View::Boards] {
            // No control character but those of the board's own colours.
            let mut text = game_text(&game, view, MISSING).unwrap();
            for style in [WHITE_STONE, BLACK_STONE, WHITE_STONE.bold(), BLACK_STONE.bold(), BLOCK] {
                text = text.replace(&style.render().to_string(), "");
                text = text.replace(&style.render_reset().to_string(), "");
            }
            assert!(
                !text.chars().any(|c| c.is_control() && c != '\n' || c == '\u{202e}'),
                "{text:?}"
            );
            assert!(
                text.contains(&format!("offending line: {shown}{{\"type\":\"stone\"}}")),
                "{text}"
            );
            assert!(text.contains(&format!("Game 000-00-a: {shown} (first seat)")), "{text}");
            assert!(text.contains(&format!("  1. b1    white  {shown}")), "{text}");
            assert!(text.contains(&format!("stderr: {shown}")), "{text}");
        }
        let list = game_list(&[game], &Select::Bot("b".into()));
        assert!(list.contains(&format!("white ({shown}) won")), "{list}");
    }

    /// A game on a board whose free cells are the rows 1 and 2 (14 cells: most of the game solved, long runs
    /// and large margins), with the pie rule, each side taking the first or the last legal move by turns, and
    /// its analysis with a small effort: solved from 12 free cells, estimated before.
    fn analysed(seed: u64) -> (GameRecord, GameAnalysis) {
        let blocks: Vec<_> = (0..pahtum::CELLS)
            .filter_map(Cell::from_index)
            .filter(|cell| cell.row() >= 3 || cell.row() == 2 && cell.column() == 6)
            .collect();
        let time = pahtum_protocol::move_time(std::time::Duration::from_secs(1));
        let spec = pahtum_record::GameSpec::fixed(format!("g{seed}"), &blocks, true, time).unwrap();
        let players = pahtum_record::Players {
            first: "a".into(),
            second: "b".into(),
        };
        let mut turn = seed;
        let record = spec.play_out(players, |game| {
            turn = turn * 7 + 3;
            let moves = game.legal_moves();
            if turn % 5 < 2 { moves[0] } else { moves[moves.len() - 1] }
        });
        let settings = pahtum_analysis::analyze::Settings {
            table_bits: 12,
            exact_from: 12,
            playouts: 50,
            seed: 1,
            budget: None,
        };
        let analysis = pahtum_analysis::analyze::Analyzer::new(settings)
            .analyze(&record)
            .unwrap();
        (record, analysis)
    }

    /// The line of ply `number` in `text`.
    fn ply_line(text: &str, number: usize) -> &str {
        let start = format!("{number:>3}. ");
        text.lines().find(|line| line.starts_with(&start)).unwrap()
    }

    /// Each ply shows the value after it for its mover, the loss, the grade, the losing moves and the best
    /// moves missed, as the analysis has them, in both views; the header says where the analysis came from.
    #[test]
    fn an_analysed_game_shows_each_plys_value_and_marks() {
        let (record, analysis) = analysed(1);
        // What this game has to show: estimates and proven margins, every grade, both losing moves.
        assert_eq!(
            analysis.losing,
            pahtum_record::annotations::Losing {
                white: Some(4),
                black: Some(3)
            }
        );
        let grades: BTreeSet<_> = analysis.moves.iter().filter_map(|entry| entry.grade).collect();
        assert_eq!(grades.len(), 3, "{grades:?}");
        let from = "runs/x/analysis.jsonl";
        let found = Analysis::Found {
            analysis: &analysis,
            from,
        };
        let text = plain_with(&record, View::Compact, found);
        assert!(
            text.contains(
                "\nAnalysis (runs/x/analysis.jsonl): solved exactly from 12 free cells, estimated before by 50 \
                 playouts (seed 1)\n  after each move, for its mover: =+12 a proven final margin, 53% an estimated \
                 result; -3, -8%: what it lost; ?! inaccuracy, ? mistake, ?? blunder\n"
            ),
            "{text}"
        );
        assert!(!text.contains("no analysis"), "{text}");
        for (number, line) in [
            (1, "  1. a1    white  a      0.0 ms    34%   -7% ?!  best e2"),
            (2, "  2. keep  black  b      0.0 ms    66%"),
            (
                3,
                "  3. f3    black  b      0.0 ms    27%  -38% ??  ← losing move  best c2",
            ),
            (
                4,
                "  4. b1    white  a      0.0 ms    53%  -20% ??  ← losing move  best d1",
            ),
            (5, "  5. c1    black  b      0.0 ms    50%"),
            (7, "  7. d3    black  b      0.0 ms    47%  -14% ?   best c2"),
            (9, "  9. e1    black  b      0.0 ms     =0  -15% ?   best c2"),
            (
                15,
                " 15. g2    black  b      0.0 ms    =-3    -3 ??  best a2 c2 d2 (+2)",
            ),
            (16, " 16. a2    white  a      0.0 ms    =+3"),
        ] {
            assert_eq!(ply_line(&text, number), line, "{text}");
        }
        // Every ply against its analysis: the value after it for its mover, its grade, the losing moves.
        for entry in &analysis.moves {
            let line = ply_line(&text, entry.ply);
            let value = match (entry.after.margin, entry.after.expected) {
                (Some(0), _) => "=0".to_owned(),
                (Some(margin), _) => format!("={margin:+}"),
                (None, Some(expected)) => format!("{}%", (expected * 100.0).round()),
                (None, None) => unreachable!("a value is exact or estimated"),
            };
            let columns = &line["  1. a1    white  a      0.0 ms".len()..];
            assert_eq!(columns.split_whitespace().next(), Some(value.as_str()), "{line}");
            let mark = match entry.grade {
                Some(Grade::Inaccuracy) => "?!",
                Some(Grade::Mistake) => "?",
                Some(Grade::Blunder) => "??",
                None => "",
            };
            assert_eq!(columns.get(14..16).unwrap_or("").trim(), mark, "{line}");
            let losing = [3, 4].contains(&entry.ply);
            assert_eq!(line.contains("← losing move"), losing, "{line}");
            assert_eq!(line.contains("best"), !entry.best.contains(&entry.played), "{line}");
        }
        assert_eq!(text.matches("← losing move").count(), 2, "{text}");
        let lines = text.lines().count();
        assert!(lines <= 80, "{lines} lines");

        // The boards name every best move.
        let boards = plain_with(&record, View::Boards, found);
        let best = &analysis.moves[14].best;
        assert_eq!(best.len(), 5);
        assert!(
            boards.contains(&format!(
                "\n 15. g2    black  b      0.0 ms    =-3    -3 ??  best {}\n",
                best.join(" ")
            )),
            "{boards}"
        );
        assert!(boards.contains("  4. b1    white  a      0.0 ms    53%  -20% ??  ← losing move  best d1\n"));
        assert!(boards.contains("\n  after each move, for its mover: =+12"), "{boards}");

        // A given ply has no time: its columns stay in place.
        let mut opened = record.clone();
        opened.opening = Some(pahtum_record::Opening {
            plies: 1,
            from: None,
            book: None,
        });
        let text = plain_with(&opened, View::Compact, found);
        let (given, played) = (ply_line(&text, 1), ply_line(&text, 2));
        assert_eq!(given, "  1. a1    white  given                34%   -7% ?!  best e2");
        assert_eq!(given.find("34%"), played.find("66%"), "{given}\n{played}");

        // What the file says is escaped, as what the record says.
        let mut hostile = analysis.clone();
        hostile.moves[0].best = vec!["\u{1b}[2J".into()];
        let from = "\u{1b}]0;x\u{7}";
        let text = game_text(
            &record,
            View::Compact,
            Analysis::Found {
                analysis: &hostile,
                from,
            },
        )
        .unwrap();
        assert!(
            text.contains("best \\x1b[2J\n") && text.contains("Analysis (\\x1b]0;x\\x07)"),
            "{text}"
        );
    }

    #[test]
    fn without_an_analysis_a_line_says_how_to_make_one() {
        let (record, _) = analysed(1);
        for view in [View::Compact, View::Boards] {
            let text = plain(&record, view);
            assert!(
                text.contains("end: normal\n(no analysis: arena analyze game.json to see where it was lost)\n\n"),
                "{text}"
            );
            assert!(!text.contains('%') && !text.contains("losing move"), "{text}");
        }
    }
}
