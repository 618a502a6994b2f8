//! An error told with its causes: what an author or the organiser reads of a refusal, and what the
//! server's log says of a failure, from every part of the contest alike.

/// An error with its causes, each on a line: what an author reads of a refusal.
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str("\n  caused by: ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
