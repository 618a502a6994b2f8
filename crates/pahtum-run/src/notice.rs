//! What a run tells whoever runs it besides its games: what was done to its journal, a bot whose
//! program changed, what it could not do and plays on without.
//!
//! A command hands its run over once (pahtum-runner's `tournament::play`, `head_to_head::play`) and
//! the run's steps (the journal rewritten for `--replay`, the bots greeted, the journal opened, the
//! socket made) happen inside that one call. What the organiser is to be told of them must still
//! reach the terminal as it happens, between the same lines as before, and in the command's words:
//! so each is a [`Notice`], shown to the run's observer as an
//! [`Event::Notice`](crate::events::Event::Notice) in the order it happens, and the command renders
//! it. A notice is data, never text to print: the only words in it are those its source gives (a
//! sandbox's note, a bot's start-up failure as the runner shows it).

use std::io;
use std::path::Path;

use pahtum_journal::Joined;
use pahtum_protocol::bot::Identity;

/// Something a run tells whoever runs it, before its games are played.
#[derive(Debug, Clone, Copy)]
pub enum Notice<'a> {
    /// A sandboxed bot does not see something its command names, or sees it only because its `ro_paths`
    /// names it.
    Sandbox {
        /// The bot's name.
        bot: &'a str,
        /// What it does not see, or sees, in words (untrusted text: escape it for a terminal).
        note: &'a str,
    },
    /// Fair mode (`pause_idle`) is asked for, but this machine offers no cgroup freezer: the bot not to
    /// move is stopped with SIGSTOP, which its own processes can undo.
    PausedBySignals,
    /// The games of `bots` were dropped from the journal so that the run plays them again (`--replay`).
    Dropped {
        /// The bots whose games were dropped.
        bots: &'a [String],
        /// The records dropped.
        games: usize,
        /// Where the journal as it was is kept; `None` when it held no game of theirs (it is unchanged).
        aside: Option<&'a Path>,
    },
    /// A bot could not start to say its `hello`, so its games in the journal cannot be compared with its
    /// program now; it is left out of the check.
    NotGreeted {
        /// Its start-up failure with the evidence, as the runner shows it (escaped, its lines indented).
        why: &'a str,
    },
    /// The journal that was in the output folder was moved aside (a fresh start).
    MovedAside {
        /// Where it is kept.
        aside: &'a Path,
    },
    /// The journal's torn last line (a game cut off by a crash) was dropped; its game is played again.
    RepairedTornLine,
    /// Bots that the file added joined the tournament.
    Joined {
        /// The `joined` line appended to the journal.
        joined: &'a Joined,
        /// The games already played, which are kept.
        kept: usize,
    },
    /// A bot says another `hello` now than in its last game in the journal: its program changed.
    HelloChanged {
        /// The bot's name in the tournament.
        bot: &'a str,
        /// Its greeting in its most recent record that has one.
        was: &'a Identity,
        /// Its greeting now.
        now: &'a Identity,
        /// Its records in the journal.
        games: usize,
        /// Those whose greeting is not the one now: played by another program.
        other: usize,
    },
    /// The socket through which another process follows the games in progress cannot be made; the run
    /// plays on without it.
    NoLiveSocket {
        /// Why.
        error: &'a io::Error,
    },
}
