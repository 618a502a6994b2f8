//! Following a journal while another process writes it: each look reads only
//! the bytes written since the last one.
//!
//! A page that shows a run as it plays (`arena serve`) looks at the run's
//! journal again and again. Reading the whole file each time costs in
//! proportion to the games played, so a long run's page grows slower with
//! every game, and so do the games it shares the machine with. A [`Follower`]
//! keeps where its reading stopped ([`Place`]: the line, the offset, and the
//! line of each game's first record, so that a game recorded twice is still
//! found) and reads from there, checking every new record as every reader
//! does.
//!
//! Only complete lines are read: the bytes after the last newline may be a
//! record still being written, so they wait for the next look (a record is
//! never trusted before it is complete and checked). A journal that was
//! replaced or cut shorter than what was read (a `--fresh` run, `arena
//! verify --repair`'s rewrite) is not the file that was followed:
//! [`Growth::Replaced`] says to start again.

use std::path::Path;

use pahtum_record::GameRecord;

use crate::audit::Fault;
use pahtum_tournament::schedule::Schedule;

use super::check::Moves;
use super::error::JournalError;
use super::header::Header;
use super::read::{JournalReader, Place, Span, record_or_fault};
use super::tail::{Growth, Tail};
use pahtum_tournament::config::tournament_hash;

/// A journal followed as it grows.
#[derive(Debug)]
pub struct Follower {
    tail: Tail,
    header: Header,
    place: Place,
}

impl Follower {
    /// Opens the journal at `path` and reads its header (checking its hash); no record is read yet.
    pub fn open(path: &Path) -> Result<Follower, JournalError> {
        let reader = JournalReader::open(path)?;
        let header = reader.header().clone();
        if header.hash != tournament_hash(&header.tournament) {
            return Err(JournalError::Fault {
                path: path.to_owned(),
                line: 1,
                source: Fault::HeaderEdited { hash: header.hash },
            });
        }
        let place = Place::after_header(&header, reader.header_len());
        Ok(Follower {
            tail: Tail::open(path)?,
            header,
            place,
        })
    }

    /// The journal's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The journal's schedule, grown by the `joined` lines read so far.
    pub fn schedule(&self) -> &Schedule {
        &self.place.ending.schedule
    }

    /// The bytes read so far: the header and every complete line after it.
    pub fn bytes_read(&self) -> u64 {
        self.place.ending.valid_len
    }

    /// Reads the complete lines written since the last look and calls `on_record` with each new record, as
    /// [`JournalReader::for_each_kept`] does. Fails at a faulty line; the follower is then spent (open it
    /// again to read the fault anew).
    pub fn read_new<T: Send>(
        &mut self,
        moves: Moves,
        keep: impl Fn(GameRecord) -> T + Sync,
        mut on_record: impl FnMut(T, Span),
    ) -> Result<Growth, JournalError> {
        let lines = match self.tail.new_lines(self.bytes_read())? {
            Ok(lines) => lines,
            Err(nothing_new) => return Ok(nothing_new),
        };
        let records = self.place.ending.records;
        let path = self.tail.path().to_owned();
        self.place.scan(
            &path,
            lines,
            moves,
            |record, _| keep(record),
            |item| record_or_fault(&path, item, &mut |kept, _, span| on_record(kept, span)),
        )?;
        Ok(Growth::Grew(self.place.ending.records - records))
    }
}
