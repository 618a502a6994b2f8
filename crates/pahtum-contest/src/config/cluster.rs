//! `[cluster]` of `contest.toml`: the scheduler that plays the contest's rounds, and its keys.
//!
//! One table for both schedulers, as one mechanism plays on both (`crate::cluster`): the keys every cluster
//! has (tasks, cores, the shared folder, the `arena` the tasks run, retries, polling), Slurm's own
//! (partition, account, more `sbatch` options) and Kubernetes' own (namespace, image, the claim of the shared
//! volume, the Jobs' name prefix, the pods' memory and privilege, the `kubectl` command). A key of the other
//! scheduler's is refused by name rather than ignored: an organiser who writes `image = ...` under
//! `kind = "slurm"` has misread something, and is told.

use std::path::PathBuf;

use serde::Deserialize;

/// The scheduler that a cluster's rounds are submitted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClusterKind {
    /// Slurm: each round a job array (`sbatch --array`), watched with `squeue`, cancelled with `scancel`.
    Slurm,
    /// Kubernetes: each round an Indexed Job (`kubectl create -f` of a generated manifest), watched with
    /// `kubectl get jobs`.
    Kubernetes,
}

/// A cluster that plays the contest's rounds (`[cluster]`): each round's games are dealt to `tasks` shards,
/// each a task of a job array, which play into their own journals on the shared folder; the server checks
/// every record of each and merges them into the league's journal (`crate::cluster`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSettings {
    /// The scheduler.
    pub kind: ClusterKind,
    /// The tasks (shards) of each round.
    #[serde(default = "defaults::tasks")]
    pub tasks: u32,
    /// The cores of each task: the games it plays at once.
    #[serde(default = "defaults::cpus_per_task")]
    pub cpus_per_task: u32,
    /// A folder every node sees (NFS, Lustre...), where each round's shards are played; relative: to the
    /// contest's folder. Default: `cluster` in the contest's folder.
    #[serde(default = "defaults::folder")]
    pub folder: PathBuf,
    /// The `arena` executable the tasks run, as the nodes see it; empty: this server's own on Slurm, `arena`
    /// on the image's `PATH` on Kubernetes.
    #[serde(default)]
    pub arena: String,
    /// How often a failed or lost task is submitted again before the round stops with an error.
    #[serde(default = "defaults::retries")]
    pub retries: u32,
    /// How often, in seconds, the server asks the scheduler what is left.
    #[serde(default = "defaults::poll_s")]
    pub poll_s: u32,
    /// Slurm: the partition the jobs are submitted to; empty: the cluster's default.
    #[serde(default)]
    pub partition: String,
    /// Slurm: the account the jobs are charged to; empty: the submitter's default.
    #[serde(default)]
    pub account: String,
    /// Slurm: more options for `sbatch`, each a word (e.g. `["--time=01:00:00", "--qos=short"]`).
    #[serde(default)]
    pub sbatch_args: Vec<String>,
    /// Kubernetes: the namespace of the Jobs; empty: `kubectl`'s current one.
    #[serde(default)]
    pub namespace: String,
    /// Kubernetes: the image the pods run (with `arena` and the bots' runtimes, as `deploy/k8s/Dockerfile`).
    #[serde(default)]
    pub image: String,
    /// Kubernetes: the PersistentVolumeClaim (ReadWriteMany) that holds `folder`; each pod mounts it at
    /// `folder`'s own path, so that a path means the same on the server and in the pods.
    #[serde(default)]
    pub claim: String,
    /// Kubernetes: the prefix of the Jobs' names (two contests in one namespace need two prefixes).
    #[serde(default = "defaults::job_prefix")]
    pub job_prefix: String,
    /// Kubernetes: the memory each pod requests and may use (a Kubernetes quantity).
    #[serde(default = "defaults::memory")]
    pub memory: String,
    /// Kubernetes: whether the pods run privileged, which the sandbox (bubblewrap: namespaces, mounts,
    /// cgroups) needs inside a container; only on nodes set aside for the contest.
    #[serde(default)]
    pub privileged: bool,
    /// Kubernetes: the `kubectl` command, a word each (e.g. `["kubectl", "--context", "contest"]`).
    #[serde(default = "defaults::kubectl")]
    pub kubectl: Vec<String>,
}

mod defaults {
    pub(super) fn tasks() -> u32 {
        4
    }
    pub(super) fn cpus_per_task() -> u32 {
        2
    }
    pub(super) fn folder() -> std::path::PathBuf {
        "cluster".into()
    }
    pub(super) fn retries() -> u32 {
        3
    }
    pub(super) fn poll_s() -> u32 {
        5
    }
    pub(super) fn job_prefix() -> String {
        "arena".into()
    }
    pub(super) fn memory() -> String {
        "2Gi".into()
    }
    pub(super) fn kubectl() -> Vec<String> {
        vec!["kubectl".into()]
    }
}

/// The longest a Job's name prefix may be: a Job's name is a DNS label of at most 63 characters, and the
/// arena adds the stage, the round and the submission to it (`-ladder-round-00001-12`).
const LONGEST_PREFIX: usize = 30;

impl ClusterSettings {
    /// What is wrong with the settings, in the organiser's words, if anything.
    pub fn problem(&self) -> Option<String> {
        if self.tasks == 0 || self.cpus_per_task == 0 || self.poll_s == 0 {
            return Some("tasks, cpus_per_task and poll_s must each be 1 or more".to_owned());
        }
        let (kind, foreign) = match self.kind {
            ClusterKind::Slurm => ("slurm", self.kubernetes_keys_set()),
            ClusterKind::Kubernetes => ("kubernetes", self.slurm_keys_set()),
        };
        if let Some(key) = foreign.first() {
            return Some(format!(
                "{key} is not a key of kind = \"{kind}\"; remove it, or choose the scheduler it belongs to"
            ));
        }
        if self.kind == ClusterKind::Kubernetes {
            if self.image.is_empty() || self.claim.is_empty() {
                return Some(
                    "kind = \"kubernetes\" needs the pods' image and the claim of the shared volume, e.g. \
                     image = \"pahtum-arena:latest\" and claim = \"arena-cluster\""
                        .to_owned(),
                );
            }
            let label = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
            if self.job_prefix.is_empty()
                || self.job_prefix.len() > LONGEST_PREFIX
                || !self.job_prefix.chars().all(label)
                || !self.job_prefix.starts_with(|c: char| c.is_ascii_lowercase())
            {
                return Some(format!(
                    "job_prefix {:?} is not a Job name's start: 1 to {LONGEST_PREFIX} lowercase letters, digits \
                     and '-', from a letter",
                    self.job_prefix
                ));
            }
            if self.kubectl.is_empty() {
                return Some("kubectl is empty: name the command, e.g. [\"kubectl\"]".to_owned());
            }
        }
        None
    }

    /// Slurm's own keys that are set.
    fn slurm_keys_set(&self) -> Vec<&'static str> {
        [
            ("partition", !self.partition.is_empty()),
            ("account", !self.account.is_empty()),
            ("sbatch_args", !self.sbatch_args.is_empty()),
        ]
        .into_iter()
        .filter_map(|(key, set)| set.then_some(key))
        .collect()
    }

    /// Kubernetes' own keys that are set to other than their defaults.
    fn kubernetes_keys_set(&self) -> Vec<&'static str> {
        [
            ("namespace", !self.namespace.is_empty()),
            ("image", !self.image.is_empty()),
            ("claim", !self.claim.is_empty()),
            ("job_prefix", self.job_prefix != defaults::job_prefix()),
            ("memory", self.memory != defaults::memory()),
            ("privileged", self.privileged),
            ("kubectl", self.kubectl != defaults::kubectl()),
        ]
        .into_iter()
        .filter_map(|(key, set)| set.then_some(key))
        .collect()
    }
}
