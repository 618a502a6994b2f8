//! A zip read entry by entry into the [`Tree`]: never through the `zip`
//! crate's `extract`, which has had path-escape advisories, but by reading
//! each entry's raw name, its Unix mode (links and special files) and its
//! encryption flag first, then its data, and leaving the writing to the
//! tree. A zip's directory is at its end, so the upload is read into memory
//! first, at most `Caps::upload_bytes` of it.

use std::io::{Cursor, Read};

use zip::result::ZipError;
use zip::{CompressionMethod, ZipArchive};

use crate::caps::Caps;
use crate::refused::{Place, Refused, shown};
use crate::tree::Tree;

const FORMAT: &str = "zip";

/// The Unix file type bits of a mode, and the types a zip may record.
const TYPE_MASK: u32 = 0o170_000;
const FIFO: u32 = 0o010_000;
const CHAR: u32 = 0o020_000;
const FOLDER: u32 = 0o040_000;
const BLOCK: u32 = 0o060_000;
const FILE: u32 = 0o100_000;
const LINK: u32 = 0o120_000;
const SOCKET: u32 = 0o140_000;

/// An entry's name, type and flags, read before its data.
struct Header {
    raw: Vec<u8>,
    name: String,
    encrypted: bool,
    method: CompressionMethod,
    mode: Option<u32>,
}

/// Unpacks the zip read from `upload` into `tree`.
pub(crate) fn read(upload: impl Read, tree: &mut Tree<'_>, caps: &Caps) -> Result<(), Refused> {
    let bytes = read_whole(upload, caps.upload_bytes())?;
    let mut archive = ZipArchive::new(Cursor::new(bytes)).map_err(|error| corrupt(error, Place::Start))?;
    let mut place = Place::Start;
    for index in 0..archive.len() {
        let header = header(&mut archive, index).map_err(|error| corrupt(error, place.clone()))?;
        one(&mut archive, index, &header, tree)?;
        place = Place::After(header.name);
    }
    Ok(())
}

fn read_whole(upload: impl Read, limit: u64) -> Result<Vec<u8>, Refused> {
    let mut bytes = Vec::new();
    upload
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|error| Refused::io("read the upload", error))?;
    if bytes.len() as u64 > limit {
        return Err(Refused::UploadTooBig {
            place: Place::Start,
            limit,
        });
    }
    Ok(bytes)
}

fn header(archive: &mut ZipArchive<Cursor<Vec<u8>>>, index: usize) -> Result<Header, ZipError> {
    let file = archive.by_index_raw(index)?;
    Ok(Header {
        raw: file.name_raw().to_owned(),
        name: shown(file.name_raw()),
        encrypted: file.encrypted(),
        method: file.compression(),
        mode: file.unix_mode(),
    })
}

fn one(
    archive: &mut ZipArchive<Cursor<Vec<u8>>>,
    index: usize,
    header: &Header,
    tree: &mut Tree<'_>,
) -> Result<(), Refused> {
    let entry = || header.name.clone();
    tree.count(&header.name)?;
    if header.encrypted {
        return Err(Refused::Encrypted { entry: entry() });
    }
    let mode = header.mode.unwrap_or(0);
    match mode & TYPE_MASK {
        FOLDER => tree.folder(&header.raw),
        0 | FILE if header.raw.ends_with(b"/") => tree.folder(&header.raw),
        0 | FILE if !matches!(header.method, CompressionMethod::Stored | CompressionMethod::Deflated) => {
            Err(Refused::Unsupported {
                entry: entry(),
                method: header.method.to_string(),
            })
        }
        0 | FILE => {
            let inside = || Place::Inside(entry());
            let mut file = archive.by_index(index).map_err(|error| corrupt(error, inside()))?;
            let unreadable = |error| corrupt(error, inside());
            tree.file(&header.raw, mode & 0o111 != 0, &mut file, unreadable)?;
            Ok(())
        }
        LINK => Err(Refused::Link { entry: entry() }),
        other => Err(Refused::NotRegular {
            entry: entry(),
            what: what(other).to_owned(),
        }),
    }
}

fn what(kind: u32) -> &'static str {
    match kind {
        FIFO => "a FIFO",
        CHAR => "a character device",
        BLOCK => "a block device",
        SOCKET => "a socket",
        _ => "of an unknown file type",
    }
}

fn corrupt(error: impl Into<Box<dyn std::error::Error + Send + Sync>>, place: Place) -> Refused {
    Refused::Corrupt {
        format: FORMAT,
        place,
        source: error.into(),
    }
}
