//! A page of the server made from one of its templates: every value escaped
//! as HTML, and a failure to make it answered as one.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

/// The page of `template` with `context`, its values escaped as HTML.
pub(crate) fn render(template: &str, context: minijinja::Value) -> Response {
    let mut templates = minijinja::Environment::new();
    templates.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
    match templates.render_str(template, context) {
        Ok(page) => Html(page).into_response(),
        Err(error) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot make the page: {error}\n"),
        )
            .into_response(),
    }
}
