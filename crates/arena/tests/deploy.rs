//! Checks of `deploy/` that need no cluster: the Kubernetes manifests parse and hold what an Indexed
//! Job and its merge need, the Dockerfile builds with the README's command, and the Slurm scripts
//! chain the merge after the array. (deploy/slurm/test-local.sh runs a real one-node Slurm.)

use std::path::{Path, PathBuf};

use serde::Deserialize as _;
use serde_norway::Value;

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

#[test]
fn the_indexed_job_and_the_merge_share_a_read_write_many_volume() {
    let shards = documents("deploy/k8s/job.yaml");
    let claim = shards
        .iter()
        .find(|d| d["kind"] == "PersistentVolumeClaim")
        .expect("a volume claim");
    assert_eq!(claim["spec"]["accessModes"][0], "ReadWriteMany");
    let shard_job = job(&shards, "arena-shards");
    assert_eq!(shard_job["apiVersion"], "batch/v1");
    let spec = &shard_job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    let completions = spec["completions"].as_u64().expect("completions");
    assert_eq!(spec["template"]["spec"]["restartPolicy"], "Never");
    let args: Vec<&str> = spec["template"]["spec"]["containers"][0]["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let after = |flag: &str| args[args.iter().position(|a| *a == flag).unwrap() + 1];
    assert_eq!(args[0], "run");
    assert_eq!(after("--shard"), "auto");
    assert_eq!(after("--shard-count"), completions.to_string());
    let (claim_name, mount) = mounted_claim(shard_job);
    assert_eq!(claim_name, claim["metadata"]["name"].as_str().unwrap());
    let out = after("--out");
    assert!(out.starts_with(mount), "{out} is on the shared volume {mount}");

    let merges = documents("deploy/k8s/merge.yaml");
    let merge = job(&merges, "arena-merge");
    assert_eq!(mounted_claim(merge).0, claim_name);
    let merge_args = &merge["spec"]["template"]["spec"]["containers"][0]["args"];
    assert_eq!(merge_args[0], "merge");
    assert_eq!(merge_args[2], out, "the merge reads the shards' folder");
    let image = &shard_job["spec"]["template"]["spec"]["containers"][0]["image"];
    assert_eq!(&merge["spec"]["template"]["spec"]["containers"][0]["image"], image);
}

#[test]
fn the_dockerfile_builds_with_the_readme_command_and_runs_on_a_slim_base_with_python_and_node() {
    let dockerfile = read("deploy/k8s/Dockerfile");
    let readme = read("README.md");
    let build = "cargo build --release -p arena";
    assert!(readme.contains(build), "the README gives `{build}`");
    let stages: Vec<&str> = dockerfile.split("\nFROM ").skip(1).collect();
    assert_eq!(stages.len(), 2, "a build stage and a run stage");
    assert!(stages[0].contains(&format!("RUN {build}")), "{}", stages[0]);
    assert!(stages[1].starts_with("debian:bookworm-slim"), "{}", stages[1]);
    assert!(stages[1].contains("python3") && stages[1].contains("nodejs"));
    assert!(stages[1].contains("COPY --from=build /src/target/release/arena"));
}

#[test]
fn the_slurm_merge_runs_after_the_whole_array() {
    let submit = read("deploy/slurm/submit.sh");
    assert!(submit.contains("--array=\"1-$shards\""), "{submit}");
    assert!(submit.contains("--dependency=\"afterok:${array%%;*}\""), "{submit}");
    assert!(read("deploy/slurm/shard.sbatch").contains("--shard auto"));
    assert!(read("deploy/slurm/merge.sbatch").contains("merge \"$out/merged\" \"$out\""));
}
