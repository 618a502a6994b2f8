#!/usr/bin/env python3
"""Find circles of imports between the source files of each crate.

Usage: file-cycles.py CRATE_DIR...

A file uses another when its code (test modules left out) names an item of
the other: a path through `crate::`, `super::` or `self::`, or, in a parent
module, a path through one of its own child modules (`child::item`). A
`pub use` re-export is not a use: it only publishes an item, and a path
through it is followed to the file that defines the item. Each circle (a
strongly connected group of two or more files) is printed with its edges,
crate by crate; the exit code is 1 when there is one.

crates/arena/tests/architecture.rs runs this over the workspace.
"""
import os
import re
import sys

def modules(src):
    """Map module path (tuple) -> file path for every .rs under src."""
    out = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            p = os.path.join(root, f)
            rel = os.path.relpath(p, src)[:-3].split(os.sep)
            if rel[0] == "bin":
                continue  # each file of src/bin is a crate of its own
            if rel == ["main"] and os.path.exists(os.path.join(src, "lib.rs")):
                continue  # a binary beside a library uses it by the crate's name
            if rel in (["lib"], ["main"]):
                mod = ()
            elif rel[-1] == "mod":
                mod = tuple(rel[:-1])
            else:
                mod = tuple(rel)
            out[mod] = p
    return out

def strip_tests(text):
    """`text` without its `#[cfg(test)] mod x { ... }` blocks and `#[cfg(test)] mod x;` lines."""
    out, i = [], 0
    pat = re.compile(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*([;{])")
    while True:
        m = pat.search(text, i)
        if not m:
            out.append(text[i:]); break
        out.append(text[i:m.start()])
        if m.group(3) == ";":
            i = m.end(); continue
        depth, j = 1, m.end()
        while depth and j < len(text):
            depth += {"{": 1, "}": -1}.get(text[j], 0); j += 1
        i = j
    return "".join(out)

def resolve(mods, reexports, path):
    """The file that `path` (a tuple, absolute) names: the longest known
    module, followed through a `pub use` re-export of the next name."""
    for n in range(len(path), -1, -1):
        if path[:n] in mods:
            target = path[:n]
            if n < len(path):
                source = reexports.get((target, path[n]))
                if source is None and (target, "*") in reexports and not defines(mods[target], path[n]):
                    source = reexports[(target, "*")][:-1] + (path[n],)
                if source is not None and source != target + (path[n],):
                    return resolve(mods, reexports, source)
            return target
    return None

DEFINED = {}

def defines(file, name):
    """Whether `file` defines an item called `name` itself."""
    if file not in DEFINED:
        with open(file) as f:
            DEFINED[file] = set(re.findall(
                r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const|static|fn|struct|enum|trait|type|mod|macro_rules!)\s+(\w+)",
                strip_tests(f.read()), re.M))
    return name in DEFINED[file]

def paths(mod, text):
    """Every absolute path (a tuple) that `text`, the file of `mod`, names
    through `crate::`, `super::` or `self::`, whether a `pub use` names it,
    and the name it has in the file (its alias, if any)."""
    text = re.sub(r"//[^\n]*", "", text)
    for m in re.finditer(r"\b(crate|super|self)((?:::\w+)+|::\{)", text):
        start, end, depth = m.start(), m.start(), 0
        while end < len(text):
            c = text[end]
            if c == "{": depth += 1
            elif c == "}":
                if depth == 0: break
                depth -= 1
            elif c in ";(<,=" and depth == 0: break
            elif c in " \n\t)" and depth == 0: break
            end += 1
        line_start = text.rfind("\n", 0, start) + 1
        is_pub_use = re.match(r"\s*pub(\([^)]*\))?\s+use\s", text[line_start:start]) is not None
        alias = re.match(r"\s+as\s+(\w+)", text[end:])
        whole = text[start:end] + ("@" + alias.group(1) if alias else "")
        for p in expand(whole):
            p, _, local = p.partition("@")
            parts = p.split("::")
            head, rest = parts[0], parts[1:]
            base = mod
            if head == "crate": base = ()
            elif head == "super": base = mod[:-1]
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
            yield base + tuple(rest), is_pub_use, local or parts[-1]
    # a parent that names its own child module (`child::item`, `pub use child::X`)
    decl = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", re.M)
    body = decl.sub("", text)
    for child in decl.findall(text):
        for m in re.finditer(r"(?<![:\w])" + child + r"::(\{[^}]*\}|\w+)", body):
            line_start = body.rfind("\n", 0, m.start()) + 1
            is_pub_use = re.match(r"\s*pub(\([^)]*\))?\s+use\s", body[line_start:m.start()]) is not None
            for p in expand(child + "::" + m.group(1)):
                p, _, local = p.partition("@")
                yield mod + tuple(p.split("::")), is_pub_use, local or p.split("::")[-1]

def deps(mods, reexports, mod, text):
    """The files that `text` uses. A `pub use` alone is not a use: it
    publishes an item of another file, and a path through it is followed
    instead; it is one when the file's own code names the item too."""
    found = set()
    code = re.sub(r"\bpub(\([^)]*\))?\s+use\s[^;]*;", "", re.sub(r"//[^\n]*", "", text))
    for path, is_pub_use, local in paths(mod, text):
        if is_pub_use and not re.search(r"\b" + re.escape(local) + r"\b", code):
            continue
        target = resolve(mods, reexports, path)
        if target is not None and target != mod:
            found.add(target)
    return found

def expand(path):
    """The paths of a `use` tree (`a::{b, c::{d as e}}`), an alias kept after `@`."""
    path = re.sub(r"\s+as\s+", "@", path)
    path = re.sub(r"\s+", "", path)
    m = re.match(r"^(.*?)::\{(.*)\}$", path)
    if not m:
        return [path]
    prefix, inner = m.group(1), m.group(2)
    items, depth, cur = [], 0, ""
    for c in inner:
        if c == "," and depth == 0:
            items.append(cur); cur = ""; continue
        depth += c == "{"; depth -= c == "}"; cur += c
    items.append(cur)
    out = []
    for it in items:
        if not it or it == "self":
            out.append(prefix); continue
        out += expand(prefix + "::" + it)
    return out

def sccs(graph):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v: break
            out.append(comp)
    for v in graph:
        if v not in index: visit(v)
    return out

def main(roots):
    bad = 0
    for root in roots:
        src = os.path.join(root, "src")
        if not os.path.isdir(src):
            continue
        mods = modules(src)
        texts = {}
        for mod, path in mods.items():
            with open(path) as f:
                texts[mod] = strip_tests(f.read())
        # `pub use a::X` in module M: a path through M to X is a path to a
        reexports = {}
        for mod, text in texts.items():
            for path, is_pub_use, local in paths(mod, text):
                if is_pub_use and path:
                    reexports[(mod, local)] = path
        graph = {mod: deps(mods, reexports, mod, text) for mod, text in texts.items()}
        for comp in sccs(graph):
            if len(comp) > 1:
                bad += 1
                print(root + ": " + " <-> ".join(sorted(mods[m] for m in comp)))
                for m in sorted(comp):
                    inside = sorted(mods[t] for t in graph[m] if t in comp)
                    print("    " + mods[m] + " -> " + ", ".join(inside))
    if not bad:
        print("no circles between files in", len(roots), "crates")
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
