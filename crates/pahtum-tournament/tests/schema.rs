//! The committed JSON Schemas of `standings.json` (`standings.schema.json`) and of a journal's header
//! line (`journal-header.schema.json`) are the ones generated from the types.
//!
//! Regenerate them after changing the types with
//! `UPDATE_SCHEMA=1 cargo test -p pahtum-tournament --test schema`, and describe the change in OUTPUTS.md
//! or RECORD.md.

use pahtum_tournament::journal::Header;
use pahtum_tournament::standings::Standings;
use schemars::Schema;

fn committed_is_generated(file: &str, schema: Schema) {
    let generated = serde_json::to_string_pretty(&schema).unwrap() + "\n";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} differs from the schema of the types; regenerate it with \
         `UPDATE_SCHEMA=1 cargo test -p pahtum-tournament --test schema`",
        path.display()
    );
}

#[test]
fn the_committed_standings_schema_is_generated_from_the_types() {
    committed_is_generated("standings.schema.json", schemars::schema_for!(Standings));
}

#[test]
fn the_committed_header_schema_is_generated_from_the_types() {
    committed_is_generated("journal-header.schema.json", schemars::schema_for!(Header));
}
