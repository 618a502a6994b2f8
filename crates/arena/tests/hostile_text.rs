//! What a bot wrote reaches the terminal escaped: the fixture bot's `hostile-*`
//! modes put terminal attacks (screen clearing, a window title, an OSC 8 link,
//! `\r`, a bidi override, a C1 control) in their `hello`, their stderr and
//! their offending lines, and no output of `arena game`, `arena check`,
//! `arena run`, `arena match` or `arena show` may hold one of those characters
//! raw; nor may `arena show` of a record whose names and `info` hold them.

use std::process::{Command, Output};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// The command of the fixture bot (pahtum-testkit's) in `mode`.
fn fixture_bot(mode: &str) -> String {
    format!("{} {mode}", pahtum_testkit::fixture_bot().display())
}

fn arena(args: &[&str]) -> Output {
    Command::new(ARENA).args(args).output().unwrap()
}

/// Whether `c` would act on a terminal rather than show: a control other than
/// the newline, or a bidi formatting character.
fn acts_on_a_terminal(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Asserts that neither stream of `output` holds a raw attack, and that
/// stdout and stderr together show `shown` (the bot's text, escaped) `times` times at least.
fn assert_escaped(what: &str, output: &Output, times: usize) {
    let text = String::from_utf8(output.stdout.clone()).unwrap() + &String::from_utf8(output.stderr.clone()).unwrap();
    assert!(
        !text.chars().any(acts_on_a_terminal),
        "{what}: raw control text in {text:?}"
    );
    let shown = "\\x1b[2J\\x1b]0;pwned\\x07";
    assert!(
        text.matches(shown).count() >= times,
        "{what}: the bot's text is not shown escaped: {text}"
    );
    assert!(text.contains("\\rgone\\u{202e}desrever\\u{9b}31m"), "{what}: {text}");
}

#[test]
fn a_game_shows_the_offending_line_and_the_stderr_escaped() {
    let bot = fixture_bot("hostile-text");
    let output = arena(&["game", "--white", &bot, "--black", "first-free", "--seed", "1"]);
    assert!(output.status.success(), "{output:?}");
    // The offending line and the stderr tail.
    assert_escaped("arena game", &output, 2);
}

/// The fixture bot's attack (`HOSTILE` in pahtum-testkit's fixture-bot).
const HOSTILE: &str =
    "\x1b[2J\x1b]0;pwned\x07\x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\\rgone\u{202e}desrever\u{9b}31m";

#[test]
fn show_escapes_a_forfeit_s_line_and_stderr_and_a_record_s_names_and_info() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let (forfeited, played) = (path("forfeited.json"), path("played.json"));
    let bot = fixture_bot("hostile-text");
    for game in [
        ["--white", &bot, "--black", "first-free", "--out", &forfeited],
        ["--white", "first-free", "--black", "heuristic", "--out", &played],
    ] {
        let output = arena(&[&["game", "--no-pie"], game.as_slice()].concat());
        assert!(output.status.success(), "{output:?}");
    }
    // A record whose White and first move's info are the attack.
    let mut record: serde_json::Value = serde_json::from_slice(&std::fs::read(&played).unwrap()).unwrap();
    record["players"]["first"] = HOSTILE.into();
    record["white"] = HOSTILE.into();
    record["moves"][0]["info"] = serde_json::json!({ "comment": HOSTILE, "pv": [HOSTILE] });
    std::fs::write(&played, record.to_string()).unwrap();
    // The forfeit's offending line and stderr tail; the name in the header, the list or the boards, and
    // the outcome (the info is cut in the list).
    for (record, what, times) in [(&forfeited, "a forfeit", 2), (&played, "hostile names and info", 3)] {
        for view in [&[][..], &["--boards"]] {
            let output = arena(&[&["show", record.as_str()], view].concat());
            assert!(output.status.success(), "{output:?}");
            assert_escaped(&format!("arena show {view:?} of {what}"), &output, times);
        }
    }
    let output = arena(&["show", &played, "--lost-by", "nobody"]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_escaped("arena show's list of the bots", &output, 1);
}

#[test]
fn check_shows_the_hello_the_offending_line_and_the_stderr_escaped() {
    let output = arena(&["check", &fixture_bot("hostile-text")]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    // The name and version of the greeting, then a line and a stderr tail.
    assert_escaped("arena check", &output, 4);
    let output = arena(&["check", &fixture_bot("hostile-hello")]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert_escaped("arena check of a bad greeting", &output, 2);
}

#[test]
fn start_up_errors_of_run_and_match_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.toml");
    let tournament = format!(
        "name = \"t\"\n[[bots]]\nname = \"hostile\"\ncommand = \"{}\"\n[[bots]]\nname = \"first\"\nbuiltin = \"first-free\"\n",
        fixture_bot("hostile-hello")
    );
    std::fs::write(&file, tournament).unwrap();
    let out = dir.path().join("out");
    let output = Command::new(ARENA)
        .arg("run")
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_escaped("arena run", &output, 2);

    let output = Command::new(ARENA)
        .args([
            "match",
            &fixture_bot("hostile-hello"),
            "first-free",
            "--games",
            "2",
            "--out",
        ])
        .arg(dir.path().join("match"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_escaped("arena match", &output, 2);
}
