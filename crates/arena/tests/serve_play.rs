//! Play in the browser (`arena serve`'s `/play`), against a real `arena serve`
//! process: a person (the test) plays a whole game against `first-free` by
//! clicking in headless Chromium, with a block placement, the pie decision,
//! an undo and a reload in the middle, and the saved record replays to its
//! score; a hostile bot's text stays text, at a phone's width; and the plain
//! HTTP refusals: a bot not in the roster, a change from another origin, an
//! oversized body, more games than `--max-games`, and a game abandoned.

mod serving;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};
use pahtum_record::GameRecord;
use pahtum_testkit::browser;
use serde_json::{Value, json};
use serving::{Server, screenshots};

const HOSTILE: &str = r#"</script><script>window.pwned=1</script><img src=x onerror="window.pwned=1"><!--"#;

/// The one game of the journal of the played game `id` in `dir`, once it is written.
fn saved_record(dir: &Path, id: &str) -> GameRecord {
    let journal = dir.join("play").join(id).join("journal.jsonl");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let text = std::fs::read_to_string(&journal).unwrap_or_default();
        if let Some(line) = text.lines().nth(1) {
            return serde_json::from_str(line).unwrap();
        }
        assert!(Instant::now() < deadline, "no record in {}", journal.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Saves the page as `target/serve-screenshots/NAME`.
async fn screenshot(client: &Client, name: &str) {
    let png = client.screenshot().await.unwrap();
    std::fs::write(screenshots().join(name), png).unwrap();
}

/// The game's id, from the page's address (`/play/ID`).
async fn game_id(client: &Client) -> String {
    let url = client.current_url().await.unwrap();
    url.path().trim_start_matches("/play/").to_owned()
}

/// What the page says: the game's stage and the version of its state.
async fn stage(client: &Client) -> (String, String) {
    let value = client
        .execute(
            "return [document.body.dataset.stage || '', document.body.dataset.version || '']",
            vec![],
        )
        .await
        .unwrap();
    (
        value[0].as_str().unwrap().to_owned(),
        value[1].as_str().unwrap().to_owned(),
    )
}

/// Waits until the page shows a state other than `before` in which the person is asked or the game is over.
async fn settled(client: &Client, before: &str) -> String {
    let deadline = Instant::now() + browser::DEADLINE;
    loop {
        let (stage, version) = stage(client).await;
        if version != before && (stage == "your_move" || stage == "over") {
            return stage;
        }
        assert!(Instant::now() < deadline, "the page stayed at {stage} {version}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The text of the element whose id is `id`.
async fn text(client: &Client, id: &str) -> String {
    let element = client.find(Locator::Id(id)).await.unwrap();
    element.text().await.unwrap()
}

/// The plies on the page's board: its viewer's position, "ply N of M".
async fn plies(client: &Client) -> String {
    text(client, "position").await
}

/// Clicks `selector` and waits for the state that follows.
async fn click(client: &Client, selector: &str) -> String {
    let (_, version) = stage(client).await;
    let element = client.find(Locator::Css(selector)).await.unwrap();
    element.click().await.unwrap();
    settled(client, &version).await
}

/// Clicks the free cell of the board that comes last in the board's order (the top right), and waits.
async fn click_a_free_cell(client: &Client) -> String {
    let free = client
        .execute(
            "const free = [...document.querySelectorAll('#board g[data-cell]')]
               .filter((g) => !g.querySelector('circle.white, circle.black, rect.block'));
             return free[free.length - 1].dataset.cell",
            vec![],
        )
        .await
        .unwrap();
    click(client, &format!("#board g[data-cell=\"{}\"]", free.as_str().unwrap())).await
}

/// Fills in the form of `/play` and starts the game; waits for the game's page to ask the person.
async fn start_game(client: &Client, address: &str, bot: &str, color: &str, blocks: Value) {
    client.goto(&format!("http://{address}/play")).await.unwrap();
    let fill = "const [bot, color, blocks] = arguments;
                document.getElementById('bot').value = bot;
                document.querySelector('input[name=color][value=' + color + ']').checked = true;
                document.querySelector('input[name=blocks][value=' + blocks.kind + ']').checked = true;
                if (blocks.kind === 'placed') document.getElementById('placed').value = blocks.count;
                if (blocks.kind === 'random') document.getElementById('count').value = blocks.count;
                document.getElementById('move-ms').value = 2000;
                return null";
    client
        .execute(fill, vec![json!(bot), json!(color), blocks])
        .await
        .unwrap();
    client.find(Locator::Id("start")).await.unwrap().click().await.unwrap();
    client
        .wait()
        .at_most(browser::DEADLINE)
        .for_element(Locator::Css("body[data-stage=your_move]"))
        .await
        .unwrap();
}

/// A roster file of the hostile fixture bot (a tournament file, which names two bots at least).
fn hostile_roster(dir: &Path) -> PathBuf {
    let bot = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bot.py");
    let file = dir.join("roster.toml");
    std::fs::write(
        &file,
        format!(
            "name = \"roster\"\n[rules]\nblocks = [7]\n[time]\nmove_ms = 2000\n\
             [[bots]]\nname = \"hostile\"\ncommand = \"python3 {} hostile\"\n\
             [[bots]]\nname = \"heuristic\"\nbuiltin = \"heuristic\"\n",
            bot.display()
        ),
    )
    .unwrap();
    file
}

/// A whole game against `first-free` by clicking: the person (Black) places
/// blocks, decides the pie rule, takes a move back, reloads the page, and
/// plays to the end; the saved record replays to the score it and the page
/// show, and `arena verify` finds the journal sound.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_plays_a_whole_game_in_the_browser() {
    let Some(browser) = browser::open().await else {
        return;
    };
    let client = &browser.client;
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &["--listen", "127.0.0.1:0"]);
    start_game(
        client,
        &server.address,
        "first-free",
        "black",
        json!({"kind": "placed", "count": 3}),
    )
    .await;
    let id = game_id(client).await;
    // Black places the first and the last of three blocks; first-free the one between.
    assert_eq!(plies(client).await, "ply 0 of 0");
    assert_eq!(click_a_free_cell(client).await, "your_move");
    assert_eq!(plies(client).await, "ply 2 of 2");
    assert_eq!(click_a_free_cell(client).await, "your_move");
    // first-free opened as White: the pie decision is the person's, two buttons.
    assert_eq!(plies(client).await, "ply 4 of 4");
    let swap = client.find(Locator::Id("pie-swap")).await.unwrap();
    assert!(swap.is_displayed().await.unwrap());
    assert_eq!(click(client, "#pie-swap").await, "your_move");
    assert_eq!(
        plies(client).await,
        "ply 6 of 6",
        "swapped, and first-free answered as Black"
    );
    assert_eq!(click_a_free_cell(client).await, "your_move");
    assert_eq!(plies(client).await, "ply 8 of 8");
    // Undo takes back the person's stone and the bot's answer.
    assert_eq!(click(client, "#undo").await, "your_move");
    assert_eq!(plies(client).await, "ply 6 of 6");
    // A reload resumes the game where it stands.
    client
        .execute("window.stayed = true; return null", vec![])
        .await
        .unwrap();
    client.refresh().await.unwrap();
    client
        .wait()
        .at_most(browser::DEADLINE)
        .for_element(Locator::Css("body[data-stage=your_move]"))
        .await
        .unwrap();
    assert_eq!(game_id(client).await, id);
    assert_eq!(
        client
            .execute("return window.stayed === undefined", vec![])
            .await
            .unwrap(),
        json!(true)
    );
    assert_eq!(plies(client).await, "ply 6 of 6");
    screenshot(client, "play-mid-game.png").await;
    while click_a_free_cell(client).await == "your_move" {}
    let status = text(client, "play-status").await;
    assert!(status.starts_with("Game over."), "{status}");
    let record = saved_record(dir.path(), &id);
    assert_eq!(record.termination.reason.name(), "normal");
    let game = record.replay().expect("the saved record replays");
    assert!(game.is_finished());
    assert_eq!(game.score(), record.score);
    let score = client
        .execute(
            "const s = document.getElementById('score').dataset; return [Number(s.white), Number(s.black)]",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(score, json!([record.score.white, record.score.black]));
    // The final board outlines the scoring runs, as the replay does.
    let runs = client.find_all(Locator::Css("#board rect.run")).await.unwrap().len();
    assert_eq!(runs > 0, record.score.white + record.score.black > 0);
    assert_eq!((record.swap, record.black.as_str()), (Some(true), "first-free"));
    screenshot(client, "play.png").await;
    // The game is listed with the runs, and its journal is sound.
    let (_, runs_page) = server.get("/");
    assert!(runs_page.contains(&format!("/play/{id}")), "{runs_page}");
    let verified = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("verify")
        .arg(dir.path().join("play").join(&id).join("journal.jsonl"))
        .output()
        .unwrap();
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stderr)
    );
    browser.client.close().await.unwrap();
}

/// The hostile fixture bot in play, at a phone's width: its `info`, its
/// offending line and its stderr show as text, nothing it wrote runs, and the
/// page fits the screen without scrolling sideways.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_bot_in_play_shows_as_text_at_a_phones_width() {
    let Some(browser) = browser::open().await else {
        return;
    };
    let client = &browser.client;
    let dir = tempfile::tempdir().unwrap();
    let roster = hostile_roster(dir.path());
    let server = Server::start(
        dir.path(),
        &["--listen", "127.0.0.1:0", "--bots", roster.to_str().unwrap()],
    );
    client.set_window_size(390, 844).await.unwrap();
    start_game(
        client,
        &server.address,
        "hostile",
        "black",
        json!({"kind": "random", "count": 7}),
    )
    .await;
    // Its first stone came with the hostile comment, shown beside the board.
    let info = text(client, "move-info").await;
    assert!(info.contains(HOSTILE), "{info}");
    // The pie decision, then its second answer breaks the protocol with a hostile line.
    assert_eq!(click(client, "#pie-keep").await, "your_move");
    assert_eq!(click_a_free_cell(client).await, "over");
    let verdict = text(client, "verdict").await;
    assert!(
        verdict.contains("Forfeit: hostile") && verdict.contains(HOSTILE),
        "{verdict}"
    );
    let pwned = client.execute("return typeof window.pwned", vec![]).await.unwrap();
    assert_eq!(pwned, json!("undefined"));
    let fits = client
        .execute(
            "const board = document.getElementById('board').getBoundingClientRect();
             return [document.documentElement.scrollWidth, window.innerWidth, board.right]",
            vec![],
        )
        .await
        .unwrap();
    let [scroll, width, right] = [0, 1, 2].map(|index| fits[index].as_f64().unwrap());
    assert!(
        scroll <= width && right <= width,
        "the page is {scroll} wide, the board ends at {right}, the screen is {width}"
    );
    screenshot(client, "play-phone.png").await;
    browser.client.close().await.unwrap();
}

/// The form of a new game against `bot`.
fn new_game(bot: &str) -> String {
    json!({"bot": bot, "color": "white", "blocks": {"kind": "random", "count": 7}, "pie": true, "move_ms": 1000})
        .to_string()
}

/// Over plain HTTP: a name not in the roster, a change from another origin
/// and an oversized body are refused; beyond `--max-games` the server says
/// it is busy; a game left without a request is resigned, which frees its
/// place.
#[test]
fn play_refuses_what_it_must_and_ends_abandoned_games() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(
        dir.path(),
        &["--listen", "127.0.0.1:0", "--max-games", "1", "--abandon-after", "2s"],
    );
    let (status, answer) = server.post("/play/new", &new_game("python3 -c 'import os'"));
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer.contains("there is no bot") && answer.contains("roster"),
        "{answer}"
    );
    let (status, _) = server.post("/play/new", &new_game("../first-free"));
    assert_eq!(status, 400);
    let (status, _) = serving::ask_with_body(
        &server.address,
        "POST",
        "/play/new",
        &["Origin: http://evil.example", "Content-Type: application/json"],
        new_game("first-free").as_bytes(),
    );
    assert_eq!(status, 403);
    let (status, _) = server.post("/play/new", &" ".repeat(64 * 1024));
    assert_eq!(status, 413);
    let (status, answer) = server.post("/play/new", &new_game("first-free"));
    assert_eq!(status, 200, "{answer}");
    let body = answer.split("\r\n\r\n").nth(1).unwrap();
    let id = serde_json::from_str::<Value>(body).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, answer) = server.post("/play/new", &new_game("first-free"));
    assert_eq!(status, 503, "{answer}");
    assert!(answer.contains("busy") && answer.contains("try again"), "{answer}");
    // Nobody asks for the game: it is resigned and its bot stopped, and its place is free.
    let record = saved_record(dir.path(), &id);
    assert_eq!(record.termination.reason.name(), "resign");
    assert!(record.termination.forfeit.unwrap().detail.starts_with("abandoned"));
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, answer) = server.post("/play/new", &new_game("first-free"));
        if status == 200 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the abandoned game's place stayed taken: {answer}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The roster: the built-in bots and the bots of the tournament files in the
/// served folder (a file that is not one offers none); a game against one of
/// them is started, resigned, and saved.
#[test]
fn the_roster_holds_the_bots_of_the_folders_tournament_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("t.toml"),
        "name = \"t\"\n[rules]\nblocks = [7]\n[time]\nmove_ms = 500\n\
         [[bots]]\nname = \"mine\"\nbuiltin = \"first-free\"\n\
         [[bots]]\nname = \"theirs\"\nbuiltin = \"heuristic\"\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.toml"), "not = \"a tournament\"\n").unwrap();
    let server = Server::start(dir.path(), &["--listen", "127.0.0.1:0"]);
    let (status, page) = server.get("/play");
    assert_eq!(status, 200);
    for bot in ["first-free", "heuristic", "engine", "mine", "theirs"] {
        assert!(page.contains(&format!("<option value=\"{bot}\">")), "{bot} in {page}");
    }
    let (status, answer) = server.post("/play/new", &new_game("mine"));
    assert_eq!(status, 200, "{answer}");
    let body = answer.split("\r\n\r\n").nth(1).unwrap();
    let id = serde_json::from_str::<Value>(body).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, answer) = server.post(&format!("/play/{id}/resign"), "{}");
    assert_eq!(status, 200, "{answer}");
    let state: Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(state["stage"], "over");
    let record = saved_record(dir.path(), &id);
    assert_eq!(
        (record.black.as_str(), record.termination.reason.name()),
        ("mine", "resign")
    );
    // The finished game is listed on the runs page and still shown at its address.
    assert!(server.get("/").1.contains(&format!("/play/{id}")));
    assert_eq!(server.get(&format!("/play/{id}")).0, 200);
    assert_eq!(server.get("/play/0123").0, 404);
}
