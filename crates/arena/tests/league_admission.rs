//! `arena league add DIR --from FOLDER` treats the entrant's folder as hostile input (issue 36): each kind
//! of hostile entry (links, special files, odd names, a folder past a cap) and a command naming a path
//! outside the snapshot is refused by the real `arena`, with the file and the rule or limit named, and
//! leaves the league byte for byte as it was (`cmp` of its files against copies, and its listing). Each
//! refusal has its control, the same folder with the hostile entry replaced by a small regular file,
//! which joins, so that each test can fail. The bots are the built-in `first-free`: no interpreter.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rustix::fs::{CWD, FileType, Mode, makedev, mknodat};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// `arena ARGS...`, asserted to succeed.
fn arena_ok(args: &[&str]) -> Output {
    let output = Command::new(ARENA).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "arena {args:?}: status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    );
    output
}

/// A new league in `root/league` with `rules` (after its name) as its league.toml.
fn league(root: &Path, rules: &str) -> PathBuf {
    let dir = root.join("league");
    arena_ok(&["league", "init", s(&dir)]);
    fs::write(dir.join("league.toml"), format!("name = \"league\"\n{rules}")).unwrap();
    dir
}

/// An entrant's folder `root/name`: a bot.toml of `command`, and a file of its own (so that no two
/// entrants have the same content hash).
fn bot_folder(root: &Path, name: &str, command: &str) -> PathBuf {
    let dir = root.join(name);
    fs::create_dir_all(dir.join("data")).unwrap();
    fs::write(
        dir.join("bot.toml"),
        format!("name = \"{name}\"\ncommand = \"{command}\"\n"),
    )
    .unwrap();
    fs::write(dir.join("data/own.txt"), name).unwrap();
    dir
}

/// Every path under `dir`, with its kind and size, in order.
fn listing(dir: &Path) -> Vec<(PathBuf, String, u64)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(here) = stack.pop() {
        for entry in fs::read_dir(&here).unwrap() {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path.clone());
            }
            found.push((path, format!("{:?}", meta.file_type()), meta.len()));
        }
    }
    found.sort();
    found
}

/// Runs `arena league add DIR --from FOLDER`, asserts that it fails with a message holding each of
/// `parts`, and that the league is byte for byte as before: its journal and rules `cmp` equal to copies
/// taken before, and its listing the same.
fn assert_refused(dir: &Path, folder: &Path, parts: &[&str]) {
    let copies = tempfile::tempdir().unwrap();
    for file in ["journal.jsonl", "league.toml"] {
        fs::copy(dir.join(file), copies.path().join(file)).unwrap();
    }
    let before = listing(dir);
    let output = Command::new(ARENA)
        .args(["league", "add", s(dir), "--from", s(folder)])
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert!(!output.status.success(), "admitted: {folder:?}\n{stderr}");
    for part in parts {
        assert!(stderr.contains(part), "{part:?} not in the message:\n{stderr}");
    }
    for file in ["journal.jsonl", "league.toml"] {
        let cmp = Command::new("cmp")
            .arg(dir.join(file))
            .arg(copies.path().join(file))
            .status()
            .unwrap();
        assert!(cmp.success(), "{file} changed by a refused addition");
    }
    assert_eq!(
        listing(dir),
        before,
        "the league's folder changed by a refused addition"
    );
    assert!(!dir.join(".staging").exists());
}

/// The control: the hostile `entry` of `folder` removed and a small regular file written beside it; the
/// folder joins the league.
fn assert_control_joins(dir: &Path, folder: &Path, entry: &Path) {
    if fs::symlink_metadata(entry).unwrap().is_dir() {
        fs::remove_dir_all(entry).unwrap();
    } else {
        fs::remove_file(entry).unwrap();
    }
    fs::write(entry.with_file_name("plain.txt"), "a small regular file\n").unwrap();
    let output = arena_ok(&["league", "add", s(dir), "--from", s(folder)]);
    assert!(text(&output.stdout).contains("joined the league"));
    let name = folder.file_name().unwrap().to_str().unwrap();
    assert!(dir.join(format!("entrants/{name}@1/data/own.txt")).is_file());
}

/// One hostile kind: a folder `name` whose entry made by `hostile` (which returns its path) is refused
/// with `parts` in the message; then its control joins.
fn hostile_kind(root: &Path, dir: &Path, name: &str, hostile: impl FnOnce(&Path) -> PathBuf, parts: &[&str]) {
    let folder = bot_folder(root, name, "first-free");
    let entry = hostile(&folder);
    assert_refused(dir, &folder, parts);
    assert_control_joins(dir, &folder, &entry);
}

const KINDS_RULE: &str = "a league copies only regular files (of one name each) and folders, and follows no link";

#[test]
fn links_are_refused_and_never_followed() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let dir = league(root, "");
    hostile_kind(
        root,
        &dir,
        "shadow",
        |folder| {
            let entry = folder.join("data/key");
            std::os::unix::fs::symlink("/etc/shadow", &entry).unwrap();
            entry
        },
        &["shadow/data/key is a symbolic link (to /etc/shadow)", KINDS_RULE],
    );
    hostile_kind(
        root,
        &dir,
        "up",
        |folder| {
            let entry = folder.join("up");
            std::os::unix::fs::symlink("../..", &entry).unwrap();
            entry
        },
        &["up/up is a symbolic link (to ../..)", KINDS_RULE],
    );
    hostile_kind(
        root,
        &dir,
        "hard",
        |folder| {
            let (outside, entry) = (folder.join("../outside-secret.txt"), folder.join("data/copy.txt"));
            fs::write(&outside, "the organiser's secret\n").unwrap();
            fs::hard_link(&outside, &entry).unwrap();
            entry
        },
        &["hard/data/copy.txt is a hard link (its file has 2 names", KINDS_RULE],
    );
}

#[test]
fn fifos_sockets_and_devices_are_refused() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let dir = league(root, "");
    // A FIFO would block a copy that opened it: the refusal must come at once.
    hostile_kind(
        root,
        &dir,
        "fifo",
        |folder| {
            let entry = folder.join("pipe");
            mknodat(CWD, &entry, FileType::Fifo, Mode::RUSR | Mode::WUSR, 0).unwrap();
            entry
        },
        &["fifo/pipe is a FIFO", KINDS_RULE],
    );
    hostile_kind(
        root,
        &dir,
        "socket",
        |folder| {
            let entry = folder.join("data/sock");
            drop(std::os::unix::net::UnixListener::bind(&entry).unwrap());
            entry
        },
        &["socket/data/sock is a socket", KINDS_RULE],
    );
    let probe = root.join("probe-null");
    let null = makedev(1, 3);
    if mknodat(CWD, &probe, FileType::CharacterDevice, Mode::RUSR, null).is_err() {
        println!("not root (or no CAP_MKNOD): the character device is not tried");
        return;
    }
    hostile_kind(
        root,
        &dir,
        "device",
        |folder| {
            let entry = folder.join("null");
            mknodat(CWD, &entry, FileType::CharacterDevice, Mode::RUSR, null).unwrap();
            entry
        },
        &["device/null is a character device", KINDS_RULE],
    );
}

#[test]
fn names_with_controls_or_invalid_utf8_are_refused_escaped() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let dir = league(root, "");
    let odd_name = |name: &'static [u8]| {
        move |folder: &Path| {
            let entry = folder.join("data").join(OsStr::from_bytes(name));
            fs::write(&entry, "x").unwrap();
            entry
        }
    };
    let rule = "a league copies only names of valid UTF-8 without control characters";
    hostile_kind(
        root,
        &dir,
        "newline",
        odd_name(b"a\nb.txt"),
        &["newline/data/a\\nb.txt has a control character", rule],
    );
    hostile_kind(
        root,
        &dir,
        "escape",
        odd_name(b"\x1b[2Jred"),
        &["escape/data/\\x1b[2Jred has a control character", rule],
    );
    hostile_kind(
        root,
        &dir,
        "latin1",
        odd_name(b"caf\xe9"),
        &["latin1/data/caf\\xe9 is named in invalid UTF-8", rule],
    );
}

#[test]
fn a_folder_past_a_cap_is_refused_at_once_naming_the_cap() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let dir = league(root, "max_files = 50\nmax_depth = 6\nmax_mb = 1\n");
    hostile_kind(
        root,
        &dir,
        "sparse",
        |folder| {
            // 10 GiB of apparent size, no block written: refused before a byte is copied.
            let entry = folder.join("data/huge.bin");
            fs::File::create(&entry).unwrap().set_len(10 << 30).unwrap();
            entry
        },
        &["sparse/data/huge.bin (10737418240 bytes)", "past max_mb = 1 MiB"],
    );
    hostile_kind(
        root,
        &dir,
        "deep",
        |folder| {
            let entry = folder.join("d");
            fs::create_dir_all(entry.join("d/d/d/d/d/d/d/d/d/d/d")).unwrap();
            entry
        },
        &["deep/d/d/d/d/d/d/d lies 7 folders deep, past max_depth = 6"],
    );
    hostile_kind(
        root,
        &dir,
        "many",
        |folder| {
            let entry = folder.join("many");
            fs::create_dir(&entry).unwrap();
            for index in 0..200 {
                fs::write(entry.join(index.to_string()), "").unwrap();
            }
            entry
        },
        &[
            "is one past max_files = 50 files and folders",
            "raise max_files in league.toml",
        ],
    );
}

#[test]
fn a_command_naming_a_path_outside_the_snapshot_is_refused_with_the_path() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let dir = league(root, "");
    let secret = root.join("x/key.txt");
    fs::create_dir_all(secret.parent().unwrap()).unwrap();
    fs::write(&secret, "the organiser's key\n").unwrap();
    for (name, command, path) in [
        (
            "absolute",
            format!("first-free {}", secret.display()),
            s(&secret).to_owned(),
        ),
        (
            "root",
            "first-free /root/x/key.txt".to_owned(),
            "/root/x/key.txt".to_owned(),
        ),
        ("parent", "first-free ../secret".to_owned(), "../secret".to_owned()),
        ("flag", "first-free --key=a/../../b".to_owned(), "a/../../b".to_owned()),
    ] {
        let folder = bot_folder(root, name, &command);
        assert_refused(
            &dir,
            &folder,
            &[
                &format!("{name}/bot.toml has a command that names {path}, a path outside the entrant's snapshot"),
                "/usr",
            ],
        );
    }
    // The controls: a built-in by name, and a program of the system's folders given a path that stays
    // inside the snapshot (a script that runs the built-in).
    for (name, command) in [("plain", "first-free"), ("inside", "/bin/sh data/../data/run.sh")] {
        let folder = bot_folder(root, name, command);
        fs::write(folder.join("data/run.sh"), format!("exec '{ARENA}' bot first-free\n")).unwrap();
        let output = arena_ok(&["league", "add", s(&dir), "--from", s(&folder)]);
        assert!(text(&output.stdout).contains(&format!("{name}@1 joined the league")));
    }
}
