//! A contest's final played on a cluster, the server submitting each round as
//! a job array of shards, checking every shard's journal and merging it into
//! the final's: on a real Slurm, a one-node cluster on localhost
//! (`deploy/slurm/local-cluster.sh`), and on Kubernetes through a stand-in
//! `kubectl` (`fixtures/kubectl-standin.py`) that runs each Indexed Job's pods
//! on this machine from the manifest the server wrote. On each:
//!
//! * the ladder plays on the cluster too (on Kubernetes; on Slurm, whose
//!   queue is slower, it plays on the server's machine);
//! * one task of the first round fails while it waits (cancelled with
//!   `scancel`; its pod evicted): it is submitted again and nothing is lost;
//! * the first shard to finish writes a tampered record (its `arena` is a
//!   wrapper that edits one game's result afterwards, once): it is refused,
//!   named by its task, and its games are played again;
//! * the merged journal verifies, holds every game once, and equals, record
//!   for record (each game's players, stones and result), the final played
//!   on one machine from the same rules and finalists.
//!
//! Needs the sandbox, and for Slurm root, Slurm and munge (CI installs them);
//! skipped where they are missing, failed under `CI=true`.

mod contesting;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use contesting::{
    ARENA, Server, arena, bearer, body_of, bot_folder, invite_token, new_contest, private_folder, request, s,
    sandbox_runs, text,
};
use pahtum_testkit::wait_until;

/// How long a request waits for its answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);

/// How long the final may take on the cluster (each round waits a few seconds in the queue).
const FINAL_WITHIN: Duration = Duration::from_secs(600);

/// A one-node Slurm cluster on localhost, stopped when dropped.
struct LocalCluster {
    work: tempfile::TempDir,
}

impl LocalCluster {
    fn start() -> LocalCluster {
        let work = tempfile::tempdir().unwrap();
        let started = Command::new(repo("deploy/slurm/local-cluster.sh"))
            .args(["start", s(work.path())])
            .output()
            .unwrap();
        assert!(started.status.success(), "{}", text(&started));
        LocalCluster { work }
    }

    fn conf(&self) -> PathBuf {
        self.work.path().join("slurm.conf")
    }
}

impl Drop for LocalCluster {
    fn drop(&mut self) {
        let _ = Command::new(repo("deploy/slurm/local-cluster.sh"))
            .args(["stop", s(self.work.path())])
            .status();
    }
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

/// Whether Slurm and munge are here (as root).
fn slurm_here() -> bool {
    let present = ["slurmctld", "slurmd", "munged", "sbatch", "squeue", "scancel"]
        .iter()
        .all(|tool| {
            Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .output()
                .is_ok_and(|o| o.status.success())
        });
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0"));
    pahtum_testkit::require(
        "Slurm and munge, as root",
        present && root,
        "slurm-wlm and munge are not installed",
    )
}

/// `GET path` with `token`: the status and the answer's body.
fn get(server: &Server, path: &str, token: &str) -> (u16, String) {
    let (status, answer) = request(server.address(), "GET", path, &[&bearer(token)], b"", ANSWER_WITHIN);
    (status, body_of(&answer))
}

/// An RFC 3339 instant `seconds` from now, in UTC.
fn instant(seconds: i64) -> String {
    let at = jiff::Timestamp::now() + jiff::SignedDuration::from_secs(seconds);
    at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Each game of the league journal `text` by id: its players by seat, its stones and its result.
fn games_of(text: &str) -> BTreeMap<String, (String, String, Vec<String>, String)> {
    text.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|line| line.get("id").is_some())
        .map(|game| {
            let cells = game["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["cell"].to_string())
                .collect();
            let value = |key: &str| game[key].to_string();
            (
                game["id"].as_str().unwrap().to_owned(),
                (value("players"), value("blocks"), cells, value("result")),
            )
        })
        .collect()
}

/// The `arena` wrapper the cluster's tasks run: the real one, then, for the first shard of the final that
/// played a game, once (the marker `tampered`, made with `mkdir`, which only one of the tasks that end at once
/// can make), one game's result changed.
fn tampering_wrapper(root: &Path) -> PathBuf {
    let mark = root.join("tampered");
    let wrapper = root.join("arena-wrapper.sh");
    let script = format!(
        "#!/bin/sh\n\"{ARENA}\" \"$@\"\nstatus=$?\nshard=$3\n\
         case \"$shard\" in */cluster/final/*) ;; *) exit $status ;; esac\n\
         if grep -q '\"id\"' \"$shard/journal.jsonl\" && mkdir '{mark}' 2>/dev/null; then\n\
         python3 - \"$shard/journal.jsonl\" <<'EOF'\n\
         import json, sys\n\
         path = sys.argv[1]\n\
         lines = open(path).read().splitlines()\n\
         at = max(i for i, line in enumerate(lines) if '\"id\"' in line)\n\
         game = json.loads(lines[at])\n\
         game['result'] = {{'white': 'black', 'black': 'white', 'draw': 'white'}}[game['result']]\n\
         lines[at] = json.dumps(game, separators=(',', ':'))\n\
         open(path, 'w').write('\\n'.join(lines) + '\\n')\n\
         EOF\n\
         fi\n\
         exit $status\n",
        mark = mark.display()
    );
    std::fs::write(&wrapper, script).unwrap();
    let mut permissions = std::fs::metadata(&wrapper).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&wrapper, permissions).unwrap();
    wrapper
}

#[test]
fn a_final_played_as_slurm_job_arrays_survives_a_cancelled_task_and_a_tampered_shard() {
    if !slurm_here() || !sandbox_runs() {
        return;
    }
    let cluster = LocalCluster::start();
    let conf = cluster.conf();
    // Each round's tasks are held three seconds in the queue: the first round's task 2 is cancelled there.
    let table = |arena: &Path| {
        format!(
            "[cluster]\nkind = \"slurm\"\ntasks = 3\ncpus_per_task = 1\npoll_s = 1\narena = \"{}\"\n\
             sbatch_args = [\"--begin=now+3\"]\n",
            arena.display()
        )
    };
    let cancel = |job: &str| {
        let cancelled = Command::new("scancel")
            .arg(format!("{job}_2"))
            .env("SLURM_CONF", &conf)
            .output()
            .unwrap();
        assert!(cancelled.status.success(), "{}", text(&cancelled));
    };
    final_on_a_cluster(Scheduler {
        table: &table,
        env: &[("SLURM_CONF", s(&conf))],
        ladder: false,
        before_final: Box::new(|| {}),
        fail_task_2: Box::new(cancel),
    });
}

#[test]
fn a_final_played_as_kubernetes_indexed_jobs_survives_an_evicted_pod_and_a_tampered_shard() {
    if !sandbox_runs() {
        return;
    }
    let scheduler = tempfile::tempdir().unwrap();
    let state = scheduler.path().join("jobs");
    std::fs::create_dir(&state).unwrap();
    // The pods stay pending while `hold` exists: made before the final, whose first round's task 2 is evicted
    // there, then all run. The ladder plays on the cluster too, unheld.
    let hold = scheduler.path().join("hold");
    let kubectl = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kubectl-standin.py");
    let table = |arena: &Path| {
        format!(
            "[cluster]\nkind = \"kubernetes\"\ntasks = 3\ncpus_per_task = 1\npoll_s = 1\narena = \"{}\"\n\
             image = \"pahtum-arena:test\"\nclaim = \"arena-cluster\"\nnamespace = \"cup\"\nkubectl = [\"{}\"]\n",
            arena.display(),
            kubectl.display()
        )
    };
    let scheduler_env = [("STANDIN_STATE", s(&state)), ("STANDIN_HOLD", s(&hold))];
    let _controller = Controller(
        Command::new(&kubectl)
            .arg("_controller")
            .envs(scheduler_env)
            .spawn()
            .unwrap(),
    );
    let evict = |job: &str| {
        let evicted = Command::new(&kubectl)
            .args(["--namespace", "cup", "fail", job, "1"])
            .env("STANDIN_STATE", &state)
            .output()
            .unwrap();
        assert!(evicted.status.success(), "{}", text(&evicted));
        std::fs::remove_file(&hold).unwrap();
    };
    let (_root, contest) = final_on_a_cluster(Scheduler {
        table: &table,
        env: &scheduler_env,
        ladder: true,
        before_final: Box::new(|| std::fs::write(&hold, "").unwrap()),
        fail_task_2: Box::new(evict),
    });
    // Task 2 of the first round was submitted again alone: an Indexed Job of one pod, from task 2.
    let again: serde_json::Value =
        serde_json::from_slice(&std::fs::read(contest.join("cluster/final/round-00001/job-2.json")).unwrap()).unwrap();
    assert_eq!(again["spec"]["completions"], 1, "{again}");
    assert_eq!(
        again["metadata"]["annotations"]["pahtum-arena/first-task"], "2",
        "{again}"
    );
    assert_eq!(again["metadata"]["name"], "arena-final-round-00001-2", "{again}");
}

/// How a test drives its scheduler through [`final_on_a_cluster`].
struct Scheduler<'a> {
    /// The `[cluster]` table, given the `arena` its tasks run.
    table: &'a dyn Fn(&Path) -> String,
    /// The server's environment.
    env: &'a [(&'a str, &'a str)],
    /// Whether the ladder plays on the cluster too (else on the server's machine, quicker where the queue
    /// is slow).
    ladder: bool,
    /// Done before the final's server starts.
    before_final: Box<dyn FnOnce() + 'a>,
    /// Fails the first round's task 2 while it waits, given its job.
    fail_task_2: Box<dyn FnOnce(&str) + 'a>,
}

/// The stand-in cluster's controller, which runs the Jobs' pods: stopped when dropped.
struct Controller(std::process::Child);

impl Drop for Controller {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Plays a contest's final of three bots on the cluster of `scheduler`, the first round's task 2 failed while
/// it waits. Then checks that nothing was lost or doubled, that one tampered shard was refused by its task,
/// and that the final equals the one machine's from the same rules and finalists. The contest's folder, in
/// the private folder that holds it.
fn final_on_a_cluster(scheduler: Scheduler) -> (tempfile::TempDir, PathBuf) {
    let Scheduler {
        table,
        env,
        ladder,
        before_final,
        fail_task_2,
    } = scheduler;
    let root = private_folder();
    let (contest, _) = new_contest(root.path(), "Cluster cup");
    let tokens = ["ada", "bob", "cy"].map(|name| invite_token(&contest, name));
    let settings = contest.join("contest.toml");
    let base = std::fs::read_to_string(&settings).unwrap();
    let wrapper = tampering_wrapper(root.path());
    // The ladder plays while the bots are admitted; the final on the cluster, a few rounds of up to four layout
    // pairs.
    let season = |freeze: i64, final_start: i64, cluster: bool| {
        let cluster = if cluster { table(&wrapper) } else { String::new() };
        format!(
            "{base}\n[phases]\nopen = \"{}\"\nfreeze = \"{}\"\nfinal = \"{}\"\nend = \"{}\"\n\n\
             [final]\nplaces = 1\nconfidence = 0.9\nmax_games = 30\npairs_per_round = 4\nseed = 3\n\n{cluster}",
            instant(-3600),
            instant(freeze),
            instant(final_start),
            instant(final_start + 3600),
        )
    };
    std::fs::write(&settings, season(3600, 3601, ladder)).unwrap();
    let server = Server::start_with_env(&contest, &["--concurrency", "2"], env);
    for (token, command) in tokens.iter().zip(["engine --level 0", "heuristic", "first-free"]) {
        let folder = bot_folder(
            root.path(),
            &format!("bot-{token}"),
            &format!("name = \"x\"\ncommand = \"{command}\"\n"),
            &[],
        );
        let submitted = arena(&["submit", &server.url, s(&folder), "--token", token]);
        assert!(submitted.status.success(), "{}", text(&submitted));
    }
    wait_until("the three entrants play on the ladder", ANSWER_WITHIN, || {
        let (_, ladder) = get(&server, "/api/ladder", &tokens[0]);
        let rows = serde_json::from_str::<serde_json::Value>(&ladder).unwrap()["rows"]
            .as_array()
            .unwrap()
            .len();
        rows == 3
            && tokens.iter().all(|token| {
                let (_, mine) = get(&server, "/api/submissions", token);
                mine.contains("\"state\":\"playing\"")
            })
    });
    if ladder {
        wait_until("a round of the ladder is played on the cluster", FINAL_WITHIN, || {
            let journal = std::fs::read_to_string(contest.join("league/journal.jsonl")).unwrap_or_default();
            contest.join("cluster/league/round-00001/exit-1").exists() && !games_of(&journal).is_empty()
        });
    }
    server.stop();
    before_final();

    std::fs::write(&settings, season(-2, -1, true)).unwrap();
    let server = Server::start_with_env(&contest, &["--concurrency", "2"], env);
    let first_round = contest.join("cluster/final/round-00001");
    let mut job = String::new();
    wait_until("the first round is submitted", ANSWER_WITHIN, || {
        let read = std::fs::read(first_round.join("round.json")).ok();
        job = read
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .and_then(|submitted| submitted["tasks"]["2"][0].as_str().map(str::to_owned))
            .unwrap_or_default();
        !job.is_empty()
    });
    fail_task_2(&job);

    let mut over = None;
    wait_until("the final is over", FINAL_WITHIN, || {
        let (status, body) = get(&server, "/api/final", &tokens[0]);
        over = (status == 200)
            .then(|| serde_json::from_str::<serde_json::Value>(&body).unwrap())
            .filter(|view| !view["over"].is_null());
        over.is_some()
    });
    let over = over.unwrap();
    assert_eq!(over["faults"], 0, "{over}");

    // Task 2 of the first round ran twice: failed, then submitted again.
    let submitted: serde_json::Value =
        serde_json::from_slice(&std::fs::read(first_round.join("round.json")).unwrap()).unwrap();
    assert_eq!(submitted["tasks"]["2"].as_array().unwrap().len(), 2, "{submitted}");
    // One shard was refused for its tampered record, by its task, and played again.
    let refused: Vec<String> = std::fs::read_dir(contest.join("cluster/final"))
        .unwrap()
        .filter_map(|round| std::fs::read(round.unwrap().path().join("round.json")).ok())
        .flat_map(|bytes| {
            let submitted: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            submitted["refused"].as_array().unwrap().clone()
        })
        .map(|why| why.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0].starts_with("task ") && refused[0].contains(": line "),
        "{refused:?}"
    );

    // The merged journal verifies and holds every game once.
    let (_, journal) = get(&server, "/api/final/journal", &tokens[0]);
    let downloaded = root.path().join("final.jsonl");
    std::fs::write(&downloaded, &journal).unwrap();
    let verified = arena(&["verify", s(&downloaded)]);
    assert!(verified.status.success(), "{}", text(&verified));
    let on_cluster = games_of(&journal);
    assert_eq!(on_cluster.len() as u64, over["games"].as_u64().unwrap());
    server.stop();

    // The same final on one machine: its rules, finalists and snapshots, no game yet.
    let alone = root.path().join("alone");
    std::fs::create_dir_all(&alone).unwrap();
    let final_dir = contest.join("final");
    std::fs::copy(final_dir.join("league.toml"), alone.join("league.toml")).unwrap();
    let copied = Command::new("cp")
        .args(["-a", s(&final_dir.join("entrants")), s(&alone)])
        .status()
        .unwrap();
    assert!(copied.success());
    let start: String = journal
        .lines()
        .take_while(|line| !line.starts_with("{\"round\":"))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(alone.join("journal.jsonl"), start).unwrap();
    let played = arena(&["league", "run", s(&alone), "--replay-overloaded", "--concurrency", "2"]);
    assert!(played.status.success(), "{}", text(&played));
    let one_machine = games_of(&std::fs::read_to_string(alone.join("journal.jsonl")).unwrap());
    assert_eq!(
        on_cluster, one_machine,
        "the cluster's final is the one machine's, record for record"
    );
    (root, contest)
}
