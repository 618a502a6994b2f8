//! The engine speaks the protocol: a scripted referee drives the bot loop
//! through a greeting, a game with the pie rule, a ping and `quit`, and every
//! answer is of the right type, repeats its request's id, is legal, and carries
//! an `info` object.

use pahtum::{Action, Color, Game, Phase};
use pahtum_engine::Engine;
use pahtum_protocol::{
    Clock, FromBot, NewGame, Placement, Request, Rules, TimeControl, ToBot, decode_from_bot, encode,
};

fn clock() -> Clock {
    Clock {
        remaining_ms: None,
        opponent_ms: None,
        increment_ms: 0,
        move_ms: Some(1000),
        timeout_ms: 1000,
        kind: pahtum_protocol::ClockKind::Wall,
    }
}

/// The request for the action that `game` waits for, as the referee sends it.
fn request(game: &Game, id: u64) -> ToBot {
    let position = game.position();
    let rules = Rules {
        pie: game.pie_rule(),
        blocks: game.blocks_total(),
        placement: Placement::Random,
    };
    let request = Request {
        id,
        game: "g1".to_owned(),
        color: game.color_to_act().unwrap(),
        rules,
        blocks: position.blocks().cells().collect(),
        white: position.white().cells().collect(),
        black: position.black().cells().collect(),
        moves: game.history().iter().map(ToString::to_string).collect(),
        clock: clock(),
    };
    match game.phase() {
        Phase::PieDecision => ToBot::PieDecision(request),
        _ => ToBot::PlayStone(request),
    }
}

/// Runs the engine on one line of input; returns its answers.
fn answers(engine: &mut Engine, message: &ToBot) -> Vec<FromBot> {
    let mut output = Vec::new();
    pahtum_protocol::bot::run_with(engine, encode(message).as_bytes(), &mut output).unwrap();
    String::from_utf8(output)
        .unwrap()
        .lines()
        .map(|line| decode_from_bot(line).unwrap())
        .collect()
}

#[test]
fn a_whole_game_over_the_protocol() {
    let args: Vec<String> = ["--playouts", "50", "--exact-cells", "10", "--seed", "3"]
        .map(str::to_owned)
        .to_vec();
    let mut engine = Engine::from_args(&args).unwrap();
    let hello = answers(
        &mut engine,
        &ToBot::Hello {
            protocol: 1,
            referee: "test".to_owned(),
        },
    );
    assert!(
        matches!(&hello[..], [FromBot::Hello { name, .. }] if name == "pahtum-engine"),
        "{hello:?}"
    );

    let blocks = pahtum::setup::random_blocks(41, 8).unwrap();
    let new_game = NewGame {
        id: 1,
        game: "g1".to_owned(),
        color: Color::White,
        rules: Rules {
            pie: true,
            blocks: 41,
            placement: Placement::Random,
        },
        blocks: blocks.cells().collect(),
        time: TimeControl {
            move_ms: Some(1000),
            base_ms: None,
            increment_ms: 0,
            margin_ms: 20,
            clock: pahtum_protocol::ClockKind::Wall,
        },
    };
    assert_eq!(
        answers(&mut engine, &ToBot::NewGame(new_game)),
        vec![FromBot::Ready { id: 1 }]
    );
    assert_eq!(
        answers(&mut engine, &ToBot::Ping { id: 2 }),
        vec![FromBot::Pong { id: 2 }]
    );

    // The engine plays both sides, as two seats would.
    let mut game = Game::with_blocks(blocks, true).unwrap();
    let mut id = 10;
    while !game.is_finished() {
        id += 1;
        let answer = answers(&mut engine, &request(&game, id));
        let (answer_id, action, info) = match answer.as_slice() {
            [FromBot::Stone { id, cell, info }] => (*id, Action::Stone(*cell), info.clone()),
            [FromBot::Pie { id, swap, info }] => (*id, Action::Pie(*swap), info.clone()),
            other => panic!("unexpected answer {other:?} in the {} phase", game.phase()),
        };
        assert_eq!(answer_id, id);
        let info = info.expect("every answer carries info");
        assert!(info.eval.is_some_and(|eval| (0.0..=1.0).contains(&eval)), "{info:?}");
        game.play(action).unwrap();
    }
    assert!(answers(&mut engine, &ToBot::Quit).is_empty());
}
