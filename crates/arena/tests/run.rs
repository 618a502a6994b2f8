//! End-to-end tests of `arena run` and `arena standings` with real bot processes.
//!
//! The bots are deterministic (the built-in `first-free` and `heuristic`, and
//! `tests/fixtures/bot.py`), so two runs of one file must give the same
//! standings, however they were interrupted. Every bot of a test carries an
//! environment variable unique to the test, so that the test can look for
//! leftover processes in `/proc` without confusing them with another test's.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pahtum_testkit::wait_until;
use rustix::process::{Pid, Signal, kill_process};
use serde_json::Value;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
const DEADLINE: Duration = Duration::from_secs(60);

/// A tournament file in a temporary folder, with its output folder beside it.
struct Fixture {
    dir: tempfile::TempDir,
    file: PathBuf,
    marker: String,
}

impl Fixture {
    /// `name = "t"`, then `head`, then the bots: `(name, "builtin NAME" | "py MODE [DELAY_MS]" | "random")`,
    /// `random` the bundled bots/python-random.
    fn new(head: &str, bots: &[(&str, &str)]) -> Fixture {
        Fixture::with_times(head, bots, &[])
    }

    /// As [`Fixture::new`], with `[bots.time]` tables (see [`Fixture::write_with_times`]).
    fn with_times(head: &str, bots: &[(&str, &str)], times: &[(&str, &str)]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().display().to_string();
        let file = dir.path().join("t.toml");
        let fixture = Fixture { dir, file, marker };
        fixture.write_with_times(head, bots, times);
        fixture
    }

    fn write(&self, head: &str, bots: &[(&str, &str)]) {
        self.write_with_times(head, bots, &[]);
    }

    /// As [`Fixture::write`], with `[bots.time]` tables: `(bot name, the table's keys)`.
    fn write_with_times(&self, head: &str, bots: &[(&str, &str)], times: &[(&str, &str)]) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bot.py");
        let mut text = format!("name = \"t\"\n{head}\n");
        for (name, how) in bots {
            let random = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/python-random/bot.py");
            let launch = match how.strip_prefix("builtin ") {
                Some(builtin) => format!("builtin = \"{builtin}\""),
                None if *how == "random" => format!("command = \"python3 {}\"", random.display()),
                None => format!(
                    "command = \"python3 {} {}\"",
                    script.display(),
                    how.trim_start_matches("py ")
                ),
            };
            text.push_str(&format!(
                "[[bots]]\nname = \"{name}\"\n{launch}\nenv = {{ ARENA_TEST_MARKER = \"{}\" }}\n",
                self.marker
            ));
            if let Some((_, keys)) = times.iter().find(|(bot, _)| bot == name) {
                text.push_str(&format!("[bots.time]\n{keys}\n"));
            }
        }
        std::fs::write(&self.file, text).unwrap();
    }

    fn out(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn command(&self, out: &str, extra: &[&str]) -> Command {
        let mut command = Command::new(ARENA);
        command
            .arg("run")
            .arg(&self.file)
            .arg("--out")
            .arg(self.out(out))
            .args(extra);
        command
    }

    fn run(&self, out: &str, extra: &[&str]) -> Output {
        self.command(out, extra).output().unwrap()
    }

    fn standings(&self, out: &str) -> Value {
        let text = std::fs::read_to_string(self.out(out).join("standings.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    fn records(&self, out: &str) -> Vec<Value> {
        journal_records(&self.out(out).join("journal.jsonl"))
    }

    /// The journal's first line.
    fn header(&self, out: &str) -> Value {
        let text = std::fs::read_to_string(self.out(out).join("journal.jsonl")).unwrap();
        serde_json::from_str(text.lines().next().unwrap()).unwrap()
    }

    /// Processes that carry this fixture's marker in their environment.
    fn leftovers(&self) -> Vec<u32> {
        let needle = format!("ARENA_TEST_MARKER={}", self.marker);
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|environ| environ.split(|&b| b == 0).any(|var| var == needle.as_bytes()))
            })
            .collect()
    }
}

/// The complete records of a journal (a torn last line is skipped, as arena does).
fn journal_records(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.split_inclusive('\n')
        .skip(1)
        .filter(|line| line.ends_with('\n'))
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_success(output: &Output) {
    assert!(
        output.status.success(),
        "arena failed: {}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    );
}

fn signal(child: &Child, signal: Signal) {
    kill_process(Pid::from_child(child), signal).unwrap();
}

/// Waits for the child to exit, with the deadline.
fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    let mut status = None;
    wait_until("arena exits", DEADLINE, || {
        status = child.try_wait().unwrap();
        status.is_some()
    });
    status.unwrap()
}

/// Lines of the child's stderr as they come.
fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let stderr = child.stderr.take().unwrap();
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    receiver
}

fn bot<'a>(standings: &'a Value, name: &str) -> &'a Value {
    standings["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["bot"] == name)
        .unwrap()
}

#[test]
fn a_small_round_robin_plays_every_game_and_writes_the_standings() {
    let fixture = Fixture::new(
        "seed = 5\ngames_per_pair = 4\n[time]\nmove_ms = 2000",
        &[
            ("ff", "builtin first-free"),
            ("heuristic", "builtin heuristic"),
            ("py", "py first-free"),
        ],
    );
    let output = fixture.run("out", &[]);
    assert_success(&output);
    let stdout = text(&output.stdout);
    assert!(stdout.contains("Standings after 12 games"), "{stdout}");
    assert!(
        stdout.contains("Crosstable") && stdout.contains("First move: White scored"),
        "{stdout}"
    );
    let records = fixture.records("out");
    assert_eq!(records.len(), 12);
    let standings = fixture.standings("out");
    assert_eq!(standings["games"], 12);
    for name in ["ff", "heuristic", "py"] {
        assert_eq!(bot(&standings, name)["games"], 8, "{name}");
    }
    for file in ["standings.md", "standings.csv", "logs"] {
        assert!(fixture.out("out").join(file).exists(), "{file}");
    }
    assert!(fixture.leftovers().is_empty(), "bot processes left behind");

    // `arena standings` derives the same from the journal, in every format.
    let journal = fixture.out("out").join("journal.jsonl");
    let json = Command::new(ARENA)
        .arg("standings")
        .arg(&journal)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_success(&json);
    assert_eq!(serde_json::from_slice::<Value>(&json.stdout).unwrap(), standings);
    for (format, expected) in [
        ("table", "Standings after 12 games"),
        ("markdown", "## Crosstable"),
        ("csv", "rank,bot,games"),
    ] {
        let output = Command::new(ARENA)
            .arg("standings")
            .arg(&journal)
            .args(["--format", format])
            .output()
            .unwrap();
        assert_success(&output);
        assert!(text(&output.stdout).contains(expected), "{format}");
    }
}

#[test]
fn a_gauntlet_pairs_the_challenger_with_every_other_bot() {
    let fixture = Fixture::new(
        "format = \"gauntlet\"\nchallenger = \"heuristic\"",
        &[
            ("a", "builtin first-free"),
            ("heuristic", "builtin heuristic"),
            ("b", "builtin first-free"),
            ("c", "py first-free"),
        ],
    );
    assert_success(&fixture.run("out", &[]));
    let standings = fixture.standings("out");
    assert_eq!(standings["games"], 6);
    assert_eq!(bot(&standings, "heuristic")["games"], 6);
    for name in ["a", "b", "c"] {
        assert_eq!(bot(&standings, name)["games"], 2, "{name}");
    }
    for record in fixture.records("out") {
        let players = [&record["players"]["first"], &record["players"]["second"]];
        assert!(players.contains(&&Value::from("heuristic")), "{record}");
    }
}

#[test]
fn a_misbehaving_bot_forfeits_and_the_others_are_unaffected() {
    let fixture = Fixture::new(
        "games_per_pair = 4",
        &[
            ("bad", "py illegal"),
            ("a", "builtin first-free"),
            ("b", "builtin heuristic"),
        ],
    );
    let output = fixture.run("out", &["--concurrency", "2"]);
    assert_success(&output);
    let stderr = text(&output.stderr);
    assert!(stderr.contains("bad forfeited (illegal_move)"), "{stderr}");
    let standings = fixture.standings("out");
    let bad = bot(&standings, "bad");
    assert_eq!(bad["losses"], 8);
    assert_eq!(bad["forfeits"]["illegal_move"], 8);
    for record in fixture.records("out") {
        let players = [&record["players"]["first"], &record["players"]["second"]];
        if !players.contains(&&Value::from("bad")) {
            assert_eq!(record["termination"]["reason"], "normal", "{record}");
        }
    }
    for name in ["a", "b"] {
        assert_eq!(bot(&standings, name)["forfeits"]["illegal_move"], 0);
    }
    assert!(fixture.leftovers().is_empty(), "bot processes left behind");
}

/// What `tests/fixtures/bot.py` says it was told about time, in a move's (or the pie decision's) info.
fn told_about_time(answer: &Value) -> Value {
    serde_json::from_str(answer["info"]["comment"].as_str().unwrap()).unwrap()
}

/// `sleepy` and `hurried` are the same Python bot, answering in 100 ms: in time
/// under the tournament's 1 s, late under hurried's own 20 ms (plus the 20 ms
/// margin) in every game, and only there. `fischer` answers at once, on a
/// Fischer clock of its own. Every bot is told its own control and both clocks.
#[test]
fn each_bot_plays_by_its_own_time_control() {
    let bots = [
        ("sleepy", "py first-free 100"),
        ("fischer", "py first-free"),
        ("hurried", "py first-free 100"),
    ];
    let times = [
        ("fischer", "base_ms = 60000\nincrement_ms = 100"),
        ("hurried", "move_ms = 20"),
    ];
    // 47 blocks: White's stone, Black's pie decision (bot.py keeps) and Black's stone.
    let head = "[rules]\nblocks = [47]\n[time]\nmove_ms = 1000";
    let fixture = Fixture::with_times(head, &bots, &times);
    assert_success(&fixture.run("out", &[]));
    let control = |move_ms: Value, base_ms: Value, increment_ms: u64| serde_json::json!({"move_ms": move_ms, "base_ms": base_ms, "increment_ms": increment_ms, "margin_ms": 20});
    let time_of = |bot: &str| match bot {
        "sleepy" => control(1000.into(), Value::Null, 0),
        "fischer" => control(Value::Null, 60000.into(), 100),
        _ => control(20.into(), Value::Null, 0),
    };
    let records = fixture.records("out");
    assert_eq!(records.len(), 6);
    let mut answers_checked = 0;
    for record in &records {
        assert_eq!(record["time"], time_of("sleepy"), "the tournament's [time]");
        let players = &record["players"];
        for seat in ["first", "second"] {
            let bot = players[seat].as_str().unwrap();
            assert_eq!(record["time_by_seat"][seat], time_of(bot), "{bot} in {record}");
        }
        if players["first"] == "hurried" || players["second"] == "hurried" {
            assert_eq!(record["termination"]["reason"], "timeout", "{record}");
            assert_eq!(record["termination"]["forfeit"]["bot"], "hurried", "{record}");
        } else {
            assert_eq!(record["termination"]["reason"], "normal", "{record}");
        }
        // bot.py never swaps, so the colours are the starting ones.
        let answers = record["moves"]
            .as_array()
            .unwrap()
            .iter()
            .chain(record.get("swap_move"));
        for answer in answers {
            let color = answer.get("color").map_or("black", |color| color.as_str().unwrap());
            let (bot, opponent) = match color {
                "white" => (&record["white"], &record["black"]),
                _ => (&record["black"], &record["white"]),
            };
            let (bot, opponent) = (bot.as_str().unwrap(), opponent.as_str().unwrap());
            let told = told_about_time(answer);
            assert_eq!(told["time"], time_of(bot), "{bot}: {told}");
            let clock = &told["clock"];
            assert_eq!(clock["move_ms"], time_of(bot)["move_ms"], "{bot}: {told}");
            assert_eq!(clock["increment_ms"], time_of(bot)["increment_ms"], "{bot}: {told}");
            assert_eq!(clock["remaining_ms"].is_u64(), bot == "fischer", "{bot}: {told}");
            assert_eq!(clock["opponent_ms"].is_u64(), opponent == "fischer", "{bot}: {told}");
            answers_checked += 1;
        }
    }
    // sleepy against fischer: 3 answers per game; each plays hurried once first (1 answer).
    assert_eq!(answers_checked, 2 * 3 + 2);
    assert!(fixture.leftovers().is_empty(), "bot processes left behind");

    // A bot's own time decides the games: changing it refuses to resume.
    let slower = [times[0], ("hurried", "move_ms = 30")];
    fixture.write_with_times(head, &bots, &slower);
    let output = fixture.run("out", &[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("bots[2].time.move_ms: 20 -> 30"), "{stderr}");
}

/// `pause_idle = true` reaches every game: the journal's header keeps it
/// (changing it refuses to resume) and every record says it.
#[test]
fn fair_mode_is_kept_in_the_journal_and_in_every_record() {
    let bots = [("a", "builtin first-free"), ("b", "py first-free")];
    let fixture = Fixture::new("pause_idle = true\n[rules]\nblocks = [41]", &bots);
    assert_success(&fixture.run("out", &[]));
    assert_eq!(fixture.header("out")["tournament"]["pause_idle"], true);
    let records = fixture.records("out");
    assert_eq!(records.len(), 2);
    for record in &records {
        assert_eq!(record["pause_idle"], true, "{record}");
        assert_eq!(record["termination"]["reason"], "normal", "{record}");
    }

    fixture.write("[rules]\nblocks = [41]", &bots);
    let output = fixture.run("out", &[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("pause_idle: true -> null"), "{stderr}");
}

#[test]
fn a_missing_bot_command_is_an_error_before_the_first_game() {
    let fixture = Fixture::new("", &[("a", "builtin first-free"), ("b", "builtin first-free")]);
    let text_of = std::fs::read_to_string(&fixture.file).unwrap();
    std::fs::write(
        &fixture.file,
        text_of.replacen("builtin = \"first-free\"", "command = \"no-such-bot --fast\"", 1),
    )
    .unwrap();
    let output = fixture.run("out", &[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("t.toml: key `bots[0].command`: bot a: the program \"no-such-bot\" is not found on PATH"),
        "{stderr}"
    );
    assert!(!fixture.out("out").exists(), "nothing is written before the check");

    // A program that exists but whose bot cannot start is found by starting every bot once.
    std::fs::write(
        &fixture.file,
        text_of.replacen("builtin = \"first-free\"", "command = \"python3 missing.py\"", 1),
    )
    .unwrap();
    let output = fixture.run("out", &[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("some bots cannot start, so no game was played"),
        "{stderr}"
    );
    assert!(
        stderr.contains("key `bots[0]`: bot \"a\" failed its greeting"),
        "{stderr}"
    );
    assert!(stderr.contains("missing.py"), "the bot's stderr is shown: {stderr}");
    assert!(fixture.records("out").is_empty());
}

#[test]
fn a_dry_run_prints_the_schedule_and_plays_nothing() {
    let fixture = Fixture::new("", &[("a", "builtin first-free"), ("b", "builtin first-free")]);
    let output = fixture.run("out", &["--dry-run"]);
    assert_success(&output);
    let stdout = text(&output.stdout);
    assert!(stdout.contains("000-00-a") && stdout.contains("000-00-b"), "{stdout}");
    assert!(stdout.contains("2 games"), "{stdout}");
    assert!(stdout.contains("No journal yet in "), "{stdout}");
    assert!(!fixture.out("out").exists());
}

#[test]
fn a_dry_run_says_whether_the_journal_can_be_resumed_with_the_file() {
    let bots = [("a", "builtin first-free"), ("b", "builtin first-free")];
    let fixture = Fixture::new("seed = 1", &bots);
    assert_success(&fixture.run("out", &[]));
    let output = fixture.run("out", &["--dry-run"]);
    assert_success(&output);
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("can be resumed with this file: 2 games done, 0 to play"),
        "{stdout}"
    );
    fixture.write("seed = 2", &bots);
    let output = fixture.run("out", &["--dry-run"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("cannot be resumed with this file") && stderr.contains("seed: 1 -> 2"),
        "{stderr}"
    );
}

#[test]
fn a_changed_file_refuses_to_resume_unless_started_afresh() {
    let bots = [("a", "builtin first-free"), ("b", "builtin heuristic")];
    let fixture = Fixture::new("seed = 1", &bots);
    assert_success(&fixture.run("out", &[]));
    fixture.write("seed = 2", &bots);
    let output = fixture.run("out", &[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("the tournament changed") && stderr.contains("seed: 1 -> 2"),
        "{stderr}"
    );
    assert!(stderr.contains("--fresh"), "{stderr}");
    // Nor are a bot's games dropped from it to be played again: the journal stays as it is.
    let journal = fixture.out("out").join("journal.jsonl");
    let before = std::fs::read(&journal).unwrap();
    let refused = fixture.run("out", &["--replay", "a"]);
    let stderr = text(&refused.stderr);
    assert!(!refused.status.success() && stderr.contains("seed: 1 -> 2"), "{stderr}");
    assert_eq!(std::fs::read(&journal).unwrap(), before);

    assert_success(&fixture.run("out", &["--fresh"]));
    let kept = std::fs::read_dir(fixture.out("out"))
        .unwrap()
        .filter(|entry| {
            entry
                .as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("journal-replaced-")
        })
        .count();
    assert_eq!(kept, 1, "the old journal is kept");
}

#[test]
fn a_torn_last_line_is_dropped_and_its_game_played_again() {
    let bots = [
        ("a", "builtin first-free"),
        ("b", "builtin heuristic"),
        ("c", "py first-free"),
    ];
    let fixture = Fixture::new("games_per_pair = 2", &bots);
    assert_success(&fixture.run("whole", &[]));
    assert_success(&fixture.run("torn", &[]));
    // Cut the last record in half, as a crash in the middle of its write would.
    let journal = fixture.out("torn").join("journal.jsonl");
    let text_of = std::fs::read_to_string(&journal).unwrap();
    let last_start = text_of.trim_end().rfind('\n').unwrap() + 1;
    let cut = last_start + (text_of.len() - last_start) / 2;
    std::fs::write(&journal, &text_of[..cut]).unwrap();

    let output = fixture.run("torn", &[]);
    assert_success(&output);
    assert!(
        text(&output.stderr).contains("dropped the torn last line"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(fixture.records("torn").len(), 6);
    assert_eq!(fixture.standings("torn"), fixture.standings("whole"));
}

/// In every durability mode: each finished game is written at once, so a SIGKILL loses none of them.
#[test]
fn resuming_after_sigkill_gives_the_standings_of_an_uninterrupted_run() {
    let bots = [
        ("a", "builtin first-free"),
        ("h", "builtin heuristic"),
        ("slow", "py first-free 5"),
    ];
    let fixture = Fixture::new("games_per_pair = 4", &bots);
    assert_success(&fixture.run("whole", &[]));

    for durability in ["game", "batch", "none"] {
        let out = format!("killed-{durability}");
        let journal = fixture.out(&out).join("journal.jsonl");
        let mut child = fixture
            .command(&out, &["--concurrency", "1", "--durability", durability])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_until("the journal has 3 games", DEADLINE, || {
            journal_records(&journal).len() >= 3
        });
        assert!(!fixture.leftovers().is_empty(), "the bots are found while they run");
        signal(&child, Signal::KILL);
        child.wait().unwrap();
        let done = journal_records(&journal).len();
        assert!(done < 12, "killed before the end ({done} games, {durability})");
        wait_until("the bots die with the referee", DEADLINE, || {
            fixture.leftovers().is_empty()
        });

        let output = fixture.run(&out, &["--durability", durability]);
        assert_success(&output);
        assert!(
            text(&output.stderr).contains(&format!("resuming with {done} done")),
            "{durability}: {}",
            text(&output.stderr)
        );
        assert_eq!(fixture.records(&out).len(), 12, "{durability}");
        assert_eq!(fixture.standings(&out), fixture.standings("whole"), "{durability}");
    }
}

#[test]
fn ctrl_c_stops_cleanly_and_says_how_to_resume() {
    let bots = [
        ("a", "py first-free 5"),
        ("b", "py first-free 5"),
        ("c", "builtin first-free"),
    ];
    let fixture = Fixture::new("games_per_pair = 6", &bots);
    let journal = fixture.out("out").join("journal.jsonl");
    let mut child = fixture
        .command("out", &["--concurrency", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = stderr_lines(&mut child);
    wait_until("the journal has a game", DEADLINE, || {
        !journal_records(&journal).is_empty()
    });
    assert!(!fixture.leftovers().is_empty(), "the bots are found while they run");
    signal(&child, Signal::INT);
    let status = wait_exit(&mut child);
    assert_eq!(status.code(), Some(130));
    let stderr: Vec<String> = stderr.iter().collect();
    let resume = stderr
        .iter()
        .find_map(|line| line.split("to resume, run: ").nth(1))
        .expect("a resume command");
    assert!(
        resume.starts_with("arena run ") && resume.contains("t.toml --out"),
        "{resume}"
    );
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
    assert!(
        stdout.contains("Standings after"),
        "the standings so far are printed: {stdout}"
    );
    let done = fixture.records("out").len();
    assert!(done < 18, "stopped before the end");
    assert_eq!(fixture.standings("out")["games"], done);
    wait_until("no bot is left", DEADLINE, || fixture.leftovers().is_empty());
}

#[test]
fn a_second_ctrl_c_quits_at_once_and_kills_the_bots() {
    // Bots that ignore `quit` and take the full grace: the first Ctrl-C's polite shutdown is slow.
    let bots = [("a", "py stubborn 5"), ("b", "py stubborn 5"), ("c", "py stubborn 5")];
    let fixture = Fixture::new("games_per_pair = 6\n[limits]\nquit_grace_ms = 20000", &bots);
    let journal = fixture.out("out").join("journal.jsonl");
    let mut child = fixture
        .command("out", &["--concurrency", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = stderr_lines(&mut child);
    wait_until("the journal has a game", DEADLINE, || {
        !journal_records(&journal).is_empty()
    });
    signal(&child, Signal::INT);
    wait_until("arena says it is stopping", DEADLINE, || {
        stderr.try_iter().any(|line| line.contains("arena: stopping"))
    });
    let second = Instant::now();
    signal(&child, Signal::INT);
    let status = wait_exit(&mut child);
    assert!(
        second.elapsed() < Duration::from_secs(5),
        "the second Ctrl-C quits at once"
    );
    assert_eq!(status.code(), Some(130));
    wait_until("no bot is left", DEADLINE, || fixture.leftovers().is_empty());
}

/// Whether the sandbox can run here; prints why not, and fails in CI.
fn sandbox_available() -> bool {
    let output = Command::new(ARENA)
        .args(["check", "--sandbox", "first-free", "--move-time", "1s"])
        .output()
        .unwrap();
    // `arena check` prints its checks, and why one failed, on stdout.
    let why = format!("{}{}", text(&output.stdout), text(&output.stderr));
    pahtum_testkit::require("the sandbox", output.status.success(), &why)
}

/// Names the fixture bot's folder in every bot's `ro_paths`: the sandbox
/// shows a folder that a command names only where `nobody` could reach it by
/// itself, and the workspace may lie in a private folder (CI's `mktemp -d`).
fn show_the_fixtures_folder(fixture: &Fixture) {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let text = std::fs::read_to_string(&fixture.file).unwrap().replace(
        "\nenv = {",
        &format!("\nro_paths = [{:?}]\nenv = {{", folder.display().to_string()),
    );
    std::fs::write(&fixture.file, text).unwrap();
}

#[test]
fn a_sandboxed_tournament_plays_in_fair_mode_and_leaves_nothing() {
    if !sandbox_available() {
        return;
    }
    let bots = [("a", "builtin heuristic"), ("b", "py first-free")];
    let fixture = Fixture::new(
        "sandbox = true\nmemory_mb = 512\npause_idle = true\n[rules]\nblocks = [41]",
        &bots,
    );
    show_the_fixtures_folder(&fixture);
    assert_success(&fixture.run("out", &[]));
    let records = fixture.records("out");
    assert_eq!(records.len(), 2);
    for record in &records {
        assert_eq!(record["termination"]["reason"], "normal", "{record}");
    }
    assert_eq!(
        fixture.header("out")["tournament"]["bots"][0]["sandbox"]["memory_mb"],
        512
    );
    assert!(fixture.leftovers().is_empty(), "bot processes left behind");
}

/// The tournament file's `file_size_mb` and `tmp_mb` reach the sandbox: a
/// bot that writes 2 MiB to its `/tmp` fails to with a file size limit of
/// 1 MiB ("File too large") or a `/tmp` of 1 MiB ("No space left on device"),
/// and forfeits; with the defaults the same bot plays on.
#[test]
fn the_files_sandbox_limits_of_file_size_and_tmp_are_felt() {
    if !sandbox_available() {
        return;
    }
    let bots = [
        ("big", "py write-tmp"),
        ("full", "py write-tmp"),
        ("roomy", "py write-tmp"),
    ];
    let fixture = Fixture::new("sandbox = true\n[rules]\nblocks = [41]", &bots);
    let text = std::fs::read_to_string(&fixture.file)
        .unwrap()
        .replace("name = \"big\"\n", "name = \"big\"\nfile_size_mb = 1\n")
        .replace("name = \"full\"\n", "name = \"full\"\ntmp_mb = 1\n");
    std::fs::write(&fixture.file, text).unwrap();
    show_the_fixtures_folder(&fixture);
    assert_success(&fixture.run("out", &[]));
    let sandboxes = &fixture.header("out")["tournament"]["bots"];
    assert_eq!(sandboxes[0]["sandbox"]["file_size_mb"], 1);
    assert_eq!(sandboxes[1]["sandbox"]["tmp_mb"], 1);

    let records = fixture.records("out");
    assert_eq!(records.len(), 6);
    let mut why = std::collections::BTreeMap::<String, Vec<String>>::new();
    for record in &records {
        let termination = &record["termination"];
        for forfeit in [&termination["forfeit"], &termination["also"]] {
            if let Some(bot) = forfeit["bot"].as_str() {
                let tail = forfeit["stderr_tail"].as_array().cloned().unwrap_or_default();
                why.entry(bot.to_owned()).or_default().push(format!("{tail:?}"));
            }
        }
    }
    assert_eq!(why.keys().collect::<Vec<_>>(), ["big", "full"], "{why:?}");
    // At least their games against `roomy`; against each other, both may forfeit.
    assert!(why["big"].len() >= 2 && why["full"].len() >= 2, "{why:?}");
    assert!(
        why["big"].iter().all(|tail| tail.contains("write-tmp: File too large")),
        "{why:?}"
    );
    assert!(
        why["full"]
            .iter()
            .all(|tail| tail.contains("write-tmp: No space left on device")),
        "{why:?}"
    );
    assert!(fixture.leftovers().is_empty(), "bot processes left behind");
}

#[test]
fn a_sandbox_that_cannot_run_is_refused_before_any_game() {
    let fixture = Fixture::new(
        "[rules]\nblocks = [41]",
        &[("a", "builtin heuristic"), ("b", "builtin first-free")],
    );
    let output = fixture
        .command("out", &["--sandbox"])
        .env("PATH", fixture.out("no-bin"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("no bot was started") && stderr.contains("apt-get install bubblewrap"),
        "{stderr}"
    );
    assert!(!fixture.out("out").join("journal.jsonl").exists());
}

/// `arena merge OUT INPUTS...` in the fixture's folder.
fn merge(fixture: &Fixture, out: &str, inputs: &[&str]) -> Output {
    Command::new(ARENA)
        .arg("merge")
        .arg(fixture.out(out))
        .args(inputs.iter().map(|input| fixture.out(input)))
        .output()
        .unwrap()
}

const INSTANT_BOTS: [(&str, &str); 3] = [
    ("ff", "builtin first-free"),
    ("h", "builtin heuristic"),
    ("ff2", "builtin first-free"),
];

#[test]
fn shards_run_at_once_then_merged_give_the_standings_of_an_unsharded_run() {
    // Five runs at once on a busy machine: a minute a move, so that no game can end on time and differ.
    let fixture = Fixture::new("seed = 3\ngames_per_pair = 6\n[time]\nmove_ms = 60000", &INSTANT_BOTS);
    assert_success(&fixture.run("whole", &[]));
    let shards: Vec<Child> = (1..=4)
        .map(|k| {
            fixture
                .command("sharded", &["--shard", &format!("{k}/4"), "--concurrency", "1"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut shard in shards {
        assert!(wait_exit(&mut shard).success());
    }
    // 18 games in 9 layout pairs, dealt 3, 2, 2, 2.
    let per_shard: Vec<usize> = (1..=4)
        .map(|k| journal_records(&fixture.out(&format!("sharded/shard-{k}-of-4/journal.jsonl"))).len())
        .collect();
    assert_eq!(per_shard, [6, 4, 4, 4]);

    let output = merge(&fixture, "merged", &["sharded"]);
    assert_success(&output);
    let read = |path: PathBuf| std::fs::read(path).unwrap();
    for table in ["standings.json", "standings.csv", "standings.md", "pairs.csv"] {
        assert_eq!(
            text(&read(fixture.out("merged").join(table))),
            text(&read(fixture.out("whole").join(table))),
            "{table}"
        );
    }
    assert!(fixture.out("merged").join("report.html").exists());
    let standings = |inputs: &[PathBuf]| Command::new(ARENA).arg("standings").args(inputs).output().unwrap();
    let of_shards = standings(&[fixture.out("sharded")]);
    assert_success(&of_shards);
    assert_eq!(
        text(&of_shards.stdout),
        text(&standings(&[fixture.out("whole")]).stdout)
    );
}

#[test]
fn a_dry_run_of_a_shard_shows_only_its_games() {
    let fixture = Fixture::new("games_per_pair = 4", &INSTANT_BOTS);
    let output = fixture.run("dry", &["--dry-run", "--shard", "2/2"]);
    assert_success(&output);
    let stdout = text(&output.stdout);
    assert!(stdout.contains("000-01-a") && stdout.contains("000-01-b"), "{stdout}");
    assert!(!stdout.contains("000-00-a"), "{stdout}");
    assert!(stdout.contains("6 games"), "{stdout}");
}

#[test]
fn a_shard_killed_with_sigkill_resumes_and_loses_nothing() {
    let bots = [("a", "builtin first-free"), ("slow", "py first-free 5")];
    let fixture = Fixture::new("games_per_pair = 12", &bots);
    assert_success(&fixture.run("whole", &[]));
    assert_success(&fixture.run("sharded", &["--shard", "2/2"]));

    let journal = fixture.out("sharded/shard-1-of-2/journal.jsonl");
    let mut child = fixture
        .command("sharded", &["--shard", "1/2", "--concurrency", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_until("the shard's journal has 2 games", DEADLINE, || {
        journal_records(&journal).len() >= 2
    });
    signal(&child, Signal::KILL);
    child.wait().unwrap();
    let done = journal_records(&journal).len();
    assert!(done < 6, "killed before the end ({done} games)");
    wait_until("the bots die with the referee", DEADLINE, || {
        fixture.leftovers().is_empty()
    });

    assert_success(&fixture.run("sharded", &["--shard", "1/2"]));
    assert_eq!(journal_records(&journal).len(), 6);
    assert_success(&merge(&fixture, "merged", &["sharded"]));
    assert_eq!(fixture.records("merged").len(), 12);
    assert_eq!(fixture.standings("merged"), fixture.standings("whole"));
}

/// A shard's journal names its shard: run as another shard, it is refused; merged, a record of another shard's
/// game in it is refused, naming the game and the journal.
#[test]
fn a_shard_journal_belongs_to_its_shard() {
    let fixture = Fixture::new("games_per_pair = 4", &INSTANT_BOTS);
    assert_success(&fixture.run("sharded", &["--shard", "1/2"]));
    let first = fixture.out("sharded/shard-1-of-2/journal.jsonl");
    let second = fixture.out("sharded/shard-2-of-2");
    std::fs::create_dir_all(&second).unwrap();
    std::fs::copy(&first, second.join("journal.jsonl")).unwrap();
    let output = fixture.run("sharded", &["--shard", "2/2"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("holds shard 1/2 of the tournament, not shard 2/2"),
        "{}",
        text(&output.stderr)
    );

    std::fs::remove_dir_all(&second).unwrap();
    assert_success(&fixture.run("whole", &[]));
    let mut lines: Vec<String> = text(&std::fs::read(&first).unwrap())
        .lines()
        .map(str::to_owned)
        .collect();
    let foreign = text(&std::fs::read(fixture.out("whole/journal.jsonl")).unwrap())
        .lines()
        .find(|line| line.contains("\"id\":\"000-01-a\""))
        .expect("the whole run played game 000-01-a")
        .to_owned();
    lines.push(foreign);
    std::fs::write(&first, lines.join("\n") + "\n").unwrap();
    let output = merge(&fixture, "merged", &["sharded"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("shard-1-of-2/journal.jsonl is game \"000-01-a\", which is not a game of shard 1/2"),
        "{stderr}"
    );
}

#[test]
fn a_missing_shard_is_named_and_another_tournament_is_refused() {
    let fixture = Fixture::new("games_per_pair = 4", &INSTANT_BOTS);
    assert_success(&fixture.run("sharded", &["--shard", "1/3"]));
    assert_success(&fixture.run("sharded", &["--shard", "3/3"]));
    let output = merge(&fixture, "merged", &["sharded"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("shard-2-of-3: 4 games missing"), "{stderr}");
    assert!(
        !stderr.contains("shard-1-of-3") && !stderr.contains("shard-3-of-3"),
        "{stderr}"
    );

    fixture.write("seed = 99\ngames_per_pair = 4", &INSTANT_BOTS);
    assert_success(&fixture.run("other", &[]));
    let output = merge(&fixture, "mixed", &["sharded", "other"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("belongs to another tournament"),
        "{}",
        text(&output.stderr)
    );
}

/// A bot whose program is replaced between two runs of a finished tournament (the `versioned` fixture
/// bot: version 1 plays the first free cell, version 2 an illegal move) is warned of, escaped, with the command
/// that plays its games again; `--replay` plays only its games, and the standings follow the new program.
#[test]
fn a_replaced_bot_is_warned_of_and_replay_plays_only_its_games_again() {
    let fixture = Fixture::new(
        "seed = 5\ngames_per_pair = 2\n[time]\nmove_ms = 2000",
        &[
            ("ff", "builtin first-free"),
            ("heuristic", "builtin heuristic"),
            ("py", "py versioned"),
        ],
    );
    let version = |text: &str| std::fs::write(fixture.dir.path().join("version.txt"), text).unwrap();
    // A run that succeeds: its stdout and stderr.
    let run = |extra: &[&str]| {
        let output = fixture.run("out", extra);
        assert_success(&output);
        (text(&output.stdout), text(&output.stderr))
    };
    let warned = |stderr: &str| stderr.contains("arena: warning");
    version("1");
    let (standings, stderr) = run(&[]);
    assert!(!warned(&stderr), "{stderr}");
    let before = fixture.records("out");
    assert_eq!(before.len(), 6);
    let py_points = |standings: &Value| bot(standings, "py")["points"].as_f64().unwrap();
    assert!(py_points(&fixture.standings("out")) > 0.0);

    // The same program again: the finished tournament's standings, without a word.
    let (_, stderr) = run(&[]);
    assert!(!warned(&stderr), "{stderr}");

    // Replaced: the same standings, and the warning, with what the bot said escaped (it would clear the screen).
    version("2\u{1b}[2J");
    let (again, stderr) = run(&[]);
    assert_eq!(again, standings);
    let out = fixture.out("out");
    let expected = format!(
        "arena: warning: bot py now says hello as \"fixture-versioned 2\\x1b[2J\", but as \"fixture-versioned 1\" in its \
         last game in the journal: 4 of its 4 games there were played by a program that said otherwise, and the \
         standings mix the two; to play its games again, run: arena run {} --out {} --replay py",
        fixture.file.display(),
        out.display()
    );
    assert!(stderr.lines().any(|line| line == expected), "{stderr}");
    assert_eq!(fixture.records("out"), before);

    // --replay: py's games, and only those, are played again by the new program.
    let (_, stderr) = run(&["--replay", "py"]);
    assert!(
        stderr.contains(
            "arena: dropped the 4 games of py from the journal, to play them again; the previous journal is kept as"
        ),
        "{stderr}"
    );
    assert!(!warned(&stderr), "{stderr}");
    let after = fixture.records("out");
    assert_eq!(after.len(), 6);
    let plays_py = |record: &Value| record["players"]["first"] == "py" || record["players"]["second"] == "py";
    let untouched: Vec<&Value> = before.iter().filter(|record| !plays_py(record)).collect();
    assert_eq!(
        after.iter().filter(|record| !plays_py(record)).collect::<Vec<_>>(),
        untouched
    );
    for record in after.iter().filter(|record| plays_py(record)) {
        let seat = if record["players"]["first"] == "py" {
            "first"
        } else {
            "second"
        };
        assert_eq!(record["hello"][seat]["version"], "2\u{1b}[2J", "{record}");
    }
    assert_eq!(py_points(&fixture.standings("out")), 0.0);
    let kept_aside: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|entry| entry.unwrap().file_name().into_string().ok())
        .filter(|name| name.starts_with("journal-replaced-"))
        .collect();
    assert_eq!(kept_aside.len(), 1, "{kept_aside:?}");
    let (_, stderr) = run(&[]);
    assert!(!warned(&stderr), "{stderr}");

    // A bot that cannot start now is said, and the standings are shown all the same.
    version("crash");
    let (standings, stderr) = run(&[]);
    assert!(
        stderr.contains("arena: warning: bot \"py\" failed its greeting")
            && stderr.contains("its games in the journal cannot be compared with its program now"),
        "{stderr}"
    );
    assert!(standings.contains("Standings after 6 games"));

    // A bot the tournament does not have.
    let unknown = fixture.run("out", &["--replay", "nosuch"]);
    assert!(!unknown.status.success());
    let stderr = text(&unknown.stderr);
    assert!(
        stderr.contains("--replay \"nosuch\": the tournament")
            && stderr.contains("has no such bot; its bots are: ff, heuristic, py"),
        "{stderr}"
    );
}

/// The lines of a journal after its header, as text (a torn last line too).
fn journal_lines(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().skip(1).map(str::to_owned).collect()
}

/// The journal's `joined` lines.
fn joined_lines(path: &Path) -> Vec<Value> {
    journal_lines(path)
        .iter()
        .filter(|line| line.starts_with("{\"joined\":"))
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The ids of the games of `records` (the journal's `joined` lines left out).
fn game_ids(records: &[Value]) -> Vec<String> {
    records
        .iter()
        .filter_map(|record| Some(record.get("id")?.as_str()?.to_owned()))
        .collect()
}

fn arena(args: &[&str]) -> Output {
    Command::new(ARENA).args(args).output().unwrap()
}

const THREE: [(&str, &str); 3] = [
    ("ff", "builtin first-free"),
    ("h", "builtin heuristic"),
    ("py", "py versioned"),
];

/// THREE with `rnd` (bots/python-random) added in the middle of the file.
const FOUR: [(&str, &str); 4] = [
    ("ff", "builtin first-free"),
    ("rnd", "random"),
    ("h", "builtin heuristic"),
    ("py", "py versioned"),
];

#[test]
fn a_bot_added_to_a_played_tournament_joins_and_only_its_games_are_played() {
    let head = "seed = 9\ngames_per_pair = 2\n[time]\nmove_ms = 2000";
    let fixture = Fixture::new(head, &THREE);
    std::fs::write(fixture.dir.path().join("version.txt"), "1").unwrap();
    assert_success(&fixture.run("out", &[]));
    let journal = fixture.out("out").join("journal.jsonl");
    let before = std::fs::read_to_string(&journal).unwrap();
    assert_eq!(fixture.records("out").len(), 6);

    // rnd joins, and py's program now greets under another name (a control character in it).
    fixture.write(head, &FOUR);
    std::fs::write(fixture.dir.path().join("name.txt"), "evil\u{1b}[2J").unwrap();
    let output = fixture.run("out", &[]);
    assert_success(&output);
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(
            "arena: rnd joined the tournament: its schedule has 12 games now, and the 6 games already played are kept"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "arena: warning: bot py now says hello as \"evil\\x1b[2J 1\", but as \"fixture-versioned 1\" in its last game"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains('\u{1b}'), "the bot's text is escaped: {stderr:?}");
    let after = std::fs::read_to_string(&journal).unwrap();
    assert!(
        after.starts_with(&before),
        "the games already played are kept byte for byte"
    );
    let lines = journal_lines(&journal);
    assert_eq!(lines.len(), 6 + 1 + 6, "the join and rnd's 6 games: {lines:#?}");
    let joined = &joined_lines(&journal)[0];
    assert!(
        lines[6].starts_with("{\"joined\":"),
        "the join comes right after the old games"
    );
    assert_eq!(joined["joined"][0]["name"], "rnd");
    assert_eq!(joined["games"], 12);
    assert!(joined["unix_ms"].as_u64().unwrap() > 0);
    let new: Vec<Value> = fixture.records("out").split_off(7);
    assert!(
        new.iter()
            .all(|record| record["players"]["first"] == "rnd" || record["players"]["second"] == "rnd")
    );
    let mut ids = game_ids(&fixture.records("out"));
    assert_eq!(ids.len(), 12);
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 12, "no game twice");

    // The standings cover every game, old and new, and every bot; so do `standings`, `verify` and `report`.
    let standings = fixture.standings("out");
    assert_eq!(standings["games"], 12);
    let games_of = |name: &str| bot(&standings, name)["games"].as_u64().unwrap();
    assert_eq!(
        [games_of("ff"), games_of("rnd"), games_of("h"), games_of("py")],
        [6, 6, 6, 6]
    );
    let shown = arena(&["standings", journal.to_str().unwrap()]);
    assert_success(&shown);
    assert!(text(&shown.stdout).contains("rnd"), "{}", text(&shown.stdout));
    // py's games under its two greetings, afterwards too: in the standings, escaped.
    assert_eq!(
        bot(&standings, "py")["greetings"],
        serde_json::json!([
            {"name": "evil\u{1b}[2J", "version": "1", "games": 2},
            {"name": "fixture-versioned", "version": "1", "games": 4},
        ])
    );
    assert!(
        text(&shown.stdout).contains(
            "py played its games under 2 greetings (hello), so these standings mix its programs: \
             \"evil\\x1b[2J 1\" (2 games), \"fixture-versioned 1\" (4 games)."
        ),
        "{}",
        text(&shown.stdout)
    );
    assert!(!text(&shown.stdout).contains('\u{1b}'));
    let verified = arena(&["verify", journal.to_str().unwrap()]);
    assert_success(&verified);
    assert!(
        text(&verified.stdout).contains("all 12 records are sound")
            && text(&verified.stdout).contains("joined the tournament after its journal was started: rnd (line 8)"),
        "{}",
        text(&verified.stdout)
    );
    let report = fixture.out("report");
    assert_success(&arena(&[
        "report",
        journal.to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ]));
    // The report says it too, under the standings: the bot's text escaped for the terminal, then as HTML.
    let page = std::fs::read_to_string(&report).unwrap();
    assert!(
        page.contains(
            "<p class=\"note greeting-note\">py played its games under 2 greetings (hello), so these standings mix \
             its programs: &quot;evil\\x1b[2J 1&quot; (2 games), &quot;fixture-versioned 1&quot; (4 games).</p>"
        ),
        "the report names py's two greetings"
    );
    assert!(!page.contains('\u{1b}'));

    // Again: nothing to play, nothing joins.
    let output = fixture.run("out", &[]);
    assert_success(&output);
    assert!(!text(&output.stderr).contains("joined"), "{}", text(&output.stderr));
    assert_eq!(journal_lines(&journal).len(), 13);
}

#[test]
fn a_removed_bot_or_a_changed_rule_is_still_refused_after_a_join() {
    let head = "seed = 9\ngames_per_pair = 2";
    let bots = [("ff", "builtin first-free"), ("h", "builtin heuristic")];
    let fixture = Fixture::new(head, &bots);
    assert_success(&fixture.run("out", &[]));
    let grown = [
        ("ff", "builtin first-free"),
        ("h", "builtin heuristic"),
        ("h2", "builtin heuristic"),
    ];
    fixture.write(head, &grown);
    assert_success(&fixture.run("out", &[]));
    let journal = fixture.out("out").join("journal.jsonl");
    let before = std::fs::read(&journal).unwrap();
    let refused = |expected: &str| {
        let output = fixture.run("out", &[]);
        assert_eq!(output.status.code(), Some(1));
        let stderr = text(&output.stderr);
        assert!(
            stderr.contains("the tournament changed") && stderr.contains(expected),
            "{stderr}"
        );
        assert!(stderr.contains("--fresh"), "{stderr}");
        assert_eq!(std::fs::read(&journal).unwrap(), before, "the journal is unchanged");
    };
    fixture.write(head, &bots);
    refused("bots[2]: the bot \"h2\" was removed");
    fixture.write(head, &grown[1..]);
    refused("bots[0]: the bot \"ff\" was removed");
    fixture.write("seed = 9\ngames_per_pair = 4", &grown);
    refused("games_per_pair: 2 -> 4");
    // A bot's command changed: another program under its name.
    fixture.write(
        head,
        &[
            ("ff", "builtin first-free"),
            ("h", "builtin heuristic"),
            ("h2", "builtin first-free"),
        ],
    );
    refused("bots[2].builtin: \"heuristic\" -> \"first-free\"");
    // The dry run says so too, and --fresh starts afresh.
    let dry = fixture.run("out", &["--dry-run"]);
    assert!(
        text(&dry.stderr).contains("cannot be resumed with this file"),
        "{}",
        text(&dry.stderr)
    );
    assert_success(&fixture.run("out", &["--fresh"]));
    assert!(joined_lines(&journal).is_empty());
}

/// A run killed after its join resumes with nothing lost or doubled: the standings of a run never killed.
#[test]
fn a_run_killed_after_a_join_resumes_and_loses_nothing() {
    let head = "seed = 4\ngames_per_pair = 4";
    let three = [
        ("a", "builtin first-free"),
        ("h", "builtin heuristic"),
        ("b", "builtin first-free"),
    ];
    let four = [
        ("a", "builtin first-free"),
        ("h", "builtin heuristic"),
        ("b", "builtin first-free"),
        ("slow", "py first-free 5"),
    ];
    let fixture = Fixture::new(head, &three);
    assert_success(&fixture.run("whole", &[]));
    assert_success(&fixture.run("killed", &[]));
    fixture.write(head, &four);
    assert_success(&fixture.run("whole", &[]));
    assert_eq!(game_ids(&fixture.records("whole")).len(), 24);

    let journal = fixture.out("killed").join("journal.jsonl");
    let mut child = fixture
        .command("killed", &["--concurrency", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_until("2 games of slow are in the journal", DEADLINE, || {
        !joined_lines(&journal).is_empty() && game_ids(&journal_records(&journal)).len() >= 14
    });
    signal(&child, Signal::KILL);
    child.wait().unwrap();
    let done = game_ids(&journal_records(&journal)).len();
    assert!(done < 24, "killed before the end ({done} games)");
    wait_until("the bots die with the referee", DEADLINE, || {
        fixture.leftovers().is_empty()
    });

    let output = fixture.run("killed", &[]);
    assert_success(&output);
    assert!(
        !text(&output.stderr).contains("joined the tournament"),
        "slow joined once"
    );
    assert_eq!(joined_lines(&journal).len(), 1);
    let mut ids = game_ids(&fixture.records("killed"));
    ids.sort();
    let mut expected = game_ids(&fixture.records("whole"));
    expected.sort();
    assert_eq!(ids, expected, "every game once");
    assert_eq!(fixture.standings("killed"), fixture.standings("whole"));
}

/// A tampered `joined` line is refused by every reader, named by its line.
#[test]
fn a_tampered_join_line_is_refused_with_its_line_number() {
    let head = "seed = 2\ngames_per_pair = 2";
    let fixture = Fixture::new(head, &INSTANT_BOTS[..2]);
    assert_success(&fixture.run("out", &[]));
    fixture.write(head, &INSTANT_BOTS);
    assert_success(&fixture.run("out", &[]));
    let journal = fixture.out("out").join("journal.jsonl");
    let text_of = std::fs::read_to_string(&journal).unwrap();
    assert!(text_of.lines().nth(3).unwrap().starts_with("{\"joined\":"), "{text_of}");
    let tampered = text_of.replacen("\"games\":6", "\"games\":8", 1);
    assert_ne!(tampered, text_of);
    std::fs::write(&journal, tampered).unwrap();
    let path = journal.to_str().unwrap();
    let standings = arena(&["standings", path]);
    assert!(!standings.status.success());
    let stderr = text(&standings.stderr);
    assert!(stderr.contains("line 4 of the journal"), "{stderr}");
    let verified = arena(&["verify", path]);
    let stdout = text(&verified.stdout);
    assert!(
        !verified.status.success() && stdout.contains("line 4: a `joined` line that does not fit the journal before it: it gives 8 games, but the schedule with its bots has 6"),
        "{stdout}"
    );
    let resumed = fixture.run("out", &[]);
    assert!(!resumed.status.success());
    assert!(
        text(&resumed.stderr).contains("line 4 of the journal"),
        "{}",
        text(&resumed.stderr)
    );
}

/// Shards grown by the same bot, each run again after the join, merge into the standings of one machine's run.
#[test]
fn shards_grown_by_a_bot_merge_into_the_standings_of_one_machine() {
    let head = "seed = 3\ngames_per_pair = 4\n[time]\nmove_ms = 60000";
    let fixture = Fixture::new(head, &INSTANT_BOTS[..2]);
    let shard_runs = || {
        for k in 1..=2 {
            assert_success(&fixture.run("sharded", &["--shard", &format!("{k}/2")]));
        }
    };
    assert_success(&fixture.run("whole", &[]));
    shard_runs();
    fixture.write(head, &INSTANT_BOTS);
    assert_success(&fixture.run("whole", &[]));
    shard_runs();
    for k in 1..=2 {
        let journal = fixture.out(&format!("sharded/shard-{k}-of-2/journal.jsonl"));
        assert_eq!(joined_lines(&journal).len(), 1, "shard {k}");
    }
    let output = merge(&fixture, "merged", &["sharded"]);
    assert_success(&output);
    let merged = fixture.out("merged").join("journal.jsonl");
    assert_eq!(joined_lines(&merged).len(), 1);
    assert_eq!(game_ids(&journal_records(&merged)).len(), 12);
    let read = |path: PathBuf| std::fs::read_to_string(path).unwrap();
    for table in ["standings.json", "standings.csv", "pairs.csv"] {
        assert_eq!(
            read(fixture.out("merged").join(table)),
            read(fixture.out("whole").join(table)),
            "{table}"
        );
    }
}
