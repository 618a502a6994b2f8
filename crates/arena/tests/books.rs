//! Opening books played by the real `arena run`: a tournament whose layouts come from a book of 50 openings,
//! written as people write books (comments, blank lines, both kinds of blocks), each opening played once as a
//! layout pair, seats swapped, by real bot processes; the records name their openings and start with their
//! plies, the journal verifies without the book, and a faulty book is refused before any game with its line.

mod running;

use running::{arena, said};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The cells in board order, as the protocol writes them.
fn cell(index: usize) -> String {
    format!("{}{}", (b'a' + (index % 7) as u8) as char, index / 7 + 1)
}

/// Openings by their line in a book: the blocks before the `|` and the plies after it.
type Openings = BTreeMap<usize, (Vec<String>, Vec<String>)>;

/// A book of 50 openings: 40 of a given layout (five blocks, then a stone, the pie decision and a stone),
/// 10 placed by the players (three blocks, then a stone), with comments and blank lines among them.
fn book() -> (String, Openings) {
    let mut text = String::from("# 50 openings, made for the test\n\n");
    let mut openings = BTreeMap::new();
    for k in 0..50 {
        let blocks: Vec<String> = (0..5).map(|i| cell((k + 9 * i) % 49)).collect();
        let free: Vec<String> = (0..49).map(cell).filter(|c| !blocks.contains(c)).collect();
        let (given, plies) = if k < 40 {
            let pie = if k % 2 == 0 { "keep" } else { "swap" };
            (
                blocks.clone(),
                vec![free[k % 10].clone(), pie.to_owned(), free[20 + k % 7].clone()],
            )
        } else {
            let placed: Vec<String> = blocks[..3].iter().map(|c| format!("#{c}")).collect();
            (Vec::new(), [placed, vec![free[k % 10].clone()]].concat())
        };
        if k % 10 == 5 {
            text.push_str("# a comment between openings\n\n");
        }
        let line = text.lines().count() + 1;
        text.push_str(&format!("{} | {}\n", given.join(" "), plies.join(" ")));
        openings.insert(line, (given, plies));
    }
    (text, openings)
}

fn tournament(dir: &Path, order: &str) {
    let text = format!(
        "name = \"books\"\nseed = 5\ngames_per_pair = 100\nconcurrency = 2\n\n[rules]\n\
         openings = \"book.txt\"\nopenings_order = \"{order}\"\n\n[time]\nmove_ms = 2000\n\n\
         [[bots]]\nname = \"ff\"\nbuiltin = \"first-free\"\n\n[[bots]]\nname = \"heur\"\nbuiltin = \"heuristic\"\n"
    );
    std::fs::write(dir.join("t.toml"), text).unwrap();
}

#[test]
fn a_book_of_fifty_openings_is_played_each_as_a_layout_pair() {
    let dir = tempfile::tempdir().unwrap();
    let (text, openings) = book();
    std::fs::write(dir.path().join("book.txt"), text).unwrap();
    tournament(dir.path(), "shuffled");
    let dry = arena(&["run", "t.toml", "--out", "out", "--dry-run"], dir.path());
    assert!(dry.status.success(), "{}", said(&dry));
    let first_line = openings.keys().next().unwrap();
    assert!(
        said(&dry).contains("opening") && said(&dry).contains(&format!("line {first_line}: ")),
        "{}",
        said(&dry)
    );
    let played = arena(&["run", "t.toml", "--out", "out"], dir.path());
    assert!(played.status.success(), "{}", said(&played));

    let journal = std::fs::read_to_string(dir.path().join("out/journal.jsonl")).unwrap();
    let records: Vec<Value> = journal
        .lines()
        .skip(1)
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(records.len(), 100);
    let mut by_line: BTreeMap<usize, Vec<&Value>> = BTreeMap::new();
    for record in &records {
        let book = &record["opening"]["book"];
        assert_eq!(book["file"], "book.txt", "{record}");
        by_line
            .entry(book["line"].as_u64().unwrap() as usize)
            .or_default()
            .push(record);
    }
    assert_eq!(
        by_line.keys().collect::<Vec<_>>(),
        openings.keys().collect::<Vec<_>>(),
        "every opening, by its line"
    );
    for (line, games) in &by_line {
        let (blocks, plies) = &openings[line];
        assert_eq!(games.len(), 2, "line {line}: one layout pair");
        let players = |game: &Value| (game["players"]["first"].clone(), game["players"]["second"].clone());
        let (a, b) = (players(games[0]), players(games[1]));
        assert_eq!((a.0.clone(), a.1.clone()), (b.1, b.0), "line {line}: seats swapped");
        for game in games {
            assert_eq!(game["opening"]["plies"], plies.len(), "{game}");
            let mut recorded: Vec<String> = game["blocks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().to_owned())
                .collect();
            let mut given = if blocks.is_empty() {
                plies
                    .iter()
                    .filter_map(|p| p.strip_prefix('#').map(str::to_owned))
                    .collect()
            } else {
                blocks.clone()
            };
            recorded.sort();
            given.sort();
            assert_eq!(recorded, given, "line {line}: the book's blocks");
            // The given stones are the game's first stones, in order.
            let stones: Vec<String> = plies
                .iter()
                .filter(|p| !p.starts_with('#') && *p != "keep" && *p != "swap")
                .cloned()
                .collect();
            let first: Vec<String> = game["moves"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m.get("kind").is_none())
                .take(stones.len())
                .map(|m| m["cell"].as_str().unwrap().to_owned())
                .collect();
            assert_eq!(first, stones, "line {line}: the book's plies first");
        }
    }
    // Shuffled: not the book's order, and the same order again from the same seed.
    let lines_played: Vec<u64> = records
        .iter()
        .step_by(2)
        .map(|record| record["opening"]["book"]["line"].as_u64().unwrap())
        .collect();
    assert!(!lines_played.is_sorted(), "{lines_played:?}");

    // The journal holds the whole book: it verifies with the book gone.
    std::fs::remove_file(dir.path().join("book.txt")).unwrap();
    let verified = arena(&["verify", "out/journal.jsonl"], dir.path());
    assert!(verified.status.success(), "{}", said(&verified));
}

#[test]
fn a_faulty_book_is_refused_before_any_game_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("book.txt"),
        "# book\na1 b2 c3 | d4\n\na1 b2 c3 | d4 d4\n",
    )
    .unwrap();
    tournament(dir.path(), "sequence");
    let refused = arena(&["run", "t.toml", "--out", "out"], dir.path());
    assert!(!refused.status.success());
    let said = said(&refused);
    assert!(
        said.contains("rules.openings") && said.contains("book.txt: line 4") && said.contains("ply 2 (d4)"),
        "{said}"
    );
    assert!(!dir.path().join("out").exists(), "no game played");
}

#[test]
fn a_match_plays_a_book_in_its_order_each_opening_a_layout_pair() {
    let dir = tempfile::tempdir().unwrap();
    let book = "# four openings\na1 d4 g7 | c6\nb2 d4 f6 | c6 keep d3\n| #a1 #b2 #c3 e5\na1 b2 c3 d4 e5 | g7 swap\n";
    std::fs::write(dir.path().join("book.txt"), book).unwrap();
    let args = [
        "match",
        "first-free",
        "heuristic",
        "--games",
        "8",
        "--openings",
        "book.txt",
    ];
    let played = arena(&[&args[..], &["--out", "m"]].concat(), dir.path());
    assert!(played.status.success(), "{}", said(&played));
    let journal = std::fs::read_to_string(dir.path().join("m/journal.jsonl")).unwrap();
    // Layout round r (the game `000-0r-a` and `-b`) plays the book's r-th opening.
    let mut lines: Vec<(String, u64)> = journal
        .lines()
        .skip(1)
        .map(|line| {
            let game: Value = serde_json::from_str(line).unwrap();
            let id = game["id"].as_str().unwrap().to_owned();
            (id, game["opening"]["book"]["line"].as_u64().unwrap())
        })
        .collect();
    lines.sort();
    let rounds: Vec<(String, u64)> = (0..4)
        .flat_map(|round| ["a", "b"].map(|seat| (format!("000-{round:02}-{seat}"), round + 2)))
        .collect();
    assert_eq!(lines, rounds, "the book's order, each opening twice");

    // A book's faulty line, and the flags a book replaces.
    std::fs::write(dir.path().join("bad.txt"), "a1 d4 g7 | c6\n\na1 d4 | c6\n").unwrap();
    let refused = arena(
        &[
            "match",
            "first-free",
            "heuristic",
            "--games",
            "2",
            "--openings",
            "bad.txt",
            "--out",
            "n",
        ],
        dir.path(),
    );
    assert!(!refused.status.success());
    let told = said(&refused);
    assert!(
        told.contains("--openings") && told.contains("bad.txt: line 3"),
        "{told}"
    );
    let both = arena(&[&args[..], &["--blocks", "5", "--out", "o"]].concat(), dir.path());
    assert!(
        !both.status.success() && said(&both).contains("--blocks"),
        "{}",
        said(&both)
    );
}

#[test]
fn arena_book_makes_the_same_balanced_book_every_time_and_a_match_plays_it() {
    let dir = tempfile::tempdir().unwrap();
    let make = |out: &str| {
        let made = arena(
            &[
                "book",
                "--count",
                "6",
                "--plies",
                "3",
                "--balanced",
                "0.1",
                "--playouts",
                "300",
                "--seed",
                "3",
                "--out",
                out,
            ],
            dir.path(),
        );
        assert!(made.status.success(), "{}", said(&made));
        std::fs::read_to_string(dir.path().join(out)).unwrap()
    };
    let book = make("made.txt");
    assert_eq!(make("again.txt"), book, "the same flags, the same book");
    assert!(
        book.starts_with("# An opening book made by `arena book --count 6 --plies 3"),
        "{book}"
    );
    let estimates: Vec<f64> = book
        .lines()
        .filter_map(|line| line.strip_prefix("# expected "))
        .map(|value| value.parse().unwrap())
        .collect();
    assert_eq!(estimates.len(), 6);
    assert!(estimates.iter().all(|e| (e - 0.5).abs() <= 0.1), "{estimates:?}");
    let openings: Vec<&str> = book.lines().filter(|line| !line.starts_with('#')).collect();
    assert_eq!(openings.len(), 6);
    assert!(
        openings
            .iter()
            .all(|line| line.split(" | ").nth(1).unwrap().split(' ').count() == 3),
        "{book}"
    );

    let played = arena(
        &[
            "match",
            "first-free",
            "heuristic",
            "--games",
            "12",
            "--openings",
            "made.txt",
            "--out",
            "m",
        ],
        dir.path(),
    );
    assert!(played.status.success(), "{}", said(&played));
    let refused = arena(&["book", "--count", "2", "--balanced", "0.7"], dir.path());
    assert!(
        !refused.status.success() && said(&refused).contains("no band"),
        "{}",
        said(&refused)
    );
}
