//! Checks of `deploy/` that need no cluster, each against the real `arena` binary.
//!
//! * Kubernetes: the Indexed Job's pod command, run through the built `arena` as the image lays
//!   out its files (the Dockerfile's `WORKDIR` and `COPY`s), with `--dry-run` and each
//!   `JOB_COMPLETION_INDEX` of the Job's `completions`: every index is a valid invocation, and the
//!   shards together hold every game of the schedule exactly once. Then the same commands on a
//!   tournament of instant bots, played for real onto a folder standing for the shared volume,
//!   and the merge Job's command after them: the merged standings equal an unsharded run's.
//! * The Dockerfile: the build stage builds the binary that the run stage copies and runs, with the
//!   README's command, and the run stage holds the files and the language runtimes of every bot of
//!   the Job's tournament, and bubblewrap for the sandbox.
//! * Slurm: `submit.sh` run with a stand-in `sbatch` that records its calls (an array of N tasks,
//!   then the merge after the whole array), and the two batch scripts run as Slurm would run
//!   them (each array task's environment, the `--chdir`, the `--cpus-per-task`), on a tournament of
//!   instant bots: the merged standings equal an unsharded run's.
//! * Kubernetes for a contest: `contest.yaml` holds the claim the reference `contest.toml` names and a Role
//!   that lets the server create and list Jobs.
//! * `bash -n` on every shell script of `deploy/`.
//!
//! `deploy/slurm/test-local.sh` runs the Slurm scripts on a real one-node Slurm (in `.ci/run`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pahtum_tournament::config::{self, Launch};
use serde::Deserialize as _;
use serde_norway::Value;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// The variables `--shard auto` reads: cleared for every command, so that a test run inside a
/// Slurm job or a Kubernetes pod sees only the ones it sets.
const SHARD_VARIABLES: [&str; 6] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_COUNT",
    "JOB_COMPLETION_INDEX",
    "ARENA_SHARD_COUNT",
];

/// The tables that an unsharded run and a merge must write alike.
const TABLES: [&str; 4] = ["standings.json", "standings.csv", "standings.md", "pairs.csv"];

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo(path)).unwrap_or_else(|error| panic!("{path}: {error}"))
}

/// The YAML documents of a manifest.
fn documents(path: &str) -> Vec<Value> {
    let text = read(path);
    serde_norway::Deserializer::from_str(&text)
        .map(|document| Value::deserialize(document).unwrap_or_else(|error| panic!("{path}: {error}")))
        .collect()
}

fn job<'a>(documents: &'a [Value], name: &str) -> &'a Value {
    documents
        .iter()
        .find(|d| d["kind"] == "Job" && d["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no Job {name}"))
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_sequence()
        .unwrap_or_else(|| panic!("not a list: {value:?}"))
        .iter()
        .map(|item| {
            item.as_str()
                .unwrap_or_else(|| panic!("not a string: {item:?}"))
                .to_owned()
        })
        .collect()
}

/// The one container of a Job's pods: its image and the `arena` arguments it runs (the image's
/// entry point is `arena`, so a `command` may only repeat it).
fn container(job: &Value) -> (&str, Vec<String>) {
    let containers = job["spec"]["template"]["spec"]["containers"].as_sequence().unwrap();
    assert_eq!(containers.len(), 1, "one container");
    let container = &containers[0];
    if !container["command"].is_null() {
        assert_eq!(
            strings(&container["command"]),
            ["arena"],
            "a command replaces the entry point"
        );
    }
    (
        container["image"].as_str().expect("an image"),
        strings(&container["args"]),
    )
}

/// The volume claim a Job's pods mount, and where.
fn mounted_claim(job: &Value) -> (&str, &str) {
    let pod = &job["spec"]["template"]["spec"];
    let volume = &pod["volumes"][0];
    let mount = &pod["containers"][0]["volumeMounts"][0];
    assert_eq!(mount["name"], volume["name"]);
    (
        volume["persistentVolumeClaim"]["claimName"].as_str().unwrap(),
        mount["mountPath"].as_str().unwrap(),
    )
}

/// The value after `flag` in `args`.
fn after<'a>(args: &'a [String], flag: &str) -> &'a str {
    let at = args
        .iter()
        .position(|arg| arg == flag)
        .unwrap_or_else(|| panic!("no {flag} in {args:?}"));
    args.get(at + 1)
        .unwrap_or_else(|| panic!("{flag} without a value in {args:?}"))
}

/// `path` on the shared volume mounted at `mount`, as it lies in `volume` here.
fn on_volume(path: &str, mount: &str, volume: &Path) -> PathBuf {
    let rest = Path::new(path)
        .strip_prefix(mount)
        .unwrap_or_else(|_| panic!("{path} is not on the shared volume {mount}"));
    volume.join(rest)
}

/// Runs the real `arena` with `args` in `dir`, with `env` and none of [`SHARD_VARIABLES`] else.
fn arena(args: &[String], dir: &Path, env: &[(&str, String)]) -> Output {
    let mut command = Command::new(ARENA);
    command.args(args).current_dir(dir);
    for variable in SHARD_VARIABLES {
        command.env_remove(variable);
    }
    command.envs(env.iter().map(|(key, value)| (key, value)));
    command.output().expect("arena runs")
}

fn assert_success(output: &Output, what: &str) {
    assert!(
        output.status.success(),
        "{what} failed ({}):\nstdout: {}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The game ids (`003-01-b`) that a `--dry-run` lists, in order.
fn listed_games(output: &Output) -> Vec<String> {
    let is_id = |word: &str| {
        let parts: Vec<&str> = word.split('-').collect();
        parts.len() == 3
            && parts[..2]
                .iter()
                .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
            && (parts[2] == "a" || parts[2] == "b")
    };
    String::from_utf8_lossy(&output.stdout)
        .split(|c: char| c.is_whitespace() || c == '│' || c == '|')
        .filter(|word| is_id(word))
        .map(str::to_owned)
        .collect()
}

/// The run stage of the Dockerfile: its working directory, its `COPY`s from the build context
/// (source, destination), its other lines.
struct RunStage {
    workdir: String,
    copies: Vec<(String, String)>,
    lines: Vec<String>,
}

/// The Dockerfile's stages, each as its `FROM` line's rest and its instructions (continuation lines
/// joined, comments dropped).
fn dockerfile_stages() -> Vec<(String, Vec<String>)> {
    let text = read("deploy/k8s/Dockerfile").replace("\\\n", " ");
    let mut stages: Vec<(String, Vec<String>)> = Vec::new();
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        match line.strip_prefix("FROM ") {
            Some(from) => stages.push((from.to_owned(), Vec::new())),
            None => stages.last_mut().expect("a FROM first").1.push(line.to_owned()),
        }
    }
    stages
}

fn run_stage() -> RunStage {
    let stages = dockerfile_stages();
    let (_, lines) = stages.last().expect("a run stage");
    let workdir = lines
        .iter()
        .filter_map(|line| line.strip_prefix("WORKDIR "))
        .next_back()
        .expect("a WORKDIR in the run stage")
        .to_owned();
    let copies = lines
        .iter()
        .filter_map(|line| line.strip_prefix("COPY "))
        .filter(|rest| !rest.starts_with("--from"))
        .map(|rest| {
            let words: Vec<&str> = rest.split_whitespace().collect();
            assert_eq!(words.len(), 2, "COPY SRC DEST: {rest}");
            (words[0].to_owned(), words[1].to_owned())
        })
        .collect();
    RunStage {
        workdir,
        copies,
        lines: lines.clone(),
    }
}

/// A folder laid out as the image's file system from the build context (the repository): each
/// `COPY SRC DEST` of the run stage is a link at DEST to SRC. Returns the folder and the image's
/// working directory in it.
fn image_layout(stage: &RunStage) -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let inside = |path: &str| root.path().join(path.trim_start_matches('/'));
    for (source, destination) in &stage.copies {
        let source = repo(source);
        assert!(source.exists(), "COPY of {} that does not exist", source.display());
        let destination = inside(destination);
        std::fs::create_dir_all(destination.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(source.canonicalize().unwrap(), &destination).unwrap();
    }
    let workdir = inside(&stage.workdir);
    std::fs::create_dir_all(&workdir).unwrap();
    (root, workdir)
}

/// `path` with its `.` and `..` resolved by the words alone, not by the file system (where a
/// `..` after a link leads to the link's target's parent).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Copies `deploy/instant.toml`, a tournament of instant built-in bots, into `dir`; its path.
fn instant_tournament(dir: &Path) -> PathBuf {
    let file = dir.join("t.toml");
    std::fs::copy(repo("deploy/instant.toml"), &file).unwrap();
    file
}

/// The number of records of the journal at `path` (its lines after the header).
fn records(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    text.lines().skip(1).filter(|line| !line.trim().is_empty()).count()
}

/// Plays `deploy/instant.toml` unsharded into `out` and checks that `merged` holds the same
/// games and the same tables.
fn assert_merged_like_unsharded(file: &Path, merged: &Path, out: &Path) {
    let whole = arena(
        &[
            "run".into(),
            file.display().to_string(),
            "--out".into(),
            out.display().to_string(),
        ],
        file.parent().unwrap(),
        &[],
    );
    assert_success(&whole, "the unsharded run");
    assert_eq!(
        records(&merged.join("journal.jsonl")),
        records(&out.join("journal.jsonl")),
        "the merged journal holds every game once"
    );
    for table in TABLES {
        let read = |dir: &Path| std::fs::read(dir.join(table)).unwrap_or_else(|e| panic!("{table}: {e}"));
        assert!(
            read(merged) == read(out),
            "the merged {table} differs from the unsharded run's"
        );
    }
}

#[test]
fn the_indexed_job_runs_every_game_of_its_tournament_once() {
    let shards = documents("deploy/k8s/job.yaml");
    let claim = shards
        .iter()
        .find(|d| d["kind"] == "PersistentVolumeClaim")
        .expect("a volume claim");
    assert_eq!(
        claim["spec"]["accessModes"][0], "ReadWriteMany",
        "every shard writes the volume at once"
    );
    let shard_job = job(&shards, "arena-shards");
    assert_eq!(shard_job["apiVersion"], "batch/v1");
    let spec = &shard_job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    assert_eq!(spec["template"]["spec"]["restartPolicy"], "Never");
    let completions = spec["completions"].as_u64().expect("completions") as usize;
    let (_, args) = container(shard_job);
    assert_eq!(args[0], "run");
    assert_eq!(after(&args, "--shard"), "auto");
    assert_eq!(
        after(&args, "--shard-count"),
        completions.to_string(),
        "each completion index is one shard of --shard-count"
    );
    let (claim_name, mount) = mounted_claim(shard_job);
    assert_eq!(claim_name, claim["metadata"]["name"].as_str().unwrap());
    let out = after(&args, "--out");
    on_volume(out, mount, Path::new("/"));

    // The pod's command, in the image's layout, for each index: a valid `arena run`, whose shards
    // together hold the whole schedule once.
    let (_image, workdir) = image_layout(&run_stage());
    let file = args[1].clone();
    let everything = arena(&["run".into(), file.clone(), "--dry-run".into()], &workdir, &[]);
    assert_success(&everything, "arena run --dry-run of the Job's tournament");
    let schedule = listed_games(&everything);
    assert!(!schedule.is_empty(), "the dry run lists the games");
    let mut dealt: BTreeMap<String, usize> = BTreeMap::new();
    for index in 0..completions {
        let mut pod = args.clone();
        pod.push("--dry-run".into());
        let output = arena(&pod, &workdir, &[("JOB_COMPLETION_INDEX", index.to_string())]);
        assert_success(&output, &format!("the pod of index {index}: arena {pod:?}"));
        let into = format!("into {out}/shard-{}-of-{completions}", index + 1);
        assert!(
            String::from_utf8_lossy(&output.stdout).contains(&into),
            "index {index} plays {into}: {}",
            String::from_utf8_lossy(&output.stdout)
        );
        for game in listed_games(&output) {
            if let Some(other) = dealt.insert(game.clone(), index) {
                panic!("game {game} is in the shards of index {other} and {index}");
            }
        }
    }
    let dealt: BTreeSet<String> = dealt.into_keys().collect();
    let scheduled: BTreeSet<String> = schedule.into_iter().collect();
    assert_eq!(dealt, scheduled, "the shards hold every game of the schedule");
}

#[test]
fn the_merge_job_merges_what_the_indexed_job_writes() {
    let shards = documents("deploy/k8s/job.yaml");
    let shard_job = job(&shards, "arena-shards");
    let completions = shard_job["spec"]["completions"].as_u64().unwrap() as usize;
    let (image, args) = container(shard_job);
    let (claim, mount) = mounted_claim(shard_job);
    let merges = documents("deploy/k8s/merge.yaml");
    let merge_job = job(&merges, "arena-merge");
    let (merge_image, merge_args) = container(merge_job);
    assert_eq!(merge_image, image, "the merge runs the same image");
    let (merge_claim, merge_mount) = mounted_claim(merge_job);
    assert_eq!(merge_claim, claim, "the merge mounts the shards' volume");

    // The pods' commands for real, on a tournament of instant bots instead of the Job's, the
    // shared volume being a folder here; then the merge Job's command on that folder.
    let dir = tempfile::tempdir().unwrap();
    let volume = dir.path().join("volume");
    let file = instant_tournament(dir.path());
    let mut pod = args.clone();
    pod[1] = file.display().to_string();
    let out = after(&args, "--out").to_owned();
    let at = pod.iter().position(|arg| *arg == "--out").unwrap() + 1;
    pod[at] = on_volume(&out, mount, &volume).display().to_string();
    for index in 0..completions {
        let output = arena(&pod, dir.path(), &[("JOB_COMPLETION_INDEX", index.to_string())]);
        assert_success(&output, &format!("the pod of index {index}"));
    }
    let merge: Vec<String> = merge_args
        .iter()
        .map(|arg| match arg.starts_with(merge_mount) {
            true => on_volume(arg, merge_mount, &volume).display().to_string(),
            false => arg.clone(),
        })
        .collect();
    assert_eq!(merge[0], "merge");
    let output = arena(&merge, dir.path(), &[]);
    assert_success(&output, &format!("the merge Job's arena {merge:?}"));
    assert_merged_like_unsharded(&file, Path::new(&merge[1]), &dir.path().join("whole"));
}

/// The words of the run stage's `apt-get install` lines: the packages it installs (and the flags).
fn installed(stage: &RunStage) -> BTreeSet<&str> {
    stage
        .lines
        .iter()
        .filter(|line| line.contains("apt-get install"))
        .flat_map(|line| line.split_whitespace())
        .collect()
}

/// The sandbox (`sandbox = true`, `--sandbox`) runs bubblewrap, which the arena refuses to do without:
/// the image installs it, so that a tournament of untrusted bots can run in the Job.
#[test]
fn the_image_holds_bubblewrap_for_the_sandbox() {
    let stage = run_stage();
    assert!(
        installed(&stage).contains("bubblewrap"),
        "the run stage does not install bubblewrap: {:?}",
        stage.lines
    );
}

#[test]
fn the_image_builds_arena_and_holds_what_the_jobs_tournament_needs() {
    let stages = dockerfile_stages();
    assert_eq!(stages.len(), 2, "a build stage and a run stage");
    let (build_from, build) = &stages[0];
    let build_name = build_from.split_whitespace().last().unwrap();
    assert!(build_from.contains(" AS "), "the build stage is named: {build_from}");
    let build_dir = build
        .iter()
        .filter_map(|line| line.strip_prefix("WORKDIR "))
        .next_back()
        .expect("a WORKDIR in the build stage");
    let command = "cargo build --release -p arena";
    assert!(
        build.iter().any(|line| *line == format!("RUN {command}")),
        "the build stage runs `{command}`: {build:?}"
    );
    assert!(
        read("README.md").contains(command),
        "the README gives the image's build command `{command}`"
    );
    let binary = Path::new(ARENA).file_name().unwrap().to_str().unwrap();
    let built = format!("{build_dir}/target/release/{binary}");

    let stage = run_stage();
    let copied = stage
        .lines
        .iter()
        .filter_map(|line| line.strip_prefix(&format!("COPY --from={build_name} ")))
        .find_map(|rest| rest.strip_prefix(&format!("{built} ")))
        .unwrap_or_else(|| panic!("the run stage copies {built} from the build stage: {:?}", stage.lines));
    let on_path = ["/usr/local/bin", "/usr/bin", "/bin"];
    assert!(
        on_path.contains(&Path::new(copied).parent().unwrap().to_str().unwrap()),
        "{copied} is on the PATH"
    );
    let entrypoint = stage
        .lines
        .iter()
        .find_map(|line| line.strip_prefix("ENTRYPOINT "))
        .expect("an ENTRYPOINT");
    let entrypoint: Vec<String> = serde_json::from_str(entrypoint).expect("ENTRYPOINT in JSON form");
    assert!(
        entrypoint == [Path::new(copied).file_name().unwrap().to_str().unwrap()] || entrypoint == [copied],
        "the entry point {entrypoint:?} is the copied {copied}"
    );

    // The Job's tournament as the image holds it: its file, every bot's folder and files, and the
    // runtime of every bot that is a command.
    let (_image, workdir) = image_layout(&stage);
    let (_, args) = container(job(&documents("deploy/k8s/job.yaml"), "arena-shards"));
    let file = config::load(&workdir.join(&args[1])).unwrap_or_else(|e| panic!("{}: {e}", args[1]));
    let installed = installed(&stage);
    // The Debian package of each bot program the bundled tournaments use.
    let packages = BTreeMap::from([("python3", "python3"), ("node", "nodejs")]);
    let mut commands = 0;
    for bot in &file.tournament.bots {
        let Launch::Command(words) = &bot.launch else {
            continue;
        };
        commands += 1;
        // Lexically: in the image the folders are real, here they are links into the repository.
        let dir = lexical(&file.base_dir.join(bot.dir.as_deref().unwrap_or(".")));
        assert!(
            dir.is_dir(),
            "bot {}: its folder {} is not in the image",
            bot.name,
            dir.display()
        );
        for word in &words[1..] {
            if word.contains('.') && !word.starts_with('-') {
                assert!(
                    dir.join(word).exists(),
                    "bot {}: {word} is not in the image's {}",
                    bot.name,
                    dir.display()
                );
            }
        }
        let package = packages
            .get(words[0].as_str())
            .unwrap_or_else(|| panic!("bot {}: which Debian package has {}? add it here", bot.name, words[0]));
        assert!(
            installed.contains(package),
            "bot {} runs {}, but the image does not install {package}",
            bot.name,
            words[0]
        );
    }
    assert!(commands > 0, "the Job's tournament has bots that are commands");
}

/// A stand-in for `sbatch` that appends its arguments to `$SBATCH_LOG` (one per line, then
/// `--end--`) and prints a job id as `sbatch --parsable` does on a cluster of a name: `101;test`.
const FAKE_SBATCH: &str = r#"#!/usr/bin/env bash
n=$(grep -c -- '^--end--$' "$SBATCH_LOG" 2>/dev/null || true)
{ printf '%s\n' "$@"; echo --end--; } >>"$SBATCH_LOG"
echo "$((101 + ${n:-0}));test"
"#;

/// The `#SBATCH --KEY=VALUE` directives of a batch script.
fn directives(script: &Path) -> BTreeMap<String, String> {
    std::fs::read_to_string(script)
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix("#SBATCH --"))
        .map(|rest| match rest.split_once('=') {
            Some((key, value)) => (key.to_owned(), value.to_owned()),
            None => (rest.to_owned(), String::new()),
        })
        .collect()
}

/// The value of `--KEY=VALUE` among `options`.
fn option<'a>(options: &'a [String], key: &str) -> Option<&'a str> {
    options.iter().find_map(|o| o.strip_prefix(&format!("--{key}=")))
}

/// Runs a batch script with `args` as Slurm would: in `--chdir`, with `env`.
fn batch(script: &Path, args: &[String], dir: &Path, env: &[(&str, String)]) -> Output {
    let mut command = Command::new("bash");
    command.arg(script).args(args).current_dir(dir);
    for variable in SHARD_VARIABLES {
        command.env_remove(variable);
    }
    command.env("ARENA", ARENA);
    command.envs(env.iter().map(|(key, value)| (key, value)));
    command.output().expect("bash runs")
}

#[test]
fn the_slurm_scripts_submit_play_and_merge_every_shard() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let sbatch = bin.join("sbatch");
    std::fs::write(&sbatch, FAKE_SBATCH).unwrap();
    std::fs::set_permissions(&sbatch, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let log = dir.path().join("sbatch.log");
    let file = instant_tournament(dir.path());
    let out = dir.path().join("run");
    let shards = 3;

    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let submitted = Command::new("bash")
        .arg(repo("deploy/slurm/submit.sh"))
        .arg(&file)
        .arg(&out)
        .arg(shards.to_string())
        .env("PATH", path)
        .env("SBATCH_LOG", &log)
        .output()
        .unwrap();
    assert_success(&submitted, "submit.sh");
    assert_eq!(
        String::from_utf8_lossy(&submitted.stdout).trim(),
        "101;test 102;test",
        "submit.sh prints the two job ids"
    );
    let log = std::fs::read_to_string(&log).unwrap();
    let calls: Vec<Vec<String>> = log
        .split_terminator("--end--\n")
        .map(|call| call.lines().map(str::to_owned).collect())
        .collect();
    assert_eq!(calls.len(), 2, "an array and a merge: {calls:?}");
    let out = out.canonicalize().expect("submit.sh makes OUT");
    let file = file.canonicalize().unwrap();
    // Each call: the options, then the script and its arguments (the script is the first word
    // that is not an option).
    let split = |call: &[String]| {
        let at = call.iter().position(|word| !word.starts_with("--")).expect("a script");
        (call[..at].to_vec(), PathBuf::from(&call[at]), call[at + 1..].to_vec())
    };
    let (array_options, shard_script, shard_args) = split(&calls[0]);
    let (merge_options, merge_script, merge_args) = split(&calls[1]);
    assert_eq!(
        shard_script.canonicalize().unwrap(),
        repo("deploy/slurm/shard.sbatch").canonicalize().unwrap()
    );
    assert_eq!(
        merge_script.canonicalize().unwrap(),
        repo("deploy/slurm/merge.sbatch").canonicalize().unwrap()
    );
    assert_eq!(option(&array_options, "array"), Some(format!("1-{shards}").as_str()));
    assert_eq!(
        option(&merge_options, "dependency"),
        Some("afterok:101"),
        "the merge waits for the whole array, by its job id"
    );
    for options in [&array_options, &merge_options] {
        assert!(options.contains(&"--parsable".to_owned()), "{options:?}");
        assert_eq!(option(options, "export"), Some("ALL"), "ARENA reaches the jobs");
    }
    assert_eq!(shard_args, [file.display().to_string(), out.display().to_string()]);
    assert_eq!(merge_args, [out.display().to_string()]);

    // Slurm's part: each array task in its environment, then the merge.
    let chdir = PathBuf::from(option(&array_options, "chdir").expect("--chdir"));
    let cpus = directives(&shard_script)
        .get("cpus-per-task")
        .cloned()
        .expect("#SBATCH --cpus-per-task");
    // The task ids as Slurm numbers them from `--array=MIN-MAX`.
    let (min, max) = option(&array_options, "array")
        .and_then(|range| range.split_once('-'))
        .map(|(min, max)| (min.parse::<usize>().unwrap(), max.parse::<usize>().unwrap()))
        .expect("--array=MIN-MAX");
    let count = max + 1 - min;
    for task in min..=max {
        let env = [
            ("SLURM_ARRAY_TASK_ID", task.to_string()),
            ("SLURM_ARRAY_TASK_MIN", min.to_string()),
            ("SLURM_ARRAY_TASK_MAX", max.to_string()),
            ("SLURM_ARRAY_TASK_COUNT", count.to_string()),
            ("SLURM_CPUS_PER_TASK", cpus.clone()),
        ];
        let output = batch(&shard_script, &shard_args, &chdir, &env);
        assert_success(&output, &format!("shard.sbatch as array task {task}"));
        let shard = task + 1 - min;
        let journal = out.join(format!("shard-{shard}-of-{shards}/journal.jsonl"));
        assert!(journal.is_file(), "task {task} wrote {}", journal.display());
    }
    let chdir = PathBuf::from(option(&merge_options, "chdir").expect("--chdir"));
    let output = batch(&merge_script, &merge_args, &chdir, &[]);
    assert_success(&output, "merge.sbatch");
    assert_merged_like_unsharded(&file, &out.join("merged"), &dir.path().join("whole"));
}

#[test]
fn every_shell_script_of_deploy_parses() {
    let mut scripts = Vec::new();
    let mut folders = vec![repo("deploy")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let shebang = text.lines().next().unwrap_or_default();
            let by_name = matches!(path.extension().and_then(|e| e.to_str()), Some("sh" | "sbatch"));
            if by_name || (shebang.starts_with("#!") && shebang.ends_with("sh")) {
                scripts.push(path);
            }
        }
    }
    scripts.sort();
    let names: Vec<String> = scripts
        .iter()
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for known in ["submit.sh", "shard.sbatch", "merge.sbatch", "test-local.sh"] {
        assert!(names.iter().any(|name| name == known), "{known} is among {names:?}");
    }
    for script in &scripts {
        let output = Command::new("bash").arg("-n").arg(script).output().unwrap();
        assert!(
            output.status.success(),
            "bash -n {}: {}",
            script.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        let text = std::fs::read_to_string(script).unwrap();
        assert!(
            text.starts_with("#!/usr/bin/env bash\n"),
            "{} starts with a bash shebang",
            script.display()
        );
    }
}

/// `deploy/k8s/contest.yaml` gives a contest's server what `[cluster] kind = "kubernetes"` uses: the claim
/// the reference `contest.toml` names, and a Role, bound to the server's ServiceAccount, that may create and
/// list Jobs (`kubectl create -f`, `kubectl get jobs -l`), and nothing beyond Jobs.
#[test]
fn the_contests_kubernetes_manifest_grants_what_the_server_runs() {
    let documents = documents("deploy/k8s/contest.yaml");
    let named = |kind: &str| {
        documents
            .iter()
            .find(|d| d["kind"] == kind)
            .unwrap_or_else(|| panic!("no {kind}"))
    };
    let reference = read("tournaments/contest/contest.toml");
    let claim = named("PersistentVolumeClaim")["metadata"]["name"].as_str().unwrap();
    assert!(
        reference.contains(&format!("claim = \"{claim}\"")),
        "the reference names the claim {claim}"
    );
    assert_eq!(
        strings(&named("PersistentVolumeClaim")["spec"]["accessModes"]),
        ["ReadWriteMany"]
    );
    let rules = named("Role")["rules"].as_sequence().unwrap();
    assert_eq!(rules.len(), 1, "{rules:?}");
    assert_eq!(strings(&rules[0]["apiGroups"]), ["batch"]);
    assert_eq!(strings(&rules[0]["resources"]), ["jobs"]);
    let verbs = strings(&rules[0]["verbs"]);
    assert!(
        verbs.contains(&"create".to_owned()) && verbs.contains(&"list".to_owned()),
        "{verbs:?}"
    );
    let binding = named("RoleBinding");
    let account = named("ServiceAccount")["metadata"]["name"].as_str().unwrap();
    assert_eq!(binding["subjects"][0]["name"], account);
    assert_eq!(binding["roleRef"]["name"], named("Role")["metadata"]["name"]);
}
