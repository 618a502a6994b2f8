//! `arena serve` over plain HTTP, as a real process: the runs of a folder,
//! a run's page and its event stream, and the refusals that keep the server
//! to its owner (a foreign `Host`, a missing or wrong token, a change from
//! another origin, a name that tries to leave the folder, hostile folder
//! names shown as text), and in a real browser, a run's page following the
//! run without reloading. Screenshots of the runs page and a live run go to
//! `target/serve-screenshots/`.

mod serving;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;
use fantoccini::Locator;
use pahtum_testkit::{browser, wait_until};
use serving::{Server, ask, screenshots};

fn arena(args: &[&str]) {
    let output = Command::cargo_bin("arena").unwrap().args(args).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

/// A folder with one finished match, `m`.
fn folder_with_a_run() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    arena(&[
        "match",
        "first-free",
        "heuristic",
        "--games",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    dir
}

#[test]
fn the_runs_and_a_runs_page_are_served_on_loopback() {
    let dir = folder_with_a_run();
    let server = Server::start(dir.path(), &["--listen", "127.0.0.1:0"]);
    assert!(
        server.url.starts_with("http://127.0.0.1:") && !server.url.contains("token"),
        "{}",
        server.url
    );
    let (status, runs) = server.get("/");
    assert_eq!(status, 200, "{runs}");
    assert!(
        runs.contains("<a href=\"/runs/m\">m</a>") && runs.contains("2 / 2") && runs.contains("finished"),
        "{runs}"
    );
    let (status, page) = server.get("/runs/m");
    assert_eq!(status, 200);
    assert!(
        page.contains("id=\"standings\"") && page.contains("new EventSource"),
        "the report, live"
    );
    for header in [
        "content-security-policy: default-src 'none'",
        "x-frame-options: DENY",
        "referrer-policy: no-referrer",
    ] {
        assert!(page.to_lowercase().contains(&header.to_lowercase()), "{header}");
    }
}

#[test]
fn a_foreign_host_and_names_that_leave_the_folder_are_refused() {
    let dir = folder_with_a_run();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir(outside.path().join("secret")).unwrap();
    std::fs::copy(
        dir.path().join("m/journal.jsonl"),
        outside.path().join("secret/journal.jsonl"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("link")).unwrap();
    let server = Server::start(dir.path(), &["--listen", "127.0.0.1:0"]);
    // DNS rebinding: a site whose name points at 127.0.0.1 sends its own name.
    for host in [
        "Host: evil.example",
        "Host: evil.example:80",
        "Host: 127.0.0.1.evil.example",
    ] {
        let (status, answer) = server.ask("GET", "/", &[host]);
        assert_eq!(status, 403, "{host}: {answer}");
        assert!(answer.contains("loopback host name"), "{answer}");
    }
    for path in [
        "/runs/link",
        "/runs/..",
        "/runs/../m",
        "/runs/..%2Fm",
        "/runs/%2Fetc",
        "/runs/m%2F..%2F..%2Fetc",
        "/runs/.m",
        "/runs/nothing",
        "/runs/%00",
    ] {
        let (status, answer) = server.get(path);
        assert!(status == 404 || status == 400, "{path}: {answer}");
        assert!(!answer.contains("id=\"standings\""), "{path}");
    }
}

#[test]
fn elsewhere_than_loopback_every_request_needs_the_token() {
    let dir = folder_with_a_run();
    let server = Server::start(dir.path(), &["--listen", "0.0.0.0:0"]);
    let token = server
        .url
        .split("?token=")
        .nth(1)
        .expect("a token in the printed address")
        .to_owned();
    assert_eq!(token.len(), 32);
    let (status, answer) = server.get("/");
    assert_eq!(status, 401, "{answer}");
    assert_eq!(server.get("/runs/m").0, 401);
    assert_eq!(server.get("/?token=wrong").0, 401);
    let (status, answer) = server.get(&format!("/?token={token}"));
    assert_eq!(status, 200);
    assert!(
        answer
            .to_lowercase()
            .contains(&format!("set-cookie: pahtum_token={token}; httponly; samesite=strict")),
        "{answer}"
    );
    assert_eq!(
        server
            .ask("GET", "/runs/m", &[&format!("Cookie: pahtum_token={token}")])
            .0,
        200
    );
    assert_eq!(
        server
            .ask("GET", "/runs/m", &[&format!("Authorization: Bearer {token}")])
            .0,
        200
    );
    // Any Host is fine here: the token is the guard.
    assert_eq!(
        server
            .ask(
                "GET",
                "/",
                &["Host: arena.lan", &format!("Authorization: Bearer {token}")]
            )
            .0,
        200
    );
}

#[test]
fn a_change_from_another_origin_is_refused() {
    let dir = folder_with_a_run();
    let server = Server::start(dir.path(), &["--listen", "127.0.0.1:0"]);
    let (status, answer) = server.ask("POST", "/", &["Origin: http://evil.example"]);
    assert_eq!(status, 403, "{answer}");
    assert!(answer.contains("another site"), "{answer}");
    let (status, _) = server.ask("POST", "/", &["Sec-Fetch-Site: cross-site"]);
    assert_eq!(status, 403);
    // From the page's own origin, the request reaches the router (which has no such route).
    let origin = format!("Origin: http://{}", server.address);
    assert_eq!(server.ask("POST", "/", &[&origin]).0, 405);
}

#[test]
fn hostile_folder_names_are_shown_as_text() {
    let dir = folder_with_a_run();
    let hostile = "<img src=x onerror=alert(1)>";
    std::fs::rename(dir.path().join("m"), dir.path().join(hostile)).unwrap();
    let server = Server::start(dir.path(), &["--listen", "127.0.0.1:0"]);
    let (status, runs) = server.get("/");
    assert_eq!(status, 200);
    assert!(!runs.contains(hostile), "{runs}");
    assert!(runs.contains("&lt;img src=x onerror=alert(1)&gt;"), "{runs}");
}

/// A run played while the server follows it: the run's event stream says
/// so as its games end, and the runs page calls it playing until it ends.
#[test]
fn a_run_in_progress_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("live");
    let server = Server::start(dir.path(), &["--listen", "127.0.0.1:0"]);
    // Slow enough to be seen playing: the engine thinks 50 ms a move.
    let mut run = slow_match(6, "50ms", &out, &[], Stdio::null());
    let deadline = Instant::now() + Duration::from_secs(60);
    while !out.join("journal.jsonl").exists() {
        assert!(Instant::now() < deadline, "the run never started");
        std::thread::yield_now();
    }
    let (_, runs) = server.get("/");
    assert!(runs.contains("playing"), "{runs}");
    // Each event says the journal's length, which has grown since before the stream.
    let start = std::fs::metadata(out.join("journal.jsonl")).unwrap().len();
    let mut events = TcpStream::connect(&server.address).unwrap();
    write!(
        events,
        "GET /runs/live/events HTTP/1.1\r\nHost: {}\r\n\r\n",
        server.address
    )
    .unwrap();
    events.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut reader = BufReader::new(events);
    // The first event says the length as the stream starts; the others as it grows.
    let mut lengths = Vec::new();
    while lengths.last().is_none_or(|&length| length <= start) {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0, "the stream ended");
        if let Some(data) = line.strip_prefix("data: ") {
            lengths.push(data.trim().parse::<u64>().unwrap());
        }
    }
    assert!(lengths[0] >= start && lengths.is_sorted(), "{lengths:?} after {start}");
    assert!(run.wait().unwrap().success());
    let (_, runs) = server.get("/");
    assert!(runs.contains("6 / 6") && runs.contains("finished"), "{runs}");
}

/// `arena match engine first-free` into `out`, started, one game at a time,
/// the engine thinking `move_time` a move: slow enough to be followed while
/// it plays. `extra` arguments are added; its stderr goes to `stderr`.
fn slow_match(games: u32, move_time: &str, out: &Path, extra: &[&str], stderr: Stdio) -> Child {
    Command::cargo_bin("arena")
        .unwrap()
        .args(["match", "engine", "first-free", "--concurrency", "1"])
        .args(["--games", &games.to_string(), "--move-time", move_time])
        .args(extra)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

/// The address that `run` (with `--serve` and its stderr piped) says it serves its run at, and the rest
/// of its stderr.
fn served_at(run: &mut Child) -> (String, BufReader<std::process::ChildStderr>) {
    let mut stderr = BufReader::new(run.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("serving this run at ") {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "no address was printed");
    }
    let url = line.split("serving this run at ").nth(1).unwrap().trim().to_owned();
    (url, stderr)
}

/// A run started in a terminal, opened in the browser mid-run: its tables
/// change without the page reloading, and once the run has ended they are
/// those of the run's own `report.html`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_page_follows_a_run_without_reloading() {
    let Some(Watched {
        dir: _dir,
        out,
        server,
        _browser,
        client,
        mut run,
    }) = watch_a_slow_match(8).await
    else {
        return;
    };
    client.goto(&format!("http://{}/", server.address)).await.unwrap();
    client
        .screenshot()
        .await
        .map(|png| std::fs::write(screenshots().join("runs.png"), png))
        .unwrap()
        .unwrap();
    client
        .goto(&format!("http://{}/runs/live", server.address))
        .await
        .unwrap();
    let summary = || async {
        client
            .find(Locator::Css("header .summary"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };
    let first = summary().await;
    // A mark that a reload would wipe out.
    client
        .execute("window.stayed = true; return null", vec![])
        .await
        .unwrap();
    client
        .wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css("body[data-updated]"))
        .await
        .unwrap();
    assert_ne!(summary().await, first, "the summary follows the games");
    client
        .screenshot()
        .await
        .map(|png| std::fs::write(screenshots().join("live-run.png"), png))
        .unwrap()
        .unwrap();
    assert!(run.wait().unwrap().success());
    shows_the_report_without_reloading(&client, &out).await;
    client.close().await.unwrap();
}

/// A browser, a server of a fresh folder, and a run in it being played.
struct Watched {
    dir: tempfile::TempDir,
    /// The run's folder, `live` in `dir`.
    out: std::path::PathBuf,
    server: Server,
    /// The driver and the browser's profile, for as long as the browser runs.
    _browser: (browser::Driver, tempfile::TempDir),
    client: fantoccini::Client,
    run: Child,
}

/// A server of a fresh folder, a browser, and a slow match of `games` games
/// played into the folder's run `live`, once it has recorded a game; `None`
/// where there is no browser.
async fn watch_a_slow_match(games: u32) -> Option<Watched> {
    watch_a_run(|dir| slow_match(games, "100ms", &dir.join("live"), &[], Stdio::null())).await
}

/// As [`watch_a_slow_match`], with the run that `start` starts in the folder it is given (into its run
/// `live`).
async fn watch_a_run(start: impl FnOnce(&Path) -> Child) -> Option<Watched> {
    // The browser first, so that its start-up does not eat the run's time.
    let browser::Session { client, _held: held } = browser::open().await?;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("live");
    let server = Server::start(dir.path(), &["--listen", "127.0.0.1:0"]);
    let run = start(dir.path());
    let journal = out.join("journal.jsonl");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&journal).is_ok_and(|text| text.lines().count() >= 2) {
        assert!(Instant::now() < deadline, "the run recorded no game");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Some(Watched {
        dir,
        out,
        server,
        _browser: held,
        client,
        run,
    })
}

/// Opens the page of the run `live` of `server` in `client`, and marks it (`window.stayed`), so that a
/// reload would show.
async fn open_the_run(client: &fantoccini::Client, server: &Server) {
    client
        .goto(&format!("http://{}/runs/live", server.address))
        .await
        .unwrap();
    client
        .execute("window.stayed = true; return null", vec![])
        .await
        .unwrap();
}

/// Waits until the page in `client` shows the tables of the `report.html` of
/// the run in `out` (parsed in the same page), and checks that it was not
/// reloaded since `window.stayed` was set, and that no bot's text ran.
async fn shows_the_report_without_reloading(client: &fantoccini::Client, out: &Path) {
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    let same = "const [report] = arguments; \
                const parsed = new DOMParser().parseFromString(report, 'text/html'); \
                return ['#standings', '#crosstable', 'header .summary'].every(part => \
                  parsed.querySelector(part)?.textContent === document.querySelector(part)?.textContent)";
    let deadline = Instant::now() + Duration::from_secs(30);
    while client.execute(same, vec![report.clone().into()]).await.unwrap() != serde_json::Value::Bool(true) {
        assert!(
            Instant::now() < deadline,
            "the live page never showed report.html's tables"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let stayed = client.execute("return window.stayed === true", vec![]).await.unwrap();
    assert_eq!(stayed, serde_json::Value::Bool(true), "the page was reloaded");
    let pwned = client.execute("return typeof window.pwned", vec![]).await.unwrap();
    assert_eq!(pwned, serde_json::json!("undefined"));
}

/// The live connection is cut (the server stops) while the run plays on and
/// ends; when a server is back at the same address, the page, which
/// reconnects by itself, catches up with the games it missed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_whose_connection_was_cut_catches_up() {
    let Some(Watched {
        dir,
        out,
        server,
        _browser,
        client,
        mut run,
    }) = watch_a_slow_match(6).await
    else {
        return;
    };
    open_the_run(&client, &server).await;
    let address = server.address.clone();
    drop(server);
    assert!(run.wait().unwrap().success());
    let _back = Server::start(dir.path(), &["--listen", &address]);
    shows_the_report_without_reloading(&client, &out).await;
    client.close().await.unwrap();
}

/// `arena match --serve`: the running arena serves its own run (and only
/// it) while it plays, and stops serving when it ends.
#[test]
fn a_match_serves_its_own_run_while_it_plays() {
    let dir = folder_with_a_run();
    let mut run = slow_match(
        6,
        "100ms",
        &dir.path().join("own"),
        &["--serve", "127.0.0.1:0"],
        Stdio::piped(),
    );
    let (url, mut stderr) = served_at(&mut run);
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/runs/own"),
        "{url}"
    );
    let address = url.trim_start_matches("http://").split('/').next().unwrap().to_owned();
    let (status, page) = ask(&address, "GET", "/runs/own", &[]);
    assert_eq!(status, 200, "{page}");
    let (_, runs) = ask(&address, "GET", "/", &[]);
    assert!(
        runs.contains("/runs/own") && !runs.contains("/runs/m\""),
        "only its own run: {runs}"
    );
    assert_eq!(ask(&address, "GET", "/runs/m", &[]).0, 404);
    // Stalled clients, which ask and never read, neither block the run nor keep it from ending.
    let stalled: Vec<TcpStream> = ["/runs/own", "/runs/own/events", "/events"]
        .iter()
        .map(|path| {
            let mut stream = TcpStream::connect(&address).unwrap();
            write!(stream, "GET {path} HTTP/1.1\r\nHost: {address}\r\n\r\n").unwrap();
            stream
        })
        .collect();
    std::io::copy(&mut stderr, &mut std::io::sink()).unwrap();
    assert!(run.wait().unwrap().success());
    drop(stalled);
    assert!(TcpStream::connect(&address).is_err(), "still serving after the run");
}

// ---- The games in progress -------------------------------------------------------------------------------

/// The info comment of the fixture bot `hostile-info`: text that would run script on a page that took it
/// as markup, and control characters.
const HOSTILE_INFO: &str =
    "</script><script>window.pwned=1</script><img src=x onerror=\"window.pwned=1\"><!--\u{7}\u{1b}[31m\r\u{0}";

/// `arena run` in a terminal, without a flag, of `games` games, one at a time, between `first-free` and the
/// fixture bot `hostile-info`, which answers after `delay_ms`: slow enough to watch its moves.
fn hostile_run(dir: &Path, games: u32, delay_ms: u32) -> Child {
    let bot = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bot.py");
    let file = dir.join("live.toml");
    std::fs::write(
        &file,
        format!(
            "name = \"live\"\ngames_per_pair = {games}\nconcurrency = 1\n[rules]\nblocks = [5]\n[time]\nmove_ms = \
             5000\n[[bots]]\nname = \"first-free\"\nbuiltin = \"first-free\"\n\
             [[bots]]\nname = \"hostile\"\ncommand = \"python3 {} hostile-info {delay_ms}\"\n",
            bot.display()
        ),
    )
    .unwrap();
    Command::cargo_bin("arena")
        .unwrap()
        .args(["run", "--out"])
        .arg(dir.join("live"))
        .arg(&file)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// A run started in a terminal, opened mid-run: a game-in-progress board advances without a reload, the
/// hostile bot's `info` shows as literal text, and the game followed becomes its replay when it ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_games_in_progress_advance_on_the_page() {
    let Some(Watched {
        dir: _dir,
        server,
        _browser,
        client,
        mut run,
        ..
    }) = watch_a_run(|dir| hostile_run(dir, 4, 60)).await
    else {
        return;
    };
    open_the_run(&client, &server).await;
    // A game in progress, at some ply; then the same game further on.
    let at = "const card = document.querySelector('#live-games .live-list .live-game'); \
              return card ? [card.dataset.game, Number(card.dataset.plies)] : null";
    let mut first: Option<(String, u64)> = None;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let now = client.execute(at, vec![]).await.unwrap();
        if let Some([game, plies]) = now.as_array().map(|pair| [pair[0].clone(), pair[1].clone()]) {
            let (game, plies) = (game.as_str().unwrap().to_owned(), plies.as_u64().unwrap());
            match &first {
                None => first = Some((game, plies)),
                Some((seen, then)) if *seen == game && plies > *then => break,
                Some(_) => {}
            }
        }
        assert!(Instant::now() < deadline, "no board advanced: {first:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The hostile bot's info, as text, beside a board.
    let comment = "const comment = document.querySelector('#live-games .live-comment'); \
                   return comment ? comment.textContent : null";
    let mut shown = serde_json::Value::Null;
    let deadline = Instant::now() + Duration::from_secs(60);
    while shown.is_null() {
        assert!(Instant::now() < deadline, "no info was shown");
        shown = client.execute(comment, vec![]).await.unwrap();
    }
    assert_eq!(shown, serde_json::json!(HOSTILE_INFO));
    let markup = "return document.querySelectorAll('#live-games img, #live-games script').length";
    assert_eq!(client.execute(markup, vec![]).await.unwrap(), serde_json::json!(0));
    client
        .screenshot()
        .await
        .map(|png| std::fs::write(screenshots().join("live-games.png"), png))
        .unwrap()
        .unwrap();
    // Followed large, the game becomes its replay when it ends.
    // A game far from its end, so that it is still on when clicked.
    let follow = "const card = [...document.querySelectorAll('#live-games .live-list .live-game')] \
                    .find(card => Number(card.dataset.plies) < 25); \
                  if (!card) return null; card.click(); return card.dataset.game";
    let mut followed = serde_json::Value::Null;
    let deadline = Instant::now() + Duration::from_secs(60);
    while followed.is_null() {
        assert!(Instant::now() < deadline, "no game to follow");
        followed = client.execute(follow, vec![]).await.unwrap();
    }
    let followed = followed.as_str().unwrap().to_owned();
    client
        .wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css("#viewer:not([hidden])"))
        .await
        .unwrap();
    let title = client
        .find(Locator::Css("#viewer-title"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(title, format!("Game {followed}"));
    let score = "return document.getElementById('score').textContent";
    let score = client.execute(score, vec![]).await.unwrap();
    assert!(score.as_str().unwrap().ends_with("(final)"), "{score}");
    assert!(run.wait().unwrap().success());
    let stayed = client.execute("return window.stayed === true", vec![]).await.unwrap();
    assert_eq!(stayed, serde_json::Value::Bool(true), "the page was reloaded");
    let pwned = client.execute("return typeof window.pwned", vec![]).await.unwrap();
    assert_eq!(pwned, serde_json::json!("undefined"));
    client.close().await.unwrap();
}

/// The lines of the stream of the games of run `name` (`/runs/NAME/games`) of the server at `address`, as
/// they come.
fn games_stream(address: &str, name: &str) -> impl Iterator<Item = serde_json::Value> {
    let mut stream = TcpStream::connect(address).unwrap();
    write!(stream, "GET /runs/{name}/games HTTP/1.1\r\nHost: {address}\r\n\r\n").unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    BufReader::new(stream).lines().map_while(Result::ok).filter_map(|line| {
        line.strip_prefix("data: ")
            .map(|data| serde_json::from_str(data).unwrap())
    })
}

/// The socket of a run's games is the owner's only, replaces a stale one left by a killed run, and is
/// removed when the run ends; a server meanwhile treats a stale socket as no game playing and follows the
/// live one.
#[test]
fn the_games_socket_lives_as_long_as_its_run() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    // A finished run whose folder holds a stale socket (bound, never listened to again).
    let dir = folder_with_a_run();
    let out = dir.path().join("m");
    let socket = out.join("live.sock");
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    assert!(std::os::unix::net::UnixStream::connect(&socket).is_err(), "stale");
    let server = Server::start(dir.path(), &["--listen", "127.0.0.1:0"]);
    let first = games_stream(&server.address, "m").next().unwrap();
    assert_eq!(first, serde_json::json!({"type": "snapshot", "games": [], "ended": []}));
    assert_eq!(server.get("/runs/m").0, 200);
    // A new run in the folder, with a socket of its own in place of the stale one.
    let mut run = slow_match(4, "50ms", &out, &["--fresh"], Stdio::null());
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        assert!(Instant::now() < deadline, "the run opened no socket");
        std::thread::yield_now();
    }
    let meta = std::fs::symlink_metadata(&socket).unwrap();
    assert!(meta.file_type().is_socket());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    // The server follows it: a snapshot, then moves as they are played.
    let moves = games_stream(&server.address, "m")
        .flat_map(|event| {
            let events = match event["type"].as_str() {
                Some("snapshot") => event["games"].as_array().unwrap().clone(),
                _ => vec![event],
            };
            events.into_iter()
        })
        .find(|event| event["type"] == "move")
        .unwrap();
    assert!(
        moves["ply"]["clocks"].is_array() && moves["ply"]["unix_ms"].is_number(),
        "{moves}"
    );
    assert!(run.wait().unwrap().success());
    assert!(!socket.exists(), "the socket outlived its run");
}

/// `arena match --serve` shows its games in progress from the runner in the process.
#[test]
fn a_match_serving_itself_shows_its_games_in_progress() {
    let dir = tempfile::tempdir().unwrap();
    let mut run = slow_match(
        2,
        "50ms",
        &dir.path().join("own"),
        &["--serve", "127.0.0.1:0"],
        Stdio::piped(),
    );
    let (url, mut stderr) = served_at(&mut run);
    let address = url.trim_start_matches("http://").split('/').next().unwrap();
    let played = games_stream(address, "own")
        .flat_map(|event| match event["type"].as_str() {
            Some("snapshot") => event["games"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|game| game["plies"].as_array().unwrap().clone())
                .collect(),
            Some("move") => vec![event["ply"].clone()],
            _ => Vec::new(),
        })
        .find(|ply| ply["ms"].is_number())
        .unwrap();
    assert!(played["clocks"][1]["used_ms"].is_number(), "{played}");
    std::io::copy(&mut stderr, &mut std::io::sink()).unwrap();
    assert!(run.wait().unwrap().success());
}

/// Readers of the socket never hold up the run: one that never reads costs it nothing and gets a bounded
/// backlog, and one that falls behind gets a fresh snapshot in place of what it missed.
#[test]
fn readers_that_fall_behind_do_not_hold_up_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fast");
    let games = 1500;
    let mut run = Command::cargo_bin("arena")
        .unwrap()
        .args([
            "match",
            "first-free",
            "first-free",
            "--games",
            &games.to_string(),
            "--out",
        ])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let socket = out.join("live.sock");
    let connect = || {
        let mut stream = None;
        wait_until("the run opens its socket", Duration::from_secs(60), || {
            stream = std::os::unix::net::UnixStream::connect(&socket).ok();
            stream.is_some()
        });
        stream.unwrap()
    };
    let never = connect();
    let behind = connect();
    // The reader that falls behind reads one line, then nothing until a few hundred games are in.
    let mut behind = BufReader::new(behind);
    let mut line = String::new();
    behind.read_line(&mut line).unwrap();
    assert!(line.starts_with(r#"{"type":"snapshot""#), "{line}");
    wait_until("a few hundred games are in", Duration::from_secs(60), || {
        std::fs::read_to_string(out.join("journal.jsonl")).is_ok_and(|journal| journal.lines().count() > 300)
    });
    let mut snapshots = 0;
    let mut lines = 0;
    for line in behind.lines() {
        let line = line.unwrap();
        lines += 1;
        snapshots += usize::from(line.starts_with(r#"{"type":"snapshot""#));
    }
    assert!(snapshots >= 1, "no fresh snapshot after falling behind ({lines} lines)");
    // Ends while the other reader still has not read a byte.
    let mut ended = None;
    wait_until("the run ends", Duration::from_secs(60), || {
        ended = run.try_wait().unwrap();
        ended.is_some()
    });
    assert!(ended.unwrap().success());
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), games + 1, "every game, with the header");
    // The reader that never read had a bounded backlog: far less than the run's moves.
    let mut backlog = Vec::new();
    BufReader::new(never).read_to_end(&mut backlog).unwrap();
    let moves = journal.matches(r#""cell":""#).count();
    assert!(moves > 30_000, "{moves}");
    let backlog_lines = backlog.iter().filter(|&&byte| byte == b'\n').count();
    assert!(backlog_lines < moves / 10, "{backlog_lines} lines of {moves} moves");
}
