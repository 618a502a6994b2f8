//! Cells and actions in JSON are their text forms, read back exactly, and anything else is refused.

use pahtum::{Action, CELLS, Cell};
use proptest::prelude::*;

fn action() -> impl Strategy<Value = Action> {
    let cell = (0..CELLS).prop_map(|index| Cell::from_index(index).expect("a cell"));
    prop_oneof![
        cell.clone().prop_map(Action::Stone),
        cell.prop_map(Action::Block),
        any::<bool>().prop_map(Action::Pie),
    ]
}

proptest! {
    #[test]
    fn actions_are_their_text(action in action()) {
        let json = serde_json::to_string(&action).unwrap();
        prop_assert_eq!(&json, &format!("\"{action}\""));
        prop_assert_eq!(serde_json::from_str::<Action>(&json).unwrap(), action);
    }
}

#[test]
fn other_text_is_refused() {
    for text in [
        "\"\"",
        "\"d8\"",
        "\"#\"",
        "\"Swap\"",
        "\"d4 \"",
        "4",
        "null",
        "{\"cell\":\"d4\"}",
    ] {
        assert!(serde_json::from_str::<Action>(text).is_err(), "{text}");
    }
    assert!(serde_json::from_str::<Cell>("\"#d4\"").is_err());
    assert_eq!(serde_json::from_str::<Cell>("\"d4\"").unwrap().to_string(), "d4");
}
