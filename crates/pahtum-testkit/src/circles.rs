//! Circles of imports between the source files of a crate: files that use
//! each other, directly or round a longer loop, which the compiler allows
//! and the workspace does not (`crates/arena/tests/architecture.rs`).
//!
//! A file uses another when its code (test modules, `#[cfg(test)] mod`,
//! left out) names an item of the other: a path through `crate::`, `super::`
//! or `self::` (`$crate::` in a macro too), or, in a parent module, a path
//! through one of its own child modules (`child::item`), in a `use`, an
//! expression, a type, an attribute or a macro's tokens. A `pub use`
//! re-export is not a use: it only publishes an item, and a path through it
//! is followed to the file that defines the item (a glob `pub use a::*` too,
//! for a name the re-exporting file does not define itself); it is a use
//! when the file's own code names the item too. A path names the file of its
//! longest prefix that is a module of a file. A glob straight after the head
//! (`use super::*`) names nothing.
//!
//! The files are those under `src`, but `src/bin` (each binary is a crate of
//! its own) and a `main.rs` beside a `lib.rs` (it uses the library by the
//! crate's name).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::visit::Visit;
use syn::{Ident, Item, Token, UseTree, Visibility};

/// A module's path from the crate's root (`[]` for `lib.rs` or `main.rs`).
type Module = Vec<String>;

/// Which modules each module's file uses.
type Graph = BTreeMap<Module, BTreeSet<Module>>;

/// A strongly connected group of two or more files of one crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Circle {
    /// The crate's folder, as given.
    pub crate_dir: PathBuf,
    /// The files of the circle, sorted.
    pub files: Vec<PathBuf>,
    /// Each file of the circle (sorted) and the files of the circle it uses.
    pub uses: Vec<(PathBuf, Vec<PathBuf>)>,
}

impl fmt::Display for Circle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let files: Vec<String> = self.files.iter().map(|file| file.display().to_string()).collect();
        writeln!(f, "{}: {}", self.crate_dir.display(), files.join(" <-> "))?;
        for (file, uses) in &self.uses {
            let uses: Vec<String> = uses.iter().map(|used| used.display().to_string()).collect();
            writeln!(f, "    {} -> {}", file.display(), uses.join(", "))?;
        }
        Ok(())
    }
}

/// The circles between the files of each crate of `crate_dirs` (folders
/// that hold a `src`; the others are passed over): `Ok` with
/// "no circles between files in N crates", or `Err` with each circle and
/// its uses (or a file that does not parse).
pub fn check(crate_dirs: &[PathBuf]) -> Result<String, String> {
    let mut found = String::new();
    for dir in crate_dirs {
        for circle in in_crate(dir)? {
            found.push_str(&circle.to_string());
        }
    }
    if found.is_empty() {
        Ok(format!("no circles between files in {} crates", crate_dirs.len()))
    } else {
        Err(found)
    }
}

/// The circles between the files of the crate in `crate_dir`, sorted; an
/// error names a file that cannot be read or parsed.
pub fn in_crate(crate_dir: &Path) -> Result<Vec<Circle>, String> {
    let (files, graph) = graph(crate_dir)?;
    let mut circles: Vec<Circle> = strongly_connected(&graph)
        .into_iter()
        .filter(|group| group.len() > 1)
        .map(|group| {
            let inside: BTreeSet<&Module> = group.iter().collect();
            let mut uses: Vec<(PathBuf, Vec<PathBuf>)> = group
                .iter()
                .map(|module| {
                    let mut used: Vec<PathBuf> = graph[module]
                        .iter()
                        .filter(|target| inside.contains(target))
                        .map(|target| files[target].clone())
                        .collect();
                    used.sort();
                    (files[module].clone(), used)
                })
                .collect();
            uses.sort();
            Circle {
                crate_dir: crate_dir.to_owned(),
                files: uses.iter().map(|(file, _)| file.clone()).collect(),
                uses,
            }
        })
        .collect();
    circles.sort_by(|a, b| a.files.cmp(&b.files));
    Ok(circles)
}

/// Which files of the crate in `crate_dir` each of its files uses (the
/// graph whose circles [`in_crate`] finds); empty without a `src`.
pub fn uses(crate_dir: &Path) -> Result<BTreeMap<PathBuf, BTreeSet<PathBuf>>, String> {
    let (files, graph) = graph(crate_dir)?;
    Ok(graph
        .iter()
        .map(|(module, used)| {
            (
                files[module].clone(),
                used.iter().map(|target| files[target].clone()).collect(),
            )
        })
        .collect())
}

/// The files of the crate in `crate_dir` and which uses which, each file by
/// its module; empty without a `src`.
fn graph(crate_dir: &Path) -> Result<(BTreeMap<Module, PathBuf>, Graph), String> {
    let src = crate_dir.join("src");
    if !src.is_dir() {
        return Ok(Default::default());
    }
    let files = modules(&src).map_err(|error| format!("{}: {error}", src.display()))?;
    let mut facts = BTreeMap::new();
    for (module, file) in &files {
        let text = std::fs::read_to_string(file).map_err(|error| format!("{}: {error}", file.display()))?;
        let parsed = syn::parse_file(&text).map_err(|error| format!("{}: {error}", file.display()))?;
        facts.insert(module.clone(), Facts::of(module, &parsed));
    }
    // `pub use a::X` in module M: a path through M to X is a path to a's X.
    let mut reexports = HashMap::new();
    for file in facts.values() {
        for named in file
            .paths
            .iter()
            .filter(|named| named.pub_use && !named.path.is_empty())
        {
            reexports.insert((named.scope.clone(), named.local.clone()), named.path.clone());
        }
    }
    let resolver = Resolver {
        files: &files,
        reexports: &reexports,
        facts: &facts,
    };
    let graph = facts
        .iter()
        .map(|(module, file)| {
            let uses = file
                .paths
                .iter()
                .filter(|named| !named.pub_use || file.idents.contains(&named.local))
                .filter_map(|named| resolver.resolve(&named.path, 0))
                .filter(|target| target != module)
                .collect();
            (module.clone(), uses)
        })
        .collect();
    Ok((files, graph))
}

/// Every `.rs` file under `src` by its module, but those of `src/bin`, and
/// `main.rs` beside a `lib.rs`.
fn modules(src: &Path) -> std::io::Result<BTreeMap<Module, PathBuf>> {
    let mut out = BTreeMap::new();
    let mut folders = vec![src.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder)? {
            let path = entry?.path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            if path.extension().is_none_or(|extension| extension != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).expect("under src").with_extension("");
            let mut parts: Module = relative
                .components()
                .map(|part| part.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts[0] == "bin" {
                continue; // each file of src/bin is a crate of its own
            }
            if parts == ["main"] && src.join("lib.rs").exists() {
                continue; // a binary beside a library uses it by the crate's name
            }
            if parts == ["lib"] || parts == ["main"] || parts.last().is_some_and(|last| last == "mod") {
                parts.pop();
            }
            out.insert(parts, path);
        }
    }
    Ok(out)
}

/// A path that a file names, from the crate's root.
#[derive(Debug)]
struct Named {
    path: Module,
    /// Whether a `pub use` (of any visibility but private) names it.
    pub_use: bool,
    /// Its name in the file: its alias, or its last segment.
    local: String,
    /// The module whose `use` names it (a file's, or an inline module's).
    scope: Module,
}

/// What one file names and defines.
#[derive(Debug, Default)]
struct Facts {
    paths: Vec<Named>,
    /// Every identifier of the file's code, but its `pub use`s' (and its
    /// test modules').
    idents: HashSet<String>,
    /// The items the file defines at its top level.
    defined: HashSet<String>,
}

impl Facts {
    fn of(module: &Module, file: &syn::File) -> Facts {
        let mut walker = Walker {
            facts: Facts::default(),
            scopes: vec![Scope::of(module.clone(), &file.items)],
        };
        for item in &file.items {
            if let Some(name) = defined_name(item) {
                walker.facts.defined.insert(name);
            }
        }
        walker.visit_file(file);
        walker.facts
    }
}

/// The name that `item` defines, if it is one that a glob re-export would
/// be shadowed by.
fn defined_name(item: &Item) -> Option<String> {
    let ident = match item {
        Item::Const(item) => &item.ident,
        Item::Static(item) => &item.ident,
        Item::Fn(item) => &item.sig.ident,
        Item::Struct(item) => &item.ident,
        Item::Enum(item) => &item.ident,
        Item::Union(item) => &item.ident,
        Item::Trait(item) => &item.ident,
        Item::TraitAlias(item) => &item.ident,
        Item::Type(item) => &item.ident,
        Item::Mod(item) if !is_test(&item.attrs) => &item.ident,
        Item::Macro(item) => item.ident.as_ref()?,
        _ => return None,
    };
    Some(name(ident))
}

/// Whether `attrs` hold `#[cfg(test)]`.
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|attr| attr.path().is_ident("cfg") && attr.parse_args::<Ident>().is_ok_and(|arg| arg == "test"))
}

/// An identifier as a string, without `r#`.
fn name(ident: &Ident) -> String {
    ident.unraw().to_string()
}

/// A module the walk is in: its path and its child modules in files
/// (`mod child;`).
struct Scope {
    module: Module,
    children: HashSet<String>,
}

impl Scope {
    fn of(module: Module, items: &[Item]) -> Scope {
        let children = items
            .iter()
            .filter_map(|item| match item {
                Item::Mod(declared) if declared.content.is_none() && !is_test(&declared.attrs) => {
                    Some(name(&declared.ident))
                }
                _ => None,
            })
            .collect();
        Scope { module, children }
    }
}

/// Walks a file's syntax, collecting its paths and identifiers.
struct Walker {
    facts: Facts,
    scopes: Vec<Scope>,
}

impl Walker {
    fn scope(&self) -> &Scope {
        self.scopes.last().expect("the file's scope")
    }

    /// `segments` from the crate's root, where they start at `crate`,
    /// `super`, `self` or a child module of the scope and go on; `None`
    /// otherwise.
    fn absolute(&self, segments: &[String]) -> Option<Module> {
        let (head, rest) = segments.split_first()?;
        if rest.is_empty() || rest[0] == "*" && ["crate", "super", "self"].contains(&head.as_str()) {
            return None;
        }
        let scope = self.scope();
        let mut base = match head.as_str() {
            "crate" => Vec::new(),
            "super" => parent(&scope.module),
            "self" => scope.module.clone(),
            child if scope.children.contains(child) => {
                let mut base = scope.module.clone();
                base.push(child.to_owned());
                base
            }
            _ => return None,
        };
        let mut rest = rest;
        while let Some(("super", after)) = rest.split_first().map(|(first, after)| (first.as_str(), after)) {
            base = parent(&base);
            rest = after;
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    fn name_path(&mut self, segments: &[String], local: String, pub_use: bool) {
        if let Some(path) = self.absolute(segments) {
            let scope = self.scope().module.clone();
            self.facts.paths.push(Named {
                path,
                pub_use,
                local,
                scope,
            });
        }
    }

    /// Paths and identifiers in tokens that syn leaves unparsed (a macro's,
    /// an attribute's), flattened by [`flatten`].
    fn tokens(&mut self, tokens: syn::Result<Vec<Tok>>) {
        if let Ok(tokens) = tokens {
            self.scan(&tokens);
        }
    }

    fn scan(&mut self, tokens: &[Tok]) {
        for (i, token) in tokens.iter().enumerate() {
            match token {
                Tok::Ident(ident) => {
                    self.facts.idents.insert(ident.clone());
                    let after_colons = i > 0 && tokens[i - 1] == Tok::Colon2;
                    let starts = matches!(ident.as_str(), "crate" | "super" | "self")
                        || !after_colons && self.scope().children.contains(ident);
                    if starts && tokens.get(i + 1) == Some(&Tok::Colon2) {
                        for (segments, local) in tree(&tokens[i..]) {
                            self.name_path(&segments, local, false);
                        }
                    }
                }
                Tok::Group(inner) | Tok::Brace(inner) => self.scan(inner),
                Tok::Colon2 | Tok::Punct(_) | Tok::Other => {}
            }
        }
    }
}

/// `module` without its last name (the root's parent is the root).
fn parent(module: &Module) -> Module {
    module[..module.len().saturating_sub(1)].to_vec()
}

impl<'ast> Visit<'ast> for Walker {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if is_test(&item.attrs) {
            return;
        }
        match &item.content {
            Some((_, items)) => {
                let mut module = self.scope().module.clone();
                module.push(name(&item.ident));
                self.scopes.push(Scope::of(module, items));
                syn::visit::visit_item_mod(self, item);
                self.scopes.pop();
            }
            None => syn::visit::visit_item_mod(self, item),
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let pub_use = !matches!(item.vis, Visibility::Inherited);
        if item.leading_colon.is_none() {
            for (segments, local) in use_tree(&item.tree) {
                self.name_path(&segments, local, pub_use);
            }
        }
        if !pub_use {
            syn::visit::visit_item_use(self, item);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            let segments: Vec<String> = path.segments.iter().map(|segment| name(&segment.ident)).collect();
            if let Some(last) = segments.last() {
                self.name_path(&segments, last.clone(), false);
            }
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_ident(&mut self, ident: &'ast Ident) {
        self.facts.idents.insert(name(ident));
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        syn::visit::visit_macro(self, mac);
        self.tokens(mac.parse_body_with(flatten));
    }

    fn visit_meta_list(&mut self, list: &'ast syn::MetaList) {
        syn::visit::visit_meta_list(self, list);
        self.tokens(list.parse_args_with(flatten));
    }
}

/// The paths of a `use` tree (`a::{b, c::{d as e}}`), each with its name in
/// the file.
fn use_tree(tree: &UseTree) -> Vec<(Vec<String>, String)> {
    match tree {
        UseTree::Path(path) => use_tree(&path.tree)
            .into_iter()
            .map(|(mut segments, local)| {
                segments.insert(0, name(&path.ident));
                (segments, local)
            })
            .collect(),
        UseTree::Name(leaf) if leaf.ident == "self" => vec![(Vec::new(), String::new())],
        UseTree::Name(leaf) => vec![(vec![name(&leaf.ident)], name(&leaf.ident))],
        UseTree::Rename(rename) if rename.ident == "self" => vec![(Vec::new(), name(&rename.rename))],
        UseTree::Rename(rename) => vec![(vec![name(&rename.ident)], name(&rename.rename))],
        UseTree::Glob(_) => vec![(vec!["*".to_owned()], "*".to_owned())],
        UseTree::Group(group) => group.items.iter().flat_map(use_tree).collect(),
    }
    .into_iter()
    .map(|(segments, local)| {
        // `a::{self}`: the prefix itself, named by its last segment.
        let local = if local.is_empty() {
            segments.last().cloned().unwrap_or_default()
        } else {
            local
        };
        (segments, local)
    })
    .collect()
}

/// Tokens as the scan of a macro needs them: identifiers (keywords too),
/// `::`, groups (braces apart), other punctuation, and the rest.
#[derive(Debug, PartialEq)]
enum Tok {
    Ident(String),
    Colon2,
    Brace(Vec<Tok>),
    Group(Vec<Tok>),
    Punct(char),
    Other,
}

/// A token stream as [`Tok`]s.
fn flatten(input: ParseStream) -> syn::Result<Vec<Tok>> {
    let mut out = Vec::new();
    while !input.is_empty() {
        if input.peek(Token![::]) {
            input.parse::<Token![::]>()?;
            out.push(Tok::Colon2);
        } else if input.peek(syn::token::Brace) {
            let inner;
            syn::braced!(inner in input);
            out.push(Tok::Brace(flatten(&inner)?));
        } else if input.peek(syn::token::Paren) {
            let inner;
            syn::parenthesized!(inner in input);
            out.push(Tok::Group(flatten(&inner)?));
        } else if input.peek(syn::token::Bracket) {
            let inner;
            syn::bracketed!(inner in input);
            out.push(Tok::Group(flatten(&inner)?));
        } else if input.peek(Ident::peek_any) {
            out.push(Tok::Ident(name(&Ident::parse_any(input)?)));
        } else {
            out.push(input.step(|cursor| {
                if let Some((punct, next)) = cursor.punct() {
                    Ok((Tok::Punct(punct.as_char()), next))
                } else if let Some((_, next)) = cursor.token_tree() {
                    Ok((Tok::Other, next))
                } else {
                    Err(cursor.error("a token"))
                }
            })?);
        }
    }
    Ok(out)
}

/// The paths of the use tree that `tokens` start with (`crate::a::{b, c as
/// d}`), each with its name; what follows the tree is left.
fn tree(tokens: &[Tok]) -> Vec<(Vec<String>, String)> {
    let mut segments = Vec::new();
    let mut i = 0;
    loop {
        match tokens.get(i) {
            Some(Tok::Ident(ident)) => segments.push(ident.clone()),
            Some(Tok::Punct('*')) => {
                segments.push("*".to_owned());
                return vec![(segments, "*".to_owned())];
            }
            Some(Tok::Brace(inner)) => {
                return inner
                    .split(|token| *token == Tok::Punct(','))
                    .filter(|item| !item.is_empty())
                    .flat_map(|item| {
                        let paths = if item == [Tok::Ident("self".to_owned())] {
                            vec![(Vec::new(), String::new())]
                        } else {
                            tree(item)
                        };
                        let prefix = segments.clone();
                        paths.into_iter().map(move |(rest, local)| {
                            let mut path = prefix.clone();
                            path.extend(rest);
                            let local = if local.is_empty() {
                                path.last().cloned().unwrap_or_default()
                            } else {
                                local
                            };
                            (path, local)
                        })
                    })
                    .collect();
            }
            _ => return Vec::new(),
        }
        i += 1;
        match tokens.get(i) {
            Some(Tok::Colon2) => i += 1,
            next => {
                let local = match (next, tokens.get(i + 1)) {
                    (Some(Tok::Ident(word)), Some(Tok::Ident(alias))) if word == "as" => alias.clone(),
                    _ => segments.last().cloned().unwrap_or_default(),
                };
                return vec![(segments, local)];
            }
        }
    }
}

/// Follows paths to the files that define what they name.
struct Resolver<'a> {
    files: &'a BTreeMap<Module, PathBuf>,
    reexports: &'a HashMap<(Module, String), Module>,
    facts: &'a BTreeMap<Module, Facts>,
}

impl Resolver<'_> {
    /// The module of the file that `path` names: its longest prefix that is
    /// a file's module, followed through a `pub use` of the next name (a
    /// glob's too, for a name the module does not define itself).
    fn resolve(&self, path: &[String], depth: usize) -> Option<Module> {
        for n in (0..=path.len()).rev() {
            let target = &path[..n];
            if !self.files.contains_key(target) {
                continue;
            }
            if let Some(next) = path.get(n).filter(|_| depth < 64) {
                let key = |name: &str| (target.to_vec(), name.to_owned());
                let source = self.reexports.get(&key(next)).cloned().or_else(|| {
                    let glob = self.reexports.get(&key("*"))?;
                    let defined = self.facts.get(target).is_some_and(|facts| facts.defined.contains(next));
                    (!defined).then(|| [&glob[..glob.len() - 1], std::slice::from_ref(next)].concat())
                });
                if let Some(source) = source
                    && source[..] != [target, std::slice::from_ref(next)].concat()[..]
                {
                    return self.resolve(&source, depth + 1);
                }
            }
            return Some(target.to_vec());
        }
        None
    }
}

/// The strongly connected groups of `graph` (Tarjan's algorithm).
fn strongly_connected(graph: &Graph) -> Vec<Vec<Module>> {
    struct Tarjan<'a> {
        graph: &'a Graph,
        index: HashMap<&'a Module, usize>,
        low: HashMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on_stack: HashSet<&'a Module>,
        groups: Vec<Vec<Module>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a Module) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = Vec::new();
                loop {
                    let w = self.stack.pop().expect("v is on the stack");
                    self.on_stack.remove(w);
                    group.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                self.groups.push(group);
            }
        }
    }
    let mut tarjan = Tarjan {
        graph,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: HashSet::new(),
        groups: Vec::new(),
    };
    for v in graph.keys() {
        if !tarjan.index.contains_key(v) {
            tarjan.visit(v);
        }
    }
    tarjan.groups
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate in a temporary folder, of `files` (path under `src`, text).
    fn crate_of(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join("src").join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    /// The circles of a crate of `files`, each as its files under `src`.
    fn circles_of(files: &[(&str, &str)]) -> Vec<Vec<String>> {
        let dir = crate_of(files);
        let src = dir.path().join("src");
        in_crate(dir.path())
            .unwrap()
            .into_iter()
            .map(|circle| {
                let files = circle.files.iter();
                files
                    .map(|file| file.strip_prefix(&src).unwrap().display().to_string())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn two_files_that_use_each_other_are_a_circle() {
        let files = [
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a.rs", "use crate::b::g;\npub fn f() { g() }\n"),
            ("b.rs", "use crate::a;\npub fn g() {}\nfn h() { a::f() }\n"),
        ];
        assert_eq!(circles_of(&files), [["a.rs", "b.rs"]]);
        let dir = crate_of(&files);
        let report = check(&[dir.path().to_owned()]).unwrap_err();
        assert!(
            report.contains("src/a.rs <-> ") && report.contains("src/b.rs -> "),
            "{report}"
        );
    }

    #[test]
    fn a_parent_and_its_child_that_use_each_other_are_a_circle() {
        let files = [
            ("lib.rs", "mod child;\npub struct Root;\nfn f() { child::g() }\n"),
            ("child.rs", "use crate::Root;\npub fn g() { let _ = Root; }\n"),
        ];
        assert_eq!(circles_of(&files), [["child.rs", "lib.rs"]]);
        // The child alone using its parent is no circle, nor the parent's `mod child;`.
        let files = [files[0], ("child.rs", "pub fn g() {}\n")];
        assert!(circles_of(&files).is_empty());
    }

    #[test]
    fn a_re_export_is_followed_to_the_file_that_defines_the_item() {
        let mut files = vec![
            ("lib.rs", "mod a;\nmod m;\npub use m::Thing;\n"),
            ("a.rs", "use crate::Thing;\npub fn f() {}\n"),
            ("m/mod.rs", "mod thing;\npub use thing::Thing;\n"),
            ("m/thing.rs", "pub struct Thing;\nfn g() { crate::a::f() }\n"),
        ];
        assert_eq!(circles_of(&files), [["a.rs", "m/thing.rs"]]);
        files[3].1 = "pub struct Thing;\n";
        assert!(circles_of(&files).is_empty());
        // A file that re-exports an item and uses it too uses the item's file, under an alias as well.
        files[1].1 = "pub(crate) use crate::Thing as T;\npub struct A;\nfn f(_: T) {}\n";
        files[3].1 = "pub struct Thing;\nfn g(_: crate::a::A) {}\n";
        assert_eq!(circles_of(&files), [["a.rs", "m/thing.rs"]]);
        // Re-exported only, not used: no circle.
        files[1].1 = "pub(crate) use crate::Thing as T;\npub struct A;\n";
        assert!(circles_of(&files).is_empty());
        // A glob re-export of a child is followed too.
        let files = [
            ("lib.rs", "mod a;\nmod b;\npub use a::*;\n"),
            ("a.rs", "pub struct Thing;\nfn f() { crate::b::g() }\n"),
            ("b.rs", "pub fn g() { let _ = crate::Thing; }\n"),
        ];
        assert_eq!(circles_of(&files), [["a.rs", "b.rs"]]);
    }

    #[test]
    fn paths_in_macros_and_through_super_count_and_test_modules_do_not() {
        let files = [
            ("lib.rs", "mod p;\n"),
            (
                "p/mod.rs",
                "mod x;\nmod y;\npub fn top() { println!(\"{}\", self::x::X); }\n",
            ),
            ("p/x.rs", "pub const X: u8 = 1;\nfn f() { super::y::g() }\n"),
            ("p/y.rs", "pub fn g() { assert!(super::top() == ()) }\n"),
        ];
        assert_eq!(circles_of(&files), [["p/mod.rs", "p/x.rs", "p/y.rs"]]);
        let files = [
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a.rs", "use crate::b::g;\npub fn f() { g() }\n"),
            (
                "b.rs",
                "pub fn g() {}\n#[cfg(test)]\nmod tests {\n    use crate::a::f;\n}\n",
            ),
        ];
        assert!(circles_of(&files).is_empty());
    }

    #[test]
    fn binaries_and_a_main_beside_a_library_are_crates_of_their_own() {
        let files = [
            ("lib.rs", "pub fn f() { crate::g() }\npub fn g() {}\n"),
            ("main.rs", "fn main() { crate::run() }\nfn run() {}\n"),
            ("bin/tool.rs", "fn main() {}\n"),
        ];
        let dir = crate_of(&files);
        let uses = uses(dir.path()).unwrap();
        assert_eq!(uses.keys().collect::<Vec<_>>(), [&dir.path().join("src/lib.rs")]);
    }
}
