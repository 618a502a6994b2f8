//! The one entry point for an upload: a fresh folder made, the upload read
//! into it by its kind's reader, and on any refusal the folder removed, so
//! that a refused upload leaves nothing behind.

use std::io::Read;
use std::path::Path;

use crate::caps::Caps;
use crate::meter::Meter;
use crate::refused::{Refused, shown};
use crate::sniff::Kind;
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

fn single(mut upload: impl Read, name: &str, tree: &mut Tree<'_>) -> Result<(), Refused> {
    tree.count(&shown(name.as_bytes()))?;
    let unreadable = |error| Refused::io("read the upload", error);
    tree.file(name.as_bytes(), false, &mut upload, unreadable)?;
    Ok(())
}
