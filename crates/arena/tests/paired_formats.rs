//! The tournaments paired as they are played, by the real `arena run`: a Swiss of nine bots (built-in and
//! the Python fixture, all deterministic) over five rounds, so that every round has a bye; each round is
//! decided from the journal before it is played, `arena verify` pairs every round again, a resume plays
//! nothing twice, and the same Swiss played round by round in two shards and merged decides exactly the same
//! rounds. A knockout of eight, seeded in file order or by an earlier run's ratings, plays its bracket to a
//! champion.

mod running;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use running::{arena, said};

use serde_json::Value;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/bot.py");

fn assert_success(output: &Output) {
    assert!(output.status.success(), "status {:?}\n{}", output.status, said(output));
}

/// A Swiss of nine deterministic bots over five rounds, written to `dir/swiss.toml`, with the fixture bot in
/// its own folder (`dir/py`, copied whole into the Swiss).
fn swiss_file(dir: &Path) {
    paired_file(
        dir,
        "swiss.toml",
        "name = \"nine\"\nformat = \"swiss\"\nrounds = 5\n",
        9,
    );
}

/// A tournament file `dir/file` of `keys` and the first `bots` of nine deterministic bots, the fixture bot
/// the last, in its own folder (`dir/py`, copied whole into the league).
fn paired_file(dir: &Path, file: &str, keys: &str, bots: usize) {
    let py = dir.join("py");
    std::fs::create_dir_all(&py).unwrap();
    std::fs::copy(FIXTURE, py.join("bot.py")).unwrap();
    let mut text = format!("{keys}seed = 11\nconcurrency = 2\n\n[rules]\nblocks = [7, 9]\n\n[time]\nmove_ms = 5000\n");
    let all = [
        ("ff", "builtin = \"first-free\""),
        ("heur", "builtin = \"heuristic\""),
        ("e0a", "builtin = \"engine --level 0 --seed 1\""),
        ("e0b", "builtin = \"engine --level 0 --seed 2\""),
        ("e1a", "builtin = \"engine --level 1 --seed 1\""),
        ("e1b", "builtin = \"engine --level 1 --seed 2\""),
        ("e1c", "builtin = \"engine --level 1 --seed 3\""),
        ("e1d", "builtin = \"engine --level 1 --seed 4\""),
        ("py", "command = \"python3 bot.py first-free\"\ndir = \"py\""),
    ];
    for (name, launch) in all.iter().take(bots) {
        text.push_str(&format!("\n[[bots]]\nname = \"{name}\"\n{launch}\n"));
    }
    std::fs::write(dir.join(file), text).unwrap();
}

/// The lines of the journal in the folder `out`.
fn lines(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("journal.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The round lines of the journal in `out`: each round's pairs `[a, b, k]` and bye.
fn rounds(out: &Path) -> Vec<(Vec<[u64; 3]>, Option<u64>)> {
    lines(out)
        .iter()
        .filter_map(|line| line.get("round"))
        .map(|round| {
            let pairs = round["pairs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|pair| {
                    let pair = pair.as_array().unwrap();
                    [0, 1, 2].map(|i| pair[i].as_u64().unwrap())
                })
                .collect();
            (pairs, round.get("bye").and_then(Value::as_u64))
        })
        .collect()
}

/// The schedule hash `arena verify` gives the league in `out`, after checking that every line is sound and
/// every round was paired again by the rule.
fn verified_schedule(out: &Path, dir: &Path) -> String {
    verify_decided(out, dir, "the Swiss's")
}

/// The schedule hash `arena verify` gives the league in `out`, after checking that every line is sound and
/// every round was decided again by `rule`.
fn verify_decided(out: &Path, dir: &Path, rule: &str) -> String {
    let output = arena(&["verify", out.join("journal.jsonl").to_str().unwrap()], dir);
    assert_success(&output);
    let text = said(&output);
    assert!(text.contains("every line is sound"), "{text}");
    assert!(text.contains(&format!("each decided again by {rule} rule")), "{text}");
    text.split("schedule ").nth(1).unwrap().trim().to_owned()
}

#[test]
fn a_swiss_of_nine_over_five_rounds_gives_a_bye_each_round_and_meets_no_pair_twice() {
    let dir = tempfile::tempdir().unwrap();
    swiss_file(dir.path());
    let dry = arena(&["run", "swiss.toml", "--out", "out", "--dry-run"], dir.path());
    assert_success(&dry);
    let text = said(&dry);
    assert!(text.contains("A Swiss of 5 rounds and 9 bots"), "{text}");
    assert!(text.contains("1. ff - e1a") && text.contains("bye: py"), "{text}");
    assert!(!dir.path().join("out").exists(), "a dry run writes nothing");
    let refused = arena(
        &["run", "swiss.toml", "--out", "out", "--restart-every-game"],
        dir.path(),
    );
    assert!(!refused.status.success());
    assert!(said(&refused).contains("do not apply to a Swiss"), "{}", said(&refused));

    let played = arena(&["run", "swiss.toml", "--out", "out"], dir.path());
    assert_success(&played);
    let text = said(&played);
    assert!(text.contains("The Swiss is over: its rounds are played."), "{text}");
    assert!(
        text.contains("Swiss standings") && text.contains("Sonneborn-Berger"),
        "{text}"
    );
    let out = dir.path().join("out");
    let rounds = rounds(&out);
    assert_eq!(rounds.len(), 5);
    let mut met = std::collections::BTreeSet::new();
    let mut byes = std::collections::BTreeSet::new();
    for (index, (pairs, bye)) in rounds.iter().enumerate() {
        assert_eq!(pairs.len(), 4, "round {}", index + 1);
        let bye = bye.expect("a bye each round");
        assert!(byes.insert(bye), "a second bye for entrant {bye}");
        for &[a, b, k] in pairs {
            assert_eq!(k, index as u64, "round {} plays its own layout", index + 1);
            assert!(met.insert((a, b)), "{a} and {b} meet twice");
            assert!(a != bye && b != bye);
        }
    }
    // Both games of every pair of every round, and no other.
    let ids: Vec<String> = lines(&out)
        .iter()
        .filter_map(|line| Some(line.get("id")?.as_str()?.to_owned()))
        .collect();
    assert_eq!(ids.len(), 5 * 4 * 2);
    for (pairs, _) in &rounds {
        for [a, b, k] in pairs {
            for seat in ["a", "b"] {
                assert!(
                    ids.contains(&format!("{a:03}-{b:03}-{k:02}-{seat}")),
                    "{a}-{b}-{k} {seat}"
                );
            }
        }
    }
    verified_schedule(&out, dir.path());
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        report.contains("Swiss standings"),
        "the report shows the Swiss's standings"
    );

    // Played again: nothing is left to play, and nothing is played twice.
    let again = arena(&["run", "swiss.toml", "--out", "out"], dir.path());
    assert_success(&again);
    assert!(said(&again).contains("The Swiss is over"), "{}", said(&again));
    assert_eq!(lines(&out).iter().filter(|l| l.get("id").is_some()).count(), 40);

    // The file's rules changed: the Swiss in `out` is refused, not mixed with other rules.
    let changed = std::fs::read_to_string(dir.path().join("swiss.toml"))
        .unwrap()
        .replace("blocks = [7, 9]", "blocks = [5]");
    std::fs::write(dir.path().join("swiss.toml"), changed).unwrap();
    let refused = arena(&["run", "swiss.toml", "--out", "out"], dir.path());
    assert!(!refused.status.success());
    assert!(
        said(&refused).contains("holds a league of other rules"),
        "{}",
        said(&refused)
    );
}

/// Copies the folder `from` to `to` (which must not exist).
fn copy(from: &Path, to: &Path) {
    let status = Command::new("cp").args(["-a"]).arg(from).arg(to).status().unwrap();
    assert!(status.success());
}

#[test]
fn a_swiss_played_round_by_round_in_two_shards_decides_the_rounds_of_one_machine() {
    let dir = tempfile::tempdir().unwrap();
    swiss_file(dir.path());
    let one = arena(&["run", "swiss.toml", "--out", "one"], dir.path());
    assert_success(&one);
    let root = dir.path();
    let main: PathBuf = root.join("main");
    // Round 1: each shard sets the Swiss up where it plays (the same league on every machine); later rounds:
    // each shard plays in a copy of the merged league.
    for round in 1..=5 {
        let shards = [root.join("s1"), root.join("s2")];
        if round > 1 {
            copy(&main, &shards[0]);
            copy(&main, &shards[1]);
        }
        assert_success(&arena(&["run", "swiss.toml", "--out", "s1", "--shard", "1/2"], root));
        assert_success(&arena(&["run", "swiss.toml", "--out", "s2", "--shard", "2/2"], root));
        for shard in &shards {
            assert_eq!(rounds(shard).len(), round, "each shard decides round {round} alone");
        }
        let merged = root.join("merged");
        assert_success(&arena(&["merge", "merged", "s1", "s2"], root));
        assert_eq!(
            lines(&merged).iter().filter(|l| l.get("id").is_some()).count(),
            8 * round,
            "round {round}: every game once"
        );
        let _ = std::fs::remove_dir_all(&main);
        std::fs::rename(&merged, &main).unwrap();
        for shard in &shards {
            std::fs::remove_dir_all(shard).unwrap();
        }
    }
    assert_eq!(rounds(&main), rounds(&root.join("one")));
    assert_eq!(
        verified_schedule(&main, root),
        verified_schedule(&root.join("one"), root)
    );
    let over = arena(&["run", "swiss.toml", "--out", "main"], root);
    assert_success(&over);
    assert!(said(&over).contains("The Swiss is over"), "{}", said(&over));
}

#[test]
fn a_knockout_of_eight_plays_its_bracket_to_a_champion_and_seeds_from_earlier_ratings() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    paired_file(
        root,
        "ko.toml",
        "name = \"ko\"\nformat = \"knockout\"\npairs = 1\nmax_pairs = 3\n",
        8,
    );
    let dry = arena(&["run", "ko.toml", "--out", "ko", "--dry-run"], root);
    assert_success(&dry);
    let text = said(&dry);
    for first in [
        "1. (1) ff - (8) e1d",
        "2. (4) e0b - (5) e1a",
        "3. (2) heur - (7) e1c",
        "4. (3) e0a - (6) e1b",
    ] {
        assert!(text.contains(first), "{first}: {text}");
    }

    let played = arena(&["run", "ko.toml", "--out", "ko"], root);
    assert_success(&played);
    let text = said(&played);
    assert!(
        text.contains("The knockout is over: ") && text.contains("won the final"),
        "{text}"
    );
    let out = root.join("ko");
    verify_decided(&out, root, "the knockout's");
    let table = arena(&["league", "table", "ko"], root);
    assert_success(&table);
    let table = said(&table);
    assert_eq!(table.matches("quarter-final").count(), 4, "{table}");
    assert_eq!(table.matches("semi-final").count(), 2, "{table}");
    assert_eq!(table.matches("│ final").count(), 1, "{table}");
    assert!(
        std::fs::read_to_string(out.join("report.html"))
            .unwrap()
            .contains("Bracket")
    );
    // Each stage plays layouts of its own: stage s's layout rounds are 3s to 3s + 2; the first stage's four
    // matches are decided in round 1, each with its first layout pair.
    let rounds = rounds(&out);
    assert_eq!(rounds[0].0.len(), 4);
    assert!(rounds[0].0.iter().all(|&[_, _, k]| k == 0));
    let last = rounds.last().unwrap();
    assert!(
        last.0.iter().all(|&[_, _, k]| (6..9).contains(&k)),
        "the final's: {last:?}"
    );
    // Each match's layout pairs: one, or more while level, at most 3.
    let mut per_match = std::collections::BTreeMap::<(u64, u64), u64>::new();
    for (pairs, bye) in &rounds {
        assert_eq!(*bye, None);
        for &[a, b, _] in pairs {
            *per_match.entry((a, b)).or_default() += 1;
        }
    }
    assert_eq!(per_match.len(), 4 + 2 + 1);
    assert!(per_match.values().all(|&n| (1..=3).contains(&n)), "{per_match:?}");

    // Seeded by the ratings of that run: its best-rated bot (deterministic bots: the same each time) is seed 1.
    let keys = "name = \"ko2\"\nformat = \"knockout\"\nseeds_from = \"ko/journal.jsonl\"\n";
    paired_file(root, "ko2.toml", keys, 8);
    let seeded = arena(&["run", "ko2.toml", "--out", "ko2", "--dry-run"], root);
    assert_success(&seeded);
    // The ladder's first table lists the entrants by Elo, the best first.
    let best = arena(&["league", "table", "ko"], root);
    let best = said(&best);
    let leader = best
        .lines()
        .find(|line| line.starts_with("│ 1 "))
        .and_then(|line| line.split('│').nth(2))
        .unwrap()
        .trim()
        .trim_end_matches("@1")
        .to_owned();
    assert!(
        said(&seeded).contains(&format!("1. (1) {leader} - (8) ")),
        "{leader}: {}",
        said(&seeded)
    );
}

/// A Swiss from an opening book: the book is copied into the league's folder, each round's layout pairs
/// start from the round's opening (in the book's order), a shard's folder and a merge carry the book, and the
/// merged league plays on to the end and verifies.
#[test]
fn a_swiss_plays_its_openings_from_a_book_carried_by_its_shards() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("books")).unwrap();
    let book = "# three openings\na1 d4 g7 | c3 keep e5\n\n| #d1 #g2 #c5 d4\nb1 b7 f1 f7 g4 | d2\n";
    std::fs::write(root.join("books/three.txt"), book).unwrap();
    paired_file(
        root,
        "swiss.toml",
        "name = \"booked\"\nformat = \"swiss\"\nrounds = 3\n",
        4,
    );
    let text = std::fs::read_to_string(root.join("swiss.toml"))
        .unwrap()
        .replace("blocks = [7, 9]", "openings = \"books/three.txt\"");
    std::fs::write(root.join("swiss.toml"), text).unwrap();

    assert_success(&arena(&["run", "swiss.toml", "--out", "s1", "--shard", "1/2"], root));
    assert_eq!(
        std::fs::read_to_string(root.join("s1/three.txt")).unwrap(),
        book,
        "the book beside the league"
    );
    copy(&root.join("s1"), &root.join("s2"));
    assert_success(&arena(&["run", "swiss.toml", "--out", "s2", "--shard", "2/2"], root));
    assert_success(&arena(&["merge", "merged", "s1", "s2"], root));
    assert!(root.join("merged/three.txt").exists(), "a merge carries the book");
    let played = arena(&["league", "run", "merged"], root);
    assert_success(&played);
    assert!(said(&played).contains("The Swiss is over"), "{}", said(&played));
    verify_decided(&root.join("merged"), root, "the Swiss's");

    // Round r starts from the book's opening r (lines 2, 4 and 5), both games of each of its pairs.
    let lines = lines(&root.join("merged"));
    let games: Vec<&Value> = lines.iter().filter(|line| line.get("id").is_some()).collect();
    assert_eq!(games.len(), 3 * 2 * 2);
    for game in games {
        let id = game["id"].as_str().unwrap();
        let round: usize = id.split('-').nth(2).unwrap().parse().unwrap();
        let line = game["opening"]["book"]["line"].as_u64().unwrap();
        assert_eq!(line, [2, 4, 5][round], "{id}");
    }

    // The same book changed under the league: refused, the league's copy kept.
    std::fs::write(root.join("books/three.txt"), book.replace("| d2", "| d3")).unwrap();
    let refused = arena(&["run", "swiss.toml", "--out", "s1"], root);
    assert!(!refused.status.success());
    assert!(
        said(&refused).contains("holds a league of other rules"),
        "{}",
        said(&refused)
    );
    assert_eq!(std::fs::read_to_string(root.join("s1/three.txt")).unwrap(), book);
}
