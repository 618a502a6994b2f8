//! What to tell a bot's author when a sandboxed bot fails at its start.
//!
//! A bot that starts outside the sandbox but not inside it misses something
//! the sandbox takes away: a file or a program in a folder it does not show,
//! a folder closed to the sandbox's user, the network. Neither bubblewrap nor
//! the bot knows about the sandbox; they say what went wrong on stderr, in
//! their own words. So the referee reads the tail of that stderr for a few
//! plain signs (a line of bubblewrap's own, "permission denied", a file "not
//! found") and says what the sandbox has to do with them: which folders the
//! bot sees, which folder is closed to `nobody`, where the program lies
//! outside. Nothing more is guessed, and no line of the bot is repeated
//! (its stderr is shown beside the hint): without a sign the hint says only
//! what the sandbox takes away.

use std::path::{Path, PathBuf};

use crate::policy::{Command, Sandbox};
use crate::sandbox::{SYSTEM_DIRS, SYSTEM_PATH, Seen, closed_to_others, find_on_path, own_folder, sandbox_user};

/// What a line says when a file or a program is missing, in lower case:
/// the C library's "No such file or directory", Python's "can't open file",
/// Node's "Cannot find module", Go's "go.mod file not found", Java's
/// "Could not find or load main class", a shell's "not found".
const MISSING: [&str; 6] = [
    "no such file",
    "not found",
    "cannot find",
    "can't find",
    "could not find",
    "can't open file",
];

/// The hint for `spec`, sandboxed in `sandbox`, which failed its greeting
/// after writing `stderr_tail`: the likely cause as far as the sandbox is
/// concerned, then what the bot sees there.
pub fn failed_start(spec: &Command, sandbox: &Sandbox, stderr_tail: &[String]) -> String {
    let seen = Seen::of(sandbox, spec);
    let says = |signs: &[&str]| {
        stderr_tail.iter().any(|line| {
            let line = line.to_lowercase();
            signs.iter().any(|sign| line.contains(sign))
        })
    };
    let bubblewrap = stderr_tail.iter().find_map(|line| line.strip_prefix(BUBBLEWRAP_SAYS));
    let cause = match (&seen.work_closed, bubblewrap) {
        (Some((closed, mode)), _) => format!(
            "Its working directory {} is not shown in the sandbox, where it is an empty folder: {}",
            seen.work.display(),
            closed_to_nobody(closed, *mode)
        ),
        (None, Some(line)) => not_built(spec, &seen, line),
        (None, None) if sandbox_user().is_some() && says(&["permission denied"]) => format!(
            "The bot was denied a file: in the sandbox it runs as `nobody` (arena runs as root), which may \
             read only what others may read. Make its files readable by others (`chmod -R o+rX {}`).",
            seen.work.display()
        ),
        (None, None) if says(&MISSING) => missing_file(spec, &seen),
        (None, None) => format!(
            "In the sandbox the bot has no network, {} MiB of memory and {} processes and threads{}; its stderr \
             above may say which of these it missed.",
            sandbox.memory_mb,
            sandbox.max_processes,
            if sandbox_user().is_some() {
                ", and runs as `nobody` (arena runs as root)"
            } else {
                ""
            }
        ),
    };
    format!("{cause} {} See SECURITY.md, \"The sandbox\".", sees(&seen))
}

/// bubblewrap's words (escaped) on a sandboxed process's stderr when it
/// could not build the sandbox, other than about the process's own program
/// or folders (a program it could not run, a folder it could not show or
/// enter: the process's setup, told by [`failed_start`]).
pub fn sandbox_not_built(stderr_tail: &[String]) -> Option<String> {
    const THE_PROCESS_OWN: [&str; 3] = ["execvp", "Can't find source path", "Can't chdir"];
    let said = stderr_tail.iter().find_map(|line| line.strip_prefix(BUBBLEWRAP_SAYS))?;
    (!THE_PROCESS_OWN.iter().any(|own| said.starts_with(own)))
        .then(|| pahtum_protocol::untrusted::escape(said).into_owned())
}

/// How bubblewrap begins a line of its own on stderr.
const BUBBLEWRAP_SAYS: &str = "bwrap: ";

/// The cause when bubblewrap itself said `line` (without its `bwrap: `):
/// the program is not in the sandbox, or a folder could not be shown.
fn not_built(spec: &Command, seen: &Seen, line: &str) -> String {
    let program = &spec.program;
    if line.starts_with("execvp") && line.to_lowercase().contains("no such file") {
        if program.contains('/') && !seen.work.join(program).exists() {
            return does_not_exist(&[program], seen);
        }
        let found = find_on_path(program).filter(|_| !program.contains('/'));
        return match found {
            None if !program.contains('/') => format!(
                "The program `{program}` is on no PATH, in the sandbox ({SYSTEM_PATH}) or out of it: check its name."
            ),
            Some(path) if !shown(&path, seen) => format!(
                "The program `{program}` is not in the sandbox: there the PATH holds only the system's folders \
                 ({SYSTEM_PATH}); outside it, `{program}` is {}, in a folder the sandbox does not show. Use a \
                 `{program}` installed in the system's folders (/usr/bin), or start it by a path inside a folder \
                 the bot sees.",
                path.display()
            ),
            _ => format!(
                "The program `{program}`, or the interpreter that its first line (`#!`) names, is not in the \
                 sandbox: there the PATH holds only the system's folders ({SYSTEM_PATH}), and a path names a file \
                 only inside the folders below."
            ),
        };
    }
    if sandbox_user().is_some() && line.to_lowercase().contains("permission denied") {
        let closed = seen
            .all()
            .find_map(|dir| closed_to_others(dir).map(|closed| (dir, closed)));
        return match closed {
            Some((dir, (closed, mode))) => format!(
                "The sandbox could not be built, for it cannot show the bot {}: {}",
                dir.display(),
                closed_to_nobody(&closed, mode)
            ),
            None => "The sandbox could not be built: the bot runs as `nobody` (arena runs as root), which was \
                     denied a folder the sandbox is to show the bot (bubblewrap's words above); each of those \
                     folders must be open to others."
                .to_owned(),
        };
    }
    "The sandbox could not be built for this bot (bubblewrap's words above).".to_owned()
}

/// Why `nobody` cannot see a folder: `closed`, of `mode`, is closed to
/// others; and what to do.
fn closed_to_nobody(closed: &Path, mode: u32) -> String {
    format!(
        "the bot runs as `nobody` (arena runs as root), and `nobody` may not enter {} (mode {mode:04o}). Let \
         others enter and read it (`chmod o+rx {}`), or put the bot in a folder that they may.",
        closed.display(),
        closed.display()
    )
}

/// Whether the sandbox shows `path`: in the system's folders or one the bot sees.
fn shown(path: &Path, seen: &Seen) -> bool {
    SYSTEM_DIRS
        .iter()
        .map(Path::new)
        .chain(seen.all().map(PathBuf::as_path))
        .any(|dir| path.starts_with(dir))
}

/// The cause when the bot's stderr says a file is missing: a path of its
/// command that does not exist even outside, else a file outside the
/// folders it sees.
fn missing_file(spec: &Command, seen: &Seen) -> String {
    let absent: Vec<&String> = std::iter::once(&spec.program)
        .filter(|program| program.contains('/'))
        .chain(&spec.args)
        .filter(|word| names_a_file(word) && !seen.work.join(word).exists())
        .collect();
    if !absent.is_empty() {
        return does_not_exist(&absent, seen);
    }
    "Its stderr says a file is missing: a file outside the folders the sandbox shows does not exist for the bot. \
     Start arena from the bot's own folder (its working directory is shown to it), and name the files it needs \
     by paths inside the folders below."
        .to_owned()
}

/// The cause when the words of the command `absent` name no file, even
/// outside the sandbox.
fn does_not_exist(absent: &[&String], seen: &Seen) -> String {
    let absent: Vec<String> = absent.iter().map(|word| format!("`{word}`")).collect();
    format!(
        "{} does not exist in its working directory {}, in the sandbox or out of it: check the name, and start \
         arena from the bot's own folder.",
        absent.join(", "),
        seen.work.display()
    )
}

/// Whether a word of a command looks like a file's path: not an option,
/// and with a `/` or an extension of letters (`bot.py`, `lib/x`).
fn names_a_file(word: &str) -> bool {
    !word.starts_with('-')
        && (word.contains('/')
            || Path::new(word)
                .extension()
                .and_then(|extension| extension.to_str())
                .is_some_and(|extension| extension.chars().next().is_some_and(char::is_alphabetic)))
}

/// What the bot sees in the sandbox, in a sentence.
fn sees(seen: &Seen) -> String {
    let mut folders: Vec<String> = seen
        .read_only
        .iter()
        .map(|dir| {
            let what = if *dir == seen.work {
                "its working directory, read-only"
            } else {
                "read-only"
            };
            format!("{} ({what})", dir.display())
        })
        .collect();
    folders.extend(seen.writable.iter().map(|dir| format!("{} (writable)", dir.display())));
    let work = if own_folder(&seen.work) {
        format!(
            " Its working directory, {}, is the sandbox's own, not this machine's.",
            seen.work.display()
        )
    } else {
        String::new()
    };
    let folders = if folders.is_empty() {
        "no folder of this machine".to_owned()
    } else {
        format!("of this machine's folders only {}", folders.join(", "))
    };
    format!(
        "In the sandbox the bot sees the system's folders (/usr and the like), a private /tmp, and {folders}; \
         nothing else exists for it.{work}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(command: &str, dir: &Path) -> Command {
        Command::split(command, Some(dir.to_owned())).unwrap()
    }

    fn tail(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|line| line.to_string()).collect()
    }

    /// A missing file that does not exist outside either is named, with
    /// the folders the bot sees; one that exists outside is not blamed.
    #[test]
    fn a_missing_file_is_named_with_the_folders_the_bot_sees() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bot.py"), "").unwrap();
        let said = tail(&["python3: can't open file '/x/nosuch.py': [Errno 2] No such file or directory"]);
        let hint = failed_start(&spec("python3 -u nosuch.py", dir.path()), &Sandbox::default(), &said);
        let work = dir.path().display();
        assert!(
            hint.starts_with(&format!("`nosuch.py` does not exist in its working directory {work}")),
            "{hint}"
        );
        // It names no file there, so the bot sees none of the folder.
        assert!(hint.contains("and no folder of this machine"), "{hint}");
        assert!(!hint.contains("-u"), "{hint}");

        let said = tail(&["Error: Cannot find module '/x/lib.js'"]);
        let hint = failed_start(&spec("python3 bot.py", dir.path()), &Sandbox::default(), &said);
        assert!(hint.contains("a file outside the folders the sandbox shows"), "{hint}");
        assert!(!hint.contains("does not exist in its"), "{hint}");
    }

    /// A program missing in the sandbox is named, with where it lies outside.
    #[test]
    fn a_program_missing_in_the_sandbox_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let said = tail(&["bwrap: execvp pythn3: No such file or directory"]);
        let hint = failed_start(&spec("pythn3 bot.py", dir.path()), &Sandbox::default(), &said);
        assert!(hint.starts_with("The program `pythn3` is on no PATH"), "{hint}");
        let said = tail(&["bwrap: execvp sh: No such file or directory"]);
        let hint = failed_start(&spec("sh bot.sh", dir.path()), &Sandbox::default(), &said);
        assert!(hint.contains("or the interpreter that its first line"), "{hint}");
        let said = tail(&["bwrap: execvp ./bott: No such file or directory"]);
        let hint = failed_start(&spec("./bott", dir.path()), &Sandbox::default(), &said);
        assert!(hint.starts_with("`./bott` does not exist"), "{hint}");
    }

    /// As root, a working directory closed to `nobody` is not bound, and the
    /// hint names it; the folders above it do not matter (the stage reaches
    /// them as root).
    #[test]
    fn a_working_directory_closed_to_nobody_is_named() {
        if sandbox_user().is_none() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let closed = dir.path().join("closed");
        std::fs::create_dir_all(&closed).unwrap();
        std::fs::write(closed.join("bot.py"), "").unwrap();
        let mode =
            |mode| std::fs::set_permissions(&closed, std::os::unix::fs::PermissionsExt::from_mode(mode)).unwrap();
        mode(0o755);
        let spec = spec("python3 -m bot", &closed);
        assert_eq!(Seen::of(&Sandbox::default(), &spec).work_closed, None);
        mode(0o700);
        let seen = Seen::of(&Sandbox::default(), &spec);
        assert_eq!(seen.work_closed, Some((closed.clone(), 0o700)));
        assert!(seen.read_only.is_empty(), "{seen:?}");
        let said = tail(&["python3: can't open file 'bot.py': [Errno 2] No such file or directory"]);
        let hint = failed_start(&spec, &Sandbox::default(), &said);
        assert!(
            hint.contains(&format!(
                "is not shown in the sandbox, where it is an empty folder: the bot runs as `nobody` (arena runs as \
                 root), and `nobody` may not enter {} (mode 0700)",
                closed.display()
            )),
            "{hint}"
        );
    }

    /// A program is shown in the system's folders and the bot's own.
    #[test]
    fn programs_in_the_system_and_the_bots_folders_are_shown() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bot"), "").unwrap();
        let seen = Seen::of(&Sandbox::default(), &spec("./bot", dir.path()));
        assert!(shown(Path::new("/usr/bin/python3"), &seen));
        assert!(shown(&dir.path().join("bin/bot"), &seen));
        assert!(!shown(Path::new("/root/.pyenv/shims/python3"), &seen));
    }

    /// Without a sign, the hint says what the sandbox takes away; a working
    /// directory of the sandbox's own is said to be so.
    #[test]
    fn without_a_sign_the_hint_names_the_limits() {
        let said = tail(&["OSError: [Errno 101] Network is unreachable"]);
        let sandbox = Sandbox {
            rw_paths: vec![PathBuf::from("/srv/scratch")],
            ..Sandbox::default()
        };
        let hint = failed_start(&spec("python3 bot.py", Path::new("/tmp")), &sandbox, &said);
        assert!(hint.contains("no network, 1024 MiB of memory"), "{hint}");
        assert!(hint.contains("/srv/scratch (writable)"), "{hint}");
        assert!(
            hint.contains("Its working directory, /tmp, is the sandbox's own"),
            "{hint}"
        );
    }
}
