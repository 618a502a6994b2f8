//! A journal is checked whenever it is read: tampered journals, each refused
//! by `arena standings` and by a resumed `arena run` with the line and the
//! fault, and listed all at once by `arena verify`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// A 3-bot round-robin of built-in bots, 2 layouts per pair: 12 games, one record per line from line 2.
const TOURNAMENT: &str = r#"
name = "t"
seed = 5
games_per_pair = 4
[[bots]]
name = "first"
builtin = "first-free"
[[bots]]
name = "heuristic"
builtin = "heuristic"
[[bots]]
name = "other"
builtin = "first-free"
"#;

/// A played tournament: its file and its output folder.
struct Played {
    dir: tempfile::TempDir,
}

impl Played {
    fn new() -> Played {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("t.toml"), TOURNAMENT).unwrap();
        let played = Played { dir };
        let output = played.run();
        assert!(output.status.success(), "{}", text(&output.stderr));
        played
    }

    fn run(&self) -> Output {
        Command::new(ARENA)
            .arg("run")
            .arg(self.dir.path().join("t.toml"))
            .arg("--out")
            .arg(self.dir.path().join("out"))
            .output()
            .unwrap()
    }

    fn journal(&self) -> PathBuf {
        self.dir.path().join("out/journal.jsonl")
    }

    fn lines(&self) -> Vec<String> {
        std::fs::read_to_string(self.journal())
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn write(&self, lines: &[String]) {
        std::fs::write(self.journal(), lines.join("\n") + "\n").unwrap();
    }
}

fn arena(args: &[&str], journal: &Path) -> Output {
    Command::new(ARENA).args(args).arg(journal).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The record on `line` (1 is the header) edited by `edit`.
fn edited(lines: &[String], line: usize, edit: impl FnOnce(&mut Value)) -> Vec<String> {
    let mut lines = lines.to_vec();
    let mut record: Value = serde_json::from_str(&lines[line - 1]).unwrap();
    edit(&mut record);
    lines[line - 1] = record.to_string();
    lines
}

/// A cell of the record's moves other than move `index`'s: a stone on it is on an occupied cell.
fn occupied_cell(record: &Value, index: usize) -> Value {
    record["moves"][index - 1]["cell"].clone()
}

/// One tampering of the journal: what it does, the faulty line, words the fault must use.
type Tamper = (&'static str, usize, &'static str, fn(&[String]) -> Vec<String>);

const TAMPERS: &[Tamper] = &[
    ("a move on an occupied cell", 3, "does not replay", |lines| {
        edited(lines, 3, |r| r["moves"][6]["cell"] = occupied_cell(r, 6))
    }),
    ("a result that contradicts the score", 4, "does not replay", |lines| {
        edited(lines, 4, |r| {
            r["result"] = json!(if r["result"] == "white" { "black" } else { "white" })
        })
    }),
    ("a changed score", 5, "does not replay", |lines| {
        edited(lines, 5, |r| {
            r["score"]["white"] = json!(r["score"]["white"].as_u64().unwrap() + 3)
        })
    }),
    ("swapped players", 6, "the players (by seat)", |lines| {
        edited(lines, 6, |r| {
            let (first, second) = (r["players"]["first"].clone(), r["players"]["second"].clone());
            r["players"] = json!({ "first": second, "second": first });
            let (white, black) = (r["white"].clone(), r["black"].clone());
            (r["white"], r["black"]) = (black, white);
        })
    }),
    ("changed blocks", 7, "the blocks", |lines| {
        edited(lines, 7, |r| {
            let moved = r["moves"][0]["cell"].clone();
            r["moves"][0]["cell"] = r["blocks"][0].clone();
            r["blocks"][0] = moved;
        })
    }),
    (
        "a bot that is not in the tournament",
        8,
        "\"mallory\", which is not in the tournament",
        |lines| {
            edited(lines, 8, |r| {
                for key in ["white", "black"] {
                    if r[key] == r["players"]["first"] {
                        r[key] = json!("mallory");
                    }
                }
                r["players"]["first"] = json!("mallory");
            })
        },
    ),
    (
        "a game that is not in the schedule",
        9,
        "not in the tournament's schedule",
        |lines| edited(lines, 9, |r| r["id"] = json!("999-00-a")),
    ),
    ("a bad line in the middle", 10, "not a game record", |lines| {
        let mut lines = lines.to_vec();
        lines[9] = "{\"id\": \"garbage".to_owned();
        lines
    }),
    ("a game recorded twice", 14, "already recorded on line 2", |lines| {
        let mut lines = lines.to_vec();
        lines.push(lines[1].clone());
        lines
    }),
    ("a header edited", 1, "the header was edited", |lines| {
        let mut lines = lines.to_vec();
        lines[0] = lines[0].replace("\"seed\":5", "\"seed\":6");
        lines
    }),
];

#[test]
fn every_tampered_journal_is_refused_with_its_line_and_its_fault() {
    let played = Played::new();
    let lines = played.lines();
    assert_eq!(lines.len(), 13, "a header and 12 records");
    for (what, line, words, tamper) in TAMPERS {
        played.write(&tamper(&lines));
        let output = arena(&["standings"], &played.journal());
        let error = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{what}: {}", text(&output.stdout));
        assert!(
            error.contains(&format!("line {line} of the journal")) && error.contains(words),
            "{what}: {error}"
        );
        let output = arena(&["verify"], &played.journal());
        let report = text(&output.stdout);
        assert_eq!(output.status.code(), Some(2), "{what}: {report}");
        let listed: Vec<&str> = report.lines().filter(|l| l.starts_with("line ")).collect();
        assert!(listed[0].starts_with(&format!("line {line}: ")), "{what}: {report}");
        // An edited header puts every record at odds with it; any other tampering faults its line alone.
        assert!(*line == 1 || listed.len() == 1, "{what}: {report}");
    }
    // Resume reads the journal too: it refuses, and leaves the journal as it was.
    let tampered = TAMPERS[0].3(&lines);
    played.write(&tampered);
    let output = played.run();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("line 3 of the journal"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(played.lines(), tampered, "the journal is unchanged");
}

#[test]
fn verify_lists_every_fault_at_once_and_blank_lines_are_harmless() {
    let played = Played::new();
    let lines = played.lines();
    let output = arena(&["verify"], &played.journal());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    assert!(text(&output.stdout).contains("all 12 records are sound"));

    let mut spaced = lines.clone();
    spaced.insert(5, String::new());
    spaced.insert(9, "   ".to_owned());
    spaced.push(String::new());
    played.write(&spaced);
    let output = arena(&["standings", "--format", "json"], &played.journal());
    assert!(output.status.success(), "{}", text(&output.stderr));
    let standings: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(standings["games"], 12);

    let mut all = lines.clone();
    for (_, _, _, tamper) in &TAMPERS[..8] {
        let changed = tamper(&lines);
        for (index, line) in changed.iter().enumerate() {
            if *line != lines[index] {
                all[index] = line.clone();
            }
        }
    }
    played.write(&all);
    let output = arena(&["verify"], &played.journal());
    let report = text(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{report}");
    let listed: Vec<&str> = report.lines().filter(|line| line.starts_with("line ")).collect();
    assert_eq!(listed.len(), 8, "{report}");
    for ((what, line, words, _), listed) in TAMPERS.iter().zip(&listed) {
        assert!(
            listed.starts_with(&format!("line {line}: ")) && listed.contains(words),
            "{what}: {listed}"
        );
    }
    assert!(report.contains("8 faulty line(s), 4 sound record(s)"), "{report}");
}

/// A tampered journal may hold anything: the errors that quote it reach the terminal escaped (the faults
/// quote with escapes, and `arena`'s error printer escapes every line again).
#[test]
fn an_error_that_quotes_a_journal_is_escaped_for_the_terminal() {
    let played = Played::new();
    let lines = played.lines();
    let hostile = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}";
    for tamper in [
        edited(&lines, 2, |r| r["id"] = json!(hostile)),
        edited(&lines, 2, |r| r["players"]["first"] = json!(hostile)),
    ] {
        played.write(&tamper);
        for command in ["standings", "verify"] {
            let output = arena(&[command], &played.journal());
            let shown = text(&output.stdout) + &text(&output.stderr);
            assert!(!output.status.success(), "{shown}");
            assert!(
                !shown.contains(['\u{1b}', '\u{7}', '\u{202e}']),
                "{command} printed a raw control character: {shown:?}"
            );
        }
    }
}
