//! A journal rewritten without some of its games, so that a resume plays them again (`arena run
//! FILE --replay BOT`, after a bot's program was replaced), and the old journal kept aside.
//!
//! The journal is append-only while a run writes it; this is the one change made to it otherwise, and
//! it is made so that the journal's path always holds a whole journal: the kept lines are copied, byte
//! for byte, to a new file beside it, which is synced, the old journal is linked under a name of its
//! own ([`keep_aside`]), and the new file is renamed over the old one (one atomic step). The old
//! journal is locked meanwhile, so that a running arena's journal is not rewritten under it. The
//! records stream through the checking reader ([`JournalReader`]): memory does not grow with the
//! games, and a faulty line stops the rewrite before anything is changed.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use pahtum_record::GameRecord;

use super::check::Moves;
use super::error::JournalError;
use super::read::{Item, JournalReader, LineFault};
use super::write::lock;

/// What [`drop_games`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    /// The records dropped.
    pub games: usize,
    /// Where the journal as it was is kept; `None` when no record was dropped (the journal is unchanged).
    pub aside: Option<PathBuf>,
}

/// Rewrites the journal at `path` without the records for which `drop` holds (read without their
/// moves; its `joined` lines stay where they are), keeping the old journal aside (see the module docs). A torn last line goes with the old
/// journal: its game is not in the new one, and is played again as the dropped ones are.
pub fn drop_games(path: &Path, drop: impl Fn(&GameRecord) -> bool + Sync) -> Result<Dropped, JournalError> {
    let io_error = |action| {
        move |source| JournalError::Io {
            action,
            path: path.to_owned(),
            source,
        }
    };
    let held = File::open(path).map_err(io_error("open"))?;
    lock(&held, path)?;
    let reader = JournalReader::open(path)?;
    let header = reader.header().clone();
    let partial = path.with_extension("jsonl.partial");
    let mut out = BufWriter::new(File::create(&partial).map_err(io_error("rewrite"))?);
    let mut header_line = serde_json::to_vec(&header).expect("a header serializes");
    header_line.push(b'\n');
    out.write_all(&header_line).map_err(io_error("rewrite"))?;
    let mut games = 0;
    let written = reader
        .scan(
            Moves::Drop,
            |record, _| drop(&record),
            |item| match item {
                Item::Record { kept: true, .. } => {
                    games += 1;
                    Ok(())
                }
                Item::Record { text, .. } | Item::Joined { text, .. } => out
                    .write_all(text)
                    .and_then(|()| out.write_all(b"\n"))
                    .map_err(io_error("rewrite")),
                Item::Fault(LineFault { line, fault }) => Err(JournalError::Fault {
                    path: path.to_owned(),
                    line,
                    source: fault,
                }),
            },
        )
        .and_then(|_| {
            let file = out
                .into_inner()
                .map_err(|error| io_error("rewrite")(error.into_error()))?;
            file.sync_all().map_err(io_error("rewrite"))
        });
    if let Err(error) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(error);
    }
    if games == 0 {
        std::fs::remove_file(&partial).map_err(io_error("rewrite"))?;
        return Ok(Dropped { games, aside: None });
    }
    let aside = keep_aside(path).map_err(io_error("keep aside"))?;
    std::fs::rename(&partial, path).map_err(io_error("replace"))?;
    sync_folder(path).map_err(io_error("sync the folder of"))?;
    Ok(Dropped {
        games,
        aside: Some(aside),
    })
}

/// Links the journal at `path` under a name of its own in its folder (`journal-replaced-SECS.jsonl`,
/// or `journal-replaced-SECS-N.jsonl` when that is taken), never replacing a journal kept before;
/// returns that name. The caller holds the journal's lock, and removes or replaces `path` after.
pub fn keep_aside(path: &Path) -> io::Result<PathBuf> {
    let folder = path.parent().unwrap_or(Path::new("."));
    let secs = pahtum_record::since_the_epoch().as_secs();
    for number in 0.. {
        let aside = match number {
            0 => folder.join(format!("journal-replaced-{secs}.jsonl")),
            _ => folder.join(format!("journal-replaced-{secs}-{number}.jsonl")),
        };
        match std::fs::hard_link(path, &aside) {
            Ok(()) => return Ok(aside),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
    }
    unreachable!("some name is free")
}

/// Makes the names in the folder of `path` durable (a rename, a new file).
fn sync_folder(path: &Path) -> io::Result<()> {
    match path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        Some(dir) => File::open(dir)?.sync_all(),
        None => Ok(()),
    }
}
