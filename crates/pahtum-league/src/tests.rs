//! The league's journal read back: every line checked, and an edited line refused with its number.

use std::path::Path;

use crate::testing::{simulate_round_robin, simulate_rule, synthetic_league};
use pahtum_journal::Moves;
use pahtum_journal::Span;
use pahtum_journal::audit::Fault;
use pahtum_journal::sink::{Counts, Keep, Records, Sink};
use pahtum_record::GameRecord;

use super::audit::verify;
use super::read::{LeagueError, read};
use super::state::LeagueFault;
use super::table::{fold, table};

/// The lines of the journal at `path`.
fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn write(path: &Path, lines: &[String]) {
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// The number of the line the reading of `path` refuses, and why.
fn refused(path: &Path) -> (usize, LeagueFault) {
    match read(path, Moves::Drop, &mut Counts) {
        Err(LeagueError::Fault { line, source, .. }) => (line, *source),
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn a_league_journal_reads_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    synthetic_league(&path, 5, 30);
    /// Keeps the number of each record's moves, on the reading threads.
    struct MoveCount;
    impl Keep for MoveCount {
        type Kept = usize;
        fn keep(&self, record: &GameRecord) -> usize {
            record.moves.len()
        }
    }
    /// Checks that each record came with its moves.
    struct WithMoves;
    impl Sink for WithMoves {
        type Keep = MoveCount;
        fn keeper(&self) -> MoveCount {
            MoveCount
        }
        fn record(&mut self, _: GameRecord, moves: usize, _: Span) {
            assert!(moves > 0);
        }
    }
    let read = read(&path, Moves::Keep, &mut WithMoves).unwrap();
    assert_eq!(
        (read.state.entrants().len(), read.state.games(), read.state.rounds()),
        (5, 30, 2)
    );
    assert_eq!(read.ending.records, 30);
    assert!(read.state.pending().is_empty());
}

#[test]
fn an_edited_line_is_refused_with_its_number() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    synthetic_league(&path, 4, 12);
    let original = lines(&path);
    // Line 1 the header, 2-5 the entrants, 6 the round, 7.. the games.
    let cases: [(usize, &str, &str); 5] = [
        (7, "\"result\":\"white\"", "\"result\":\"black\""),
        (8, "sha256:0000", "sha256:1111"),
        (3, "\"hash\":\"sha256:0", "\"hash\":\"sha256:X"),
        (6, "[0,1,0]", "[1,0,0]"),
        (1, "\"seed\":0", "\"seed\":1"),
    ];
    for (number, from, to) in cases {
        let mut edited = original.clone();
        let line = &mut edited[number - 1];
        if !line.contains(from) {
            // Not every game has White winning: the case is about the line, take the other result.
            assert_eq!(number, 7, "{line}");
            *line = line.replacen("\"result\":\"black\"", "\"result\":\"white\"", 1);
        } else {
            *line = line.replacen(from, to, 1);
        }
        write(&path, &edited);
        let (line, fault) = refused(&path);
        assert_eq!(line, number, "{fault}");
    }
    // A game recorded twice, and a game of no round: refused where they stand.
    let mut edited = original.clone();
    edited.push(original[6].clone());
    write(&path, &edited);
    let (line, fault) = refused(&path);
    assert!(
        matches!(fault, LeagueFault::Duplicate { .. }) && line == original.len() + 1,
        "{fault}"
    );
    let mut edited = original.clone();
    edited.swap(5, 6);
    write(&path, &edited);
    assert!(matches!(refused(&path), (6, LeagueFault::NotDecided { .. })));
    // A torn last line is dropped, not refused.
    let mut torn = original.join("\n") + "\n";
    torn.push_str(&original[6][..40]);
    std::fs::write(&path, torn).unwrap();
    let read = read(&path, Moves::Drop, &mut Counts).unwrap();
    assert!(read.ending.torn);
    assert_eq!(read.state.games(), 12);
}

/// The numbers of the faulty lines `verify` lists for `path`, and the games it found sound.
fn faults(path: &Path) -> (Vec<usize>, usize) {
    let verified = verify(path).unwrap();
    let lines = verified.faults.iter().map(|fault| fault.line).collect();
    (lines, verified.state.games())
}

#[test]
fn verify_lists_every_faulty_line_and_counts_the_sound_ones() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    synthetic_league(&path, 4, 12);
    let original = lines(&path);
    let verified = verify(&path).unwrap();
    assert!(verified.faults.is_empty(), "{:?}", verified.faults);
    assert_eq!((verified.state.entrants().len(), verified.state.rounds()), (4, 1));
    assert_eq!((verified.state.games(), verified.ending.records), (12, 12));

    // Line 1 the header, 2-5 the entrants, 6 the round, 7.. the games: three edits, three faults, each
    // where it stands, and the lines between them still checked and counted.
    let mut edited = original.clone();
    edited[0] = edited[0].replacen("\"hash\":\"sha256:", "\"hash\":\"sha256:0", 1);
    edited[8] = edited[8].replacen("sha256:0000", "sha256:1111", 1);
    let result = ["\"result\":\"white\"", "\"result\":\"black\"", "\"result\":\"draw\""]
        .into_iter()
        .find(|result| edited[12].contains(result))
        .unwrap();
    let other = if result.contains("white") {
        "\"result\":\"black\""
    } else {
        "\"result\":\"white\""
    };
    edited[12] = edited[12].replacen(result, other, 1);
    edited.push(original[6].clone());
    write(&path, &edited);
    let verified = verify(&path).unwrap();
    let found: Vec<(usize, String)> = verified
        .faults
        .iter()
        .map(|fault| (fault.line, fault.fault.to_string()))
        .collect();
    let numbers: Vec<usize> = found.iter().map(|(line, _)| *line).collect();
    assert_eq!(numbers, [1, 9, 13, 19], "{found:?}");
    assert!(matches!(verified.faults[0].fault, LeagueFault::HeaderEdited));
    assert!(matches!(verified.faults[1].fault, LeagueFault::WrongHashes { .. }));
    assert!(matches!(
        verified.faults[2].fault,
        LeagueFault::Line(Fault::DoesNotReplay { .. })
    ));
    assert!(matches!(verified.faults[3].fault, LeagueFault::Duplicate { .. }));
    assert_eq!(verified.state.games(), 10, "the faulty games count for nothing");
    // `read` stops at the first of them.
    assert_eq!(refused(&path).0, 1);

    // A torn last line is dropped, not a fault.
    let mut torn = original.join("\n") + "\n";
    torn.push_str(&original[6][..40]);
    std::fs::write(&path, torn).unwrap();
    let verified = verify(&path).unwrap();
    assert!(verified.ending.torn && verified.faults.is_empty());
    assert_eq!(verified.state.games(), 12);
}

/// A round with one pair that cannot be counts for nothing, not for its pairs before that one: each of its
/// games is then a game of no round.
#[test]
fn a_faulty_round_counts_for_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    synthetic_league(&path, 4, 12);
    let mut edited = lines(&path);
    assert!(edited[5].ends_with("[2,3,0]]}}"), "{}", edited[5]);
    edited[5] = edited[5].replacen("[2,3,0]", "[3,2,0]", 1);
    write(&path, &edited);
    let verified = verify(&path).unwrap();
    assert_eq!(faults(&path), ((6..=18).collect::<Vec<_>>(), 0));
    assert!(matches!(
        verified.faults[0].fault,
        LeagueFault::BadRound { number: 1, .. }
    ));
    assert!(
        verified.faults[1..]
            .iter()
            .all(|fault| matches!(fault.fault, LeagueFault::NotDecided { .. }))
    );
    assert_eq!((verified.state.rounds(), verified.state.decided_games()), (0, 0));
}

#[test]
fn the_table_does_not_depend_on_the_order_of_the_games() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    synthetic_league(&path, 6, 40);
    let text = |path: &Path| {
        let (state, tallies) = fold(path, Moves::Drop, &mut Counts).unwrap();
        serde_json::to_string(&table(&state, tallies, None).unwrap()).unwrap()
    };
    let before = text(&path);
    let mut lines = lines(&path);
    let games = lines.iter().position(|line| line.starts_with("{\"round\"")).unwrap() + 1;
    lines[games..].reverse();
    // The second round's line must stay before its games: move it up to the first round's end.
    let second = lines.iter().rposition(|line| line.starts_with("{\"round\"")).unwrap();
    let round = lines.remove(second);
    lines.insert(games, round);
    write(&path, &lines);
    assert_eq!(text(&path), before);
}

/// On a simulated field of known strength, the pairing rule reaches the target in fewer games than a round
/// robin (`cargo run --release -p pahtum-league --features testing --example league -- sim` measures 30 bots).
#[test]
fn the_pairing_rule_needs_fewer_games_than_a_round_robin() {
    let rule = simulate_rule(12, 1, 120.0, 4);
    let robin = simulate_round_robin(12, 1, 120.0);
    assert!(rule < robin, "the rule played {rule} games, the round robin {robin}");
}

#[test]
fn a_history_is_at_most_twelve_evenly_spaced_fits_ending_with_the_tables() {
    use super::history::{self, MAX_CHECKPOINTS};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    // Three entrants, 50 layout rounds of their three pairs.
    crate::testing::synthetic_league(&path, 3, 300);
    let (state, tallies, checkpoints) = history::fold(&path, Moves::Drop, &mut Counts).unwrap();
    assert_eq!(state.rounds(), 50);
    assert!(checkpoints.fits() < MAX_CHECKPOINTS, "{}", checkpoints.fits());
    let table = table(&state, tallies, None).unwrap();
    let history = checkpoints.fit(&state, &table.standings.strength, None).unwrap();
    let rounds: Vec<u32> = history.points.iter().map(|point| point.round).collect();
    assert!(
        rounds.len() >= MAX_CHECKPOINTS / 2 && rounds.len() <= MAX_CHECKPOINTS,
        "{rounds:?}"
    );
    let stride = history.stride;
    let spaced: Vec<u32> = (1..rounds.len() as u32).map(|n| n * stride).collect();
    assert_eq!(rounds[..rounds.len() - 1], spaced, "after every {stride}th round");
    assert_eq!(*rounds.last().unwrap(), 50);
    // Each checkpoint counts the games before it: three pairs of two games a round.
    assert!(
        history
            .points
            .iter()
            .all(|point| point.games == 6 * point.round as usize)
    );
    let last = &history.points.last().unwrap().ratings;
    assert_eq!(last.len(), 3);
    for rating in last {
        assert_eq!(
            table.standings.strength.rating(&rating.bot),
            Some(rating),
            "the table's own fit"
        );
    }
    // The ratings of an earlier checkpoint are a fit of fewer games: wider intervals.
    let first = &history.points[0].ratings;
    let width =
        |ratings: &[pahtum_standings::strength::BotRating]| ratings.iter().map(|r| r.upper - r.lower).sum::<f64>();
    assert!(width(first) > width(last));
}

#[test]
fn a_short_league_has_a_checkpoint_after_every_round() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    crate::testing::synthetic_league(&path, 3, 18);
    let (state, tallies, checkpoints) = super::history::fold(&path, Moves::Drop, &mut Counts).unwrap();
    let table = table(&state, tallies, None).unwrap();
    let history = checkpoints.fit(&state, &table.standings.strength, None).unwrap();
    let rounds: Vec<(u32, usize)> = history.points.iter().map(|point| (point.round, point.games)).collect();
    assert_eq!(rounds, [(1, 6), (2, 12), (3, 18)]);
}

/// A game is held to what the league's [`game`](super::LeagueState::game) and its spec give it, with its
/// entrants' hashes after that, whatever is edited: the same faults, in the same order, as checking the
/// game built whole.
#[test]
fn a_game_is_refused_as_the_game_built_whole_refuses_it() {
    use pahtum_record::{GameRecord, SeatTimes};

    use super::LayoutPair;
    use pahtum_journal::audit::as_scheduled;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    synthetic_league(&path, 4, 12);
    let mut records = Records::default();
    read(&path, Moves::Keep, &mut records).unwrap();
    let last: GameRecord = records.0.pop().unwrap();
    let mut before = lines(&path);
    before.pop();
    write(&path, &before);
    let state = read(&path, Moves::Keep, &mut Counts).unwrap().state;
    let (pair, seat) = LayoutPair::of_id(&last.id).unwrap();
    let game = state.game(pair, seat);
    let hashes = state.hashes_of(&game).map(str::to_owned);
    /// An edit of the record and its hashes.
    type Edit = dyn Fn(&mut GameRecord, &mut [String; 2]);
    let edits: [&Edit; 12] = [
        &|_, _| {},
        &|record, _| std::mem::swap(&mut record.players.first, &mut record.players.second),
        &|record, _| record.players.second = "bot000@2".to_owned(),
        &|record, _| record.layout = None,
        &|record, _| record.layout = Some("000-001-01".to_owned()),
        &|record, _| record.seed = record.seed.map(|seed| seed + 1),
        &|record, _| record.rules.pie = !record.rules.pie,
        &|record, _| record.blocks.reverse(),
        &|record, _| record.blocks[0] = record.blocks[1],
        &|record, _| {
            record.time_by_seat = Some(SeatTimes {
                first: record.time,
                second: record.time,
            })
        },
        &|record, hashes| {
            record.pause_idle = true;
            hashes.swap(0, 1);
        },
        &|_, hashes| hashes[1] = "sha256:1".to_owned(),
    ];
    for edit in edits {
        let (mut record, mut recorded) = (last.clone(), hashes.clone());
        edit(&mut record, &mut recorded);
        let built_whole = as_scheduled(&record, &game, &state.spec(&game))
            .map_err(LeagueFault::from)
            .and_then(|()| match recorded == hashes {
                true => Ok(()),
                false => Err(LeagueFault::WrongHashes {
                    id: record.id.clone(),
                    recorded: recorded.clone(),
                    expected: hashes.clone(),
                }),
            });
        let applied = state.clone().apply_game(&record, &recorded);
        assert_eq!(format!("{applied:?}"), format!("{built_whole:?}"));
    }
}

/// A voided game counts for no one and is pending again; played again (its record once more, after the
/// void) it counts once. Every reader agrees: the league's state, a read's records, the table, verify,
/// and a follower, which starts afresh at a void of a game it handed on. A void of a game not recorded
/// is refused with its line.
#[test]
fn a_voided_game_counts_for_no_one_until_it_is_played_again() {
    use crate::follow::LeagueFollower;
    use crate::{Event, Voided};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.jsonl");
    synthetic_league(&path, 4, 24);
    let mut follower = LeagueFollower::open(&path).unwrap();
    assert_eq!(
        follower.read_new(Moves::Drop, &mut Counts).unwrap(),
        pahtum_journal::Growth::Grew(24)
    );
    let original = lines(&path);
    let (number, game) = original
        .iter()
        .enumerate()
        .rev()
        .find(|(_, line)| line.contains("\"moves\""))
        .map(|(number, line)| (number, line.clone()))
        .unwrap();
    let id = serde_json::from_str::<serde_json::Value>(&game).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let void = serde_json::to_string(&Event::Voided(Voided {
        game: id.clone(),
        why: "the arena failed it".into(),
        unix_ms: 1,
    }))
    .unwrap();
    assert!(void.starts_with("{\"voided\":"), "{void}");
    let mut voided = original.clone();
    voided.push(void.clone());
    write(&path, &voided);

    let records = |path: &Path| {
        let mut records = Records::default();
        let read = read(path, Moves::Drop, &mut records).unwrap();
        (read, records.0)
    };
    let (read, kept) = records(&path);
    assert_eq!(read.state.games(), 23);
    assert_eq!(kept.len(), 23);
    assert!(
        kept.iter().all(|record| record.id != id),
        "the voided record is left out"
    );
    assert_eq!(read.state.pending().len(), 1, "the voided game is pending again");
    let (state, tallies) = fold(&path, Moves::Drop, &mut Counts).unwrap();
    assert_eq!(
        table(&state, tallies, None).unwrap().games,
        23,
        "the table leaves it out"
    );
    assert!(verify(&path).unwrap().faults.is_empty());
    // The follower handed the record on before: it starts afresh, and then leaves it out.
    assert_eq!(
        follower.read_new(Moves::Drop, &mut Counts).unwrap(),
        pahtum_journal::Growth::Replaced
    );
    let mut follower = LeagueFollower::open(&path).unwrap();
    let mut handed = Records::default();
    // (A look counts the game lines it read, the voided one too.)
    assert_eq!(
        follower.read_new(Moves::Drop, &mut handed).unwrap(),
        pahtum_journal::Growth::Grew(24)
    );
    assert_eq!(handed.0.len(), 23);
    assert!(handed.0.iter().all(|record| record.id != id));

    // Played again: the same record after the void counts once.
    let mut again = voided.clone();
    again.push(game.clone());
    write(&path, &again);
    let (read, kept) = records(&path);
    assert_eq!((read.state.games(), kept.len()), (24, 24));
    assert_eq!(kept.iter().filter(|record| record.id == id).count(), 1);
    assert!(read.state.pending().is_empty());
    assert!(verify(&path).unwrap().faults.is_empty());
    assert_eq!(
        follower.read_new(Moves::Drop, &mut Counts).unwrap(),
        pahtum_journal::Growth::Grew(1)
    );

    // A second void of the game before it is played again is refused, as is one of a game never recorded.
    let mut twice = voided;
    twice.push(void);
    write(&path, &twice);
    let (line, fault) = refused(&path);
    assert_eq!(line, twice.len());
    assert!(matches!(fault, LeagueFault::NotRecorded { .. }), "{fault}");
    let mut never = original;
    never.insert(number + 1, never[number].replace(&id, "999-999-00-a"));
    let unknown = serde_json::to_string(&Event::Voided(Voided {
        game: "000-003-07-b".into(),
        why: "no such game".into(),
        unix_ms: 2,
    }))
    .unwrap();
    never.truncate(number + 1);
    never.push(unknown);
    write(&path, &never);
    let (line, fault) = refused(&path);
    assert_eq!(line, number + 2);
    assert!(matches!(fault, LeagueFault::NotRecorded { .. }), "{fault}");
}
