//! A contest's server killed with SIGKILL and started again, for real
//! (issue 38): `arena contest serve` as a child process, killed once in the
//! middle of a build and once in the middle of a ladder game.
//!
//! * Mid-build: no process of the build outlives the server (its sleeper and
//!   an orphan it started in a session of its own, found by a marker on
//!   their command lines in `/proc`), and the server started again says it
//!   queued the submission again, builds it from the start and admits it.
//! * Mid-game: no process of the game's bots outlives the server (the bots
//!   and the orphans each starts), the server started again plays on, and
//!   after a clean stop the league's journal verifies and holds no game twice.
//!
//! In the sandbox, from a private (0700) folder; skipped where the sandbox
//! cannot run, except with `CI=true`.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pahtum_testkit::{wait_for, wait_until};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/bot.py");

/// How long the build's sleeper sleeps: long enough for the kill to come in the middle of the build
/// (its orphan sleeps ten minutes: gone sooner, it was killed).
const BUILD_SLEEP_S: u64 = 10;
/// How often the server or the journal is looked at while waiting.
const POLL: Duration = Duration::from_millis(100);
/// How long the processes of a killed server may take to go.
const GONE_WITHIN: Duration = Duration::from_secs(10);

fn arena(args: &[&str]) -> Output {
    Command::new(ARENA).args(args).output().unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn sandbox_runs() -> bool {
    let output = arena(&["check", "--sandbox", "first-free", "--move-time", "2s"]);
    pahtum_testkit::require("the sandbox", output.status.code() != Some(1), &text(&output))
}

/// A marker no other process has on its command line: the test's, this process's.
fn marker(what: &str) -> String {
    format!("faultmark-{what}-{}", std::process::id())
}

/// The processes whose command line holds `needle`: each pid and its command line.
fn processes_with(needle: &str) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let Ok(bytes) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let line = String::from_utf8_lossy(&bytes).replace('\0', " ");
        if line.contains(needle) {
            found.push((pid, line.trim_end().to_owned()));
        }
    }
    found
}

/// Waits until no process has `needle` on its command line; on the deadline fails, listing them.
#[track_caller]
fn wait_gone(needle: &str, within: Duration, after: &str) {
    let deadline = Instant::now() + within;
    loop {
        let left = processes_with(needle);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{after}, {} processes with {needle:?} on their command line are still there after {within:?}:\n{}",
            left.len(),
            left.iter()
                .map(|(pid, line)| format!("  {pid}: {line}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A contest in `root/cup` with its league's time per move widened (the sandbox starts slowly on a busy
/// machine) and `games_per_pair` games per pair; its folder.
fn contest(root: &Path, games_per_pair: u32) -> PathBuf {
    let contest = root.join("cup");
    let init = arena(&["contest", "init", s(&contest), "--name", "Fault cup"]);
    assert!(init.status.success(), "{}", text(&init));
    let league_toml = contest.join("league/league.toml");
    let rules = std::fs::read_to_string(&league_toml).unwrap();
    let rules = rules
        .replace("move_ms = 1000", "move_ms = 2000")
        .replace("games_per_pair = 8", &format!("games_per_pair = {games_per_pair}"));
    std::fs::write(&league_toml, rules).unwrap();
    contest
}

fn token_of(contest: &Path, name: &str) -> String {
    let invited = arena(&["contest", "invite", s(contest), name, "--token"]);
    assert!(invited.status.success(), "{}", text(&invited));
    String::from_utf8(invited.stdout).unwrap().trim().to_owned()
}

/// A bot folder `root/name`: the fixture bot, `bot.toml` of `toml`, the `extra` files, and a note that makes
/// its files its own.
fn bot_folder(root: &Path, name: &str, toml: &str, extra: &[(&str, &str)]) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(FIXTURE, dir.join("bot.py")).unwrap();
    std::fs::write(dir.join("bot.toml"), toml).unwrap();
    std::fs::write(dir.join("NOTE"), name).unwrap();
    for (file, content) in extra {
        std::fs::write(dir.join(file), content).unwrap();
    }
    dir
}

/// The `.tar.gz` of the files of `folder` (names relative to it), made by the system's `tar`.
fn tar_gz(folder: &Path) -> Vec<u8> {
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

/// A request to the server at `address`, on a connection of its own: the status and the body.
fn request(address: &str, method: &str, path: &str, token: &str, body: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !token.is_empty() {
        head += &format!("Authorization: Bearer {token}\r\n");
    }
    if !body.is_empty() {
        head += "Content-Type: application/gzip\r\n";
    }
    head += "\r\n";
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer.split(' ').nth(1).and_then(|code| code.parse().ok()).unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body).to_owned();
    (status, body)
}

/// The contest's server, with what it wrote to stderr; stopped with SIGINT when dropped.
struct Server {
    child: Option<Child>,
    url: String,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let mut child = Command::new(ARENA)
            .args([
                "contest",
                "serve",
                s(dir),
                "--listen",
                "127.0.0.1:0",
                "--concurrency",
                "1",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let kept = Arc::clone(&stderr);
        let pipe = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                eprintln!("[server] {line}");
                let mut kept = kept.lock().unwrap();
                kept.push_str(&line);
                kept.push('\n');
            }
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

    fn address(&self) -> &str {
        self.url.trim_start_matches("http://")
    }

    fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Kills the server with SIGKILL, and reaps it.
    fn kill(mut self) {
        let mut child = self.child.take().unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
    }

    /// Stops the server with SIGINT, as Ctrl-C does, and waits for its exit.
    fn stop(mut self) {
        let mut child = self.child.take().unwrap();
        interrupt(&mut child);
    }

    /// The state of submission `id`, as its author sees it.
    fn state(&self, id: i64, token: &str) -> String {
        let (status, body) = request(self.address(), "GET", &format!("/api/submissions/{id}"), token, b"");
        assert_eq!(status, 200, "{body}");
        let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
        answer["state"].as_str().unwrap().to_owned()
    }
}

/// Sends SIGINT to `child` and waits (a minute at most) for its exit; SIGKILL after that.
fn interrupt(child: &mut Child) {
    let _ = Command::new("kill").args(["-INT", &child.id().to_string()]).status();
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the server did not stop within a minute of SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            interrupt(&mut child);
        }
    }
}

/// The ids of the game lines of a league's journal, in order (the header and the events left out).
fn game_ids(journal: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(journal).unwrap_or_default();
    let mut ids = Vec::new();
    for line in text.lines().skip(1) {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if value.get("moves").is_none() {
            continue;
        }
        if let Some(id) = value.get("id").and_then(|id| id.as_str()) {
            ids.push(id.to_owned());
        }
    }
    ids
}

/// `probe`, looked at most once every `every` (`wait_for` looks every few milliseconds: too often for a
/// request to the server, or a read of the whole journal).
fn at_most_every<T>(every: Duration, mut probe: impl FnMut() -> Option<T>) -> impl FnMut() -> Option<T> {
    let mut last: Option<Instant> = None;
    move || {
        if last.is_some_and(|last| last.elapsed() < every) {
            return None;
        }
        last = Some(Instant::now());
        probe()
    }
}

fn private_root() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    std::fs::set_permissions(root.path(), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    root
}

#[test]
fn a_server_killed_mid_build_leaves_no_build_process_and_builds_it_again_from_the_start() {
    if !sandbox_runs() {
        return;
    }
    let root = private_root();
    let contest = contest(root.path(), 8);
    let ada = token_of(&contest, "ada");
    let mark = marker("build");
    // The build's sleeper, and an orphan of its own session that would outlive the build's shell.
    let build_sh = format!(
        "echo start\n\
         (python3 -c 'import os, time; os.setsid(); time.sleep(600)' {mark}-orphan </dev/null >/dev/null 2>&1 &)\n\
         python3 -c 'import time; time.sleep({BUILD_SLEEP_S})' {mark}-sleeper\n\
         echo done\n"
    );
    let bot = bot_folder(
        root.path(),
        "slow-build",
        "name = \"slow\"\ncommand = \"python3 bot.py first-free\"\nbuild = \"sh build.sh\"\n",
        &[("build.sh", &build_sh)],
    );
    let upload = tar_gz(&bot);

    let server = Server::start(&contest);
    let (status, body) = request(server.address(), "POST", "/api/submissions", &ada, &upload);
    assert_eq!(status, 201, "{body}");
    let id = serde_json::from_str::<serde_json::Value>(&body).unwrap()["id"]
        .as_i64()
        .unwrap();
    wait_for(
        "the submission is building",
        Duration::from_secs(60),
        at_most_every(POLL, || (server.state(id, &ada) == "building").then_some(())),
    );
    wait_until("the build's sleeper and orphan run", Duration::from_secs(60), || {
        let running = processes_with(&mark);
        running.iter().any(|(_, line)| line.contains("-sleeper"))
            && running.iter().any(|(_, line)| line.contains("-orphan"))
    });
    let seen = processes_with(&mark);
    eprintln!("killing the server {} while these run:\n{seen:#?}", server.pid());
    server.kill();
    // The orphan sleeps ten minutes: gone, it was killed.
    wait_gone(&mark, GONE_WITHIN, "the server was killed mid-build");
    // Nothing of the server is left either: its containment's guard, a bubblewrap.
    wait_gone(s(&contest), GONE_WITHIN, "the server was killed mid-build");

    let server = Server::start(&contest);
    wait_until("the server says it serves", Duration::from_secs(30), || {
        server.stderr().contains("serving the contest")
    });
    assert!(
        server
            .stderr()
            .contains("arena: 1 submissions cut off by the last stop build again"),
        "{}",
        server.stderr()
    );
    let state = wait_for(
        "the submission built again is admitted or refused",
        Duration::from_secs(240),
        at_most_every(POLL, || {
            let state = server.state(id, &ada);
            matches!(state.as_str(), "playing" | "failed" | "retired").then_some(state)
        }),
    );
    let (_, answer) = request(server.address(), "GET", &format!("/api/submissions/{id}"), &ada, b"");
    let (_, build_log) = request(
        server.address(),
        "GET",
        &format!("/api/submissions/{id}/logs/build"),
        &ada,
        b"",
    );
    assert_eq!(state, "playing", "{answer}\nbuild log:\n{build_log}");
    assert!(build_log.contains("start") && build_log.contains("done"), "{build_log}");
    let answer: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(answer["label"], "ada@1", "{answer}");
    // The build that ended normally left nothing either (its orphan included).
    wait_gone(&mark, GONE_WITHIN, "the build built again ended");
    server.stop();
    wait_gone(s(&contest), GONE_WITHIN, "the server was stopped");
    let staging = contest.join("league/.staging");
    let left: Vec<_> = std::fs::read_dir(&staging)
        .map(|entries| entries.flatten().map(|entry| entry.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "the staging folder keeps {left:?}");
    let verified = arena(&["verify", s(&contest.join("league"))]);
    assert!(verified.status.success(), "{}", text(&verified));
}

#[test]
fn a_server_killed_mid_game_leaves_no_bot_process_and_plays_on_without_a_game_twice() {
    if !sandbox_runs() {
        return;
    }
    let root = private_root();
    let contest = contest(root.path(), 16);
    let journal = contest.join("league/journal.jsonl");
    let mark = marker("game");
    // The bot, and an orphan of its own session started beside it, both marked; each answer waits 50 ms,
    // so that a game lasts a few seconds.
    let run_sh = format!(
        "(python3 -c 'import os, time; os.setsid(); time.sleep(600)' {mark}-orphan </dev/null >/dev/null 2>&1 &)\n\
         exec python3 bot.py first-free 50 {mark}-bot\n"
    );
    let server = Server::start(&contest);
    for name in ["ada", "bob"] {
        let token = token_of(&contest, name);
        let bot = bot_folder(
            root.path(),
            &format!("bot-{name}"),
            "name = \"x\"\ncommand = \"sh run.sh\"\n",
            &[("run.sh", &run_sh)],
        );
        let submitted = arena(&["submit", &server.url, s(&bot), "--token", &token]);
        assert_eq!(submitted.status.code(), Some(0), "{}", text(&submitted));
    }
    // Between the checks' games and the ladder's, the processes come and go: wait for a game in progress
    // after one was recorded.
    wait_for(
        "a ladder game is recorded",
        Duration::from_secs(180),
        at_most_every(POLL, || (!game_ids(&journal).is_empty()).then_some(())),
    );
    wait_until("the bots of a ladder game run", Duration::from_secs(120), || {
        let running = processes_with(&mark);
        running.iter().filter(|(_, line)| line.contains("-bot")).count() >= 2
    });
    let before = game_ids(&journal).len();
    eprintln!(
        "killing the server {} after {before} games while these run:\n{:#?}",
        server.pid(),
        processes_with(&mark)
    );
    server.kill();
    wait_gone(&mark, GONE_WITHIN, "the server was killed mid-game");
    wait_gone(s(&contest), GONE_WITHIN, "the server was killed mid-game");
    let at_kill = game_ids(&journal).len();
    assert!(at_kill >= before, "{at_kill} < {before}");

    let server = Server::start(&contest);
    wait_for(
        "two more games are recorded",
        Duration::from_secs(240),
        at_most_every(POLL, || (game_ids(&journal).len() >= at_kill + 2).then_some(())),
    );
    server.stop();
    wait_gone(&mark, GONE_WITHIN, "the server was stopped");
    wait_gone(s(&contest), GONE_WITHIN, "the server was stopped");
    let verified = arena(&["verify", s(&contest.join("league"))]);
    assert!(verified.status.success(), "{}", text(&verified));
    let ids = game_ids(&journal);
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "a game recorded twice: {ids:?}");
}
