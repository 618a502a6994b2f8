//! docs/contest-api.md against the API's types: every example reads as the
//! type its marker names and writes back to the same JSON, so the page and
//! the API cannot drift apart.

use pahtum_contest::finals::FinalView;
use pahtum_contest::store::{Author, Job, Token};
use pahtum_contest::web::api::{ErrorAnswer, MadeToken, Queued, SubmissionAnswer};
use pahtum_contest::web::ladder::Ladder;
use pahtum_contest::web::organiser::OrganiserView;
use pahtum_contest::web::promotion::PromotionAnswer;
use pahtum_contest::web::season::SeasonAnswer;
use pahtum_referee::stderr_log::StderrLine;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// `json` read as `T` and written back: the same JSON value.
fn round_trips<T: DeserializeOwned + Serialize>(json: &str) -> Result<(), String> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(|error| error.to_string())?;
    let typed: T = serde_json::from_value(value.clone()).map_err(|error| error.to_string())?;
    let back = serde_json::to_value(&typed).map_err(|error| error.to_string())?;
    if back == value {
        Ok(())
    } else {
        Err(format!("written back as {back}"))
    }
}

#[test]
fn every_example_of_the_api_page_is_its_type() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/contest-api.md")).unwrap();
    let mut checked = Vec::new();
    for (marker, rest) in page
        .split("<!-- type: ")
        .skip(1)
        .map(|part| part.split_once(" -->").unwrap())
    {
        let json = rest.split("```json").nth(1).unwrap().split("```").next().unwrap();
        let checked_as = match marker {
            "Ladder" => round_trips::<Ladder>(json),
            "Author" => round_trips::<Author>(json),
            "Queued" => round_trips::<Queued>(json),
            "SubmissionAnswer" => round_trips::<SubmissionAnswer>(json),
            "Tokens" => round_trips::<Vec<Token>>(json),
            "MadeToken" => round_trips::<MadeToken>(json),
            "ErrorAnswer" => round_trips::<ErrorAnswer>(json),
            "StderrLines" => round_trips::<Vec<StderrLine>>(json),
            "Jobs" => round_trips::<Vec<Job>>(json),
            "OrganiserView" => round_trips::<OrganiserView>(json),
            "SeasonAnswer" => round_trips::<SeasonAnswer>(json),
            "PromotionAnswer" => round_trips::<PromotionAnswer>(json),
            "FinalView" => round_trips::<FinalView>(json),
            other => Err(format!("no type is named {other}")),
        };
        assert_eq!(checked_as, Ok(()), "the example of {marker}:\n{json}");
        checked.push(marker);
    }
    assert_eq!(checked.len(), 13, "{checked:?}");
}
