//! The workspace's shape, held by tests: no circle of imports between the
//! source files of any crate, and no process machinery (the async runtime,
//! the referee) under the crates that only read and present data, and no
//! `println!` that a closed pipe turns into a panic.
//!
//! The circles are found by `pahtum_testkit::circles` (see its doc: a `pub use`
//! re-export is followed to the file that defines the item, a parent module
//! naming its child counts as using it, and test modules are left out). The
//! dependencies come from `cargo metadata`, the resolved graph of normal
//! (not dev or build) dependencies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// `Ok` with "no circles between files in N crates", or `Err` with the circles.
fn file_cycles(roots: &[PathBuf]) -> Result<String, String> {
    pahtum_testkit::circles::check(roots)
}

#[test]
fn no_two_source_files_import_each_other() {
    let mut roots = Vec::new();
    for group in ["crates", "bots"] {
        for entry in std::fs::read_dir(workspace().join(group)).unwrap() {
            let path = entry.unwrap().path();
            if path.join("Cargo.toml").exists() {
                roots.push(path);
            }
        }
    }
    assert!(roots.len() >= 10, "the crates were not found: {roots:?}");
    let text = file_cycles(&roots).unwrap_or_else(|circles| panic!("circles between files:\n{circles}"));
    assert!(
        text.contains(&format!("no circles between files in {} crates", roots.len())),
        "{text}"
    );
}

/// The checker finds a circle when there is one, through a re-export and a parent module too.
#[test]
fn the_circle_checker_finds_circles() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("m")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod m;\npub use m::Thing;\n").unwrap();
    std::fs::write(src.join("a.rs"), "use crate::Thing;\npub fn f() {}\n").unwrap();
    std::fs::write(src.join("m/mod.rs"), "mod thing;\npub use thing::Thing;\n").unwrap();
    std::fs::write(src.join("m/thing.rs"), "pub struct Thing;\nfn g() { crate::a::f() }\n").unwrap();
    let output = file_cycles(&[dir.path().to_owned()]);
    assert!(output.is_err(), "{output:?}");
    let text = output.unwrap_err();
    assert!(
        text.contains("src/a.rs <-> ") && text.contains("src/m/thing.rs"),
        "{text}"
    );

    std::fs::write(src.join("m/thing.rs"), "pub struct Thing;\n").unwrap();
    let output = file_cycles(&[dir.path().to_owned()]);
    assert!(output.is_ok(), "{output:?}");

    // A file that re-exports an item and uses it too uses the item's file, under an alias as well.
    std::fs::write(src.join("m/thing.rs"), "pub struct Thing;\nfn g(_: crate::a::A) {}\n").unwrap();
    std::fs::write(
        src.join("a.rs"),
        "pub(crate) use crate::Thing as T;\npub struct A;\nfn f(_: T) {}\n",
    )
    .unwrap();
    let output = file_cycles(&[dir.path().to_owned()]);
    assert!(output.is_err(), "{output:?}");
}

/// Every package's normal dependencies by name, from `cargo metadata`, and the workspace's own packages.
fn normal_dependencies() -> (BTreeMap<String, BTreeSet<String>>, BTreeSet<String>) {
    let rustc = Command::new("rustc").arg("-vV").output().expect("rustc -vV runs");
    let rustc = String::from_utf8(rustc.stdout).unwrap();
    let host = rustc
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .expect("rustc names its host");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    // This machine's packages only: the others' (Windows crates) may not have been downloaded.
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--filter-platform",
            host,
        ])
        .current_dir(workspace())
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let names: BTreeMap<&str, &str> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|package| (package["id"].as_str().unwrap(), package["name"].as_str().unwrap()))
        .collect();
    let members = metadata["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| names[id.as_str().unwrap()].to_owned())
        .collect();
    let graph = metadata["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| {
            let normal = node["deps"].as_array().unwrap().iter().filter(|dep| {
                dep["dep_kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|kind| kind["kind"].is_null())
            });
            let deps = normal
                .map(|dep| names[dep["pkg"].as_str().unwrap()].to_owned())
                .collect();
            (names[node["id"].as_str().unwrap()].to_owned(), deps)
        })
        .collect();
    (graph, members)
}

/// The packages `package` links, itself and everything below it.
fn links(graph: &BTreeMap<String, BTreeSet<String>>, package: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut next = vec![package.to_owned()];
    while let Some(name) = next.pop() {
        if seen.insert(name.clone()) {
            next.extend(graph[&name].iter().cloned());
        }
    }
    seen
}

/// docs/crates.md's graph, line by line, is the workspace's own dependencies.
#[test]
fn the_documented_graph_is_the_workspace_graph() {
    let (graph, members) = normal_dependencies();
    let page = std::fs::read_to_string(workspace().join("docs/crates.md")).unwrap();
    let section = &page[page.find("## The graph").expect("docs/crates.md has a graph")..];
    let block = section.split("```").nth(1).expect("the graph is a code block");
    let documented: BTreeMap<String, BTreeSet<String>> = block
        .lines()
        .filter_map(|line| line.split_once("->"))
        .map(|(name, deps)| {
            let deps = deps
                .split(',')
                .map(str::trim)
                .filter(|dep| !dep.is_empty())
                .map(str::to_owned);
            (name.trim().to_owned(), deps.collect())
        })
        .collect();
    let actual: BTreeMap<String, BTreeSet<String>> = members
        .iter()
        .map(|name| (name.clone(), graph[name].intersection(&members).cloned().collect()))
        .collect();
    assert_eq!(
        documented, actual,
        "docs/crates.md's graph differs from the workspace's"
    );
    for name in &members {
        assert!(
            page.contains(&format!("| `{name}` (")),
            "docs/crates.md's table lacks {name}"
        );
    }
}

#[test]
fn the_data_crates_link_no_processes() {
    let (graph, _) = normal_dependencies();
    for package in [
        "pahtum",
        "pahtum-protocol",
        "pahtum-record",
        "pahtum-stats",
        "pahtum-tournament",
        "pahtum-journal",
        "pahtum-standings",
        "pahtum-run",
        "pahtum-league",
        "pahtum-report",
        "pahtum-analysis",
    ] {
        let linked = links(&graph, package);
        for machinery in ["tokio", "pahtum-supervise", "pahtum-referee", "pahtum-runner"] {
            assert!(!linked.contains(machinery), "{package} links {machinery}");
        }
    }
    // The check sees what it looks for: the runner links both.
    let runner = links(&graph, "pahtum-runner");
    assert!(
        runner.contains("tokio") && runner.contains("pahtum-referee"),
        "{runner:?}"
    );
}

/// The presentation (the report and the server) reads analyses through
/// `pahtum_record::annotations` and links no search: not the analysis, not
/// the search, not the engine, and not the engine's command line (clap,
/// anyhow).
#[test]
fn presentation_links_no_search_engine_clap_or_anyhow() {
    let (graph, _) = normal_dependencies();
    for package in ["pahtum-report", "pahtum-serve"] {
        let linked = links(&graph, package);
        for search in ["pahtum-analysis", "pahtum-search", "pahtum-engine", "clap", "anyhow"] {
            assert!(!linked.contains(search), "{package} links {search}");
        }
    }
    // The check sees what it looks for: the analysis links the search, and the engine the search, clap and anyhow.
    let analysis = links(&graph, "pahtum-analysis");
    assert!(analysis.contains("pahtum-search"), "{analysis:?}");
    let engine = links(&graph, "pahtum-engine");
    assert!(
        ["pahtum-search", "clap", "anyhow"]
            .iter()
            .all(|name| engine.contains(*name)),
        "{engine:?}"
    );
}

/// The search is pure and synchronous: it links neither the protocol nor
/// the bot's command line (clap, anyhow) nor the async runtime; the engine
/// translates the protocol's requests and clocks into plain data for it.
#[test]
fn the_search_links_no_protocol_clap_anyhow_or_runtime() {
    let (graph, _) = normal_dependencies();
    let linked = links(&graph, "pahtum-search");
    for name in ["pahtum-protocol", "pahtum-engine", "clap", "anyhow", "tokio"] {
        assert!(!linked.contains(name), "pahtum-search links {name}");
    }
    // The check sees what it looks for: the search links the rules.
    assert!(linked.contains("pahtum"), "{linked:?}");
}

/// The `.rs` files under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
    files
}

/// One supervisor for every process: no crate but `pahtum-supervise` names
/// bubblewrap or spawns a sandboxed process (tests aside, which run the
/// sandbox as an attacker would).
#[test]
fn only_the_supervisor_names_bubblewrap() {
    let mut offenders = Vec::new();
    for group in ["crates", "bots"] {
        for entry in std::fs::read_dir(workspace().join(group)).unwrap() {
            let src = entry.unwrap().path().join("src");
            if !src.is_dir() || src.starts_with(workspace().join("crates/pahtum-supervise")) {
                continue;
            }
            for file in rust_files(&src) {
                let text = std::fs::read_to_string(&file).unwrap();
                let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                for (number, line) in code.lines().enumerate() {
                    if line.contains("bwrap") {
                        offenders.push(format!("{}:{}: {}", file.display(), number + 1, line.trim()));
                    }
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "only pahtum-supervise may run bubblewrap: {offenders:#?}"
    );
}

/// The league refuses an entrant's command that names a path outside its
/// snapshot and the system's folders, which the sandbox shows: the same
/// folders (the league's data crate links no sandbox, so it keeps a copy).
#[test]
fn the_league_and_the_sandbox_agree_on_the_system_folders() {
    assert_eq!(
        pahtum_league::folder::SYSTEM_FOLDERS,
        pahtum_referee::sandbox::SYSTEM_DIRS
    );
}

/// `println!` and `eprintln!` panic when their reader has gone (`arena run F 2>&1 | head`): what
/// `arena` and the crates it prints through write goes through its quiet path (`out!`, `errln!`,
/// `pahtum_report::progress::line`) instead.
#[test]
fn nothing_prints_past_the_quiet_path() {
    let mut offenders = Vec::new();
    for crate_dir in [
        "crates/arena/src",
        "crates/pahtum-report/src",
        "crates/pahtum-runner/src",
    ] {
        for file in rust_files(&workspace().join(crate_dir)) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (number, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap();
                if ["print!(", "println!(", "eprint!(", "eprintln!("]
                    .iter()
                    .any(|call| code.contains(call) && !code.contains(&format!("::{call}")))
                {
                    offenders.push(format!("{}:{}: {}", file.display(), number + 1, line.trim()));
                }
            }
        }
    }
    assert!(offenders.is_empty(), "print through the quiet path: {offenders:#?}");
}
