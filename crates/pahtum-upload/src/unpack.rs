//! The one entry point for an upload: a fresh folder made, the upload read
//! into it by its kind's reader, and on any refusal the folder removed, so
//! that a refused upload leaves nothing behind. [`unpack_file`] is the same
//! for an upload kept in a file, read as it is unpacked rather than whole.

use std::fs::File;
use std::io::{Read, Seek};
use std::path::Path;

use crate::caps::Caps;
use crate::meter::Meter;
use crate::refused::{Refused, shown};
use crate::sniff::{Kind, sniff};
use crate::tree::{Tree, Unpacked};
use crate::{untar, unzip};

/// Unpacks the upload read from `archive`, of `kind` (see [`crate::sniff()`];
/// `archive` starts at the upload's first byte), into the folder `into`,
/// which this makes and which must not exist. Only regular files and
/// folders are written, under the names' and the caps' rules, each file
/// `0755` if its mode has an executable bit, else `0644`. On a refusal
/// `into` is removed again (except after [`Refused::IntoExists`]).
pub fn unpack(archive: impl Read, kind: &Kind, into: &Path, caps: &Caps) -> Result<Unpacked, Refused> {
    let mut tree = Tree::create(into, caps)?;
    let read = match kind {
        Kind::TarGz => untar::read(archive, &mut tree, &Meter::new(caps)),
        Kind::Zip => unzip::read(archive, &mut tree, caps),
        Kind::SingleFile { name } => single(archive, name, &mut tree),
    };
    match read {
        Ok(()) => Ok(tree.finish()),
        Err(refused) => Err(tree.discard(refused)),
    }
}

/// Unpacks the upload kept in the file `archive`, sent under the name
/// `file_name` (if any), into the fresh folder `into`, as [`unpack()`] does:
/// its kind told by its first bytes ([`crate::sniff()`]), then the file read
/// from its start as it is unpacked.
pub fn unpack_file(archive: &Path, file_name: Option<&str>, into: &Path, caps: &Caps) -> Result<Unpacked, Refused> {
    let unreadable = |error| Refused::io("read the upload", error);
    let mut file = File::open(archive).map_err(unreadable)?;
    let mut start = Vec::new();
    (&mut file).take(4).read_to_end(&mut start).map_err(unreadable)?;
    file.rewind().map_err(unreadable)?;
    unpack(file, &sniff(&start, file_name), into, caps)
}

fn single(mut upload: impl Read, name: &str, tree: &mut Tree<'_>) -> Result<(), Refused> {
    tree.count(&shown(name.as_bytes()))?;
    let unreadable = |error| Refused::io("read the upload", error);
    tree.file(name.as_bytes(), false, &mut upload, unreadable)?;
    Ok(())
}
