//! The games a command reads, as `pahtum_report::sources` finds them (a
//! record, a journal, a run's or a league's folder, shards merged on the
//! fly), with what it notes about them (games missing from merged shards)
//! said on stderr.

use std::path::PathBuf;

use pahtum_report::sources::{self, Note, OneJournal, Source, SourceError};

use crate::output::errln;

/// [`sources::source`], its notes said.
pub fn source(paths: &[PathBuf]) -> Result<Source, SourceError> {
    let source = sources::source(paths)?;
    say(source.notes());
    Ok(source)
}

/// [`sources::one_journal`], its notes said.
pub fn one_journal(paths: &[PathBuf]) -> Result<OneJournal, SourceError> {
    let journal = sources::one_journal(paths)?;
    say(&journal.notes);
    Ok(journal)
}

fn say(notes: &[Note]) {
    for note in notes {
        errln!("arena: {note}");
    }
}
