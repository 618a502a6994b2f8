//! An entrant's files as hostile input: the walk that lists and checks a folder through file
//! descriptors (no link followed, caps kept, nothing written), the copy of what it listed, and the
//! content hash of a snapshot. [`super::folder`] says what is refused and why.

use std::collections::HashMap;
use std::ffi::{CStr, OsStr};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::fd::BorrowedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use pahtum_protocol::untrusted::escape_bytes;
use rustix::fs::{AtFlags, CWD, Dir, FileType, Mode, OFlags, Stat, fstat, openat, readlinkat, statat};
use sha2::{Digest, Sha256};

use pahtum_journal::JournalError;

use super::read::LeagueError;
use super::rules::Caps;

pub(super) fn io_error(action: &'static str, path: &Path, source: io::Error) -> LeagueError {
    LeagueError::Journal(JournalError::Io {
        action,
        path: path.to_owned(),
        source,
    })
}

/// The refusal of the entrant's file `path`: what is wrong with it and the rule or limit it breaks
/// (`problem`), and what to do (`fix`).
pub(super) fn refusal(path: &Path, problem: impl Into<String>, fix: impl Into<String>) -> LeagueError {
    LeagueError::Entrant {
        file: escape_bytes(path.as_os_str().as_bytes()).into_owned(),
        problem: problem.into(),
        fix: fix.into(),
    }
}

pub(super) fn changed(path: &Path) -> LeagueError {
    refusal(
        path,
        "changed while the folder was copied",
        "add it again once nothing writes to the folder",
    )
}

/// How far a walk trusts the folder it walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Trust {
    /// An entrant's upload: regular files of one name and folders, named in printable UTF-8.
    Stranger,
    /// A league's own snapshot, maybe built: links are kept as links (never followed), hard-linked files
    /// are files, and names are not checked. FIFOs, sockets and devices are refused all the same.
    Snapshot,
}

/// What a walk keeps of an entry: a kind that is neither is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Folder,
    File,
    Link,
}

/// What `lstat` says of a file: who it is, how big, its mode and names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Node {
    pub(super) dev: u64,
    pub(super) ino: u64,
    pub(super) size: u64,
    pub(super) mode: u32,
    pub(super) links: u64,
}

impl Node {
    // The types of `Stat`'s fields differ between targets, so a cast may be needless on this one.
    #[allow(clippy::unnecessary_cast)]
    pub(super) fn of(stat: &Stat) -> Node {
        Node {
            dev: stat.st_dev as u64,
            ino: stat.st_ino as u64,
            size: stat.st_size.max(0) as u64,
            mode: stat.st_mode as u32,
            links: stat.st_nlink as u64,
        }
    }

    pub(super) fn is(&self, other: &Node) -> bool {
        (self.dev, self.ino) == (other.dev, other.ino)
    }
}

/// The rule a refused kind of entry breaks.
pub(super) const KINDS_RULE: &str =
    "a league copies only regular files (of one name each) and folders, and follows no link";

/// The kind of the entry `path` (`name` in the folder `dir`) described by `node`, or why it is refused.
pub(super) fn classify<P: rustix::path::Arg>(
    path: &Path,
    dir: BorrowedFd<'_>,
    name: P,
    node: &Node,
    trust: Trust,
) -> Result<Kind, LeagueError> {
    let stranger = trust == Trust::Stranger;
    if stranger {
        check_name(path)?;
    }
    let what = match FileType::from_raw_mode(node.mode) {
        FileType::Directory => return Ok(Kind::Folder),
        FileType::RegularFile if node.links == 1 || !stranger => return Ok(Kind::File),
        FileType::Symlink if !stranger => return Ok(Kind::Link),
        FileType::RegularFile => format!(
            "is a hard link (its file has {} names, and another may lie outside the folder)",
            node.links
        ),
        FileType::Symlink => match readlinkat(dir, name, Vec::new()) {
            Ok(target) => format!("is a symbolic link (to {})", escape_bytes(target.as_bytes())),
            Err(_) => "is a symbolic link".to_owned(),
        },
        FileType::Fifo => "is a FIFO (a named pipe)".to_owned(),
        FileType::Socket => "is a socket".to_owned(),
        FileType::CharacterDevice => "is a character device".to_owned(),
        FileType::BlockDevice => "is a block device".to_owned(),
        FileType::Unknown => "is of an unknown kind".to_owned(),
    };
    Err(refusal(
        path,
        format!("{what}, but {KINDS_RULE}"),
        "replace it by a regular file (a copy of what a link names), or remove it",
    ))
}

/// Refuses an entry whose name is not UTF-8 or holds a control character.
pub(super) fn check_name(path: &Path) -> Result<(), LeagueError> {
    let problem = match path.file_name().map(|name| std::str::from_utf8(name.as_bytes())) {
        Some(Err(_)) => "is named in invalid UTF-8",
        Some(Ok(name)) if name.chars().any(char::is_control) => {
            "has a control character (a newline, an escape, ...) in its name"
        }
        _ => return Ok(()),
    };
    Err(refusal(
        path,
        format!("{problem}, but a league copies only names of valid UTF-8 without control characters"),
        "rename it",
    ))
}

/// An entry found by [`walk`]: `name` in the open folder `dir`, at `relative` to the walked folder.
pub(super) struct Found<'a> {
    pub(super) dir: BorrowedFd<'a>,
    pub(super) name: &'a CStr,
    pub(super) relative: &'a Path,
    pub(super) node: Node,
    pub(super) kind: Kind,
}

/// Walks the folder `root` (reached through a link if `root` names one) depth first with a stack of
/// open folders, following no link inside: classifies each entry as `trust` says, counts it against
/// `caps` (stopping at the first cap passed), and hands it to `visit`, a folder before what it holds.
pub(super) fn walk(
    root: &Path,
    trust: Trust,
    caps: Caps,
    mut visit: impl FnMut(&Found<'_>) -> Result<(), LeagueError>,
) -> Result<(), LeagueError> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let failed = |path: &Path, errno: rustix::io::Errno| io_error("read", path, errno.into());
    let top = openat(CWD, root, flags, Mode::empty())
        .and_then(Dir::new)
        .map_err(|errno| failed(root, errno))?;
    let mut stack = vec![(top, PathBuf::new())];
    let (mut count, mut bytes) = (0u64, 0u64);
    loop {
        let depth = stack.len() as u64;
        let Some((dir, here)) = stack.last_mut() else {
            return Ok(());
        };
        let entry = match dir.next() {
            None => {
                stack.pop();
                continue;
            }
            Some(entry) => entry.map_err(|errno| failed(&root.join(&*here), errno))?,
        };
        let name = entry.file_name();
        if matches!(name.to_bytes(), b"." | b"..") {
            continue;
        }
        let relative = here.join(OsStr::from_bytes(name.to_bytes()));
        let path = root.join(&relative);
        let at = dir.fd().map_err(|errno| failed(&path, errno))?;
        let node = statat(at, name, AtFlags::SYMLINK_NOFOLLOW).map_err(|errno| failed(&path, errno))?;
        let node = Node::of(&node);
        let kind = classify(&path, at, name, &node, trust)?;
        count += 1;
        if kind == Kind::File {
            bytes = bytes.saturating_add(node.size);
        }
        let passed = if count > caps.files {
            Some((
                "max_files",
                format!("is one past max_files = {} files and folders", caps.files),
            ))
        } else if kind == Kind::Folder && depth > caps.depth {
            Some((
                "max_depth",
                format!("lies {depth} folders deep, past max_depth = {}", caps.depth),
            ))
        } else if bytes > caps.bytes() {
            let problem = format!(
                "({} bytes) brings the files to {bytes} bytes (a sparse file counts whole), past max_mb = {} MiB",
                node.size, caps.mb
            );
            Some(("max_mb", problem))
        } else {
            None
        };
        if let Some((key, problem)) = passed {
            return Err(refusal(
                &path,
                problem,
                format!("make the folder smaller, or raise {key} in league.toml"),
            ));
        }
        visit(&Found {
            dir: at,
            name,
            relative: &relative,
            node,
            kind,
        })?;
        if kind == Kind::Folder {
            let fd = openat(at, name, flags | OFlags::NOFOLLOW, Mode::empty()).map_err(|errno| failed(&path, errno))?;
            let opened = fstat(&fd).map_err(|errno| failed(&path, errno))?;
            if !Node::of(&opened).is(&node) {
                return Err(changed(&path));
            }
            stack.push((Dir::new(fd).map_err(|errno| failed(&path, errno))?, relative));
        }
    }
}

/// Opens the regular file `name` of the folder `dir` (`path` names it in errors) without following a
/// link or blocking on a FIFO, and holds it to the file `node` listed.
pub(super) fn open_listed<P: rustix::path::Arg>(
    dir: BorrowedFd<'_>,
    name: P,
    path: &Path,
    node: &Node,
) -> Result<File, LeagueError> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let failed = |errno: rustix::io::Errno| io_error("open", path, errno.into());
    let fd = openat(dir, name, flags, Mode::empty()).map_err(failed)?;
    let opened = Node::of(&fstat(&fd).map_err(failed)?);
    if FileType::from_raw_mode(opened.mode) != FileType::RegularFile || !opened.is(node) {
        return Err(changed(path));
    }
    Ok(File::from(fd))
}

/// Lists and checks the entrant's folder `from` within `caps`, writing nothing: every entry by its path
/// relative to `from`.
pub(super) fn list(from: &Path, caps: Caps) -> Result<HashMap<PathBuf, Node>, LeagueError> {
    let mut listed = HashMap::new();
    walk(from, Trust::Stranger, caps, |found| {
        listed.insert(found.relative.to_owned(), found.node);
        Ok(())
    })?;
    Ok(listed)
}

/// Copies the folder `from` into `to` (which exists), walked as `trust` says within `caps`. With
/// `listed`, only what was listed, unchanged, each file up to its listed size.
pub(super) fn copy_tree(
    from: &Path,
    to: &Path,
    trust: Trust,
    listed: Option<&HashMap<PathBuf, Node>>,
    caps: Caps,
) -> Result<(), LeagueError> {
    walk(from, trust, caps, |found| {
        let (path, target) = (from.join(found.relative), to.join(found.relative));
        let node = match listed {
            None => found.node,
            Some(listed) => *listed
                .get(found.relative)
                .filter(|node| node.is(&found.node))
                .ok_or_else(|| changed(&path))?,
        };
        match found.kind {
            Kind::Folder => fs::create_dir_all(&target).map_err(|source| io_error("create", &target, source)),
            Kind::Link => {
                let link = readlinkat(found.dir, found.name, Vec::new())
                    .map_err(|errno| io_error("read", &path, errno.into()))?;
                std::os::unix::fs::symlink(OsStr::from_bytes(link.as_bytes()), &target)
                    .map_err(|source| io_error("create", &target, source))
            }
            Kind::File => copy_file(open_listed(found.dir, found.name, &path, &node)?, &path, &node, &target),
        }
    })
}

/// Copies the opened `file` (`path`, listed as `node`) to `target`, up to its listed size; refuses it if
/// it grew past that.
pub(super) fn copy_file(mut file: File, path: &Path, node: &Node, target: &Path) -> Result<(), LeagueError> {
    let mode = if node.mode & 0o111 != 0 { 0o755 } else { 0o644 };
    let mut out = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .open(target)
        .map_err(|source| io_error("create", target, source))?;
    io::copy(&mut (&mut file).take(node.size), &mut out).map_err(|source| io_error("copy", path, source))?;
    if file.read(&mut [0]).map_err(|source| io_error("copy", path, source))? > 0 {
        return Err(refusal(
            path,
            format!(
                "grew while it was copied, past the {} bytes it had when listed",
                node.size
            ),
            "add the folder again once nothing writes to it",
        ));
    }
    Ok(())
}

/// The content hash of the snapshot `dir` with its `command` and `build` (see the module documentation).
pub fn content_hash(dir: &Path, command: &[String], build: Option<&str>) -> Result<String, LeagueError> {
    let mut files = Vec::new();
    walk(dir, Trust::Snapshot, Caps::NONE, |found| {
        if found.kind != Kind::Folder {
            files.push((found.relative.to_owned(), found.node, found.kind));
        }
        Ok(())
    })?;
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut hasher = Sha256::new();
    hasher.update(b"pahtum-arena/entrant\0");
    for word in command {
        hasher.update((word.len() as u64).to_le_bytes());
        hasher.update(word.as_bytes());
    }
    hasher.update(build.unwrap_or("").as_bytes());
    hasher.update(b"\0");
    for (relative, node, kind) in files {
        let path = dir.join(&relative);
        let bytes = if kind == Kind::Link {
            fs::read_link(&path)
                .map_err(|source| io_error("read", &path, source))?
                .into_os_string()
                .into_encoded_bytes()
        } else {
            let mut bytes = Vec::new();
            open_listed(CWD, &path, &path, &node)?
                .read_to_end(&mut bytes)
                .map_err(|source| io_error("read", &path, source))?;
            bytes
        };
        let name = relative.into_os_string().into_encoded_bytes();
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(&name);
        hasher.update([u8::from(node.mode & 0o111 != 0), u8::from(kind == Kind::Link)]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    let hex: String = hasher.finalize().iter().map(|byte| format!("{byte:02x}")).collect();
    Ok(format!("sha256:{hex}"))
}
