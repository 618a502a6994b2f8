//! A round's tasks on Kubernetes: one Indexed Job per submission, from a generated manifest
//! (`kubectl create -f`), watched with `kubectl get jobs`.
//!
//! Each pod is one task: task `JOB_COMPLETION_INDEX + ARENA_FIRST_TASK` of the round, so that the first
//! submission (tasks 1 to N, indexes 0 to N-1) and a task submitted again alone (one index, its own first
//! task) run the same script as Slurm's array tasks do. The Job lets no index be retried by Kubernetes
//! (`backoffLimitPerIndex: 0`): a failed task is the server's to submit again, as on Slurm, after it has
//! looked at what the shard wrote. The shared volume is mounted in each pod at the cluster folder's own path,
//! so the paths the server writes into the script hold in the pods. A Job's name is its round's label and its
//! submission's number, so a server that stopped between creating a Job and recording it finds it again
//! (`AlreadyExists` is the Job it created) rather than creating a second.

use std::path::Path;

use serde_json::{Value, json};

use super::error::{ClusterError, io_error};
use super::program::run;
use super::tasks::{Cluster, SCRIPT_FILE, Tasks};

/// The label every Job and pod of the arena's carries, with its round's label as the value.
const ROUND_LABEL: &str = "pahtum-arena/round";

/// The annotation that says which task a Job's index 0 is.
const FIRST_TASK: &str = "pahtum-arena/first-task";

/// How long Kubernetes keeps a finished Job: long enough for the server (polling every few seconds) to
/// read what it did, and its pods' logs for a person.
const KEEP_FINISHED_S: u64 = 24 * 3600;

/// Submits `tasks` of the round in `dir` as one Indexed Job, the round's `nth` submission: the Job's name.
pub(super) async fn submit(dir: &Path, cluster: &Cluster, tasks: Tasks, nth: usize) -> Result<String, ClusterError> {
    let name = format!("{}-{nth}", round_label(cluster, dir));
    let manifest = manifest(cluster, dir, &name, tasks);
    let path = dir.join(format!("job-{nth}.json"));
    let bytes = serde_json::to_vec_pretty(&manifest).expect("a manifest serializes");
    std::fs::write(&path, bytes).map_err(io_error("write", &path))?;
    let args = ["create", "-f", &path.display().to_string(), "-o", "name"].map(str::to_owned);
    match kubectl(cluster, args.to_vec(), dir).await {
        Ok(printed) if printed.trim() == format!("job.batch/{name}") => Ok(name),
        Ok(printed) => Err(ClusterError::Scheduler {
            command: "kubectl create".to_owned(),
            output: printed,
        }),
        // Created before the server stopped, and not recorded: it is this submission's Job.
        Err(ClusterError::Scheduler { output, .. }) if output.contains("AlreadyExists") => Ok(name),
        Err(error) => Err(error),
    }
}

/// The tasks of the round in `dir` still waiting or running, as `NAME_TASK` (a Job's name and the task).
pub(super) async fn queued(dir: &Path, cluster: &Cluster) -> Result<Vec<String>, ClusterError> {
    let selector = format!("{ROUND_LABEL}={}", round_label(cluster, dir));
    let args = ["get", "jobs", "-l", &selector, "-o", "json"].map(str::to_owned);
    let printed = kubectl(cluster, args.to_vec(), dir).await?;
    let list: Value = serde_json::from_str(&printed).map_err(|error| ClusterError::Scheduler {
        command: "kubectl get jobs".to_owned(),
        output: format!("not a list of Jobs ({error}): {printed}"),
    })?;
    Ok(list["items"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .flat_map(in_flight)
        .collect())
}

/// Runs the organiser's `kubectl` with `args`, in the namespace of the settings.
async fn kubectl(cluster: &Cluster, mut args: Vec<String>, dir: &Path) -> Result<String, ClusterError> {
    let settings = &cluster.settings;
    let (program, words) = settings.kubectl.split_first().expect("kubectl is checked not empty");
    let mut all = words.to_vec();
    if !settings.namespace.is_empty() {
        all.extend(["--namespace".to_owned(), settings.namespace.clone()]);
    }
    all.append(&mut args);
    run(program, all, dir).await
}

/// The label of the round in `dir` (`PREFIX-STAGE-round-NNNNN`): a DNS label, as the names of Jobs are.
fn round_label(cluster: &Cluster, dir: &Path) -> String {
    let part = |path: Option<&Path>| -> String {
        let name = path.and_then(Path::file_name).unwrap_or_default().to_string_lossy();
        name.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect()
    };
    format!(
        "{}-{}-{}",
        cluster.settings.job_prefix,
        part(dir.parent()),
        part(Some(dir))
    )
}

/// The Indexed Job `name` that plays `tasks` of the round in `dir`.
fn manifest(cluster: &Cluster, dir: &Path, name: &str, tasks: Tasks) -> Value {
    let settings = &cluster.settings;
    let labels = json!({ ROUND_LABEL: round_label(cluster, dir), "app.kubernetes.io/managed-by": "pahtum-arena" });
    let resources = json!({ "cpu": settings.cpus_per_task.to_string(), "memory": settings.memory });
    let mut container = json!({
        "name": "shard",
        "image": settings.image,
        "command": ["sh", dir.join(SCRIPT_FILE).display().to_string()],
        "workingDir": dir.display().to_string(),
        "env": [
            { "name": "ARENA_FIRST_TASK", "value": tasks.first.to_string() },
            { "name": "ARENA_CPUS", "value": settings.cpus_per_task.to_string() },
        ],
        "resources": { "requests": resources, "limits": { "memory": settings.memory } },
        "volumeMounts": [{ "name": "cluster", "mountPath": cluster.folder.display().to_string() }],
    });
    if settings.privileged {
        container["securityContext"] = json!({ "privileged": true });
    }
    let mut metadata = json!({
        "name": name,
        "labels": labels,
        "annotations": { FIRST_TASK: tasks.first.to_string() },
    });
    if !settings.namespace.is_empty() {
        metadata["namespace"] = json!(settings.namespace);
    }
    json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata,
        "spec": {
            "completionMode": "Indexed",
            "completions": tasks.count,
            "parallelism": tasks.count,
            "backoffLimitPerIndex": 0,
            "ttlSecondsAfterFinished": KEEP_FINISHED_S,
            "template": {
                "metadata": { "labels": labels },
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [container],
                    "volumes": [{ "name": "cluster", "persistentVolumeClaim": { "claimName": settings.claim } }],
                },
            },
        },
    })
}

/// The tasks of the Job `job` (as `kubectl get jobs -o json` lists it) still waiting or running, as
/// `NAME_TASK`: none once the Job has finished, else every index neither completed nor failed.
fn in_flight(job: &Value) -> Vec<String> {
    let finished = job["status"]["conditions"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .any(|condition| {
            matches!(condition["type"].as_str(), Some("Complete" | "Failed")) && condition["status"] == "True"
        });
    let name = job["metadata"]["name"].as_str().unwrap_or_default();
    let first = job["metadata"]["annotations"][FIRST_TASK]
        .as_str()
        .and_then(|first| first.parse::<u32>().ok());
    let (Some(first), Some(count), false) = (first, job["spec"]["completions"].as_u64(), finished) else {
        return Vec::new();
    };
    let done = |key: &str| indexes(job["status"][key].as_str().unwrap_or_default());
    let (completed, failed) = (done("completedIndexes"), done("failedIndexes"));
    (0..count as u32)
        .filter(|index| !completed.contains(index) && !failed.contains(index))
        .map(|index| format!("{name}_{}", first + index))
        .collect()
}

/// The indexes of a Job's `completedIndexes` or `failedIndexes` (`1,3-5`); what does not read is none.
fn indexes(text: &str) -> Vec<u32> {
    text.split(',')
        .filter_map(|part| {
            let (low, high) = part.split_once('-').unwrap_or((part, part));
            Some(low.trim().parse::<u32>().ok()?..=high.trim().parse::<u32>().ok()?)
        })
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::config::{ClusterKind, ClusterSettings};

    fn cluster() -> Cluster {
        let text = "kind = \"kubernetes\"\nimage = \"pahtum-arena:1\"\nclaim = \"arena-cluster\"\n\
                    namespace = \"cup\"\nprivileged = true\ntasks = 3\n";
        let settings: ClusterSettings = toml::from_str(text).unwrap();
        assert_eq!(settings.kind, ClusterKind::Kubernetes);
        assert_eq!(settings.problem(), None);
        Cluster::new(&settings, Path::new("/srv/cup"), Path::new("/usr/bin/arena"))
    }

    #[test]
    fn index_lists_read_as_kubernetes_writes_them() {
        assert_eq!(indexes("0,2-4,7"), vec![0, 2, 3, 4, 7]);
        assert_eq!(indexes(""), Vec::<u32>::new());
        assert_eq!(indexes("5-3,x,1"), vec![1]);
    }

    /// The Job plays the round's tasks from the script on the shared volume, mounted where the server sees
    /// it, each index its own task, and no index retried by Kubernetes.
    #[test]
    fn a_task_submitted_again_is_an_indexed_job_of_its_own_task() {
        let cluster = cluster();
        assert_eq!(cluster.arena, PathBuf::from("arena"));
        let dir = cluster.folder.join("final/round-00002");
        let job = manifest(
            &cluster,
            &dir,
            "arena-final-round-00002-4",
            Tasks { first: 3, count: 1 },
        );
        assert_eq!(job["metadata"]["namespace"], "cup");
        assert_eq!(job["metadata"]["labels"][ROUND_LABEL], "arena-final-round-00002");
        assert_eq!(job["spec"]["completionMode"], "Indexed");
        assert_eq!(
            (job["spec"]["completions"].as_u64(), job["spec"]["parallelism"].as_u64()),
            (Some(1), Some(1))
        );
        assert_eq!(job["spec"]["backoffLimitPerIndex"], 0);
        let pod = &job["spec"]["template"]["spec"];
        let container = &pod["containers"][0];
        assert_eq!(
            container["command"],
            json!(["sh", "/srv/cup/cluster/final/round-00002/shard.sh"])
        );
        assert_eq!(container["env"][0], json!({ "name": "ARENA_FIRST_TASK", "value": "3" }));
        assert_eq!(container["volumeMounts"][0]["mountPath"], "/srv/cup/cluster");
        assert_eq!(container["securityContext"]["privileged"], true);
        assert_eq!(pod["volumes"][0]["persistentVolumeClaim"]["claimName"], "arena-cluster");
        assert_eq!(pod["restartPolicy"], "Never");
    }

    /// A Job's tasks in flight are those neither completed nor failed, until the Job is finished.
    #[test]
    fn the_tasks_in_flight_are_those_of_unfinished_jobs_not_done() {
        let job = |conditions: Value| {
            json!({
                "metadata": { "name": "j", "annotations": { FIRST_TASK: "2" } },
                "spec": { "completions": 4 },
                "status": { "completedIndexes": "0,2", "failedIndexes": "1", "conditions": conditions },
            })
        };
        assert_eq!(in_flight(&job(json!([]))), vec!["j_5"]);
        let failed = json!([{ "type": "Failed", "status": "True" }]);
        assert_eq!(in_flight(&job(failed)), Vec::<String>::new());
        let suspended = json!([{ "type": "Suspended", "status": "True" }]);
        assert_eq!(in_flight(&job(suspended)), vec!["j_5"]);
    }
}
