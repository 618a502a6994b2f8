//! A tar.gz read entry by entry into the [`Tree`]: never through the `tar`
//! crate's own unpacking (`Archive::unpack`, `Entry::unpack`), which has had
//! path-escape advisories, but by reading each entry's type, name bytes and
//! data and leaving the writing to the tree. Long names (GNU `L`, pax
//! `path`) are whatever the `tar` crate makes of them: the resulting name is
//! judged like any other.

use std::io::{self, Read};

use flate2::read::GzDecoder;
use tar::{Archive, Entry, EntryType};

use crate::meter::Meter;
use crate::refused::{Place, Refused, shown};
use crate::tree::Tree;

const FORMAT: &str = "tar.gz";

/// What an entry's type makes of it.
enum Item {
    Folder,
    File,
    /// Metadata with no file (a pax global header, as `git archive` writes).
    Skip,
    Refuse(fn(String) -> Refused),
    Other(String),
}

/// Unpacks the tar.gz read from `upload` into `tree`.
pub(crate) fn read(upload: impl Read, tree: &mut Tree<'_>, meter: &Meter) -> Result<(), Refused> {
    let stream = meter.stream(GzDecoder::new(meter.input(upload)));
    let mut archive = Archive::new(stream);
    let entries = archive
        .entries()
        .map_err(|error| meter.refusal(error, FORMAT, Place::Start))?;
    let mut place = Place::Start;
    for entry in entries {
        let entry = entry.map_err(|error| meter.refusal(error, FORMAT, place.clone()))?;
        let raw = entry.path_bytes().into_owned();
        let name = shown(&raw);
        one(entry, &raw, &name, tree, meter)?;
        place = Place::After(name);
    }
    Ok(())
}

/// One entry, its name `raw` (as the tar crate made it of long-name and pax records) and `name` (shown).
fn one<R: Read>(
    mut entry: Entry<'_, R>,
    raw: &[u8],
    name: &str,
    tree: &mut Tree<'_>,
    meter: &Meter,
) -> Result<(), Refused> {
    tree.count(name)?;
    match item(entry.header().entry_type()) {
        Item::Folder => tree.folder(raw),
        Item::File => {
            let mode = entry
                .header()
                .mode()
                .map_err(|error| meter.refusal(error, FORMAT, Place::Inside(name.to_owned())))?;
            let declared = entry.size();
            let inside = || Place::Inside(name.to_owned());
            let mut data = meter.data(&mut entry);
            let unreadable = |error| meter.refusal(error, FORMAT, inside());
            let size = tree.file(raw, mode & 0o111 != 0, &mut data, unreadable)?;
            if size < declared {
                let short = io::Error::new(io::ErrorKind::UnexpectedEof, "the archive ends inside this file");
                return Err(meter.refusal(short, FORMAT, inside()));
            }
            Ok(())
        }
        Item::Skip => Ok(()),
        Item::Refuse(refusal) => Err(refusal(name.to_owned())),
        Item::Other(what) => Err(Refused::NotRegular {
            entry: name.to_owned(),
            what,
        }),
    }
}

fn item(kind: EntryType) -> Item {
    match kind {
        EntryType::Regular => Item::File,
        EntryType::Directory => Item::Folder,
        EntryType::XGlobalHeader => Item::Skip,
        EntryType::Symlink => Item::Refuse(|entry| Refused::Link { entry }),
        EntryType::Link => Item::Refuse(|entry| Refused::HardLink { entry }),
        EntryType::Char => Item::Other("a character device".to_owned()),
        EntryType::Block => Item::Other("a block device".to_owned()),
        EntryType::Fifo => Item::Other("a FIFO".to_owned()),
        EntryType::GNUSparse => Item::Other("a sparse file (GNU tar's `S` type)".to_owned()),
        EntryType::Continuous => Item::Other("a contiguous file (tar's type `7`)".to_owned()),
        other => Item::Other(format!("a tar entry of type `{}`", shown(&[other.as_byte()]))),
    }
}
