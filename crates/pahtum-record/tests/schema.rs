//! What the JSON Schema of a game record says (`record.schema.json`, which
//! arena's `tests/documents.rs` holds to these types and to RECORD.md).

use pahtum_record::GameRecord;

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
