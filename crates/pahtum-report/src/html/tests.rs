use std::convert::Infallible;

use pahtum::Seat;
use pahtum_protocol::Reason;
use pahtum_standings::standings::{Standings, standings};
use pahtum_tournament::testing::{forfeited, tournament};

use super::*;
use crate::fixtures::{played, scheduled};

const HOSTILE: &str = "</script><script>window.pwned=1</script><!-- <img src=x onerror=alert(1)> \u{2028}&amp;";

/// Games and their standings.
struct Results {
    records: Vec<GameRecord>,
    standings: Standings,
}

impl Results {
    fn of(records: Vec<GameRecord>) -> Results {
        let standings = standings(&records, &tournament().bot_names(), None).unwrap();
        Results { records, standings }
    }
}

/// The report of `results`' records in their order.
fn report(results: &Results, options: Options) -> String {
    report_of(results.records.iter(), &results.standings, options)
}

fn report_of<'a>(records: impl Iterator<Item = &'a GameRecord>, standings: &Standings, options: Options) -> String {
    let mut builder = ReportBuilder::new(options);
    for record in records {
        builder.add(record, ReplaySize::of(record), record);
    }
    let mut page = Vec::new();
    builder.finish("t", 6, standings, read_back, &mut page).unwrap();
    String::from_utf8(page).unwrap()
}

/// A record as JSON, as a journal holds it.
fn read_back(record: &GameRecord) -> Result<Vec<u8>, Infallible> {
    Ok(serde_json::to_vec(record).unwrap())
}

/// The page of one game.
fn game_page(record: &GameRecord) -> String {
    let mut page = Vec::new();
    write_game_page(record, None, &mut page).unwrap();
    String::from_utf8(page).unwrap()
}

/// Three games of the test tournament (bots a, b, c), one a forfeit whose evidence is hostile.
fn results() -> Results {
    let mut lost = forfeited(scheduled("001-00-a", "a", "c"), Seat::Second, Reason::IllegalMove);
    let forfeit = lost.termination.forfeit.as_mut().unwrap();
    forfeit.line = Some(HOSTILE.to_owned());
    forfeit.stderr_tail = vec![HOSTILE.to_owned()];
    lost.moves[0].timing.info.as_mut().unwrap().comment = Some(HOSTILE.to_owned());
    Results::of(vec![
        scheduled("000-00-a", "a", "b"),
        lost,
        scheduled("002-00-b", "c", "b"),
    ])
}

/// The embedded data of a page, parsed as the browser parses it.
fn embedded(page: &str) -> serde_json::Value {
    let start = page.find(r#"<script type="application/json" id="data">"#).unwrap();
    let json = &page[start..];
    let json = &json[json.find('>').unwrap() + 1..json.find("</script>").unwrap()];
    serde_json::from_str(json).unwrap()
}

#[test]
fn script_json_cannot_end_the_script_element() {
    let json = script_json(&HOSTILE);
    for needle in ["<", ">", "&", "\u{2028}"] {
        assert!(!json.contains(needle), "{needle:?} in {json}");
    }
    assert_eq!(
        serde_json::from_str::<String>(&json).unwrap(),
        HOSTILE,
        "the same text once parsed"
    );
}

#[test]
fn hostile_bot_text_is_data_and_never_markup() {
    let results = results();
    let page = report(&results, Options::default());
    assert_eq!(
        page.matches("</script>").count(),
        2,
        "only the page's own two script elements end"
    );
    assert!(!page.contains("<img"), "no markup from a bot");
    assert!(
        !page.contains("window.pwned=1</"),
        "no bot text outside the escaped data"
    );
    let data = embedded(&page);
    let replay = &data["replays"]["001-00-a"];
    assert_eq!(replay["forfeits"][0]["line"], HOSTILE);
    assert_eq!(replay["forfeits"][0]["stderr_tail"][0], HOSTILE);
    assert_eq!(
        data["comments"][replay["info"]["0"]["c"].as_u64().unwrap() as usize],
        HOSTILE
    );
}

#[test]
fn the_data_holds_every_game_by_id_with_its_replay() {
    let results = results();
    let data = embedded(&report(&results, Options::default()));
    let ids: Vec<&str> = data["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["000-00-a", "001-00-a", "002-00-b"]);
    let record = &results.records[0];
    let game = &data["games"][0];
    assert_eq!(
        game["score"],
        serde_json::json!([record.score.white, record.score.black])
    );
    assert_eq!(game["reason"], "normal");
    assert_eq!(data["games"][1]["forfeited"], serde_json::json!(["c"]));
    assert_eq!(
        data["replays"]["000-00-a"]["cells"].as_str().unwrap().len(),
        2 * record.moves.len()
    );
    let blocks: String = record.blocks.iter().map(ToString::to_string).collect();
    assert_eq!(data["replays"]["000-00-a"]["blocks"], blocks);
}

#[test]
fn a_bounded_report_keeps_the_forfeits_and_says_so() {
    let results = results();
    let page = report(
        &results,
        Options {
            max_replays: 1,
            ..Options::default()
        },
    );
    let data = embedded(&page);
    let replays: Vec<&String> = data["replays"].as_object().unwrap().keys().collect();
    assert_eq!(replays, ["001-00-a"], "the forfeit, and nothing beyond the bound");
    assert!(
        page.contains("The replays of 1 of the 3 games are embedded"),
        "the page says so"
    );
    assert!(!report(&results, Options::default()).contains("are embedded"));
}

#[test]
fn a_byte_budget_bounds_the_replays_and_keeps_the_first_forfeit() {
    let results = results();
    let options = Options {
        replay_bytes: 1,
        ..Options::default()
    };
    let page = report(&results, options);
    let replays: Vec<String> = embedded(&page)["replays"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(
        replays,
        ["001-00-a"],
        "the forfeit only: the first other replay is beyond the budget"
    );
    assert!(page.contains("The replays of 1 of the 3 games are embedded"));
}

#[test]
fn comments_are_kept_once_and_moves_point_to_them() {
    let results = results();
    let data = embedded(&report(&results, Options::default()));
    // The forfeit's replay is embedded first, so its comment comes first.
    assert_eq!(data["comments"], serde_json::json!([HOSTILE, "first free"]));
    assert_eq!(data["replays"]["001-00-a"]["info"]["0"], serde_json::json!({ "c": 0 }));
    assert_eq!(data["replays"]["000-00-a"]["info"]["0"], serde_json::json!({ "c": 1 }));
    assert_eq!(data["replays"]["001-00-a"]["info"]["1"], serde_json::json!({ "c": 1 }));
}

#[test]
fn a_game_page_is_the_viewer_alone() {
    let page = game_page(&played("game", "a", "b"));
    assert!(!page.contains(r#"id="standings""#) && !page.contains(r#"id="games""#));
    assert!(page.contains(r#"id="viewer""#));
    assert_eq!(embedded(&page)["games"].as_array().unwrap().len(), 1);
}

/// The page's structure: its elements and their ids and classes, one per line, indented by depth, without the
/// style, the script and the data; a run of equal siblings as one line with its count.
pub(crate) fn structure(page: &str) -> String {
    let mut lines: Vec<(String, usize)> = Vec::new();
    for line in elements(page).lines() {
        match lines.last_mut() {
            Some((last, count)) if last == line => *count += 1,
            _ => lines.push((line.to_owned(), 1)),
        }
    }
    let counted = lines.into_iter().map(|(line, count)| match count {
        1 => line,
        _ => format!("{line} x{count}"),
    });
    counted.collect::<Vec<_>>().join("\n") + "\n"
}

fn elements(page: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut rest = page;
    const VOID: [&str; 4] = ["meta", "input", "br", "img"];
    while let Some(start) = rest.find('<') {
        rest = &rest[start + 1..];
        let end = rest.find('>').unwrap();
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.starts_with('/') {
            depth = depth.saturating_sub(1);
            continue;
        }
        if tag.starts_with('!') {
            continue;
        }
        let name = tag.split_whitespace().next().unwrap_or_default();
        let attribute = |key: &str| {
            tag.split(&format!(" {key}=\""))
                .nth(1)
                .map(|value| value.split('"').next().unwrap_or_default())
        };
        let mut line = format!("{}{name}", "  ".repeat(depth));
        if let Some(id) = attribute("id") {
            line.push_str(&format!("#{id}"));
        }
        if let Some(class) = attribute("class") {
            line.push_str(&format!(".{}", class.replace(' ', ".")));
        }
        out.push_str(&line);
        out.push('\n');
        if ["style", "script"].contains(&name) {
            let close = format!("</{name}>");
            rest = &rest[rest.find(&close).unwrap() + close.len()..];
            continue;
        }
        if !VOID.contains(&name) {
            depth += 1;
        }
    }
    out
}

#[test]
fn the_structure_of_a_report() {
    let results = results();
    insta::assert_snapshot!(structure(&report(&results, Options::default())));
}

/// Sixty games between a, b and c, every seventh (nine in all) a forfeit.
fn long_run() -> Results {
    let bots = ["a", "b", "c"];
    Results::of(
        (0..60)
            .map(|n| {
                let game = played(&format!("{n:03}-00-a"), bots[n % 3], bots[(n + 1) % 3]);
                if n % 7 == 0 {
                    forfeited(game, Seat::First, Reason::Timeout)
                } else {
                    game
                }
            })
            .collect(),
    )
}

fn ids(data: &serde_json::Value) -> (Vec<String>, Vec<String>) {
    let listed = data["games"].as_array().unwrap().iter();
    let replays = data["replays"].as_object().unwrap().keys().cloned().collect();
    (
        listed.map(|game| game["id"].as_str().unwrap().to_owned()).collect(),
        replays,
    )
}

#[test]
fn the_page_does_not_depend_on_the_order_of_the_records() {
    let results = long_run();
    let by_shard = || {
        results
            .records
            .iter()
            .step_by(2)
            .chain(results.records.iter().skip(1).step_by(2))
    };
    for options in [
        Options::default(),
        Options {
            max_replays: 20,
            replay_bytes: 6_000,
            max_listed: 30,
            bare: false,
        },
    ] {
        let page = report(&results, options);
        assert_eq!(
            page,
            report_of(results.records.iter().rev(), &results.standings, options)
        );
        assert_eq!(page, report_of(by_shard(), &results.standings, options), "{options:?}");
    }
}

#[test]
fn a_long_run_lists_a_sample_with_every_replay_and_says_so() {
    let results = long_run();
    let options = Options {
        max_replays: 12,
        replay_bytes: usize::MAX,
        max_listed: 20,
        bare: false,
    };
    let page = report(&results, options);
    let data = embedded(&page);
    assert_eq!(data["played"], 60);
    let (listed, replays) = ids(&data);
    assert_eq!(listed.len(), 9 + 20, "every forfeit and twenty other games");
    assert_eq!(replays.len(), 12, "the nine forfeits and three other games");
    assert!(
        replays.iter().all(|id| listed.contains(id)),
        "{replays:?} not all in {listed:?}"
    );
    let forfeits: Vec<String> = (0..60).step_by(7).map(|n| format!("{n:03}-00-a")).collect();
    assert!(forfeits.iter().all(|id| replays.contains(id)));
    assert!(page.contains("The replays of 12 of the 60 games are embedded: every forfeit, and a sample"));
    assert!(page.contains("The list holds 29 of the 60 games: every forfeit, and a sample"));
}

#[test]
fn forfeits_beyond_the_bound_are_sampled_too() {
    let results = long_run();
    let is_forfeit = |id: &String| id[..3].parse::<usize>().unwrap() % 7 == 0;
    let options = Options {
        max_replays: 4,
        replay_bytes: usize::MAX,
        max_listed: 6,
        bare: false,
    };
    let page = report(&results, options);
    let (listed, replays) = ids(&embedded(&page));
    assert_eq!(listed.len(), 6 + 6);
    assert_eq!(
        replays.len(),
        6,
        "forfeits beyond the bound of replays, not beyond the list's"
    );
    assert!(replays.iter().all(is_forfeit));
    assert!(
        page.contains("The replays of 6 of the 60 games are embedded: 6 of the 9 forfeits and 0 other games"),
        "the page says so"
    );
    assert!(page.contains("The list holds 12 of the 60 games: a sample of the 9 forfeits"));

    // The byte budget bounds the forfeits' replays too, and leaves nothing to the other games.
    let one_replay = embedded(&report(&results, Options::default()))["replays"]["000-00-a"]
        .to_string()
        .len();
    let options = Options {
        replay_bytes: 2 * one_replay,
        ..Options::default()
    };
    let (_, replays) = ids(&embedded(&report(&results, options)));
    assert!((2..=3).contains(&replays.len()), "{replays:?}");
    assert!(replays.iter().all(is_forfeit));
}

#[test]
fn the_report_keeps_no_more_games_than_its_bounds_however_many_are_added() {
    let options = Options {
        max_replays: 4,
        replay_bytes: usize::MAX,
        max_listed: 6,
        bare: false,
    };
    let bots = ["a", "b", "c"];
    let mut builder = ReportBuilder::new(options);
    let record = played("000-00-a", "a", "b");
    for n in 0..3_000 {
        let mut game = record.clone();
        game.id = format!("{:03}-{:02}-a", n % 1000, n / 1000);
        game.players.first = bots[n % 3].to_owned();
        if n % 5 == 0 {
            game = forfeited(game, Seat::First, Reason::Timeout);
        }
        // Where the game lies is all the report keeps of it: here, its number.
        builder.add(&game, ReplaySize::of(&game), n);
        // The forfeits listed and the other games listed, six of each; the replays are among them.
        assert!(builder.kept() <= 2 * 6, "{} games kept after {n}", builder.kept());
    }
}

#[test]
fn a_record_read_back_that_is_not_the_sampled_game_fails() {
    let results = results();
    let mut builder = ReportBuilder::new(Options::default());
    for (n, record) in results.records.iter().enumerate() {
        builder.add(record, ReplaySize::of(record), n);
    }
    // The journal changed under the report: every place now holds the first game.
    let error = builder
        .finish(
            "t",
            6,
            &results.standings,
            |_| read_back(&results.records[0]),
            &mut Vec::new(),
        )
        .unwrap_err();
    assert!(matches!(error, PageError::Moved { .. }), "{error}");
}

#[test]
fn the_analyses_beside_a_journal_reach_the_replays_and_the_tables_escaped_and_only_of_their_record() {
    use pahtum_record::annotations::{Grade, Losing, record_hash};

    use crate::html::analysis::AnalysisIndex;
    use crate::html::analysis::tests::analysis_of;

    // Bots with hostile names: their names reach the tables of the analysis.
    let games = [
        crate::fixtures::played("000-00-a", HOSTILE, "b"),
        crate::fixtures::played("001-00-a", "b", HOSTILE),
    ];
    let losing = Losing {
        white: Some(9),
        black: None,
    };
    let mut stale = analysis_of(&games[1], &[], losing);
    stale.record = "sha256:another".to_owned();
    let lines = [
        analysis_of(&games[0], &[(3, Grade::Blunder)], Losing::default()),
        analysis_of(&games[0], &[(5, Grade::Mistake)], losing),
        stale,
    ];
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("analysis.jsonl");
    let text: String = lines
        .iter()
        .map(|line| serde_json::to_string(line).unwrap() + "\n")
        .collect();
    std::fs::write(&file, text).unwrap();

    let standings = standings(&games, &[HOSTILE.to_owned(), "b".to_owned()], None).unwrap();
    let mut builder = ReportBuilder::new(Options::default()).with_analyses(AnalysisIndex::open(&file).unwrap());
    for game in &games {
        let hash = record_hash(game);
        builder.add_hashed(game, ReplaySize::of(game), game, Some(&hash));
    }
    let mut page = Vec::new();
    builder.finish("t", 2, &standings, read_back, &mut page).unwrap();
    let page = String::from_utf8(page).unwrap();

    assert_eq!(
        page.matches("</script>").count(),
        2,
        "only the page's own two script elements end"
    );
    assert!(!page.contains("<img"), "no markup from a bot");
    let data = embedded(&page);
    // The last line of the record's hash: its mistake at ply 5, not the blunder of the line before.
    let plies = &data["replays"]["000-00-a"]["analysis"]["plies"];
    assert_eq!((plies[2].get("g"), &plies[4]["g"]), (None, &serde_json::json!("?")));
    assert!(
        data["replays"]["001-00-a"].get("analysis").is_none(),
        "the analysis of another record is not used"
    );
    assert!(
        page.contains(r##"<a href="#game=000-00-a&amp;ply=9">000-00-a</a>"##),
        "the losing move, linked"
    );
    assert!(page.contains(r#"<section id="analysis">"#));
}

#[test]
fn a_bare_page_has_the_same_tables_without_the_style_and_the_viewer() {
    let results = results();
    let whole = report(&results, Options::default());
    let bare = report(
        &results,
        Options {
            bare: true,
            ..Options::default()
        },
    );
    let section = |page: &str| {
        let start = page.find("<section id=\"standings\"").expect("the standings");
        let end = start + page[start..].find("</section>").unwrap();
        page[start..end].to_owned()
    };
    assert_eq!(section(&bare), section(&whole));
    assert!(whole.contains(SCRIPT) && whole.contains(STYLE));
    assert!(!bare.contains(SCRIPT) && !bare.contains(STYLE));
    assert!(bare.len() * 2 < whole.len(), "{} bytes of {}", bare.len(), whole.len());
}

#[test]
fn a_hostile_entrant_name_shows_escaped_in_the_league_sections() {
    use pahtum_league::Entrant;
    use pahtum_league::history::{Checkpoint, History};
    use pahtum_league::table::{Change, Row, Table};
    use pahtum_standings::strength::BotRating;

    let name = format!("<img src=x onerror=alert(1)>\u{7}{HOSTILE}");
    let label = |version: &str| format!("{name}@{version}");
    let entrant = |version: &str| Entrant {
        name: name.clone(),
        version: version.to_owned(),
        hash: format!("sha256:{:064}", 0),
        command: vec!["first-free".to_owned()],
        build: None,
        joined_unix_ms: 0,
    };
    let row = |version: &str, elo: f64| Row {
        entrant: label(version),
        hash: format!("sha256:{:064}", 0),
        games: 2,
        score_pct: Some(50.0),
        elo: Some(elo),
        lower: Some(elo - 50.0),
        upper: Some(elo + 50.0),
        settled: false,
    };
    let rating = |version: &str, elo: f64| BotRating {
        rank: 1,
        bot: label(version),
        games: 2,
        points: 1.0,
        elo,
        lower: elo - 50.0,
        upper: elo + 50.0,
        std_error: 25.0,
        los_next: None,
    };
    let table = Table {
        league: name.clone(),
        games: 4,
        rounds: 2,
        precision_elo: 50,
        separate: None,
        active: vec![row("2", 10.0)],
        retired: vec![row("1", -10.0)],
        versions: vec![Change {
            bot: name.clone(),
            from: label("1"),
            to: label("2"),
            elo: Some(20.0),
            error95: Some(70.0),
            los: Some(0.7),
        }],
        standings: standings(&[], &[label("1"), label("2")], None).unwrap(),
        swiss: Some(pahtum_league::swiss::Standings {
            rule: pahtum_league::rules::Swiss { rounds: 3 },
            rows: vec![pahtum_league::swiss::Standing {
                rank: 1,
                entrant: label("2"),
                score: 2.0,
                byes: 0,
                buchholz: 1.0,
                sonneborn_berger: 1.0,
            }],
        }),
        knockout: Some(pahtum_league::knockout::Bracket {
            rule: pahtum_league::rules::Knockout {
                pairs: 1,
                max_pairs: 3,
                seeds: vec![label("2"), label("1")],
            },
            stages: vec![vec![pahtum_league::knockout::Match {
                upper: pahtum_league::knockout::Side {
                    seed: 1,
                    entrant: label("2"),
                    points: 2.0,
                },
                lower: Some(pahtum_league::knockout::Side {
                    seed: 2,
                    entrant: label("1"),
                    points: 0.0,
                }),
                pairs: 1,
                games: 2,
                winner: Some(label("2")),
                decision: Some(pahtum_league::knockout::Decision::Points),
            }]],
            champion: Some(label("2")),
            waiting: Vec::new(),
        }),
    };
    let history = History {
        stride: 1,
        points: vec![
            Checkpoint {
                round: 1,
                games: 2,
                ratings: vec![rating("1", 0.0)],
            },
            Checkpoint {
                round: 2,
                games: 4,
                ratings: vec![rating("2", 10.0), rating("1", -10.0)],
            },
        ],
    };
    let league = league::LeaguePage::of(&table, &[entrant("1"), entrant("2")], &history);
    let mut page = Vec::new();
    ReportBuilder::<&GameRecord>::new(Options::default())
        .finish_league(&league, 0, &table.standings, read_back, &mut page)
        .unwrap();
    let page = String::from_utf8(page).unwrap();
    let sections = &page[page.find("<section id=\"ladder\">").unwrap()..page.find("<section id=\"games\">").unwrap()];
    assert!(!page.contains("<img"), "no markup from an entrant's name");
    assert_eq!(
        page.matches("</script>").count(),
        2,
        "only the page's own two script elements end"
    );
    assert!(
        !sections.contains('\u{7}') && !sections.contains('\u{2028}'),
        "no raw control character in the league's sections"
    );
    let escaped = "&lt;img src=x onerror=alert(1)&gt;\\x07&lt;&#x2f;script&gt;";
    // In the Swiss's standings, the ladder's rows, the version's change, the versions' chart, the history's
    // legend and its points.
    let swiss = &sections[sections.find("<table class=\"swiss\">").expect("the Swiss's standings")..];
    let cell = &swiss[swiss.find("<td class=\"name\">").unwrap() + "<td class=\"name\">".len()..];
    assert!(
        cell.starts_with(escaped),
        "the Swiss's standings: {}",
        &cell[..120.min(cell.len())]
    );
    let bracket = &sections[sections
        .find("<table class=\"bracket\">")
        .expect("the knockout's bracket")..];
    let bracket = &bracket[..bracket.find("</table>").unwrap()];
    assert_eq!(bracket.matches(&format!("(1) {escaped}")).count(), 1, "{bracket}");
    assert_eq!(
        bracket.matches(&format!("<td class=\"name\">{escaped}")).count(),
        1,
        "the winner: {bracket}"
    );
    for part in [
        "<td class=\"name\">",
        "<p class=\"change\">",
        "<span class=\"chart-bot\">",
        "<span class=\"swatch\"",
        "<title>",
        "<h3 class=\"name\">",
    ] {
        let at = sections.find(part).unwrap_or_else(|| panic!("no {part}"));
        let text = &sections[at..];
        let text = &text[text.find('>').unwrap() + 1..];
        assert!(text.starts_with(escaped), "{part}: {}", &text[..120.min(text.len())]);
    }
    assert!(page.contains(&format!("<title>{escaped}")), "the page's title too");
}

/// What the sample keeps of a game stays small: at 10,000 listed games each byte is 10 KB of the report's
/// peak memory (a journal's span, the replay's size, and the analysis's span or none in the room of one).
#[test]
fn a_kept_game_takes_forty_bytes() {
    assert_eq!(std::mem::size_of::<Kept<pahtum_journal::Span>>(), 40);
    assert_eq!(std::mem::size_of::<Option<analysis::Span>>(), 16);
}
