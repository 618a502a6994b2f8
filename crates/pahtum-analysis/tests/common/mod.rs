//! What the analysis's integration tests share: a small game to analyse.

use std::time::Duration;

use pahtum_record::{GameRecord, GameSpec, Players};

/// A game of first free cells on a layout of 37 blocks (12 free cells), its id `id`.
pub fn game(id: &str, seed: u64) -> GameRecord {
    let time = pahtum_protocol::move_time(Duration::from_secs(1));
    let spec = GameSpec::random(id, 37, seed, false, time).unwrap();
    let players = Players {
        first: "a".into(),
        second: "b".into(),
    };
    spec.play_out(players, |game| game.legal_moves()[0])
}
