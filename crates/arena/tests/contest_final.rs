//! A contest's final, for real: three authors' bots admitted on the ladder,
//! the season's phases a few seconds apart, and the server playing the final
//! in the sandbox by itself.
//!
//! * Bots of clearly different strength (the engine at level 1, the
//!   heuristic, the first free cell): the final publishes its rules, seed,
//!   pairing rule and finalists before its first game, survives a server
//!   killed in its middle (nothing lost or doubled, the published rules
//!   unchanged), stops once each prize place is apart, and its downloaded
//!   journal verifies with the schedule hash the page shows, while a tampered
//!   copy is refused with its line.
//! * Three equal bots: the final stops at its cap on games and shows the
//!   places tied, with their likelihood of superiority.
//!
//! From a private (0700) folder; skipped where the sandbox cannot run, except
//! with `CI=true`.

mod contesting;

use std::path::Path;
use std::time::Duration;

use contesting::{
    Server, arena, bearer, body_of, bot_folder, invite_token, new_contest, private_folder, request, s, sandbox_runs,
    text,
};
use pahtum_testkit::wait_until;

/// How long a request waits for its answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);

/// How long a final of the tests' debug build may take.
const FINAL_WITHIN: Duration = Duration::from_secs(420);

/// `GET path` with `token`: the status and the answer's body.
fn get(server: &Server, path: &str, token: &str) -> (u16, String) {
    let (status, answer) = request(server.address(), "GET", path, &[&bearer(token)], b"", ANSWER_WITHIN);
    (status, body_of(&answer))
}

/// The final as `/api/final` says, once it is set up.
fn final_view(server: &Server, token: &str) -> Option<serde_json::Value> {
    let (status, body) = get(server, "/api/final", token);
    (status == 200).then(|| serde_json::from_str(&body).unwrap())
}

/// The final as `/api/final` says, once it is over.
fn over_within(server: &Server, token: &str) -> serde_json::Value {
    let mut over = None;
    wait_until("the final is over", FINAL_WITHIN, || {
        over = final_view(server, token).filter(|view| !view["over"].is_null());
        over.is_some()
    });
    over.unwrap()
}

/// An RFC 3339 instant `seconds` from now (before now when negative), in UTC.
fn instant(seconds: i64) -> String {
    let at = jiff::Timestamp::now() + jiff::SignedDuration::from_secs(seconds);
    at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Sets the season's phases and the final's settings of `contest`: open an hour ago, the rest as given.
fn season(contest: &Path, freeze: i64, final_start: i64, final_keys: &str) {
    let settings = contest.join("contest.toml");
    let mut text = std::fs::read_to_string(&settings).unwrap();
    if let Some(at) = text.find("\n[phases]") {
        text.truncate(at + 1);
    }
    text += &format!(
        "\n[phases]\nopen = \"{}\"\nfreeze = \"{}\"\nfinal = \"{}\"\nend = \"{}\"\n\n[final]\n{final_keys}",
        instant(-3600),
        instant(freeze),
        instant(final_start),
        instant(final_start + 3600),
    );
    std::fs::write(&settings, text).unwrap();
}

/// A contest in `root` whose authors `ada`, `bob` and `cy` each had a bot of `commands` admitted while open
/// (the freeze an hour away): its folder and the three tokens.
fn contest_of(root: &Path, commands: [&str; 3], final_keys: &str) -> (std::path::PathBuf, [String; 3]) {
    let (contest, _) = new_contest(root, "Final cup");
    let tokens = ["ada", "bob", "cy"].map(|name| invite_token(&contest, name));
    season(&contest, 3600, 3601, final_keys);
    let server = Server::start(&contest, &["--concurrency", "2"]);
    for (token, command) in tokens.iter().zip(commands) {
        let folder = bot_folder(
            root,
            &format!("bot-{token}"),
            &format!("name = \"x\"\ncommand = \"{command}\"\n"),
            &[],
        );
        let submitted = arena(&["submit", &server.url, s(&folder), "--token", token]);
        assert!(submitted.status.success(), "{}", text(&submitted));
    }
    wait_until("the three entrants are on the ladder", ANSWER_WITHIN, || {
        let (_, ladder) = get(&server, "/api/ladder", &tokens[0]);
        serde_json::from_str::<serde_json::Value>(&ladder).unwrap()["rows"]
            .as_array()
            .unwrap()
            .len()
            == 3
    });
    let (status, _) = get(&server, "/api/final", &tokens[0]);
    assert_eq!(status, 404, "no final before the freeze");
    server.stop();
    (contest, tokens)
}

#[test]
fn the_final_publishes_its_schedule_plays_until_its_places_are_apart_and_verifies() {
    if !sandbox_runs() {
        return;
    }
    let root = private_folder();
    let keys = "places = 2\nconfidence = 0.95\nmax_games = 120\nseed = 7\n";
    let (contest, [ada, ..]) = contest_of(root.path(), ["engine --level 1", "heuristic", "first-free"], keys);

    // Frozen now, the final in a few seconds: it is published before its first game.
    season(&contest, -1, 12, keys);
    let server = Server::start(&contest, &["--concurrency", "2"]);
    let mut published = None;
    wait_until("the final is published", ANSWER_WITHIN, || {
        published = final_view(&server, &ada);
        published.is_some()
    });
    let published = published.unwrap();
    assert_eq!(published["games"], 0, "published before its first game: {published}");
    let rules = &published["published"];
    assert_eq!(rules["seed"], 7);
    assert_eq!(rules["rules"]["separate"]["places"], 2);
    let finalists: Vec<&str> = rules["finalists"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finalist| finalist["entrant"].as_str().unwrap())
        .collect();
    assert_eq!(finalists.len(), 3, "{rules}");
    let (status, page) = get(&server, "/final", &ada);
    assert_eq!(status, 200);
    assert!(page.contains(rules["rules_hash"].as_str().unwrap()), "{page}");

    // Killed in the middle of the final, started again: it plays on from its journal.
    wait_until("the final plays", FINAL_WITHIN, || {
        final_view(&server, &ada).is_some_and(|view| view["games"].as_u64().unwrap() >= 4)
    });
    server.kill();
    let server = Server::start(&contest, &["--concurrency", "2"]);
    let over = over_within(&server, &ada);
    assert_eq!(over["published"], *rules, "the published rules are unchanged");
    assert_eq!(over["over"], "separated", "{over}");
    assert_eq!(over["faults"], 0, "{over}");
    let places: Vec<(u64, bool)> = over["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| (row["place"].as_u64().unwrap(), row["tied"].as_bool().unwrap()))
        .collect();
    assert_eq!(places, [(1, false), (2, false), (3, false)], "{over}");
    assert!(
        over["standings"][0]["entrant"].as_str().unwrap().starts_with("ada@"),
        "the engine wins: {over}"
    );
    assert!(
        over["boundaries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["apart"] == true),
        "{over}"
    );
    let (_, season) = get(&server, "/season", &ada);
    assert!(
        season.contains("id=\"season-boundaries\"") && season.contains("every prize place is apart"),
        "{season}"
    );

    // The journal, downloaded, verifies with the schedule the page shows; a tampered copy is refused by line.
    let (status, journal) = get(&server, "/api/final/journal", &ada);
    assert_eq!(status, 200);
    let downloaded = root.path().join("final.jsonl");
    std::fs::write(&downloaded, &journal).unwrap();
    let verified = arena(&["verify", s(&downloaded)]);
    assert!(verified.status.success(), "{}", text(&verified));
    let said = String::from_utf8_lossy(&verified.stdout);
    assert!(said.contains("each decided again by the final's rule"), "{said}");
    assert!(said.contains(over["schedule"].as_str().unwrap()), "{said} {over}");
    let header: serde_json::Value = serde_json::from_str(journal.lines().next().unwrap()).unwrap();
    assert_eq!(header["hash"], rules["rules_hash"]);
    let ids: Vec<&str> = journal
        .lines()
        .filter_map(|line| line.split("\"id\":\"").nth(1))
        .map(|rest| &rest[..rest.find('"').unwrap()])
        .collect();
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "no game twice");
    assert_eq!(ids.len() as u64, over["games"].as_u64().unwrap());

    let mut lines: Vec<String> = journal.lines().map(str::to_owned).collect();
    let (number, round) = lines
        .iter()
        .enumerate()
        .rfind(|(_, line)| line.starts_with("{\"round\":"))
        .map(|(number, line)| (number, line.clone()))
        .unwrap();
    // The last round names another pair than the rule decided.
    let swapped = if round.contains("[0,1,") {
        round.replacen("[0,1,", "[0,2,", 1)
    } else {
        round.replacen("[1,2,", "[0,1,", 1).replacen("[0,2,", "[0,1,", 1)
    };
    assert_ne!(swapped, round);
    lines[number] = swapped;
    let tampered = root.path().join("tampered.jsonl");
    std::fs::write(&tampered, lines.join("\n") + "\n").unwrap();
    let refused = arena(&["verify", s(&tampered)]);
    assert!(!refused.status.success(), "{}", text(&refused));
    let said = String::from_utf8_lossy(&refused.stdout);
    assert!(
        said.contains(&format!("line {}: ", number + 1)) && said.contains("is not the round the league's rule decides"),
        "{said}"
    );

    // The final's folder is a league: its table says which places are apart.
    let table = arena(&["league", "table", s(&contest.join("final"))]);
    assert!(table.status.success(), "{}", text(&table));
    let said = String::from_utf8_lossy(&table.stdout);
    assert!(said.contains("Prize places") && !said.contains("no: tied"), "{said}");
}

#[test]
fn a_final_of_equal_bots_stops_at_its_cap_and_shows_the_places_tied() {
    if !sandbox_runs() {
        return;
    }
    let root = private_folder();
    let keys = "places = 2\nconfidence = 0.99\nmax_games = 24\n";
    let (contest, [ada, ..]) = contest_of(root.path(), ["first-free", "first-free", "first-free"], keys);
    season(&contest, -2, -1, keys);
    let server = Server::start(&contest, &["--concurrency", "2"]);
    let over = over_within(&server, &ada);
    assert_eq!(over["over"], "capped", "{over}");
    assert_eq!(over["games"], 24, "{over}");
    let boundaries = over["boundaries"].as_array().unwrap();
    assert!(
        boundaries.iter().any(|b| b["apart"] == false && b["los"].is_f64()),
        "{over}"
    );
    assert!(
        over["standings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|row| row["tied"] == true),
        "{over}"
    );
    let (_, page) = get(&server, "/final", &ada);
    assert!(page.contains("not apart") && page.contains("Over at its cap"), "{page}");
    let table = arena(&["league", "table", s(&contest.join("final"))]);
    assert!(
        String::from_utf8_lossy(&table.stdout).contains("no: tied"),
        "{}",
        text(&table)
    );
}
