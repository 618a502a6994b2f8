//! The game a request describes, rebuilt with the rules crate.
//!
//! Every request carries the full state, so a bot can be stateless: replaying
//! the `moves` of a request from its rules and blocks gives the [`Game`], with
//! its phase, its seats and its legal moves.

use pahtum::{Bitboard, Game, Layout, PlayError, SetupError};

use crate::{Placement, Request};

/// Why a request does not describe a game.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("the request's rules or blocks are not a valid setup")]
    Setup(#[source] SetupError),
    #[error("move {index} ({text:?}) of the request cannot be played")]
    Move {
        index: usize,
        text: String,
        #[source]
        source: PlayError,
    },
    #[error("the board after the moves differs from the request's blocks and stones")]
    Mismatch,
}

impl Request {
    /// Replays the request's moves into a [`Game`] and checks that the result
    /// matches its blocks and stones.
    pub fn game(&self) -> Result<Game, StateError> {
        let mut game = match self.rules.placement {
            Placement::Players => Game::new(
                &Layout::Placed {
                    count: self.rules.blocks,
                },
                self.rules.pie,
            ),
            Placement::Random | Placement::Fixed => {
                let blocks: Bitboard = self.blocks.iter().copied().collect();
                Game::with_blocks(blocks, self.rules.pie)
            }
        }
        .map_err(StateError::Setup)?;
        for (index, text) in self.moves.iter().enumerate() {
            game.play_text(text).map_err(|source| StateError::Move {
                index,
                text: text.clone(),
                source,
            })?;
        }
        let position = game.position();
        let same = |cells: &[pahtum::Cell], set: Bitboard| cells.iter().copied().collect::<Bitboard>() == set;
        if same(&self.blocks, position.blocks())
            && same(&self.white, position.white())
            && same(&self.black, position.black())
        {
            Ok(game)
        } else {
            Err(StateError::Mismatch)
        }
    }
}
