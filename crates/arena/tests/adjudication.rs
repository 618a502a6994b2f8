//! Exact adjudication played by the real `arena run`: two built-in bots (both deterministic) play the same
//! schedule twice, once with `adjudicate = "decided"` and once played out. The adjudicated games end before
//! their board is full and say so in their record, every result is the played-out game's, the journal
//! verifies, and a record whose adjudication was moved to an earlier ply is refused by `arena verify`,
//! which names the game and the ply.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use pahtum_record::{GameRecord, ReplayError};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn arena(args: &[&str], dir: &Path) -> Output {
    Command::new(ARENA).args(args).current_dir(dir).output().unwrap()
}

fn said(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

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

/// `arena match --adjudicate decided` adjudicates as a tournament file's `adjudicate` does, and keeps the
/// rule in its journal's header; an unknown rule is refused by name.
#[test]
fn a_match_adjudicates_with_its_flag() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let args = [
        "match",
        "first-free",
        "heuristic",
        "--games",
        "4",
        "--seed",
        "3",
        "--out",
        "m",
    ];
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
