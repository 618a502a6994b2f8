//! Whole games with real processes: every layout and pie setting, reuse of
//! bots from game to game, the timing of answers near the limit, and games
//! between the starter bots.

mod common;

use std::time::Duration;

use common::{Fixtures, quick_limits};
use pahtum::{Color, Outcome, Seat};
use pahtum_protocol::{Info, Placement, Reason, TimeControl, move_time};
use pahtum_record::{GameRecord, GameSpec, MoveKind};
use pahtum_referee::stderr_log::When;
use pahtum_referee::{Bot, BotSpec, play_game};

fn time() -> TimeControl {
    move_time(Duration::from_millis(500))
}

async fn played(spec: &GameSpec, first: &mut Bot, second: &mut Bot) -> GameRecord {
    let record = play_game(spec, first, second, &mut |_| {}).await;
    record.replay().unwrap_or_else(|e| panic!("{e}: {record:#?}"));
    let json = serde_json::to_string(&record).unwrap();
    assert_eq!(serde_json::from_str::<GameRecord>(&json).unwrap(), record);
    record
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_are_reused_across_layouts_and_pie_settings() {
    let fixtures = Fixtures::new();
    let mut first = fixtures.start("first-free").await;
    let mut second = fixtures.start("first-free").await;
    let pids = (first.pid(), second.pid());
    let a1 = "a1".parse().unwrap();
    let specs = [
        GameSpec::random("random-pie", 7, 3, true, time()).unwrap(),
        GameSpec::random("random", 47, 4, false, time()).unwrap(),
        GameSpec::fixed("fixed", &[a1], true, time()).unwrap(),
        GameSpec::placed(
            "placed-pie",
            5,
            true,
            pahtum_protocol::fischer(Duration::from_secs(5), Duration::ZERO),
        )
        .unwrap(),
    ];
    for spec in &specs {
        let record = played(spec, &mut first, &mut second).await;
        assert_eq!(record.termination.reason, Reason::Normal, "{record:#?}");
        assert_eq!(
            record.moves.iter().filter(|m| m.kind == MoveKind::Stone).count(),
            49 - spec.rules.blocks
        );
        assert_eq!(record.swap, spec.rules.pie.then_some(true), "first-free always swaps");
        assert_eq!(record.result, record.score.outcome());
        if spec.rules.pie {
            assert_eq!(
                (record.white.as_str(), record.color_of(Seat::Second)),
                ("first-free", Color::White)
            );
            assert!(record.swap_move.is_some());
        }
        if spec.rules.placement == Placement::Players {
            let blocks: Vec<_> = record.moves.iter().filter(|m| m.kind == MoveKind::Block).collect();
            assert_eq!(blocks.len(), 5);
            assert_eq!(blocks[0].color, Color::Black);
            assert_eq!(blocks[4].color, Color::Black);
        }
        assert!(record.moves.iter().all(|m| m.timing.ms > 0.0 && m.timing.ms < 500.0));
    }
    assert_eq!((first.pid(), second.pid()), pids, "the handshake happens once");
    assert!(first.ping().await.unwrap() < quick_limits().ping);
    first.shutdown().await;
    second.shutdown().await;
    fixtures.assert_none_left();
}

/// Answers under the limit are accepted and answers over it are flagged,
/// every time, with no margin: a bot that waits 25 ms is in time under a
/// 500 ms limit (and every answer is charged at least the 25 ms), and a bot
/// that waits 300 ms is late under a 50 ms limit. The slack on both sides
/// is for a busy machine; how close to the limit the referee's timing is, is
/// the benchmark's check (`benches/referee/timing.rs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_are_timed_against_the_limit_without_a_margin() {
    let strict = |limit_ms| TimeControl {
        margin_ms: 0,
        ..move_time(Duration::from_millis(limit_ms))
    };
    let fixtures = Fixtures::new();
    let mut good = fixtures.start("first-free").await;
    let mut on_time = fixtures.start("delay=25").await;
    let record = played(
        &GameSpec::random("in-time", 7, 5, false, strict(500)).unwrap(),
        &mut on_time,
        &mut good,
    )
    .await;
    assert_eq!(record.termination.reason, Reason::Normal, "{record:#?}");
    let white: Vec<f64> = record
        .moves
        .iter()
        .filter(|m| m.color == Color::White)
        .map(|m| m.timing.ms)
        .collect();
    assert_eq!(white.len(), 21);
    assert!(white.iter().all(|&ms| (25.0..500.0).contains(&ms)), "{white:?}");
    on_time.shutdown().await;
    for game in 0..3 {
        let mut late = fixtures.start("delay=300").await;
        let spec = GameSpec::random(format!("late-{game}"), 7, 5, false, strict(500))
            .unwrap()
            .with_seat_times(strict(500), strict(50));
        let record = played(&spec, &mut good, &mut late).await;
        assert_eq!(record.termination.reason, Reason::Timeout, "{record:#?}");
        let forfeit = record.termination.forfeit.as_ref().expect("a forfeit");
        assert_eq!(forfeit.seat, Seat::Second);
        assert!(forfeit.detail.contains(" 50 ms"), "{}", forfeit.detail);
        assert_eq!(record.result, Outcome::White);
        late.shutdown().await;
    }
    good.shutdown().await;
    fixtures.assert_none_left();
}

/// Each seat plays by its own time control, whatever colour it holds: a bot
/// that answers in 100 ms is in time under its own 1 s limit, also as Black
/// after the pie swap (its opponent's 50 ms would flag it), and late under
/// its own 50 ms limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_seat_keeps_its_own_time_control_across_the_swap() {
    let (patient, hurried) = (
        move_time(Duration::from_millis(1000)),
        move_time(Duration::from_millis(50)),
    );
    let fixtures = Fixtures::new();
    let mut slow = fixtures.start("delay=100").await;
    let mut fast = fixtures.start("first-free").await;
    // 47 blocks: White's stone, the swap, then the first seat's stone as Black.
    let spec = GameSpec::random("own-clocks", 47, 8, true, hurried)
        .unwrap()
        .with_seat_times(patient, hurried);
    let record = played(&spec, &mut slow, &mut fast).await;
    assert_eq!(record.termination.reason, Reason::Normal, "{record:#?}");
    assert_eq!(record.swap, Some(true));
    assert_eq!(
        (record.time_of(Seat::First), record.time_of(Seat::Second)),
        (patient, hurried)
    );
    let slow_moves: Vec<_> = record.moves.iter().map(|m| (m.color, m.timing.ms)).collect();
    assert_eq!(slow_moves.len(), 2);
    assert!(slow_moves.iter().all(|&(_, ms)| ms >= 100.0), "{slow_moves:?}");
    assert_eq!(slow_moves[1].0, Color::Black, "the slow bot's second stone is Black's");

    let spec = GameSpec::random("own-clocks-late", 47, 8, true, patient)
        .unwrap()
        .with_seat_times(hurried, patient);
    let record = played(&spec, &mut slow, &mut fast).await;
    assert_eq!(record.termination.reason, Reason::Timeout, "{record:#?}");
    assert_eq!(record.termination.forfeit.as_ref().map(|f| f.seat), Some(Seat::First));
    slow.shutdown().await;
    fast.shutdown().await;
    fixtures.assert_none_left();
}

fn starter(name: &str, program: &str, file: &str) -> BotSpec {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    BotSpec {
        name: name.to_owned(),
        program: program.to_owned(),
        args: vec![format!("{root}/bots/{file}")],
        dir: None,
        env: Vec::new(),
        sandbox: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_starter_bots_play_each_other() {
    let limits = quick_limits();
    let python = starter("python-random", "python3", "python-random/bot.py");
    let node = starter("js-greedy", "node", "js-greedy/bot.js");
    let mut first = Bot::start(&python, &limits, None)
        .await
        .expect("python3 runs the starter bot");
    let mut second = Bot::start(&node, &limits, None)
        .await
        .expect("node runs the starter bot");
    for (id, pie) in [("starters-1", true), ("starters-2", false)] {
        let spec = GameSpec::placed(id, 7, pie, move_time(Duration::from_secs(2))).unwrap();
        let record = played(&spec, &mut first, &mut second).await;
        assert_eq!(record.termination.reason, Reason::Normal, "{record:#?}");
    }
    first.shutdown().await;
    second.shutdown().await;
}

/// The stderr log marks each game and ply, so that a bot's lines can be shown beside the plies
/// they were written for: the starter bot logs `ply N: ...` (N its request's `moves` and one)
/// before each answer, and every such line is read back at ply N, over two games (the second
/// with blocks placed by the players, which count as plies) in one log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_line_of_stderr_is_logged_with_its_ply() {
    let fixtures = Fixtures::new();
    let log = fixtures.path("python.log");
    let python = starter("python-random", "python3", "python-random/bot.py");
    let mut first = Bot::start(&python, &quick_limits(), Some(&log))
        .await
        .expect("python3 runs the starter bot");
    let mut second = fixtures.start("first-free").await;
    let specs = [
        GameSpec::random("logged-1", 3, 5, true, time()).unwrap(),
        GameSpec::placed("logged-2", 7, true, time()).unwrap(),
    ];
    for spec in &specs {
        let record = played(spec, &mut first, &mut second).await;
        assert_eq!(record.termination.reason, Reason::Normal, "{record:#?}");
    }
    first.shutdown().await;
    let text = std::fs::read(&log).unwrap();
    for spec in &specs {
        let lines = pahtum_referee::stderr_log::game_lines(&text, &spec.id).expect("the game is in the log");
        // (`game_over` has no answer: what the bot writes about it may be read with the next game.)
        assert!(
            lines
                .iter()
                .any(|line| line.when == When::Start && line.text.contains("new game")),
            "{lines:#?}"
        );
        let plies: Vec<_> = lines
            .iter()
            .filter_map(|line| {
                let ply = line.text.split_once("] ply ")?.1.split_once(':')?.0;
                Some((line.when, ply.parse::<u32>().unwrap()))
            })
            .collect();
        assert!(plies.len() >= 20, "{lines:#?}");
        assert!(plies.iter().all(|&(when, ply)| when == When::Ply(ply)), "{plies:?}");
    }
    // The last game's end is read to the end of the stream.
    let last = pahtum_referee::stderr_log::game_lines(&text, "logged-2")
        .unwrap()
        .pop()
        .unwrap();
    assert!(last.text.contains("over") && last.when == When::End, "{last:#?}");
    second.shutdown().await;
    fixtures.assert_none_left();
}

/// A game with given plies (an opening): the referee plays them first, the
/// bots see them in their requests (the fixture takes the first free cell of
/// its request, so a1, given, would be an illegal move if it were missing)
/// and are not asked for them, the pie decision included; the record keeps
/// them untimed and replays. A bot that fails to get ready forfeits with the
/// colour the given swap gave it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_goes_on_from_the_given_plies() {
    let fixtures = Fixtures::new();
    let mut first = fixtures.start("first-free").await;
    let mut second = fixtures.start("first-free").await;
    let opening = ["#a1", "#b1", "#c1", "#d1", "#e1", "a2", "keep"].map(|ply| ply.parse().unwrap());
    let spec = GameSpec::placed("opening", 5, true, time())
        .unwrap()
        .with_opening(opening.to_vec(), None)
        .unwrap();
    let record = played(&spec, &mut first, &mut second).await;
    assert_eq!(record.termination.reason, Reason::Normal, "{record:#?}");
    assert_eq!(record.opening.as_ref().map(|opening| opening.plies), Some(7));
    // The fixture always swaps: it was not asked.
    assert_eq!((record.swap, &record.swap_move), (Some(false), &None));
    let cells: Vec<String> = record.moves.iter().map(|m| m.cell.to_string()).collect();
    assert_eq!(&cells[..8], ["a1", "b1", "c1", "d1", "e1", "a2", "f1", "g1"]);
    assert!(record.moves[..6].iter().all(|m| m.timing == Default::default()));
    assert!(record.moves[6..].iter().all(|m| m.timing.ms > 0.0));
    assert_eq!(
        (0..record.moves.len()).filter(|&index| record.is_given(index)).count(),
        6
    );

    let swapped = GameSpec::random("swapped", 7, 3, true, time())
        .unwrap()
        .with_opening(vec!["a1".parse().unwrap(), "swap".parse().unwrap()], None)
        .unwrap();
    let mut failing = fixtures.start("exit-at-start").await;
    let record = played(&swapped, &mut first, &mut failing).await;
    let forfeit = record.termination.forfeit.as_ref().unwrap();
    assert_eq!((forfeit.seat, forfeit.color), (Seat::Second, Color::White));
    first.shutdown().await;
    second.shutdown().await;
    failing.shutdown().await;
    fixtures.assert_none_left();
}

/// A bot that sends some 60 KB of `info` with every move and 20 KB texts in
/// its `hello` plays a normal game, and the record keeps a marked prefix of
/// each (about a kilobyte a move), while the other bot's short `info` is kept
/// whole: a bot cannot bloat the organiser's journal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_keeps_a_marked_prefix_of_a_bloated_info_and_hello() {
    let fixtures = Fixtures::new();
    let mut bloat = fixtures.start("bloat").await;
    let mut short = fixtures.start("delay=0").await;
    let spec = GameSpec::random("bloat", 7, 3, true, time()).unwrap();
    let record = played(&spec, &mut bloat, &mut short).await;
    assert_eq!(record.termination.reason, Reason::Normal, "{record:#?}");

    let bloated: Vec<&Info> = record
        .moves
        .iter()
        .filter(|m| m.seat == Some(Seat::First))
        .filter_map(|m| m.timing.info.as_ref())
        .collect();
    assert!(bloated.len() > 10, "the bloating bot's moves carry info");
    for info in bloated {
        let comment = info.comment.as_deref().unwrap();
        assert!(comment.starts_with(&"x".repeat(1000)), "{comment}");
        assert!(comment.ends_with("… [cut: 56976 bytes]"), "{comment}");
        let pv = info.pv.as_deref().unwrap();
        assert_eq!(pv.len(), 65);
        assert_eq!(pv[0], "yyyyyyyy… [cut: 492 bytes]");
        assert_eq!(pv[1], "d4");
        assert_eq!(pv[64], "… [cut: 536 moves]");
    }
    let hello = record.hello.as_ref().unwrap().first.as_ref().unwrap();
    for text in [Some(&hello.name), hello.version.as_ref(), hello.author.as_ref()] {
        assert!(text.unwrap().ends_with("… [cut: 19872 bytes]"), "{hello:?}");
    }

    // The control: the other bot's comments are kept whole.
    let whole: Vec<&str> = record
        .moves
        .iter()
        .filter(|m| m.seat == Some(Seat::Second))
        .filter_map(|m| m.timing.info.as_ref()?.comment.as_deref())
        .collect();
    assert!(whole.len() > 10);
    assert!(
        whole
            .iter()
            .all(|c| c.starts_with("bot-us=") && c.ends_with(char::is_numeric)),
        "{whole:?}"
    );

    // Under 2 KiB a move, where the bot sent 62 KB a move.
    let bytes = serde_json::to_string(&record).unwrap().len();
    assert!(
        bytes < 2048 * record.moves.len(),
        "{bytes} bytes for {} moves",
        record.moves.len()
    );
    bloat.shutdown().await;
    short.shutdown().await;
    fixtures.assert_none_left();
}

/// With `adjudicate` on, a game whose result is decided ends after that ply: the record says so, the result
/// the observer and the bots are told is the proven one, and the bots, told the game is over as after any
/// game, play the next one in the same processes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_adjudicated_game_ends_early_and_its_bots_play_on() {
    use pahtum_record::AdjudicationRule;
    let fixtures = Fixtures::new();
    let mut first = fixtures.start("first-free").await;
    let mut second = fixtures.start("first-free").await;
    let pids = (first.pid(), second.pid());
    let mut adjudicated = 0;
    for seed in 0..8 {
        let spec = GameSpec {
            adjudicate: Some(AdjudicationRule::Decided),
            ..GameSpec::random(format!("g{seed}"), 7, seed, true, time()).unwrap()
        };
        let mut ended = None;
        let record = play_game(&spec, &mut first, &mut second, &mut |event| {
            if let pahtum_referee::GameEvent::Ended { reason, result } = event {
                ended = Some((reason, result));
            }
        })
        .await;
        let game = record.replay().unwrap_or_else(|e| panic!("{e}: {record:#?}"));
        assert_eq!(ended, Some((Reason::Normal, record.result)));
        if let Some(adjudication) = record.termination.adjudicated {
            adjudicated += 1;
            assert!(!game.is_finished());
            assert_eq!(adjudication.ply, game.history().len());
            assert_eq!(adjudication.margin.outcome(), Some(record.result));
        } else {
            assert!(game.is_finished());
        }
    }
    assert!(
        adjudicated > 0,
        "first-free against itself decides some of 8 games early"
    );
    assert_eq!(
        (first.pid(), second.pid()),
        pids,
        "the same processes played every game"
    );
}
