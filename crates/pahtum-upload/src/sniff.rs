//! What an upload is, told by its first bytes rather than by the name its
//! author gave it: a browser's or a shell's file name says nothing certain.

/// The kind of an upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A gzip-compressed tar archive.
    TarGz,
    /// A zip archive.
    Zip,
    /// One source file, written under `name` (judged like an entry's name).
    SingleFile {
        /// The file's name in the folder.
        name: String,
    },
}

/// The kind of an upload that starts with `bytes_start` (its first 4 bytes
/// suffice): gzip (`1f 8b`), zip (`PK\x03\x04`, or `PK\x05\x06` when empty),
/// else a single source file named `file_name` (an empty name when none is
/// given, which [`crate::unpack()`] refuses).
pub fn sniff(bytes_start: &[u8], file_name: Option<&str>) -> Kind {
    if bytes_start.starts_with(&[0x1f, 0x8b]) {
        Kind::TarGz
    } else if bytes_start.starts_with(b"PK\x03\x04") || bytes_start.starts_with(b"PK\x05\x06") {
        Kind::Zip
    } else {
        Kind::SingleFile {
            name: file_name.unwrap_or_default().to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_bytes_decide_not_the_name() {
        assert_eq!(sniff(b"\x1f\x8b\x08\x00", Some("bot.zip")), Kind::TarGz);
        assert_eq!(sniff(b"PK\x03\x04rest", None), Kind::Zip);
        assert_eq!(sniff(b"PK\x05\x06", Some("x")), Kind::Zip);
        assert_eq!(
            sniff(b"import sys", Some("bot.tar.gz")),
            Kind::SingleFile {
                name: "bot.tar.gz".to_owned()
            }
        );
        assert_eq!(sniff(b"PK", None), Kind::SingleFile { name: String::new() });
        assert_eq!(sniff(b"", None), Kind::SingleFile { name: String::new() });
    }
}
