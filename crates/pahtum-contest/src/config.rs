//! `contest.toml`: what the organiser decides about a contest, read once at
//! start and checked key by key.
//!
//! The league's own rules (time control, layouts, the pairing's precision,
//! the sandbox) stay in the league's `league.toml` (`DIR/league/`), the one
//! place a league's rules are read from, so that `arena league table`,
//! `arena report` and `arena verify` read the contest's league like any other.
//! This file holds what only a contest has: who may register and see what,
//! its address on the internet, and the limits and quotas that keep one
//! author from taking the machine, and its season's phases ([`crate::season`]).
//! `tournaments/contest/contest.toml` documents every key with its default, and a
//! test holds the two equal.

use std::path::{Path, PathBuf};

use pahtum_stats::Sprt;
use serde::Deserialize;

use crate::season::Phases;

mod cluster;
pub use cluster::{ClusterKind, ClusterSettings};

/// The contest's file in its folder.
pub const CONTEST_FILE: &str = "contest.toml";

/// How authors get an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Registration {
    /// Only through an invitation of the organiser's.
    Invitation,
    /// Anyone may register; the organiser approves each account before it can submit.
    Approval,
}

/// Who sees the ladder, the entrants and the games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Anyone who reaches the server.
    Public,
    /// Those logged in.
    Participants,
}

/// A contest's `contest.toml`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contest {
    /// Its name, on every page.
    pub name: String,
    /// How authors get an account.
    #[serde(default = "defaults::registration")]
    pub registration: Registration,
    /// Who sees the ladder, the entrants and the games.
    #[serde(default = "defaults::visibility")]
    pub visibility: Visibility,
    /// The address people open, as `https://contest.example.org` behind a reverse proxy that holds TLS;
    /// empty: the address the server listens at. Links, the `Host` the server answers to, and the
    /// cookies' `Secure` follow it.
    #[serde(default)]
    pub public_url: String,
    /// The final: the places it tells apart and its cap on games (`[final]`).
    #[serde(default, rename = "final")]
    pub final_settings: FinalSettings,
    /// Where the rounds of the ladder and the final are played: on this machine, or on a cluster
    /// (`[cluster]`).
    #[serde(default)]
    pub cluster: Option<ClusterSettings>,
    /// The limits and quotas.
    #[serde(default)]
    pub limits: Limits,
    /// The test a version submitted on condition passes to become the active one (`[promotion]`).
    #[serde(default)]
    pub promotion: PromotionSettings,
    /// The season's phases (`[phases]`), checked in order; none: always open, never frozen.
    #[serde(default)]
    pub phases: Option<Phases>,
}

/// How the final is played (`[final]`): it plays the active version of each entrant at the freeze, by the
/// league's rules and time control, until its prize places are apart (`pahtum_league::separation`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FinalSettings {
    /// The prizes' places, which the final tells apart (3: first, second, third, and third from fourth).
    pub places: u32,
    /// The likelihood of superiority at which two adjacent places are apart.
    pub confidence: f64,
    /// The most games of the final, all pairs together.
    pub max_games: u32,
    /// The most games one pair plays (even, at most 128).
    pub games_per_pair: u32,
    /// The layout pairs each pair of adjacent places not yet apart plays per round.
    pub pairs_per_round: u32,
    /// The seed the final's layouts are drawn from.
    pub seed: u64,
}

impl Default for FinalSettings {
    fn default() -> FinalSettings {
        FinalSettings {
            places: 3,
            confidence: 0.95,
            max_games: 2000,
            games_per_pair: 128,
            pairs_per_round: 1,
            seed: 0,
        }
    }
}

impl FinalSettings {
    /// The final's rules beyond the league's, checked by the league's own reader of `league.toml`: the
    /// most games per pair, the seed, and the `[separate]` table of its pairing rule.
    pub fn league_keys(&self) -> String {
        format!(
            "games_per_pair = {}\nseed = {}\n\n[separate]\nplaces = {}\nconfidence = {}\nmax_games = {}\n\
             pairs_per_round = {}\n",
            self.games_per_pair, self.seed, self.places, self.confidence, self.max_games, self.pairs_per_round
        )
    }

    /// The final's pairing rule, or what is wrong with the settings.
    pub fn separate(&self) -> Result<pahtum_league::rules::Separate, pahtum_tournament::config::ConfigError> {
        let text = format!("name = \"final\"\n{}", self.league_keys());
        let league = pahtum_league::rules::parse(Path::new("final"), &text)?;
        Ok(league.separate.expect("a [separate] table"))
    }
}

/// How a version submitted "only if not weaker" is tested against its author's active version
/// (`[promotion]`): unrated games in layout pairs until the pentanomial SPRT decides between H0 "the new
/// version is at most `elo0` Elo stronger" (with a negative `elo0`: at least that much weaker) and H1 "at
/// least `elo1`", or until `max_games` are played ([`crate::promotions`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PromotionSettings {
    /// H0: the new version is at most this many Elo stronger (negative: weaker by at least its opposite).
    pub elo0: f64,
    /// H1: the new version is at least this many Elo stronger.
    pub elo1: f64,
    /// The risk of making a weaker version active (accepting H1 when H0 holds).
    pub alpha: f64,
    /// The risk of keeping out a version that is not weaker (accepting H0 when H1 holds).
    pub beta: f64,
    /// The most games of one test (an even number: layout pairs); a test that has not decided then leaves
    /// the new version out.
    pub max_games: u32,
    /// The games of a test played at once: the share of the machine that promotions take beside the ladder
    /// (one test plays at a time).
    pub games_at_once: usize,
}

impl Default for PromotionSettings {
    fn default() -> PromotionSettings {
        PromotionSettings {
            elo0: -10.0,
            elo1: 0.0,
            alpha: 0.05,
            beta: 0.05,
            max_games: 1000,
            games_at_once: 1,
        }
    }
}

impl PromotionSettings {
    /// The test, or what is wrong with its bounds.
    pub fn sprt(&self) -> Result<Sprt, pahtum_stats::StatsError> {
        Sprt::new(self.elo0, self.elo1, self.alpha, self.beta)
    }

    /// What is wrong with the settings, in words that name the key; `None` when they can be used.
    fn problem(&self) -> Option<String> {
        let least = 2 * pahtum_stats::sprt::MIN_PAIRS;
        if let Err(error) = self.sprt() {
            Some(error.to_string())
        } else if u64::from(self.max_games) < least || self.max_games % 2 == 1 {
            Some(format!(
                "max_games = {} must be an even number of at least {least}: the test's LLR moves only after {} \
                 layout pairs",
                self.max_games,
                pahtum_stats::sprt::MIN_PAIRS
            ))
        } else if self.games_at_once == 0 {
            Some("games_at_once must be 1 or more".to_owned())
        } else {
            None
        }
    }
}

/// What one author, one upload or one request may take.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// The largest upload, as sent (compressed), in bytes.
    pub upload_bytes: u64,
    /// The most files and folders an upload may hold.
    pub upload_entries: usize,
    /// The deepest folder of an upload.
    pub upload_depth: usize,
    /// The most bytes an upload may expand to.
    pub upload_expanded_bytes: u64,
    /// The submissions waiting to build, of all authors together; more are refused until some are built.
    pub build_queue: usize,
    /// Builds and checks at once, each author's one at a time.
    pub builders: usize,
    /// Submissions per author per day (UTC).
    pub submissions_per_day: u32,
    /// Failed logins per address per minute.
    pub logins_per_minute: u32,
    /// A session ends after this many hours without a request.
    pub session_idle_hours: u32,
    /// A session ends this many days after its login, however used.
    pub session_days: u32,
    /// An invitation is good for this many days.
    pub invitation_days: u32,
    /// The most lost games one request to analyse takes, the latest first.
    pub analysis_games: usize,
    /// The requests to analyse waiting, of all authors together (each author has at most one).
    pub analysis_queue: usize,
    /// Challenges per author per day (UTC).
    pub challenges_per_day: u32,
    /// The most layout pairs (two games each) of one challenge.
    pub challenge_pairs: u32,
    /// The challenges waiting, of all authors together (each author has at most one).
    pub challenge_queue: usize,
    /// The games of a challenge played at once: the share of the machine that challenges take beside the
    /// ladder (one challenge plays at a time).
    pub challenge_games_at_once: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            upload_bytes: 16 << 20,
            upload_entries: 2_000,
            upload_depth: 16,
            upload_expanded_bytes: 256 << 20,
            build_queue: 100,
            builders: 1,
            submissions_per_day: 20,
            logins_per_minute: 10,
            session_idle_hours: 24,
            session_days: 30,
            invitation_days: 7,
            analysis_games: 10,
            analysis_queue: 50,
            challenges_per_day: 5,
            challenge_pairs: 10,
            challenge_queue: 50,
            challenge_games_at_once: 1,
        }
    }
}

mod defaults {
    use super::{Registration, Visibility};

    pub(super) fn registration() -> Registration {
        Registration::Invitation
    }

    pub(super) fn visibility() -> Visibility {
        Visibility::Public
    }
}

/// Why `contest.toml` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// It cannot be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// It is not a contest's file.
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, as the parser says it.
        message: String,
    },
}

impl Contest {
    /// Reads and checks the contest's file in its folder `dir`.
    pub fn load(dir: &Path) -> Result<Contest, ConfigError> {
        let path = dir.join(CONTEST_FILE);
        let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
            path: path.clone(),
            source,
        })?;
        Contest::parse(&path, &text)
    }

    /// Checks the text of a contest's file at `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Contest, ConfigError> {
        let invalid = |message: String| ConfigError::Invalid {
            path: path.to_owned(),
            message,
        };
        let contest: Contest =
            toml::from_str(text).map_err(|error| invalid(error.to_string().trim_end().to_owned()))?;
        if contest.name.trim().is_empty() {
            return Err(invalid(
                "the contest's name is empty: give it one, e.g. name = \"Spring cup\"".into(),
            ));
        }
        if !(contest.public_url.is_empty()
            || contest.public_url.starts_with("http://")
            || contest.public_url.starts_with("https://"))
        {
            return Err(invalid(format!(
                "public_url {:?} is not an http:// or https:// address; leave it empty to use the address served",
                contest.public_url
            )));
        }
        contest
            .final_settings
            .separate()
            .map_err(|error| invalid(format!("[final]: {error}")))?;
        if let Some(problem) = contest.promotion.problem() {
            return Err(invalid(format!("[promotion]: {problem}")));
        }
        if let Some(problem) = contest.cluster.as_ref().and_then(ClusterSettings::problem) {
            return Err(invalid(format!("[cluster]: {problem}")));
        }
        Ok(contest)
    }

    /// Whether the contest is reached over TLS (its cookies are then `Secure`).
    pub fn over_tls(&self) -> bool {
        self.public_url.starts_with("https://")
    }
}

/// The `contest.toml` that `arena contest init` writes: the name, and the two choices an organiser makes
/// first; every other key keeps its default (`tournaments/contest/contest.toml` lists them).
pub fn default_file(name: &str) -> String {
    format!(
        "# A contest's settings; tournaments/contest/contest.toml lists every key with its default.\n\
         # The league's rules (time control, layouts, sandbox) are in league/league.toml.\n\
         name = {name:?}\n\
         # \"invitation\": authors join through `arena contest invite`; \"approval\": anyone registers, you approve.\n\
         registration = \"invitation\"\n\
         # \"public\": anyone sees the ladder and the games; \"participants\": only those logged in.\n\
         visibility = \"public\"\n\
         # The address people open, e.g. \"https://contest.example.org\" behind a reverse proxy with TLS.\n\
         public_url = \"\"\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::season::PhaseKey;

    /// A season's four instants, in order.
    const SEASON: &str = "open = \"2026-12-01T12:00:00Z\"\nfreeze = \"2026-12-20T12:00:00Z\"\n\
                          final = \"2026-12-21T12:00:00Z\"\nend = \"2026-12-22T12:00:00Z\"\n";

    fn reference() -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tournaments/contest/contest.toml");
        std::fs::read_to_string(path).unwrap()
    }

    /// The reference file parses, states the true defaults, and names every key the contest reads.
    #[test]
    fn the_reference_file_states_the_true_defaults() {
        let text = reference();
        let reference = Contest::parse(Path::new("contest.toml"), &text).unwrap();
        let minimal = Contest::parse(Path::new("contest.toml"), "name = \"Reference\"").unwrap();
        assert_eq!(reference, minimal);
        let written = Contest::parse(Path::new("contest.toml"), &default_file("Reference")).unwrap();
        assert_eq!(written, minimal);
        let keys = toml::from_str::<toml::Table>(&text).unwrap();
        let limits = keys["limits"].as_table().unwrap();
        let serialized = format!("{:?}", Limits::default());
        let fields = serialized.matches(": ").count();
        assert_eq!(limits.len(), fields, "every limit is in the reference file");
        let promotion = keys["promotion"].as_table().unwrap();
        let fields = format!("{:?}", PromotionSettings::default()).matches(": ").count();
        assert_eq!(
            promotion.len(),
            fields,
            "every key of [promotion] is in the reference file"
        );
        let final_keys = keys["final"].as_table().unwrap();
        let fields = format!("{:?}", FinalSettings::default()).matches(": ").count();
        assert_eq!(
            final_keys.len(),
            fields,
            "every key of [final] is in the reference file"
        );
    }

    /// The reference file's two `[cluster]` tables, commented out there, one a scheduler's, each uncommented.
    fn reference_clusters() -> Vec<String> {
        let text = reference();
        text.match_indices("# [cluster]")
            .map(|(start, _)| {
                text[start..]
                    .lines()
                    .take_while(|line| line.starts_with("# "))
                    .map(|line| format!("{}\n", &line[2..]))
                    .collect()
            })
            .collect()
    }

    /// The reference file's `[cluster]` of Slurm reads as a Slurm cluster of every default, and its
    /// Kubernetes one as a Kubernetes cluster; the two name every key of `[cluster]`.
    #[test]
    fn the_reference_files_clusters_read_with_their_defaults() {
        let blocks = reference_clusters();
        assert_eq!(blocks.len(), 2, "a Slurm and a Kubernetes [cluster]");
        let read = |block: &str| {
            Contest::parse(Path::new("contest.toml"), &format!("name = \"x\"\n{block}"))
                .unwrap()
                .cluster
                .unwrap()
        };
        let slurm = read(&blocks[0]);
        assert_eq!(slurm.kind, ClusterKind::Slurm);
        assert_eq!(
            (slurm.tasks, slurm.cpus_per_task, slurm.retries, slurm.poll_s),
            (4, 2, 3, 5)
        );
        assert_eq!(slurm.folder, Path::new("cluster"));
        assert_eq!(read("[cluster]\nkind = \"slurm\"\n"), slurm);
        let kubernetes = read(&blocks[1]);
        assert_eq!(kubernetes.kind, ClusterKind::Kubernetes);
        assert_eq!(
            (
                kubernetes.job_prefix.as_str(),
                kubernetes.memory.as_str(),
                kubernetes.privileged
            ),
            ("arena", "2Gi", false)
        );
        assert_eq!(kubernetes.kubectl, ["kubectl"]);
        let keys: std::collections::BTreeSet<String> = blocks
            .iter()
            .flat_map(|block| {
                let table: toml::Table = toml::from_str(block).unwrap();
                table["cluster"].as_table().unwrap().keys().cloned().collect::<Vec<_>>()
            })
            .collect();
        let fields = format!("{slurm:?}").matches(": ").count();
        assert_eq!(
            keys.len(),
            fields,
            "every key of [cluster] is in the reference file: {keys:?}"
        );
    }

    /// A key of the other scheduler's is refused by its name, and Kubernetes without its image or claim.
    #[test]
    fn a_cluster_refuses_the_other_schedulers_keys() {
        let problem = |table: &str| {
            let error =
                Contest::parse(Path::new("contest.toml"), &format!("name = \"x\"\n[cluster]\n{table}")).unwrap_err();
            error.to_string()
        };
        let said = problem("kind = \"slurm\"\nimage = \"a\"\n");
        assert!(said.contains("image is not a key of kind = \"slurm\""), "{said}");
        let said = problem("kind = \"kubernetes\"\nimage = \"a\"\nclaim = \"c\"\nsbatch_args = [\"-t1\"]\n");
        assert!(
            said.contains("sbatch_args is not a key of kind = \"kubernetes\""),
            "{said}"
        );
        let said = problem("kind = \"kubernetes\"\nimage = \"a\"\n");
        assert!(said.contains("needs the pods' image and the claim"), "{said}");
        let said = problem("kind = \"kubernetes\"\nimage = \"a\"\nclaim = \"c\"\njob_prefix = \"Cup_1\"\n");
        assert!(said.contains("job_prefix \"Cup_1\""), "{said}");
    }

    /// The reference file's `[phases]`, commented out there (a contest has no season unless it says so), reads
    /// as a season once its lines are uncommented.
    #[test]
    fn the_reference_files_phases_read_as_a_season() {
        let uncommented: String = reference()
            .lines()
            .map(|line| match line.strip_prefix("# ") {
                Some(rest)
                    if rest == "[phases]"
                        || PhaseKey::ALL
                            .iter()
                            .any(|key| rest.starts_with(&format!("{} = \"", key.name()))) =>
                {
                    rest
                }
                _ => line,
            })
            .flat_map(|line| [line, "\n"])
            .collect();
        let contest = Contest::parse(Path::new("contest.toml"), &uncommented).unwrap();
        let phases = contest.phases.expect("the reference file's [phases]");
        assert_eq!(phases.final_start.to_string(), "2026-12-21T12:00:00Z");
        assert!(phases.open < phases.freeze && phases.end > phases.final_start);
    }

    #[test]
    fn mistakes_are_told() {
        let path = Path::new("contest.toml");
        for (text, says) in [
            ("name = \"x\"\nregistration = \"anyone\"", "registration"),
            ("name = \"x\"\n[limits]\nbuild_queues = 3", "build_queues"),
            ("name = \" \"", "empty"),
            ("name = \"x\"\npublic_url = \"contest.example.org\"", "http"),
            (
                "name = \"x\"\n[phases]\nopen = \"2026-12-01T12:00:00Z\"",
                "[phases] has no `freeze`",
            ),
            (
                "name = \"x\"\n[phases]\nopen = \"2026-12-01T12:00:00Z\"\nstart = \"2026-12-01T12:00:00Z\"",
                "start",
            ),
            (
                &format!("name = \"x\"\n[phases]\n{SEASON}").replace("freeze = \"2026-12-20", "freeze = \"2026-11-20"),
                "freeze (2026-11-20T12:00:00Z) must come after open (2026-12-01T12:00:00Z)",
            ),
            (
                &format!("name = \"x\"\n[phases]\n{SEASON}").replace("12:00:00Z\"\nend", "12:00:00+01:00\"\nend"),
                "final = \"2026-12-21T12:00:00+01:00\" is not in UTC",
            ),
            (
                &format!("name = \"x\"\n[phases]\n{SEASON}")
                    .replace("end = \"2026-12-22T12:00:00Z\"", "end = \"soon\""),
                "end = \"soon\" is not an RFC 3339 instant",
            ),
            (
                &format!("name = \"x\"\n[phases]\n{SEASON}").replace("end = \"2026-12-22T12:00:00Z\"", "end = 5"),
                "end = \"5\" is not an RFC 3339 instant",
            ),
        ] {
            let error = Contest::parse(path, text).unwrap_err().to_string();
            assert!(error.contains(says), "{text}: {error}");
        }
        for (promotion, says) in [
            (
                "elo0 = 5.0",
                "[promotion]: invalid sprt parameters: elo0 must be below elo1, got 5 and 0",
            ),
            (
                "alpha = 1.5",
                "[promotion]: invalid sprt parameters: alpha must be between 0 and 1, got 1.5",
            ),
            (
                "max_games = 7",
                "[promotion]: max_games = 7 must be an even number of at least 20",
            ),
            (
                "max_games = 10",
                "[promotion]: max_games = 10 must be an even number of at least 20",
            ),
            ("games_at_once = 0", "[promotion]: games_at_once must be 1 or more"),
            ("elo2 = 3.0", "elo2"),
        ] {
            let text = format!("name = \"x\"\n[promotion]\n{promotion}\n");
            let error = Contest::parse(path, &text).unwrap_err().to_string();
            assert!(error.contains(says), "{text}: {error}");
        }
        let quick = Contest::parse(path, "name = \"x\"\n[promotion]\nelo0 = -50\nelo1 = 50\nmax_games = 20").unwrap();
        let sprt = quick.promotion.sprt().unwrap();
        assert_eq!((sprt.elo0(), sprt.elo1(), quick.promotion.max_games), (-50.0, 50.0, 20));
        let tls = Contest::parse(path, "name = \"x\"\npublic_url = \"https://c.example\"").unwrap();
        assert!(tls.over_tls());
        let season = Contest::parse(path, &format!("name = \"x\"\n[phases]\n{SEASON}")).unwrap();
        assert_eq!(season.phases.unwrap().freeze.to_string(), "2026-12-20T12:00:00Z");
        let unquoted = Contest::parse(path, &format!("name = \"x\"\n[phases]\n{}", SEASON.replace('"', ""))).unwrap();
        assert_eq!(unquoted, season, "TOML's own date-times read the same");
        let local = SEASON
            .replace('"', "")
            .replace("open = 2026-12-01T12:00:00Z", "open = 2026-12-01T12:00:00");
        let error = Contest::parse(path, &format!("name = \"x\"\n[phases]\n{local}")).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("open = \"2026-12-01T12:00:00\" is not an RFC 3339 instant"),
            "{error}"
        );
    }
}
