//! Shards: a deterministic share of the schedule, for one job of a job array.
//!
//! A tournament too long for one machine runs as N jobs (a Slurm job array, a
//! Kubernetes Indexed Job, a CI matrix), each playing shard K of N into its own
//! journal; `arena merge` joins the journals afterwards. K counts from 1, as
//! nextest's `--partition count:K/N` does.
//!
//! # The split
//!
//! The unit dealt is the *layout pair*: the two seat-swapped games of one
//! layout (`"PPP-RR-a"` and `"PPP-RR-b"`, adjacent in the schedule), which the
//! pair statistics need together. Units are dealt round-robin in schedule
//! order: the game at schedule index `i` belongs to shard `(i / 2) % N + 1`.
//! So the split is a plain function of the schedule (no hash, no state), every
//! shard holds the same number of layout pairs give or take one, and, as the
//! schedule is round-major, every shard plays every pair of bots about as often.
//!
//! Because the rule is arithmetic, [`ScheduleShape`] maps a game id to its
//! index and back without building the schedule: `arena merge` keeps one bit
//! of state per game, not the games.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use crate::schedule::ScheduleShape;

/// Shard `index` (1-based) of `count`; in JSON (a journal's header), `{"index": K, "count": N}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(try_from = "ShardFields")]
pub struct Shard {
    index: usize,
    count: usize,
}

/// A [`Shard`] as read, before K and N are checked (and its JSON Schema).
#[derive(Deserialize, schemars::JsonSchema)]
struct ShardFields {
    index: usize,
    count: usize,
}

impl TryFrom<ShardFields> for Shard {
    type Error = ShardError;

    fn try_from(fields: ShardFields) -> Result<Shard, ShardError> {
        Shard::new(fields.index, fields.count)
    }
}

/// A shard that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// The text is not `K/N` nor `auto`.
    #[error("{text:?} is not a shard: write K/N, e.g. 1/4 (K counts from 1 to N), or auto")]
    Syntax {
        /// What was given.
        text: String,
    },
    /// K is not from 1 to N.
    #[error("shard {index}/{count} does not exist: K counts from 1 to N, and N is at least 1")]
    OutOfRange {
        /// K, the shard's number.
        index: usize,
        /// N, the number of shards.
        count: usize,
    },
    /// `--shard auto` outside a Slurm job array or a Kubernetes Indexed Job.
    #[error(
        "--shard auto found no job index: set SLURM_ARRAY_TASK_ID (a Slurm job array) or \
         JOB_COMPLETION_INDEX (a Kubernetes Indexed Job), or give --shard K/N"
    )]
    NoIndex,
    /// A job-index variable that is not a whole number.
    #[error("--shard auto: the environment variable {name} is {value:?}, not a whole number")]
    NotANumber {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// A Slurm task id without the array's bounds.
    #[error(
        "--shard auto: SLURM_ARRAY_TASK_ID is set but not {missing}; run inside a job array \
         (sbatch --array=1-N) or give --shard K/N"
    )]
    SlurmIncomplete {
        /// The variable that is missing.
        missing: &'static str,
    },
    /// A Kubernetes index without the number of shards.
    #[error(
        "--shard auto: JOB_COMPLETION_INDEX is set but the number of shards is not: give --shard-count N \
         (the Job's `completions`) or set ARENA_SHARD_COUNT"
    )]
    NoCount,
}

impl Shard {
    /// Shard `index` of `count`, K from 1 to N.
    pub fn new(index: usize, count: usize) -> Result<Shard, ShardError> {
        if count == 0 || index == 0 || index > count {
            return Err(ShardError::OutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }

    /// The 1-based index K.
    pub fn index(self) -> usize {
        self.index
    }

    /// The number of shards N.
    pub fn count(self) -> usize {
        self.count
    }

    /// The shard of `count` that plays the game at schedule index `game`.
    pub fn of_game(game: usize, count: usize) -> Shard {
        Shard {
            index: (game / 2) % count + 1,
            count,
        }
    }

    /// Whether this shard plays the game at schedule index `game`.
    pub fn contains(self, game: usize) -> bool {
        Shard::of_game(game, self.count) == self
    }

    /// The name of this shard's output folder, `shard-K-of-N`.
    pub fn folder_name(self) -> String {
        format!("shard-{}-of-{}", self.index, self.count)
    }

    /// The shard that a folder named by [`Shard::folder_name`] holds.
    pub fn from_folder_name(name: &str) -> Option<Shard> {
        let (index, count) = name.strip_prefix("shard-")?.split_once("-of-")?;
        Shard::new(index.parse().ok()?, count.parse().ok()?).ok()
    }

    /// The shard of a job of a job array, from its environment (`var` reads a variable): Slurm's
    /// `SLURM_ARRAY_TASK_ID` less `SLURM_ARRAY_TASK_MIN`, of `SLURM_ARRAY_TASK_COUNT` (or
    /// `MAX - MIN + 1`), or Kubernetes' 0-based `JOB_COMPLETION_INDEX`, of `count` or
    /// `ARENA_SHARD_COUNT`. A `count` given overrides the environment's.
    pub fn from_env(var: impl Fn(&str) -> Option<String>, count: Option<usize>) -> Result<Shard, ShardError> {
        let number = |name: &'static str| -> Result<Option<usize>, ShardError> {
            var(name)
                .map(|value| value.trim().parse().map_err(|_| ShardError::NotANumber { name, value }))
                .transpose()
        };
        if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            let min = number("SLURM_ARRAY_TASK_MIN")?.ok_or(ShardError::SlurmIncomplete {
                missing: "SLURM_ARRAY_TASK_MIN",
            })?;
            let count = match (
                count,
                number("SLURM_ARRAY_TASK_COUNT")?,
                number("SLURM_ARRAY_TASK_MAX")?,
            ) {
                (Some(count), _, _) | (None, Some(count), _) => count,
                (None, None, Some(max)) => (max + 1).saturating_sub(min),
                (None, None, None) => {
                    return Err(ShardError::SlurmIncomplete {
                        missing: "SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX",
                    });
                }
            };
            let index = id.checked_sub(min).ok_or(ShardError::OutOfRange { index: 0, count })? + 1;
            return Shard::new(index, count);
        }
        if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let count = match count {
                Some(count) => count,
                None => number("ARENA_SHARD_COUNT")?.ok_or(ShardError::NoCount)?,
            };
            return Shard::new(index + 1, count);
        }
        Err(ShardError::NoIndex)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let syntax = || ShardError::Syntax { text: text.to_owned() };
        let (index, count) = text.trim().split_once('/').ok_or_else(syntax)?;
        Shard::new(
            index.trim().parse().map_err(|_| syntax())?,
            count.trim().parse().map_err(|_| syntax())?,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::schedule;
    use crate::testing::tournament;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn every_game_is_in_exactly_one_shard_with_its_layout_pair_and_shards_are_balanced() {
        let mut file = tournament();
        file.games_per_pair = 14;
        let games = schedule(&file);
        for count in 1..=9 {
            let shards: Vec<Shard> = (1..=count).map(|k| Shard::new(k, count).unwrap()).collect();
            for game in &games {
                let holders: Vec<&Shard> = shards.iter().filter(|s| s.contains(game.index)).collect();
                assert_eq!(holders.len(), 1, "game {} in {count} shards", game.id);
                let partner = games
                    .iter()
                    .find(|g| g.layout == game.layout && g.id != game.id)
                    .unwrap();
                assert!(
                    holders[0].contains(partner.index),
                    "{} apart from {}",
                    game.id,
                    partner.id
                );
            }
            let pairs: Vec<usize> = shards
                .iter()
                .map(|s| games.iter().filter(|g| s.contains(g.index)).count() / 2)
                .collect();
            let (min, max) = (pairs.iter().min().unwrap(), pairs.iter().max().unwrap());
            assert!(max - min <= 1, "{count} shards hold {pairs:?} layout pairs");
        }
    }

    #[test]
    fn a_shard_is_json_of_its_k_and_n_checked_when_read() {
        let shard = Shard::new(2, 5).unwrap();
        let json = serde_json::to_string(&shard).unwrap();
        assert_eq!(json, r#"{"index":2,"count":5}"#);
        assert_eq!(serde_json::from_str::<Shard>(&json).unwrap(), shard);
        for wrong in [r#"{"index":0,"count":5}"#, r#"{"index":6,"count":5}"#, r#"{"index":1}"#] {
            assert!(serde_json::from_str::<Shard>(wrong).is_err(), "{wrong}");
        }
    }

    #[test]
    fn shards_parse_from_k_of_n_counting_from_one() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard::new(2, 4).unwrap()));
        assert_eq!(Shard::new(2, 4).unwrap().to_string(), "2/4");
        assert!(matches!("0/4".parse::<Shard>(), Err(ShardError::OutOfRange { .. })));
        assert!(matches!("5/4".parse::<Shard>(), Err(ShardError::OutOfRange { .. })));
        assert!(matches!("2of4".parse::<Shard>(), Err(ShardError::Syntax { .. })));
        let shard = Shard::new(3, 12).unwrap();
        assert_eq!(Shard::from_folder_name(&shard.folder_name()), Some(shard));
        assert_eq!(Shard::from_folder_name("logs"), None);
    }

    #[test]
    fn auto_reads_slurm_and_kubernetes_and_says_what_is_missing() {
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "7"),
            ("SLURM_ARRAY_TASK_MIN", "5"),
            ("SLURM_ARRAY_TASK_MAX", "8"),
        ]);
        assert_eq!(Shard::from_env(slurm, None), Ok(Shard::new(3, 4).unwrap()));
        let counted = env(&[
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "10"),
        ]);
        assert_eq!(Shard::from_env(counted, None), Ok(Shard::new(1, 10).unwrap()));
        assert_eq!(
            Shard::from_env(env(&[("SLURM_ARRAY_TASK_ID", "1")]), None),
            Err(ShardError::SlurmIncomplete {
                missing: "SLURM_ARRAY_TASK_MIN"
            })
        );
        assert_eq!(
            Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "0")]), Some(3)),
            Ok(Shard::new(1, 3).unwrap())
        );
        let k8s = env(&[("JOB_COMPLETION_INDEX", "2"), ("ARENA_SHARD_COUNT", "3")]);
        assert_eq!(Shard::from_env(k8s, None), Ok(Shard::new(3, 3).unwrap()));
        assert_eq!(
            Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "0")]), None),
            Err(ShardError::NoCount)
        );
        assert_eq!(
            Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "3")]), Some(3)),
            Err(ShardError::OutOfRange { index: 4, count: 3 })
        );
        assert_eq!(Shard::from_env(env(&[]), Some(3)), Err(ShardError::NoIndex));
        assert!(matches!(
            Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "x")]), Some(3)),
            Err(ShardError::NotANumber { .. })
        ));
    }
}
