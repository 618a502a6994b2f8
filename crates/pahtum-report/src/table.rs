//! The pieces every text format shares: a table builder in the terminal's or Markdown's style, and the
//! way numbers and CSV fields are written.
//!
//! [`crate::render`] (the standings) and [`crate::strength_render`] (the ratings' parts) both build on this
//! module, so neither needs the other's helpers.

use tabled::Table;
use tabled::builder::Builder;
use tabled::settings::object::{Columns, Rows};
use tabled::settings::{Alignment, Style};

/// A table of `rows` (the first is the header), text columns first, numbers right-aligned.
pub(crate) fn build(rows: impl IntoIterator<Item = Vec<String>>, style: TableStyle) -> String {
    table(rows, style).to_string()
}

/// [`build`]'s table before it is written out, so that its width can be measured first.
pub(crate) fn table(rows: impl IntoIterator<Item = Vec<String>>, style: TableStyle) -> Table {
    let mut builder = Builder::default();
    for row in rows {
        builder.push_record(row);
    }
    let mut table = builder.build();
    match style {
        TableStyle::Terminal => table.with(Style::rounded()),
        TableStyle::Markdown => table.with(Style::markdown()),
    };
    table.modify(Columns::new(2..), Alignment::right());
    table.modify(Rows::first(), Alignment::center());
    table
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TableStyle {
    Terminal,
    Markdown,
}

/// Bot names are plain (see [`pahtum_tournament::config`]), but quote defensively.
pub(crate) fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// Points with a decimal only where there is a half.
pub(crate) fn points(points: f64) -> String {
    if points.fract() == 0.0 {
        format!("{points:.0}")
    } else {
        format!("{points:.1}")
    }
}

/// A percentage with one decimal, or `-` for none.
pub(crate) fn percent(value: Option<f64>) -> String {
    value.map(|v| format!("{v:.1}%")).unwrap_or_else(|| "-".to_owned())
}
