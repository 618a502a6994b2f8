//! The HTML report in a real browser: a small real tournament, its report opened in headless Chromium, and
//! what a person would see checked there.
//!
//! The tournament has a bot that forfeits with hostile text (`tests/fixtures/bot.py hostile`: the arena's
//! own fixture bot, whose hostile text is written for a page, where pahtum-testkit's `fixture-bot` writes
//! for a terminal): its info comment, its stderr and its offending line hold
//! `</script>`, an `<img onerror>` and invalid UTF-8, which must appear on the page as literal text while
//! `window.pwned` stays undefined.
//!
//! Chromium is driven over WebDriver with fantoccini and chromedriver (the Debian packages `chromium` and
//! `chromium-driver`): WebDriver is a W3C standard that chromedriver speaks for the browser of the same
//! package version, and fantoccini is a small, well-kept client on the tokio the arena already uses. With
//! `CI=true` a missing browser fails the test; elsewhere the test is skipped with a line saying how to
//! install it. Screenshots of the report (desktop and phone width) and of a replay are saved under
//! `target/report-screenshots/`.
//!
//! A second tournament is a bot author's ([`AUTHOR`], played once for the tests that read it): four bots,
//! two with names of the longest plain length, blocks placed by the players and the pie rule. Its report is
//! held to what an author reads: standings that fit a 1,400-pixel window, the games filtered by the bot
//! that lost them, with the pie decision and the winner, and replays that outline the scoring runs at every
//! ply and number the plies as the protocol's moves list, each checked against the records replayed in Rust.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};
use pahtum::score::scoring_runs;
use pahtum::{Action, Cell, Color, Game, Seat, Square};
use pahtum_record::GameRecord;
use pahtum_record::annotations::Grade;
use pahtum_testkit::browser::{self, DEADLINE, Driver, browser, connect, start_driver};
use pahtum_tournament::config::MAX_NAME_LEN;
use serde_json::{Value, json};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
const HOSTILE: &str = r#"</script><script>window.pwned=1</script><img src=x onerror="window.pwned=1"><!--"#;

/// Plays a round-robin of `heuristic`, `first-free` and the hostile bot, two games a pair; returns the run's
/// output folder.
fn play_tournament(dir: &Path) -> PathBuf {
    let bot = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bot.py");
    play(
        dir,
        &format!(
            "name = \"browser\"\nseed = 7\ngames_per_pair = 2\n[rules]\nblocks = [7]\n[time]\nmove_ms = 2000\n\
             [[bots]]\nname = \"heuristic\"\nbuiltin = \"heuristic\"\n\
             [[bots]]\nname = \"first-free\"\nbuiltin = \"first-free\"\n\
             [[bots]]\nname = \"hostile\"\ncommand = \"python3 {} hostile\"\n",
            bot.display()
        ),
    )
}

/// Plays the tournament `toml`; returns the run's output folder.
fn play(dir: &Path, toml: &str) -> PathBuf {
    let file = dir.join("t.toml");
    std::fs::write(&file, toml).unwrap();
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

/// Opens the page at `url` and waits until its script has run.
async fn open_page(client: &Client, url: &str) {
    client.goto(url).await.unwrap();
    client
        .wait()
        .for_element(Locator::Css("body[data-ready=true]"))
        .await
        .unwrap();
}

/// Clicks the element that `selector` finds.
async fn click(client: &Client, selector: &str) {
    client
        .find(Locator::Css(selector))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
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
    let records: Vec<Value> = records_of(&out);

    let driver = start_driver(&driver_program);
    let client = connect(&driver, &chromium, &dir.path().join("profile")).await;
    let url = format!("file://{}", out.join("report.html").display());
    open_page(&client, &url).await;
    let shots = screenshots();
    std::fs::write(shots.join("report.png"), client.screenshot().await.unwrap()).unwrap();
    client.set_window_size(1400, 1000).await.unwrap();
    assert_fits_sideways(&client).await;

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
    click(&client, "table.crosstable tbody tr:nth-child(1) td:nth-child(4) a").await;
    let pair_games = texts(&client, "#games-body tr td:nth-child(1)").await;
    assert_eq!(
        pair_games.len() as u64,
        tally["games"].as_u64().unwrap(),
        "{pair_games:?}"
    );

    // A normal game, opened from the list and stepped to its end, shows the record's score.
    let normal = records.iter().find(|r| r["termination"]["reason"] == "normal").unwrap();
    let id = normal["id"].as_str().unwrap();
    click(&client, &format!("#games-body tr[data-id='{id}']")).await;
    wait_for_game(&client, id).await;
    let moves = normal["moves"].as_array().unwrap().len() + usize::from(!normal["swap"].is_null());
    assert_eq!(text(&client, "#position").await, format!("ply 0 of {moves}"));
    click(&client, "#forward").await;
    assert_eq!(text(&client, "#position").await, format!("ply 1 of {moves}"));
    click(&client, "#last").await;
    assert_eq!(text(&client, "#position").await, format!("ply {moves} of {moves}"));
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
        format!("ply {} of {moves}", moves - 1)
    );
    click(&client, "#last").await;
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
    open_page(&client, &url).await;
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

/// Asserts that nothing on the page scrolls sideways: neither the page nor any table's scroll box.
async fn assert_fits_sideways(client: &Client) {
    let widths = client
        .execute(
            "const boxes = [document.documentElement, ...document.querySelectorAll('.scroll')];
             return [window.innerWidth, boxes.map((box) => [box.closest('section') ? box.closest('section').id : 'the page', box.scrollWidth, box.clientWidth])];",
            vec![],
        )
        .await
        .unwrap();
    let boxes = widths[1].as_array().unwrap();
    let wide: Vec<&Value> = boxes.iter().filter(|b| b[1].as_u64() > b[2].as_u64()).collect();
    assert!(
        wide.is_empty(),
        "at a window {} pixels wide these scroll sideways [section, scrollWidth, clientWidth]: {wide:?}",
        widths[0]
    );
}

/// The headers of the standings that a reader sees.
async fn shown_standings_headers(client: &Client) -> Vec<String> {
    let headers = client
        .execute(
            "return [...document.querySelectorAll('table.standings thead th')]
               .filter((th) => getComputedStyle(th).display !== 'none').map((th) => th.textContent);",
            vec![],
        )
        .await
        .unwrap();
    serde_json::from_value(headers).unwrap()
}

/// A bot name of the longest plain length: `stem`, then wide capitals without a place to break the line.
fn longest_name(stem: &str) -> String {
    stem.chars().chain("WM".chars().cycle()).take(MAX_NAME_LEN).collect()
}

/// The bot that lost `record`, by its colour at the end (after any pie swap); `None` for a draw.
fn loser(record: &GameRecord) -> Option<&str> {
    match record.result.winner()? {
        Color::White => Some(&record.black),
        Color::Black => Some(&record.white),
    }
}

/// The game after its first `plies`.
fn position_after(record: &GameRecord, plies: &[Action]) -> Game {
    let mut game = record.rules.start(&record.blocks).unwrap();
    for &action in plies {
        game.play(action).unwrap();
    }
    game
}

/// The cells of each scoring run of `game`, both colours', sorted.
fn runs_of(game: &Game) -> Vec<String> {
    let mut runs: Vec<String> = [Color::White, Color::Black]
        .into_iter()
        .flat_map(|color| scoring_runs(game.position().stones(color)))
        .map(|run| run.cells().map(|cell| cell.to_string()).collect())
        .collect();
    runs.sort();
    runs
}

/// Waits until `selector`'s text is `expected`.
async fn wait_for_text(client: &Client, selector: &str, expected: &str) {
    let start = Instant::now();
    loop {
        let shown = text(client, selector).await;
        if shown == expected {
            return;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "{selector} shows {shown:?}, not {expected:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Opens game `id` at ply `ply` by its address, as a link would, and waits until the viewer shows it.
async fn open_at(client: &Client, url: &str, id: &str, ply: usize, plies: usize) {
    client.goto(&format!("{url}#game={id}&ply={ply}")).await.unwrap();
    wait_for_game(client, id).await;
    wait_for_text(client, "#position", &format!("ply {ply} of {plies}")).await;
}

/// What the board shows: each cell with `w`, `b`, `x` (a block) or `.`, sorted by cell.
async fn board_shown(client: &Client) -> Vec<String> {
    let cells = client
        .execute(
            "return [...document.querySelectorAll('#board g[data-cell]')].map((g) => g.dataset.cell + ':' +
               (g.querySelector('.block') ? 'x' : g.querySelector('circle.white') ? 'w' : g.querySelector('circle.black') ? 'b' : '.'));",
            vec![],
        )
        .await
        .unwrap();
    let mut cells: Vec<String> = serde_json::from_value(cells).unwrap();
    cells.sort();
    cells
}

/// The board of `game`, as [`board_shown`] writes it.
fn board_of(game: &Game) -> Vec<String> {
    let mut cells: Vec<String> = Cell::all()
        .map(|cell| {
            let square = match game.position().at(cell) {
                Square::Free => '.',
                Square::Block => 'x',
                Square::Stone(Color::White) => 'w',
                Square::Stone(Color::Black) => 'b',
            };
            format!("{cell}:{square}")
        })
        .collect();
    cells.sort();
    cells
}

/// The tournament of a bot's author, played once for the tests that read its report: a round-robin of four
/// bots, two with names of the longest plain length, with blocks placed by the players and the pie rule.
struct Author {
    /// The run's output folder.
    out: PathBuf,
    /// Its games, by id.
    records: Vec<GameRecord>,
    bots: Vec<String>,
}

static AUTHOR: LazyLock<Author> = LazyLock::new(|| {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-author");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let bots = [
        ("heuristic".to_owned(), "heuristic"),
        ("first-free".to_owned(), "first-free"),
        (longest_name("heuristic"), "heuristic"),
        (longest_name("first-free"), "first-free"),
    ];
    let mut toml = "name = \"author\"\nseed = 11\ngames_per_pair = 2\n[rules]\nplacement = \"players\"\nblocks = [5]\n\
                    pie = true\n[time]\nmove_ms = 2000\n"
        .to_owned();
    for (name, builtin) in &bots {
        toml.push_str(&format!("[[bots]]\nname = \"{name}\"\nbuiltin = \"{builtin}\"\n"));
    }
    let out = play(&dir, &toml);
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    let mut records: Vec<GameRecord> = journal
        .lines()
        .skip(1)
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    records.sort_by(|a, b| a.id.cmp(&b.id));
    assert!(
        records.iter().any(|r| r.swap == Some(true)) && records.iter().any(|r| r.swap == Some(false)),
        "the games have swaps and keeps"
    );
    Author {
        out,
        records,
        bots: bots.into_iter().map(|(name, _)| name).collect(),
    }
});

/// A browser window with the author's report open; the browser stops when it is dropped.
struct Page {
    client: Client,
    url: String,
    _held: (Driver, tempfile::TempDir),
}

/// The author's report open in a browser window 1,400 pixels wide, or `None` without a browser.
async fn author_report() -> Option<(&'static Author, Page)> {
    let browser::Session { client, _held } = browser::open().await?;
    let author = &*AUTHOR;
    client.set_window_size(1400, 1000).await.unwrap();
    let url = format!("file://{}", author.out.join("report.html").display());
    open_page(&client, &url).await;
    let page = Page { client, url, _held };
    Some((author, page))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_standings_fit_a_window_1400_pixels_wide_with_the_longest_names() {
    let Some((_, page)) = author_report().await else {
        return;
    };
    let client = &page.client;
    std::fs::write(
        screenshots().join("report-1400.png"),
        client.screenshot().await.unwrap(),
    )
    .unwrap();
    assert_fits_sideways(client).await;
    assert_eq!(
        shown_standings_headers(client).await.join(" "),
        "# bot games W D L points score Elo 95% interval forfeits"
    );
    // The less used columns, on demand.
    let all = "label[for=standings-all]";
    click(client, all).await;
    let shown = shown_standings_headers(client).await;
    assert_eq!(shown.len(), 19, "{shown:?}");
    assert!(shown.iter().any(|header| header == "timeouts"), "{shown:?}");
    click(client, all).await;
    assert_eq!(shown_standings_headers(client).await.len(), 11, "folded again");
    page.client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_games_filter_by_the_bot_that_lost_and_show_the_pie_decision_and_the_winner() {
    let Some((author, page)) = author_report().await else {
        return;
    };
    let client = &page.client;
    let records = &author.records;
    // The games that each bot lost, whatever its colour: after the pie decision both games of a layout can
    // have the same bot as White.
    for bot in &author.bots {
        click(client, &format!("#filter-lost option[value='{bot}']")).await;
        let listed = texts(client, "#games-body tr td:nth-child(1)").await;
        let lost: Vec<&str> = records
            .iter()
            .filter(|r| loser(r) == Some(bot))
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(listed, lost, "the games lost by {bot}");
    }
    client
        .execute("document.getElementById('games').scrollIntoView()", vec![])
        .await
        .unwrap();
    std::fs::write(
        screenshots().join("games-lost-by.png"),
        client.screenshot().await.unwrap(),
    )
    .unwrap();
    click(client, "#filter-lost option[value='']").await;
    let pies = texts(client, "#games-body td.pie").await;
    let expected: Vec<&str> = records
        .iter()
        .map(|r| match r.swap {
            Some(true) => "swap",
            Some(false) => "keep",
            None => "—",
        })
        .collect();
    assert_eq!(pies, expected);
    let winners = texts(client, "#games-body td.winner").await;
    let expected: Vec<String> = records
        .iter()
        .map(|r| match r.result.winner() {
            Some(Color::White) => format!("{} (White)", r.white),
            Some(Color::Black) => format!("{} (Black)", r.black),
            None => "draw".to_owned(),
        })
        .collect();
    assert_eq!(winners, expected);
    assert_fits_sideways(client).await;
    page.client.close().await.unwrap();
}

/// The author's report open in a browser (`None` without one), a game of it with the pie decision, and its
/// plies as the record's replay gives them.
async fn game_with_the_pie() -> Option<(Page, &'static GameRecord, Vec<Action>)> {
    let (author, page) = author_report().await?;
    let game = author.records.iter().find(|r| r.swap.is_some()).unwrap();
    Some((page, game, game.replay().unwrap().history().to_vec()))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_replay_numbers_the_plies_as_the_protocols_moves_list() {
    let Some((page, game, history)) = game_with_the_pie().await else {
        return;
    };
    let (client, url) = (&page.client, &page.url);
    let pie = game.pie_ply().unwrap();
    assert_eq!(history[pie - 1], Action::Pie(game.swap.unwrap()));
    open_at(client, url, &game.id, 0, history.len()).await;
    let notations = texts(client, "#moves li .notation").await;
    let expected: Vec<String> = history.iter().map(ToString::to_string).collect();
    assert_eq!(notations, expected, "the move list is the protocol's moves list");
    // Opened by its address at plies around the pie decision and later: the ply the move list marks, its
    // notation, the board and the last move's mark are those of the record's plies.
    for ply in [1, pie - 1, pie, pie + 1, history.len() / 2, history.len()] {
        open_at(client, url, &game.id, ply, history.len()).await;
        let current = client.find(Locator::Css("#moves li.current")).await.unwrap();
        assert_eq!(current.attr("data-at").await.unwrap(), Some(ply.to_string()));
        assert_eq!(
            text(client, "#moves li.current .notation").await,
            history[ply - 1].to_string()
        );
        let position = position_after(game, &history[..ply]);
        assert_eq!(board_shown(client).await, board_of(&position), "the board at ply {ply}");
        let last = client
            .execute(
                "const mark = document.querySelector('#board circle.last'); return mark && mark.parentNode.dataset.cell;",
                vec![],
            )
            .await
            .unwrap();
        let cell = match history[ply - 1] {
            Action::Block(cell) | Action::Stone(cell) => json!(cell.to_string()),
            Action::Pie(_) => Value::Null,
        };
        assert_eq!(last, cell, "the last move's mark at ply {ply}");
    }
    // Stepping on names the ply shown in the address.
    click(client, "#back").await;
    let address = client.current_url().await.unwrap();
    assert!(
        address
            .as_str()
            .ends_with(&format!("#game={}&ply={}", game.id, history.len() - 1)),
        "{address}"
    );
    page.client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_replay_outlines_the_scoring_runs_at_every_ply() {
    let Some((page, game, history)) = game_with_the_pie().await else {
        return;
    };
    let (client, url) = (&page.client, &page.url);
    // From the first ply with a scoring run to the end.
    let first = (1..=history.len())
        .find(|&n| !runs_of(&position_after(game, &history[..n])).is_empty())
        .expect("a scoring run");
    assert!(first < history.len(), "a scoring run before the end");
    for ply in [first, (first + history.len()) / 2, history.len()] {
        open_at(client, url, &game.id, ply, history.len()).await;
        let position = position_after(game, &history[..ply]);
        let runs = client
            .execute(
                "return [...document.querySelectorAll('#board .run')].map((run) => run.dataset.cells).sort();",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(runs, json!(runs_of(&position)), "the runs outlined at ply {ply}");
        let score = position.score();
        let shown = client.find(Locator::Css("#score")).await.unwrap();
        assert_eq!(
            (
                shown.attr("data-white").await.unwrap(),
                shown.attr("data-black").await.unwrap()
            ),
            (Some(score.white.to_string()), Some(score.black.to_string())),
            "the running score at ply {ply}"
        );
        if ply == first {
            std::fs::write(
                screenshots().join("replay-runs.png"),
                client.screenshot().await.unwrap(),
            )
            .unwrap();
        }
    }
    page.client.close().await.unwrap();
}

/// `arena play --html`: the page of a game played from given plies and resigned opens on that game, which
/// shows its moves and ends by a resignation.
#[tokio::test(flavor = "multi_thread")]
async fn the_page_of_a_played_game_opens_on_it_and_says_how_it_ended() {
    let Some((chromium, driver_program)) = browser() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("play.html");
    let mut person = Command::new(ARENA)
        .args([
            "play",
            "first-free",
            "--blocks",
            "5",
            "--seed",
            "3",
            "--moves",
            "c6,keep",
            "--as",
            "black",
        ])
        .arg("--html")
        .arg(&page)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut person.stdin.take().unwrap(), b"g7\nquit\n").unwrap();
    assert!(person.wait().unwrap().success());

    let driver = start_driver(&driver_program);
    let client = connect(&driver, &chromium, &dir.path().join("profile")).await;
    open_page(&client, &format!("file://{}", page.display())).await;
    wait_for_game(&client, "play").await;
    let players = text(&client, "#viewer-players").await;
    assert_eq!(
        players,
        "first-free (White) against you (Black): White won, 0–0, resignation end"
    );
    // c6 and keep given, nobody's choice, then g7 and the bot's a1.
    let plies = texts(&client, "#moves li").await;
    assert_eq!(plies.len(), 4, "{plies:?}");
    assert!(plies[0].starts_with("c6 white (given)"), "{plies:?}");
    assert!(plies[1].starts_with("keep pie decision (given)"), "{plies:?}");
    assert!(plies[2].starts_with("g7 black (you)"), "{plies:?}");
    client.close().await.unwrap();
}

/// The mark of a grade in the move list.
fn mark(grade: Option<Grade>) -> &'static str {
    match grade {
        None => "",
        Some(Grade::Inaccuracy) => "?!",
        Some(Grade::Mistake) => "?",
        Some(Grade::Blunder) => "??",
    }
}

/// The phase of a ply with `free` cells free before it, as the page defines them: 0 the opening (more than
/// 30), 1 the middle (30 to 19), 2 the endgame (18 or fewer).
fn phase(free: usize) -> usize {
    match free {
        31.. => 0,
        19..=30 => 1,
        _ => 2,
    }
}

/// The records of the journal of the run's folder `out`, in journal order.
fn records_of<T: serde::de::DeserializeOwned>(out: &Path) -> Vec<T> {
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    journal
        .lines()
        .skip(1)
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// `arena analyze` (a small effort, so that the test is quick) and then `arena report` of `games`, a run's
/// folder or a game's record.
fn analyze_and_report(games: &Path) {
    for args in [
        &["analyze", "--playouts", "200", "--exact-cells", "14"][..],
        &["report"][..],
    ] {
        let status = Command::new(ARENA)
            .args(args)
            .arg(games)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "arena {args:?} {} failed: {status}", games.display());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn after_arena_analyze_the_report_shows_the_evaluation_marks_best_moves_and_losing_moves() {
    let Some((chromium, driver_program)) = browser() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = play(
        dir.path(),
        "name = \"analysed\"\nseed = 5\ngames_per_pair = 2\n[rules]\nplacement = \"players\"\nblocks = [5]\npie = true\n\
         [time]\nmove_ms = 2000\n[[bots]]\nname = \"heuristic\"\nbuiltin = \"heuristic\"\n\
         [[bots]]\nname = \"first-free\"\nbuiltin = \"first-free\"\n[[bots]]\nname = \"heuristic-2\"\nbuiltin = \"heuristic\"\n",
    );
    analyze_and_report(&out);
    // The report that `arena run` writes at the end (here of a finished run, run again) shows the analysis
    // beside its journal too: the same page.
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(page.contains("<section id=\"analysis\">"));
    std::fs::remove_file(out.join("report.html")).unwrap();
    play(dir.path(), &std::fs::read_to_string(dir.path().join("t.toml")).unwrap());
    assert_eq!(std::fs::read_to_string(out.join("report.html")).unwrap(), page);
    let records: Vec<GameRecord> = records_of(&out);
    let analyses = pahtum_record::annotations::latest(&out.join("analysis.jsonl"), &records).unwrap();
    assert_eq!(analyses.len(), records.len(), "every game analysed");

    let driver = start_driver(&driver_program);
    let client = connect(&driver, &chromium, &dir.path().join("profile")).await;
    let url = format!("file://{}", out.join("report.html").display());
    open_page(&client, &url).await;

    // The per-bot table: the marks by phase, counted from the analysis file and the records.
    let mut expected: BTreeMap<String, [u32; 9]> = BTreeMap::new();
    let mut losing: BTreeMap<String, u32> = BTreeMap::new();
    for record in &records {
        let analysis = &analyses[&record.id];
        let history = record.replay().unwrap().history().to_vec();
        let mut free = 49 - record.first_blocks().len();
        for (ply, action) in analysis.moves.iter().zip(&history) {
            let bot = if ply.seat == Seat::First {
                &record.players.first
            } else {
                &record.players.second
            };
            let counts = expected.entry(bot.clone()).or_default();
            if let Some(grade) = ply.grade {
                counts[phase(free) * 3 + grade as usize] += 1;
            }
            if !matches!(action, Action::Pie(_)) {
                free -= 1;
            }
        }
        for (bot, ply) in [
            (&record.white, analysis.losing.white),
            (&record.black, analysis.losing.black),
        ] {
            *losing.entry(bot.clone()).or_default() += u32::from(ply.is_some());
        }
    }
    let shown = client
        .execute(
            "return [...document.querySelectorAll('table.phases tbody tr')].map((row) => [row.querySelector('th').textContent,
               [...row.querySelectorAll('td.marks')].map((cell) => Number(cell.dataset.count)),
               Number(row.querySelector('td.losing-count').textContent)]);",
            vec![],
        )
        .await
        .unwrap();
    let shown: Vec<(String, [u32; 9], u32)> = serde_json::from_value(shown).unwrap();
    let expected: Vec<(String, [u32; 9], u32)> = expected
        .into_iter()
        .map(|(bot, counts)| (bot.clone(), counts, losing[&bot]))
        .collect();
    assert_eq!(shown, expected, "the marks by phase and the losing moves per bot");
    assert!(
        expected.iter().any(|(_, counts, _)| counts.iter().sum::<u32>() > 0),
        "some marks to count"
    );

    // Each replay: one point of the graph per ply, the marks of the move list the analysis's grades, the
    // losing moves marked, and the ring on the best cells of the ply to come.
    for record in &records {
        let analysis = &analyses[&record.id];
        let plies = analysis.moves.len();
        open_at(&client, &url, &record.id, 0, plies).await;
        let points = client
            .execute("return document.querySelectorAll('#graph .point').length;", vec![])
            .await
            .unwrap();
        assert_eq!(points, json!(plies), "one point per ply of {}", record.id);
        let marks = client
            .execute(
                "return [...document.querySelectorAll('#moves li')].map((li) => [(li.querySelector('.mark') || {}).textContent || '',
                   li.classList.contains('losing')]);",
                vec![],
            )
            .await
            .unwrap();
        let marks: Vec<(String, bool)> = serde_json::from_value(marks).unwrap();
        let expected: Vec<(String, bool)> = analysis
            .moves
            .iter()
            .map(|ply| {
                let losing = [analysis.losing.white, analysis.losing.black].contains(&Some(ply.ply));
                (mark(ply.grade).to_owned(), losing)
            })
            .collect();
        assert_eq!(marks, expected, "the marks of {}", record.id);
        for at in [0, plies / 2, plies - 1] {
            open_at(&client, &url, &record.id, at, plies).await;
            let rings = client
                .execute(
                    "return [...document.querySelectorAll('#board .best')].map((ring) => ring.dataset.best).sort();",
                    vec![],
                )
                .await
                .unwrap();
            let mut best: Vec<String> = analysis.moves[at]
                .best
                .iter()
                .filter(|best| best.as_str() != "swap" && best.as_str() != "keep")
                .cloned()
                .collect();
            best.sort();
            assert_eq!(rings, json!(best), "the best moves of ply {} of {}", at + 1, record.id);
        }
    }

    // A point of the graph opens its ply.
    let record = &records[0];
    let plies = analyses[&record.id].moves.len();
    open_at(&client, &url, &record.id, 0, plies).await;
    click(&client, "#graph .point[data-ply=\"5\"]").await;
    wait_for_text(&client, "#position", &format!("ply 5 of {plies}")).await;

    // A losing move listed opens the replay at its ply, marked as the losing move.
    open_page(&client, &url).await;
    let link = client.find(Locator::Css("table.losing a")).await.unwrap();
    let href = link.attr("href").await.unwrap().unwrap();
    let params: Vec<&str> = href.trim_start_matches("#game=").split("&ply=").collect();
    let (id, ply) = (params[0], params[1].parse::<usize>().unwrap());
    let analysis = &analyses[id];
    assert!(
        [analysis.losing.white, analysis.losing.black].contains(&Some(ply)),
        "{href}"
    );
    link.click().await.unwrap();
    wait_for_game(&client, id).await;
    wait_for_text(&client, "#position", &format!("ply {ply} of {}", analysis.moves.len())).await;
    let current = client.find(Locator::Css("#moves li.current")).await.unwrap();
    assert!(current.attr("class").await.unwrap().unwrap().contains("losing"));
    let info = text(&client, "#move-info").await;
    assert!(info.contains("value before") && info.contains("losing move"), "{info}");
    std::fs::write(screenshots().join("analysis.png"), client.screenshot().await.unwrap()).unwrap();

    // A game's record alone: `arena analyze` writes NAME.analysis.jsonl beside it, and its page shows it.
    let game = dir.path().join("game.json");
    std::fs::write(&game, serde_json::to_vec(record).unwrap()).unwrap();
    analyze_and_report(&game);
    assert!(dir.path().join("game.analysis.jsonl").is_file());
    open_page(&client, &format!("file://{}", dir.path().join("game.html").display())).await;
    wait_for_game(&client, &record.id).await;
    let points = client
        .execute("return document.querySelectorAll('#graph .point').length;", vec![])
        .await
        .unwrap();
    assert_eq!(points, json!(plies), "the game's page has its graph");
    client.close().await.unwrap();
}

/// Runs `arena ARGS...` and asserts it succeeded.
fn arena_ok(args: &[&str]) {
    let output = Command::new(ARENA).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "arena {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Plays a league of `first-free`, `heuristic` and two versions of the fixture bot (the second joined after
/// the first run), and writes its report; returns the league's folder.
fn play_league(root: &Path) -> PathBuf {
    let dir = root.join("league");
    let dir_text = dir.to_str().unwrap();
    let bot = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bot.py");
    let bot = bot.to_str().unwrap();
    arena_ok(&["league", "init", dir_text]);
    std::fs::write(
        dir.join("league.toml"),
        "name = \"browser\"\ngames_per_pair = 4\nprecision_elo = 1\n",
    )
    .unwrap();
    arena_ok(&["league", "add", dir_text, "ff", "--", "first-free"]);
    arena_ok(&["league", "add", dir_text, "heur", "--", "heuristic"]);
    arena_ok(&[
        "league",
        "add",
        dir_text,
        "fixture",
        "--",
        "python3",
        bot,
        "first-free",
        "1",
    ]);
    arena_ok(&["league", "run", dir_text, "--concurrency", "2"]);
    arena_ok(&[
        "league",
        "add",
        dir_text,
        "fixture",
        "--version",
        "2",
        "--",
        "python3",
        bot,
        "first-free",
        "2",
    ]);
    arena_ok(&["league", "run", dir_text, "--concurrency", "2"]);
    arena_ok(&["report", dir_text]);
    dir
}

#[tokio::test(flavor = "multi_thread")]
async fn a_leagues_rating_history_is_drawn_point_by_point_inside_its_chart() {
    let Some((chromium, driver_program)) = browser() else {
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let dir = play_league(root.path());
    let profile = tempfile::tempdir().unwrap();
    let driver = start_driver(&driver_program);
    let client = connect(&driver, &chromium, profile.path()).await;
    client.set_window_size(1400, 1000).await.unwrap();
    open_page(&client, &format!("file://{}", dir.join("report.html").display())).await;
    assert_eq!(
        texts(&client, "#history h3.name").await,
        ["ff", "heur", "fixture"],
        "each bot once, in the order it joined"
    );
    assert!(text(&client, "#ladder").await.contains("fixture@2"));
    // Each chart's points, as the browser lays them out: [chart's box, [point's box, its title]...].
    let charts = client
        .execute(
            "const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
             return [...document.querySelectorAll('#history .history-chart')].map((svg) => [box(svg),
               [...svg.querySelectorAll('g.version')].map((line) => [...line.querySelectorAll('circle')].map(
                 (point) => [box(point), point.querySelector('title').textContent]))]);",
            vec![],
        )
        .await
        .unwrap();
    let charts = charts.as_array().unwrap();
    assert_eq!(charts.len(), 3);
    let number = |value: &Value| value.as_f64().unwrap();
    for chart in charts {
        let frame: Vec<f64> = chart[0].as_array().unwrap().iter().map(number).collect();
        assert!(
            frame[2] - frame[0] > 400.0 && frame[3] - frame[1] > 120.0,
            "a chart to read: {frame:?}"
        );
        for line in chart[1].as_array().unwrap() {
            let mut left = f64::MIN;
            for point in line.as_array().unwrap() {
                let b: Vec<f64> = point[0].as_array().unwrap().iter().map(number).collect();
                assert!(b[2] > b[0] && b[3] > b[1], "a point is drawn: {b:?}");
                assert!(
                    b[0] >= frame[0] && b[2] <= frame[2] && b[1] >= frame[1] && b[3] <= frame[3],
                    "inside its chart: {b:?} in {frame:?}"
                );
                assert!(b[0] > left, "later rounds further right");
                left = b[0];
            }
        }
    }
    // The fixture bot's two versions: the second joined later, so it has fewer points, the last after the
    // league's last round.
    let versions = charts[2][1].as_array().unwrap();
    assert_eq!(versions.len(), 2);
    let points = |version: usize| versions[version].as_array().unwrap();
    assert!(points(1).len() < points(0).len(), "{versions:?}");
    let last = points(1).last().unwrap()[1].as_str().unwrap();
    assert!(last.starts_with("fixture@2 after round "), "{last}");
    std::fs::write(screenshots().join("league-history.png"), {
        client
            .execute("document.getElementById('history').scrollIntoView()", vec![])
            .await
            .unwrap();
        client.screenshot().await.unwrap()
    })
    .unwrap();
    assert_fits_sideways(&client).await;
    client.close().await.unwrap();
}
