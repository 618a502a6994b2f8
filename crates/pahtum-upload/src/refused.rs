//! Why an upload was refused, in words its author can act on: each refusal
//! names the entry (escaped, since the name is the attacker's text and the
//! message reaches a terminal or a web page) and the rule it broke.

use std::fmt;
use std::path::PathBuf;

use pahtum_protocol::untrusted;

use crate::name::NameRule;

/// The most bytes of an entry's escaped name that a message shows.
const SHOWN_BYTES: usize = 256;

/// An entry's raw name as a message shows it: control characters and bytes
/// that are not UTF-8 made visible (`\n`, `\x1b`, `\xff`), cut when long.
pub(crate) fn shown(raw: &[u8]) -> String {
    untrusted::cut(&untrusted::escape_bytes(raw), SHOWN_BYTES).into_owned()
}

/// A number of bytes as a person reads it: `64 MiB`, `8 KiB`, or `1000 bytes`.
pub(crate) fn size(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;
    if bytes >= MIB && bytes % MIB == 0 {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes % KIB == 0 {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// Where in an archive something went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// Before its first entry was read.
    Start,
    /// While reading the data of this entry (its name, escaped).
    Inside(String),
    /// After this entry (its name, escaped), reading the next one.
    After(String),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Start => f.write_str("before its first entry"),
            Self::Inside(entry) => write!(f, "inside entry \"{entry}\""),
            Self::After(entry) => write!(f, "after entry \"{entry}\""),
        }
    }
}

/// Why [`crate::unpack()`] refused an upload. Every `entry` is the entry's
/// name escaped for display (see `pahtum_protocol::untrusted::escape_bytes`).
/// A refused upload leaves nothing behind: the folder it was unpacking into
/// is gone (unless the refusal is [`Refused::IntoExists`], which never
/// touched it, or [`Refused::LeftBehind`]).
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// The folder to unpack into already exists.
    #[error("the folder {} already exists: an upload is unpacked only into a fresh folder; pick a path that does not exist", .into.display())]
    IntoExists {
        /// The folder.
        into: PathBuf,
    },
    /// A symbolic link.
    #[error(
        "entry \"{entry}\" is a symbolic link; an upload may hold only files and folders: put the file itself in its place"
    )]
    Link {
        /// The entry.
        entry: String,
    },
    /// A hard link.
    #[error(
        "entry \"{entry}\" is a hard link; an upload may hold only files and folders: put a copy of the file in its place"
    )]
    HardLink {
        /// The entry.
        entry: String,
    },
    /// A device, a FIFO, a socket, a sparse file or any type but a file and a folder.
    #[error("entry \"{entry}\" is {what}; an upload may hold only regular files and folders: leave it out")]
    NotRegular {
        /// The entry.
        entry: String,
        /// What it is, in words (`a FIFO`).
        what: String,
    },
    /// An encrypted zip entry.
    #[error("entry \"{entry}\" is encrypted; upload the archive without a password")]
    Encrypted {
        /// The entry.
        entry: String,
    },
    /// A zip entry compressed by a method other than deflate.
    #[error(
        "entry \"{entry}\" is compressed with {method}, which is not read here; make the zip again with `zip -r` (deflate), or upload a .tar.gz"
    )]
    Unsupported {
        /// The entry.
        entry: String,
        /// The compression method, in the zip's words.
        method: String,
    },
    /// A name that starts with `/`.
    #[error(
        "entry \"{entry}\" is an absolute path; name the files from the bot's folder (`src/bot.py`, not `/src/bot.py`): pack the folder itself, e.g. `tar czf bot.tar.gz -C bot .`"
    )]
    Absolute {
        /// The entry.
        entry: String,
    },
    /// A name with a `..` component, which would leave the folder.
    #[error(
        "entry \"{entry}\" has a `..` component, which would leave the bot's folder; pack the folder itself, e.g. `tar czf bot.tar.gz -C bot .`"
    )]
    ParentDir {
        /// The entry.
        entry: String,
    },
    /// A name that breaks another rule.
    #[error("entry \"{entry}\" {rule}; rename it to plain letters, digits, `.`, `-` and `_`")]
    BadName {
        /// The entry.
        entry: String,
        /// The rule it breaks.
        rule: NameRule,
    },
    /// One entry more than the caps allow.
    #[error(
        "entry \"{entry}\" is one more than the {limit} files and folders an upload may hold; leave out what the bot does not need to run (build outputs, data, `.git`)"
    )]
    TooManyEntries {
        /// The first entry past the limit.
        entry: String,
        /// The most entries an upload may hold.
        limit: usize,
    },
    /// A name more folders deep than the caps allow.
    #[error("entry \"{entry}\" is {depth} deep, past the {limit} an upload may nest; move it nearer the top")]
    TooDeep {
        /// The entry.
        entry: String,
        /// How deep it is.
        depth: usize,
        /// The most an upload may nest.
        limit: usize,
    },
    /// A file larger than the caps allow.
    #[error("entry \"{entry}\" is larger than {}, the most one file may hold; leave it out or make it smaller", size(*.limit))]
    FileTooBig {
        /// The entry.
        entry: String,
        /// The most bytes one file may hold.
        limit: u64,
    },
    /// The files together larger than the caps allow.
    #[error("entry \"{entry}\" takes the upload past {}, the most its files may hold together; leave out what the bot does not need to run", size(*.limit))]
    TotalTooBig {
        /// The entry that passed the limit.
        entry: String,
        /// The most bytes the files may hold together.
        limit: u64,
    },
    /// The archive, as uploaded (compressed), larger than the caps allow.
    #[error("the upload stopped being read {place}: it is larger than {}, the most an archive within the caps needs; pack only the bot's folder with `tar czf` or `zip -r`", size(*.limit))]
    UploadTooBig {
        /// Where reading stopped.
        place: Place,
        /// The most bytes an upload may have.
        limit: u64,
    },
    /// The tar stream's bytes beside its files' (headers, long names, pax
    /// records, data of entries that hold none) larger than the caps allow.
    #[error("the upload stopped being read {place}: beside its files' own bytes it holds more than {} of headers, long names and skipped data; pack only the bot's folder with `tar czf bot.tar.gz -C bot .`", size(*.limit))]
    HeadersTooBig {
        /// Where reading stopped.
        place: Place,
        /// The most bytes of headers an upload may have.
        limit: u64,
    },
    /// A name that appears twice, or as both a file and a folder.
    #[error("entry \"{entry}\" appears twice in the upload (or as both a file and a folder); keep one")]
    Duplicate {
        /// The entry.
        entry: String,
    },
    /// Not a valid archive of its kind.
    #[error(
        "the upload is not a valid {format} archive ({place}); make it again with `tar czf bot.tar.gz -C bot .` or `zip -r`"
    )]
    Corrupt {
        /// `tar.gz` or `zip`.
        format: &'static str,
        /// Where it went wrong.
        place: Place,
        /// What the reader found.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// This side failed: reading the upload, or writing the folder.
    #[error("could not {what}: a fault on the server's side, not in the upload; try again")]
    Io {
        /// What failed (`write entry "src/bot.py"`).
        what: String,
        /// The failure.
        #[source]
        source: std::io::Error,
    },
    /// The upload was refused, and its folder could not be removed.
    #[error("{refused}; and its folder {} could not be removed: remove it by hand", .into.display())]
    LeftBehind {
        /// Why the upload was refused.
        refused: Box<Refused>,
        /// The folder left behind.
        into: PathBuf,
        /// Why it could not be removed.
        #[source]
        source: std::io::Error,
    },
}

impl Refused {
    /// The refusal of a name that broke `rule`: absolute and `..` names have
    /// their own variants.
    pub(crate) fn name(entry: String, rule: NameRule) -> Self {
        match rule {
            NameRule::Absolute => Self::Absolute { entry },
            NameRule::ParentDir => Self::ParentDir { entry },
            rule => Self::BadName { entry, rule },
        }
    }

    /// The failure of this side to `what`.
    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io {
            what: what.into(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_escaped_and_cut() {
        assert_eq!(shown(b"a\nb\x1b[2J\xff"), "a\\nb\\x1b[2J\\xff");
        let long = shown(&[b'a'; 10_000]);
        assert!(long.len() < 300 && long.contains("cut"), "{long}");
    }

    #[test]
    fn errors_cross_threads() {
        fn shareable<T: Send + Sync + 'static>() {}
        shareable::<Refused>();
    }

    #[test]
    fn sizes_read_in_whole_units() {
        assert_eq!(size(64 * 1024 * 1024), "64 MiB");
        assert_eq!(size(16_392_192), "16008 KiB");
        assert_eq!(size(1000), "1000 bytes");
    }
}
