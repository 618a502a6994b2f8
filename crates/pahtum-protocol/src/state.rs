//! The game a request describes, and the request that describes a game.
//!
//! Every request carries the full state, so a bot can be stateless: replaying
//! the `moves` of a request from its rules and blocks gives the [`Game`], with
//! its phase, its seats and its legal moves ([`Request::game`]). The referee
//! goes the other way and writes the request for whoever acts next
//! ([`ToBot::request`]); the two are inverses, and tests hold them to it.

use pahtum::{Bitboard, Cell, Game, Layout, Phase, PlayError, SetupError};

use crate::{Clock, Placement, Request, Rules, ToBot};

/// Why a request does not describe a game.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The rules' block count or the blocks cannot start a game.
    #[error("the request's rules or blocks are not a valid setup")]
    Setup(#[source] SetupError),
    /// One of the `moves` is malformed or illegal where it stands.
    #[error("move {index} ({text:?}) of the request cannot be played")]
    Move {
        /// Its position in `moves`, from 0.
        index: usize,
        /// The move as written.
        text: String,
        /// Why it cannot be played.
        #[source]
        source: PlayError,
    },
    /// The moves replay, but to another board than the request's `blocks`,
    /// `white` and `black`.
    #[error("the board after the moves differs from the request's blocks and stones")]
    Mismatch,
}

impl ToBot {
    /// The request to the player who acts next in `game`: `place_block`,
    /// `play_stone` or `pie_decision` by its phase, with the full state and
    /// the colour that acts. `rules` must be the rules `game` was set up
    /// with. `None` once the game is finished.
    pub fn request(id: u64, game_id: &str, rules: Rules, game: &Game, clock: Clock) -> Option<ToBot> {
        let position = game.position();
        let cells = |set: Bitboard| set.cells().collect::<Vec<Cell>>();
        let request = Request {
            id,
            game: game_id.to_owned(),
            color: game.color_to_act()?,
            rules,
            blocks: cells(position.blocks()),
            white: cells(position.white()),
            black: cells(position.black()),
            moves: game.history().iter().map(ToString::to_string).collect(),
            clock,
        };
        Some(match game.phase() {
            Phase::PlaceBlocks => ToBot::PlaceBlock(request),
            Phase::PieDecision => ToBot::PieDecision(request),
            Phase::FirstStone | Phase::Stones | Phase::Finished => ToBot::PlayStone(request),
        })
    }
}

impl Rules {
    /// The game under these rules before its first action: with `blocks` on
    /// the board, or for players' placement an empty board (`blocks` is then
    /// ignored: the players' blocks come with the moves).
    pub fn start(&self, blocks: &[Cell]) -> Result<Game, SetupError> {
        self.start_on(blocks.iter().copied().collect())
    }

    /// [`Rules::start`] with the blocks as a set.
    pub fn start_on(&self, blocks: Bitboard) -> Result<Game, SetupError> {
        match self.placement {
            Placement::Players => Game::new(&Layout::Placed { count: self.blocks }, self.pie),
            Placement::Random | Placement::Fixed => Game::with_blocks(blocks, self.pie),
        }
    }
}

impl Request {
    /// Replays the request's moves into a [`Game`] and checks that the result
    /// matches its blocks and stones.
    pub fn game(&self) -> Result<Game, StateError> {
        let mut game = self.rules.start(&self.blocks).map_err(StateError::Setup)?;
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
