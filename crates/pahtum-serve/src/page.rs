//! A page of the server made from one of its templates: every value escaped
//! as HTML, and a failure to make it answered as one.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

/// The page of `template` with `context`, its values escaped as HTML.
pub fn render(template: &str, context: minijinja::Value) -> Response {
    answer(templates().render_str(template, context))
}

/// The page `name` of `templates` (each a name and its text: a page and the layouts it extends), its
/// values escaped as HTML.
pub fn render_named(templates: &[(&'static str, &'static str)], name: &str, context: minijinja::Value) -> Response {
    let mut environment = self::templates();
    for &(name, text) in templates {
        if let Err(error) = environment.add_template(name, text) {
            return answer(Err(error));
        }
    }
    answer(environment.get_template(name).and_then(|page| page.render(context)))
}

/// A template environment that escapes every value as HTML, whatever the template's name.
fn templates() -> minijinja::Environment<'static> {
    let mut templates = minijinja::Environment::new();
    templates.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
    templates
}

/// A page made, or the failure to make it.
fn answer(page: Result<String, minijinja::Error>) -> Response {
    match page {
        Ok(page) => Html(page).into_response(),
        Err(error) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot make the page: {error}\n"),
        )
            .into_response(),
    }
}
