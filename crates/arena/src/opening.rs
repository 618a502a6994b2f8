//! Where `arena game` and `arena play` start: `--moves` (the plies so far,
//! typed) or `--from FILE --game ID --ply N` (a recorded game up to ply N),
//! so that a bot's author can play the moment their bot went wrong again and
//! again. The plies go to the referee in the game's spec
//! ([`GameSpec::opening`]): the rules check them here, the referee plays them
//! before its first request, and the record says where the game started.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use pahtum::Action;
use pahtum_record::{GameRecord, GameSpec, Origin};

use crate::inputs::{Source, source};

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
            let plies = plies(moves).context("--moves")?;
            return fresh.with_opening(plies, None).context("--moves");
        }
        let (Some(path), Some(ply)) = (&self.from, self.ply) else {
            return Ok(fresh);
        };
        let record = recorded_game(path, self.game_id.as_deref())?;
        let game = record
            .replay()
            .with_context(|| format!("game {:?} of {}", record.id, path.display()))?;
        let recorded = game.history();
        // The bots may play any recorded ply again, or the one after the last
        // when the game ended early (by a forfeit at that ply).
        let last = recorded.len() + usize::from(!game.is_finished());
        if !(1..=last).contains(&ply) {
            bail!(
                "--ply {ply}: game {:?} of {} has plies 1 to {last} for the bots to play",
                record.id,
                path.display()
            );
        }
        let origin = Origin {
            file: path.display().to_string(),
            game: record.id.clone(),
        };
        let mut spec = GameSpec::of_record(fresh.id.clone(), &record);
        spec.pause_idle = fresh.pause_idle;
        if own_time {
            spec.time = fresh.time;
            spec.time_by_seat = fresh.time_by_seat;
        }
        spec.with_opening(recorded[..ply - 1].to_vec(), Some(origin))
            .with_context(|| format!("--from {} --ply {ply}", path.display()))
    }
}

/// The plies of `--moves`: comma-separated actions, blanks around them ignored.
fn plies(text: &str) -> anyhow::Result<Vec<Action>> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .enumerate()
        .map(|(index, word)| {
            word.trim()
                .parse::<Action>()
                .with_context(|| format!("ply {}", index + 1))
        })
        .collect()
}

/// The recorded game `id` of `path`: a single record (which needs no id), a
/// journal, or a run's folder, read as `arena show` reads them.
fn recorded_game(path: &Path, id: Option<&str>) -> anyhow::Result<GameRecord> {
    let source = source(&[path.to_path_buf()])?;
    if let Source::Record { path, record } = &source {
        if let Some(id) = id.filter(|&id| id != record.id) {
            bail!(
                "{} is the record of game {:?}, not {id:?}: leave --game out",
                path.display(),
                record.id
            );
        }
    }
    let games = source.games()?;
    match (id, games.records.as_slice()) {
        (_, [only]) if id.is_none_or(|id| id == only.id) => Ok(only.clone()),
        (Some(id), _) => games.game(id, path).cloned(),
        (None, records) => bail!(
            "{} is a journal of {} games: say which with --game ID (`arena show {}` lists them)",
            path.display(),
            records.len(),
            path.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plies_are_read_in_the_protocol_notation_and_a_bad_one_is_named() {
        let read = plies(" #c6, d4 ,keep,e5").unwrap();
        let text: Vec<String> = read.iter().map(ToString::to_string).collect();
        assert_eq!(text, ["#c6", "d4", "keep", "e5"]);
        assert_eq!(plies("  ").unwrap(), []);
        let error = format!("{:#}", plies("d4,z9").unwrap_err());
        assert!(error.starts_with("ply 2: \"z9\" is not an action"), "{error}");
    }
}
