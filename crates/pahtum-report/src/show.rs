//! Games in the terminal: one game move by move, or a list of games to look at.
//!
//! `arena show` prints what the HTML viewer shows, for a person at a terminal:
//! the board after each move, the running score, the time each answer took and
//! the bot's `info`, the pie decision in its place, and for a forfeit the
//! verdict with the offending line and the bot's stderr tail. Everything a bot
//! wrote (names, info, lines) goes through
//! [`pahtum_protocol::untrusted::escape`], so that it cannot move the cursor or
//! recolour the terminal.

use std::fmt::Write;

use pahtum::{Action, Phase};
use pahtum_protocol::Info;
use pahtum_protocol::untrusted::escape;
use pahtum_record::{GameRecord, MoveKind, ReplayError, Timing};

/// `record` move by move; fails if it does not replay.
pub fn game_text(record: &GameRecord) -> Result<String, ReplayError> {
    record.replay()?;
    let mut out = String::new();
    writeln!(
        out,
        "Game {}: {} (first seat) against {} (second seat), {} blocks, pie rule {}",
        escape(&record.id),
        escape(&record.players.first),
        escape(&record.players.second),
        record.rules.blocks,
        if record.rules.pie { "on" } else { "off" }
    )
    .unwrap();
    let mut game = record
        .rules
        .start(&record.blocks)
        .map_err(|error| ReplayError(error.to_string()))?;
    out.push_str(&game.position().diagram());
    for (index, played) in record.moves.iter().enumerate() {
        let action = match played.kind {
            MoveKind::Block => Action::Block(played.cell),
            MoveKind::Stone => Action::Stone(played.cell),
        };
        game.play(action).map_err(|error| ReplayError(error.to_string()))?;
        let bot = record.players.of(record.seat_of_move(index));
        let what = match played.kind {
            MoveKind::Block => "block".to_owned(),
            MoveKind::Stone => played.color.to_string(),
        };
        writeln!(
            out,
            "\n{:>2}. {} {what} by {}{}",
            index + 1,
            played.cell,
            escape(bot),
            timing(&played.timing)
        )
        .unwrap();
        if game.phase() == Phase::PieDecision
            && let Some(swap) = record.swap
        {
            game.play(Action::Pie(swap))
                .map_err(|error| ReplayError(error.to_string()))?;
            let decision = if swap { "swap" } else { "no swap" };
            let timing = record.swap_move.as_ref().map(self::timing).unwrap_or_default();
            writeln!(out, "    pie: {decision} by {}{timing}", escape(&record.players.second)).unwrap();
        }
        out.push_str(&game.position().diagram());
        let score = game.score();
        writeln!(out, "    White {} - {} Black", score.white, score.black).unwrap();
    }
    writeln!(
        out,
        "\nResult: {} (White {} - {} Black), end: {}",
        outcome(record),
        record.score.white,
        record.score.black,
        record.termination.reason
    )
    .unwrap();
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
    Ok(out)
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

fn seat_of_color(record: &GameRecord, color: pahtum::Color) -> pahtum::Seat {
    if record.color_of(pahtum::Seat::First) == color {
        pahtum::Seat::First
    } else {
        pahtum::Seat::Second
    }
}

/// `  (12.3 ms; eval 0.5, depth 4, pv d4 e5, "comment")`.
fn timing(timing: &Timing) -> String {
    let mut text = format!("  ({:.1} ms", timing.ms);
    if let Some(info) = &timing.info {
        write!(text, "; {}", info_text(info)).unwrap();
    }
    text.push(')');
    text
}

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
    fn takes(&self, record: &GameRecord) -> bool {
        let seat_of = |bot: &str| {
            [pahtum::Seat::First, pahtum::Seat::Second]
                .into_iter()
                .find(|&seat| record.players.of(seat) == bot)
        };
        match self {
            Select::All => true,
            Select::Bot(bot) => seat_of(bot).is_some(),
            Select::LostBy(bot) => seat_of(bot).is_some_and(|seat| record.points_of(seat) == 0.0),
        }
    }
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
            record.termination.reason
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
    use crate::fixtures::played;

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
    fn a_game_is_shown_move_by_move_with_the_running_score() {
        let game = played("000-00-a", "a", "b");
        let text = game_text(&game).unwrap();
        assert!(
            text.starts_with("Game 000-00-a: a (first seat) against b (second seat), 1 blocks, pie rule off\n"),
            "{text}"
        );
        assert!(
            text.contains("\n 1. b1 white by a  (1.5 ms; \"first free\")\n"),
            "{text}"
        );
        assert!(text.contains("\n 2. c1 black by b"), "{text}");
        let final_score = format!("    White {} - {} Black\n", game.score.white, game.score.black);
        assert!(text.contains(&format!("{final_score}\nResult: ")), "{text}");
        assert_eq!(
            text.matches("  +---------------+\n    a b c d e f g").count(),
            game.moves.len() + 1
        );
    }

    #[test]
    fn bot_text_is_escaped_in_the_terminal() {
        let mut game = forfeited(played("000-00-a", "a", "b"), Seat::Second, Reason::IllegalMove);
        let forfeit = game.termination.forfeit.as_mut().unwrap();
        forfeit.line = Some("\u{1b}[2J{\"type\":\"stone\"}".into());
        forfeit.stderr_tail = vec!["\u{1b}]0;title\u{7}".into()];
        game.moves[0].timing.info.as_mut().unwrap().comment = Some("\u{1b}[31mred".into());
        let text = game_text(&game).unwrap();
        assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'), "{text:?}");
        assert!(text.contains("offending line: \\x1b[2J{\"type\":\"stone\"}"), "{text}");
        let list = game_list(&[game], &Select::Bot("a".into()));
        assert!(list.contains("white (a) won"), "{list}");
    }
}
