//! The documents that describe the arena's files name every key of them, in
//! the table where a reader looks for it: RECORD.md (a game record, a
//! journal's header, its `joined` line, a line of `analysis.jsonl`) and OUTPUTS.md (`standings.json`, `match.json`,
//! `pairs.csv`).
//!
//! The keys come from the JSON Schemas committed beside the crates, which
//! [`the_committed_schemas_are_generated_from_the_types`] holds to the Rust
//! types (regenerate them after changing a type with
//! `UPDATE_SCHEMA=1 cargo test -p arena --test documents`, and describe the
//! change in the document), walked through every `$ref`, nested object, array's `items` and `oneOf`/`anyOf`/`allOf`.
//! Each key must appear as a backticked name (`` `key` ``) in the table of
//! the section that documents its object ([`Document::sections`]): a key of
//! that object in the first column of a row of its own, a key nested deeper
//! (`time.clock`) anywhere in the row of its ancestor (`time`). An object
//! reached by several paths (the `info` of a move and of the pie decision) is
//! documented when the key is where one of the paths leads. The other way
//! round, the first column of those tables may only name keys that the
//! object has, so that a key renamed or removed in the code cannot stay
//! documented. `pairs.csv`'s columns are held to the file the code writes,
//! and SECURITY.md's list of the system calls the sandbox refuses to the
//! filter's own list.

use std::collections::{BTreeMap, BTreeSet};

use std::path::{Path, PathBuf};

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};
use serde_json::Value;

/// A JSON file and the document that describes it.
struct Document {
    /// The document, from the workspace's root.
    markdown: &'static str,
    /// The JSON Schema of the file, from the workspace's root.
    schema: &'static str,
    /// The schema generated from the file's Rust type: of what a reader accepts for a file the arena
    /// reads back (a record, a journal's header), of what the arena writes for its outputs.
    generated: fn() -> Schema,
    /// The sections that document the file's objects: the object's path in
    /// the file (`moves[]`: an element of `moves`), and the heading of its
    /// section. A key belongs to the section of the longest path that leads
    /// to it; the root's section documents the keys of the objects nested in
    /// its rows (`rules.pie`, `time.clock`, ...).
    sections: &'static [(&'static str, &'static str)],
}

const RECORD: Document = Document {
    markdown: "RECORD.md",
    schema: "crates/pahtum-record/record.schema.json",
    generated: || schemars::schema_for!(pahtum_record::GameRecord),
    sections: &[
        ("", "A game record, field by field"),
        ("moves[]", "A move"),
        ("termination", "The termination"),
    ],
};

const HEADER: Document = Document {
    markdown: "RECORD.md",
    schema: "crates/pahtum-journal/journal-header.schema.json",
    generated: || schemars::schema_for!(pahtum_journal::Header),
    sections: &[("", "The header"), ("tournament", "The header")],
};

const JOINED: Document = Document {
    markdown: "RECORD.md",
    schema: "crates/pahtum-journal/journal-joined.schema.json",
    generated: || schemars::schema_for!(pahtum_journal::Joined),
    sections: &[("", "A `joined` line")],
};

const STANDINGS: Document = Document {
    markdown: "OUTPUTS.md",
    schema: "crates/pahtum-standings/standings.schema.json",
    generated: written::<pahtum_standings::standings::Standings>,
    sections: &[
        ("", "The top level"),
        ("bots[]", "A bot's line (`bots[]`)"),
        ("crosstable", "`crosstable`"),
        ("first_move", "`first_move`"),
        ("ratings", "`ratings`"),
        ("pairs[]", "A pair (`pairs[]`)"),
    ],
};

const MATCH: Document = Document {
    markdown: "OUTPUTS.md",
    schema: "crates/pahtum-report/match.schema.json",
    generated: written::<pahtum_report::match_report::MatchReport>,
    sections: &[("", "`match.json`"), ("sprt", "The SPRT (`sprt`)")],
};

const ANALYSIS: Document = Document {
    markdown: "RECORD.md",
    schema: "crates/pahtum-record/analysis.schema.json",
    generated: || schemars::schema_for!(pahtum_record::annotations::GameAnalysis),
    sections: &[("", "The analysis (`analysis.jsonl`)"), ("moves[]", "A ply's analysis")],
};

const DOCUMENTS: [Document; 6] = [RECORD, HEADER, JOINED, STANDINGS, MATCH, ANALYSIS];

/// The schema of what the arena writes as a `T` (keys it leaves out when empty are optional).
fn written<T: JsonSchema>() -> Schema {
    SchemaSettings::default()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
}

fn workspace_path(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

fn workspace_file(path: &str) -> String {
    let path = workspace_path(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Each committed schema is the one generated from its type.
#[test]
fn the_committed_schemas_are_generated_from_the_types() {
    let mut stale = Vec::new();
    for document in DOCUMENTS {
        let generated = serde_json::to_string_pretty(&(document.generated)()).unwrap() + "\n";
        let path = workspace_path(document.schema);
        if std::env::var_os("UPDATE_SCHEMA").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        if std::fs::read_to_string(&path).unwrap_or_default() != generated {
            stale.push(document.schema);
        }
    }
    assert!(
        stale.is_empty(),
        "{} differ from the schemas of the types; regenerate them with \
         `UPDATE_SCHEMA=1 cargo test -p arena --test documents`",
        stale.join(", ")
    );
}

impl Document {
    fn markdown(&self) -> String {
        workspace_file(self.markdown)
    }

    fn schema(&self) -> Value {
        serde_json::from_str(&workspace_file(self.schema)).unwrap_or_else(|e| panic!("{}: {e}", self.schema))
    }
}

/// A property of an object of the schema.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    /// The object: a definition's name (`Forfeit`), or the root's (`GameRecord`).
    owner: String,
    /// The property's name.
    name: String,
}

/// Every property of the schema, with every path that reaches it.
#[derive(Debug, Default)]
struct Walk {
    keys: BTreeMap<Key, BTreeSet<String>>,
}

impl Walk {
    fn of(schema: &Value) -> Walk {
        let mut walk = Walk::default();
        let defs = schema["$defs"].as_object().expect("the schema has $defs");
        let root = schema["title"].as_str().expect("the schema has a title");
        walk.node(schema, root, "", defs, &mut Vec::new());
        walk
    }

    /// Walks `node`, an object of `owner` reached by `path`; `stack` holds
    /// the definitions being walked, so that a recursive type ends the walk.
    fn node(
        &mut self,
        node: &Value,
        owner: &str,
        path: &str,
        defs: &serde_json::Map<String, Value>,
        stack: &mut Vec<String>,
    ) {
        if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
            let name = reference
                .strip_prefix("#/$defs/")
                .unwrap_or_else(|| panic!("a $ref outside $defs: {reference}"));
            if !stack.iter().any(|walking| walking == name) {
                let def = defs
                    .get(name)
                    .unwrap_or_else(|| panic!("$ref to a missing definition: {reference}"));
                stack.push(name.to_owned());
                self.node(def, name, path, defs, stack);
                stack.pop();
            }
        }
        if let Some(properties) = node.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                let at = if path.is_empty() {
                    name.clone()
                } else {
                    format!("{path}.{name}")
                };
                let key = Key {
                    owner: owner.to_owned(),
                    name: name.clone(),
                };
                self.keys.entry(key).or_default().insert(at.clone());
                // An object defined inline belongs to its own property.
                self.node(property, &format!("{owner}.{name}"), &at, defs, stack);
            }
        }
        for combinator in ["oneOf", "anyOf", "allOf"] {
            for alternative in node.get(combinator).and_then(Value::as_array).into_iter().flatten() {
                self.node(alternative, owner, path, defs, stack);
            }
        }
        for items in ["items", "additionalProperties"] {
            if let Some(inner) = node.get(items).filter(|inner| inner.is_object()) {
                let suffix = if items == "items" { "[]" } else { ".*" };
                self.node(
                    inner,
                    &format!("{owner}{suffix}"),
                    &format!("{path}{suffix}"),
                    defs,
                    stack,
                );
            }
        }
    }
}

/// Where the key at `path` must be documented: the heading of its section,
/// and the key of the section's object whose table row names it (for a key
/// of the object itself, the key, in the row's first column), and whether the
/// key is nested deeper than the section's object (then its row names it
/// anywhere, not in the first column).
fn place_of<'a>(sections: &[(&'a str, &'static str)], path: &'a str) -> (&'static str, &'a str, bool) {
    let (object, heading) = sections
        .iter()
        .filter(|(object, _)| object.is_empty() || path.strip_prefix(object).is_some_and(|rest| rest.starts_with('.')))
        .max_by_key(|(object, _)| object.len())
        .expect("the root's section documents every path");
    let rest = if object.is_empty() {
        path
    } else {
        &path[object.len() + 1..]
    };
    let row = rest.split('.').next().expect("a path has a key");
    (heading, row.trim_end_matches("[]"), rest.contains('.'))
}

/// A section of a Markdown document: its heading and its table rows.
#[derive(Debug)]
struct Section {
    heading: String,
    rows: Vec<String>,
}

fn sections(markdown: &str) -> Vec<Section> {
    let mut sections = vec![Section {
        heading: String::new(),
        rows: Vec::new(),
    }];
    let mut fenced = false;
    for line in markdown.lines() {
        let line = line.trim();
        if line.starts_with("```") {
            fenced = !fenced;
        } else if fenced {
        } else if line.starts_with('#') {
            sections.push(Section {
                heading: line.trim_start_matches('#').trim().to_owned(),
                rows: Vec::new(),
            });
        } else if line.starts_with('|') {
            sections
                .last_mut()
                .expect("one section at least")
                .rows
                .push(line.to_owned());
        }
    }
    sections
}

/// The texts between backticks in `text`.
fn backticked(text: &str) -> impl Iterator<Item = &str> {
    text.split('`').skip(1).step_by(2)
}

/// The names in the first column of a table row (the keys it documents).
fn first_column(row: &str) -> &str {
    row.trim_start_matches('|').split('|').next().unwrap_or_default()
}

#[test]
fn the_walk_reaches_nested_keys() {
    let walk = Walk::of(&RECORD.schema());
    let paths: BTreeSet<&str> = walk.keys.values().flatten().map(String::as_str).collect();
    for deep in [
        "id",
        "time.clock",
        "time_by_seat.second.margin_ms",
        "players.first",
        "moves[].cpu_ms",
        "moves[].info.pv",
        "swap_move.info.eval",
        "termination.forfeit.overloaded",
        "termination.also.reason",
        "termination.also.stderr_tail",
    ] {
        assert!(paths.contains(deep), "the walk missed {deep}; it found {paths:#?}");
    }
}

#[test]
fn every_key_is_documented_in_its_row() {
    let mut missing = Vec::new();
    for document in DOCUMENTS {
        missing.extend(undocumented(&document));
    }
    assert!(
        missing.is_empty(),
        "{} key(s) of a schema are not documented where expected:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// The keys of `document`'s schema that its Markdown does not name where it should.
fn undocumented(document: &Document) -> Vec<String> {
    let markdown = document.markdown();
    let sections = sections(&markdown);
    for (_, heading) in document.sections {
        assert!(
            sections.iter().any(|section| section.heading == *heading),
            "{} has no section headed {heading:?}",
            document.markdown
        );
    }
    // Whether `name` is documented at `path`: named in the first column of a
    // row of its section for a key of the section's object, or anywhere in
    // the row of its ancestor for a key nested deeper.
    let documented = |path: &str, name: &str| {
        let (heading, row_key, nested) = place_of(document.sections, path);
        sections
            .iter()
            .filter(|section| section.heading == heading)
            .flat_map(|section| &section.rows)
            .filter(|row| backticked(first_column(row)).any(|key| key == row_key))
            .any(|row| !nested || backticked(row).any(|key| key == name))
    };
    let mut missing = Vec::new();
    for (key, paths) in Walk::of(&document.schema()).keys {
        if !paths.iter().any(|path| documented(path, &key.name)) {
            let places: Vec<String> = paths
                .iter()
                .map(|path| {
                    let (heading, row, nested) = place_of(document.sections, path);
                    let column = if nested { "" } else { ", first column" };
                    format!("at {path}: in the row of `{row}`{column}, section {heading:?}")
                })
                .collect();
            missing.push(format!(
                "{}: `{}` (of {}), {}",
                document.markdown,
                key.name,
                key.owner,
                places.join("; or ")
            ));
        }
    }
    missing
}

#[test]
fn no_key_is_documented_that_the_file_lacks() {
    let mut wrong = Vec::new();
    for document in DOCUMENTS {
        wrong.extend(documented_but_absent(&document));
    }
    assert!(
        wrong.is_empty(),
        "the documents name keys that their files' schemas do not have:\n{}",
        wrong.join("\n")
    );
}

/// The keys that a section of `document`'s Markdown names in its first column and its object lacks.
fn documented_but_absent(document: &Document) -> Vec<String> {
    let walk = Walk::of(&document.schema());
    let mut wrong = Vec::new();
    for section in sections(&document.markdown()) {
        // The keys of the objects the section documents: the paths one step below each.
        let own: BTreeSet<&str> = document
            .sections
            .iter()
            .filter(|(_, heading)| *heading == section.heading)
            .flat_map(|(object, _)| {
                walk.keys.values().flatten().filter_map(move |path| match *object {
                    "" => Some(path.as_str()),
                    object => path.strip_prefix(object)?.strip_prefix('.'),
                })
            })
            .filter(|rest| !rest.contains('.'))
            .collect();
        if own.is_empty() {
            continue;
        }
        for row in &section.rows {
            for name in backticked(first_column(row)) {
                if !own.contains(name) {
                    wrong.push(format!(
                        "{}: section {:?} documents `{name}`",
                        document.markdown, section.heading
                    ));
                }
            }
        }
    }
    wrong
}

/// `pairs.csv`'s columns, as the code writes them, are the first column of OUTPUTS.md's section.
#[test]
fn pairs_csv_columns_are_documented() {
    let standings = pahtum_standings::standings::standings(&[], &["a".to_owned()], None).unwrap();
    let csv = pahtum_report::strength_render::pairs_csv(&standings.strength);
    let written: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let markdown = STANDINGS.markdown();
    let section = sections(&markdown)
        .into_iter()
        .find(|section| section.heading == "`pairs.csv`")
        .expect("OUTPUTS.md has a section on pairs.csv");
    let documented: Vec<&str> = section
        .rows
        .iter()
        .flat_map(|row| backticked(first_column(row)))
        .collect();
    assert_eq!(
        documented, written,
        "OUTPUTS.md's pairs.csv columns differ from the file's"
    );
}

/// SECURITY.md names every system call the sandbox's filter refuses, as the
/// filter's own list says.
#[test]
fn security_lists_every_call_the_filter_refuses() {
    let security = workspace_file("SECURITY.md");
    let named: BTreeSet<&str> = backticked(&security).collect();
    let missing: Vec<&str> = pahtum_referee::seccomp::denied_calls()
        .map(|call| call.split(' ').next().unwrap_or(call))
        .filter(|call| !named.contains(call))
        .collect();
    assert!(missing.is_empty(), "SECURITY.md does not name {missing:?}");
}

/// SECURITY.md's table of what a sandboxed process sees names exactly the
/// system's folders and files that the sandbox binds, and its environment
/// as the sandbox sets it.
#[test]
fn security_says_what_a_sandboxed_process_sees_as_the_sandbox_does() {
    use pahtum_referee::sandbox::{ETC_FILES, SANDBOX_ENVIRONMENT, SYSTEM_DIRS};
    let security = workspace_file("SECURITY.md");
    let table = security
        .split("### What a sandboxed process sees")
        .nth(1)
        .and_then(|section| section.split("\n### ").next())
        .expect("SECURITY.md has the section");
    let row = |what: &str| {
        table
            .lines()
            .find(|line| line.starts_with(&format!("| {what}")))
            .unwrap_or_else(|| panic!("no row {what:?} in the table"))
    };
    let system: BTreeSet<&str> = backticked(first_column(row("`/usr`"))).collect();
    assert_eq!(system, SYSTEM_DIRS.into_iter().collect(), "the system's folders");
    let etc: BTreeSet<&str> = backticked(first_column(row("`/etc/"))).collect();
    let mut written: BTreeSet<&str> = ETC_FILES.into_iter().collect();
    // The Java runtime's configuration folders, found in /etc when the sandbox starts.
    written.insert("/etc/java*");
    assert_eq!(etc, written, "the files of /etc");
    let environment: BTreeSet<String> = backticked(row("the environment"))
        .filter(|word| word.contains('='))
        .map(str::to_owned)
        .collect();
    let set: BTreeSet<String> = SANDBOX_ENVIRONMENT
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect();
    assert_eq!(environment, set, "the environment");
}
