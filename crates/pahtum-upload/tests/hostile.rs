//! Uploads as an attacker makes them, each built here (by hand where the
//! archive crates' builders refuse to write it), each refused by the rule it
//! breaks, naming its entry, leaving nothing at the folder and nothing
//! beside it; and honest uploads, which unpack as they were packed.

use std::fs;
use std::io::{Cursor, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use flate2::write::GzEncoder;
use flate2::{Compress, Compression, Crc, FlushCompress, Status};
use pahtum_upload::{Caps, Kind, NameRule, PackError, Place, Refused, pack, sniff, unpack, unpack_file};
use proptest::prelude::*;
use tar::{EntryType, Header};
use zip::ZipWriter;
use zip::write::SimpleFileOptions;

const MIB: u64 = 1024 * 1024;

/// A temporary folder that holds only the folder an upload unpacks into.
struct Scene {
    base: tempfile::TempDir,
}

impl Scene {
    fn new() -> Self {
        Self {
            base: tempfile::tempdir().unwrap(),
        }
    }

    fn folder(&self) -> PathBuf {
        self.base.path().join("bot")
    }

    /// Unpacks `upload` (its kind sniffed, a single file named `bot.py`).
    fn unpack(&self, upload: &[u8], caps: &Caps) -> Result<pahtum_upload::Unpacked, Refused> {
        let kind = sniff(&upload[..upload.len().min(4)], Some("bot.py"));
        unpack(upload, &kind, &self.folder(), caps)
    }

    /// The refusal of `upload` (its kind sniffed, a single file named `bot.py`), after checking that it left
    /// nothing behind.
    #[track_caller]
    fn refuse(&self, upload: &[u8], caps: &Caps) -> Refused {
        let refused = self.unpack(upload, caps).expect_err("the upload is refused");
        self.assert_nothing_left();
        refused
    }

    /// The refusal of `upload` unpacked as `kind`, after checking that it left nothing behind.
    #[track_caller]
    fn refuse_as(&self, upload: impl Read, kind: &Kind, caps: &Caps) -> Refused {
        let refused = unpack(upload, kind, &self.folder(), caps).expect_err("the upload is refused");
        self.assert_nothing_left();
        refused
    }

    /// As [`Scene::refuse`], checking too that the refusal is one that `expected` accepts, and that it names
    /// `entry`.
    #[track_caller]
    fn refuse_naming(
        &self,
        upload: &[u8],
        caps: &Caps,
        expected: impl FnOnce(&Refused) -> bool,
        entry: &str,
    ) -> Refused {
        let refused = self.refuse(upload, caps);
        assert_refusal(&refused, expected, entry);
        refused
    }

    #[track_caller]
    fn assert_nothing_left(&self) {
        assert!(!self.folder().exists(), "the folder is left behind");
        let beside: Vec<_> = fs::read_dir(self.base.path())
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        assert!(beside.is_empty(), "written outside the folder: {beside:?}");
    }
}

#[track_caller]
fn assert_names(refused: &Refused, entry: &str) {
    let message = refused.to_string();
    assert!(
        message.contains(&format!("\"{entry}\"")),
        "{message} does not name {entry}"
    );
}

/// Checks that `refused` is one that `expected` accepts, and that it names `entry`.
#[track_caller]
fn assert_refusal(refused: &Refused, expected: impl FnOnce(&Refused) -> bool, entry: &str) {
    assert!(expected(refused), "{refused:?}");
    assert_names(refused, entry);
}

/// `upload` refused with the default caps, in a scene of its own, leaving nothing behind: by a refusal that
/// `expected` accepts, which names `entry`.
#[track_caller]
fn refused_naming(upload: &[u8], expected: impl FnOnce(&Refused) -> bool, entry: &str) -> Refused {
    Scene::new().refuse_naming(upload, &Caps::default(), expected, entry)
}

/// A single file `name` refused by the name rule `rule`, the name shown as `shown`.
#[track_caller]
fn refused_by_name_rule(name: &[u8], rule: NameRule, shown: &str) -> Refused {
    refused_naming(
        &file_tar_gz(name, b"x"),
        |refused| matches!(refused, Refused::BadName { rule: broken, .. } if *broken == rule),
        shown,
    )
}

/// The caps of an upload of one entry and no bytes: only the upload's own cap is left to refuse it.
fn one_empty_entry() -> Caps {
    Caps {
        entries: 1,
        total_bytes: 0,
        ..Caps::default()
    }
}

/// The caps of files of 10 bytes at most.
fn ten_byte_files() -> Caps {
    Caps {
        file_bytes: 10,
        ..Caps::default()
    }
}

/// A GNU tar header for `name` written byte for byte (the builder refuses
/// `..`, absolute and other hostile names), its checksum set.
fn header(name: &[u8], kind: EntryType, size: u64) -> Header {
    let mut header = Header::new_gnu();
    let field = &mut header.as_old_mut().name;
    field.fill(0);
    field[..name.len()].copy_from_slice(name);
    header.set_entry_type(kind);
    header.set_size(size);
    header.set_mode(0o644);
    header.set_mtime(0);
    header.set_cksum();
    header
}

/// A header of a link `name` (of type `kind`) to `/etc/passwd`, its checksum set.
fn link_header(name: &[u8], kind: EntryType) -> Header {
    let mut link = header(name, kind, 0);
    link.set_link_name("/etc/passwd").unwrap();
    link.set_cksum();
    link
}

/// A tar stream of `entries` (headers with their data), its end blocks, gzipped.
fn tar_gz(entries: &[(Header, &[u8])]) -> Vec<u8> {
    let mut tar = Vec::new();
    for (header, data) in entries {
        tar.extend_from_slice(header.as_bytes());
        tar.extend_from_slice(data);
        tar.resize(tar.len().next_multiple_of(512), 0);
    }
    tar.extend_from_slice(&[0; 1024]);
    gzip(&tar)
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// One file entry `name` holding `data`.
fn file_tar_gz(name: &[u8], data: &[u8]) -> Vec<u8> {
    tar_gz(&[(header(name, EntryType::Regular, data.len() as u64), data)])
}

fn zip_of(build: impl FnOnce(&mut ZipWriter<Cursor<Vec<u8>>>)) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    build(&mut writer);
    writer.finish().unwrap().into_inner()
}

#[test]
fn a_tar_symlink_is_refused() {
    let upload = tar_gz(&[(link_header(b"evil", EntryType::Symlink), &[])]);
    refused_naming(&upload, |refused| matches!(refused, Refused::Link { .. }), "evil");
}

#[test]
fn a_zip_symlink_is_refused() {
    let upload = zip_of(|zip| {
        zip.add_symlink("evil", "/etc/passwd", SimpleFileOptions::default())
            .unwrap();
    });
    refused_naming(&upload, |refused| matches!(refused, Refused::Link { .. }), "evil");
}

#[test]
fn a_hard_link_is_refused() {
    let upload = tar_gz(&[(link_header(b"hard", EntryType::Link), &[])]);
    refused_naming(&upload, |refused| matches!(refused, Refused::HardLink { .. }), "hard");
}

#[test]
fn an_absolute_path_is_refused() {
    let scene = Scene::new();
    let target = scene.base.path().join("escaped");
    let name = target.to_str().unwrap().to_owned();
    let upload = file_tar_gz(name.as_bytes(), b"pwned");
    scene.refuse_naming(
        &upload,
        &Caps::default(),
        |refused| matches!(refused, Refused::Absolute { .. }),
        &name,
    );
}

#[test]
fn a_tar_parent_dir_is_refused() {
    let upload = tar_gz(&[
        (header(b"./", EntryType::Directory, 0), &[]),
        (header(b"../escaped", EntryType::Regular, 5), b"pwned"),
    ]);
    refused_naming(
        &upload,
        |refused| matches!(refused, Refused::ParentDir { .. }),
        "../escaped",
    );
}

#[test]
fn a_zip_parent_dir_is_refused() {
    let upload = zip_of(|zip| {
        zip.start_file("src/../../escaped", SimpleFileOptions::default())
            .unwrap();
        zip.write_all(b"pwned").unwrap();
    });
    refused_naming(
        &upload,
        |refused| matches!(refused, Refused::ParentDir { .. }),
        "src/../../escaped",
    );
}

#[test]
fn twenty_thousand_files_are_refused_at_the_first_past_the_cap() {
    let names: Vec<String> = (1..=20_000).map(|n| format!("f{n:05}")).collect();
    let entries: Vec<(Header, &[u8])> = names
        .iter()
        .map(|name| (header(name.as_bytes(), EntryType::Regular, 1), &b"x"[..]))
        .collect();
    let upload = tar_gz(&entries);
    refused_naming(
        &upload,
        |refused| matches!(refused, Refused::TooManyEntries { limit: 2_000, .. }),
        "f02001",
    );
}

/// Writes `value` as a NUL-terminated octal number filling `field`.
fn octal(field: &mut [u8], value: u64) {
    let text = format!("{value:0width$o}\0", width = field.len() - 1);
    field.copy_from_slice(text.as_bytes());
}

#[test]
fn a_two_gigabyte_gnu_sparse_file_is_refused() {
    let real = 2 * 1024 * MIB;
    let mut sparse = header(b"sparse.bin", EntryType::GNUSparse, 512);
    let gnu = sparse.as_gnu_mut().unwrap();
    octal(&mut gnu.sparse[0].offset, real - 512);
    octal(&mut gnu.sparse[0].numbytes, 512);
    octal(&mut gnu.realsize, real);
    sparse.set_cksum();
    let upload = tar_gz(&[(sparse, &[1; 512])]);
    refused_naming(
        &upload,
        |refused| matches!(refused, Refused::NotRegular { what, .. } if what.contains("sparse")),
        "sparse.bin",
    );
}

#[test]
fn a_header_claiming_two_gigabytes_without_the_data_is_refused() {
    // The header says 2 GiB; the stream ends after 100 bytes of it.
    let mut tar = header(b"huge.bin", EntryType::Regular, 2 * 1024 * MIB)
        .as_bytes()
        .to_vec();
    tar.extend_from_slice(&[7; 100]);
    refused_naming(
        &gzip(&tar),
        |refused| matches!(refused, Refused::Corrupt { place: Place::Inside(entry), .. } if entry == "huge.bin"),
        "huge.bin",
    );
}

/// Deflates `input` onto `compress`'s stream, flushed to a byte boundary
/// with the window reset (so that the bytes may be repeated), or finished.
fn deflate(compress: &mut Compress, input: &[u8], finish: bool) -> Vec<u8> {
    let flush = if finish {
        FlushCompress::Finish
    } else {
        FlushCompress::Full
    };
    let start = compress.total_in();
    let mut out = Vec::with_capacity(64 * 1024);
    loop {
        let done = (compress.total_in() - start) as usize;
        let status = compress.compress_vec(&input[done..], &mut out, flush).unwrap();
        let consumed = (compress.total_in() - start) as usize == input.len();
        if consumed && (status == Status::StreamEnd || (!finish && out.len() < out.capacity())) {
            return out;
        }
        out.reserve(64 * 1024);
    }
}

/// A valid tar.gz of one entry `name` of type `kind` and `mib` MiB of zeros, made in
/// milliseconds: the deflate of one MiB of zeros, flushed with its window
/// reset, repeated `mib` times; its CRC combined the same way.
fn gzip_bomb(name: &[u8], kind: EntryType, mib: u64) -> Vec<u8> {
    let header = header(name, kind, mib * MIB);
    let zeros = vec![0; MIB as usize];
    let end = [0; 1024];
    let mut compress = Compress::new(Compression::best(), false);
    let mut bomb = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 0xff];
    bomb.extend(deflate(&mut compress, header.as_bytes(), false));
    let chunk = deflate(&mut compress, &zeros, false);
    let mut crc = Crc::new();
    crc.update(header.as_bytes());
    let mut chunk_crc = Crc::new();
    chunk_crc.update(&zeros);
    for _ in 0..mib {
        bomb.extend_from_slice(&chunk);
        crc.combine(&chunk_crc);
    }
    bomb.extend(deflate(&mut compress, &end, true));
    crc.update(&end);
    bomb.extend_from_slice(&crc.sum().to_le_bytes());
    bomb.extend_from_slice(&crc.amount().to_le_bytes());
    bomb
}

#[test]
fn the_bomb_maker_makes_a_valid_archive() {
    let bomb = gzip_bomb(b"small.bin", EntryType::Regular, 3);
    let scene = Scene::new();
    let unpacked = scene.unpack(&bomb, &Caps::default()).unwrap();
    assert_eq!(unpacked.bytes, 3 * MIB);
    let data = fs::read(scene.folder().join("small.bin")).unwrap();
    assert!(data.len() == 3 * MIB as usize && data.iter().all(|&byte| byte == 0));
    // The system's gzip agrees that its CRC and length are right, when it is there.
    if let Ok(mut gzip) = Command::new("gzip")
        .arg("-t")
        .stdin(std::process::Stdio::piped())
        .spawn()
    {
        gzip.stdin.take().unwrap().write_all(&bomb).unwrap();
        assert!(gzip.wait().unwrap().success(), "gzip -t rejects the bomb");
    }
}

#[test]
fn a_gzip_bomb_is_refused_early() {
    let scene = Scene::new();
    let bomb = gzip_bomb(b"bomb.bin", EntryType::Regular, 1024);
    assert!(bomb.len() < 2 * MIB as usize, "{} bytes", bomb.len());
    let mut rest = &bomb[..];
    let refused = scene.refuse_as(&mut rest, &Kind::TarGz, &Caps::default());
    assert_refusal(
        &refused,
        |refused| matches!(refused, Refused::FileTooBig { limit, .. } if *limit == 64 * MIB),
        "bomb.bin",
    );
    // 64 MiB of the 1024 expanded: about a sixteenth of the bomb read.
    let read = bomb.len() - rest.len();
    assert!(read < bomb.len() / 4, "read {read} of {} bytes", bomb.len());
}

#[test]
fn the_total_cap_is_counted_across_files() {
    let scene = Scene::new();
    let caps = Caps {
        total_bytes: 1000,
        ..Caps::default()
    };
    let upload = tar_gz(&[
        (header(b"a", EntryType::Regular, 600), &[1; 600]),
        (header(b"b", EntryType::Regular, 600), &[2; 600]),
    ]);
    scene.refuse_naming(
        &upload,
        &caps,
        |refused| matches!(refused, Refused::TotalTooBig { limit: 1000, .. }),
        "b",
    );
}

#[test]
fn a_folder_with_megabytes_of_data_is_refused_by_the_header_cap() {
    // A folder entry's data is skipped, not written: it counts as headers.
    let upload = gzip_bomb(b"dir/", EntryType::Directory, 64);
    refused_naming(
        &upload,
        |refused| matches!(refused, Refused::HeadersTooBig { limit, .. } if *limit == Caps::default().header_bytes()),
        "dir/",
    );
}

#[test]
fn deflate_blocks_that_expand_to_nothing_are_refused_by_the_upload_cap() {
    let scene = Scene::new();
    let caps = one_empty_entry();
    // Empty stored blocks: five bytes each, no output, as many as the uploader likes.
    let mut upload = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    while (upload.len() as u64) <= caps.upload_bytes() {
        upload.extend_from_slice(&[0, 0, 0, 0xff, 0xff]);
    }
    let refused = scene.refuse(&upload, &caps);
    assert!(
        matches!(&refused, Refused::UploadTooBig { place: Place::Start, limit } if *limit == caps.upload_bytes()),
        "{refused:?}"
    );
}

#[test]
fn a_zip_larger_than_the_upload_cap_is_refused_unread() {
    let scene = Scene::new();
    let caps = one_empty_entry();
    let mut upload = zip_of(|zip| {
        zip.start_file("bot.py", SimpleFileOptions::default()).unwrap();
    });
    upload.resize(caps.upload_bytes() as usize + 1, 0);
    let refused = scene.refuse(&upload, &caps);
    assert!(matches!(refused, Refused::UploadTooBig { .. }), "{refused:?}");
}

#[test]
fn a_zip_entry_of_another_compression_is_refused_by_name() {
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let mut upload = zip_of(|zip| {
        zip.start_file("bot.py", stored).unwrap();
        zip.write_all(b"print(1)").unwrap();
    });
    // Say bzip2 (12) in the local and the central header.
    upload[8] = 12;
    let central = upload.windows(4).position(|window| window == b"PK\x01\x02").unwrap();
    upload[central + 10] = 12;
    refused_naming(
        &upload,
        |refused| matches!(refused, Refused::Unsupported { .. }),
        "bot.py",
    );
}

#[test]
fn a_name_with_a_newline_is_refused() {
    refused_by_name_rule(b"bad\nname.py", NameRule::Control, "bad\\nname.py");
}

#[test]
fn a_name_with_an_escape_is_refused() {
    let refused = refused_by_name_rule(b"bad\x1b[2Jname", NameRule::Control, "bad\\x1b[2Jname");
    assert!(!refused.to_string().contains('\x1b'));
}

#[test]
fn a_name_that_is_not_utf8_is_refused() {
    refused_by_name_rule(b"bad\xffname", NameRule::NotUtf8, "bad\\xffname");
}

#[test]
fn a_fifo_is_refused() {
    let upload = tar_gz(&[(header(b"pipe", EntryType::Fifo, 0), &[])]);
    refused_naming(
        &upload,
        |refused| matches!(refused, Refused::NotRegular { what, .. } if what.contains("FIFO")),
        "pipe",
    );
}

#[test]
fn a_char_device_is_refused() {
    let mut device = header(b"tty", EntryType::Char, 0);
    device.set_device_major(4).unwrap();
    device.set_device_minor(1).unwrap();
    device.set_cksum();
    refused_naming(
        &tar_gz(&[(device, &[])]),
        |refused| matches!(refused, Refused::NotRegular { what, .. } if what.contains("character device")),
        "tty",
    );
}

#[test]
fn an_encrypted_zip_entry_is_refused() {
    use zip::unstable::write::FileOptionsExt;
    let upload = zip_of(|zip| {
        let options = SimpleFileOptions::default()
            .with_deprecated_encryption(b"secret")
            .unwrap();
        zip.start_file("secret.py", options).unwrap();
        zip.write_all(b"print(1)").unwrap();
    });
    refused_naming(
        &upload,
        |refused| matches!(refused, Refused::Encrypted { .. }),
        "secret.py",
    );
}

#[test]
fn a_duplicate_name_is_refused() {
    let upload = tar_gz(&[
        (header(b"bot.py", EntryType::Regular, 4), b"good"),
        (header(b"./bot.py", EntryType::Regular, 4), b"evil"),
    ]);
    refused_naming(
        &upload,
        |refused| matches!(refused, Refused::Duplicate { .. }),
        "./bot.py",
    );
}

#[test]
fn a_file_under_a_file_is_refused() {
    let upload = tar_gz(&[
        (header(b"bot.py", EntryType::Regular, 1), b"x"),
        (header(b"bot.py/inner", EntryType::Regular, 1), b"y"),
    ]);
    refused_naming(
        &upload,
        |refused| matches!(refused, Refused::Duplicate { .. }),
        "bot.py/inner",
    );
}

#[test]
fn a_name_too_deep_is_refused() {
    let deep = ["d"; 17].join("/");
    refused_naming(
        &file_tar_gz(deep.as_bytes(), b"x"),
        |refused| {
            matches!(
                refused,
                Refused::TooDeep {
                    depth: 17,
                    limit: 16,
                    ..
                }
            )
        },
        &deep,
    );
}

#[test]
fn an_existing_folder_is_left_alone() {
    let scene = Scene::new();
    fs::create_dir(scene.folder()).unwrap();
    fs::write(scene.folder().join("mine"), b"keep").unwrap();
    let refused = scene
        .unpack(&file_tar_gz(b"bot.py", b"x"), &Caps::default())
        .unwrap_err();
    assert!(matches!(refused, Refused::IntoExists { .. }), "{refused:?}");
    assert_eq!(fs::read(scene.folder().join("mine")).unwrap(), b"keep");
}

#[test]
fn a_single_file_with_a_hostile_name_is_refused() {
    let scene = Scene::new();
    let kind = Kind::SingleFile {
        name: "../bot.py".to_owned(),
    };
    let refused = scene.refuse_as(&b"print(1)"[..], &kind, &Caps::default());
    assert_refusal(
        &refused,
        |refused| matches!(refused, Refused::ParentDir { .. }),
        "../bot.py",
    );
}

#[test]
fn a_single_file_too_big_is_refused() {
    let scene = Scene::new();
    let kind = Kind::SingleFile {
        name: "bot.py".to_owned(),
    };
    let refused = scene.refuse_as(&[b'#'; 11][..], &kind, &ten_byte_files());
    assert_refusal(
        &refused,
        |refused| matches!(refused, Refused::FileTooBig { limit: 10, .. }),
        "bot.py",
    );
}

/// Every file under `root`, by relative path: its bytes and its mode's permission bits.
fn tree(root: &Path) -> Vec<(PathBuf, Option<Vec<u8>>, u32)> {
    let mut found = Vec::new();
    let mut next = vec![root.to_owned()];
    while let Some(dir) = next.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let metadata = fs::symlink_metadata(&path).unwrap();
            let relative = path.strip_prefix(root).unwrap().to_owned();
            let mode = metadata.permissions().mode() & 0o7777;
            if metadata.is_dir() {
                next.push(path);
                found.push((relative, None, mode));
            } else {
                found.push((relative, Some(fs::read(&path).unwrap()), mode));
            }
        }
    }
    found.sort();
    found
}

/// A bot's folder: sources, an executable script, a nested and an empty folder, binary data.
fn bot_folder(root: &Path) {
    fs::create_dir_all(root.join("src/lib")).unwrap();
    fs::create_dir_all(root.join("data/empty")).unwrap();
    fs::write(root.join("bot.py"), b"import sys\nprint('hello')\n").unwrap();
    fs::write(root.join("run.sh"), b"#!/bin/sh\nexec python3 bot.py\n").unwrap();
    fs::set_permissions(root.join("run.sh"), fs::Permissions::from_mode(0o750)).unwrap();
    fs::write(root.join("src/lib/util.py"), b"X = 1\n").unwrap();
    fs::write(
        root.join("data/weights.bin"),
        (0..=255u8).cycle().take(300_000).collect::<Vec<_>>(),
    )
    .unwrap();
    fs::write(root.join("src/é ü.txt"), b"unicode names pass").unwrap();
    fs::write(
        root.join("src").join("n".repeat(150)),
        b"a name past the 100 bytes of a tar header",
    )
    .unwrap();
    for dir in ["src", "src/lib", "data", "data/empty"] {
        fs::set_permissions(root.join(dir), fs::Permissions::from_mode(0o700)).unwrap();
    }
}

#[test]
fn a_folder_round_trips_through_pack_and_unpack() {
    let source = tempfile::tempdir().unwrap();
    bot_folder(source.path());
    let packed = pack(source.path(), &Caps::default()).unwrap();
    assert_eq!(sniff(&packed, None), Kind::TarGz);
    assert_eq!(
        packed,
        pack(source.path(), &Caps::default()).unwrap(),
        "pack is deterministic"
    );

    let scene = Scene::new();
    let unpacked = scene.unpack(&packed, &Caps::default()).unwrap();
    assert_eq!(unpacked.files, 6);
    let expected: Vec<_> = tree(source.path())
        .into_iter()
        .map(|(path, bytes, mode)| {
            let mode = match &bytes {
                None => 0o755,
                Some(_) if mode & 0o111 != 0 => 0o755,
                Some(_) => 0o644,
            };
            (path, bytes, mode)
        })
        .collect();
    assert_eq!(tree(&scene.folder()), expected);
    let run = fs::metadata(scene.folder().join("run.sh")).unwrap();
    assert_eq!(run.permissions().mode() & 0o7777, 0o755);
}

#[test]
fn pack_refuses_a_link_and_a_fifo_by_name() {
    let source = tempfile::tempdir().unwrap();
    fs::write(source.path().join("bot.py"), b"x").unwrap();
    std::os::unix::fs::symlink("/etc/passwd", source.path().join("passwd")).unwrap();
    let error = pack(source.path(), &Caps::default()).unwrap_err();
    assert!(matches!(error, PackError::Link { .. }), "{error:?}");
    assert!(error.to_string().contains("passwd"), "{error}");

    fs::remove_file(source.path().join("passwd")).unwrap();
    let made = Command::new("mkfifo").arg(source.path().join("pipe")).status().unwrap();
    assert!(made.success());
    let error = pack(source.path(), &Caps::default()).unwrap_err();
    assert!(
        matches!(error, PackError::NotRegular { what: "a FIFO", .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("pipe"), "{error}");
}

#[test]
fn pack_refuses_what_unpack_would() {
    let source = tempfile::tempdir().unwrap();
    fs::write(source.path().join("bad\nname"), b"x").unwrap();
    let error = pack(source.path(), &Caps::default()).unwrap_err();
    assert!(
        matches!(
            error,
            PackError::BadName {
                rule: NameRule::Control,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("bad\\nname"), "{error}");

    let source = tempfile::tempdir().unwrap();
    fs::write(source.path().join("big"), vec![0; 11]).unwrap();
    let error = pack(source.path(), &ten_byte_files()).unwrap_err();
    assert!(matches!(error, PackError::FileTooBig { limit: 10, .. }), "{error:?}");
}

#[test]
fn a_system_tar_with_dot_slash_names_unpacks() {
    let source = tempfile::tempdir().unwrap();
    bot_folder(source.path());
    let output = Command::new("tar")
        .args(["czf", "-", "-C"])
        .arg(source.path())
        .arg(".")
        .output()
        .expect("the system's tar runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let scene = Scene::new();
    let unpacked = scene.unpack(&output.stdout, &Caps::default()).unwrap();
    assert_eq!(unpacked.files, 6);
    assert_eq!(fs::read(scene.folder().join("src/lib/util.py")).unwrap(), b"X = 1\n");
    let run = fs::metadata(scene.folder().join("run.sh")).unwrap();
    assert_eq!(run.permissions().mode() & 0o7777, 0o755);
    assert!(scene.folder().join("data/empty").is_dir());
}

/// An upload kept in a file is told by its bytes, not by its name, and read from its start; one that cannot
/// be read is refused as the server's fault, and no folder is made.
#[test]
fn an_upload_kept_in_a_file_unpacks_as_its_bytes_say() {
    let kept = tempfile::tempdir().unwrap();
    let archive = kept.path().join("upload");
    fs::write(&archive, file_tar_gz(b"src/bot.py", b"print('tar')\n")).unwrap();
    let scene = Scene::new();
    let unpacked = unpack_file(&archive, Some("bot.py"), &scene.folder(), &Caps::DEFAULT).unwrap();
    assert_eq!((unpacked.files, unpacked.bytes), (1, 13));
    assert_eq!(fs::read(scene.folder().join("src/bot.py")).unwrap(), b"print('tar')\n");

    fs::write(&archive, b"print('one file')\n").unwrap();
    let scene = Scene::new();
    unpack_file(&archive, Some("bot.py"), &scene.folder(), &Caps::DEFAULT).unwrap();
    assert_eq!(fs::read(scene.folder().join("bot.py")).unwrap(), b"print('one file')\n");

    let scene = Scene::new();
    let missing = kept.path().join("missing");
    let refused = unpack_file(&missing, None, &scene.folder(), &Caps::DEFAULT).unwrap_err();
    assert!(matches!(refused, Refused::Io { .. }), "{refused}");
    scene.assert_nothing_left();
}

#[test]
fn a_zip_made_by_the_zip_crate_unpacks() {
    let upload = zip_of(|zip| {
        let plain = SimpleFileOptions::default();
        zip.add_directory("src/", plain.unix_permissions(0o755)).unwrap();
        zip.start_file("src/bot.py", plain.unix_permissions(0o644)).unwrap();
        zip.write_all(b"print('zip')\n").unwrap();
        zip.start_file("run.sh", plain.unix_permissions(0o755)).unwrap();
        zip.write_all(b"#!/bin/sh\n").unwrap();
        zip.start_file("lib/deep/x.txt", plain).unwrap();
        zip.write_all(&[b'x'; 10_000]).unwrap();
    });
    let scene = Scene::new();
    let unpacked = scene.unpack(&upload, &Caps::default()).unwrap();
    assert_eq!(unpacked.files, 3);
    assert_eq!(unpacked.bytes, 13 + 10 + 10_000);
    assert_eq!(fs::read(scene.folder().join("src/bot.py")).unwrap(), b"print('zip')\n");
    assert_eq!(fs::read(scene.folder().join("lib/deep/x.txt")).unwrap(), [b'x'; 10_000]);
    let mode = |path: &str| fs::metadata(scene.folder().join(path)).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode("run.sh"), 0o755);
    assert_eq!(mode("src/bot.py"), 0o644);
}

#[test]
fn a_single_file_unpacks_under_its_name() {
    let scene = Scene::new();
    let source = b"import sys\nfor line in sys.stdin: pass\n";
    let kind = sniff(source, Some("bot.py"));
    assert_eq!(
        kind,
        Kind::SingleFile {
            name: "bot.py".to_owned()
        }
    );
    let unpacked = unpack(&source[..], &kind, &scene.folder(), &Caps::default()).unwrap();
    assert_eq!(
        unpacked,
        pahtum_upload::Unpacked {
            files: 1,
            bytes: source.len() as u64
        }
    );
    assert_eq!(fs::read(scene.folder().join("bot.py")).unwrap(), source);
    let mode = fs::metadata(scene.folder().join("bot.py"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o7777, 0o644);
}

#[test]
fn a_git_archive_global_header_is_metadata_not_a_file() {
    let scene = Scene::new();
    let upload = tar_gz(&[
        (header(b"pax_global_header", EntryType::XGlobalHeader, 52), &[b'x'; 52]),
        (header(b"bot.py", EntryType::Regular, 1), b"x"),
    ]);
    let unpacked = scene.unpack(&upload, &Caps::default()).unwrap();
    assert_eq!(unpacked.files, 1);
    assert!(!scene.folder().join("pax_global_header").exists());
}

/// A small honest archive of each kind, to be damaged.
fn honest_tar() -> Vec<u8> {
    let mut tar = Vec::new();
    for (name, data) in [("bot.py", &b"print(1)\n"[..]), ("src/a.py", b"A = 2\n")] {
        tar.extend_from_slice(header(name.as_bytes(), EntryType::Regular, data.len() as u64).as_bytes());
        tar.extend_from_slice(data);
        tar.resize(tar.len().next_multiple_of(512), 0);
    }
    tar.extend_from_slice(&[0; 1024]);
    tar
}

fn honest_zip() -> Vec<u8> {
    zip_of(|zip| {
        zip.start_file("bot.py", SimpleFileOptions::default()).unwrap();
        zip.write_all(b"print(1)\n").unwrap();
        zip.start_file("src/a.py", SimpleFileOptions::default()).unwrap();
        zip.write_all(b"A = 2\n").unwrap();
    })
}

fn damaged(mut bytes: Vec<u8>, flips: &[(usize, u8)]) -> Vec<u8> {
    for &(at, byte) in flips {
        let len = bytes.len();
        bytes[at % len] = byte;
    }
    bytes
}

/// Unpacks `upload` as `kind`: whatever it is, no panic, and a refusal leaves nothing.
fn survives(upload: &[u8], kind: &Kind) -> Result<(), TestCaseError> {
    let scene = Scene::new();
    match unpack(upload, kind, &scene.folder(), &Caps::default()) {
        Ok(_) => prop_assert!(scene.folder().is_dir()),
        Err(refused) => {
            prop_assert!(!matches!(refused, Refused::LeftBehind { .. }), "{refused}");
            prop_assert!(!scene.folder().exists(), "{refused} left the folder");
            prop_assert_eq!(fs::read_dir(scene.base.path()).unwrap().count(), 0);
        }
    }
    Ok(())
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::TarGz),
        Just(Kind::Zip),
        Just(Kind::SingleFile {
            name: "bot.py".to_owned()
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_bytes_never_panic_and_leave_nothing(bytes in prop::collection::vec(any::<u8>(), 0..2048), kind in kind()) {
        survives(&bytes, &kind)?;
    }

    #[test]
    fn a_gzipped_random_tar_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..4096)) {
        survives(&gzip(&bytes), &Kind::TarGz)?;
    }

    #[test]
    fn a_damaged_tar_never_panics(flips in prop::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
        survives(&gzip(&damaged(honest_tar(), &flips)), &Kind::TarGz)?;
    }

    #[test]
    fn a_damaged_zip_never_panics(flips in prop::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
        survives(&damaged(honest_zip(), &flips), &Kind::Zip)?;
    }
}
