//! Where a round's tasks run and which of them are submitted together: the cluster as the contest's settings
//! and folder make it, shared by the round's loop and both schedulers.

use std::path::{Path, PathBuf};

use crate::config::{ClusterKind, ClusterSettings};

/// The round's script, in its folder.
pub(super) const SCRIPT_FILE: &str = "shard.sh";

/// Tasks `first` to `first + count - 1` of a round, submitted together.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tasks {
    /// The first task.
    pub(super) first: u32,
    /// How many.
    pub(super) count: u32,
}

/// A cluster, as the contest's settings and folder make it.
#[derive(Debug, Clone)]
pub struct Cluster {
    /// The settings.
    pub settings: ClusterSettings,
    /// The shared folder the rounds are played in.
    pub folder: PathBuf,
    /// The `arena` executable the tasks run.
    pub arena: PathBuf,
}

impl Cluster {
    /// The cluster of `settings`, for the contest in `dir`, its tasks running the `arena` the settings name;
    /// if none, `arena` (this server's own) on Slurm, and the image's `arena` on Kubernetes. The folder is
    /// made absolute: the tasks' script and the pods' mount name it from anywhere.
    pub fn new(settings: &ClusterSettings, dir: &Path, arena: &Path) -> Cluster {
        let folder = dir.join(&settings.folder);
        Cluster {
            folder: std::path::absolute(&folder).unwrap_or(folder),
            arena: match (settings.arena.is_empty(), settings.kind) {
                (false, _) => PathBuf::from(&settings.arena),
                (true, ClusterKind::Slurm) => arena.to_owned(),
                (true, ClusterKind::Kubernetes) => PathBuf::from("arena"),
            },
            settings: settings.clone(),
        }
    }
}
