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
//! * Mid-challenge: its bots do not outlive the server, and the server
//!   started again plays the challenge on from its journal to its end.
//!
//! In the sandbox, from a private (0700) folder; skipped where the sandbox
//! cannot run, except with `CI=true`.

mod contesting;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use contesting::{
    Server, api, arena, at_most_every, bot_folder, invite_token, new_contest, private_folder, s, sandbox_runs, tar_gz,
    text,
};
use pahtum_testkit::{wait_for, wait_until};

/// How long the build's sleeper sleeps: long enough for the kill to come in the middle of the build
/// (its orphan sleeps ten minutes: gone sooner, it was killed).
const BUILD_SLEEP_S: u64 = 10;
/// How often the server or the journal is looked at while waiting.
const POLL: Duration = Duration::from_millis(100);
/// How long the processes of a killed server may take to go.
const GONE_WITHIN: Duration = Duration::from_secs(10);

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
    let (contest, _) = new_contest(root, "Fault cup");
    let league_toml = contest.join("league/league.toml");
    let rules = std::fs::read_to_string(&league_toml).unwrap();
    let rules = rules.replace("games_per_pair = 8", &format!("games_per_pair = {games_per_pair}"));
    std::fs::write(&league_toml, rules).unwrap();
    contest
}

/// The server of `contest`, one game at a time, keeping what it writes to stderr.
fn serve(contest: &Path) -> Server {
    Server::start_keeping_stderr(contest, &["--concurrency", "1"])
}

/// The state of submission `id`, as its author (of `token`) sees it.
fn state(server: &Server, id: i64, token: &str) -> String {
    let (status, body) = api(server.address(), "GET", &format!("/api/submissions/{id}"), token, b"");
    assert_eq!(status, 200, "{body}");
    let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
    answer["state"].as_str().unwrap().to_owned()
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

#[test]
fn a_server_killed_mid_build_leaves_no_build_process_and_builds_it_again_from_the_start() {
    if !sandbox_runs() {
        return;
    }
    let root = private_folder();
    let contest = contest(root.path(), 8);
    let ada = invite_token(&contest, "ada");
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

    let server = serve(&contest);
    let (status, body) = api(server.address(), "POST", "/api/submissions", &ada, &upload);
    assert_eq!(status, 201, "{body}");
    let id = serde_json::from_str::<serde_json::Value>(&body).unwrap()["id"]
        .as_i64()
        .unwrap();
    wait_for(
        "the submission is building",
        Duration::from_secs(60),
        at_most_every(POLL, || (state(&server, id, &ada) == "building").then_some(())),
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

    let server = serve(&contest);
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
            let state = state(&server, id, &ada);
            matches!(state.as_str(), "playing" | "failed" | "retired").then_some(state)
        }),
    );
    let (_, answer) = api(server.address(), "GET", &format!("/api/submissions/{id}"), &ada, b"");
    let (_, build_log) = api(
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
    let root = private_folder();
    let contest = contest(root.path(), 16);
    let journal = contest.join("league/journal.jsonl");
    let mark = marker("game");
    // The bot, and an orphan of its own session started beside it, both marked; each answer waits 50 ms,
    // so that a game lasts a few seconds.
    let run_sh = format!(
        "(python3 -c 'import os, time; os.setsid(); time.sleep(600)' {mark}-orphan </dev/null >/dev/null 2>&1 &)\n\
         exec python3 bot.py first-free 50 {mark}-bot\n"
    );
    let server = serve(&contest);
    for name in ["ada", "bob"] {
        let token = invite_token(&contest, name);
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

    let server = serve(&contest);
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

/// Killed in the middle of a challenge: its bots do not outlive the server, the challenge is queued again
/// at the next start and played to its end from its journal, no game twice, and the journal verifies.
#[test]
fn a_server_killed_mid_challenge_plays_the_challenge_on_from_its_journal() {
    if !sandbox_runs() {
        return;
    }
    let root = private_folder();
    // One layout pair per pair of entrants: the ladder is done after two games, and the challenge plays alone.
    let contest = contest(root.path(), 2);
    let journal = contest.join("league/journal.jsonl");
    let mark = marker("challenge");
    let server = serve(&contest);
    let mut tokens = Vec::new();
    for name in ["ada", "bob"] {
        let token = invite_token(&contest, name);
        // Each answer waits 50 ms, so that a game lasts a few seconds.
        let bot = bot_folder(
            root.path(),
            &format!("bot-{name}"),
            &format!("name = \"x\"\ncommand = \"python3 bot.py first-free 50 {mark}-bot\"\n"),
            &[],
        );
        let submitted = arena(&["submit", &server.url, s(&bot), "--token", &token]);
        assert_eq!(submitted.status.code(), Some(0), "{}", text(&submitted));
        tokens.push(token);
    }
    wait_for(
        "the ladder's two games",
        Duration::from_secs(180),
        at_most_every(POLL, || (game_ids(&journal).len() == 2).then_some(())),
    );
    wait_gone(&mark, Duration::from_secs(60), "the ladder was done");
    let ask = [
        contesting::bearer(&tokens[0]),
        "Content-Type: application/json".to_owned(),
    ];
    let ask = ask.each_ref().map(String::as_str);
    let body = br#"{"opponent": "bob@1", "pairs": 2}"#;
    let (status, answer) = contesting::request(
        server.address(),
        "POST",
        "/api/challenges",
        &ask,
        body,
        Duration::from_secs(30),
    );
    assert_eq!(status, 202, "{answer}");
    let challenge_journal = contest.join("challenges/1/journal.jsonl");
    wait_for(
        "a game of the challenge is recorded, and the next one plays",
        Duration::from_secs(180),
        at_most_every(POLL, || {
            let recorded = game_ids(&challenge_journal).len();
            let playing = processes_with(&mark).len() >= 2;
            ((1..4).contains(&recorded) && playing).then_some(())
        }),
    );
    let at_kill = game_ids(&challenge_journal).len();
    server.kill();
    wait_gone(&mark, GONE_WITHIN, "the server was killed mid-challenge");
    wait_gone(s(&contest), GONE_WITHIN, "the server was killed mid-challenge");

    let server = serve(&contest);
    let done = wait_for(
        "the challenge done",
        Duration::from_secs(240),
        at_most_every(Duration::from_millis(500), || {
            let (_, listed) = api(server.address(), "GET", "/api/challenges", &tokens[0], b"");
            let listed: Vec<serde_json::Value> = serde_json::from_str(&listed).ok()?;
            let job = listed.into_iter().next()?;
            (job["state"] == "done" || job["state"] == "failed").then_some(job)
        }),
    );
    server.stop();
    wait_gone(&mark, GONE_WITHIN, "the server was stopped");
    assert_eq!(done["state"], "done", "{done}");
    let outcome = &done["outcome"];
    let games: u64 = ["wins", "draws", "losses"]
        .iter()
        .map(|key| outcome[key].as_u64().unwrap())
        .sum();
    assert_eq!(games, 4, "{done}");
    let ids = game_ids(&challenge_journal);
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(
        (ids.len(), unique.len()),
        (4, 4),
        "played on, no game twice: {ids:?} ({at_kill} at the kill)"
    );
    let verified = arena(&["verify", s(&challenge_journal)]);
    assert!(verified.status.success(), "{}", text(&verified));
    assert_eq!(
        game_ids(&journal).len(),
        2,
        "the league's journal never saw the challenge"
    );
}
