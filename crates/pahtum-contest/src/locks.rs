//! A league's journal locked for a moment by a child of this very process.
//!
//! The lock is an `flock` on the journal's open file, which a forked child shares until it runs its
//! program: while the builder starts a build or a check (or the ladder a bot), a child of this process may
//! hold a league's lock for some milliseconds after the journal was closed. It is let go at the child's
//! `exec`, so whoever opens a league here (the ladder, the final's set-up, a cluster's round) tries again
//! for a while before it gives up.

use std::path::Path;
use std::time::{Duration, Instant};

use pahtum_journal::JournalError;
use pahtum_league::{LeagueError, folder};

/// How long to wait before trying a locked journal again.
pub(crate) const LOCK_RETRY: Duration = Duration::from_millis(20);

/// How long to try to lock a journal before giving up.
const LOCK_PATIENCE: Duration = Duration::from_secs(10);

/// Whether `error` is the journal's lock held elsewhere.
pub(crate) fn locked(error: &LeagueError) -> bool {
    matches!(error, LeagueError::Journal(JournalError::Locked { .. }))
}

/// The league in `league` opened, trying again for a while as long as its journal is locked.
pub(crate) async fn open_league(league: &Path) -> Result<folder::Opened, LeagueError> {
    let started = Instant::now();
    loop {
        match folder::open(league) {
            Err(error) if locked(&error) && started.elapsed() < LOCK_PATIENCE => {
                tokio::time::sleep(LOCK_RETRY).await;
            }
            opened => return opened,
        }
    }
}

/// [`open_league`] for a thread that may block (the final's set-up, off the async threads).
pub(crate) fn open_league_blocking(league: &Path) -> Result<folder::Opened, LeagueError> {
    let started = Instant::now();
    loop {
        match folder::open(league) {
            Err(error) if locked(&error) && started.elapsed() < LOCK_PATIENCE => std::thread::sleep(LOCK_RETRY),
            opened => return opened,
        }
    }
}
