//! How hard the journal pushes each finished game to the disk: group commit.
//!
//! Every finished game is written to the journal at once, in one `write`, in
//! every mode: from then on it is in the kernel's page cache, so a referee that
//! is killed (SIGKILL, a panic, the OOM killer) loses nothing; only a power
//! loss or a kernel crash can lose what was written and not yet synced
//! (`fdatasync`). The modes differ only in when they sync:
//!
//! | mode | syncs | a power loss or kernel crash loses |
//! |---|---|---|
//! | `game` | after every game | nothing (at most the line being written, dropped as torn on resume) |
//! | `batch` (default) | at most [`BATCH_INTERVAL`] after a game was written, once for all the games written meanwhile, and when the run ends or is interrupted | the games written in the last [`BATCH_INTERVAL`] (200 ms) |
//! | `none` | when the run ends or is interrupted | every game since the run started (the kernel usually writes back within about 30 s) |
//!
//! A lost game is never half a game: it is missing from the journal, or its
//! line is torn and dropped, and a resume plays it again.
//!
//! `batch` is the default: a per-game `fdatasync` was about a third of a run's
//! time on a quiet disk and far more on a busy one, while 200 ms of games
//! replayed after a power cut costs next to nothing. `game` is for a journal
//! where every game must survive a power cut; `none` for a throwaway journal
//! (on tmpfs a sync costs nothing anyway).
//!
//! Durability is a run setting, not part of the tournament: it is left out of
//! the journal's header and hash, and may change between a run and its resume.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The longest a written game waits for its sync in [`Durability::Batch`].
pub const BATCH_INTERVAL: Duration = Duration::from_millis(200);

/// When the journal syncs its writes to the disk (the module documentation says what each can lose).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Sync after every game.
    Game,
    /// Sync at most [`BATCH_INTERVAL`] after a write, for all the games written meanwhile.
    #[default]
    Batch,
    /// Sync only when the run ends or is interrupted.
    None,
}

impl Durability {
    /// The mode's name, as written in the tournament file.
    pub fn name(self) -> &'static str {
        match self {
            Durability::Game => "game",
            Durability::Batch => "batch",
            Durability::None => "none",
        }
    }
}

impl fmt::Display for Durability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What to write instead of an unknown durability.
pub const CHOICES: &str =
    "use \"game\" (sync every game), \"batch\" (sync at most every 200 ms) or \"none\" (sync at the end)";

/// A durability that is none of `game`, `batch` and `none`.
#[derive(Debug, thiserror::Error)]
#[error("\"{0}\" is not a durability; {CHOICES}")]
pub struct UnknownDurability(pub String);

impl FromStr for Durability {
    type Err = UnknownDurability;

    fn from_str(text: &str) -> Result<Durability, UnknownDurability> {
        match text {
            "game" => Ok(Durability::Game),
            "batch" => Ok(Durability::Batch),
            "none" => Ok(Durability::None),
            other => Err(UnknownDurability(other.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_to_its_mode() {
        for mode in [Durability::Game, Durability::Batch, Durability::None] {
            assert_eq!(mode.name().parse::<Durability>().unwrap(), mode);
        }
        let error = "fast".parse::<Durability>().unwrap_err().to_string();
        assert!(
            error.starts_with("\"fast\" is not a durability; use \"game\""),
            "{error}"
        );
    }
}
