//! A folder packed into the upload `arena submit` sends: a `.tar.gz` of its
//! regular files and folders, byte for byte the same for the same folder
//! (names sorted, mtime 0, owner 0, modes `0644` and `0755`), under the same
//! caps and name rules as [`crate::unpack()`], so that what packs unpacks. It
//! skips nothing: a link or a special file in the folder is an error that
//! says which, since the server would refuse it.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use flate2::Compression;
use flate2::write::GzEncoder;
use tar::{Builder, EntryType, Header};

use crate::caps::Caps;
use crate::name::{self, NameRule};
use crate::refused::{shown, size};

/// Why [`pack`] could not pack a folder. Every `path` is relative to the
/// folder, escaped for display.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// A symbolic link.
    #[error(
        "{path} is a symbolic link; an upload may hold only files and folders: put the file itself in its place, or move the link out of the folder"
    )]
    Link {
        /// The link.
        path: String,
    },
    /// A device, a FIFO or a socket.
    #[error("{path} is {what}; an upload may hold only regular files and folders: move it out of the folder")]
    NotRegular {
        /// The file.
        path: String,
        /// What it is, in words.
        what: &'static str,
    },
    /// A name the server would refuse.
    #[error("{path} {rule}; rename it to plain letters, digits, `.`, `-` and `_`")]
    BadName {
        /// The file or folder.
        path: String,
        /// The rule its name breaks.
        rule: NameRule,
    },
    /// More files and folders than the caps allow.
    #[error(
        "{path} is one more than the {limit} files and folders an upload may hold; move out what the bot does not need to run (build outputs, data, `.git`)"
    )]
    TooManyEntries {
        /// The first file or folder past the limit.
        path: String,
        /// The most an upload may hold.
        limit: usize,
    },
    /// Nested deeper than the caps allow.
    #[error("{path} is {depth} deep, past the {limit} an upload may nest; move it nearer the top")]
    TooDeep {
        /// The file or folder.
        path: String,
        /// How deep it is.
        depth: usize,
        /// The most an upload may nest.
        limit: usize,
    },
    /// A file larger than the caps allow.
    #[error("{path} is larger than {}, the most one file may hold; move it out of the folder or make it smaller", size(*.limit))]
    FileTooBig {
        /// The file.
        path: String,
        /// The most bytes one file may hold.
        limit: u64,
    },
    /// The files together larger than the caps allow.
    #[error("{path} takes the folder past {}, the most its files may hold together; move out what the bot does not need to run", size(*.limit))]
    TotalTooBig {
        /// The file that passed the limit.
        path: String,
        /// The most bytes the files may hold together.
        limit: u64,
    },
    /// Reading the folder, or writing the archive, failed.
    #[error("could not {what} {path}")]
    Io {
        /// What failed (`read`, `list`, `add to the archive`).
        what: &'static str,
        /// The file or folder.
        path: String,
        /// The failure.
        #[source]
        source: io::Error,
    },
}

/// The `.tar.gz` of `folder`'s regular files and folders (not the folder
/// itself: the names start below it), deterministic, refusing what
/// [`crate::unpack()`] would refuse under `caps`.
pub fn pack(folder: &Path, caps: &Caps) -> Result<Vec<u8>, PackError> {
    let mut packing = Packing {
        caps,
        entries: 0,
        bytes: 0,
        builder: Builder::new(GzEncoder::new(Vec::new(), Compression::default())),
    };
    packing.folder(folder, Path::new(""))?;
    let finished = packing.builder.into_inner().and_then(GzEncoder::finish);
    finished.map_err(|source| PackError::Io {
        what: "finish the archive of",
        path: folder.display().to_string(),
        source,
    })
}

/// A folder being packed, and the counts so far.
struct Packing<'c> {
    caps: &'c Caps,
    entries: usize,
    bytes: u64,
    builder: Builder<GzEncoder<Vec<u8>>>,
}

impl Packing<'_> {
    /// Packs the contents of `dir`, whose path in the archive is `relative`.
    fn folder(&mut self, dir: &Path, relative: &Path) -> Result<(), PackError> {
        let listed = fs::read_dir(dir).and_then(|entries| {
            entries
                .map(|entry| entry.map(|entry| entry.file_name()))
                .collect::<Result<Vec<_>, _>>()
        });
        let mut names = listed.map_err(|source| {
            // The folder itself is shown by the path it was given.
            let shown_dir = if relative.as_os_str().is_empty() { dir } else { relative };
            io_error("list", shown_dir, source)
        })?;
        names.sort();
        for name in names {
            self.entry(&dir.join(&name), &relative.join(&name))?;
        }
        Ok(())
    }

    fn entry(&mut self, path: &Path, relative: &Path) -> Result<(), PackError> {
        let shown_path = shown(relative.as_os_str().as_bytes());
        self.count(relative, &shown_path)?;
        let metadata = fs::symlink_metadata(path).map_err(|source| io_error("read", relative, source))?;
        let kind = metadata.file_type();
        if kind.is_dir() {
            self.append(EntryType::Directory, 0o755, relative, &[])?;
            self.folder(path, relative)
        } else if kind.is_file() {
            let data = self.read(path, relative, &shown_path)?;
            let mode = if metadata.permissions().mode() & 0o111 != 0 {
                0o755
            } else {
                0o644
            };
            self.append(EntryType::Regular, mode, relative, &data)
        } else if kind.is_symlink() {
            Err(PackError::Link { path: shown_path })
        } else {
            Err(PackError::NotRegular {
                path: shown_path,
                what: special(&metadata),
            })
        }
    }

    /// Counts the entry and judges its name as the server will.
    fn count(&mut self, relative: &Path, shown_path: &str) -> Result<(), PackError> {
        self.entries += 1;
        if self.entries > self.caps.entries {
            return Err(PackError::TooManyEntries {
                path: shown_path.to_owned(),
                limit: self.caps.entries,
            });
        }
        let name =
            name::check(relative.as_os_str().as_bytes(), self.caps.name_bytes).map_err(|rule| PackError::BadName {
                path: shown_path.to_owned(),
                rule,
            })?;
        let depth = name.components.len();
        if depth > self.caps.depth {
            return Err(PackError::TooDeep {
                path: shown_path.to_owned(),
                depth,
                limit: self.caps.depth,
            });
        }
        Ok(())
    }

    /// A file's bytes, at most the caps' (the file is opened without
    /// following a link that replaced it since it was listed).
    fn read(&mut self, path: &Path, relative: &Path, shown_path: &str) -> Result<Vec<u8>, PackError> {
        let mut data = Vec::new();
        let opened = OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(path);
        opened
            .and_then(|file: File| file.take(self.caps.file_bytes.saturating_add(1)).read_to_end(&mut data))
            .map_err(|source| io_error("read", relative, source))?;
        let len = data.len() as u64;
        if len > self.caps.file_bytes {
            return Err(PackError::FileTooBig {
                path: shown_path.to_owned(),
                limit: self.caps.file_bytes,
            });
        }
        self.bytes += len;
        if self.bytes > self.caps.total_bytes {
            return Err(PackError::TotalTooBig {
                path: shown_path.to_owned(),
                limit: self.caps.total_bytes,
            });
        }
        Ok(data)
    }

    fn append(&mut self, kind: EntryType, mode: u32, relative: &Path, data: &[u8]) -> Result<(), PackError> {
        let mut header = Header::new_gnu();
        header.set_entry_type(kind);
        header.set_mode(mode);
        header.set_size(data.len() as u64);
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        self.builder
            .append_data(&mut header, relative, data)
            .map_err(|source| io_error("add to the archive", relative, source))
    }
}

fn io_error(what: &'static str, path: &Path, source: io::Error) -> PackError {
    PackError::Io {
        what,
        path: shown(path.as_os_str().as_bytes()),
        source,
    }
}

fn special(metadata: &Metadata) -> &'static str {
    let kind = metadata.file_type();
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "of an unknown file type"
    }
}
