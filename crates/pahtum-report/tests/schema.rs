//! The committed JSON Schema of `match.json` (`match.schema.json`) is the one generated from the types.
//!
//! Regenerate it after changing the types with
//! `UPDATE_SCHEMA=1 cargo test -p pahtum-report --test schema`, and describe the change in OUTPUTS.md.

use pahtum_report::match_report::MatchReport;

#[test]
fn the_committed_schema_is_generated_from_the_types() {
    let generated = serde_json::to_string_pretty(&schemars::schema_for!(MatchReport)).unwrap() + "\n";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("match.schema.json");
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} differs from the schema of the types; regenerate it with \
         `UPDATE_SCHEMA=1 cargo test -p pahtum-report --test schema`",
        path.display()
    );
}
