//! A contest in a real browser: `arena contest init`, `invite` and `serve`
//! as real processes, and headless Chromium (fantoccini over chromedriver)
//! doing what people do there. An author follows her invitation, sets a
//! password and lands on her page; uploads a folder whose build fails and
//! watches her submission's page turn `failed` with the build's log; uploads
//! the fixed folder and watches the same kind of page turn `playing` by
//! itself. A second author's bot comes in with `arena submit`, and the
//! ladder shows both and their games. The first author's session is refused
//! the second's submission and log (403). The organiser follows the link
//! `init` printed, sets a password and disables the second author. In a
//! second contest, an author submits a version "only if not weaker" with the
//! form's checkbox and watches its test's LLR rise on its page, which
//! follows it without a reload until the version is promoted.
//!
//! The league is sandboxed, from a private (0700) folder: skipped where the
//! sandbox or the browser cannot run, except with `CI=true`. Screenshots of
//! the ladder, of the author's page and of the failed submission are saved
//! under `target/contest-screenshots/`.

mod contesting;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use contesting::{
    Server, arena, bare_bot_folder, bearer, invite_token, new_contest, private_folder, request, s, sandbox_runs, text,
};
use fantoccini::{Client, Locator};
use pahtum_testkit::browser;

/// How long a build and check in the sandbox, or a ladder's first games, may take.
const SLOW: Duration = Duration::from_secs(120);
/// How long a request waits for its answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);

/// Where the screenshots go: `target/contest-screenshots/`.
fn screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("contest-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Saves the page as `target/contest-screenshots/NAME`.
async fn screenshot(client: &Client, name: &str) {
    let png = client.screenshot().await.unwrap();
    std::fs::write(screenshots().join(name), png).unwrap();
}

/// A link printed by `init` or `invite` (made for the default address), at `server`'s address.
fn link(server: &Server, printed: &str) -> String {
    let line = printed
        .lines()
        .find(|line| line.contains("/invitation/"))
        .unwrap_or_else(|| panic!("no invitation link in {printed:?}"));
    let path = &line[line.find("/invitation/").unwrap()..];
    format!("{}{}", server.url, path.trim())
}

/// `GET path` with the header `extra` (a whole line, as `Cookie: ...`): the status and the whole answer.
fn get(server: &Server, path: &str, extra: &str) -> (u16, String) {
    request(server.address(), "GET", path, &[extra], b"", ANSWER_WITHIN)
}

/// Waits up to `within` until the page has an element that `xpath` finds.
async fn wait_for(client: &Client, within: Duration, xpath: &str) {
    if let Err(error) = client
        .wait()
        .at_most(within)
        .every(Duration::from_millis(100))
        .for_element(Locator::XPath(xpath))
        .await
    {
        let page = client.source().await.unwrap_or_default();
        panic!("no {xpath} within {within:?} ({error}); the page:\n{page}");
    }
}

/// The text of the element that `css` finds.
async fn text_of(client: &Client, css: &str) -> String {
    client.find(Locator::Css(css)).await.unwrap().text().await.unwrap()
}

/// The path of the page's address.
async fn path_of(client: &Client) -> String {
    client.current_url().await.unwrap().path().to_owned()
}

/// Follows the invitation `link`, sets a password, and waits for the account's own page.
async fn accept_invitation(client: &Client, link: &str, name: &str) {
    client.goto(link).await.unwrap();
    assert_eq!(text_of(client, "main h1").await, "Choose your password");
    let form = client.find(Locator::Css("main form")).await.unwrap();
    form.find(Locator::Css("input[name=password]"))
        .await
        .unwrap()
        .send_keys("a long enough password")
        .await
        .unwrap();
    form.find(Locator::Css("button")).await.unwrap().click().await.unwrap();
    wait_for(client, browser::DEADLINE, &format!("//main/h1[.='{name}']")).await;
    assert_eq!(path_of(client).await, "/me");
}

/// On the author's page, uploads `folder` through the folder input (on condition, "only if not weaker", where
/// `if_not_weaker`), and waits for the submission's page; returns its number.
async fn upload(client: &Client, server: &Server, folder: &Path, if_not_weaker: bool) -> i64 {
    client.goto(&format!("{}/me", server.url)).await.unwrap();
    if if_not_weaker {
        let condition = client.find(Locator::Id("if-not-weaker")).await.unwrap();
        condition.click().await.unwrap();
    }
    let input = client.find(Locator::Id("folder")).await.unwrap();
    input.send_keys(s(folder)).await.unwrap();
    let chosen = client
        .execute(
            "return [...document.getElementById('folder').files].map((f) => f.webkitRelativePath).sort()",
            vec![],
        )
        .await
        .unwrap();
    let name = folder.file_name().unwrap().to_str().unwrap();
    assert_eq!(
        chosen,
        serde_json::json!([format!("{name}/bot.py"), format!("{name}/bot.toml")]),
        "the folder input holds the folder's files"
    );
    client
        .find(Locator::Css("#upload button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(client, browser::DEADLINE, "//span[@id='state']").await;
    let path = path_of(client).await;
    path.strip_prefix("/submissions/")
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("the upload led to {path}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authors_and_the_organiser_use_the_contest_in_a_browser() {
    if !sandbox_runs() {
        return;
    }
    let Some(session) = browser::open().await else {
        return;
    };
    let client = &session.client;
    let started = Instant::now();
    let root = private_folder();
    let (contest, init) = new_contest(root.path(), "Browser cup");
    // A pair plays 128 games (the most), not the default 8: the ladder plays all through the test, so that its games in
    // progress can be seen (the league's rules may change until its first entrant).
    let rules = contest.join("league/league.toml");
    let edited = std::fs::read_to_string(&rules)
        .unwrap()
        .replace("games_per_pair = 8", "games_per_pair = 128");
    assert!(edited.contains("games_per_pair = 128"), "{edited}");
    std::fs::write(&rules, edited).unwrap();
    let invited = arena(&["contest", "invite", s(&contest), "ada"]);
    assert!(invited.status.success(), "{}", text(&invited));
    let bob_token = invite_token(&contest, "bob");
    let server = Server::start(&contest, &["--concurrency", "1"]);

    // 1. Ada follows her invitation, sets a password, and lands on her page.
    accept_invitation(client, &link(&server, &String::from_utf8_lossy(&invited.stdout)), "ada").await;
    let ada_cookie = client
        .get_named_cookie("pahtum_contest_session")
        .await
        .unwrap()
        .value()
        .to_owned();

    // 2. A folder whose build fails: the page follows it to `failed`, with the build's log.
    let broken = bare_bot_folder(
        root.path(),
        "broken",
        "name = \"x\"\ncommand = \"python3 bot.py first-free\"\nbuild = \"echo compile-error-XYZ; exit 2\"\n",
    );
    let failed = upload(client, &server, &broken, false).await;
    wait_for(client, SLOW, "//span[@id='state'][.='failed']").await;
    let log = text_of(client, "#log-build").await;
    assert!(log.contains("compile-error-XYZ"), "{log}");
    screenshot(client, "submission-failed.png").await;

    // 3. The fixed folder: the page follows it until its bot plays, reloading itself.
    let fixed = bare_bot_folder(
        root.path(),
        "fixed",
        "name = \"x\"\ncommand = \"python3 bot.py talkative 20\"\nbuild = \"echo built-fine\"\n",
    );
    let admitted = upload(client, &server, &fixed, false).await;
    assert!(admitted > failed);
    wait_for(client, SLOW, "//span[@id='state'][.='playing']").await;
    assert_eq!(path_of(client).await, format!("/submissions/{admitted}"));
    let heading = text_of(client, "main h1").await;
    assert_eq!(heading, format!("Submission {admitted}: ada@1"));
    assert!(text_of(client, "#log-build").await.contains("built-fine"));
    client.goto(&format!("{}/me", server.url)).await.unwrap();
    let states = text_of(client, "#submissions").await;
    assert!(
        states.contains("ada@1") && states.contains("playing") && states.contains("failed"),
        "{states}"
    );
    screenshot(client, "me.png").await;

    // 4. Bob's bot comes in with `arena submit`; the ladder shows both, and games played.
    let other = bare_bot_folder(
        root.path(),
        "other",
        "name = \"y\"\ncommand = \"python3 bot.py first-free\"\n",
    );
    let submitted = {
        let args = ["submit", &server.url, s(&other), "--token", &bob_token].map(str::to_owned);
        tokio::task::spawn_blocking(move || arena(&args.each_ref().map(String::as_str)))
            .await
            .unwrap()
    };
    assert_eq!(submitted.status.code(), Some(0), "{}", text(&submitted));
    let bob_id: i64 = String::from_utf8_lossy(&submitted.stderr)
        .lines()
        .find_map(|line| line.strip_prefix("arena: submission ")?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no submission number in {}", text(&submitted)));
    // The ladder's page follows the league by itself (its script makes it again when the games change).
    client.goto(&format!("{}/", server.url)).await.unwrap();
    let both_and_games = "//main[table[@id='ladder'][.//td[.='ada@1']][.//td[.='bob@1']]]\
                          [p[@class='note'][number(substring-before(., ' games')) > 0]]";
    wait_for(client, SLOW, both_and_games).await;
    // Ratings read as whole numbers of Elo.
    let whole = "//table[@id='ladder']//tr[td[.='ada@1']]/td[3][string-length(.) > 0][not(contains(., '.'))]";
    wait_for(client, browser::DEADLINE, whole).await;
    screenshot(client, "ladder.png").await;

    // 4b. Ada opens one of her games from her page: her bot's stderr is beside each of its plies, as text.
    client.goto(&format!("{}/me", server.url)).await.unwrap();
    wait_for(client, browser::DEADLINE, "//table[@id='games']//a").await;
    screenshot(client, "me-with-games.png").await;
    client
        .find(Locator::Css("#games a"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        client,
        browser::DEADLINE,
        "//table[@id='plies']//th[.='stderr of ada@1']",
    )
    .await;
    let beside = "//table[@id='plies']//tr[td[1][. > 0]][td[2]='ada@1'][td[5]/pre[starts-with(., concat('ply ', ../../td[1], ': <b>thinking</b>'))]]";
    wait_for(client, browser::DEADLINE, beside).await;
    let plies = text_of(client, "#plies").await;
    assert!(
        !plies.contains('\u{1b}') && plies.contains("<b>thinking</b> \\x1b[2J"),
        "{plies}"
    );
    assert!(
        client.find(Locator::Css("#plies pre b")).await.is_err(),
        "the bot's HTML is shown, not made"
    );
    screenshot(client, "game-stderr.png").await;

    // 4c. The games' page shows the ladder's games in progress as they are played (ada's bot takes 20 ms a
    // move, so that a game lasts long enough to be seen, and the pair plays on).
    client.goto(&format!("{}/games", server.url)).await.unwrap();
    wait_for(
        client,
        SLOW,
        "//section[@id='live-games']//div[contains(@class,'live-list')]/div[contains(@class,'live-game')]\
         [.//span[@class='live-name'][.='ada@1']][.//span[@class='live-name'][.='bob@1']]",
    )
    .await;
    screenshot(client, "games-in-progress.png").await;

    // 5. Ada's session is refused bob's submission and its log.
    client
        .goto(&format!("{}/submissions/{bob_id}", server.url))
        .await
        .unwrap();
    assert_eq!(text_of(client, "main h1").await, "Forbidden");
    let cookie = format!("Cookie: pahtum_contest_session={ada_cookie}");
    let (status, own) = get(&server, &format!("/api/submissions/{admitted}"), &cookie);
    assert_eq!(status, 200, "ada's cookie is a session: {own}");
    for path in [
        format!("/submissions/{bob_id}"),
        format!("/api/submissions/{bob_id}"),
        format!("/api/submissions/{bob_id}/logs/build"),
    ] {
        let (status, answer) = get(&server, &path, &cookie);
        assert_eq!(status, 403, "{path}: {answer}");
        assert!(!answer.contains("bob@1"), "{path}: {answer}");
    }

    // 6. The organiser sets a password with the link `init` printed, and disables bob.
    accept_invitation(
        client,
        &link(&server, &String::from_utf8_lossy(&init.stdout)),
        "organiser",
    )
    .await;
    client.goto(&format!("{}/organiser", server.url)).await.unwrap();
    // The machine's line: the build queue, the load and the cores, each a number.
    let machine = text_of(client, "#machine").await;
    let numbers: Vec<f64> = machine
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|word| word.parse().ok())
        .collect();
    assert!(
        machine.starts_with("Build queue: ") && numbers.len() == 3 && numbers[2] >= 1.0,
        "{machine}"
    );
    // The organiser voids a recorded game (as where the arena failed it): the ladder plays it again, and it
    // counts once.
    let organiser_cookie = client
        .get_named_cookie("pahtum_contest_session")
        .await
        .unwrap()
        .value()
        .to_owned();
    let journal = contest.join("league/journal.jsonl");
    let game_ids = || -> Vec<String> {
        let text = std::fs::read_to_string(&journal).unwrap_or_default();
        text.lines()
            .filter(|line| line.starts_with("{\"id\":"))
            .filter_map(|line| {
                let record: serde_json::Value = serde_json::from_str(line).ok()?;
                Some(record["id"].as_str()?.to_owned())
            })
            .collect()
    };
    let voided = game_ids().first().cloned().expect("a game played");
    let headers = [
        format!("Cookie: pahtum_contest_session={organiser_cookie}"),
        format!("Origin: {}", server.url),
        "Content-Type: application/x-www-form-urlencoded".to_owned(),
    ];
    let (status, answer) = request(
        server.address(),
        "POST",
        &format!("/organiser/games/{voided}/void"),
        &headers.each_ref().map(String::as_str),
        b"why=the+test+says+so",
        ANSWER_WITHIN,
    );
    assert_eq!(status, 303, "{answer}");
    let void_line = format!("{{\"voided\":{{\"game\":\"{voided}\",\"why\":\"the test says so\"");
    pahtum_testkit::wait_until("the voided game played again", SLOW, || {
        std::fs::read_to_string(&journal).is_ok_and(|text| text.contains(&void_line))
            && game_ids().iter().filter(|id| **id == voided).count() == 2
    });
    let cookie = format!("Cookie: pahtum_contest_session={organiser_cookie}");
    let (status, view) = get(&server, "/api/organiser", &cookie);
    assert_eq!(status, 200, "{view}");
    let view: serde_json::Value = serde_json::from_str(&contesting::body_of(&view)).unwrap();
    let names: Vec<&str> = view["authors"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["name"].as_str())
        .collect();
    assert!(names.contains(&"ada") && names.contains(&"bob"), "{view}");
    assert!(view["cores"].as_u64().is_some_and(|cores| cores >= 1), "{view}");
    let (_, page) = get(&server, &format!("/games/{voided}"), &cookie);
    assert!(
        !page.contains("id=\"voided\""),
        "its page shows the game played again: {page}"
    );
    client.goto(&format!("{}/organiser", server.url)).await.unwrap();
    let row = |name: &str| format!("//table[@id='accounts']//tr[td[1]='{name}']");
    client
        .find(Locator::XPath(&format!("{}//button[.='disable']", row("bob"))))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(client, browser::DEADLINE, &format!("{}[td[3]='disabled']", row("bob"))).await;
    assert_eq!(path_of(client).await, "/organiser");
    let ada_row = client.find(Locator::XPath(&row("ada"))).await.unwrap();
    assert!(ada_row.text().await.unwrap().contains("active"));
    let (status, _) = get(&server, "/api/me", &bearer(&bob_token));
    assert_eq!(status, 401, "a disabled author's token is refused");
    server.stop();
    // The league's journal, with its void, verifies; its table counts the voided game once.
    let verified = arena(&["verify", s(&contest.join("league"))]);
    assert!(verified.status.success(), "{}", text(&verified));
    let table = arena(&["league", "table", s(&contest.join("league")), "--format", "json"]);
    assert!(table.status.success(), "{}", text(&table));
    let table: serde_json::Value = serde_json::from_slice(&table.stdout).unwrap();
    let ids = game_ids();
    let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!(ids.len(), unique.len() + 1, "the voided game's two records");
    assert_eq!(table["games"].as_u64(), Some(unique.len() as u64), "{table}");

    eprintln!(
        "the contest in the browser took {:?}; screenshots in {}",
        started.elapsed(),
        screenshots().display()
    );
    session.client.close().await.unwrap();
}

/// An author submits a second version "only if not weaker" through the form's checkbox and watches its test
/// on the submission's page: the LLR rises as the pairs are played, the page following it without a reload,
/// until the version is promoted and plays. Her first version is the fixture bot playing the first free cell
/// 50 ms an answer, her second the engine at level 1, which wins every game; the bounds (-10 and 10 Elo) let
/// the LLR climb for a few pairs after the first 10 before it decides.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_author_watches_the_llr_of_her_versions_test_rise() {
    if !sandbox_runs() {
        return;
    }
    let Some(session) = browser::open().await else {
        return;
    };
    let client = &session.client;
    let root = private_folder();
    let (contest, _) = new_contest(root.path(), "Promotion cup");
    let settings = contest.join("contest.toml");
    let mut text_of_settings = std::fs::read_to_string(&settings).unwrap();
    text_of_settings += "[promotion]\nelo0 = -10.0\nelo1 = 10.0\nmax_games = 60\n";
    std::fs::write(&settings, text_of_settings).unwrap();
    let invited = arena(&["contest", "invite", s(&contest), "ada"]);
    assert!(invited.status.success(), "{}", text(&invited));
    let server = Server::start(&contest, &["--concurrency", "1"]);
    accept_invitation(client, &link(&server, &String::from_utf8_lossy(&invited.stdout)), "ada").await;

    let first = bare_bot_folder(
        root.path(),
        "first",
        "name = \"x\"\ncommand = \"python3 bot.py first-free 50\"\n",
    );
    upload(client, &server, &first, false).await;
    wait_for(client, SLOW, "//span[@id='state'][.='playing']").await;
    let second = bare_bot_folder(root.path(), "second", "name = \"x\"\ncommand = \"engine --level 1\"\n");
    let id = upload(client, &server, &second, true).await;
    // Built and checked, it is held (retired) while its test plays; the page reloads itself once, to show it.
    wait_for(client, SLOW, "//span[@id='state'][.='retired']").await;
    wait_for(client, SLOW, "//table[@id='promotion']").await;
    assert_eq!(text_of(client, "main h2").await, "Its test against ada@1");
    wait_for(client, SLOW, "//b[@id='llr'][number(.) > 0]").await;
    // From here the page must follow the test by itself: a reload would lose this mark.
    let first_llr = client
        .execute(
            "window.followed = true; return Number(document.getElementById('llr').textContent)",
            vec![],
        )
        .await
        .unwrap()
        .as_f64()
        .unwrap();
    screenshot(client, "promotion.png").await;
    wait_for(client, SLOW, &format!("//b[@id='llr'][number(.) > {first_llr}]")).await;
    let (followed, later) = {
        let seen = client
            .execute(
                "return [window.followed === true, Number(document.getElementById('llr').textContent)]",
                vec![],
            )
            .await
            .unwrap();
        (seen[0].as_bool().unwrap(), seen[1].as_f64().unwrap())
    };
    assert!(followed, "the page was reloaded");
    assert!(later > first_llr, "{later} after {first_llr}");
    // The verdict comes the same way: promoted, and the version plays.
    wait_for(client, SLOW, "//span[@id='promotion-state'][.='promoted']").await;
    wait_for(client, browser::DEADLINE, "//span[@id='state'][.='playing']").await;
    let followed = client.execute("return window.followed === true", vec![]).await.unwrap();
    assert_eq!(followed, serde_json::json!(true), "the page was reloaded");
    let note = text_of(client, "#note").await;
    assert!(note.starts_with("promoted: not weaker than ada@1"), "{note}");
    let pentanomial = text_of(client, "#pentanomial").await;
    let pairs: u64 = pentanomial.split(' ').map(|count| count.parse::<u64>().unwrap()).sum();
    assert!(pairs >= 10, "{pentanomial}");
    screenshot(client, "promotion-promoted.png").await;
    assert_eq!(path_of(client).await, format!("/submissions/{id}"));
    server.stop();
    session.client.close().await.unwrap();
}
