//! A contest hosted for real: `arena contest init`, `invite --token` and
//! `serve` as a child process, and `arena submit` end to end for a good
//! bot, a failing build and a failing check, each with its exit code; the
//! two admitted bots then play on the ladder by themselves; and one author's
//! token reaches none of another's submissions, logs or tokens. In the
//! sandbox, from a private (0700) folder; skipped where the sandbox cannot
//! run, except with `CI=true`.

mod contesting;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use contesting::{
    Server, arena, bearer, body_of, bot_folder, invite_token, new_contest, private_folder, request, s, sandbox_runs,
    session_set_by, text,
};

/// How long a request waits for its answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);

/// `GET path` with `token`: the status and the answer.
fn get(server: &Server, path: &str, token: &str) -> (u16, String) {
    request(server.address(), "GET", path, &[&bearer(token)], b"", ANSWER_WITHIN)
}

/// `POST path` with `token` and no body: the status and the answer.
fn post(server: &Server, path: &str, token: &str) -> (u16, String) {
    request(server.address(), "POST", path, &[&bearer(token)], b"", ANSWER_WITHIN)
}

/// `POST path` with `token` and the JSON `body`: the status and the answer.
fn post_json(server: &Server, path: &str, token: &str, body: &str) -> (u16, String) {
    let headers = [bearer(token), "Content-Type: application/json".to_owned()];
    let headers = headers.each_ref().map(String::as_str);
    request(server.address(), "POST", path, &headers, body.as_bytes(), ANSWER_WITHIN)
}

/// The number of the submission of `token`'s author whose entrant is `label`.
fn submission_with_label(server: &Server, token: &str, label: &str) -> u64 {
    let (_, listed) = get(server, "/api/submissions", token);
    let submissions: Vec<serde_json::Value> = serde_json::from_str(&body_of(&listed)).unwrap();
    submissions
        .iter()
        .find(|submission| submission["label"] == label)
        .and_then(|submission| submission["id"].as_u64())
        .unwrap_or_else(|| panic!("no submission {label}: {listed}"))
}

fn submit(server: &Server, folder: &Path, token: &str) -> Output {
    arena(&["submit", &server.url, s(folder), "--token", token])
}

#[test]
fn authors_submit_bots_that_build_check_and_play_and_see_only_their_own() {
    if !sandbox_runs() {
        return;
    }
    let root = private_folder();
    let (contest, init) = new_contest(root.path(), "Test cup");
    assert!(
        String::from_utf8_lossy(&init.stdout).contains("/invitation/"),
        "{}",
        text(&init)
    );
    let (ada, bob) = (invite_token(&contest, "ada"), invite_token(&contest, "bob"));
    // One lost game per request to analyse: a few seconds of the test's (debug) build.
    let settings = contest.join("contest.toml");
    let mut text_of_settings = std::fs::read_to_string(&settings).unwrap();
    text_of_settings += "[limits]\nanalysis_games = 1\n";
    std::fs::write(&settings, text_of_settings).unwrap();
    let server = Server::start(&contest, &["--concurrency", "1"]);

    let broken_build = bot_folder(
        root.path(),
        "broken",
        "name = \"x\"\ncommand = \"python3 bot.py first-free\"\nbuild = \"sh build.sh\"\n",
        &[(
            "build.sh",
            "printf 'compiling-ada <script>window.pwned=1</script> \\033[2J\\n'; exit 3\n",
        )],
    );
    let failed = submit(&server, &broken_build, &ada);
    assert_eq!(failed.status.code(), Some(3), "{}", text(&failed));
    // What the build printed is a stranger's: escaped on the terminal and on the page.
    assert!(!failed.stdout.contains(&0x1b), "{}", text(&failed));
    assert!(
        String::from_utf8_lossy(&failed.stdout).contains("[2J"),
        "{}",
        text(&failed)
    );
    let (status, page) = get(&server, "/submissions/1", &ada);
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("&lt;script&gt;window.pwned=1&lt;&#x2f;script&gt;"),
        "{page}"
    );
    assert!(
        !page.contains("<script>window.pwned") && !page.contains('\u{1b}'),
        "{page}"
    );
    assert!(
        String::from_utf8_lossy(&failed.stdout).contains("[build] compiling-ada"),
        "{}",
        text(&failed)
    );
    assert!(
        String::from_utf8_lossy(&failed.stderr).contains("build failed"),
        "{}",
        text(&failed)
    );

    let illegal = bot_folder(
        root.path(),
        "illegal",
        "name = \"x\"\ncommand = \"python3 bot.py illegal\"\n",
        &[],
    );
    let refused = submit(&server, &illegal, &ada);
    assert_eq!(refused.status.code(), Some(3), "{}", text(&refused));
    assert!(
        String::from_utf8_lossy(&refused.stdout).contains("[check]"),
        "{}",
        text(&refused)
    );

    // A link in the upload, and a command that names a host path: each refused, with its reason.
    let linked = bot_folder(
        root.path(),
        "linked",
        "name = \"x\"\ncommand = \"python3 bot.py first-free\"\n",
        &[],
    );
    std::os::unix::fs::symlink("/etc/shadow", linked.join("shadow")).unwrap();
    let archive = root.path().join("linked.tar.gz");
    let packed = Command::new("tar")
        .args(["czf", s(&archive), "-C", s(&linked), "."])
        .status()
        .unwrap();
    assert!(packed.success());
    let refused = submit(&server, &archive, &ada);
    assert_eq!(refused.status.code(), Some(3), "{}", text(&refused));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("shadow"),
        "{}",
        text(&refused)
    );
    let host_path = bot_folder(
        root.path(),
        "host",
        "name = \"x\"\ncommand = \"python3 /root/bot.py\"\n",
        &[],
    );
    let refused = submit(&server, &host_path, &ada);
    assert_eq!(refused.status.code(), Some(3), "{}", text(&refused));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("/root/bot.py"),
        "{}",
        text(&refused)
    );

    let good = bot_folder(
        root.path(),
        "good",
        "name = \"x\"\ncommand = \"python3 bot.py first-free\"\nbuild = \"echo built\"\n",
        &[],
    );
    let admitted = submit(&server, &good, &ada);
    assert_eq!(admitted.status.code(), Some(0), "{}", text(&admitted));
    assert!(
        String::from_utf8_lossy(&admitted.stdout).contains("ada@1 was admitted"),
        "{}",
        text(&admitted)
    );
    let other = bot_folder(
        root.path(),
        "other",
        "name = \"y\"\ncommand = \"python3 bot.py first-free\"\n",
        &[],
    );
    let admitted = submit(&server, &other, &bob);
    assert_eq!(admitted.status.code(), Some(0), "{}", text(&admitted));

    // The ladder plays the two by itself.
    let journal = contest.join("league/journal.jsonl");
    pahtum_testkit::wait_until("a ladder game", Duration::from_secs(120), || {
        std::fs::read_to_string(&journal).is_ok_and(|text| text.contains("\"moves\""))
    });
    let (status, ladder) = get(&server, "/api/ladder", "");
    assert_eq!(status, 200, "{ladder}");
    assert!(ladder.contains("ada@1") && ladder.contains("bob@1"), "{ladder}");

    // Ada's first submission, its log and its page are hers; bob's token finds nothing there.
    let (status, own) = get(&server, "/api/submissions/1", &ada);
    assert_eq!(status, 200, "{own}");
    for path in ["/api/submissions/1", "/api/submissions/1/logs/build", "/submissions/1"] {
        let (status, answer) = get(&server, path, &bob);
        assert_eq!(status, 403, "{path}: {answer}");
        assert!(!answer.contains("compiling-ada"), "{path}: {answer}");
    }
    let (status, _) = get(&server, "/api/submissions/999", &bob);
    assert_eq!(status, 404);
    let (_, listed) = get(&server, "/api/submissions", &bob);
    assert!(!listed.contains("\"label\":\"ada@"), "{listed}");
    let (_, tokens) = get(&server, "/api/tokens", &bob);
    assert_eq!(
        tokens.matches("\"id\"").count(),
        1,
        "bob sees his own token only: {tokens}"
    );
    let (status, _) = get(&server, "/api/me", "not-a-token");
    assert_eq!(status, 401);
    // The organiser's view and voids are the organiser's alone.
    let (status, answer) = get(&server, "/api/organiser", &bob);
    assert_eq!(status, 403, "{answer}");
    let (status, answer) = post_json(&server, "/api/games/000-001-00-a/void", &bob, r#"{"why": "mine"}"#);
    assert_eq!(status, 403, "{answer}");
    let (status, answer) = request(
        server.address(),
        "POST",
        "/organiser/games/000-001-00-a/void",
        &[&bearer(&bob), "Content-Type: application/x-www-form-urlencoded"],
        b"why=mine",
        ANSWER_WITHIN,
    );
    assert_eq!(status, 404, "the organiser's page is not there for bob: {answer}");
    assert!(
        !std::fs::read_to_string(&journal).unwrap().contains("\"voided\""),
        "nothing voided"
    );
    // A second version of ada's bot retires the first; ada makes the first the active one again.
    std::fs::write(good.join("NOTE"), "version two").unwrap();
    let second = submit(&server, &good, &ada);
    assert_eq!(second.status.code(), Some(0), "{}", text(&second));
    assert!(
        String::from_utf8_lossy(&second.stdout).contains("ada@2 was admitted"),
        "{}",
        text(&second)
    );
    let first = submission_with_label(&server, &ada, "ada@1");
    let state_of = |id: u64| get(&server, &format!("/api/submissions/{id}"), &ada).1;
    pahtum_testkit::wait_until("ada@1 retired", Duration::from_secs(60), || {
        state_of(first).contains("\"state\":\"retired\"")
    });
    let (_, page) = get(&server, &format!("/submissions/{first}"), &ada);
    assert!(
        page.contains("id=\"activate\""),
        "her retired version offers to play again: {page}"
    );
    let (status, answer) = post(&server, &format!("/api/submissions/{first}/activate"), &bob);
    assert_eq!(status, 403, "not bob's: {answer}");
    let (status, answer) = post(&server, &format!("/api/submissions/{first}/activate"), &ada);
    assert_eq!(status, 202, "{answer}");
    pahtum_testkit::wait_until("ada@1 playing again", Duration::from_secs(120), || {
        state_of(first).contains("\"state\":\"playing\"")
    });
    // The ladder is fitted again at most once a second: it shows the change within one.
    pahtum_testkit::wait_until("ada@2 retired on the ladder", Duration::from_secs(5), || {
        let (_, ladder) = get(&server, "/api/ladder", "");
        let retired = ladder.split("\"retired\"").nth(1).unwrap_or_default().to_owned();
        retired.contains("ada@2") && !retired.contains("ada@1")
    });

    // The games' page is the league's report, with ada's entrants in it.
    let (status, games) = get(&server, "/games", "");
    assert_eq!(status, 200, "{games}");
    assert!(games.contains("ada@1") && games.contains("bob@1"), "{games}");

    // One source file is a bot too: run as its language runs.
    let single = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/python-random/bot.py");
    let admitted = submit(&server, &single, &bob);
    assert_eq!(admitted.status.code(), Some(0), "{}", text(&admitted));
    assert!(
        String::from_utf8_lossy(&admitted.stdout).contains("bob@2 was admitted"),
        "{}",
        text(&admitted)
    );

    // Bob's starter bot logs each choice to stderr: his game's page shows each line beside its ply, to him
    // alone; ada gets 403 on his bot's stderr, and the game's bundle verifies and replays.
    let bobs_game = pahtum_testkit::wait_for("a game of bob@2", Duration::from_secs(120), || {
        let text = std::fs::read_to_string(&journal).unwrap_or_default();
        text.lines()
            .filter(|line| line.contains("\"moves\"") && line.contains("\"bob@2\""))
            .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
            .next()
    });
    let id = bobs_game["id"].as_str().unwrap().to_owned();
    let seat = if bobs_game["players"]["first"] == "bob@2" {
        "first"
    } else {
        "second"
    };
    let (status, lines) = get(&server, &format!("/api/games/{id}/stderr/{seat}"), &bob);
    assert_eq!(status, 200, "{lines}");
    let lines: Vec<serde_json::Value> = serde_json::from_str(&body_of(&lines)).unwrap();
    let at_plies: Vec<_> = lines
        .iter()
        .filter_map(|line| {
            let text = line["text"].as_str()?;
            let ply: u64 = text.split_once("] ply ")?.1.split_once(':')?.0.parse().ok()?;
            Some((ply, line["when"]["ply"].as_u64()))
        })
        .collect();
    assert!(at_plies.len() >= 10, "{lines:?}");
    assert!(at_plies.iter().all(|&(ply, when)| when == Some(ply)), "{at_plies:?}");
    let (status, answer) = get(&server, &format!("/api/games/{id}/stderr/{seat}"), &ada);
    assert_eq!(status, 403, "not ada's: {answer}");
    let (status, page) = get(&server, &format!("/games/{id}"), &bob);
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("stderr of bob@2") && page.contains("free cells</pre>"),
        "{page}"
    );
    let (status, page) = get(&server, &format!("/games/{id}"), &ada);
    assert_eq!(status, 200, "{page}");
    assert!(
        !page.contains("stderr of bob@2") && !page.contains("free cells"),
        "{page}"
    );
    let (status, page) = get(&server, "/me", &bob);
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains(&format!("href=\"/games/{id}\"")),
        "his page lists his games: {page}"
    );
    let (status, bundle) = get(&server, &format!("/api/games/{id}/bundle"), "");
    assert_eq!(status, 200, "{bundle}");
    let bundle_file = root.path().join(format!("game-{id}.jsonl"));
    std::fs::write(&bundle_file, body_of(&bundle)).unwrap();
    let verified = arena(&["verify", s(&bundle_file)]);
    assert!(verified.status.success(), "{}", text(&verified));
    let replayed = arena(&[
        "game",
        "--from",
        s(&bundle_file),
        "--game",
        &id,
        "--ply",
        "3",
        "--white",
        "first-free",
        "--black",
        "first-free",
    ]);
    assert!(replayed.status.success(), "{}", text(&replayed));

    // Bob asks to analyse his lost games: one request at a time, worked off beside the ladder, and the games'
    // page then has the analysis in it.
    pahtum_testkit::wait_until("a game bob lost", Duration::from_secs(120), || {
        let text = std::fs::read_to_string(&journal).unwrap_or_default();
        text.lines().filter(|line| line.contains("\"moves\"")).any(|line| {
            let game: serde_json::Value = serde_json::from_str(line).unwrap();
            let loser = match game["result"].as_str() {
                Some("white") => &game["black"],
                Some("black") => &game["white"],
                _ => return false,
            };
            loser.as_str().is_some_and(|loser| loser.starts_with("bob@"))
        })
    });
    let (status, answer) = post(&server, "/api/analyses", &bob);
    assert_eq!(status, 202, "{answer}");
    let (status, answer) = post(&server, "/api/analyses", &bob);
    assert!(
        status == 429 || answer.contains("\"id\""),
        "one at a time, unless the first is done already: {answer}"
    );
    let analysed = pahtum_testkit::wait_for("bob's analysis", Duration::from_secs(300), || {
        let (_, listed) = get(&server, "/api/analyses", &bob);
        let listed: Vec<serde_json::Value> = serde_json::from_str(&body_of(&listed)).ok()?;
        // The first request (the list is the latest first).
        let first = listed.last()?.clone();
        (first["state"] == "done" || first["state"] == "failed").then_some(first)
    });
    assert_eq!(analysed["state"], "done", "{analysed}");
    assert_eq!(analysed["outcome"]["games"], 1, "{analysed}");
    let (_, listed) = get(&server, "/api/analyses", &ada);
    assert_eq!(body_of(&listed), "[]", "ada sees none of bob's requests");
    let lines = std::fs::read_to_string(contest.join("league/analysis.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 1, "{lines}");
    let (_, games) = get(&server, "/games", "");
    assert!(games.contains("From analysis.jsonl"), "the replays have the analysis");

    // Ada challenges bob's playing version: unrated games in a tournament of their own, hers to see.
    for (body, why) in [
        (r#"{"opponent": "nobody@1", "pairs": 1}"#, "no such entrant"),
        (r#"{"opponent": "bob@2", "pairs": 0}"#, "no pairs"),
        (
            r#"{"opponent": "bob@2", "pairs": 11}"#,
            "more pairs than contest.toml allows",
        ),
        (r#"{"opponent": "ada@1", "pairs": 1}"#, "her own"),
    ] {
        let (status, answer) = post_json(&server, "/api/challenges", &ada, body);
        assert_eq!(status, 400, "{why}: {answer}");
    }
    let (status, answer) = post_json(&server, "/api/challenges", &ada, r#"{"opponent": "bob@2", "pairs": 1}"#);
    assert_eq!(status, 202, "{answer}");
    let challenge: serde_json::Value = serde_json::from_str(&body_of(&answer)).unwrap();
    let challenge = challenge["id"].as_i64().unwrap();
    let done = pahtum_testkit::wait_for("ada's challenge", Duration::from_secs(120), || {
        let (_, listed) = get(&server, "/api/challenges", &ada);
        let listed: Vec<serde_json::Value> = serde_json::from_str(&body_of(&listed)).ok()?;
        let job = listed.into_iter().find(|job| job["id"] == challenge)?;
        (job["state"] == "done" || job["state"] == "failed").then_some(job)
    });
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["asked"]["entrant"], "ada@1", "{done}");
    let outcome = &done["outcome"];
    let games = ["wins", "draws", "losses"].map(|key| outcome[key].as_u64().unwrap());
    assert_eq!(games.iter().sum::<u64>(), 2, "one layout pair: {done}");
    let (_, listed) = get(&server, "/api/challenges", &bob);
    assert_eq!(body_of(&listed), "[]", "bob sees none of ada's challenges");
    let path = format!("/api/challenges/{challenge}/journal");
    let (status, answer) = get(&server, &path, &bob);
    assert_eq!(status, 403, "{answer}");
    let (status, answer) = get(&server, &path, &ada);
    assert_eq!(status, 200, "{answer}");
    let played = root.path().join("challenge.jsonl");
    std::fs::write(&played, body_of(&answer)).unwrap();
    let verified = arena(&["verify", s(&played)]);
    assert!(verified.status.success(), "{}", text(&verified));
    let league_text = std::fs::read_to_string(&journal).unwrap();
    assert!(
        !league_text.contains("challenge"),
        "the league's journal never sees a challenge"
    );
    // Its page lists its games; each game's page has ada's bot's stderr column and not bob's.
    let (status, page) = get(&server, &format!("/challenges/{challenge}"), &ada);
    assert_eq!(status, 200, "{page}");
    let first_game = body_of(&answer).lines().nth(1).map(|line| {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        record["id"].as_str().unwrap().to_owned()
    });
    let first_game = first_game.expect("a game in the challenge");
    let game_path = format!("/challenges/{challenge}/games/{first_game}");
    assert!(page.contains(&format!("href=\"{game_path}\"")), "{page}");
    let (status, page) = get(&server, &game_path, &ada);
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("stderr of ada@1") && !page.contains("stderr of bob@2"),
        "{page}"
    );
    for path in [format!("/challenges/{challenge}"), game_path] {
        let (status, answer) = get(&server, &path, &bob);
        assert_eq!(status, 403, "{path}: {answer}");
    }

    // Every game, downloaded, is a journal that `arena verify` checks.
    let (status, download) = get(&server, "/api/journal", "");
    assert_eq!(status, 200);
    let downloaded = root.path().join("downloaded.jsonl");
    std::fs::write(&downloaded, body_of(&download)).unwrap();
    let verified = arena(&["verify", s(&downloaded)]);
    assert!(verified.status.success(), "{}", text(&verified));
    // Bob's own games are a journal too, with none that only others played.
    let (status, answer) = get(&server, "/api/journal?mine=true", &bob);
    assert_eq!(status, 200, "{answer}");
    let his = body_of(&answer);
    let games = |journal: &str| journal.lines().filter(|line| line.contains("\"moves\"")).count();
    assert!(games(&his) > 0, "{his}");
    assert!(
        his.lines()
            .filter(|line| line.contains("\"moves\""))
            .all(|line| line.contains("bob@")),
        "{his}"
    );
    let downloaded = root.path().join("bobs.jsonl");
    std::fs::write(&downloaded, &his).unwrap();
    let verified = arena(&["verify", s(&downloaded)]);
    assert!(verified.status.success(), "{}", text(&verified));
    let (status, _) = get(&server, "/api/journal?mine=true", "");
    assert_eq!(status, 401, "whose games?");
    server.stop();
    let verified = arena(&["verify", s(&contest.join("league"))]);
    assert!(verified.status.success(), "{}", text(&verified));
}

/// `POST path` of the form `body`, with the session `cookie` if any: the status and the answer.
fn post_form(server: &Server, path: &str, body: &str, cookie: Option<&str>) -> (u16, String) {
    let cookie = cookie.map(|cookie| format!("Cookie: {cookie}"));
    let mut headers = Vec::from_iter(cookie.as_deref());
    headers.push("Content-Type: application/x-www-form-urlencoded");
    request(server.address(), "POST", path, &headers, body.as_bytes(), ANSWER_WITHIN)
}

/// With `registration = "approval"`, anyone registers; the account logs in only once the organiser, logged in
/// through the first link `init` printed, approves it.
#[test]
fn a_registered_account_waits_for_the_organisers_approval() {
    let root = tempfile::tempdir().unwrap();
    let contest = root.path().join("open");
    let init = arena(&["contest", "init", s(&contest)]);
    assert!(init.status.success(), "{}", text(&init));
    let link = String::from_utf8_lossy(&init.stdout)
        .lines()
        .find(|line| line.contains("/invitation/"))
        .unwrap()
        .to_owned();
    let settings = contest.join("contest.toml");
    let text_of = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(
        &settings,
        text_of.replace("registration = \"invitation\"", "registration = \"approval\""),
    )
    .unwrap();
    let server = Server::start(&contest, &["--concurrency", "1"]);

    let (status, answer) = post_form(&server, "/register", "name=cy&password=long+enough+now", None);
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains("once the organiser has approved"), "{answer}");
    let (status, _) = post_form(&server, "/register", "name=cy&password=another+long+one", None);
    assert_eq!(status, 409, "the name is taken");
    let (status, answer) = post_form(&server, "/register", "name=a%20b&password=long+enough+now", None);
    assert_eq!(status, 400, "{answer}");
    let (status, answer) = post_form(&server, "/login", "name=cy&password=long+enough+now", None);
    assert_eq!(status, 403, "pending: {answer}");

    let secret_path = &link[link.find("/invitation/").unwrap()..];
    let (status, answer) = post_form(&server, secret_path, "password=organiser+password", None);
    assert_eq!(status, 303, "{answer}");
    let organiser = session_set_by(&answer);
    let (status, answer) = post_form(&server, "/organiser/authors/2/active", "", Some(&organiser));
    assert_eq!(status, 303, "{answer}");
    let (status, answer) = post_form(&server, "/login", "name=cy&password=long+enough+now", None);
    assert_eq!(status, 303, "approved: {answer}");
    let cy = session_set_by(&answer);
    let (status, _) = post_form(&server, "/organiser/authors/2/disabled", "", Some(&cy));
    assert_eq!(status, 404, "an author is not the organiser");
    let (status, _) = post_form(&server, secret_path, "password=taken+over+now", None);
    assert_eq!(status, 404, "the link was good once");
}
