//! The committed JSON Schema of a game record (`record.schema.json`) is the one generated from the types.
//!
//! Regenerate it after changing the record's types with
//! `UPDATE_SCHEMA=1 cargo test -p pahtum-record --test schema`, and describe the change in RECORD.md.

use pahtum_record::GameRecord;

#[test]
fn the_committed_schema_is_generated_from_the_types() {
    let generated = serde_json::to_string_pretty(&schemars::schema_for!(GameRecord)).unwrap() + "\n";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("record.schema.json");
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} differs from the schema of the types; regenerate it with \
         `UPDATE_SCHEMA=1 cargo test -p pahtum-record --test schema`",
        path.display()
    );
}

#[test]
fn the_schema_documents_the_seat_of_each_move() {
    let schema = serde_json::to_value(schemars::schema_for!(GameRecord)).unwrap();
    let seat = &schema["$defs"]["MoveRecord"]["properties"]["seat"];
    assert!(seat.is_object(), "{schema:#}");
    let required = schema["$defs"]["MoveRecord"]["required"].as_array().unwrap();
    assert!(
        !required.contains(&"seat".into()),
        "old records without seats stay valid"
    );
}
