//! Where `arena game` and `arena play` start: `--moves` (the plies so far,
//! typed) or `--from FILE --game ID --ply N` (a recorded game up to ply N).
//! The rules of both are pahtum-record's ([`GameSpec::after_typed_plies`],
//! [`GameSpec::replaying`]); the recorded game is read as `arena show` reads
//! it.

use std::path::PathBuf;

use anyhow::Context;
use pahtum_record::GameSpec;

use crate::inputs::source;

/// `--moves`, and `--from` with `--game` and `--ply`.
#[derive(Debug, clap::Args)]
pub struct OpeningFlags {
    /// Start after these plies, comma-separated in the protocol's notation: `#d4` a block placed by a
    /// player, `d4` a stone, `swap` or `keep` the pie decision (e.g. "c6,keep,d3"); the layout and rules
    /// come from the other flags.
    #[arg(long, value_name = "PLIES", conflicts_with = "from")]
    moves: Option<String>,
    /// Start from a recorded game (a record written by --out, a journal or a run's folder): its layout
    /// and rules, and its plies before --ply.
    #[arg(
        long,
        value_name = "FILE",
        requires = "ply",
        conflicts_with_all = ["blocks", "placed_blocks", "no_pie"]
    )]
    from: Option<PathBuf>,
    /// With --from: the recorded game's id (`arena show FILE` lists them); not needed for a single record.
    #[arg(long = "game", value_name = "ID", requires = "from")]
    game_id: Option<String>,
    /// With --from: the first ply the bots play, numbered as `arena show` and the replay viewer number
    /// them (the pie decision and players' blocks count); the recorded plies before it are given.
    #[arg(long, value_name = "N", requires = "from")]
    ply: Option<usize>,
}

impl OpeningFlags {
    /// The game to play. With `--moves`, `fresh` (the layout, rules and time
    /// of the command's other flags) after the plies given. With `--from`,
    /// the recorded game's layout and rules after its plies before `--ply`,
    /// with `fresh`'s time controls when `own_time` (else the record's) and
    /// `fresh`'s id and fair mode. Otherwise `fresh` itself.
    pub fn spec(&self, fresh: GameSpec, own_time: bool) -> anyhow::Result<GameSpec> {
        if let Some(moves) = &self.moves {
            return fresh.after_typed_plies(moves).context("--moves");
        }
        let (Some(path), Some(ply)) = (&self.from, self.ply) else {
            return Ok(fresh);
        };
        // Read as `arena show` reads it: a single record needs no id.
        let record = source(std::slice::from_ref(path))?.recorded_game(self.game_id.as_deref(), path)?;
        Ok(fresh.replaying(&record, &path.display().to_string(), ply, own_time)?)
    }
}
