//! A real record from `arena game` replays, and tampered copies do not.

use pahtum::decided::Margins;
use pahtum::{Action, Color, IllegalAction, Outcome, Phase, Score, Seat};
use pahtum_protocol::Reason;
use pahtum_protocol::TimeControl;
use pahtum_record::{
    Adjudication, AdjudicationRule, BookLine, Forfeit, GameRecord, GameSpec, Opening, OpeningError, Origin,
    OtherForfeit, ReplayError, SeatTimes, Termination, Unproven,
};

/// `arena game --white first-free --black heuristic --blocks 41 --seed 7 --json`
const RECORD: &str = include_str!("game.json");

fn record() -> GameRecord {
    serde_json::from_str(RECORD).unwrap()
}

#[test]
fn a_real_record_replays() {
    let record = record();
    let game = record.replay().unwrap();
    assert!(game.is_finished());
    assert_eq!(game.score(), record.score);
    assert_eq!(record.result, Outcome::Black);
    assert_eq!(record.color_of(Seat::Second), Color::Black);
    assert_eq!(record.points_of(Seat::Second), 1.0);
    assert_eq!(record.points_of(Seat::First), 0.0);
}

#[test]
fn records_round_trip_through_json() {
    let record = record();
    let again: GameRecord = serde_json::from_str(&serde_json::to_string(&record).unwrap()).unwrap();
    assert_eq!(again, record);
}

#[test]
fn a_wrong_score_or_result_is_caught() {
    let mut record = record();
    record.score.white += 3;
    assert!(record.replay().is_err());
    let mut record = self::record();
    record.result = Outcome::White;
    assert!(record.replay().is_err());
}

#[test]
fn an_illegal_or_misattributed_move_is_caught() {
    let mut record = record();
    record.moves[1].cell = record.blocks[0];
    assert_eq!(
        record.replay().unwrap_err(),
        ReplayError::IllegalMove {
            index: 1,
            error: IllegalAction::Blocked(record.blocks[0])
        }
    );
    let mut record = self::record();
    record.moves[2].color = Color::Black;
    assert_eq!(
        record.replay().unwrap_err(),
        ReplayError::WrongColour {
            index: 2,
            cell: record.moves[2].cell
        }
    );
    let mut record = self::record();
    record.swap = None;
    assert_eq!(record.replay().unwrap_err(), ReplayError::PieMissing);
}

fn forfeit(bot: &str, seat: Seat, color: Color) -> Forfeit {
    Forfeit {
        bot: bot.into(),
        seat,
        color,
        detail: "no answer within 1000 ms".into(),
        line: None,
        stderr_tail: Vec::new(),
        overloaded: false,
    }
}

/// The record cut after `moves` moves and ended by a timeout of the bot in
/// `seat`, with the board's score and the result a forfeit gives.
fn forfeited_after(moves: usize, seat: Seat) -> GameRecord {
    let mut record = record();
    record.moves.truncate(moves);
    let color = record.color_of(seat);
    record.termination.reason = Reason::Timeout;
    record.termination.forfeit = Some(forfeit(record.players.of(seat), seat, color));
    record.result = Outcome::win_for(color.opponent());
    record.score = partial_score(&record);
    record
}

/// The score of the board after the record's moves (a forfeit's record keeps it).
fn partial_score(record: &GameRecord) -> Score {
    let mut game = record.rules.start(&record.blocks).unwrap();
    for (index, played) in record.moves.iter().enumerate() {
        if index == 1 {
            game.play(Action::Pie(record.swap.unwrap())).unwrap();
        }
        game.play(Action::Stone(played.cell)).unwrap();
    }
    game.score()
}

#[test]
fn a_forfeit_needs_no_full_board_and_counts_for_the_other_colour() {
    let record = forfeited_after(3, Seat::Second);
    assert_eq!(record.result, Outcome::White);
    assert!(!record.replay().unwrap().is_finished());
    assert_eq!(record.points_of(Seat::First), 1.0);
}

#[test]
fn a_forfeit_must_be_a_win_for_the_other_colour() {
    let mut record = forfeited_after(3, Seat::Second);
    record.result = Outcome::Black;
    assert!(matches!(record.replay(), Err(ReplayError::Result { .. })));
    record.result = Outcome::Draw;
    assert!(record.replay().is_err());
    let mut record = forfeited_after(3, Seat::Second);
    record.termination.forfeit.as_mut().unwrap().color = Color::White;
    assert!(matches!(record.replay(), Err(ReplayError::ForfeitMismatch { .. })));
}

#[test]
fn a_double_forfeit_is_a_draw_and_old_records_without_it_still_parse() {
    let mut record = forfeited_after(0, Seat::First);
    record.swap = None;
    record.swap_move = None;
    record.termination.reason = Reason::Stall;
    record.termination.also = Some(OtherForfeit {
        reason: Reason::Disconnect,
        forfeit: forfeit("heuristic", Seat::Second, Color::Black),
    });
    assert!(matches!(record.replay(), Err(ReplayError::Result { .. })));
    record.result = Outcome::Draw;
    record.replay().unwrap();
    assert_eq!(
        (record.points_of(Seat::First), record.points_of(Seat::Second)),
        (0.5, 0.5)
    );
    let reasons: Vec<Reason> = record.termination.forfeits().map(|(reason, _)| reason).collect();
    assert_eq!(reasons, [Reason::Stall, Reason::Disconnect]);
    let json = serde_json::to_string(&record).unwrap();
    assert_eq!(serde_json::from_str::<GameRecord>(&json).unwrap(), record);
    assert!(!RECORD.contains("also") && self::record().termination.also.is_none());
}

#[test]
fn a_pie_decision_after_the_last_move_is_played() {
    let record = forfeited_after(1, Seat::First);
    assert_eq!(record.swap, Some(false));
    let game = record.replay().unwrap();
    assert_eq!((game.swapped(), game.phase()), (Some(false), Phase::Stones));
}

#[test]
fn a_pie_decision_the_game_never_reached_is_caught() {
    let mut record = forfeited_after(0, Seat::First);
    assert_eq!(record.replay().unwrap_err(), ReplayError::PieNeverReached);
    record.swap = None;
    record.replay().unwrap();
    let mut record = self::record();
    record.rules.pie = false;
    assert_eq!(record.replay().unwrap_err(), ReplayError::PieNeverReached);
}

#[test]
fn names_by_colour_must_follow_the_seats_and_the_swap() {
    let mut record = record();
    std::mem::swap(&mut record.white, &mut record.black);
    assert!(matches!(record.replay(), Err(ReplayError::Names(_))));
}

#[test]
fn the_block_count_must_be_the_rules() {
    let mut record = record();
    record.rules.blocks -= 2;
    assert!(matches!(record.replay(), Err(ReplayError::BlockCount { .. })));
    let mut record = self::record();
    record.blocks[1] = record.blocks[0];
    assert!(matches!(
        record.replay(),
        Err(ReplayError::BlockCount { distinct, listed, .. }) if distinct < listed
    ));
}

#[test]
fn per_seat_time_and_fair_mode_are_written_only_when_used() {
    let record = record();
    assert_eq!((record.time_by_seat, record.pause_idle), (None, false));
    let json = serde_json::to_string(&record).unwrap();
    assert!(!json.contains("time_by_seat") && !json.contains("pause_idle"), "{json}");
    assert_eq!(record.time_of(Seat::Second), record.time);

    let hurried = TimeControl {
        move_ms: Some(250),
        ..record.time
    };
    assert_eq!(SeatTimes::differing_from(record.time, record.time, record.time), None);
    let mut own = record.clone();
    own.time_by_seat = SeatTimes::differing_from(record.time, record.time, hurried);
    own.pause_idle = true;
    let json = serde_json::to_string(&own).unwrap();
    assert!(json.contains(r#""pause_idle":true"#), "{json}");
    let again: GameRecord = serde_json::from_str(&json).unwrap();
    assert_eq!(again, own);
    assert_eq!(
        (again.time_of(Seat::First), again.time_of(Seat::Second)),
        (record.time, hurried)
    );
    assert!(again.replay().is_ok());
}

#[test]
fn an_old_record_without_seats_derives_them_from_the_colours_and_the_swap() {
    let record = record();
    assert!(
        record.moves.iter().all(|m| m.seat.is_none()),
        "game.json predates the seats"
    );
    let first_stone = record
        .moves
        .iter()
        .position(|m| m.kind == pahtum_record::MoveKind::Stone)
        .unwrap();
    for index in 0..record.moves.len() {
        let holds_white_now = if record.swap == Some(true) && index > first_stone {
            Seat::Second
        } else {
            Seat::First
        };
        let expected = if record.moves[index].color == Color::White {
            holds_white_now
        } else {
            holds_white_now.other()
        };
        assert_eq!(record.seat_of_move(index), expected, "move {index}");
    }
}

#[test]
fn a_move_that_names_the_wrong_seat_is_caught() {
    let mut record = record();
    for index in 0..record.moves.len() {
        record.moves[index].seat = Some(record.seat_of_move(index));
    }
    record.replay().expect("the seats it derives are the right ones");
    let last = record.moves.len() - 1;
    record.moves[last].seat = record.moves[last].seat.map(Seat::other);
    assert!(matches!(record.replay(), Err(ReplayError::WrongSeat { index, .. }) if index == last));
}

#[test]
fn plies_are_numbered_as_the_protocol_lists_them_pie_decision_included() {
    let record = record();
    let history = record.replay().unwrap().history().to_vec();
    assert_eq!(history.len(), record.moves.len() + 1);
    assert_eq!(record.pie_ply(), Some(2));
    assert_eq!(history[1], Action::Pie(false));
    for (index, played) in record.moves.iter().enumerate() {
        assert_eq!(history[record.ply_of_move(index) - 1], Action::Stone(played.cell));
    }
    assert_eq!(
        (0..3).map(|index| record.ply_of_move(index)).collect::<Vec<_>>(),
        [1, 3, 4]
    );
    let mut no_pie = self::record();
    no_pie.rules.pie = false;
    no_pie.swap = None;
    assert_eq!(no_pie.pie_ply(), None);
    assert_eq!(
        (0..3).map(|index| no_pie.ply_of_move(index)).collect::<Vec<_>>(),
        [1, 2, 3]
    );
}

/// An opening names plies of the game; the given ones are told apart from the
/// bots', and a pie decision among them has no bot's timing.
#[test]
fn an_opening_is_checked_and_tells_the_given_moves_apart() {
    let mut record = record();
    // The real game: White's first stone (ply 1), Black kept (ply 2), then seven stones.
    record.opening = Some(Opening {
        plies: 1,
        from: None,
        book: None,
    });
    record.replay().unwrap();
    assert_eq!(
        (0..record.moves.len())
            .map(|index| record.is_given(index))
            .collect::<Vec<_>>(),
        [true, false, false, false, false, false, false, false]
    );
    let replayed = |record: &GameRecord| record.replay().map(drop);
    record.opening = Some(Opening {
        plies: 9,
        from: None,
        book: None,
    });
    assert_eq!(replayed(&record), Err(ReplayError::GivenPieTimed));
    record.swap_move = None;
    replayed(&record).unwrap();
    assert!(record.is_given(7));
    record.opening = Some(Opening {
        plies: 10,
        from: None,
        book: None,
    });
    assert_eq!(
        replayed(&record),
        Err(ReplayError::OpeningTooLong { given: 10, plies: 9 })
    );
    let json = serde_json::to_value(Opening {
        plies: 3,
        from: Some(Origin {
            file: "runs/t".into(),
            game: "003-01-b".into(),
        }),
        book: None,
    })
    .unwrap();
    assert_eq!(
        json,
        serde_json::json!({"plies": 3, "from": {"file": "runs/t", "game": "003-01-b"}})
    );
    let json = serde_json::to_value(Opening {
        plies: 2,
        from: None,
        book: Some(BookLine {
            file: "books/even.txt".into(),
            line: 12,
        }),
    })
    .unwrap();
    assert_eq!(
        json,
        serde_json::json!({"plies": 2, "book": {"file": "books/even.txt", "line": 12}})
    );
    assert!(
        serde_json::to_value(self::record()).unwrap().get("opening").is_none(),
        "absent without one"
    );
}

/// A recorded game's setup plays again: its layout, rules and time, and its
/// plies given up to any point; a ply the rules refuse is named.
#[test]
fn a_recorded_game_is_set_up_again_and_bad_plies_are_named() {
    let record = record();
    let spec = GameSpec::of_record("again", &record);
    assert_eq!(
        (spec.rules, spec.seed, spec.time),
        (record.rules, record.seed, record.time)
    );
    let plies = record.replay().unwrap().history().to_vec();
    let again = spec.clone().with_opening(plies[..4].to_vec(), None).unwrap();
    assert_eq!(again.opening, plies[..4]);
    let mut game = again.initial_game();
    for &ply in &plies[..4] {
        game.play(ply).unwrap();
    }
    assert_eq!(
        spec.clone().with_opening(plies.clone(), None),
        Err(OpeningError::Finished { plies: 9 })
    );
    let mut wrong = plies[..3].to_vec();
    wrong.push(plies[0]);
    let error = spec.with_opening(wrong, None).unwrap_err();
    assert!(matches!(error, OpeningError::Illegal { ply: 4, .. }), "{error:?}");
    let source = std::error::Error::source(&error).unwrap().to_string();
    assert!(source.contains("occupied"), "{error}: {source}");
}

/// The real record cut at the first ply after which its result was decided, adjudicated there as the
/// referee would, its score the board's then.
fn adjudicated() -> GameRecord {
    let full = record();
    let plies = full.replay().unwrap().history().to_vec();
    let mut game = full.rules.start(&full.first_blocks()).unwrap();
    for (index, &action) in plies.iter().enumerate() {
        game.play(action).unwrap();
        if let Some(adjudication) = Adjudication::reached(AdjudicationRule::Decided, &game, u64::MAX) {
            let mut record = full.clone();
            let pie = plies[..=index].iter().any(|action| matches!(action, Action::Pie(_)));
            record.moves.truncate(index + 1 - usize::from(pie));
            record.score = game.score();
            record.termination = Termination::adjudicated(adjudication);
            return record;
        }
    }
    panic!("the game was decided before its board was full");
}

#[test]
fn an_adjudicated_record_replays_only_where_and_as_it_was_decided() {
    let record = adjudicated();
    let game = record.replay().unwrap();
    assert!(!game.is_finished());
    let adjudication = record.termination.adjudicated.unwrap();
    assert_eq!(adjudication.ply, game.history().len());
    assert_eq!(adjudication.margin.outcome(), Some(record.result));
    adjudication.holds(&game, u64::MAX).unwrap();

    // Without its adjudication, a board that is not full.
    let mut bare = record.clone();
    bare.termination.adjudicated = None;
    assert_eq!(bare.replay().unwrap_err(), ReplayError::NotFinished);
    // At another ply than its last.
    let mut elsewhere = record.clone();
    elsewhere.termination.adjudicated.as_mut().unwrap().ply += 1;
    assert!(matches!(
        elsewhere.replay().unwrap_err(),
        ReplayError::AdjudicatedElsewhere { .. }
    ));
    // Margins that fix no result.
    let mut open = record.clone();
    open.termination.adjudicated.as_mut().unwrap().margin = Margins { low: -1, high: 1 };
    assert_eq!(
        open.replay().unwrap_err(),
        ReplayError::AdjudicationUndecided { low: -1, high: 1 }
    );
    // A result the margins do not give.
    let mut other = record.clone();
    other.result = Outcome::Draw;
    assert!(matches!(other.replay().unwrap_err(), ReplayError::Result { .. }));
    // With a forfeit.
    let mut forfeited = record.clone();
    forfeited.termination.reason = Reason::Timeout;
    forfeited.termination.forfeit = Some(Forfeit {
        bot: record.players.first.clone(),
        seat: Seat::First,
        color: record.color_of(Seat::First),
        detail: "late".into(),
        line: None,
        stderr_tail: Vec::new(),
        overloaded: false,
    });
    assert_eq!(forfeited.replay().unwrap_err(), ReplayError::AdjudicatedForfeit);
    // Margins tighter than the truth replay (the replay does not search), and do not hold.
    let mut tight = record.clone();
    let margin = &mut tight.termination.adjudicated.as_mut().unwrap().margin;
    let truth = *margin;
    *margin = Margins {
        low: truth.high,
        high: truth.high,
    };
    let game = tight.replay().unwrap();
    if truth.low != truth.high {
        assert!(matches!(
            tight.termination.adjudicated.unwrap().holds(&game, u64::MAX),
            Err(Unproven::Wider { .. })
        ));
    }
}
