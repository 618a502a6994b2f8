//! Exact adjudication played by the real `arena run`: two built-in bots (both deterministic) play the same
//! schedule twice, once with `adjudicate = "decided"` and once played out. The adjudicated games end before
//! their board is full and say so in their record, every result is the played-out game's, the journal
//! verifies, and a record whose adjudication was moved to an earlier ply is refused by `arena verify`,
//! which names the game and the ply. `adjudicate = "solved"` ends each game with the solver's result from
//! its free cells, which `arena verify` proves again; a Swiss (a league) adjudicates and verifies so too.

mod running;

use std::collections::BTreeMap;
use std::path::Path;

use pahtum_record::{AdjudicationRule, GameRecord, ReplayError};
use running::{arena, said};

/// The tournament file of 24 games between `first-free` and `heuristic`, with `adjudicate` if given.
fn tournament(dir: &Path, file: &str, adjudicate: Option<&str>) {
    let rule = adjudicate.map_or(String::new(), |rule| format!("adjudicate = \"{rule}\"\n"));
    let text = format!(
        "name = \"adjudicated\"\nseed = 11\ngames_per_pair = 24\nconcurrency = 2\n\n[rules]\n{rule}\n\
         [time]\nmove_ms = 5000\n\n[[bots]]\nname = \"ff\"\nbuiltin = \"first-free\"\n\n\
         [[bots]]\nname = \"heur\"\nbuiltin = \"heuristic\"\n"
    );
    std::fs::write(dir.join(file), text).unwrap();
}

/// The records of the journal in `out`, by game id, each with its line as written.
fn records(dir: &Path, out: &str) -> BTreeMap<String, (GameRecord, String)> {
    let journal = std::fs::read_to_string(dir.join(out).join("journal.jsonl")).unwrap();
    journal
        .lines()
        .skip(1)
        .map(|line| {
            let record: GameRecord = serde_json::from_str(line).unwrap();
            (record.id.clone(), (record, line.to_owned()))
        })
        .collect()
}

#[test]
fn adjudicated_games_end_early_with_the_results_of_the_games_played_out() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    tournament(dir, "decided.toml", Some("decided"));
    tournament(dir, "out.toml", None);

    let dry = arena(&["run", "decided.toml", "--out", "decided", "--dry-run"], dir);
    assert!(dry.status.success(), "{}", said(&dry));
    assert!(said(&dry).contains("adjudicate = \"decided\""), "{}", said(&dry));

    for (file, out) in [("decided.toml", "decided"), ("out.toml", "out")] {
        let played = arena(&["run", file, "--out", out], dir);
        assert!(played.status.success(), "{}", said(&played));
    }
    let adjudicated = records(dir, "decided");
    let played_out = records(dir, "out");
    assert_eq!(adjudicated.len(), 24);
    assert_eq!(
        adjudicated.keys().collect::<Vec<_>>(),
        played_out.keys().collect::<Vec<_>>()
    );
    let mut early = 0;
    for (id, (record, line)) in &adjudicated {
        let (full, _) = &played_out[id];
        assert!(full.termination.adjudicated.is_none(), "{id}: played out");
        assert_eq!(record.result, full.result, "{id}: the result of the game played out");
        let game = record.replay().unwrap();
        match &record.termination.adjudicated {
            Some(adjudication) => {
                early += 1;
                assert!(line.contains("\"adjudicated\":{\"rule\":\"decided\""), "{line}");
                assert!(!game.is_finished(), "{id}: ended before the board was full");
                assert_eq!(adjudication.ply, game.history().len());
                // The same plies as the game played out, up to the adjudication; its margin within the bounds.
                assert!(record.moves.len() < full.moves.len(), "{id}");
                let bare = |r: &GameRecord| r.moves.iter().map(|m| m.bare()).collect::<Vec<_>>();
                assert_eq!(bare(record)[..], bare(full)[..record.moves.len()], "{id}");
                let margin = full.score.white as i32 - full.score.black as i32;
                let bounds = adjudication.margin;
                assert!(
                    bounds.low <= margin && margin <= bounds.high,
                    "{id}: {margin} in {bounds:?}"
                );
            }
            None => assert!(game.is_finished(), "{id}: played out"),
        }
    }
    assert!(
        early >= 12,
        "most games of a strong bot against a weak one are decided early: {early}"
    );

    let verified = arena(&["verify", "decided"], dir);
    assert!(verified.status.success(), "{}", said(&verified));
    assert!(
        said(&verified).contains("all 24 records are sound"),
        "{}",
        said(&verified)
    );
    let report = std::fs::read_to_string(dir.join("decided/report.html")).unwrap();
    assert!(
        report.contains(&format!(
            "Adjudicated, ended before the board was full: {early} by the rule decided"
        )),
        "the report says how many games were adjudicated, and by which rule"
    );
    let proven = format!("adjudicated: {early} game(s), each adjudication proven again by the rules");
    assert!(said(&verified).contains(&proven), "{}", said(&verified));

    let shown_id = adjudicated
        .iter()
        .find(|(_, (record, _))| record.termination.adjudicated.is_some())
        .map(|(id, _)| id.clone())
        .unwrap();
    let shown = arena(&["show", "decided", &shown_id], dir);
    assert!(shown.status.success(), "{}", said(&shown));
    let ply = adjudicated[&shown_id].0.termination.adjudicated.unwrap().ply;
    assert!(
        said(&shown).contains(&format!("adjudicated after ply {ply} (decided: ")),
        "{}",
        said(&shown)
    );

    // The adjudication moved six plies earlier, the record otherwise consistent (its score the board's):
    // the replay accepts it, and `arena verify` proves the margins again and refuses it.
    let (mut tampered, _) = adjudicated[&shown_id].clone();
    tampered.moves.truncate(tampered.moves.len() - 6);
    let adjudication = tampered.termination.adjudicated.as_mut().unwrap();
    adjudication.ply -= 6;
    let earlier = adjudication.ply;
    if let Err(ReplayError::Score { board, .. }) = tampered.replay() {
        tampered.score = board;
    }
    tampered.replay().expect("the tampered record replays");
    let journal = dir.join("decided/journal.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let line = &adjudicated[&shown_id].1;
    std::fs::write(&journal, text.replace(line, &serde_json::to_string(&tampered).unwrap())).unwrap();
    let refused = arena(&["verify", "decided"], dir);
    assert!(!refused.status.success(), "{}", said(&refused));
    assert!(
        said(&refused).contains(&format!("game \"{shown_id}\": the adjudication after ply {earlier}")),
        "{}",
        said(&refused)
    );
    assert!(said(&refused).contains("23 sound record(s)"), "{}", said(&refused));
}

/// The arguments of `arena match` of four games of first-free against heuristic from `seed`, into `m`.
fn match_of_four(seed: &str) -> [&str; 9] {
    [
        "match",
        "first-free",
        "heuristic",
        "--games",
        "4",
        "--seed",
        seed,
        "--out",
        "m",
    ]
}

/// `arena match --adjudicate decided` adjudicates as a tournament file's `adjudicate` does, and keeps the
/// rule in its journal's header; an unknown rule is refused by name.
#[test]
fn a_match_adjudicates_with_its_flag() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let args = match_of_four("3");
    let played = arena(&[&args[..], &["--adjudicate", "decided"]].concat(), dir);
    assert!(played.status.success(), "{}", said(&played));
    let journal = std::fs::read_to_string(dir.join("m/journal.jsonl")).unwrap();
    let header = journal.lines().next().unwrap();
    assert!(header.contains("\"adjudicate\":\"decided\""), "{header}");
    let records = records(dir, "m");
    assert_eq!(records.len(), 4);
    assert!(
        records
            .values()
            .any(|(record, _)| record.termination.adjudicated.is_some()),
        "{journal}"
    );
    let refused = arena(&[&args[..], &["--adjudicate", "guess"]].concat(), dir);
    assert!(!refused.status.success());
    assert!(said(&refused).contains("--adjudicate"), "{}", said(&refused));
}

/// `--adjudicate solved`: every game ends once 12 free cells are left, its margin the solver's for best play
/// from there (one value, not a range); `arena verify` solves each again, and refuses a record whose margin
/// was changed.
#[test]
fn a_solved_game_ends_at_its_free_cells_with_the_solvers_margin() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let args = match_of_four("5");
    let played = arena(
        &[&args[..], &["--adjudicate", "solved", "--solved-cells", "12"]].concat(),
        dir,
    );
    assert!(played.status.success(), "{}", said(&played));
    let records = records(dir, "m");
    assert_eq!(records.len(), 4);
    for (record, _) in records.values() {
        let adjudication = record.termination.adjudicated.expect("every game is solved");
        assert_eq!(adjudication.rule, AdjudicationRule::Solved { cells: 12 });
        assert_eq!(
            adjudication.margin.low, adjudication.margin.high,
            "one value: the solver's"
        );
        let game = record.replay().unwrap();
        assert!(game.position().free().len() <= 12);
        assert!(adjudication.summary().contains("with perfect play, an assumption"));
    }
    let verified = arena(&["verify", "m/journal.jsonl"], dir);
    assert!(verified.status.success(), "{}", said(&verified));

    // A margin one point better for the winner than the solver's: the record still fixes its result, but
    // verify solves it again and refuses it.
    let journal = std::fs::read_to_string(dir.join("m/journal.jsonl")).unwrap();
    let (id, (record, line)) = records.iter().next().unwrap();
    let margin = record.termination.adjudicated.unwrap().margin;
    let shift = if margin.low >= 0 { 1 } else { -1 };
    let tampered = line.replace(
        &format!("\"margin\":{{\"low\":{},\"high\":{}}}", margin.low, margin.high),
        &format!(
            "\"margin\":{{\"low\":{},\"high\":{}}}",
            margin.low + shift,
            margin.high + shift
        ),
    );
    assert_ne!(&tampered, line);
    std::fs::write(dir.join("m/journal.jsonl"), journal.replace(line.as_str(), &tampered)).unwrap();
    let refused = arena(&["verify", "m/journal.jsonl"], dir);
    assert!(!refused.status.success());
    assert!(said(&refused).contains(id.as_str()), "{}", said(&refused));
}

/// A Swiss adjudicates by its file's `[rules]`, as a league, and `arena verify` of its league journal proves
/// every adjudication again, refusing a record whose adjudication was moved to an earlier ply by its line.
#[test]
fn a_swiss_adjudicates_and_its_league_journal_proves_each_adjudication() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let text = "name = \"sw\"\nseed = 4\nformat = \"swiss\"\nrounds = 2\nconcurrency = 2\n\n[rules]\n\
                adjudicate = \"decided\"\n\n[time]\nmove_ms = 5000\n\n[[bots]]\nname = \"ff\"\nbuiltin = \"first-free\"\n\n\
                [[bots]]\nname = \"heur\"\nbuiltin = \"heuristic\"\n\n[[bots]]\nname = \"e0\"\nbuiltin = \"engine --level 0\"\n\n\
                [[bots]]\nname = \"e1\"\nbuiltin = \"engine --level 1\"\n";
    std::fs::write(dir.join("sw.toml"), text).unwrap();
    let played = arena(&["run", "sw.toml", "--out", "sw"], dir);
    assert!(played.status.success(), "{}", said(&played));
    let journal = std::fs::read_to_string(dir.join("sw/journal.jsonl")).unwrap();
    let lines: Vec<&str> = journal.lines().collect();
    let adjudicated: Vec<(usize, GameRecord)> = lines
        .iter()
        .enumerate()
        .filter_map(|(index, line)| {
            let record: GameRecord = serde_json::from_str(line).ok()?;
            record.termination.adjudicated.is_some().then_some((index, record))
        })
        .collect();
    assert!(!adjudicated.is_empty(), "{journal}");
    let verified = arena(&["verify", "sw/journal.jsonl"], dir);
    assert!(verified.status.success(), "{}", said(&verified));

    // An adjudication moved some plies earlier, where it does not hold, the record otherwise consistent (its
    // score the board's): it replays, and only the proof refuses it.
    let tampered = adjudicated.iter().find_map(|(index, record)| {
        (1..=8).find_map(|cut| {
            let mut tampered = record.clone();
            tampered.moves.truncate(tampered.moves.len().checked_sub(cut)?);
            tampered.termination.adjudicated.as_mut()?.ply -= cut;
            if let Err(ReplayError::Score { board, .. }) = tampered.replay() {
                tampered.score = board;
            }
            let game = tampered.replay().ok()?;
            let adjudication = tampered.termination.adjudicated?;
            adjudication
                .holds(&game, u64::MAX)
                .is_err()
                .then_some((*index, tampered))
        })
    });
    let Some((index, record)) = tampered else {
        panic!("no adjudication could be moved to a ply where it does not hold: {journal}");
    };
    let mut line: serde_json::Value = serde_json::from_str(lines[index]).unwrap();
    let rewritten: serde_json::Value = serde_json::to_value(&record).unwrap();
    for (key, value) in rewritten.as_object().unwrap() {
        line[key] = value.clone();
    }
    let mut changed: Vec<String> = lines.iter().map(|line| (*line).to_owned()).collect();
    changed[index] = serde_json::to_string(&line).unwrap();
    std::fs::write(dir.join("sw/journal.jsonl"), changed.join("\n") + "\n").unwrap();
    let refused = arena(&["verify", "sw/journal.jsonl"], dir);
    assert!(!refused.status.success(), "{}", said(&refused));
    assert!(
        said(&refused).contains(&format!("line {}: ", index + 1)),
        "{}",
        said(&refused)
    );
}
