//! The fresh folder an upload is written into, entry by entry, by the one
//! piece of code that touches the disk: whatever the archive's format, each
//! entry is counted, its name judged, and its file created new (never
//! opened, never through a link) and filled through a counting copy that
//! stops before the caps are passed. The folder is made here, so every path
//! component under it is a folder made here too.

use std::collections::HashMap;
use std::fs::{self, DirBuilder, File, OpenOptions, Permissions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::caps::Caps;
use crate::name::{self, Name, NameRule};
use crate::refused::{Refused, shown};

/// The mode of folders and of files with an executable bit.
const EXECUTABLE: u32 = 0o755;
/// The mode of other files.
const PLAIN: u32 = 0o644;
/// The size of one read of a file's data.
const COPY_BYTES: usize = 64 * 1024;

/// What an upload unpacked to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Unpacked {
    /// Regular files written.
    pub files: usize,
    /// Their bytes, together.
    pub bytes: u64,
}

/// What a path under the folder already is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    File,
    /// A folder, `explicit` when an entry named it (else it was made for a file under it).
    Folder {
        explicit: bool,
    },
}

/// The folder being written, and the counts so far.
#[derive(Debug)]
pub(crate) struct Tree<'c> {
    root: PathBuf,
    caps: &'c Caps,
    entries: usize,
    unpacked: Unpacked,
    seen: HashMap<PathBuf, Seen>,
}

impl<'c> Tree<'c> {
    /// Makes `into`, which must not exist yet.
    pub(crate) fn create(into: &Path, caps: &'c Caps) -> Result<Self, Refused> {
        DirBuilder::new()
            .mode(EXECUTABLE)
            .create(into)
            .map_err(|error| match error.kind() {
                io::ErrorKind::AlreadyExists => Refused::IntoExists { into: into.to_owned() },
                _ => Refused::io(format!("create the folder {}", into.display()), error),
            })?;
        let seen = HashMap::from([(PathBuf::new(), Seen::Folder { explicit: false })]);
        Ok(Self {
            root: into.to_owned(),
            caps,
            entries: 0,
            unpacked: Unpacked { files: 0, bytes: 0 },
            seen,
        })
    }

    /// Counts one more entry, whatever it turns out to be.
    pub(crate) fn count(&mut self, entry: &str) -> Result<(), Refused> {
        self.entries += 1;
        if self.entries > self.caps.entries {
            return Err(Refused::TooManyEntries {
                entry: entry.to_owned(),
                limit: self.caps.entries,
            });
        }
        Ok(())
    }

    /// A folder entry named `raw`.
    pub(crate) fn folder(&mut self, raw: &[u8]) -> Result<(), Refused> {
        let entry = shown(raw);
        let path = self.judge(raw, &entry)?.path();
        match self.seen.get(&path) {
            Some(Seen::Folder { explicit: false }) => {
                self.seen.insert(path, Seen::Folder { explicit: true });
                Ok(())
            }
            Some(_) => Err(Refused::Duplicate { entry }),
            None => {
                self.parents(&path, &entry)?;
                self.make_folder(path, true, &entry)
            }
        }
    }

    /// A file entry named `raw`, its bytes read from `data`, whose read
    /// failures `unreadable` turns into the refusal. Returns its size.
    pub(crate) fn file(
        &mut self,
        raw: &[u8],
        executable: bool,
        data: &mut dyn Read,
        unreadable: impl FnOnce(io::Error) -> Refused,
    ) -> Result<u64, Refused> {
        let entry = shown(raw);
        let name = self.judge(raw, &entry)?;
        if name.components.is_empty() {
            return Err(Refused::name(entry, NameRule::Empty));
        }
        if name.slash {
            return Err(Refused::name(entry, NameRule::SlashOnFile));
        }
        let path = name.path();
        if self.seen.contains_key(&path) {
            return Err(Refused::Duplicate { entry });
        }
        self.parents(&path, &entry)?;
        let mut file = self.create_file(&path, executable, &entry)?;
        self.seen.insert(path, Seen::File);
        let size = self.copy(data, &mut file, &entry, unreadable)?;
        self.unpacked.files += 1;
        self.unpacked.bytes += size;
        Ok(size)
    }

    /// The counts, once every entry is written.
    pub(crate) fn finish(self) -> Unpacked {
        self.unpacked
    }

    /// The folder removed, after `refused`.
    pub(crate) fn discard(self, refused: Refused) -> Refused {
        match fs::remove_dir_all(&self.root) {
            Ok(()) => refused,
            Err(source) => Refused::LeftBehind {
                refused: Box::new(refused),
                into: self.root,
                source,
            },
        }
    }

    fn judge(&self, raw: &[u8], entry: &str) -> Result<Name, Refused> {
        let name = name::check(raw, self.caps.name_bytes).map_err(|rule| Refused::name(entry.to_owned(), rule))?;
        let depth = name.components.len();
        if depth > self.caps.depth {
            return Err(Refused::TooDeep {
                entry: entry.to_owned(),
                depth,
                limit: self.caps.depth,
            });
        }
        Ok(name)
    }

    /// Makes the folders above `path` that no entry made yet.
    fn parents(&mut self, path: &Path, entry: &str) -> Result<(), Refused> {
        let mut parents: Vec<&Path> = path.ancestors().skip(1).collect();
        parents.reverse();
        for parent in parents {
            match self.seen.get(parent) {
                Some(Seen::Folder { .. }) => {}
                Some(Seen::File) => {
                    return Err(Refused::Duplicate {
                        entry: entry.to_owned(),
                    });
                }
                None => self.make_folder(parent.to_owned(), false, entry)?,
            }
        }
        Ok(())
    }

    fn make_folder(&mut self, path: PathBuf, explicit: bool, entry: &str) -> Result<(), Refused> {
        let full = self.root.join(&path);
        let made = DirBuilder::new()
            .mode(EXECUTABLE)
            .create(&full)
            .and_then(|()| fs::set_permissions(&full, Permissions::from_mode(EXECUTABLE)));
        made.map_err(|error| Refused::io(format!("create the folder of entry \"{entry}\""), error))?;
        self.seen.insert(path, Seen::Folder { explicit });
        Ok(())
    }

    fn create_file(&self, path: &Path, executable: bool, entry: &str) -> Result<File, Refused> {
        let mode = if executable { EXECUTABLE } else { PLAIN };
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .mode(mode)
            .open(self.root.join(path))
            .and_then(|file| {
                // The umask may have taken bits away: the mode is exactly this.
                file.set_permissions(Permissions::from_mode(mode))?;
                Ok(file)
            });
        file.map_err(|error| Refused::io(format!("create entry \"{entry}\""), error))
    }

    /// Copies `data` into `file`, counting, and refuses before the byte that
    /// would pass a cap is written.
    fn copy(
        &self,
        data: &mut dyn Read,
        file: &mut File,
        entry: &str,
        unreadable: impl FnOnce(io::Error) -> Refused,
    ) -> Result<u64, Refused> {
        let mut buf = vec![0; COPY_BYTES];
        let mut size = 0u64;
        loop {
            let n = match data.read(&mut buf) {
                Ok(0) => return Ok(size),
                Ok(n) => n,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(unreadable(error)),
            };
            size += n as u64;
            if size > self.caps.file_bytes {
                return Err(Refused::FileTooBig {
                    entry: entry.to_owned(),
                    limit: self.caps.file_bytes,
                });
            }
            if self.unpacked.bytes + size > self.caps.total_bytes {
                return Err(Refused::TotalTooBig {
                    entry: entry.to_owned(),
                    limit: self.caps.total_bytes,
                });
            }
            file.write_all(&buf[..n])
                .map_err(|error| Refused::io(format!("write entry \"{entry}\""), error))?;
        }
    }
}
