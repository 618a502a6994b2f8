//! Where a game starts when it does not start from its layout: after plies a
//! person typed (`arena game --moves "c6,keep,d3"`), or from a recorded game
//! up to a ply (`--from FILE --game ID --ply N`), so that a bot's author can
//! play the moment their bot went wrong again and again. Either way the plies
//! become the spec's opening ([`GameSpec::with_opening`]): the rules check
//! them here, the referee plays them before its first request, and the
//! record says where the game started.

use pahtum::{Action, ParseActionError};

use crate::spec::{GameSpec, OpeningError};
use crate::{GameRecord, Origin, ReplayError, Source};

/// A typed ply that is no action.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("ply {ply}")]
pub struct PlyError {
    /// Its number, from 1.
    pub ply: usize,
    /// Why it is no action.
    #[source]
    pub action: ParseActionError,
}

/// Why typed plies cannot start a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TypedOpeningError {
    /// A ply is no action.
    #[error(transparent)]
    Ply(#[from] PlyError),
    /// The rules refuse the plies.
    #[error(transparent)]
    Rules(#[from] OpeningError),
}

/// Why a recorded game cannot be played again from a ply.
#[derive(Debug, thiserror::Error)]
pub enum ReplayingError {
    /// The recorded game does not replay.
    #[error("game {game:?} of {file}")]
    Replay {
        /// The game's id.
        game: String,
        /// The file that holds it, as named.
        file: String,
        /// Why it does not replay.
        #[source]
        replay: ReplayError,
    },
    /// The game has no such ply for the bots to play.
    #[error("--ply {ply}: game {game:?} of {file} has plies 1 to {last} for the bots to play")]
    NoSuchPly {
        /// The ply asked for.
        ply: usize,
        /// The game's id.
        game: String,
        /// The file that holds it, as named.
        file: String,
        /// The last ply the bots may play.
        last: usize,
    },
    /// The rules refuse the recorded plies on the layout (a record that replays never does this).
    #[error("--from {file} --ply {ply}")]
    Opening {
        /// The file that holds the game, as named.
        file: String,
        /// The ply asked for.
        ply: usize,
        /// Why the rules refuse them.
        #[source]
        opening: OpeningError,
    },
}

/// The plies of `text`: comma-separated actions in the protocol's notation (`#d4` a block placed by a
/// player, `d4` a stone, `swap` or `keep` the pie decision), blanks around them ignored; none for blank text.
pub fn parse_plies(text: &str) -> Result<Vec<Action>, PlyError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .enumerate()
        .map(|(index, word)| {
            word.trim()
                .parse::<Action>()
                .map_err(|action| PlyError { ply: index + 1, action })
        })
        .collect()
}

impl GameSpec {
    /// This game started after the plies typed in `text` ([`parse_plies`]), checked by the rules.
    pub fn after_typed_plies(self, text: &str) -> Result<GameSpec, TypedOpeningError> {
        Ok(self.with_opening(parse_plies(text)?, None)?)
    }

    /// The recorded game `record` of `file` played again from its ply `ply`, numbered as `arena show`
    /// and the replay viewer number them (the pie decision and players' blocks count): its layout and
    /// rules after its plies before `ply`, its origin said, with this spec's time controls when
    /// `own_time` (else the record's), and this spec's id and fair mode. The bots may play any recorded
    /// ply again, or the one after the last when the game ended early (by a forfeit at that ply).
    pub fn replaying(
        self,
        record: &GameRecord,
        file: &str,
        ply: usize,
        own_time: bool,
    ) -> Result<GameSpec, ReplayingError> {
        let (game, file) = (record.id.clone(), file.to_owned());
        let replayed = match record.replay() {
            Ok(replayed) => replayed,
            Err(replay) => return Err(ReplayingError::Replay { game, file, replay }),
        };
        let recorded = replayed.history();
        let last = recorded.len() + usize::from(!replayed.is_finished());
        if !(1..=last).contains(&ply) {
            return Err(ReplayingError::NoSuchPly { ply, game, file, last });
        }
        let mut spec = GameSpec::of_record(self.id, record);
        spec.pause_idle = self.pause_idle;
        if own_time {
            spec.time = self.time;
            spec.time_by_seat = self.time_by_seat;
        }
        let origin = Origin {
            file: file.clone(),
            game,
        };
        spec.with_opening(recorded[..ply - 1].to_vec(), Some(Source::Game(origin)))
            .map_err(|opening| ReplayingError::Opening { file, ply, opening })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use pahtum::IllegalAction;
    use pahtum_protocol::move_time;

    use super::*;
    use crate::Players;

    #[test]
    fn plies_are_read_in_the_protocol_notation_and_a_bad_one_is_named() {
        let read = parse_plies(" #c6, d4 ,keep,e5").unwrap();
        let text: Vec<String> = read.iter().map(ToString::to_string).collect();
        assert_eq!(text, ["#c6", "d4", "keep", "e5"]);
        assert_eq!(parse_plies("  ").unwrap(), []);
        let error = parse_plies("d4,z9").unwrap_err();
        assert_eq!(
            (error.to_string(), error.action.text.as_str()),
            ("ply 2".to_owned(), "z9")
        );
    }

    fn fresh(id: &str, move_ms: u64) -> GameSpec {
        GameSpec::random(id, 7, 42, true, move_time(Duration::from_millis(move_ms))).unwrap()
    }

    #[test]
    fn typed_plies_start_the_game_when_the_rules_allow_them() {
        let first = fresh("g", 100).initial_game().legal_moves()[0];
        let spec = fresh("g", 100).after_typed_plies(&format!("{first},keep")).unwrap();
        assert_eq!((spec.opening, spec.origin), (vec![first, Action::Pie(false)], None));
        let error = fresh("g", 100)
            .after_typed_plies(&format!("{first},keep,{first}"))
            .unwrap_err();
        let Action::Stone(cell) = first else {
            panic!("a random layout starts with a stone: {first}")
        };
        assert_eq!(
            error,
            TypedOpeningError::Rules(OpeningError::Illegal {
                ply: 3,
                action: first,
                illegal: IllegalAction::Occupied(cell),
            })
        );
        assert!(matches!(
            fresh("g", 100).after_typed_plies(&format!("{first},z9")),
            Err(TypedOpeningError::Ply(PlyError { ply: 2, .. }))
        ));
    }

    #[test]
    fn a_recorded_game_is_played_again_from_a_ply_with_its_layout_and_plies_before() {
        let layout = fresh("recorded", 500);
        let players = Players {
            first: "a".to_owned(),
            second: "b".to_owned(),
        };
        let record = layout.play_out(players, |game| game.legal_moves()[0]);
        let plies = record.replay().unwrap().history().len();
        let spec = fresh("again", 100).replaying(&record, "runs/t", 3, false).unwrap();
        assert_eq!(
            (spec.id.as_str(), spec.blocks.clone()),
            ("again", layout.blocks.clone())
        );
        assert_eq!(spec.opening, record.replay().unwrap().history()[..2]);
        assert_eq!(spec.time, layout.time, "the record's time control");
        let Some(Source::Game(origin)) = spec.origin else {
            panic!("taken from a game: {:?}", spec.origin);
        };
        assert_eq!((origin.file.as_str(), origin.game.as_str()), ("runs/t", "recorded"));
        let own = fresh("again", 100).replaying(&record, "runs/t", 1, true).unwrap();
        assert_eq!((own.time.move_ms, own.opening.len()), (Some(100), 0));
        for ply in [0, plies + 1] {
            let error = fresh("again", 100)
                .replaying(&record, "runs/t", ply, false)
                .unwrap_err();
            assert_eq!(
                error.to_string(),
                format!("--ply {ply}: game \"recorded\" of runs/t has plies 1 to {plies} for the bots to play")
            );
        }
    }
}
