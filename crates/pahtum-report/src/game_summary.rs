//! How one game ended, for the terminal (`arena game`): the final board with
//! the last ply's cell marked ([`crate::board`]), each side's points and
//! scoring runs, where the game started when plies were given, the pie
//! decision, the result, and each forfeit with its evidence (as the caller's
//! `evidence` renders it: the runner's renderer, which this crate does not
//! link). Names, origins and evidence are escaped: a bot chose its own name.

use pahtum::Color;
use pahtum_protocol::untrusted::escape;
use pahtum_record::{Forfeit, GameRecord, ReplayError};

use crate::board::{board, runs};

/// A record that does not replay has no final board to show.
#[derive(Debug, thiserror::Error)]
#[error("the referee produced a record that does not replay")]
pub struct SummaryError(#[source] pub ReplayError);

/// The board, the score and how the game of `record` ended, each forfeit followed by its `evidence`.
pub fn summary(record: &GameRecord, evidence: impl Fn(&Forfeit) -> String) -> Result<String, SummaryError> {
    let game = record.replay().map_err(SummaryError)?;
    let name = |color: Color| match color {
        Color::White => &record.white,
        Color::Black => &record.black,
    };
    let last = record.moves.last().map(|played| played.cell);
    let labels = [
        format!("White {}", escape(&record.white)),
        format!("Black {}", escape(&record.black)),
    ];
    let mut text = board(game.position(), last);
    text += &runs(game.position(), [&labels[0], &labels[1]]);
    if let Some(opening) = &record.opening {
        text += &format!("Started at ply {}", opening.plies + 1);
        if let Some(from) = &opening.from {
            text += &format!(" of game {} in {}", escape(&from.game), escape(&from.file));
        }
        if let Some(book) = &opening.book {
            text += &format!(", the opening of line {} of the book {}", book.line, escape(&book.file));
        }
        text += ": the plies before it were given.\n";
    }
    if let Some(swap) = record.swap {
        text += if swap {
            "Black swapped after the first stone.\n"
        } else {
            "Black kept the colours.\n"
        };
    }
    text += &match record.result.winner() {
        Some(color) => format!("Result: {} ({color}) wins", escape(name(color))),
        None => "Result: a draw".to_owned(),
    };
    if record.termination.forfeit.is_none() {
        text += ".\n";
    }
    for (index, (reason, forfeit)) in record.termination.forfeits().enumerate() {
        let by = if index == 0 { "" } else { "and" };
        text += &format!("{by} by {reason} of {}: {}\n", escape(&forfeit.bot), evidence(forfeit));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use pahtum::Seat;
    use pahtum_protocol::Reason;
    use pahtum_tournament::testing::{forfeited, played};

    use super::*;

    fn plain(text: &str) -> String {
        anstream::adapter::strip_str(text).to_string()
    }

    #[test]
    fn a_played_game_ends_with_its_board_runs_pie_and_result() {
        let record = played("000-00-a");
        let text = plain(&summary(&record, |_| unreachable!("no forfeit")).unwrap());
        let game = record.replay().unwrap();
        assert!(text.starts_with(&plain(&board(game.position(), record.moves.last().map(|m| m.cell)))));
        let result = match record.result.winner() {
            Some(color) => format!("Result: {} ({color}) wins.\n", name_of(&record, color)),
            None => "Result: a draw.\n".to_owned(),
        };
        assert!(text.ends_with(&result), "{text}");
        let pie = ["Black swapped after the first stone.\n", "Black kept the colours.\n"];
        assert_eq!(
            record.swap.is_some(),
            pie.iter().any(|line| text.contains(line)),
            "{text}"
        );
    }

    fn name_of(record: &GameRecord, color: Color) -> &str {
        match color {
            Color::White => &record.white,
            Color::Black => &record.black,
        }
    }

    #[test]
    fn a_forfeit_ends_with_its_evidence_and_the_bots_name_escaped() {
        let record = forfeited(played("000-00-a"), Seat::Second, Reason::Timeout);
        // The forfeiting bot's name, everywhere the record holds it, with a terminal's escape in it.
        let second = format!("\"{}\"", record.players.second);
        let json = serde_json::to_string(&record)
            .unwrap()
            .replace(&second, "\"b\\u001b[2J\"");
        let record: GameRecord = serde_json::from_str(&json).unwrap();
        let text = summary(&record, |forfeit| format!("[{}]", forfeit.detail)).unwrap();
        let detail = &record.termination.forfeit.as_ref().unwrap().detail;
        assert!(
            text.ends_with(&format!(" wins by timeout of b\\x1b[2J: [{detail}]\n")),
            "{text}"
        );
    }

    #[test]
    fn a_record_that_does_not_replay_is_the_referees_fault() {
        let mut record = played("000-00-a");
        record.score.white += 1;
        let error = summary(&record, |_| String::new()).unwrap_err();
        assert_eq!(error.to_string(), "the referee produced a record that does not replay");
        assert!(std::error::Error::source(&error).is_some());
    }
}
