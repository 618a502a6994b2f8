//! A contest's season for real: `arena contest serve` as a child process
//! with `[phases]` in its `contest.toml`, computed from the clock at the
//! test's start. A submission is accepted while the season is open and
//! refused, with the instant, before it opens and after the freeze; the
//! organiser moves a phase still to come (and is refused moving one that
//! has begun, or out of order; any other author is refused as on the
//! organiser's other routes); a server killed mid-phase and started again
//! is in that phase still, with the move it was given; `/api/season`,
//! `/season` and every page show it. Each instant is waited for with a
//! deadline, never slept for.

mod contesting;

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use contesting::{
    Server, api, bearer, body_of, bot_folder, invite_token, new_contest, private_folder, request, session_set_by,
    tar_gz,
};
use jiff::Timestamp;

/// How long a request waits for its answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);

/// How long the test waits for an instant the server is to reach (seconds away), on a busy machine.
const INSTANT_WITHIN: Duration = Duration::from_secs(60);

/// An instant `seconds` from `now`, in whole seconds (as the organiser writes them).
fn from_now(now: Timestamp, seconds: i64) -> Timestamp {
    Timestamp::from_second(now.as_second() + seconds).unwrap()
}

/// An instant as the pages show it in UTC.
fn utc_text(at: Timestamp) -> String {
    at.strftime("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// Appends the season `[phases]` of the four instants to the contest's `contest.toml`.
fn give_season(contest: &Path, [open, freeze, final_start, end]: [Timestamp; 4]) {
    let settings = contest.join("contest.toml");
    let mut written = std::fs::read_to_string(&settings).unwrap();
    written +=
        &format!("[phases]\nopen = \"{open}\"\nfreeze = \"{freeze}\"\nfinal = \"{final_start}\"\nend = \"{end}\"\n");
    std::fs::write(&settings, written).unwrap();
}

/// `GET path` with `headers`: the status and the answer.
fn get(server: &Server, path: &str, headers: &[&str]) -> (u16, String) {
    request(server.address(), "GET", path, headers, b"", ANSWER_WITHIN)
}

/// `GET /api/season`, read.
fn season(server: &Server) -> serde_json::Value {
    let (status, answer) = get(server, "/api/season", &[]);
    assert_eq!(status, 200, "{answer}");
    serde_json::from_str(&body_of(&answer)).unwrap()
}

/// Waits until the server says the season is in `phase`.
fn wait_for_phase(server: &Server, phase: &str) {
    pahtum_testkit::wait_until(&format!("the season is {phase}"), INSTANT_WITHIN, || {
        season(server)["phase"] == phase
    });
}

/// `POST path` of the form `body`, with the session `cookie`: the status and the answer.
fn post_form(server: &Server, path: &str, body: &str, cookie: &str) -> (u16, String) {
    let headers = [
        format!("Cookie: {cookie}"),
        "Content-Type: application/x-www-form-urlencoded".to_owned(),
    ];
    let headers = headers.each_ref().map(String::as_str);
    request(server.address(), "POST", path, &headers, body.as_bytes(), ANSWER_WITHIN)
}

/// `POST /api/organiser/phases` with `token`, moving `phase` to `at`: the status and the body.
fn move_phase(server: &Server, token: &str, phase: &str, at: &str) -> (u16, String) {
    let body = format!(r#"{{"phase": "{phase}", "at": "{at}"}}"#);
    let headers = [bearer(token), "Content-Type: application/json".to_owned()];
    let headers = headers.each_ref().map(String::as_str);
    let (status, answer) = request(
        server.address(),
        "POST",
        "/api/organiser/phases",
        &headers,
        body.as_bytes(),
        ANSWER_WITHIN,
    );
    (status, body_of(&answer))
}

/// The organiser's session: their password set through the link `init` printed.
fn organiser_session(server: &Server, init: &Output) -> String {
    let printed = String::from_utf8_lossy(&init.stdout);
    let link = printed.lines().find(|line| line.contains("/invitation/")).unwrap();
    let path = &link[link.find("/invitation/").unwrap()..];
    let headers = ["Content-Type: application/x-www-form-urlencoded"];
    let body = b"password=organiser+password";
    let (status, answer) = request(server.address(), "POST", path, &headers, body, ANSWER_WITHIN);
    assert_eq!(status, 303, "{answer}");
    session_set_by(&answer)
}

/// An API token of the organiser's, made on their page with their `session`.
fn organiser_token(server: &Server, session: &str) -> String {
    let (status, page) = post_form(server, "/me/tokens", "name=season", session);
    assert_eq!(status, 200, "{page}");
    let shown = page
        .split("<code id=\"new-token\">")
        .nth(1)
        .expect("the new token shown");
    shown.split('<').next().unwrap().to_owned()
}

/// Ada's upload: a bot folder of its own.
fn upload(root: &Path, name: &str) -> Vec<u8> {
    let folder = bot_folder(
        root,
        name,
        "name = \"x\"\ncommand = \"python3 bot.py first-free\"\n",
        &[],
    );
    tar_gz(&folder)
}

#[test]
fn submissions_close_at_the_freeze_the_organiser_moved_and_a_restart_keeps_it() {
    let root = private_folder();
    let (contest, init) = new_contest(root.path(), "Season cup");
    let (ada, bob) = (invite_token(&contest, "ada"), invite_token(&contest, "bob"));
    // Open in a moment; the freeze, the final and the end far off, to be moved.
    let start = Timestamp::now();
    let [open, freeze, final_start, end] = [2, 3_600, 7_200, 10_800].map(|seconds| from_now(start, seconds));
    give_season(&contest, [open, freeze, final_start, end]);
    let server = Server::start(&contest, &["--concurrency", "1"]);

    wait_for_phase(&server, "open");
    let (status, answer) = api(
        server.address(),
        "POST",
        "/api/submissions",
        &ada,
        &upload(root.path(), "one"),
    );
    assert_eq!(status, 201, "accepted while open: {answer}");
    let submitted: serde_json::Value = serde_json::from_str(&answer).unwrap();
    let submitted = submitted["id"].as_i64().unwrap();
    let now = season(&server);
    assert_eq!(now["next"]["phase"], "frozen", "{now}");
    assert_eq!(now["next"]["at"], freeze.to_string(), "{now}");

    // Only the organiser moves a phase: bob is refused as on the organiser's other routes.
    let session = organiser_session(&server, &init);
    let organiser = organiser_token(&server, &session);
    let soon = from_now(Timestamp::now(), 3).to_string();
    let (status, answer) = move_phase(&server, &bob, "freeze", &soon);
    assert_eq!(status, 403, "{answer}");
    let (status, answer) = get(&server, "/api/organiser", &[&bearer(&bob)]);
    assert_eq!(status, 403, "the same as the organiser's view: {answer}");
    let (status, answer) = request(
        server.address(),
        "POST",
        "/organiser/phases",
        &[&bearer(&bob), "Content-Type: application/x-www-form-urlencoded"],
        format!("phase=freeze&at={soon}").as_bytes(),
        ANSWER_WITHIN,
    );
    assert_eq!(status, 404, "the organiser's form is not there for others: {answer}");
    // A phase that has begun does not move; nor does one out of order.
    let (status, answer) = move_phase(&server, &organiser, "open", &from_now(Timestamp::now(), 60).to_string());
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer.contains(&format!("the opening of submissions began at {open}")),
        "{answer}"
    );
    let (status, answer) = move_phase(&server, &organiser, "final", &from_now(freeze, -60).to_string());
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer.contains("breaks the order") && answer.contains("must come no earlier than freeze"),
        "{answer}"
    );
    let (status, answer) = move_phase(&server, &organiser, "freeze", "tomorrow");
    assert_eq!(status, 400, "{answer}");
    assert!(answer.contains("not an RFC 3339 instant"), "{answer}");
    // The freeze, moved to a few seconds from now: the season says so at once.
    let moved_freeze = from_now(Timestamp::now(), 3);
    let (status, answer) = move_phase(&server, &organiser, "freeze", &moved_freeze.to_string());
    assert_eq!(status, 200, "{answer}");
    let after: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(after["phases"]["freeze"], moved_freeze.to_string(), "{after}");
    assert_eq!(after["next"]["at"], moved_freeze.to_string(), "{after}");

    // Frozen: a submission and a version change are refused with the instant; the organiser may not move
    // the freeze again.
    wait_for_phase(&server, "frozen");
    let (status, answer) = api(
        server.address(),
        "POST",
        "/api/submissions",
        &ada,
        &upload(root.path(), "two"),
    );
    assert_eq!(status, 403, "{answer}");
    assert!(
        answer.contains(&format!("submissions closed at {moved_freeze} (UTC, the freeze)")),
        "{answer}"
    );
    let (status, answer) = api(
        server.address(),
        "POST",
        &format!("/api/submissions/{submitted}/activate"),
        &ada,
        b"",
    );
    assert_eq!(status, 403, "{answer}");
    assert!(
        answer.contains(&format!("version changes closed at {moved_freeze}")),
        "{answer}"
    );
    let (status, page) = get(&server, "/me", &[&bearer(&ada)]);
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("id=\"closed\"") && !page.contains("id=\"upload\""),
        "{page}"
    );
    let (status, answer) = move_phase(
        &server,
        &organiser,
        "freeze",
        &from_now(Timestamp::now(), 60).to_string(),
    );
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer.contains(&format!("the freeze began at {moved_freeze}")),
        "{answer}"
    );
    // The organiser's page offers to move the phases still to come, and moves the end.
    let (status, page) = get(&server, "/organiser", &[&format!("Cookie: {session}")]);
    assert_eq!(status, 200, "{page}");
    let form = page
        .split("id=\"move-phase\"")
        .nth(1)
        .expect("the form that moves a phase");
    let form = form.split("</form>").next().unwrap();
    assert!(
        form.contains("<option value=\"final\">") && form.contains("<option value=\"end\">"),
        "{form}"
    );
    assert!(
        !form.contains("value=\"open\"") && !form.contains("value=\"freeze\""),
        "begun: {form}"
    );
    let moved_end = from_now(end, 60);
    let (status, answer) = post_form(
        &server,
        "/organiser/phases",
        &format!("phase=end&at={moved_end}"),
        &session,
    );
    assert_eq!(status, 303, "{answer}");

    // Killed in the middle of the freeze and started again: frozen still, with both moves.
    server.kill();
    let server = Server::start(&contest, &["--concurrency", "1"]);
    let now = season(&server);
    assert_eq!(now["phase"], "frozen", "{now}");
    assert_eq!(now["phases"]["freeze"], moved_freeze.to_string(), "{now}");
    assert_eq!(now["phases"]["end"], moved_end.to_string(), "{now}");
    assert_eq!(now["next"]["phase"], "final", "{now}");
    let moves = now["moves"].as_array().unwrap();
    let moved: Vec<_> = moves.iter().map(|m| (m["phase"].as_str(), m["who"].as_str())).collect();
    assert_eq!(
        moved,
        [(Some("freeze"), Some("organiser")), (Some("end"), Some("organiser"))],
        "{now}"
    );
    assert!(
        moves
            .iter()
            .all(|m| m["moved_ms"].as_i64().is_some_and(|ms| ms >= start.as_millisecond()))
    );
    let (status, answer) = api(
        server.address(),
        "POST",
        "/api/submissions",
        &ada,
        &upload(root.path(), "three"),
    );
    assert_eq!(status, 403, "closed after the restart too: {answer}");
    // The season's page shows the instants in UTC in the page itself, and the moves with who made them.
    let (status, page) = get(&server, "/season", &[]);
    assert_eq!(status, 200, "{page}");
    for instant in [open, moved_freeze, final_start, moved_end] {
        assert!(
            page.contains(&format!("datetime=\"{instant}\"")) && page.contains(&utc_text(instant)),
            "{instant}: {page}"
        );
    }
    assert!(page.contains("<td>organiser</td>"), "{page}");
    // Every page shows the season, with a countdown to the next instant.
    let (status, page) = get(&server, "/login", &[]);
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("id=\"season\"")
            && page.contains(&format!("<time class=\"countdown\" datetime=\"{final_start}\">")),
        "{page}"
    );
    // The final, moved to a moment from now after the restart, comes.
    let (status, answer) = move_phase(&server, &organiser, "final", &from_now(Timestamp::now(), 2).to_string());
    assert_eq!(status, 200, "{answer}");
    wait_for_phase(&server, "final");
    server.stop();
}

#[test]
fn before_the_season_opens_a_submission_is_told_when_it_may_come() {
    let root = private_folder();
    let (contest, _) = new_contest(root.path(), "Early cup");
    let ada = invite_token(&contest, "ada");
    // Without [phases], there is no season: always open, and no page shows one.
    let server = Server::start(&contest, &["--concurrency", "1"]);
    let now = season(&server);
    assert_eq!(
        (&now["phases"], &now["phase"], &now["next"], &now["moves"]),
        (
            &serde_json::Value::Null,
            &serde_json::json!("open"),
            &serde_json::Value::Null,
            &serde_json::json!([])
        ),
        "{now}"
    );
    let (_, page) = get(&server, "/login", &[]);
    assert!(!page.contains("id=\"season\""), "{page}");
    server.stop();

    let start = Timestamp::now();
    let instants = [3_600, 7_200, 7_200, 10_800].map(|seconds| from_now(start, seconds));
    give_season(&contest, instants);
    let open = instants[0];
    let server = Server::start(&contest, &["--concurrency", "1"]);
    let now = season(&server);
    assert_eq!(now["phase"], "before_open", "{now}");
    assert_eq!(
        (&now["next"]["phase"], &now["next"]["at"]),
        (&"open".into(), &open.to_string().into())
    );
    assert_eq!(
        now["phases"]["final"], now["phases"]["freeze"],
        "the final may start at the freeze"
    );
    let (status, answer) = api(
        server.address(),
        "POST",
        "/api/submissions",
        &ada,
        &upload(root.path(), "early"),
    );
    assert_eq!(status, 403, "{answer}");
    assert!(
        answer.contains(&format!("submissions open at {open} (UTC)")),
        "{answer}"
    );
    let (_, page) = get(&server, "/me", &[&bearer(&ada)]);
    assert!(
        page.contains("id=\"closed\"") && !page.contains("id=\"upload\""),
        "{page}"
    );
    let (_, page) = get(&server, "/login", &[]);
    assert!(
        page.contains(&format!(
            "<time class=\"countdown\" datetime=\"{open}\">{}</time>",
            utc_text(open)
        )),
        "the next instant, in UTC without the script: {page}"
    );
    assert!(
        page.contains("document.querySelectorAll(\"time.utc\")"),
        "the script that adds the local time and the countdown: {page}"
    );
    server.stop();
}
