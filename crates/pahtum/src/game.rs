//! The game state machine.
//!
//! A game goes through these phases:
//!
//! 1. [`Phase::PlaceBlocks`] (players' placement only): Black, White, Black, ...
//!    each put one block on a free cell; the count is odd, so Black also places
//!    the last one.
//! 2. [`Phase::FirstStone`]: White's first stone.
//! 3. [`Phase::PieDecision`] (when the pie rule is on): the player holding Black
//!    may swap. After a swap the second seat holds White and the stone already
//!    placed, and the first seat holds Black and moves next.
//! 4. [`Phase::Stones`]: the colours alternate until no free cell is left.
//! 5. [`Phase::Finished`].
//!
//! [`Game::play`] validates an [`Action`] and applies it, or returns an
//! [`IllegalAction`] and leaves the game as it was. Text is parsed into an
//! action first ([`ParseActionError`] for malformed text), so that a bot that
//! sends garbage and a bot that plays on an occupied cell get different verdicts.

use std::fmt;
use std::str::FromStr;

use crate::setup::{Layout, SetupError, check_count, fixed_blocks};
use crate::{Bitboard, Cell, Color, ParseCellError, Position, Score, Seat};

/// Where a game is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Phase {
    /// Black and White take turns placing blocks, Black first ([`Layout::Placed`]).
    PlaceBlocks,
    /// White places the first stone.
    FirstStone,
    /// The player holding Black chooses to swap colours or keep them (pie rule
    /// only).
    PieDecision,
    /// Stones alternate, Black first (White placed the first stone), until no
    /// free cell is left.
    Stones,
    /// The board is full; the score is final.
    Finished,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::PlaceBlocks => "block placement",
            Phase::FirstStone => "first stone",
            Phase::PieDecision => "pie decision",
            Phase::Stones => "stone",
            Phase::Finished => "finished",
        })
    }
}

/// Something a player does. Text forms: `d4` (a stone), `#d4` (a block),
/// `swap` and `keep` (the pie decision).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Action {
    /// A block on a free cell, during [`Phase::PlaceBlocks`].
    Block(Cell),
    /// A stone of the colour to act on a free cell.
    Stone(Cell),
    /// The pie decision: `true` to swap, `false` to keep the colours.
    Pie(bool),
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Block(cell) => write!(f, "#{cell}"),
            Action::Stone(cell) => write!(f, "{cell}"),
            Action::Pie(true) => f.write_str("swap"),
            Action::Pie(false) => f.write_str("keep"),
        }
    }
}

/// As its text form.
#[cfg(feature = "serde")]
impl serde::Serialize for Action {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        crate::text_serde::serialize(self, serializer)
    }
}

/// From its text form.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Action {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::text_serde::deserialize(deserializer, "an action such as \"d4\", \"#d4\", \"swap\" or \"keep\"")
    }
}

/// Why text is not an action.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not an action: expected a cell like \"d4\", a block like \"#d4\", \"swap\" or \"keep\"")]
pub struct ParseActionError {
    /// The text as received, unescaped.
    pub text: String,
    /// Why the text is not a cell, when it looked like one (everything but
    /// `swap` and `keep`).
    #[source]
    pub cell: Option<ParseCellError>,
}

impl FromStr for Action {
    type Err = ParseActionError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let fail = |cell| ParseActionError {
            text: s.to_owned(),
            cell,
        };
        match s {
            "swap" => Ok(Action::Pie(true)),
            "keep" => Ok(Action::Pie(false)),
            _ => match s.strip_prefix('#') {
                Some(rest) => rest.parse().map(Action::Block).map_err(|e| fail(Some(e))),
                None => s.parse().map(Action::Stone).map_err(|e| fail(Some(e))),
            },
        }
    }
}

/// Why an action is not allowed now.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IllegalAction {
    /// The cell already holds a stone, of either colour.
    #[error("{0} is occupied by a stone")]
    Occupied(Cell),
    /// The cell holds a block.
    #[error("{0} is blocked")]
    Blocked(Cell),
    /// The game is over: no action is legal.
    #[error("the game is over")]
    Finished,
    /// The action has the wrong kind for the phase (a stone while blocks are
    /// being placed, `swap` outside the pie decision, ...).
    #[error("{action} is not allowed in the {phase} phase: expected {expected}")]
    WrongPhase {
        /// What was played.
        action: Action,
        /// The phase the game was in.
        phase: Phase,
        /// What the phase wants, in words (`"a block"`, `"a stone"`, `"swap or keep"`).
        expected: &'static str,
    },
}

/// Why [`Game::play_text`] failed: the text was malformed, or the action illegal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    /// The text is not an action.
    #[error(transparent)]
    Malformed(#[from] ParseActionError),
    /// The action is not legal now.
    #[error(transparent)]
    Illegal(#[from] IllegalAction),
}

/// A game of Pah Tum from its setup to its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    position: Position,
    pie: bool,
    blocks_total: usize,
    phase: Phase,
    swapped: Option<bool>,
    history: Vec<Action>,
}

impl Game {
    /// A new game with `layout`, the pie rule on or off.
    pub fn new(layout: &Layout, pie: bool) -> Result<Game, SetupError> {
        match layout {
            Layout::Fixed { blocks } => Ok(Game::with_blocks(fixed_blocks(blocks)?, pie)?),
            Layout::Placed { count } => {
                check_count(*count)?;
                Ok(Game::from_start(
                    Position::new(Bitboard::EMPTY),
                    *count,
                    pie,
                    Phase::PlaceBlocks,
                ))
            }
        }
    }

    /// A new game on a board with `blocks` already placed (an odd number).
    pub fn with_blocks(blocks: Bitboard, pie: bool) -> Result<Game, SetupError> {
        let count = blocks.len() as usize;
        check_count(count)?;
        Ok(Game::from_start(Position::new(blocks), count, pie, Phase::FirstStone))
    }

    fn from_start(position: Position, blocks_total: usize, pie: bool, phase: Phase) -> Game {
        Game {
            position,
            pie,
            blocks_total,
            phase,
            swapped: None,
            history: Vec::new(),
        }
    }

    /// The board now.
    pub const fn position(&self) -> &Position {
        &self.position
    }

    /// Where the game is: which kind of action it expects next.
    pub const fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether the pie rule is on.
    pub const fn pie_rule(&self) -> bool {
        self.pie
    }

    /// The number of blocks of this game, placed or still to place.
    pub const fn blocks_total(&self) -> usize {
        self.blocks_total
    }

    /// `None` before the pie decision or without the pie rule; then whether the
    /// second player swapped.
    pub const fn swapped(&self) -> Option<bool> {
        self.swapped
    }

    /// Every action so far, blocks and the pie decision included.
    pub fn history(&self) -> &[Action] {
        &self.history
    }

    /// Whether the board is full ([`Phase::Finished`]); the score is then final.
    pub fn is_finished(&self) -> bool {
        self.phase == Phase::Finished
    }

    /// The colour that acts now (places a block, a stone, or decides the pie).
    pub fn color_to_act(&self) -> Option<Color> {
        match self.phase {
            Phase::PlaceBlocks => {
                let placed = self.position.blocks().len();
                Some(if placed % 2 == 0 { Color::Black } else { Color::White })
            }
            Phase::FirstStone => Some(Color::White),
            Phase::PieDecision => Some(Color::Black),
            Phase::Stones => Some(self.position.to_move()),
            Phase::Finished => None,
        }
    }

    /// The seat that holds `color` now.
    pub fn seat_of(&self, color: Color) -> Seat {
        match (color, self.swapped == Some(true)) {
            (Color::White, false) | (Color::Black, true) => Seat::First,
            (Color::White, true) | (Color::Black, false) => Seat::Second,
        }
    }

    /// The colour that `seat` holds now.
    pub fn color_of(&self, seat: Seat) -> Color {
        if self.seat_of(Color::White) == seat {
            Color::White
        } else {
            Color::Black
        }
    }

    /// The seat that acts now.
    pub fn seat_to_act(&self) -> Option<Seat> {
        self.color_to_act().map(|color| self.seat_of(color))
    }

    /// Both colours' points now (final once the game is finished).
    pub fn score(&self) -> Score {
        self.position.score()
    }

    /// Every legal action now.
    pub fn legal_moves(&self) -> Vec<Action> {
        match self.phase {
            Phase::PlaceBlocks => self.position.free().cells().map(Action::Block).collect(),
            Phase::FirstStone | Phase::Stones => self.position.free().cells().map(Action::Stone).collect(),
            Phase::PieDecision => vec![Action::Pie(true), Action::Pie(false)],
            Phase::Finished => Vec::new(),
        }
    }

    /// Checks `action` without applying it.
    pub fn check(&self, action: Action) -> Result<(), IllegalAction> {
        let expected = match self.phase {
            Phase::PlaceBlocks => "a block",
            Phase::FirstStone | Phase::Stones => "a stone",
            Phase::PieDecision => "swap or keep",
            Phase::Finished => return Err(IllegalAction::Finished),
        };
        let wrong_phase = || IllegalAction::WrongPhase {
            action,
            phase: self.phase,
            expected,
        };
        match (self.phase, action) {
            (Phase::PlaceBlocks, Action::Block(cell)) | (Phase::FirstStone | Phase::Stones, Action::Stone(cell)) => {
                self.check_free(cell)
            }
            (Phase::PieDecision, Action::Pie(_)) => Ok(()),
            _ => Err(wrong_phase()),
        }
    }

    fn check_free(&self, cell: Cell) -> Result<(), IllegalAction> {
        let position = &self.position;
        if position.blocks().contains(cell) {
            Err(IllegalAction::Blocked(cell))
        } else if (position.white() | position.black()).contains(cell) {
            Err(IllegalAction::Occupied(cell))
        } else {
            Ok(())
        }
    }

    /// Applies `action` if it is legal; otherwise leaves the game unchanged.
    pub fn play(&mut self, action: Action) -> Result<(), IllegalAction> {
        self.check(action)?;
        match action {
            Action::Block(cell) => {
                self.position.put_block(cell);
                if self.position.blocks().len() as usize == self.blocks_total {
                    self.phase = Phase::FirstStone;
                }
            }
            Action::Stone(cell) => {
                let first = self.phase == Phase::FirstStone;
                self.position.put_stone(cell);
                self.phase = if self.position.is_full() {
                    Phase::Finished
                } else if first && self.pie {
                    Phase::PieDecision
                } else {
                    Phase::Stones
                };
            }
            Action::Pie(swap) => {
                self.swapped = Some(swap);
                self.position.set_to_move(Color::Black);
                self.phase = Phase::Stones;
            }
        }
        self.history.push(action);
        Ok(())
    }

    /// Parses `text` as an [`Action`] and plays it.
    pub fn play_text(&mut self, text: &str) -> Result<Action, PlayError> {
        let action: Action = text.parse()?;
        self.play(action)?;
        Ok(action)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(s: &str) -> Cell {
        s.parse().unwrap()
    }

    fn five_blocks() -> Game {
        let blocks = ["a1", "g1", "d4", "a7", "g7"].map(cell).to_vec();
        Game::new(&Layout::Fixed { blocks }, true).unwrap()
    }

    #[test]
    fn pie_swap_moves_white_to_the_second_seat() {
        let mut game = five_blocks();
        assert_eq!(game.seat_to_act(), Some(Seat::First));
        game.play(Action::Stone(cell("c3"))).unwrap();
        assert_eq!(game.phase(), Phase::PieDecision);
        assert_eq!(game.seat_to_act(), Some(Seat::Second));
        game.play(Action::Pie(true)).unwrap();
        assert_eq!(game.swapped(), Some(true));
        assert_eq!(game.color_of(Seat::Second), Color::White);
        assert_eq!(game.color_of(Seat::First), Color::Black);
        assert!(game.position().white().contains(cell("c3")));
        assert_eq!(game.color_to_act(), Some(Color::Black));
        assert_eq!(game.seat_to_act(), Some(Seat::First));
        assert_eq!(game.position().blocks().len(), 5);
    }

    #[test]
    fn keeping_leaves_the_seats() {
        let mut game = five_blocks();
        game.play_text("c3").unwrap();
        game.play_text("keep").unwrap();
        assert_eq!(game.swapped(), Some(false));
        assert_eq!(game.seat_to_act(), Some(Seat::Second));
        assert_eq!(game.color_to_act(), Some(Color::Black));
    }

    #[test]
    fn malformed_and_illegal_are_different() {
        let mut game = five_blocks();
        assert!(matches!(game.play_text("h9"), Err(PlayError::Malformed(_))));
        assert_eq!(
            game.play_text("d4"),
            Err(PlayError::Illegal(IllegalAction::Blocked(cell("d4"))))
        );
        assert!(matches!(
            game.play_text("swap"),
            Err(PlayError::Illegal(IllegalAction::WrongPhase { .. }))
        ));
        assert!(matches!(
            game.play_text("#c3"),
            Err(PlayError::Illegal(IllegalAction::WrongPhase { .. }))
        ));
        game.play_text("c3").unwrap();
        assert!(matches!(
            game.play_text("c4"),
            Err(PlayError::Illegal(IllegalAction::WrongPhase { .. }))
        ));
        game.play_text("keep").unwrap();
        assert_eq!(
            game.play_text("c3"),
            Err(PlayError::Illegal(IllegalAction::Occupied(cell("c3"))))
        );
    }

    #[test]
    fn players_place_blocks_black_first_and_last() {
        let mut game = Game::new(&Layout::Placed { count: 3 }, false).unwrap();
        assert_eq!(game.phase(), Phase::PlaceBlocks);
        assert_eq!(game.color_to_act(), Some(Color::Black));
        game.play_text("#a1").unwrap();
        assert_eq!(game.color_to_act(), Some(Color::White));
        assert_eq!(
            game.play_text("#a1"),
            Err(PlayError::Illegal(IllegalAction::Blocked(cell("a1"))))
        );
        game.play_text("#b1").unwrap();
        assert_eq!(game.color_to_act(), Some(Color::Black));
        game.play_text("#c1").unwrap();
        assert_eq!(game.phase(), Phase::FirstStone);
        assert_eq!(game.color_to_act(), Some(Color::White));
        game.play_text("d1").unwrap();
        assert_eq!(game.phase(), Phase::Stones);
        assert_eq!(game.swapped(), None);
        assert_eq!(
            Game::new(&Layout::Placed { count: 4 }, false),
            Err(SetupError::Count(4))
        );
    }

    #[test]
    fn action_text_round_trips() {
        for text in ["d4", "#d4", "swap", "keep", "a1", "#g7"] {
            assert_eq!(text.parse::<Action>().unwrap().to_string(), text);
        }
        for bad in ["", "#", "# d4", "Swap", "d4 ", "block d4"] {
            assert!(bad.parse::<Action>().is_err(), "{bad:?}");
        }
    }
}
