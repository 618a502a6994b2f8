use pahtum_tournament::config::tournament_hash;
use std::path::PathBuf;
use std::time::Instant;

use pahtum_protocol::bot::Identity;
use pahtum_record::{GameRecord, Hellos};

use super::*;
use pahtum_tournament::config::Tournament;
use pahtum_tournament::durability::{BATCH_INTERVAL, Durability};
use pahtum_tournament::testing::{played, tournament};

/// The ids of the test tournament's games, in schedule order.
const GAMES: [&str; 6] = ["000-00-a", "000-00-b", "001-00-a", "001-00-b", "002-00-a", "002-00-b"];

/// `record` with the bots' greetings, as the referee records them (each bot's name, `v1`).
fn greeted(record: GameRecord) -> GameRecord {
    let hello = |name: &str| Identity {
        name: name.to_owned(),
        version: Some("v1".to_owned()),
        author: None,
    };
    GameRecord {
        hello: Some(Hellos {
            first: Some(hello(&record.players.first)),
            second: Some(hello(&record.players.second)),
        }),
        ..record
    }
}

/// What [`verify`] finds in the journal at `path`, and its faults as line numbers and words.
fn faults_of(path: &std::path::Path) -> (Verified, Vec<(usize, String)>) {
    let verified = verify(path).unwrap();
    let faults = verified
        .faults
        .iter()
        .map(|fault| (fault.line, fault.fault.to_string()))
        .collect();
    (verified, faults)
}

fn journal_with(records: usize) -> (tempfile::TempDir, PathBuf, Vec<GameRecord>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    let mut journal = Journal::create(&path, &tournament()).unwrap();
    let records: Vec<GameRecord> = GAMES[..records].iter().map(|id| greeted(played(id))).collect();
    for r in &records {
        journal.append(r).unwrap();
    }
    (dir, path, records)
}

#[test]
fn records_round_trip_after_the_header() {
    let (_dir, path, records) = journal_with(3);
    let contents = read(&path).unwrap();
    assert_eq!(contents.header, Header::new(&tournament()));
    assert_eq!(contents.records, records);
    assert!(!contents.torn && !contents.unterminated);
    assert!(
        Journal::create(&path, &tournament()).is_err(),
        "create must not overwrite"
    );
}

#[test]
fn results_are_the_records_without_their_moves() {
    let (_dir, path, records) = journal_with(2);
    assert!(records.iter().all(|r| !r.moves.is_empty() && r.swap_move.is_some()));
    let without_moves: Vec<GameRecord> = records
        .iter()
        .map(|r| GameRecord {
            moves: Vec::new(),
            swap_move: None,
            ..r.clone()
        })
        .collect();
    assert_eq!(read(&path).unwrap().records, records);
    let mut results = Vec::new();
    let reader = JournalReader::open(&path).unwrap();
    reader.for_each(Moves::Drop, |record| results.push(record)).unwrap();
    assert_eq!(results, without_moves);
}

#[test]
fn a_torn_last_line_is_dropped_and_truncated_before_appending() {
    let (_dir, path, records) = journal_with(2);
    let full_len = std::fs::metadata(&path).unwrap().len();
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(br#"{"id":"000-05-a","lay"#);
    std::fs::write(&path, &bytes).unwrap();

    let contents = read(&path).unwrap();
    assert!(contents.torn);
    assert_eq!(contents.records, records);
    assert_eq!(contents.valid_len, full_len);

    let (mut journal, _) = Journal::open(&path, |_, _| {}).unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), full_len);
    let extra = played(GAMES[5]);
    journal.append(&extra).unwrap();
    let contents = read(&path).unwrap();
    assert_eq!(contents.records.len(), 3);
    assert_eq!(contents.records[2], extra);
    assert!(!contents.torn);
}

#[test]
fn a_complete_record_without_its_newline_is_kept() {
    let (_dir, path, records) = journal_with(2);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    let mut opened = Vec::new();
    let (mut journal, _) = Journal::open(&path, |_, record| opened.push(record.id)).unwrap();
    assert_eq!(
        opened,
        records.iter().map(|record| record.id.clone()).collect::<Vec<_>>()
    );
    journal.append(&played(GAMES[5])).unwrap();
    assert_eq!(read(&path).unwrap().records.len(), 3);
}

/// `game` syncs at once; `batch` leaves the write due within the batch interval; `none` never asks.
#[test]
fn each_durability_syncs_when_it_says() {
    let (_dir, path, _) = journal_with(0);
    let (mut journal, _) = Journal::open(&path, |_, _| {}).unwrap();
    let expected = [
        (Durability::Game, false),
        (Durability::Batch, true),
        (Durability::None, false),
    ];
    for ((durability, due), id) in expected.into_iter().zip(GAMES) {
        journal.set_durability(durability);
        let before = Instant::now();
        journal.append(&played(id)).unwrap();
        let sync_due = journal.sync_due();
        assert_eq!(sync_due.is_some(), due, "{durability}");
        assert!(sync_due.is_none_or(|at| at >= before + BATCH_INTERVAL), "{durability}");
        journal.sync().unwrap();
        assert_eq!(journal.sync_due(), None, "{durability}: synced");
    }
    assert_eq!(read(&path).unwrap().records.len(), 3, "every mode writes at once");
}

#[test]
fn a_journal_in_use_cannot_be_opened_again() {
    let (_dir, path, _) = journal_with(1);
    let (first, _) = Journal::open(&path, |_, _| {}).unwrap();
    let error = Journal::open(&path, |_, _| {}).unwrap_err();
    assert!(matches!(error, JournalError::Locked { .. }), "{error}");
    assert!(
        error
            .to_string()
            .starts_with("another arena is running this tournament: "),
        "{error}"
    );
    drop(first);
    assert!(
        Journal::open(&path, |_, _| {}).is_ok(),
        "the lock ends with the journal"
    );
}

#[test]
fn damage_before_the_last_line_is_an_error_naming_the_line() {
    let (_dir, path, _) = journal_with(2);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.insert_str(text.find("\n{").unwrap() + 1, "garbage\n");
    std::fs::write(&path, text).unwrap();
    let error = read(&path).unwrap_err().to_string();
    assert!(error.contains("line 2 of the journal"), "{error}");
}

#[test]
fn blank_lines_are_skipped_and_every_fault_is_listed() {
    let (_dir, path, records) = journal_with(3);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(2, "");
    lines.insert(3, " \t ");
    std::fs::write(&path, lines.join("\n") + "\n\n").unwrap();
    assert_eq!(read(&path).unwrap().records, records);

    let second = lines[4].to_owned();
    lines.insert(4, "not json");
    lines.push(&second);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let error = read(&path).unwrap_err();
    assert!(matches!(error, JournalError::Fault { line: 5, .. }), "{error}");
    let (verified, faults) = faults_of(&path);
    assert_eq!(
        faults,
        [
            (5, "not a game record".to_owned()),
            (8, "game \"000-00-b\" was already recorded on line 6".to_owned())
        ]
    );
    assert_eq!(verified.good, 3);
}

/// A journal of more than a piece: its lines keep their numbers, and a
/// game recorded in two pieces is seen twice.
#[test]
fn a_journal_read_in_pieces_keeps_its_line_numbers() {
    let (_dir, path, records) = journal_with(2);
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let blanks = 2 * lines::PIECE_BYTES / 128 + 1;
    let blank = " ".repeat(127);
    let mut long: Vec<&str> = vec![lines[0], lines[1]];
    long.extend(std::iter::repeat_n(blank.as_str(), blanks));
    long.extend([lines[2], "not json", lines[1]]);
    std::fs::write(&path, long.join("\n") + "\n").unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() as usize > 2 * lines::PIECE_BYTES);
    let faults: Vec<(usize, String)> = verify(&path)
        .unwrap()
        .faults
        .iter()
        .map(|fault| (fault.line, fault.fault.to_string()))
        .collect();
    let after = blanks + 3;
    assert_eq!(
        faults,
        [
            (after + 1, "not a game record".to_owned()),
            (after + 2, "game \"000-00-a\" was already recorded on line 2".to_owned())
        ]
    );
    let mut sound = long;
    sound.truncate(sound.len() - 2);
    std::fs::write(&path, sound.join("\n") + "\n").unwrap();
    assert_eq!(read(&path).unwrap().records, records);
}

#[test]
fn a_missing_or_foreign_header_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    std::fs::write(&path, "").unwrap();
    assert!(matches!(read(&path), Err(JournalError::NoHeader { .. })));
    std::fs::write(&path, "{\"hello\":1}\n").unwrap();
    assert!(matches!(read(&path), Err(JournalError::BadHeader { .. })));
}

#[test]
fn the_hash_follows_the_tournament() {
    let t = tournament();
    assert_eq!(tournament_hash(&t), tournament_hash(&t.clone()));
    assert!(tournament_hash(&t).starts_with("sha256:"));
    assert_eq!(tournament_hash(&t).len(), "sha256:".len() + 64);
    let other = Tournament {
        seed: t.seed + 1,
        ..t.clone()
    };
    assert_ne!(tournament_hash(&other), tournament_hash(&t));
}

/// The hash is part of the journal format: a journal written by an older
/// arena must keep its hash, or it could not be resumed. These are the
/// hashes of the test tournament as written before this test existed,
/// without and with the keys that are left out when unused.
#[test]
fn the_hash_of_a_tournament_is_pinned() {
    let t = tournament();
    assert_eq!(
        tournament_hash(&t),
        "sha256:c9beddc68838a536c8560570a5389a197bfcfdc1042826830c29802ff7ef6c8d"
    );
    let mut used = Tournament {
        pause_idle: true,
        ..t.clone()
    };
    used.bots[0].time = Some(pahtum_protocol::move_time(std::time::Duration::from_millis(250)));
    assert_eq!(
        tournament_hash(&used),
        "sha256:5793d148919065f5126bee3b9c89c3e830699227f10af77c557ffa3167e0027b"
    );
}

/// Journals written before fair mode and per-bot time existed must resume:
/// a tournament that uses neither serializes (and hashes) as it did then.
#[test]
fn unused_fair_mode_and_bot_time_stay_out_of_the_hash() {
    let t = tournament();
    let json = serde_json::to_string(&t).unwrap();
    assert!(!json.contains("pause_idle"), "{json}");
    assert_eq!(json.matches("\"time\"").count(), 1, "only the tournament's: {json}");
    let fair = Tournament {
        pause_idle: true,
        ..t.clone()
    };
    assert_ne!(tournament_hash(&fair), tournament_hash(&t));
    let mut own_time = t.clone();
    own_time.bots[0].time = Some(pahtum_protocol::move_time(std::time::Duration::from_millis(250)));
    assert_ne!(tournament_hash(&own_time), tournament_hash(&t));
}

/// A wall clock (the default) stays out of the JSON, so that journals
/// written before CPU-time clocks existed resume; a CPU clock changes the hash.
#[test]
fn a_wall_clock_stays_out_of_the_hash() {
    let t = tournament();
    assert_eq!(t.time.clock, pahtum_protocol::ClockKind::Wall);
    let json = serde_json::to_string(&t).unwrap();
    assert!(!json.contains("clock"), "{json}");
    let mut cpu = t.clone();
    cpu.time.clock = pahtum_protocol::ClockKind::Cpu;
    assert!(serde_json::to_string(&cpu).unwrap().contains(r#""clock":"cpu""#));
    assert_ne!(tournament_hash(&cpu), tournament_hash(&t));
}

#[test]
fn dropping_a_bots_games_rewrites_the_journal_without_them_and_keeps_the_old_one_aside() {
    let (dir, path, records) = journal_with(6);
    let before = std::fs::read_to_string(&path).unwrap();
    let plays_c = |record: &GameRecord| record.players.first == "c" || record.players.second == "c";
    let dropped = drop_games(&path, plays_c).unwrap();
    assert_eq!(dropped.games, 4);
    let aside = dropped.aside.unwrap();
    assert_eq!(aside.parent(), Some(dir.path()));
    assert_eq!(std::fs::read_to_string(&aside).unwrap(), before);
    let kept: Vec<GameRecord> = records.iter().filter(|r| !plays_c(r)).cloned().collect();
    assert_eq!(kept.len(), 2);
    assert_eq!(read(&path).unwrap().records, kept);
    // The kept lines are the old ones, byte for byte, the header first.
    let lines: Vec<&str> = before.lines().collect();
    let expected: Vec<&str> = std::iter::once(lines[0])
        .chain(
            lines[1..]
                .iter()
                .copied()
                .filter(|line| !line.contains(r#""second":"c""#) && !line.contains(r#""first":"c""#)),
        )
        .collect();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap().lines().collect::<Vec<_>>(),
        expected
    );
    assert!(!path.with_extension("jsonl.partial").exists());
    // Nothing to drop: the journal stays as it is, and nothing is kept aside.
    let unchanged = drop_games(&path, plays_c).unwrap();
    assert_eq!(unchanged, Dropped { games: 0, aside: None });
    assert_eq!(read(&path).unwrap().records, kept);
}

#[test]
fn a_journal_in_use_or_with_a_faulty_line_is_not_rewritten() {
    let (_dir, path, _) = journal_with(2);
    let held = Journal::open(&path, |_, _| {}).unwrap();
    assert!(matches!(drop_games(&path, |_| true), Err(JournalError::Locked { .. })));
    drop(held);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"not\": \"a record\"}\n");
    std::fs::write(&path, &text).unwrap();
    assert!(matches!(
        drop_games(&path, |_| true),
        Err(JournalError::Fault { line: 4, .. })
    ));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    assert!(!path.with_extension("jsonl.partial").exists());
}

/// A journal of the test tournament, grown by a bot `d` after its first game, with a game of `d` after the
/// join: its lines (header, record, join, record) and the join.
fn grown_journal() -> (tempfile::TempDir, PathBuf, Joined) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    let t = tournament();
    let mut journal = Journal::create(&path, &t).unwrap();
    journal.append(&played("000-00-a")).unwrap();
    let mut d = t.bots[0].clone();
    d.name = "d".to_owned();
    let grown = pahtum_tournament::schedule::Schedule::new(&t).join(std::slice::from_ref(&d));
    let joined = Joined {
        joined: vec![d],
        unix_ms: 5,
        games: grown.len(),
        hash: tournament_hash(grown.tournament()),
    };
    journal.join(&joined).unwrap();
    let game = grown.game(grown.index_of("003-00-b").unwrap());
    let spec = game.spec(grown.tournament());
    journal
        .append(&pahtum_tournament::testing::won_by(&game, &spec, "d"))
        .unwrap();
    (dir, path, joined)
}

#[test]
fn a_join_grows_the_schedule_that_the_records_after_it_are_checked_against() {
    let (_dir, path, joined) = grown_journal();
    let contents = read(&path).unwrap();
    assert_eq!(contents.joins, std::slice::from_ref(&joined));
    assert_eq!(contents.records.len(), 2);
    assert_eq!(contents.records[1].players.first, "d");
    assert_eq!(contents.schedule.tournament().bot_names(), ["a", "b", "c", "d"]);
    assert_eq!((contents.schedule.len(), joined.games), (12, 12));
    let verified = verify(&path).unwrap();
    assert_eq!((verified.good, verified.faults.len()), (2, 0));
    assert_eq!(verified.joins, [(3, joined.clone())]);
    // Appending again keeps the join.
    let (mut journal, ending) = Journal::open(&path, |_, _| {}).unwrap();
    assert_eq!(ending.joins, [joined]);
    journal.append(&played("001-00-a")).unwrap();
    drop(journal);
    assert_eq!(read(&path).unwrap().records.len(), 3);
}

/// A `joined` line that was edited (its hash, its count of games, a bot already there, no bot), and a game
/// of a joined bot before its join, are faults named by their lines, as any edited line is.
#[test]
fn an_edited_join_line_or_a_game_before_its_join_is_a_fault_with_its_line_number() {
    let (_dir, path, joined) = grown_journal();
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let rewrite = |lines: &[&str]| std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let fault_of = |expected_line: usize, expected: &str| {
        let error = read(&path).unwrap_err();
        let JournalError::Fault { line, ref source, .. } = error else {
            panic!("{error}")
        };
        assert_eq!(line, expected_line, "{error}: {source}");
        assert!(source.to_string().contains(expected), "{source}");
        assert!(
            error
                .to_string()
                .starts_with(&format!("line {expected_line} of the journal"))
        );
        let verified = verify(&path).unwrap();
        assert_eq!(verified.faults[0].line, expected_line);
    };
    let edited = |edit: &dyn Fn(&mut Joined)| {
        let mut join = joined.clone();
        edit(&mut join);
        serde_json::to_string(&join).unwrap()
    };
    let more_games = edited(&|join| join.games += 2);
    rewrite(&[lines[0], lines[1], &more_games, lines[3]]);
    fault_of(3, "it gives 14 games, but the schedule with its bots has 12");
    let other_hash = edited(&|join| join.hash = tournament_hash(&tournament()));
    rewrite(&[lines[0], lines[1], &other_hash, lines[3]]);
    fault_of(3, "the line was edited");
    let renamed = edited(&|join| join.joined[0].name = "b".to_owned());
    rewrite(&[lines[0], lines[1], &renamed, lines[3]]);
    fault_of(3, "the bot \"b\" is in the tournament already");
    let nobody = edited(&|join| join.joined.clear());
    rewrite(&[lines[0], lines[1], &nobody, lines[3]]);
    fault_of(3, "names no bot");
    // The game of d before d joined; then a second join of d.
    rewrite(&[lines[0], lines[3], lines[1], lines[2]]);
    fault_of(2, "names the bot \"d\", which is not in the tournament");
    rewrite(&[lines[0], lines[1], lines[2], lines[2], lines[3]]);
    fault_of(4, "the bot \"d\" is in the tournament already");
    rewrite(&lines);
    assert!(read(&path).is_ok());
}

#[test]
fn a_rewrite_keeps_the_join_lines_in_place() {
    let (_dir, path, joined) = grown_journal();
    let dropped = drop_games(&path, |record| record.players.first == "a").unwrap();
    assert_eq!(dropped.games, 1);
    let contents = read(&path).unwrap();
    assert_eq!(contents.joins, [joined]);
    assert_eq!(contents.records.len(), 1);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.lines().nth(1).unwrap().starts_with("{\"joined\":"), "{text}");
}

/// A long journal that bots join in the middle, their games spread over many pieces of the file after it
/// (read on every core, against the grown schedule), and a game of a second join placed after the first
/// join but before its own, pieces away: every record is read, and the misplaced one is the fault of its line.
#[test]
fn games_of_joined_bots_over_many_pieces_are_checked_against_the_joins_before_them() {
    use rand::SeedableRng;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    let (first, size) = crate::testing::synthetic_grown_journal(&path, 1200, 5);
    assert!(size > 4 * super::lines::PIECE_BYTES as u64, "{size} bytes");
    let mut late = first.tournament().bots[0].clone();
    late.name = "late".to_owned();
    let second = first.join(&[late]);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let game = second.game(first.len());
    let spec = game.spec(second.tournament());
    let misplaced = serde_json::to_string(&pahtum_tournament::testing::random_game(&game, spec, &mut rng)).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let misplaced_line = lines.len() - 2;
    lines.insert(misplaced_line - 1, &misplaced);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let (verified, faults) = faults_of(&path);
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert_eq!(faults[0].0, misplaced_line);
    assert!(faults[0].1.contains("names the bot \"late\""), "{faults:?}");
    assert_eq!(
        verified.good,
        lines.len() - 3,
        "every line but the header, the join and the misplaced game"
    );

    // Moved after its join, it is sound.
    lines.remove(misplaced_line - 1);
    let join = serde_json::to_string(&crate::testing::joined_line(&second)).unwrap();
    lines.extend([join.as_str(), misplaced.as_str()]);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let contents = read(&path).unwrap();
    assert_eq!(contents.joins.len(), 2);
    assert_eq!(contents.schedule.len(), second.len());
    assert_eq!(contents.records.len(), verified.good + 1);
}
