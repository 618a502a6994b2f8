//! End-to-end tests of `arena league` with real bot processes: the built-in `first-free` and `heuristic`,
//! and `tests/fixtures/bot.py` (deterministic: it plays the first free cell), so that two runs of one league
//! give the same games and the same table, however they were interrupted or split.

mod serving;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use pahtum_testkit::wait_until;
use rustix::process::{Pid, Signal, kill_process};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
const DEADLINE: Duration = Duration::from_secs(120);
const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/bot.py");

fn arena(args: &[&str]) -> Output {
    Command::new(ARENA).args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_success(output: &Output) {
    assert!(
        output.status.success(),
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    );
}

/// A new league in `root/name` with `rules` (after `name`) as its league.toml.
fn league(root: &Path, name: &str, rules: &str) -> PathBuf {
    let dir = root.join(name);
    assert_success(&arena(&["league", "init", dir.to_str().unwrap()]));
    std::fs::write(dir.join("league.toml"), format!("name = \"{name}\"\n{rules}")).unwrap();
    dir
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Adds an entrant: `arena league add DIR ARGS...`.
fn add(dir: &Path, args: &[&str]) -> Output {
    let mut words = vec!["league", "add", s(dir)];
    words.extend(args);
    arena(&words)
}

/// A bot folder in `root/name`: the fixture bot and a bot.toml of `toml`.
fn bot_folder(root: &Path, name: &str, toml: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(FIXTURE, dir.join("bot.py")).unwrap();
    std::fs::write(dir.join("bot.toml"), toml).unwrap();
    dir
}

/// The game lines of the league journal in `dir`.
fn games(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|line| line.get("id").is_some())
        .collect()
}

fn table(dir: &Path) -> String {
    let output = arena(&["league", "table", s(dir)]);
    assert_success(&output);
    text(&output.stdout)
}

fn run(dir: &Path, extra: &[&str]) -> Output {
    let mut words = vec!["league", "run", s(dir)];
    words.extend(extra);
    arena(&words)
}

/// The games of each pair of entrants (by their labels, sorted).
fn games_per_pair(dir: &Path) -> std::collections::BTreeMap<(String, String), usize> {
    let mut counts = std::collections::BTreeMap::new();
    for game in games(dir) {
        let mut pair = [
            game["players"]["first"].as_str().unwrap(),
            game["players"]["second"].as_str().unwrap(),
        ];
        pair.sort();
        *counts.entry((pair[0].to_owned(), pair[1].to_owned())).or_insert(0) += 1;
    }
    counts
}

#[test]
fn a_league_grows_over_five_additions_and_plays_only_what_it_needs() {
    let root = tempfile::tempdir().unwrap();
    let dir = league(root.path(), "grow", "games_per_pair = 4\nprecision_elo = 1\n");
    assert_success(&add(&dir, &["ff", "--", "first-free"]));
    let author = bot_folder(
        root.path(),
        "rand-src",
        "name = \"rand\"\ncommand = \"python3 bot.py first-free 1\"\nbuild = \"echo built > built.txt\"\n",
    );
    assert_success(&add(&dir, &["--from", s(&author)]));
    assert!(dir.join("entrants/rand@1/built.txt").is_file(), "built in its snapshot");
    assert!(dir.join("logs/build-rand@1.log").is_file() && dir.join("logs/check-rand@1.log").is_file());
    // A later edit of the author's folder changes nothing of the entrant.
    std::fs::write(author.join("bot.py"), "raise SystemExit(1)\n").unwrap();
    assert_eq!(
        std::fs::read(dir.join("entrants/rand@1/bot.py")).unwrap(),
        std::fs::read(FIXTURE).unwrap()
    );

    assert_success(&run(&dir, &["--concurrency", "2"]));
    assert_eq!(games(&dir).len(), 4, "one pair, at most games_per_pair games");
    let played = std::fs::read(dir.join("journal.jsonl")).unwrap();

    let broken = bot_folder(
        root.path(),
        "broken",
        "name = \"broken\"\ncommand = \"python3 bot.py first-free\"\nbuild = \"echo no compiler >&2; exit 3\"\n",
    );
    let output = add(&dir, &["--from", s(&broken)]);
    assert!(!output.status.success());
    let error = text(&output.stderr);
    assert!(
        error.contains("broken@1 was not added: its build failed") && error.contains("exited with 3"),
        "{error}"
    );
    assert!(
        std::fs::read_to_string(dir.join("logs/build-broken@1.log"))
            .unwrap()
            .contains("no compiler")
    );

    let output = add(&dir, &["mute", "--", "python3", "-c", "pass"]);
    assert!(!output.status.success());
    assert!(
        text(&output.stderr).contains("mute@1 was not added: its check failed"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(
        std::fs::read(dir.join("journal.jsonl")).unwrap(),
        played,
        "the failures changed nothing"
    );
    assert!(!dir.join("entrants/broken@1").exists() && !dir.join("entrants/mute@1").exists());

    let newer = bot_folder(
        root.path(),
        "rand-v2",
        "name = \"rand\"\ncommand = \"python3 bot.py first-free 2\"\n",
    );
    let output = add(&dir, &["--from", s(&newer)]);
    assert_success(&output);
    assert!(text(&output.stdout).contains("rand@2 joined"));

    assert_success(&run(&dir, &["--concurrency", "2"]));
    let journal = std::fs::read(dir.join("journal.jsonl")).unwrap();
    assert!(
        journal.starts_with(&played),
        "the games played before are kept as they were"
    );
    let pairs = games_per_pair(&dir);
    assert_eq!(pairs.len(), 3, "{pairs:?}");
    assert!(
        pairs.values().all(|&games| games == 4),
        "no pair beyond the rules: {pairs:?}"
    );
    let ladder = table(&dir);
    assert!(
        ladder.contains("Versions") && ladder.contains("rand@1") && ladder.contains("rand@2"),
        "{ladder}"
    );
    assert!(!ladder.contains("broken") && !ladder.contains("mute"), "{ladder}");

    // A retired entrant keeps its games and rating, apart, and plays no more.
    assert_success(&arena(&["league", "retire", s(&dir), "rand@1"]));
    let ladder = table(&dir);
    let retired = &ladder[ladder.find("Retired").expect("a retired section")..ladder.find("Versions").unwrap()];
    assert!(retired.contains("rand@1") && !retired.contains("rand@2"), "{ladder}");
    assert_success(&run(&dir, &[]));
    assert_eq!(games(&dir).len(), 12);
}

#[test]
fn a_league_killed_mid_run_resumes_with_nothing_lost_or_doubled() {
    let root = tempfile::tempdir().unwrap();
    let whole = league(root.path(), "whole", "games_per_pair = 4\nprecision_elo = 1\n");
    for (name, command) in [
        ("ff", vec!["first-free"]),
        ("h", vec!["heuristic"]),
        ("slow", vec!["python3", FIXTURE, "first-free", "5"]),
    ] {
        let mut args = vec![name, "--"];
        args.extend(command);
        assert_success(&add(&whole, &args));
    }
    let killed = root.path().join("killed");
    assert!(
        Command::new("cp")
            .args(["-a", s(&whole), s(&killed)])
            .status()
            .unwrap()
            .success()
    );
    assert_success(&run(&whole, &["--concurrency", "1"]));
    assert_eq!(games(&whole).len(), 12);

    let mut child = Command::new(ARENA)
        .args(["league", "run", s(&killed), "--concurrency", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_until("the journal has 3 games", DEADLINE, || games(&killed).len() >= 3);
    kill_process(Pid::from_child(&child), Signal::KILL).unwrap();
    child.wait().unwrap();
    let before = games(&killed);
    assert!(before.len() < 12, "killed before the end ({} games)", before.len());

    assert_success(&run(&killed, &["--concurrency", "1"]));
    let after = games(&killed);
    assert_eq!(after.len(), 12);
    assert_eq!(after[..before.len()], before[..], "nothing lost");
    let mut ids: Vec<&str> = after.iter().map(|game| game["id"].as_str().unwrap()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 12, "nothing doubled");
    assert_eq!(table(&killed), table(&whole), "the same games, the same table");
}

#[test]
fn a_league_run_as_three_shards_and_merged_has_the_table_of_one_machine() {
    let root = tempfile::tempdir().unwrap();
    let one = league(root.path(), "one", "games_per_pair = 2\nprecision_elo = 1\n");
    for (name, command) in [
        ("ff", vec!["first-free"]),
        ("h", vec!["heuristic"]),
        ("py0", vec!["python3", FIXTURE, "first-free"]),
        ("py1", vec!["python3", FIXTURE, "first-free", "1"]),
    ] {
        let mut args = vec![name, "--"];
        args.extend(command);
        assert_success(&add(&one, &args));
    }
    let shards: Vec<PathBuf> = (1..=3).map(|k| root.path().join(format!("shard-{k}"))).collect();
    for (k, shard) in shards.iter().enumerate() {
        assert!(
            Command::new("cp")
                .args(["-a", s(&one), s(shard)])
                .status()
                .unwrap()
                .success()
        );
        assert_success(&run(shard, &["--shard", &format!("{}/3", k + 1), "--concurrency", "2"]));
        assert_eq!(games(shard).len(), 4, "its share of the round of 6 layout pairs");
    }
    assert_success(&run(&one, &["--concurrency", "2"]));
    assert_eq!(games(&one).len(), 12);
    let merged = root.path().join("merged");
    let mut words = vec!["merge", s(&merged)];
    words.extend(shards.iter().map(|shard| s(shard)));
    assert_success(&arena(&words));
    assert_eq!(games(&merged).len(), 12);
    assert_eq!(table(&merged), table(&one));
    // The shards read together are the merged league, as the commands that read journals take them.
    let mut words = vec!["standings"];
    words.extend(shards.iter().map(|shard| s(shard)));
    let together = arena(&words);
    assert_success(&together);
    let merged_standings = arena(&["standings", s(&merged)]);
    assert_eq!(text(&together.stdout), text(&merged_standings.stdout));
    // The merged league goes on: it decides the next round (here none: every pair played its games).
    let output = run(&merged, &[]);
    assert_success(&output);
    assert!(
        text(&output.stdout).contains("needs no more games"),
        "{}",
        text(&output.stdout)
    );
}

#[test]
fn a_tampered_line_is_refused_with_its_number_and_the_table_is_stable() {
    let root = tempfile::tempdir().unwrap();
    let dir = league(root.path(), "t", "games_per_pair = 2\n");
    assert_success(&add(&dir, &["ff", "--", "first-free"]));
    assert_success(&add(&dir, &["h", "--", "heuristic"]));
    assert_success(&run(&dir, &["--concurrency", "1"]));
    let first = table(&dir);
    assert_eq!(table(&dir), first, "the same journal, the same bytes");
    let json = arena(&["league", "table", s(&dir), "--format", "json"]);
    assert_success(&json);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["games"], 2);

    // An entrant added later changes no past game.
    let journal = dir.join("journal.jsonl");
    let before = std::fs::read_to_string(&journal).unwrap();
    assert_success(&add(&dir, &["py", "--", "python3", FIXTURE, "first-free"]));
    assert!(std::fs::read_to_string(&journal).unwrap().starts_with(&before));

    let lines: Vec<&str> = before.lines().collect();
    let number = lines.iter().position(|line| line.contains("\"id\"")).unwrap() + 1;
    let edited = before.replacen(
        "\"termination\":{\"reason\":\"normal\"",
        "\"termination\":{\"reason\":\"timeout\"",
        1,
    );
    let edited = if edited == before {
        before.replacen("\"score\":{\"white\":", "\"score\":{\"white\":1", 1)
    } else {
        edited
    };
    assert_ne!(edited, before);
    std::fs::write(&journal, edited).unwrap();
    for words in [vec!["league", "table", s(&dir)], vec!["standings", s(&journal)]] {
        let output = arena(&words);
        assert!(!output.status.success());
        let error = text(&output.stderr);
        assert!(error.contains(&format!("line {number}")), "{error}");
        assert!(error.contains(&format!("`arena verify {}`", s(&journal))), "{error}");
    }
}

#[test]
fn a_played_leagues_report_has_its_ladder_and_each_bots_rating_history() {
    let root = tempfile::tempdir().unwrap();
    let dir = league(root.path(), "pages", "games_per_pair = 4\nprecision_elo = 1\n");
    assert_success(&add(&dir, &["ff", "--", "first-free"]));
    let first = bot_folder(
        root.path(),
        "rand-v1",
        "name = \"rand\"\ncommand = \"python3 bot.py first-free 1\"\n",
    );
    assert_success(&add(&dir, &["--from", s(&first)]));
    assert_success(&run(&dir, &["--concurrency", "2"]));
    let second = bot_folder(
        root.path(),
        "rand-v2",
        "name = \"rand\"\ncommand = \"python3 bot.py first-free 2\"\n",
    );
    assert_success(&add(&dir, &["--from", s(&second)]));
    assert_success(&run(&dir, &["--concurrency", "2"]));
    let ladder = table(&dir);

    let output = arena(&["report", s(&dir)]);
    assert_success(&output);
    assert!(text(&output.stderr).contains("(12 games)"), "{}", text(&output.stderr));
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    let section = |id: &str| {
        let start = page
            .find(&format!("<section id=\"{id}\">"))
            .unwrap_or_else(|| panic!("no section {id}"));
        &page[start..start + page[start..].find("</section>").unwrap()]
    };
    // The ladder: `arena league table`'s first line, and each entrant's row with its rating and interval.
    let ladder_page = section("ladder");
    assert!(ladder_page.contains(ladder.lines().next().unwrap()), "{ladder_page}");
    let entrants = &ladder[..ladder.find("Every game").unwrap()];
    let rows: Vec<&str> = entrants
        .lines()
        .filter(|line| line.contains('@') && line.contains('['))
        .collect();
    assert_eq!(rows.len(), 3, "{ladder}");
    for line in rows {
        let cells: Vec<&str> = line.split('│').map(str::trim).filter(|cell| !cell.is_empty()).collect();
        let (entrant, elo, interval) = (cells[1], cells[2], cells[3]);
        let row = format!("<td class=\"name\">{entrant}</td><td>{elo}</td><td>{interval}</td>");
        assert!(ladder_page.contains(&row), "{row} in {ladder_page}");
    }
    assert!(ladder_page.contains("<h3>Versions</h3>"), "{ladder_page}");
    assert!(
        ladder_page
            .contains("<td class=\"name\">rand</td><td class=\"name\">rand@1</td><td class=\"name\">rand@2</td>"),
        "{ladder_page}"
    );
    // The history: each bot once, rand's two versions on its chart over the two runs' rounds.
    let history = section("history");
    assert!(history.contains("<h3 class=\"name\">ff</h3>") && history.contains("<h3 class=\"name\">rand</h3>"));
    let rand = &history[history.find("<h3 class=\"name\">rand</h3>").unwrap()..];
    assert_eq!(rand.matches("<polyline").count(), 2, "{rand}");
    assert!(rand.contains("rand@1 → rand@2: "), "{rand}");
    assert!(rand.contains("rand@2 after round "), "{rand}");
    assert!(history.contains(" fits in all"), "{history}");
}

/// A league is shown live by `arena serve` as a run is: while `arena league
/// run` plays, its folder's socket streams the games in progress move by
/// move; the socket is gone when the run ends; and the league's page has its
/// ladder and its bots' rating history.
#[test]
fn a_league_is_served_live_with_its_games_in_progress_and_its_ladder() {
    use std::io::{BufRead, BufReader};
    let root = tempfile::tempdir().unwrap();
    let dir = league(root.path(), "live", "games_per_pair = 2\nprecision_elo = 1\n");
    for (name, command) in [
        ("ff", vec!["first-free"]),
        ("slow", vec!["python3", FIXTURE, "first-free", "30"]),
    ] {
        let mut args = vec![name, "--"];
        args.extend(command);
        assert_success(&add(&dir, &args));
    }
    let mut child = Command::new(ARENA)
        .args(["league", "run", s(&dir), "--concurrency", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let socket = dir.join("live.sock");
    let mut stream = None;
    wait_until("the league's games can be followed", DEADLINE, || {
        stream = std::os::unix::net::UnixStream::connect(&socket).ok();
        stream.is_some()
    });
    let mut lines = BufReader::new(stream.unwrap()).lines();
    let first: serde_json::Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(first["type"], "snapshot", "{first}");
    let moved = lines
        .map(|line| serde_json::from_str::<serde_json::Value>(&line.unwrap()).unwrap())
        .find(|event| event["type"] == "move");
    assert!(moved.is_some(), "a move of a game in progress");
    assert!(child.wait().unwrap().success());
    assert!(!socket.exists(), "the socket is removed when the run ends");

    let server = serving::Server::start(root.path(), &["--listen", "127.0.0.1:0"]);
    let (status, runs) = server.get("/");
    assert_eq!(status, 200);
    assert!(runs.contains("/runs/live"), "{runs}");
    let (status, page) = server.get("/runs/live");
    assert_eq!(status, 200);
    assert!(
        page.contains("id=\"ladder\"") && page.contains("Rating history"),
        "the league's own sections"
    );
}

/// The lines of the league journal in `dir`, each with its newline.
fn journal_lines(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("journal.jsonl"))
        .unwrap()
        .split_inclusive('\n')
        .map(str::to_owned)
        .collect()
}

/// `arena verify DIR` after the journal in `dir` was made of `lines`.
fn verify_lines(dir: &Path, lines: &[String]) -> (Output, String) {
    std::fs::write(dir.join("journal.jsonl"), lines.concat()).unwrap();
    let output = arena(&["verify", s(dir)]);
    let stdout = text(&output.stdout);
    (output, stdout)
}

/// Whether `c` would act on a terminal rather than show.
fn acts_on_a_terminal(c: char) -> bool {
    c.is_control() && c != '\n'
}

/// A league of `first-free` and the fixture bot writing hostile info (`ff@1` and `hi@1`), played: one
/// round of two games; the ids of its games.
fn played_league(root: &Path) -> (PathBuf, Vec<String>) {
    let dir = league(root, "loop", "games_per_pair = 2\n");
    assert_success(&add(&dir, &["ff", "--", "first-free"]));
    assert_success(&add(&dir, &["hi", "--", "python3", FIXTURE, "hostile-info"]));
    assert_success(&run(&dir, &["--concurrency", "1"]));
    let ids: Vec<String> = games(&dir)
        .iter()
        .map(|game| game["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 2);
    (dir, ids)
}

/// `arena verify` checks a league's journal and lists every faulty line by its number, a torn last line
/// said apart; an entrant named with terminal controls and `</script>` is shown escaped.
#[test]
fn verify_lists_every_faulty_line_of_a_league() {
    let root = tempfile::tempdir().unwrap();
    let (dir, ids) = played_league(root.path());
    let output = arena(&["verify", s(&dir)]);
    assert_success(&output);
    assert!(
        text(&output.stdout)
            .contains("every line is sound: 2 entrant(s) (0 retired), 1 round(s) decided, 2 game(s); schedule sha256:"),
        "{}",
        text(&output.stdout)
    );

    // Two lines edited: a game's score, the other game's entrants' hashes; both listed, by number.
    let lines = journal_lines(&dir);
    let (first, second) = (lines.len() - 2, lines.len() - 1);
    let mut edited = lines.clone();
    edited[first] = edited[first].replacen("\"score\":{\"white\":", "\"score\":{\"white\":1", 1);
    let hash = edited[second].rfind("sha256:").unwrap() + "sha256:".len();
    let digit = if &edited[second][hash..=hash] == "0" { "1" } else { "0" };
    edited[second].replace_range(hash..=hash, digit);
    let (output, stdout) = verify_lines(&dir, &edited);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    let faults: Vec<&str> = stdout.lines().filter(|line| line.starts_with("line ")).collect();
    assert_eq!(faults.len(), 2, "{stdout}");
    assert!(
        faults[0].starts_with(&format!("line {}: game {:?}", first + 1, ids[0])),
        "{stdout}"
    );
    assert!(
        faults[1].starts_with(&format!(
            "line {}: game {:?} names the content hashes",
            second + 1,
            ids[1]
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("2 faulty line(s); sound: 2 entrant(s) (0 retired), 1 round(s) decided, 0 game(s)"),
        "{stdout}"
    );

    // A torn last line is said, not a fault.
    let mut torn = lines.clone();
    torn.push(lines[second][..30].to_owned());
    let (output, stdout) = verify_lines(&dir, &torn);
    assert_success(&output);
    assert!(
        stdout.contains("the last line is torn") && stdout.contains("2 game(s)"),
        "{stdout}"
    );

    // An entrant named with terminal controls and `</script>` is a fault, shown escaped.
    let mut hostile = lines.clone();
    hostile[2] = hostile[2].replacen("\"name\":\"hi\"", "\"name\":\"x\\u001b]0;pwned\\u0007</script>\"", 1);
    let (output, stdout) = verify_lines(&dir, &hostile);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.starts_with("line 3: entrant ") && stdout.contains("pwned"),
        "{stdout}"
    );
    assert!(
        !stdout.chars().any(acts_on_a_terminal),
        "raw control text in {stdout:?}"
    );
}

/// A bot author's loop on a league: `arena show` lists its games and prints one, what the bot wrote
/// escaped; `arena analyze` finds the move that lost it, and `arena show` then shows it.
#[test]
fn a_leagues_games_are_shown_and_analysed() {
    let root = tempfile::tempdir().unwrap();
    let (dir, ids) = played_league(root.path());
    let list = arena(&["show", s(&dir)]);
    assert_success(&list);
    let listed = text(&list.stdout);
    assert!(ids.iter().all(|id| listed.contains(id.as_str())), "{listed}");
    assert!(
        listed.contains("ff@1 (White) - hi@1 (Black)") && listed.contains("2 game(s)"),
        "{listed}"
    );
    let lost = arena(&["show", s(&dir), "--lost-by", "nobody"]);
    assert!(
        text(&lost.stderr).contains("give one of: ff@1, hi@1"),
        "{}",
        text(&lost.stderr)
    );

    let id = ids[0].as_str();
    let shown = arena(&["show", s(&dir), id, "--boards"]);
    assert_success(&shown);
    let game = text(&shown.stdout);
    assert!(game.starts_with(&format!("Game {id}: ")), "{game}");
    assert!(game.contains("(no analysis: arena analyze "), "{game}");
    assert!(!game.chars().any(acts_on_a_terminal), "raw control text in {game:?}");
    assert!(
        game.contains("window.pwned=1</script><img src=x onerror=\"window.pwned=1\"><!--\\x07\\x1b[31m\\r\\x00"),
        "{game}"
    );

    let analysed = arena(&["analyze", s(&dir), id, "--playouts", "20"]);
    assert_success(&analysed);
    let analysis = std::fs::read_to_string(dir.join("analysis.jsonl")).unwrap();
    let line: serde_json::Value = serde_json::from_str(analysis.lines().next().unwrap()).unwrap();
    assert_eq!(line["game"], id);
    let shown = arena(&["show", s(&dir), id]);
    assert_success(&shown);
    let game = text(&shown.stdout);
    assert!(game.contains("losing move") && !game.contains("(no analysis"), "{game}");
}

/// A tournament is not played into a league's folder, not even afresh: the error says what plays a league.
#[test]
fn a_tournament_is_not_played_into_a_leagues_folder() {
    let root = tempfile::tempdir().unwrap();
    let dir = league(root.path(), "kept", "games_per_pair = 2\n");
    assert_success(&add(&dir, &["ff", "--", "first-free"]));
    let lines = journal_lines(&dir);
    let file = root.path().join("t.toml");
    std::fs::write(
        &file,
        "name = \"t\"\n[[bots]]\nname = \"a\"\nbuiltin = \"first-free\"\n[[bots]]\nname = \"b\"\nbuiltin = \"heuristic\"\n",
    )
    .unwrap();
    for words in [
        vec![
            "match",
            "first-free",
            "heuristic",
            "--games",
            "2",
            "--fresh",
            "--out",
            s(&dir),
        ],
        vec!["run", s(&file), "--out", s(&dir)],
        vec!["run", s(&file), "--out", s(&dir), "--fresh"],
    ] {
        let output = arena(&words);
        assert!(!output.status.success(), "{words:?}");
        assert!(
            text(&output.stderr).contains(&format!("`arena league run {}`", s(&dir))),
            "{words:?}: {}",
            text(&output.stderr)
        );
    }
    assert_eq!(journal_lines(&dir), lines, "the league's journal is untouched");
}
