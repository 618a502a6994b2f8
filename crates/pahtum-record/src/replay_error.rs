//! Why a record does not replay ([`ReplayError`]), one variant per check of
//! [`GameRecord::replay`](crate::GameRecord::replay).
//!
//! A caller that must tell the failures apart (a test, a tool that repairs
//! records) matches the variant and reads its fields; a person reads its
//! text, which records, reports and `arena verify` print, so each variant says
//! exactly what the check said when the error was a string.
//!
//! The rules' own errors ([`SetupError`], [`IllegalAction`]) are kept as
//! typed fields but are not the error's `source()`: their text is already in
//! the variant's, and the command line prints an error with its chain of
//! sources, which would say it twice.

use pahtum::{Cell, Color, IllegalAction, Outcome, Score, Seat, SetupError};
use pahtum_protocol::Reason;

/// A record that does not replay: which check failed, and with what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The blocks listed are not the rules' number of distinct cells (random or fixed blocks).
    #[error(
        "the game record does not replay: the rules have {rules} blocks but the record lists {distinct} distinct of {listed}"
    )]
    BlockCount {
        /// The blocks the rules have.
        rules: usize,
        /// The distinct cells the record lists.
        distinct: usize,
        /// The cells the record lists.
        listed: usize,
    },
    /// The rules refuse the record's blocks.
    #[error("the game record does not replay: invalid setup: {0}")]
    Setup(SetupError),
    /// Move `index` is by the colour that is not to act.
    #[error("the game record does not replay: move {index} ({cell}) is by the wrong colour")]
    WrongColour {
        /// The move's index in the record's moves.
        index: usize,
        /// Its cell.
        cell: Cell,
    },
    /// Move `index` names a seat that did not hold its colour.
    #[error("the game record does not replay: move {index} ({cell}) names the wrong seat")]
    WrongSeat {
        /// The move's index in the record's moves.
        index: usize,
        /// Its cell.
        cell: Cell,
    },
    /// The rules refuse move `index`.
    #[error("the game record does not replay: move {index}: {error}")]
    IllegalMove {
        /// The move's index in the record's moves.
        index: usize,
        /// What the rules say of it.
        error: IllegalAction,
    },
    /// The game reached the pie decision, and the record has none.
    #[error("the game record does not replay: the pie decision is missing")]
    PieMissing,
    /// The rules refuse ply `ply` (from 1, the pie decision counted): the recorded pie decision, or a ply
    /// of a reader that replays the plies rather than the moves.
    #[error("the game record does not replay: {error}")]
    IllegalPly {
        /// The ply's number.
        ply: usize,
        /// What the rules say of it.
        error: IllegalAction,
    },
    /// The record has a pie decision, and the game never reached one.
    #[error("the game record does not replay: a pie decision that the game never reached")]
    PieNeverReached,
    /// The blocks listed are not the blocks on the board at the end (players' blocks).
    #[error("the game record does not replay: the blocks differ from the board's")]
    BlocksDiffer,
    /// The opening gives more plies than the game has.
    #[error("the game record does not replay: the opening gives {given} plies but the game has {plies}")]
    OpeningTooLong {
        /// The plies the opening gives.
        given: usize,
        /// The plies of the game.
        plies: usize,
    },
    /// The opening gives the pie decision, and the record times it as a bot's.
    #[error("the game record does not replay: a given pie decision with a bot's timing")]
    GivenPieTimed,
    /// The names by colour are not the players of the seats that hold the colours.
    #[error(
        "the game record does not replay: white {:?} and black {:?} are not the players {:?} and {:?} after the \
         swap {:?}",
        .0.white,
        .0.black,
        .0.first,
        .0.second,
        .0.swap
    )]
    Names(Box<NameMismatch>),
    /// The recorded score is not the board's.
    #[error("the game record does not replay: the recorded score differs from the board")]
    Score {
        /// The record's score.
        recorded: Score,
        /// The board's.
        board: Score,
    },
    /// The game ended normally with free cells left.
    #[error("the game record does not replay: a normal end with free cells left")]
    NotFinished,
    /// The adjudication names another ply than the game's last, or a game not in its play of stones.
    #[error(
        "the game record does not replay: the adjudication is after ply {ply}, but the game ended after ply \
         {plies} or not while stones were played"
    )]
    AdjudicatedElsewhere {
        /// The adjudication's ply.
        ply: usize,
        /// The plies the game has.
        plies: usize,
    },
    /// The adjudication's margins fix no result.
    #[error(
        "the game record does not replay: the adjudication's margins {low} to {high} fix no result (both must \
         be on one side of zero, or both zero)"
    )]
    AdjudicationUndecided {
        /// The lowest margin for White.
        low: i32,
        /// The highest.
        high: i32,
    },
    /// The game was adjudicated, and the record names a forfeit too.
    #[error("the game record does not replay: an adjudicated end with a forfeit")]
    AdjudicatedForfeit,
    /// The game ended normally, and the record names a forfeit.
    #[error("the game record does not replay: a normal end with a forfeit")]
    NormalWithForfeit,
    /// The game ended by a forfeit, and the record names no bot that forfeited.
    #[error("the game record does not replay: an end by {reason} without the bot that forfeited")]
    ForfeitMissing {
        /// Why the game ended.
        reason: Reason,
    },
    /// A forfeit names a bot, seat and colour that do not go together.
    #[error(
        "the game record does not replay: the forfeit of {bot:?} does not match its seat {seat} and colour {color}"
    )]
    ForfeitMismatch {
        /// The bot named.
        bot: String,
        /// The seat named.
        seat: Seat,
        /// The colour named.
        color: Color,
    },
    /// Both forfeits of a double forfeit name the same seat.
    #[error("the game record does not replay: a double forfeit by one seat")]
    DoubleForfeitOneSeat,
    /// The recorded result is not the one the end gives.
    #[error("the game record does not replay: the result is {recorded:?} but the end gives {end:?}")]
    Result {
        /// The record's result.
        recorded: Outcome,
        /// The result the end gives.
        end: Outcome,
    },
}

/// The names of a record that disagree: by colour, and by seat with the pie decision. Boxed in
/// [`ReplayError::Names`], as the error is returned by every replay and a journal's errors hold it: four
/// names would make it larger than everything else it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameMismatch {
    /// The record's White.
    pub white: String,
    /// The record's Black.
    pub black: String,
    /// The player in the first seat.
    pub first: String,
    /// The player in the second seat.
    pub second: String,
    /// The record's pie decision.
    pub swap: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each variant says what the check said when the error was a string: records and reports keep it.
    #[test]
    fn the_text_is_the_one_records_and_reports_print() {
        let cell: Cell = "c4".parse().unwrap();
        let cases = [
            (
                ReplayError::BlockCount {
                    rules: 5,
                    distinct: 4,
                    listed: 5,
                },
                "the rules have 5 blocks but the record lists 4 distinct of 5",
            ),
            (
                ReplayError::Setup(SetupError::Count(4)),
                "invalid setup: 4 blocks: the number",
            ),
            (
                ReplayError::WrongColour { index: 2, cell },
                "move 2 (c4) is by the wrong colour",
            ),
            (
                ReplayError::WrongSeat { index: 2, cell },
                "move 2 (c4) names the wrong seat",
            ),
            (
                ReplayError::IllegalMove {
                    index: 1,
                    error: IllegalAction::Blocked(cell),
                },
                "move 1: c4 is blocked",
            ),
            (ReplayError::PieMissing, "the pie decision is missing"),
            (
                ReplayError::IllegalPly {
                    ply: 2,
                    error: IllegalAction::Finished,
                },
                "the game is over",
            ),
            (
                ReplayError::OpeningTooLong { given: 10, plies: 9 },
                "the opening gives 10 plies but the game has 9",
            ),
            (
                ReplayError::Names(Box::new(NameMismatch {
                    white: "a".into(),
                    black: "b".into(),
                    first: "b".into(),
                    second: "a".into(),
                    swap: Some(false),
                })),
                "white \"a\" and black \"b\" are not the players \"b\" and \"a\" after the swap Some(false)",
            ),
            (
                ReplayError::ForfeitMissing { reason: Reason::Stall },
                "an end by stall without the bot that forfeited",
            ),
            (
                ReplayError::ForfeitMismatch {
                    bot: "a".into(),
                    seat: Seat::First,
                    color: Color::Black,
                },
                "the forfeit of \"a\" does not match its seat first and colour black",
            ),
            (
                ReplayError::Result {
                    recorded: Outcome::White,
                    end: Outcome::Draw,
                },
                "the result is White but the end gives Draw",
            ),
        ];
        for (error, text) in cases {
            let shown = error.to_string();
            assert!(
                shown.starts_with(&format!("the game record does not replay: {text}")),
                "{shown:?}"
            );
        }
    }
}
