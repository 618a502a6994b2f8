//! Both bots failing before the first move: each forfeits, and the game is a
//! draw, not a win for the seat that happened to fail second.

mod common;

use std::time::Duration;

use common::{Fixtures, quick_limits};
use pahtum::{Color, Outcome, Seat};
use pahtum_protocol::{Reason, move_time};
use pahtum_record::GameSpec;
use pahtum_referee::{Bot, play_game};

async fn start(fixtures: &Fixtures, mode: &str, name: &str) -> Bot {
    let mut spec = fixtures.spec(mode);
    spec.name = name.to_owned();
    Bot::start(&spec, &quick_limits(), None)
        .await
        .unwrap_or_else(|e| panic!("fixture {mode} did not start: {e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_bots_that_never_get_ready_both_forfeit_and_draw() {
    let fixtures = Fixtures::new();
    let mut first = start(&fixtures, "exit-at-start", "one").await;
    let mut second = start(&fixtures, "exit-at-start", "two").await;
    let spec = GameSpec::random("both-fail", 7, 5, true, move_time(Duration::from_millis(500))).unwrap();

    let record = play_game(&spec, &mut first, &mut second, &mut |_| {}).await;

    record.replay().unwrap_or_else(|e| panic!("{e}: {record:#?}"));
    assert_eq!(record.result, Outcome::Draw, "{record:#?}");
    assert_eq!(
        (record.points_of(Seat::First), record.points_of(Seat::Second)),
        (0.5, 0.5)
    );
    let forfeits: Vec<_> = record
        .termination
        .forfeits()
        .map(|(reason, forfeit)| (reason, forfeit.bot.as_str(), forfeit.seat, forfeit.color))
        .collect();
    assert_eq!(
        forfeits,
        [
            (Reason::Disconnect, "one", Seat::First, Color::White),
            (Reason::Disconnect, "two", Seat::Second, Color::Black),
        ]
    );
    assert!(!first.is_reusable() && !second.is_reusable());

    let json = serde_json::to_string(&record).unwrap();
    assert!(json.contains(r#""also":{"reason":"disconnect","bot":"two""#), "{json}");
    assert_eq!(
        serde_json::from_str::<pahtum_record::GameRecord>(&json).unwrap(),
        record
    );
    fixtures.assert_none_left();
}
