use pahtum_protocol::{ClockKind, DEFAULT_MARGIN_MS, TimeControl};

use super::*;
use crate::durability::Durability;

const MINIMAL: &str = r#"
    name = "t"
    [[bots]]
    name = "a"
    command = "python3 a.py"
    [[bots]]
    name = "b"
    builtin = "heuristic"
"#;

fn parse_text(text: &str) -> Result<TournamentFile, ConfigError> {
    parse(Path::new("tournaments/t.toml"), text)
}

fn error_of(text: &str) -> String {
    parse_text(text).unwrap_err().to_string()
}

#[test]
fn sandbox_settings_need_the_sandbox() {
    let error = parse_text(&MINIMAL.replace("name = \"t\"", "name = \"t\"\nmemory_mb = 100"))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("`memory_mb`") && error.contains("sandbox = true"),
        "{error}"
    );
    let bot = MINIMAL.replacen("[[bots]]\n", "[[bots]]\nrw_paths = [\"x\"]\n", 1);
    let error = parse_text(&bot).unwrap_err().to_string();
    assert!(
        error.contains("bots[0].rw_paths") && error.contains("sandbox = true"),
        "{error}"
    );
    let one = MINIMAL.replacen("[[bots]]\n", "[[bots]]\nsandbox = true\nmemory_mb = 64\n", 1);
    let bots = parse_text(&one).unwrap().tournament.bots;
    assert_eq!(bots[0].sandbox.as_ref().and_then(|sandbox| sandbox.memory_mb), Some(64));
    assert_eq!(bots[1].sandbox, None);
    let all_but_one = MINIMAL
        .replace("name = \"t\"", "name = \"t\"\nsandbox = true\nmax_processes = 9")
        .replacen("[[bots]]\n", "[[bots]]\nsandbox = false\n", 1);
    let bots = parse_text(&all_but_one).unwrap().tournament.bots;
    assert_eq!(bots[0].sandbox, None);
    assert_eq!(
        bots[1].sandbox.as_ref().and_then(|sandbox| sandbox.max_processes),
        Some(9)
    );
}

/// `open_files`, `file_size_mb` and `tmp_mb` are set like `memory_mb`: at the
/// top for every sandboxed bot, in a bot's entry for it alone, only with the
/// sandbox, and never to a value the sandbox cannot set.
#[test]
fn the_sandbox_limits_of_files_and_tmp_are_in_the_file() {
    let file = MINIMAL
        .replace(
            "name = \"t\"",
            "name = \"t\"\nsandbox = true\ntmp_mb = 8\nopen_files = 100",
        )
        .replacen("[[bots]]\n", "[[bots]]\nfile_size_mb = 1\nopen_files = 50\n", 1);
    let bots = parse_text(&file).unwrap().tournament.bots;
    let limits = |n: usize| {
        let sandbox = bots[n].sandbox.as_ref().unwrap();
        (sandbox.open_files, sandbox.file_size_mb, sandbox.tmp_mb)
    };
    assert_eq!(limits(0), (Some(50), Some(1), Some(8)));
    assert_eq!(limits(1), (Some(100), None, Some(8)));

    for key in ["open_files", "file_size_mb", "tmp_mb"] {
        let top = error_of(&MINIMAL.replace("name = \"t\"", &format!("name = \"t\"\n{key} = 4")));
        assert!(
            top.contains(&format!("`{key}`")) && top.contains("sandbox = true"),
            "{top}"
        );
        let bot = error_of(&MINIMAL.replacen("[[bots]]\n", &format!("[[bots]]\n{key} = 4\n"), 1));
        assert!(
            bot.contains(&format!("bots[0].{key}")) && bot.contains("sandbox = true"),
            "{bot}"
        );
        let zero = error_of(&MINIMAL.replacen("[[bots]]\n", &format!("[[bots]]\nsandbox = true\n{key} = 0\n"), 1));
        assert!(
            zero.contains(&format!("bots[0].{key}")) && zero.contains("default"),
            "{zero}"
        );
        let zero = error_of(&MINIMAL.replace("name = \"t\"", &format!("name = \"t\"\nsandbox = true\n{key} = 0")));
        assert!(
            zero.contains(&format!("`{key}`")) && !zero.contains("bots[0]"),
            "{zero}"
        );
    }
    let huge = error_of(&MINIMAL.replace(
        "name = \"t\"",
        "name = \"t\"\nsandbox = true\nfile_size_mb = 18446744073709551615",
    ));
    assert!(huge.contains("`file_size_mb`") && huge.contains("from 1 to"), "{huge}");
    let many = error_of(&MINIMAL.replace("name = \"t\"", "name = \"t\"\nsandbox = true\nopen_files = 2000000"));
    assert!(
        many.contains("`open_files`") && many.contains("from 1 to 1048576"),
        "{many}"
    );
}

#[test]
fn defaults_are_filled_in() {
    let file = parse_text(MINIMAL).unwrap();
    let t = &file.tournament;
    assert_eq!(t.seed, 0);
    assert_eq!(t.format, Format::RoundRobin);
    assert_eq!(t.games_per_pair, 2);
    assert!(t.rules.pie);
    assert_eq!(
        t.rules.blocks,
        BlockSource::Random {
            counts: DEFAULT_BLOCK_COUNTS.to_vec()
        }
    );
    assert_eq!(t.time.move_ms, Some(DEFAULT_MOVE_MS));
    assert_eq!(t.time.margin_ms, DEFAULT_MARGIN_MS);
    assert_eq!(t.bots[0].launch, Launch::Command(vec!["python3".into(), "a.py".into()]));
    assert_eq!(t.bots[1].launch, Launch::Builtin("heuristic".into()));
    assert_eq!(file.settings.out, Path::new("runs/t"));
    assert_eq!(file.settings.restart, Restart::OnFailure);
    assert_eq!(file.base_dir, Path::new("tournaments"));
}

/// Durability is how the run syncs, not what the games are: the key leaves the tournament's hash alone.
#[test]
fn durability_is_a_run_setting_outside_the_hash() {
    let plain = parse_text(MINIMAL).unwrap();
    assert_eq!(plain.settings.durability, Durability::Batch);
    let durable = parse_text(&MINIMAL.replace("name = \"t\"", "name = \"t\"\ndurability = \"game\"")).unwrap();
    assert_eq!(durable.settings.durability, Durability::Game);
    assert_eq!(
        crate::config::tournament_hash(&durable.tournament),
        crate::config::tournament_hash(&plain.tournament)
    );
    let error = error_of(&MINIMAL.replace("name = \"t\"", "name = \"t\"\ndurability = \"fast\""));
    assert!(
        error.contains("key `durability`: \"fast\" is not a durability; use \"game\""),
        "{error}"
    );
}

#[test]
fn unknown_keys_are_refused_with_their_line() {
    let error = error_of(&format!("{MINIMAL}\nconcurency = 3\n"));
    assert!(error.contains("tournaments/t.toml"), "{error}");
    assert!(error.contains("concurency"), "{error}");
}

#[test]
fn plain_names() {
    assert!(is_plain_name("a.b_c-1"));
    for bad in [".hidden", "a/b", "", "a b", &"x".repeat(65)] {
        assert!(!is_plain_name(bad), "{bad:?}");
    }
}

#[test]
fn errors_name_the_key_and_the_fix() {
    let error = error_of(&MINIMAL.replace("name = \"t\"", "name = \"t\"\ngames_per_pair = 3"));
    assert_eq!(
        error,
        "tournaments/t.toml: key `games_per_pair`: 3 games per pair; \
         use an even number from 2 up: each layout is played twice with seats swapped"
    );
    let error = error_of(&MINIMAL.replace(
        "name = \"t\"",
        "name = \"t\"\nformat = \"gauntlet\"\nchallenger = \"c\"",
    ));
    assert!(
        error.contains("key `challenger`: no bot is named \"c\"; use one of the bots' names: a, b"),
        "{error}"
    );
    let error = error_of(&MINIMAL.replace("name = \"b\"", "name = \"a\""));
    assert!(
        error.contains("key `bots[1].name`: the name a is used twice"),
        "{error}"
    );
    let error = error_of(&MINIMAL.replace("command = \"python3 a.py\"", "command = \"python3 'a.py\""));
    assert!(error.contains("key `bots[0].command`: bot a:"), "{error}");
    let error = error_of(&format!("{MINIMAL}\n[rules]\nblocks = [5, 6]\n"));
    assert!(
        error.contains("key `rules.blocks`: 6 blocks; use odd counts"),
        "{error}"
    );
    let error = error_of(&format!("{MINIMAL}\n[time]\nincrement_ms = 5\n"));
    assert!(error.contains("key `time.increment_ms`"), "{error}");
    let error = error_of(&format!(
        "{MINIMAL}\n[rules]\nplacement = \"fixed\"\nlayouts = [[\"a1\", \"a1\", \"b2\"]]\n"
    ));
    assert!(
        error.contains("key `rules.layouts[0]`: cell a1 is listed twice"),
        "{error}"
    );
}

#[test]
fn the_clock_kind_and_what_overload_does_are_read() {
    let file = parse_text(MINIMAL).unwrap();
    assert_eq!(file.tournament.time.clock, ClockKind::Wall);
    assert_eq!(file.settings.on_overload, OnOverload::Count);
    let text = MINIMAL.replace(
        "command = \"python3 a.py\"",
        "command = \"python3 a.py\"\n[bots.time]\nmove_ms = 100\nclock = \"wall\"",
    );
    let file = parse_text(&format!(
        "on_overload = \"replay\"\n{text}\n[time]\nmove_ms = 100\nclock = \"cpu\"\n"
    ))
    .unwrap();
    assert_eq!(file.tournament.time.clock, ClockKind::Cpu);
    assert_eq!(file.tournament.bots[0].time.unwrap().clock, ClockKind::Wall);
    assert_eq!(file.settings.on_overload, OnOverload::Replay);
    assert_eq!(file.settings.affinity, None);
    assert_eq!(
        parse_text(&format!("affinity = true\n{MINIMAL}"))
            .unwrap()
            .settings
            .affinity,
        Some(true)
    );
    let error = error_of(&format!("{MINIMAL}\n[time]\nclock = \"thread\"\n"));
    assert!(
        error.contains("key `time.clock`: \"thread\" is not a kind of clock; use \"wall\""),
        "{error}"
    );
    let error = error_of(&format!("on_overload = \"ignore\"\n{MINIMAL}"));
    assert!(error.contains("key `on_overload`"), "{error}");
}

#[test]
fn a_bot_may_have_its_own_time_control() {
    let text = MINIMAL.replace(
        "command = \"python3 a.py\"",
        "command = \"python3 a.py\"\n[bots.time]\nbase_ms = 4000\nincrement_ms = 50",
    );
    let t = parse_text(&format!("{text}\n[time]\nmove_ms = 500\nmargin_ms = 30\n"))
        .unwrap()
        .tournament;
    let own = TimeControl {
        move_ms: None,
        base_ms: Some(4000),
        increment_ms: 50,
        margin_ms: DEFAULT_MARGIN_MS,
        clock: ClockKind::Wall,
    };
    assert_eq!(
        t.bots[0].time,
        Some(own),
        "keys it leaves out take [time]'s defaults, not its values"
    );
    assert_eq!(t.bots[1].time, None);
    assert_eq!((t.time_of("a"), t.time_of("b")), (own, t.time));
    assert_eq!(t.time.move_ms, Some(500));

    let text = MINIMAL.replace("builtin = \"heuristic\"", "builtin = \"heuristic\"\n[bots.time]\n");
    assert_eq!(
        parse_text(&text).unwrap().tournament.bots[1]
            .time
            .map(|time| time.move_ms),
        Some(Some(DEFAULT_MOVE_MS))
    );
    let error = error_of(&MINIMAL.replace(
        "builtin = \"heuristic\"",
        "builtin = \"heuristic\"\n[bots.time]\nincrement_ms = 5",
    ));
    assert_eq!(
        error,
        "tournaments/t.toml: key `bots[1].time.increment_ms`: bot b: an increment without a Fischer clock; \
         add `base_ms` (the clock's starting time) or remove `increment_ms`"
    );
    let error = error_of(&MINIMAL.replace(
        "builtin = \"heuristic\"",
        "builtin = \"heuristic\"\n[bots.time]\nmove_ms = 0",
    ));
    assert!(error.contains("key `bots[1].time`: bot b: a limit of 0 ms"), "{error}");
    for key in ["move_ms", "base_ms", "margin_ms"] {
        let error = error_of(&format!("{MINIMAL}\n[time]\n{key} = {}\n", u64::MAX));
        assert!(
            error.contains(&format!("key `time.{key}`: {} ms is longer than a day", u64::MAX)),
            "{error}"
        );
    }
    let day = format!("{MINIMAL}\n[time]\nbase_ms = {MAX_TIME_MS}\nincrement_ms = {MAX_TIME_MS}\n");
    assert_eq!(parse_text(&day).unwrap().tournament.time.base_ms, Some(MAX_TIME_MS));
    let error = error_of(&MINIMAL.replace(
        "builtin = \"heuristic\"",
        "builtin = \"heuristic\"\n[bots.time]\npause_idle = true",
    ));
    assert!(error.contains("unknown field `pause_idle`"), "{error}");
}

#[test]
fn fair_mode_is_off_unless_asked_for() {
    assert!(!parse_text(MINIMAL).unwrap().tournament.pause_idle);
    let fair = MINIMAL.replace("name = \"t\"", "name = \"t\"\npause_idle = true");
    assert!(parse_text(&fair).unwrap().tournament.pause_idle);
}

#[test]
fn fixed_and_players_placements() {
    let file = parse_text(&format!(
        "{MINIMAL}\n[rules]\nplacement = \"fixed\"\npie = false\nlayouts = [[\"a1\", \"d4\", \"g7\"]]\n"
    ))
    .unwrap();
    let rules = &file.tournament.rules;
    assert!(!rules.pie);
    assert!(matches!(rules.blocks, BlockSource::Fixed { .. }), "{:?}", rules.blocks);
    let file = parse_text(&format!("{MINIMAL}\n[rules]\nplacement = \"players\"\nblocks = [3]\n")).unwrap();
    assert_eq!(file.tournament.rules.blocks, BlockSource::Players { counts: vec![3] });
}

fn bundled(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tournaments")
        .join(name)
}

#[test]
fn every_bundled_tournament_file_is_valid() {
    let dir = bundled("");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "toml") {
            load(&path).unwrap_or_else(|error| panic!("{error}"));
            count += 1;
        }
    }
    assert!(count >= 3, "quickstart, reference and at least one more");
}

/// The reference file writes every default out; a file without those keys must resolve the same.
#[test]
fn the_reference_file_states_the_true_defaults() {
    let reference = load(&bundled("reference.toml")).unwrap();
    let text = std::fs::read_to_string(bundled("reference.toml")).unwrap();
    let bots = &text[text.find("\n[[bots]]").unwrap()..];
    let minimal = parse(&bundled("minimal.toml"), &format!("name = \"reference\"\n{bots}")).unwrap();
    assert_eq!(minimal.tournament, reference.tournament);
    assert_eq!(minimal.settings.restart, reference.settings.restart);
    assert_eq!(minimal.settings.out, reference.settings.out);
}

#[test]
fn the_resolved_tournament_round_trips_through_json() {
    let tournament = parse_text(MINIMAL).unwrap().tournament;
    let json = serde_json::to_string(&tournament).unwrap();
    assert_eq!(serde_json::from_str::<Tournament>(&json).unwrap(), tournament);
}

/// A book beside the tournament file, read relative to the file's folder, held whole in the tournament.
#[test]
fn an_opening_book_is_read_beside_the_file_and_checked_line_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let book = "# two openings\na1 d4 g7 | c6 keep d3\n| #a1 #b2 #c3 e5\n";
    std::fs::write(dir.path().join("book.txt"), book).unwrap();
    let file = dir.path().join("t.toml");
    let text = format!("{MINIMAL}\n[rules]\nopenings = \"book.txt\"\nopenings_order = \"shuffled\"\n");
    let read = parse(&file, &text).unwrap();
    let BlockSource::Book(crate::book::Openings {
        file: named,
        shuffled,
        openings,
    }) = &read.tournament.rules.blocks
    else {
        panic!("{:?}", read.tournament.rules.blocks);
    };
    assert_eq!((named.as_str(), *shuffled), ("book.txt", true));
    assert_eq!(openings.iter().map(|o| o.line).collect::<Vec<_>>(), [2, 3]);

    // A faulty line is refused with the key, the line's number and why.
    std::fs::write(dir.path().join("book.txt"), "a1 d4 g7 | c6\na1 d4 g7 | d4\n").unwrap();
    let said = parse(&file, &text).unwrap_err().to_string();
    assert!(
        said.contains("rules.openings") && said.contains("book.txt: line 2"),
        "{said}"
    );
    assert!(said.contains("ply 1 (d4)"), "{said}");
    // The keys a book replaces, an unknown order, a missing or empty book.
    let with = |extra: &str| {
        parse(&file, &format!("{MINIMAL}\n[rules]\nopenings = \"book.txt\"\n{extra}"))
            .unwrap_err()
            .to_string()
    };
    assert!(with("placement = \"fixed\"\n").contains("rules.placement"));
    assert!(with("openings_order = \"random\"\n").contains("\"random\" is not an order"));
    std::fs::write(dir.path().join("book.txt"), "# nothing\n").unwrap();
    assert!(with("").contains("has no opening"));
    std::fs::remove_file(dir.path().join("book.txt")).unwrap();
    assert!(with("").contains("cannot read the book \"book.txt\""));
    let said = error_of(&format!("{MINIMAL}\n[rules]\nopenings_order = \"sequence\"\n"));
    assert!(said.contains("rules.openings_order"), "{said}");
}

/// A Swiss names its rounds, and the keys it does not play by are refused by name, each with why.
#[test]
fn a_swiss_has_rounds_and_refuses_the_keys_it_does_not_play_by() {
    let swiss = MINIMAL.replace("name = \"t\"", "name = \"t\"\nformat = \"swiss\"\nrounds = 5");
    let file = parse_text(&swiss).unwrap();
    assert_eq!(file.tournament.format, Format::Swiss { rounds: 5 });
    assert!(file.tournament.format.is_paired_as_played());
    for (text, key) in [
        (
            MINIMAL.replace("name = \"t\"", "name = \"t\"\nformat = \"swiss\""),
            "rounds",
        ),
        (swiss.replace("rounds = 5", "rounds = 0"), "rounds"),
        (swiss.replace("rounds = 5", "rounds = 65"), "rounds"),
        (MINIMAL.replace("name = \"t\"", "name = \"t\"\nrounds = 5"), "rounds"),
        (
            swiss.replace("rounds = 5", "rounds = 5\ngames_per_pair = 4"),
            "games_per_pair",
        ),
        (
            format!("{swiss}\n[[bots]]\nname = \"c\"\nbuiltin = \"heuristic\"\n"),
            "bots[2]",
        ),
        (
            swiss.replace("rounds = 5", "rounds = 5\nchallenger = \"a\""),
            "challenger",
        ),
        (
            swiss.replace("rounds = 5", "rounds = 5\npause_idle = true"),
            "pause_idle",
        ),
        (format!("{swiss}\n[limits]\nping_ms = 5\n"), "limits"),
        (
            swiss.replace("rounds = 5", "rounds = 5\nsandbox = true\nmemory_mb = 64"),
            "memory_mb",
        ),
        (
            swiss.replace(
                "command = \"python3 a.py\"",
                "command = \"python3 a.py\"\n[bots.time]\nmove_ms = 5",
            ),
            "bots[0].time",
        ),
        (
            swiss.replace(
                "command = \"python3 a.py\"",
                "command = \"python3 a.py\"\nenv = { A = \"1\" }",
            ),
            "bots[0].env",
        ),
        (
            swiss.replace("builtin = \"heuristic\"", "builtin = \"heuristic\"\nsandbox = true"),
            "bots[1].sandbox",
        ),
    ] {
        let error = error_of(&text);
        assert!(error.contains(&format!("key `{key}`")), "{key}: {error}");
    }
    let error = error_of(&MINIMAL.replace("name = \"t\"", "name = \"t\"\nformat = \"knockout-ish\""));
    assert!(error.contains("\"swiss\""), "{error}");
}

/// A knockout's keys: its defaults, its refusals by name.
#[test]
fn a_knockout_has_its_pairs_and_its_seeding() {
    let knockout = MINIMAL.replace("name = \"t\"", "name = \"t\"\nformat = \"knockout\"");
    assert_eq!(
        parse_text(&knockout).unwrap().tournament.format,
        Format::Knockout {
            pairs: DEFAULT_KNOCKOUT_PAIRS,
            max_pairs: DEFAULT_KNOCKOUT_MAX_PAIRS,
            seeds_from: None
        }
    );
    let seeded = knockout.replace(
        "format = \"knockout\"",
        "format = \"knockout\"\npairs = 4\nseeds_from = \"old.jsonl\"",
    );
    assert_eq!(
        parse_text(&seeded).unwrap().tournament.format,
        Format::Knockout {
            pairs: 4,
            max_pairs: 4,
            seeds_from: Some("old.jsonl".to_owned())
        },
        "max_pairs is at least pairs"
    );
    for (text, key) in [
        (
            knockout.replace("format = \"knockout\"", "format = \"knockout\"\npairs = 0"),
            "pairs",
        ),
        (
            knockout.replace(
                "format = \"knockout\"",
                "format = \"knockout\"\npairs = 3\nmax_pairs = 2",
            ),
            "max_pairs",
        ),
        (
            knockout.replace("format = \"knockout\"", "format = \"knockout\"\nrounds = 3"),
            "rounds",
        ),
        (
            knockout.replace("format = \"knockout\"", "format = \"knockout\"\ngames_per_pair = 4"),
            "games_per_pair",
        ),
        (MINIMAL.replace("name = \"t\"", "name = \"t\"\npairs = 2"), "pairs"),
        (
            MINIMAL.replace("name = \"t\"", "name = \"t\"\nseeds_from = \"x\""),
            "seeds_from",
        ),
    ] {
        let error = error_of(&text);
        assert!(error.contains(&format!("key `{key}`")), "{key}: {error}");
    }
}

/// `adjudicate` is off unless the file says "decided"; off, it is left out of the tournament's JSON, so that
/// a file without it keeps its hash; a rule it does not know is refused by the key's name.
#[test]
fn adjudication_is_off_by_default_and_out_of_the_hash() {
    let off = parse_text(MINIMAL).unwrap().tournament;
    assert_eq!(off.rules.adjudicate, None);
    assert!(!serde_json::to_string(&off).unwrap().contains("adjudicate"));
    let said_off = parse_text(&format!("{MINIMAL}\n[rules]\nadjudicate = \"off\"\n")).unwrap();
    assert_eq!(
        crate::config::tournament_hash(&said_off.tournament),
        crate::config::tournament_hash(&off)
    );
    let decided = parse_text(&format!("{MINIMAL}\n[rules]\nadjudicate = \"decided\"\n"))
        .unwrap()
        .tournament;
    assert_eq!(decided.rules.adjudicate, Some(pahtum_record::AdjudicationRule::Decided));
    let json = serde_json::to_string(&decided).unwrap();
    assert!(json.contains("\"adjudicate\":\"decided\""), "{json}");
    assert_eq!(serde_json::from_str::<Tournament>(&json).unwrap(), decided);
    let said = error_of(&format!("{MINIMAL}\n[rules]\nadjudicate = \"guess\"\n"));
    assert!(
        said.contains("rules.adjudicate") && said.contains("\"guess\" is not"),
        "{said}"
    );
}

/// `adjudicate = "solved"` solves from `solved_cells` free cells (16 unless given, 1 to 20), a key no other
/// rule takes.
#[test]
fn solved_adjudication_takes_its_free_cells() {
    let rules = |keys: &str| format!("{MINIMAL}\n[rules]\n{keys}\n");
    let solved = parse_text(&rules("adjudicate = \"solved\"")).unwrap().tournament;
    assert_eq!(
        solved.rules.adjudicate,
        Some(pahtum_record::AdjudicationRule::Solved { cells: 16 })
    );
    let twelve = parse_text(&rules("adjudicate = \"solved\"\nsolved_cells = 12"))
        .unwrap()
        .tournament;
    assert_eq!(
        twelve.rules.adjudicate,
        Some(pahtum_record::AdjudicationRule::Solved { cells: 12 })
    );
    let json = serde_json::to_string(&twelve).unwrap();
    assert!(json.contains("\"adjudicate\":{\"solved\":{\"cells\":12}}"), "{json}");
    for keys in [
        "adjudicate = \"solved\"\nsolved_cells = 21",
        "adjudicate = \"solved\"\nsolved_cells = 0",
        "adjudicate = \"decided\"\nsolved_cells = 12",
        "solved_cells = 12",
    ] {
        let said = error_of(&rules(keys));
        assert!(said.contains("key `rules.solved_cells`"), "{keys}: {said}");
    }
}
