//! A real record from `arena game` replays, and tampered copies do not.

use pahtum::{Color, Outcome, Seat};
use pahtum_protocol::Reason;
use pahtum_protocol::TimeControl;
use pahtum_record::{Forfeit, GameRecord, SeatTimes};

/// `arena game --white first-free --black heuristic --blocks 41 --pie --seed 7 --json`
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
    assert!(record.replay().unwrap_err().to_string().contains("blocked"));
    let mut record = self::record();
    record.moves[2].color = Color::Black;
    assert!(record.replay().unwrap_err().to_string().contains("wrong colour"));
    let mut record = self::record();
    record.swap = None;
    assert!(record.replay().unwrap_err().to_string().contains("pie decision"));
}

#[test]
fn a_forfeit_needs_no_full_board_and_counts_for_the_other_colour() {
    let mut record = record();
    record.moves.truncate(3);
    record.result = Outcome::White;
    record.termination.reason = Reason::Timeout;
    record.termination.forfeit = Some(Forfeit {
        bot: "heuristic".into(),
        seat: Seat::Second,
        color: Color::Black,
        detail: "no answer within 1000 ms".into(),
        line: None,
        stderr_tail: Vec::new(),
    });
    assert!(!record.replay().unwrap().is_finished());
    assert_eq!(record.points_of(Seat::First), 1.0);
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
