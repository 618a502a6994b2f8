//! Promotion by SPRT for real: `arena contest serve` as a child process, and
//! versions submitted "only if not weaker" (`arena submit --if-not-weaker`,
//! `POST /api/submissions?if_not_weaker=true`). Ada's first version is the
//! built-in heuristic; her second, the engine at level 1 (which wins about
//! 7.5 games of 8 against it), is tested in unrated games and promoted: it
//! plays, the first retires. Her third, first-free (which loses every game;
//! the fixture bot's, slowed down),
//! is tested, and the server is killed in the middle of its test: started
//! again, the test plays on from its journal, no game twice, and finds it
//! weaker: it stays retired and the second plays on. A fourth, first-free
//! again through `arena submit`, exits 4, not promoted. The tests never enter
//! the league's journal, and bob's token sees none of them.
//!
//! `contest.toml`'s `[promotion]` has wide bounds (-50 and 50 Elo), so that a
//! test decides after its first 10 layout pairs. In the sandbox, from a
//! private (0700) folder; skipped where the sandbox cannot run, except with
//! `CI=true`.

mod contesting;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use contesting::{
    Server, api, arena, at_most_every, bot_folder, invite_token, new_contest, private_folder, s, sandbox_runs, tar_gz,
    text,
};
use pahtum_testkit::wait_for;

/// How long a build and check in the sandbox, or a test's games, may take.
const SLOW: Duration = Duration::from_secs(300);

/// A contest whose tests decide fast (bounds of -50 and 50 Elo, at most 60 games), whose ladder plays each
/// pair of entrants once (one layout pair): its folder.
fn contest(root: &Path) -> PathBuf {
    let (contest, _) = new_contest(root, "Promotion cup");
    let settings = contest.join("contest.toml");
    let mut text_of_settings = std::fs::read_to_string(&settings).unwrap();
    text_of_settings += "[promotion]\nelo0 = -50.0\nelo1 = 50.0\nmax_games = 60\n";
    std::fs::write(&settings, text_of_settings).unwrap();
    let league_toml = contest.join("league/league.toml");
    let rules = std::fs::read_to_string(&league_toml).unwrap();
    std::fs::write(&league_toml, rules.replace("games_per_pair = 8", "games_per_pair = 2")).unwrap();
    contest
}

/// A bot folder `root/name` that runs `command`, a built-in bot or the fixture bot (its note makes its upload
/// its own).
fn bot(root: &Path, name: &str, command: &str) -> PathBuf {
    bot_folder(root, name, &format!("name = \"x\"\ncommand = \"{command}\"\n"), &[])
}

/// `GET path` with `token`: the status, and the body as JSON (`null` where it is not).
fn get(server: &Server, path: &str, token: &str) -> (u16, serde_json::Value) {
    let (status, body) = api(server.address(), "GET", path, token, b"");
    (status, serde_json::from_str(&body).unwrap_or(serde_json::Value::Null))
}

/// The number of the submission that `arena submit` made, from what it printed.
fn submitted_id(output: &std::process::Output) -> i64 {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .find_map(|line| line.strip_prefix("arena: submission ")?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no submission number in {}", text(output)))
}

/// The ids of the games of a journal, in order.
fn game_ids(journal: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(journal).unwrap_or_default();
    text.lines()
        .skip(1)
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|value| value.get("moves").is_some())
        .filter_map(|value| Some(value["id"].as_str()?.to_owned()))
        .collect()
}

/// The players of each game of the league's journal, sorted.
fn league_pairs(contest: &Path) -> Vec<[String; 2]> {
    let text = std::fs::read_to_string(contest.join("league/journal.jsonl")).unwrap_or_default();
    text.lines()
        .skip(1)
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|value| value.get("moves").is_some())
        .map(|game| {
            let mut two = ["white", "black"].map(|seat| game[seat].as_str().unwrap_or_default().to_owned());
            two.sort();
            two
        })
        .collect()
}

#[test]
fn a_version_not_weaker_is_promoted_and_a_weaker_one_is_not_even_across_a_kill() {
    if !sandbox_runs() {
        return;
    }
    let started = Instant::now();
    let root = private_folder();
    let contest = contest(root.path());
    let (ada, bob) = (invite_token(&contest, "ada"), invite_token(&contest, "bob"));
    let server = Server::start_keeping_stderr(&contest, &["--concurrency", "1"]);
    let submit = |server: &Server, folder: &Path, token: &str, on_condition: bool| {
        let mut args = vec!["submit", &server.url, s(folder), "--token", token];
        if on_condition {
            args.push("--if-not-weaker");
        }
        arena(&args)
    };

    // Ada's first version, submitted on condition with none of hers playing: it plays without a test.
    let first = submit(&server, &bot(root.path(), "v1", "heuristic"), &ada, true);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    assert!(
        String::from_utf8_lossy(&first.stdout).contains("ada@1 was admitted and plays in the contest: no version"),
        "{}",
        text(&first)
    );
    let v1 = submitted_id(&first);
    let (status, answer) = get(&server, &format!("/api/submissions/{v1}/promotion"), &ada);
    assert_eq!(status, 404, "no test: {answer}");
    let other = submit(&server, &bot(root.path(), "bob", "first-free"), &bob, false);
    assert_eq!(other.status.code(), Some(0), "{}", text(&other));

    // Her second, the engine: tested, not weaker, promoted.
    let second = submit(&server, &bot(root.path(), "v2", "engine --level 1"), &ada, true);
    assert_eq!(second.status.code(), Some(0), "{}", text(&second));
    assert!(
        String::from_utf8_lossy(&second.stdout).contains("ada@2 was promoted and plays in the contest."),
        "{}",
        text(&second)
    );
    assert!(
        String::from_utf8_lossy(&second.stderr).contains("ada@2 against ada@1: testing, "),
        "its test is followed: {}",
        text(&second)
    );
    let v2 = submitted_id(&second);
    let (status, test) = get(&server, &format!("/api/submissions/{v2}/promotion"), &ada);
    assert_eq!(status, 200, "{test}");
    assert_eq!(
        (&test["state"], &test["decided"], &test["opponent"]),
        (&"promoted".into(), &"accept_h1".into(), &"ada@1".into()),
        "{test}"
    );
    let games = test["games"].as_u64().unwrap();
    assert!((20..=60).contains(&games) && games % 2 == 0, "{test}");
    assert_eq!(test["history"].as_array().unwrap().len() as u64, games / 2, "{test}");
    assert!(
        test["llr"].as_f64().unwrap() >= test["upper"].as_f64().unwrap(),
        "{test}"
    );
    let wins = test["wins"].as_u64().unwrap();
    assert!(wins > games / 2, "{test}");
    assert!(
        test["note"]
            .as_str()
            .unwrap()
            .starts_with("promoted: not weaker than ada@1"),
        "{test}"
    );
    for (id, state) in [(v1, "retired"), (v2, "playing")] {
        let (_, submission) = get(&server, &format!("/api/submissions/{id}"), &ada);
        assert_eq!(submission["state"], state, "{submission}");
    }
    let (status, answer) = get(&server, &format!("/api/submissions/{v2}/promotion"), &bob);
    assert_eq!(status, 403, "ada's test is hers: {answer}");
    let (status, page) = api(server.address(), "GET", &format!("/submissions/{v2}"), &ada, b"");
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("id=\"llr\"") && page.contains("Its test against ada@1"),
        "{page}"
    );

    // Her third, first-free, through the API: killed in the middle of its test, which plays on when the server
    // is started again and finds it weaker.
    // It answers after 50 ms, so that its test lasts long enough to be killed in the middle.
    let weak = tar_gz(&bot(root.path(), "v3", "python3 bot.py first-free 50"));
    let (status, body) = api(
        server.address(),
        "POST",
        "/api/submissions?if_not_weaker=true",
        &ada,
        &weak,
    );
    assert_eq!(status, 201, "{body}");
    let v3 = serde_json::from_str::<serde_json::Value>(&body).unwrap()["id"]
        .as_i64()
        .unwrap();
    let test_journal = wait_for(
        "a game of the third version's test",
        SLOW,
        at_most_every(Duration::from_millis(50), || {
            let folders = std::fs::read_dir(contest.join("promotions")).ok()?;
            let journals = folders.flatten().map(|folder| folder.path().join("journal.jsonl"));
            journals
                .filter(|journal| !game_ids(journal).is_empty())
                .find(|journal| std::fs::read_to_string(journal).unwrap_or_default().contains("ada@3"))
        }),
    );
    let (status, answer) = api(
        server.address(),
        "POST",
        &format!("/api/submissions/{v3}/activate"),
        &ada,
        b"",
    );
    assert_eq!(status, 400, "it waits for its test: {answer}");
    assert!(answer.contains("waits for its test"), "{answer}");
    let at_kill = game_ids(&test_journal).len();
    assert!(at_kill < 20, "killed before it could decide: {at_kill} games");
    server.kill();
    let server = Server::start_keeping_stderr(&contest, &["--concurrency", "1"]);
    let test = wait_for(
        "the third version's test done",
        SLOW,
        at_most_every(Duration::from_millis(500), || {
            let (_, test) = get(&server, &format!("/api/submissions/{v3}/promotion"), &ada);
            let state = test["state"].as_str()?.to_owned();
            (!["queued", "testing"].contains(&state.as_str())).then_some(test)
        }),
    );
    assert_eq!(
        (&test["state"], &test["decided"], &test["opponent"]),
        (&"not_promoted".into(), &"accept_h0".into(), &"ada@2".into()),
        "{test}"
    );
    assert!(
        test["note"]
            .as_str()
            .unwrap()
            .starts_with("not promoted: weaker than ada@2"),
        "{test}"
    );
    let ids = game_ids(&test_journal);
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "a game of the test twice: {ids:?}");
    assert_eq!(ids.len() as u64, test["games"].as_u64().unwrap(), "{test}");
    assert!(ids.len() > at_kill, "it played on after the kill: {ids:?}");
    let verified = arena(&["verify", s(&test_journal)]);
    assert!(verified.status.success(), "{}", text(&verified));
    for (id, state) in [(v2, "playing"), (v3, "retired")] {
        let (_, submission) = get(&server, &format!("/api/submissions/{id}"), &ada);
        assert_eq!(submission["state"], state, "{submission}");
    }

    // A fourth, first-free again through `arena submit`: not promoted, exit 4.
    let fourth = submit(&server, &bot(root.path(), "v4", "first-free"), &ada, true);
    assert_eq!(fourth.status.code(), Some(4), "{}", text(&fourth));
    assert!(
        String::from_utf8_lossy(&fourth.stderr).contains("ada@4 was admitted but not promoted: not promoted: weaker"),
        "{}",
        text(&fourth)
    );
    server.stop();

    // The tests never entered the league's journal: ada@1 and ada@2 never met there, ada@4 never played there.
    let pairs = league_pairs(&contest);
    assert!(!pairs.is_empty());
    for pair in &pairs {
        assert!(pair[0].starts_with("ada@") != pair[1].starts_with("ada@"), "{pairs:?}");
        assert!(!pair.contains(&"ada@4".to_owned()), "{pairs:?}");
    }
    let verified = arena(&["verify", s(&contest.join("league"))]);
    assert!(verified.status.success(), "{}", text(&verified));
    eprintln!("the promotions took {:?}", started.elapsed());
}
