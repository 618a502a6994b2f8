//! How much an upload may hold, in one place: the counts that [`crate::unpack()`]
//! holds every upload to as it reads it, and that [`crate::pack()`] holds a
//! folder to, so that what `arena submit` packs the server unpacks.

/// The limits of one upload. Every count is made as the upload is read,
/// never taken from what its headers claim. Serialisable, for a server to
/// hand them to the process that unpacks ([`crate::Report`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Caps {
    /// Entries, files and folders together, counted as they are read.
    pub entries: usize,
    /// Folders deep: `a/b/main.py` is 3 deep.
    pub depth: usize,
    /// Bytes of one component of a name (`main.py`), not of the whole path.
    pub name_bytes: usize,
    /// Bytes of one file, counted as they are read.
    pub file_bytes: u64,
    /// Bytes of all files together, counted as they are read.
    pub total_bytes: u64,
}

const MIB: u64 = 1024 * 1024;

impl Caps {
    /// The defaults: 2,000 entries, 16 folders deep, 255 bytes per name
    /// component, 64 MiB per file, 256 MiB in all.
    pub const DEFAULT: Caps = Caps {
        entries: 2_000,
        depth: 16,
        name_bytes: 255,
        file_bytes: 64 * MIB,
        total_bytes: 256 * MIB,
    };

    /// Bytes an archive may spend per entry besides the files' own bytes: a
    /// tar header and its padding, a long name or a pax record, a zip's local
    /// and central headers; a name at the caps' longest fits many times.
    pub const HEADER_BYTES_PER_ENTRY: u64 = 8 * 1024;

    /// Bytes an archive may spend besides its files' own bytes, all entries
    /// together: past these, it is refused however small its files are.
    pub const fn header_bytes(&self) -> u64 {
        (self.entries as u64)
            .saturating_add(1)
            .saturating_mul(Self::HEADER_BYTES_PER_ENTRY)
    }

    /// Bytes of an archive as uploaded, compressed: its files' bytes, the
    /// headers' and a MiB of slack for the compression's own framing. A
    /// zip is read into memory whole, so this is also the memory it takes.
    pub const fn upload_bytes(&self) -> u64 {
        self.total_bytes.saturating_add(self.header_bytes()).saturating_add(MIB)
    }
}

impl Default for Caps {
    fn default() -> Self {
        Self::DEFAULT
    }
}
