//! `src/report/` is one model and renderers that never import each other: this test reads the
//! `use` lines and paths of every file there, builds the graph of which file names which
//! other, and fails on any circle — including a directory's `mod.rs` and its children naming
//! each other — and on a renderer that names another renderer.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module name (`model/figures`, `html`, `` for `mod.rs`) → source without comments and tests.
fn modules() -> BTreeMap<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/report");
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(&root) {
        let entry = entry.unwrap();
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = path.strip_prefix(&root).unwrap().to_string_lossy();
        let name = rel.trim_end_matches(".rs");
        let name = name.strip_suffix("/mod").unwrap_or(name);
        let name = if name == "mod" { "" } else { name };
        let text = std::fs::read_to_string(path).unwrap();
        let text = text.split("#[cfg(test)]").next().unwrap_or_default();
        let code: String = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        out.insert(name.to_string(), expand_braces(&code));
    }
    out
}

/// `a::b::{c, d::e, self}` → `a::b::c a::b::d::e a::b`, twice over for nested groups.
fn expand_braces(code: &str) -> String {
    let mut text = code.to_string();
    for _ in 0..3 {
        let mut out = String::new();
        let mut rest = text.as_str();
        while let Some(open) = rest.find("::{") {
            let Some(close) = rest[open..].find('}').map(|c| open + c) else {
                break;
            };
            if rest[open + 3..close].contains('{') {
                out.push_str(&rest[..open + 3]);
                rest = &rest[open + 3..];
                continue;
            }
            let start = rest[..open]
                .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .map_or(0, |i| i + 1);
            out.push_str(&rest[..start]);
            let base = &rest[start..open];
            let items: Vec<String> = rest[open + 3..close]
                .split(',')
                .map(|i| i.trim().split(" as ").next().unwrap_or_default().trim())
                .filter(|i| !i.is_empty())
                .map(|i| match i {
                    "self" => base.to_string(),
                    i => format!("{base}::{i}"),
                })
                .collect();
            out.push_str(&items.join(" "));
            rest = &rest[close + 1..];
        }
        out.push_str(rest);
        text = out;
    }
    text
}

/// The module a path of segments names: its longest prefix that is a module.
fn resolve(mods: &BTreeSet<String>, segments: &[&str]) -> Option<String> {
    (1..=segments.len())
        .rev()
        .map(|i| segments[..i].join("/"))
        .find(|m| mods.contains(m))
}

/// Which modules each module names.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let sources = modules();
    let mods: BTreeSet<String> = sources.keys().cloned().collect();
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, code) in &sources {
        let here: Vec<&str> = if m.is_empty() {
            Vec::new()
        } else {
            m.split('/').collect()
        };
        let mut names = BTreeSet::new();
        // Every path: `crate::report::…`, `super::…`, a child's `name::…`.
        for (at, _) in code.match_indices("::") {
            let start = code[..at]
                .rfind(|c: char| !(word(c) || c == ':'))
                .map_or(0, |i| i + 1);
            if code[..start].ends_with("::") {
                continue;
            }
            let end = code[at..]
                .find(|c: char| !(word(c) || c == ':'))
                .map_or(code.len(), |i| at + i);
            let path: Vec<&str> = code[start..end]
                .split("::")
                .filter(|s| !s.is_empty())
                .collect();
            let target = match path.as_slice() {
                ["crate", "report", rest @ ..] => resolve(&mods, rest).or(Some(String::new())),
                ["super", ..] => {
                    // `super` drops one segment of the module's path (a `mod.rs` is named by
                    // its directory, so this holds for both kinds of file).
                    let ups = path.iter().take_while(|s| **s == "super").count();
                    let mut base: Vec<&str> = here[..here.len().saturating_sub(ups)].to_vec();
                    let parent = base.join("/");
                    base.extend(&path[ups..]);
                    resolve(&mods, &base).or(Some(parent))
                }
                // A child of a directory module, named from its `mod.rs`.
                ["self", rest @ ..] | rest => {
                    let mut child = here.clone();
                    child.extend(rest.iter().take(1));
                    let name = child.join("/");
                    (rest.len() > 1 && sources.contains_key(&name)).then_some(name)
                }
            };
            if let Some(t) = target.filter(|t| t != m && mods.contains(t)) {
                names.insert(t);
            }
        }
        edges.insert(m.clone(), names);
    }
    edges
}

/// The strongly connected components with more than one module (Tarjan's algorithm).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on.insert(v);
        for w in &s.edges[v] {
            if !s.index.contains_key(w.as_str()) {
                visit(s, w);
                let lw = s.low[w.as_str()];
                let lv = s.low[v];
                s.low.insert(v, lv.min(lw));
            } else if s.on.contains(w.as_str()) {
                let iw = s.index[w.as_str()];
                let lv = s.low[v];
                s.low.insert(v, lv.min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// The renderer a module belongs to (`terminal`, `html`, `ci/sarif`, …), or `None` for the
/// model and the formatters.
fn renderer(module: &str) -> Option<String> {
    let top = module.split('/').next().unwrap_or_default();
    match top {
        "terminal" | "markdown" | "html" | "json" => Some(top.to_string()),
        "ci" => Some(module.split('/').take(2).collect::<Vec<_>>().join("/")),
        _ => None,
    }
}

#[test]
fn the_report_modules_import_each_other_without_a_circle() {
    let edges = graph();
    assert!(edges.len() > 20, "{edges:#?}");
    let found = circles(&edges);
    assert!(found.is_empty(), "import circles in src/report: {found:#?}");
}

#[test]
fn no_renderer_imports_another() {
    let edges = graph();
    let mut crossings = Vec::new();
    for (from, to) in &edges {
        let Some(a) = renderer(from) else { continue };
        for t in to {
            if let Some(b) = renderer(t) {
                if a != b {
                    crossings.push(format!("{from} → {t}"));
                }
            }
        }
    }
    assert!(crossings.is_empty(), "{crossings:#?}");
}

#[test]
fn the_check_finds_a_circle_when_there_is_one() {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    edges.insert("a".into(), ["b".to_string()].into());
    edges.insert("b".into(), ["c".to_string()].into());
    edges.insert("c".into(), ["a".to_string()].into());
    edges.insert("d".into(), BTreeSet::new());
    assert_eq!(circles(&edges), vec![vec!["a", "b", "c"]]);
    assert_eq!(
        expand_braces("use super::{a, b::c, self};"),
        "use super::a super::b::c super;"
    );
}
