//! A contest under load, for real (issue 38): fifty authors submit at once,
//! each from a thread of its own, to `arena contest serve` running as a child
//! process with one game at a time; every upload is queued (201), none is
//! lost, every submission ends admitted, and the ladder then plays on by
//! itself. Meanwhile, while the builds run and the ladder plays, the ladder's
//! page (`GET /`) and `GET /api/ladder` answer within a generous bound (debug
//! builds on two busy cores). The figures are printed (`--nocapture`);
//! `docs/performance.md` has those of a release build (`cargo test --release
//! -p arena --test contest_load -- --nocapture`). The whole test takes about
//! half a minute in a debug build on two cores.
//!
//! In the sandbox, from a private (0700) folder; skipped where the sandbox
//! cannot run, except with `CI=true`.

mod contesting;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use contesting::{
    Server, api, arena, bot_folder, invite_token, new_contest, private_folder, s, sandbox_runs, tar_gz, text,
};
use pahtum_testkit::wait_for;

/// The fewest requests timed: half to `/`, half to `/api/ladder`, one after the other.
const TIMED_REQUESTS: usize = 200;
/// The least time from one timed request's start to the next's.
const PACE: Duration = Duration::from_millis(50);

/// The bot.toml of every author's bot: the fixture bot, and a trivial build.
const BOT_TOML: &str = "name = \"x\"\ncommand = \"python3 bot.py first-free\"\nbuild = \"true\"\n";

/// The `q` quantile (0 to 1) of `sorted`, by the nearest rank.
fn quantile(sorted: &[Duration], q: f64) -> Duration {
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Latencies' p50, p99 and max, in words.
fn figures(name: &str, times: &mut [Duration]) -> String {
    times.sort();
    format!(
        "{name}: {} requests, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        times.len(),
        ms(quantile(times, 0.5)),
        ms(quantile(times, 0.99)),
        ms(*times.last().unwrap())
    )
}

/// `authors` authors, each with a token of `arena contest invite --token`, submit a bot at once; all are
/// queued, and all end `playing`; meanwhile the ladder's page and API are timed.
fn authors_submit_at_once(authors: usize) {
    if !sandbox_runs() {
        return;
    }
    let root = private_folder();
    let (contest, _) = new_contest(root.path(), "Load cup");
    // Two builders at once: their stagings, checks and joins must not get in each other's way.
    let settings = contest.join("contest.toml");
    let text_of = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(&settings, format!("{text_of}\n[limits]\nbuilders = 2\n")).unwrap();

    let invited = Instant::now();
    let mut uploads = Vec::with_capacity(authors);
    for number in 0..authors {
        let name = format!("author{number:02}");
        let token = invite_token(&contest, &name);
        uploads.push((token, tar_gz(&bot_folder(root.path(), &name, BOT_TOML, &[]))));
    }
    eprintln!("{authors} authors invited in {:.1} s", invited.elapsed().as_secs_f64());

    let server = Server::start(&contest, &["--concurrency", "1"]);
    let address = server.address().to_owned();
    let barrier = Arc::new(Barrier::new(authors));
    let threads: Vec<_> = uploads
        .into_iter()
        .map(|(token, upload)| {
            let (barrier, address) = (Arc::clone(&barrier), address.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let (status, body) = api(&address, "POST", "/api/submissions", &token, &upload);
                (token, status, body)
            })
        })
        .collect();
    let mut pending: BTreeMap<i64, String> = BTreeMap::new();
    for thread in threads {
        let (token, status, body) = thread.join().unwrap();
        assert_eq!(status, 201, "{body}");
        let id = serde_json::from_str::<serde_json::Value>(&body).unwrap()["id"]
            .as_i64()
            .unwrap();
        assert!(pending.insert(id, token).is_none(), "submission {id} given twice");
    }
    assert_eq!(pending.len(), authors);
    let submitted = Instant::now();

    // Until every submission has ended (and at least TIMED_REQUESTS were timed), the ladder's page and API
    // are timed in turns, a request every PACE at most, while the builds run and the ladder plays; every
    // half second the submissions not yet ended are looked at: none may be lost.
    let mut timed: [(&str, Vec<Duration>); 2] = [("GET /", Vec::new()), ("GET /api/ladder", Vec::new())];
    let mut ended: BTreeMap<i64, String> = BTreeMap::new();
    let mut all_ended = None;
    let mut last_look: Option<Instant> = None;
    let deadline = submitted + Duration::from_secs(1800);
    for index in 0.. {
        if all_ended.is_some() && index >= TIMED_REQUESTS {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "only {} of {authors} submissions ended within {:?}",
            ended.len(),
            deadline - submitted
        );
        let start = Instant::now();
        let path = if index % 2 == 0 { "/" } else { "/api/ladder" };
        let (status, body) = api(&address, "GET", path, "", b"");
        timed[index % 2].1.push(start.elapsed());
        assert_eq!(status, 200, "{path}: {body}");
        assert!(!body.is_empty(), "{path}");
        if all_ended.is_none() && last_look.is_none_or(|look| look.elapsed() >= Duration::from_millis(500)) {
            last_look = Some(Instant::now());
            for (id, token) in &pending {
                if ended.contains_key(id) {
                    continue;
                }
                let (status, body) = api(&address, "GET", &format!("/api/submissions/{id}"), token, b"");
                assert_eq!(status, 200, "{body}");
                let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
                if matches!(answer["state"].as_str(), Some("playing" | "failed" | "retired")) {
                    ended.insert(*id, body);
                }
            }
            if ended.len() == authors {
                all_ended = Some(submitted.elapsed());
            }
        }
        if let Some(rest) = PACE.checked_sub(start.elapsed()) {
            std::thread::sleep(rest);
        }
    }
    let all_ended = all_ended.unwrap();
    let (_, ladder) = api(&address, "GET", "/api/ladder", "", b"");
    let ladder: serde_json::Value = serde_json::from_str(&ladder).unwrap();
    let mut both: Vec<Duration> = timed.iter().flat_map(|(_, times)| times.iter().copied()).collect();
    let mut lines: Vec<String> = timed.iter_mut().map(|(name, times)| figures(name, times)).collect();
    lines.push(figures("both", &mut both));
    eprintln!(
        "timed over {:.1} s from the submissions on, the ladder at the end at {} entrants and {} games:\n  {}",
        submitted.elapsed().as_secs_f64(),
        ladder["rows"].as_array().map_or(0, Vec::len),
        ladder["games"],
        lines.join("\n  ")
    );
    let p99 = quantile(&both, 0.99);
    assert!(p99 < Duration::from_secs(1), "p99 {p99:?}: {}", lines.join("; "));

    let not_playing: Vec<&String> = ended
        .values()
        .filter(|body| !body.contains("\"state\":\"playing\""))
        .collect();
    eprintln!(
        "{authors} authors: every submission ended {:.1} s after they submitted at once, {} of them admitted",
        all_ended.as_secs_f64(),
        authors - not_playing.len()
    );
    // A submission refused with "its journal ... is locked" was built and checked, and then its join lost a
    // race: the ladder opens the league's journal again between turns while the builder forks processes,
    // and a child between its fork and its exec shares the journal's open file, so its lock.
    assert!(not_playing.is_empty(), "not admitted: {not_playing:#?}");
    let labels: BTreeSet<String> = ended
        .values()
        .map(|body| serde_json::from_str::<serde_json::Value>(body).unwrap()["label"].to_string())
        .collect();
    assert_eq!(labels.len(), authors, "{labels:?}");
    let ladder = wait_for("the ladder shows every entrant", Duration::from_secs(60), || {
        let (_, body) = api(&address, "GET", "/api/ladder", "", b"");
        let ladder: serde_json::Value = serde_json::from_str(&body).ok()?;
        (ladder["rows"].as_array()?.len() == authors).then_some(ladder)
    });
    eprintln!(
        "{authors} authors: the ladder showed them all {:.1} s after they submitted at once, at {} games",
        submitted.elapsed().as_secs_f64(),
        ladder["games"]
    );
    // The field is far from the league's precision: the ladder plays on by itself.
    let games = ladder["games"].as_u64().unwrap();
    wait_for("the ladder plays on", Duration::from_secs(120), || {
        let (_, body) = api(&address, "GET", "/api/ladder", "", b"");
        let ladder: serde_json::Value = serde_json::from_str(&body).ok()?;
        (ladder["games"].as_u64()? >= games + 2).then_some(())
    });
    drop(server);
    let verified = arena(&["verify", s(&contest.join("league"))]);
    assert!(verified.status.success(), "{}", text(&verified));
}

#[test]
fn fifty_authors_submit_at_once_and_the_ladder_answers_meanwhile() {
    authors_submit_at_once(50);
}
