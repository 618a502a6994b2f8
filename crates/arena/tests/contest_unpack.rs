//! Where a contest unpacks an upload: in the sandbox, by a child process of
//! the `arena` executable (`arena upload-unpack`), not in the server's own
//! process. An honest upload unpacks there, as `nobody` where the server runs
//! as root (the report in the submission's `unpack.log` says which user
//! unpacked), and is admitted; hostile ones (a `..` entry, a symbolic link)
//! are refused there, the author reading from `arena submit` the entry and
//! the rule, and nothing of them is written: no folder is left in the
//! submission's, nothing lands beside it, and no file of the contest is left
//! to `nobody`. Skipped where the sandbox cannot run, except with `CI=true`.

mod contesting;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use contesting::{Server, arena, bot_folder, invite_token, new_contest, private_folder, s, sandbox_runs, text};

/// The user `bubblewrap` runs sandboxed processes as when the arena runs as root.
const NOBODY: u32 = 65534;

/// The user that unpacks in the sandbox: `nobody` where the server (started by this test) runs as root,
/// else the server's own.
fn unpacking_user() -> u32 {
    match std::fs::metadata("/proc/self").unwrap().uid() {
        0 => NOBODY,
        own => own,
    }
}

fn submit(server: &Server, upload: &Path, token: &str) -> Output {
    arena(&["submit", &server.url, s(upload), "--token", token])
}

/// The `.tar.gz` of the `names` (as given, relative to `folder`) made by the system's `tar`, which keeps a
/// `..` in a name with `-P`.
fn tar_of(folder: &Path, names: &[&str]) -> PathBuf {
    let archive = folder.with_extension("tar.gz");
    let packed = Command::new("tar")
        .args(["czPf", s(&archive), "-C", s(folder)])
        .args(names)
        .output()
        .unwrap();
    assert!(packed.status.success(), "{}", text(&packed));
    archive
}

/// The report of submission `id`'s unpacking in its log, and what else its folder holds.
fn unpacked(contest: &Path, id: u32) -> (serde_json::Value, Vec<String>) {
    let own = contest.join("submissions").join(id.to_string());
    let log = std::fs::read_to_string(own.join("unpack.log"))
        .unwrap_or_else(|error| panic!("{error}: {:?}", every_path(contest)));
    let report = log
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .unwrap_or_else(|| panic!("no report in the log of submission {id}: {log}"));
    let mut held: Vec<String> = std::fs::read_dir(&own)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    held.sort();
    (report, held)
}

/// Every path under `dir` (links not followed).
fn every_path(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                folders.push(entry.path());
            }
            found.push(entry.path());
        }
    }
    found
}

#[test]
fn uploads_are_unpacked_in_the_sandbox_and_hostile_ones_refused_there_leaving_nothing() {
    if !sandbox_runs() {
        return;
    }
    let root = private_folder();
    let (contest, _) = new_contest(root.path(), "Unpack cup");
    let ada = invite_token(&contest, "ada");
    let server = Server::start(&contest, &["--concurrency", "1"]);
    let toml = "name = \"x\"\ncommand = \"python3 bot.py first-free\"\n";

    let good = bot_folder(root.path(), "good", toml, &[]);
    let admitted = submit(&server, &good, &ada);
    assert_eq!(admitted.status.code(), Some(0), "{}", text(&admitted));
    let (report, held) = unpacked(&contest, 1);
    assert_eq!(report["outcome"], "unpacked", "{report}");
    assert_eq!(report["unpacked"]["files"], 3, "bot.py, bot.toml and NOTE: {report}");
    assert_eq!(report["uid"], unpacking_user(), "{report}");
    assert!(
        !held.iter().any(|name| name == "files" || name == "unpacking"),
        "{held:?}"
    );

    // A `..` entry, which would land beside the bot's folder, in the submission's.
    let escaping = bot_folder(root.path(), "escaping", toml, &[]);
    std::fs::write(root.path().join("outside.txt"), "written beside").unwrap();
    let archive = tar_of(&escaping, &["bot.py", "bot.toml", "../outside.txt"]);
    let refused = submit(&server, &archive, &ada);
    assert_eq!(refused.status.code(), Some(3), "{}", text(&refused));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("entry \"../outside.txt\" has a `..` component"),
        "{}",
        text(&refused)
    );
    let (report, held) = unpacked(&contest, 2);
    assert_eq!(report["outcome"], "refused", "{report}");
    assert_eq!(report["uid"], unpacking_user(), "{report}");
    assert_eq!(held, ["unpack.log"], "nothing of the upload is left");

    // A symbolic link to a file of the host.
    let linked = bot_folder(root.path(), "linked", toml, &[]);
    std::os::unix::fs::symlink("/etc/shadow", linked.join("shadow")).unwrap();
    let archive = tar_of(&linked, &["bot.py", "bot.toml", "shadow"]);
    let refused = submit(&server, &archive, &ada);
    assert_eq!(refused.status.code(), Some(3), "{}", text(&refused));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("entry \"shadow\" is a symbolic link"),
        "{}",
        text(&refused)
    );
    let (report, held) = unpacked(&contest, 3);
    assert_eq!(report["outcome"], "refused", "{report}");
    assert_eq!(held, ["unpack.log"], "nothing of the upload is left");

    server.stop();
    let paths = every_path(&contest);
    let outside: Vec<_> = paths
        .iter()
        .filter(|path| path.ends_with("outside.txt") || path.ends_with("shadow"))
        .collect();
    assert!(outside.is_empty(), "written by a refused upload: {outside:?}");
    let lent: Vec<_> = paths
        .iter()
        .filter(|path| std::fs::symlink_metadata(path).unwrap().uid() == NOBODY)
        .collect();
    assert!(lent.is_empty(), "left to nobody: {lent:?}");
}
