//! What the contest's tests (and the league's sandbox tests) share: `arena`
//! run as a command, a private folder, bot folders made from the fixture bot
//! and their `.tar.gz`, a new contest and its authors' tokens, a real
//! `arena contest serve` as a child process, and plain HTTP requests to it
//! (written by hand on a socket, so that every header is the test's own).

// Each test file that contests uses a part of these.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The `arena` binary under test.
pub const ARENA: &str = env!("CARGO_BIN_EXE_arena");
/// The Python bot of the fixtures.
pub const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/bot.py");

/// `arena ARGS`, run to its end: its status and all it printed.
pub fn arena(args: &[&str]) -> Output {
    Command::new(ARENA).args(args).output().unwrap()
}

/// An output's status, stdout and stderr, for an assertion's message.
pub fn text(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `path` as text (the tests' paths are UTF-8).
pub fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Whether the sandbox runs here; `false` (printed) where it cannot, and a
/// failure in CI.
pub fn sandbox_runs() -> bool {
    let output = arena(&["check", "--sandbox", "first-free", "--move-time", "2s"]);
    pahtum_testkit::require("the sandbox", output.status.code() != Some(1), &text(&output))
}

/// A private temporary folder (0700), as `mktemp -d` makes it.
pub fn private_folder() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    std::fs::set_permissions(root.path(), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    root
}

/// A bot folder `root/name` with the fixture bot and a bot.toml of `toml`,
/// nothing else.
pub fn bare_bot_folder(root: &Path, name: &str, toml: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(FIXTURE, dir.join("bot.py")).unwrap();
    std::fs::write(dir.join("bot.toml"), toml).unwrap();
    dir
}

/// A bot folder `root/name`: the fixture bot, a bot.toml of `toml`, a note
/// (`NOTE`, the name) that makes its files (and its upload's hash) its own,
/// and the `extra` files, each a name and its text.
pub fn bot_folder(root: &Path, name: &str, toml: &str, extra: &[(&str, &str)]) -> PathBuf {
    let dir = bare_bot_folder(root, name, toml);
    std::fs::write(dir.join("NOTE"), name).unwrap();
    for (file, content) in extra {
        std::fs::write(dir.join(file), content).unwrap();
    }
    dir
}

/// The `.tar.gz` of the files of `folder` (names relative to it, sorted),
/// made by the system's `tar` beside the folder.
pub fn tar_gz(folder: &Path) -> Vec<u8> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let archive = folder.with_extension("tar.gz");
    let made = Command::new("tar")
        .arg("czf")
        .arg(&archive)
        .arg("-C")
        .arg(folder)
        .args(&names)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", text(&made));
    std::fs::read(archive).unwrap()
}

/// A contest made by `arena contest init root/cup --name NAME`, its
/// league's time per move widened to 2 s (the sandbox starts slowly on a
/// busy machine): its folder, and what `init` printed.
pub fn new_contest(root: &Path, name: &str) -> (PathBuf, Output) {
    let contest = root.join("cup");
    let init = arena(&["contest", "init", s(&contest), "--name", name]);
    assert!(init.status.success(), "{}", text(&init));
    let league_toml = contest.join("league/league.toml");
    let rules = std::fs::read_to_string(&league_toml).unwrap();
    std::fs::write(&league_toml, rules.replace("move_ms = 1000", "move_ms = 2000")).unwrap();
    (contest, init)
}

/// The token of a new author `name` of `contest`, by `arena contest invite
/// --token`.
pub fn invite_token(contest: &Path, name: &str) -> String {
    let invited = arena(&["contest", "invite", s(contest), name, "--token"]);
    assert!(invited.status.success(), "{}", text(&invited));
    String::from_utf8(invited.stdout).unwrap().trim().to_owned()
}

/// A running `arena contest serve DIR --listen 127.0.0.1:0`, stopped with
/// SIGINT (as Ctrl-C does) when dropped: a minute at most, then SIGKILL.
pub struct Server {
    child: Option<Child>,
    /// The address it printed, `http://host:port`.
    pub url: String,
    /// What it wrote to stderr, where it was started to keep it.
    stderr: Option<Arc<Mutex<String>>>,
}

impl Server {
    /// `arena contest serve DIR --listen 127.0.0.1:0` with the `extra`
    /// arguments (as `--concurrency 1`), once it printed its address; its
    /// stderr is the test's.
    pub fn start(dir: &Path, extra: &[&str]) -> Server {
        Server::spawn(dir, extra, false, &[])
    }

    /// As [`Server::start`], with the variables `env` added to its
    /// environment (a cluster's `SLURM_CONF`, say).
    pub fn start_with_env(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Server {
        Server::spawn(dir, extra, false, env)
    }

    /// As [`Server::start`], its stderr echoed line by line (`[server] ...`)
    /// and kept, for [`Server::stderr`].
    pub fn start_keeping_stderr(dir: &Path, extra: &[&str]) -> Server {
        Server::spawn(dir, extra, true, &[])
    }

    fn spawn(dir: &Path, extra: &[&str], keep_stderr: bool, env: &[(&str, &str)]) -> Server {
        let mut child = Command::new(ARENA)
            .args(["contest", "serve", s(dir), "--listen", "127.0.0.1:0"])
            .args(extra)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(if keep_stderr { Stdio::piped() } else { Stdio::inherit() })
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().map(|pipe| {
            let stderr = Arc::new(Mutex::new(String::new()));
            let kept = Arc::clone(&stderr);
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    eprintln!("[server] {line}");
                    let mut kept = kept.lock().unwrap();
                    kept.push_str(&line);
                    kept.push('\n');
                }
            });
            stderr
        });
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        assert!(line.starts_with("http://"), "the server said {line:?}");
        Server {
            child: Some(child),
            url: line.trim().to_owned(),
            stderr,
        }
    }

    /// `host:port`.
    pub fn address(&self) -> &str {
        self.url.trim_start_matches("http://")
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    /// What the server wrote to stderr so far (started by
    /// [`Server::start_keeping_stderr`]).
    pub fn stderr(&self) -> String {
        let kept = self.stderr.as_ref().expect("a server started to keep its stderr");
        kept.lock().unwrap().clone()
    }

    /// Kills the server with SIGKILL, and reaps it.
    pub fn kill(mut self) {
        let mut child = self.child.take().unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
    }

    /// Stops the server with SIGINT, as Ctrl-C does, and waits for its exit;
    /// fails if it takes more than a minute.
    pub fn stop(mut self) {
        let mut child = self.child.take().unwrap();
        assert!(
            interrupt(&mut child),
            "the server did not stop within a minute of SIGINT"
        );
    }
}

/// Sends SIGINT to `child` and waits (a minute at most) for its exit;
/// SIGKILL after that. Whether it stopped in time.
fn interrupt(child: &mut Child) -> bool {
    let _ = Command::new("kill").args(["-INT", &child.id().to_string()]).status();
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().ok().flatten().is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            interrupt(&mut child);
        }
    }
}

/// The header line that gives `token` (`Authorization: Bearer TOKEN`).
pub fn bearer(token: &str) -> String {
    format!("Authorization: Bearer {token}")
}

/// A request of `method` for `path` to the server at `address`, on a
/// connection of its own, with the `headers` (whole lines, as
/// `Cookie: ...`) and `body`, its answer read for `within` at most: the
/// status and the whole answer (its head and its body).
pub fn request(
    address: &str,
    method: &str,
    path: &str,
    headers: &[&str],
    body: &[u8],
    within: Duration,
) -> (u16, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(within)).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for header in headers {
        head += &format!("{header}\r\n");
    }
    head += "\r\n";
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer.split(' ').nth(1).and_then(|code| code.parse().ok()).unwrap_or(0);
    (status, answer)
}

/// A request to the contest's API at `address` with `token` (none if
/// empty) and `body` (an upload, `application/gzip`, if not empty), its
/// answer read for a minute at most: the status and the body.
pub fn api(address: &str, method: &str, path: &str, token: &str, body: &[u8]) -> (u16, String) {
    let mut headers = Vec::new();
    let authorization = bearer(token);
    if !token.is_empty() {
        headers.push(authorization.as_str());
    }
    if !body.is_empty() {
        headers.push("Content-Type: application/gzip");
    }
    let (status, answer) = request(address, method, path, &headers, body, Duration::from_secs(60));
    (status, body_of(&answer))
}

/// The body of an HTTP/1.1 answer: as sent, or joined from its chunks
/// (`SIZE\r\nDATA\r\n`... `0\r\n`); empty where the answer has no body.
pub fn body_of(answer: &str) -> String {
    let Some((head, body)) = answer.split_once("\r\n\r\n") else {
        return String::new();
    };
    if !head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        return body.to_owned();
    }
    let mut rest = body;
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.push_str(&after[..size]);
        rest = &after[size + 2..];
    }
    out
}

/// The session cookie an answer sets (`name=value`).
pub fn session_set_by(answer: &str) -> String {
    let line = answer
        .lines()
        .find(|line| line.to_ascii_lowercase().starts_with("set-cookie:"))
        .unwrap_or_else(|| panic!("no cookie set: {answer}"));
    line.split_once(':')
        .unwrap()
        .1
        .trim()
        .split(';')
        .next()
        .unwrap()
        .to_owned()
}

/// `probe`, looked at most once every `every` (`wait_for` looks every few milliseconds: too often for a
/// request to the server, or a read of the whole journal).
pub fn at_most_every<T>(every: Duration, mut probe: impl FnMut() -> Option<T>) -> impl FnMut() -> Option<T> {
    let mut last: Option<Instant> = None;
    move || {
        if last.is_some_and(|last| last.elapsed() < every) {
            return None;
        }
        last = Some(Instant::now());
        probe()
    }
}
