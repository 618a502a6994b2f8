//! From the limits a tournament file sets to the referee's [`Limits`]: a key
//! the file leaves out keeps the referee's default.

use std::time::Duration;

use pahtum_referee::Limits;
use pahtum_tournament::config::LimitOverrides;

/// The referee's limits with the file's `overrides`.
pub fn referee_limits(overrides: &LimitOverrides) -> Limits {
    let defaults = Limits::default();
    let ms = |value: Option<u64>, default: Duration| value.map_or(default, Duration::from_millis);
    Limits {
        startup: ms(overrides.startup_ms, defaults.startup),
        ready: ms(overrides.ready_ms, defaults.ready),
        ping: ms(overrides.ping_ms, defaults.ping),
        quit_grace: ms(overrides.quit_grace_ms, defaults.quit_grace),
        stderr_cap: overrides.stderr_cap_bytes.unwrap_or(defaults.stderr_cap),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use pahtum_tournament::config::{load, parse};

    use super::*;

    const TWO_BOTS: &str =
        "name = \"t\"\n[[bots]]\nname = \"a\"\nbuiltin = \"heuristic\"\n[[bots]]\nname = \"b\"\nbuiltin = \"engine\"\n";

    fn bundled(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tournaments")
            .join(name)
    }

    #[test]
    fn limits_override_the_referee_defaults_key_by_key() {
        let file = parse(
            Path::new("tournaments/t.toml"),
            &format!("{TWO_BOTS}\n[limits]\nstartup_ms = 30000\n"),
        )
        .unwrap();
        let limits = referee_limits(&file.settings.limits);
        assert_eq!(limits.startup, Duration::from_secs(30));
        assert_eq!(limits.ready, Limits::default().ready);
    }

    /// The reference file writes every limit out; a file without those keys must resolve the same.
    #[test]
    fn the_reference_file_states_the_true_limits() {
        let reference = load(&bundled("reference.toml")).unwrap();
        let minimal = parse(&bundled("minimal.toml"), TWO_BOTS).unwrap();
        assert_eq!(
            referee_limits(&minimal.settings.limits),
            referee_limits(&reference.settings.limits)
        );
    }
}
