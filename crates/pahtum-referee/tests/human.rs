//! A person's seat ([`Human`]) in an ordinary referee game against a real
//! bot process: the person's actions come through the channel, an undo takes
//! back the person's last action and the bot's answer, the person's clock is
//! kept like a bot's, and a seat whose channel is dropped resigns. The bot's
//! side is a normal game: its timings in the record and its `game_over`.

mod common;

use std::time::Duration;

use common::Fixtures;
use pahtum::{Action, Color, Seat};
use pahtum_protocol::{Reason, UNLIMITED_MOVE_MS, move_time};
use pahtum_record::GameSpec;
use pahtum_referee::{Human, HumanMove, Player, play_players};

fn spec(person_ms: u64) -> GameSpec {
    let bot = move_time(Duration::from_millis(2000));
    GameSpec::random("human", 7, 3, true, bot)
        .unwrap()
        .with_seat_times(move_time(Duration::from_millis(person_ms)), bot)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_plays_a_bot_with_an_undo_and_the_record_is_a_normal_one() {
    let fixtures = Fixtures::new();
    let mut bot = fixtures.start("first-free").await;
    let (human, mut turns) = Human::new("person");
    let spec = spec(UNLIMITED_MOVE_MS);
    let person = async move {
        let mut undone = false;
        let mut asked = 0;
        while let Some(turn) = turns.recv().await {
            asked += 1;
            let answer = if turn.game.history().len() >= 4 && !undone {
                undone = true;
                assert!(turn.can_undo);
                HumanMove::Undo
            } else {
                // The last legal action: the highest free cell, or keep at the pie decision.
                let legal = turn.game.legal_moves();
                let action = legal
                    .iter()
                    .copied()
                    .find(|action| *action == Action::Pie(false))
                    .unwrap_or(*legal.last().unwrap());
                HumanMove::Play(action)
            };
            assert!(turn.answer(answer));
        }
        asked
    };
    let game = async {
        // Dropped when the game ends, which ends the person's loop.
        let mut human = human;
        play_players(&spec, Player::Human(&mut human), Player::Bot(&mut bot), &mut |_| {}).await
    };
    let (record, asked) = tokio::join!(game, person);
    let game = record.replay().unwrap_or_else(|e| panic!("{e}: {record:#?}"));
    assert!(game.is_finished());
    assert_eq!(record.termination.reason, Reason::Normal);
    assert_eq!(
        (record.players.first.as_str(), record.players.second.as_str()),
        ("person", "first-free")
    );
    // The person's stones, the one taken back, and the undo (the pie decision was the bot's).
    assert_eq!(record.moves.len(), 42);
    let persons = record
        .moves
        .iter()
        .filter(|played| played.seat == Some(Seat::First))
        .count();
    assert_eq!(asked, persons + 1 + 1, "{record:#?}");
    // Both sides' answers are timed, as in any game; the person's have no CPU time.
    for played in &record.moves {
        assert!(played.timing.ms > 0.0);
        if played.seat == Some(Seat::First) {
            assert_eq!(played.timing.cpu_ms, None);
        }
    }
    let hello = record.hello.as_ref().unwrap();
    assert!(hello.first.is_none() && hello.second.is_some());
    assert!(bot.is_reusable(), "the bot took its game_over");
    bot.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_who_takes_too_long_loses_on_time_and_one_who_leaves_resigns() {
    let fixtures = Fixtures::new();
    let mut bot = fixtures.start("first-free").await;
    // The person's clock: 100 ms a move (and its margin); nobody answers.
    let (mut human, mut turns) = Human::new("person");
    let person = async move {
        let turn = turns.recv().await.unwrap();
        // Held until the referee stops waiting.
        let mut turn = turn;
        turn.abandoned().await;
        assert!(!turn.answer(HumanMove::Resign("too late".to_owned())));
    };
    let (short, mut observer) = (spec(100), |_| {});
    let game = play_players(&short, Player::Human(&mut human), Player::Bot(&mut bot), &mut observer);
    let (record, ()) = tokio::join!(game, person);
    assert_eq!(record.termination.reason, Reason::Timeout, "{record:#?}");
    let forfeit = record.termination.forfeit.as_ref().unwrap();
    assert_eq!((forfeit.bot.as_str(), forfeit.color), ("person", Color::White));
    assert_eq!(record.result.winner(), Some(Color::Black));
    assert!(bot.is_reusable());

    let (mut human, turns) = Human::new("person");
    drop(turns);
    let record = play_players(
        &spec(UNLIMITED_MOVE_MS),
        Player::Bot(&mut bot),
        Player::Human(&mut human),
        &mut |_| {},
    )
    .await;
    assert_eq!(record.termination.reason, Reason::Resign, "{record:#?}");
    assert_eq!(record.termination.forfeit.as_ref().unwrap().detail, "left the game");
    bot.shutdown().await;
}
