//! The first layer: the file's keys as written, every key optional and
//! unknown keys refused (serde's `deny_unknown_fields`), so that a misspelt
//! key is reported, not silently ignored; and one problem with one key,
//! before the file's path is attached.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::Deserialize;

/// The file's keys as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileKeys {
    pub(super) name: Option<String>,
    pub(super) seed: Option<u64>,
    pub(super) format: Option<String>,
    pub(super) challenger: Option<String>,
    pub(super) rounds: Option<i64>,
    pub(super) pairs: Option<i64>,
    pub(super) max_pairs: Option<i64>,
    pub(super) seeds_from: Option<String>,
    pub(super) games_per_pair: Option<i64>,
    pub(super) pause_idle: Option<bool>,
    pub(super) sandbox: Option<bool>,
    pub(super) memory_mb: Option<u64>,
    pub(super) max_processes: Option<u64>,
    pub(super) open_files: Option<u64>,
    pub(super) file_size_mb: Option<u64>,
    pub(super) tmp_mb: Option<u64>,
    pub(super) concurrency: Option<i64>,
    pub(super) out: Option<PathBuf>,
    pub(super) restart: Option<String>,
    pub(super) on_overload: Option<String>,
    pub(super) affinity: Option<bool>,
    pub(super) durability: Option<String>,
    #[serde(default)]
    pub(super) rules: RulesKeys,
    #[serde(default)]
    pub(super) time: TimeKeys,
    #[serde(default)]
    pub(super) limits: LimitKeys,
    #[serde(default)]
    pub(super) bots: Vec<BotKeys>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesKeys {
    pub placement: Option<String>,
    pub blocks: Option<Vec<i64>>,
    pub layouts: Option<Vec<Vec<String>>>,
    pub openings: Option<String>,
    pub openings_order: Option<String>,
    pub pie: Option<bool>,
    pub adjudicate: Option<String>,
    pub solved_cells: Option<i64>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeKeys {
    pub move_ms: Option<u64>,
    pub base_ms: Option<u64>,
    pub increment_ms: Option<u64>,
    pub margin_ms: Option<u64>,
    pub clock: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LimitKeys {
    pub(super) startup_ms: Option<u64>,
    pub(super) ready_ms: Option<u64>,
    pub(super) ping_ms: Option<u64>,
    pub(super) quit_grace_ms: Option<u64>,
    pub(super) stderr_cap_bytes: Option<u64>,
}

impl LimitKeys {
    /// Whether any key of `[limits]` is given.
    pub(super) fn is_given(&self) -> bool {
        let LimitKeys {
            startup_ms,
            ready_ms,
            ping_ms,
            quit_grace_ms,
            stderr_cap_bytes,
        } = self;
        [startup_ms, ready_ms, ping_ms, quit_grace_ms, stderr_cap_bytes]
            .iter()
            .any(|key| key.is_some())
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BotKeys {
    pub(super) name: Option<String>,
    pub(super) command: Option<String>,
    pub(super) builtin: Option<String>,
    pub(super) dir: Option<String>,
    #[serde(default)]
    pub(super) env: BTreeMap<String, String>,
    pub(super) time: Option<TimeKeys>,
    pub(super) sandbox: Option<bool>,
    pub(super) memory_mb: Option<u64>,
    pub(super) max_processes: Option<u64>,
    pub(super) open_files: Option<u64>,
    pub(super) file_size_mb: Option<u64>,
    pub(super) tmp_mb: Option<u64>,
    #[serde(default)]
    pub(super) ro_paths: Vec<String>,
    #[serde(default)]
    pub(super) rw_paths: Vec<String>,
}

/// One problem with one key, before the file's path is attached.
#[derive(Debug)]
pub struct KeyError {
    pub key: String,
    pub problem: String,
    pub fix: String,
}

pub fn key_error(key: impl Into<String>, problem: impl fmt::Display, fix: impl Into<String>) -> KeyError {
    KeyError {
        key: key.into(),
        problem: problem.to_string(),
        fix: fix.into(),
    }
}
