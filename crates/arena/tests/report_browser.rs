//! The HTML report in a real browser: a small real tournament, its report opened in headless Chromium, and
//! what a person would see checked there.
//!
//! The tournament has a bot that forfeits with hostile text (`tests/fixtures/bot.py hostile`: the arena's
//! own fixture bot, since an integration test can only count on its own package's binaries, and the
//! referee's `fixture-bot` is not one): its info comment, its stderr and its offending line hold
//! `</script>`, an `<img onerror>` and invalid UTF-8, which must appear on the page as literal text while
//! `window.pwned` stays undefined.
//!
//! Chromium is driven over WebDriver with fantoccini and chromedriver (the Debian packages `chromium` and
//! `chromium-driver`): WebDriver is a W3C standard that chromedriver speaks for the browser of the same
//! package version, and fantoccini is a small, well-kept client on the tokio the arena already uses. With
//! `CI=true` a missing browser fails the test; elsewhere the test is skipped with a line saying how to
//! install it. Screenshots of the report (desktop and phone width) and of a replay are saved under
//! `target/report-screenshots/`.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
const DEADLINE: Duration = Duration::from_secs(30);
const HOSTILE: &str = r#"</script><script>window.pwned=1</script><img src=x onerror="window.pwned=1"><!--"#;

/// A chromedriver process, killed when dropped.
struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Chromium and chromedriver on the PATH, or `None` (after failing in CI, or printing how to install them).
fn browser() -> Option<(PathBuf, PathBuf)> {
    let find = |name: &str| {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|dir| dir.join(name))
            .find(|path| path.is_file())
    };
    match (find("chromium"), find("chromedriver")) {
        (Some(chromium), Some(driver)) => Some((chromium, driver)),
        _ if std::env::var("CI").is_ok_and(|ci| ci == "true") => {
            panic!("CI=true but chromium or chromedriver is missing: apt-get install -y chromium chromium-driver")
        }
        _ => {
            println!(
                "skipped: the browser test needs chromium and chromedriver; install them with \
                 `apt-get update && apt-get install -y chromium chromium-driver`"
            );
            None
        }
    }
}

fn start_driver(program: &Path) -> Driver {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = Command::new(program)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let driver = Driver { child, port };
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < DEADLINE, "chromedriver did not listen on port {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
    driver
}

async fn connect(driver: &Driver, chromium: &Path, profile: &Path) -> Client {
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1280,1000",
    ]
    .map(String::from)
    .into_iter()
    .chain([format!("--user-data-dir={}", profile.display())])
    .collect::<Vec<_>>();
    let capabilities = json!({
        "browserName": "chrome",
        "goog:chromeOptions": { "binary": chromium, "args": args },
    });
    let Value::Object(capabilities) = capabilities else {
        unreachable!()
    };
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a WebDriver session with chromium")
}

/// Plays a round-robin of `heuristic`, `first-free` and the hostile bot, two games a pair; returns the run's
/// output folder.
fn play_tournament(dir: &Path) -> PathBuf {
    let bot = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bot.py");
    let file = dir.join("t.toml");
    std::fs::write(
        &file,
        format!(
            "name = \"browser\"\nseed = 7\ngames_per_pair = 2\n[rules]\nblocks = [7]\n[time]\nmove_ms = 2000\n\
             [[bots]]\nname = \"heuristic\"\nbuiltin = \"heuristic\"\n\
             [[bots]]\nname = \"first-free\"\nbuiltin = \"first-free\"\n\
             [[bots]]\nname = \"hostile\"\ncommand = \"python3 {} hostile\"\n",
            bot.display()
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let status = Command::new(ARENA)
        .args(["run", "--out"])
        .arg(&out)
        .arg(&file)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "arena run failed: {status}");
    out
}

fn screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("report-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn text(client: &Client, selector: &str) -> String {
    client.find(Locator::Css(selector)).await.unwrap().text().await.unwrap()
}

async fn texts(client: &Client, selector: &str) -> Vec<String> {
    let mut out = Vec::new();
    for element in client.find_all(Locator::Css(selector)).await.unwrap() {
        out.push(element.text().await.unwrap());
    }
    out
}

/// Waits until the viewer shows game `id`.
async fn wait_for_game(client: &Client, id: &str) {
    let title = format!("Game {id}");
    let start = Instant::now();
    while text(client, "#viewer-title").await != title {
        assert!(start.elapsed() < DEADLINE, "the viewer did not open game {id}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_report_shows_standings_crosstable_replays_and_forfeits_and_runs_no_bot_script() {
    let Some((chromium, driver_program)) = browser() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = play_tournament(dir.path());
    let standings: Value = serde_json::from_str(&std::fs::read_to_string(out.join("standings.json")).unwrap()).unwrap();
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    let records: Vec<Value> = journal
        .lines()
        .skip(1)
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();

    let driver = start_driver(&driver_program);
    let client = connect(&driver, &chromium, &dir.path().join("profile")).await;
    let url = format!("file://{}", out.join("report.html").display());
    client.goto(&url).await.unwrap();
    client
        .wait()
        .for_element(Locator::Css("body[data-ready=true]"))
        .await
        .unwrap();
    let shots = screenshots();
    std::fs::write(shots.join("report.png"), client.screenshot().await.unwrap()).unwrap();

    // The standings rows, in rank order.
    let rows = texts(&client, "table.standings tbody tr td:nth-child(2)").await;
    let expected: Vec<&str> = standings["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["bot"].as_str().unwrap())
        .collect();
    assert_eq!(rows, expected);
    assert_eq!(
        rows.last().map(String::as_str),
        Some("hostile"),
        "the bot that forfeits every game is last"
    );

    // A crosstable cell: the first bot against the second, as points/games.
    let tally = &standings["crosstable"]["results"][0][1];
    let cell = text(&client, "table.crosstable tbody tr:nth-child(1) td:nth-child(4)").await;
    let points = tally["points"].as_f64().unwrap();
    let points = if points.fract() == 0.0 {
        format!("{points:.0}")
    } else {
        format!("{points:.1}")
    };
    assert_eq!(cell, format!("{points}/{}", tally["games"]));

    // Clicking the cell lists that pair's games.
    client
        .find(Locator::Css("table.crosstable tbody tr:nth-child(1) td:nth-child(4) a"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let pair_games = texts(&client, "#games-body tr td:nth-child(1)").await;
    assert_eq!(
        pair_games.len() as u64,
        tally["games"].as_u64().unwrap(),
        "{pair_games:?}"
    );

    // A normal game, opened from the list and stepped to its end, shows the record's score.
    let normal = records.iter().find(|r| r["termination"]["reason"] == "normal").unwrap();
    let id = normal["id"].as_str().unwrap();
    client
        .find(Locator::Css(&format!("#games-body tr[data-id='{id}']")))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_game(&client, id).await;
    let moves = normal["moves"].as_array().unwrap().len() + usize::from(!normal["swap"].is_null());
    assert_eq!(text(&client, "#position").await, format!("move 0 of {moves}"));
    client
        .find(Locator::Css("#forward"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    assert_eq!(text(&client, "#position").await, format!("move 1 of {moves}"));
    client.find(Locator::Css("#last")).await.unwrap().click().await.unwrap();
    assert_eq!(text(&client, "#position").await, format!("move {moves} of {moves}"));
    let score = format!(
        "White {} – {} Black (final)",
        normal["score"]["white"], normal["score"]["black"]
    );
    assert_eq!(text(&client, "#score").await, score);
    client
        .find(Locator::Css("body"))
        .await
        .unwrap()
        .send_keys("\u{E012}")
        .await
        .unwrap(); // ArrowLeft
    assert_eq!(
        text(&client, "#position").await,
        format!("move {} of {moves}", moves - 1)
    );
    client.find(Locator::Css("#last")).await.unwrap().click().await.unwrap();
    std::fs::write(shots.join("replay.png"), client.screenshot().await.unwrap()).unwrap();

    // A forfeit shows its verdict, its offending line and the bot's stderr, literally.
    let forfeit = records
        .iter()
        .find(|r| r["termination"]["forfeit"]["bot"] == "hostile")
        .unwrap();
    let id = forfeit["id"].as_str().unwrap();
    client.goto(&format!("{url}#game={id}")).await.unwrap();
    wait_for_game(&client, id).await;
    let verdict = text(&client, "#verdict .verdict-line").await;
    assert!(
        verdict.starts_with("Forfeit: hostile") && verdict.contains("broke the protocol"),
        "{verdict}"
    );
    let line = text(&client, "#verdict .offending-line").await;
    assert!(line.contains(HOSTILE) && line.contains('\u{FFFD}'), "{line}");
    let stderr = text(&client, "#verdict .stderr-tail").await;
    assert!(stderr.contains(HOSTILE) && stderr.contains("invalid UTF-8"), "{stderr}");
    // The hostile bot's first answer, with its info comment.
    let moves = client.find_all(Locator::Css("#moves li")).await.unwrap();
    let mut hostile_move = None;
    for item in moves {
        if item.text().await.unwrap().contains("(hostile)") {
            hostile_move = Some(item);
            break;
        }
    }
    hostile_move.expect("a move by the hostile bot").click().await.unwrap();
    let info = text(&client, "#move-info").await;
    assert!(info.contains(HOSTILE), "the hostile bot's info comment: {info}");
    client
        .execute("document.getElementById('verdict').scrollIntoView()", vec![])
        .await
        .unwrap();
    std::fs::write(shots.join("forfeit.png"), client.screenshot().await.unwrap()).unwrap();

    assert_eq!(
        client.execute("return typeof window.pwned", vec![]).await.unwrap(),
        json!("undefined")
    );
    assert!(
        client.find_all(Locator::Css("img")).await.unwrap().is_empty(),
        "no element from a bot's text"
    );

    client.set_window_size(390, 844).await.unwrap();
    client.goto(&url).await.unwrap();
    client
        .wait()
        .for_element(Locator::Css("body[data-ready=true]"))
        .await
        .unwrap();
    std::fs::write(shots.join("report-phone.png"), client.screenshot().await.unwrap()).unwrap();
    client
        .goto(&format!("{url}#game={}&ply=end", normal["id"].as_str().unwrap()))
        .await
        .unwrap();
    wait_for_game(&client, normal["id"].as_str().unwrap()).await;
    assert_eq!(
        text(&client, "#score").await,
        score,
        "the same replay at a phone's width"
    );
    std::fs::write(shots.join("replay-phone.png"), client.screenshot().await.unwrap()).unwrap();
    client.close().await.unwrap();
}
