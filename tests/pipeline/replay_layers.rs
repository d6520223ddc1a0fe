//! The replay wing is built in storeys (docs/replay.md): the vocabulary at the bottom, the
//! machinery at the top, and every file imports only from its own storey or a lower one. Rust
//! cannot say that inside one crate, and the house stays one package (STYLE.md), so this test
//! says it: it reads every `use` line and every path written inline (`crate::replay::…`,
//! `super::…`, a child's `name::…`) of every file under `src/replay/`, resolves each to the
//! file it names, and fails on an import that runs from a lower storey to a higher one, and on
//! any circle of files. The storeys are declared once, in [`STOREYS`].
//!
//! Tests are left out: a storey's tests may drive it through the machinery above (a TLS test
//! runs a server), and nothing outside a test can reach them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The replay wing's storeys, lowest first: each a name and the modules in it (a module names a
/// file by its path under `src/replay/` without `.rs`; a directory's `mod.rs` by the directory,
/// and a directory's name holds every file under it). A module in none of them is an error, so a
/// new file must be given its storey here. The wing's `mod.rs`, its face, is above them all.
const STOREYS: &[(&str, &[&str])] = &[
    ("vocabulary", &["http", "load", "meter", "script", "served"]),
    ("link", &["link"]),
    ("transport", &["transport"]),
    ("halves", &["robot", "serving"]),
    ("protocol", &["protocol", "recording", "server"]),
    (
        "outcome",
        &["options", "row", "chromium/row", "chromium/validate"],
    ),
    (
        "clients",
        &["driver", "robot_visitor", "chromium", "simulated"],
    ),
    ("place", &["place", "study"]),
];

/// The storey above every other: the wing's face, `src/replay/mod.rs`.
const FACE: &str = "face";

/// One import: the line it is on and the path it names, as segments.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Named {
    line: usize,
    segments: Vec<String>,
}

/// A token of Rust source, with the line it starts on. Comments, strings and characters are
/// dropped: a path written in a doc comment or a message is not an import.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Token {
    text: String,
    line: usize,
}

fn tokens(src: &str) -> Vec<Token> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let word = |c: char| c.is_alphanumeric() || c == '_';
    // Skips to the end of a string that opened before `i`, with `hashes` `#`s for a raw one.
    let skip_string = |i: &mut usize, line: &mut usize, raw: bool, hashes: usize| {
        while *i < chars.len() {
            let c = chars[*i];
            if c == '\n' {
                *line += 1;
            }
            if c == '\\' && !raw {
                *i += 2;
                continue;
            }
            *i += 1;
            if c == '"'
                && chars[*i..]
                    .iter()
                    .take(hashes)
                    .filter(|&&h| h == '#')
                    .count()
                    == hashes
            {
                *i += hashes;
                return;
            }
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied().unwrap_or(' ');
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            i += 1;
            skip_string(&mut i, &mut line, false, 0);
        } else if (c == 'r' || c == 'b') && (next == '"' || next == '#' || next == 'r') && {
            // `r"…"`, `r#"…"#`, `b"…"`, `br"…"`, but not an identifier that starts with r or b.
            let start = if c == 'b' && next == 'r' {
                i + 2
            } else {
                i + 1
            };
            let hashes = chars[start..].iter().take_while(|&&h| h == '#').count();
            chars.get(start + hashes) == Some(&'"')
                && (c == 'r' || next == 'r' || next == '"')
                && (i == 0 || !word(chars[i - 1]))
        } {
            let start = if c == 'b' && next == 'r' {
                i + 2
            } else {
                i + 1
            };
            let hashes = chars[start..].iter().take_while(|&&h| h == '#').count();
            let raw = c == 'r' || next == 'r';
            i = start + hashes + 1;
            skip_string(&mut i, &mut line, raw, hashes);
        } else if c == '\'' {
            // A character (`'x'`, `'\n'`, `'\u{1F600}'`) or a lifetime (`'a`).
            if next == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if word(c) {
            let start = i;
            while i < chars.len() && word(chars[i]) {
                i += 1;
            }
            out.push(Token {
                text: chars[start..i].iter().collect(),
                line,
            });
        } else if c == ':' && next == ':' {
            out.push(Token {
                text: "::".into(),
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                text: c.to_string(),
                line,
            });
            i += 1;
        }
    }
    out
}

/// `tokens` without the `#[cfg(test)] mod name { … }` and `#[cfg(test)] mod name;` items.
fn without_tests(tokens: Vec<Token>) -> Vec<Token> {
    fn text(t: &[Token]) -> Vec<&str> {
        t.iter().map(|t| t.text.as_str()).collect()
    }
    let cfg_test = ["#", "[", "cfg", "(", "test", ")", "]"];
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if i + cfg_test.len() <= tokens.len() && text(&tokens[i..i + cfg_test.len()]) == cfg_test {
            // Skip further attributes and a visibility, and see whether a module follows.
            let mut j = i + cfg_test.len();
            loop {
                if tokens.get(j).is_some_and(|t| t.text == "#") {
                    let mut depth = 0;
                    j += 1;
                    while j < tokens.len() {
                        match tokens[j].text.as_str() {
                            "[" => depth += 1,
                            "]" => {
                                depth -= 1;
                                if depth == 0 {
                                    j += 1;
                                    break;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                } else {
                    break;
                }
            }
            if tokens.get(j).is_some_and(|t| t.text == "pub") {
                j += 1;
                if tokens.get(j).is_some_and(|t| t.text == "(") {
                    while tokens.get(j).is_some_and(|t| t.text != ")") {
                        j += 1;
                    }
                    j += 1;
                }
            }
            if tokens.get(j).is_some_and(|t| t.text == "mod") {
                j += 2;
                if tokens.get(j).is_some_and(|t| t.text == "{") {
                    let mut depth = 0;
                    while j < tokens.len() {
                        match tokens[j].text.as_str() {
                            "{" => depth += 1,
                            "}" => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                }
                i = j + 1;
                continue;
            }
        }
        out.push(tokens[i].clone());
        i += 1;
    }
    out
}

/// Every path in `src` that can name a module of the crate: the leaves of each `use` tree
/// (`use a::{b, c::d}` is `a::b` and `a::c::d`), and every path of two segments or more written
/// elsewhere. A path's line is its last segment's.
fn paths(src: &str) -> Vec<Named> {
    let tokens = without_tests(tokens(src));
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        let after_colons = i > 0 && tokens[i - 1].text == "::";
        if t.text == "use" {
            let mut prefix: Vec<Vec<String>> = vec![Vec::new()];
            let mut current: Vec<String> = Vec::new();
            let mut line = t.line;
            i += 1;
            let flush = |out: &mut Vec<Named>,
                         current: &mut Vec<String>,
                         prefix: &[Vec<String>],
                         line: usize| {
                if !current.is_empty() {
                    let mut segments: Vec<String> = prefix.concat();
                    segments.append(current);
                    out.push(Named { line, segments });
                }
            };
            while i < tokens.len() && tokens[i].text != ";" {
                let tok = &tokens[i];
                match tok.text.as_str() {
                    "::" => {}
                    "{" => prefix.push(std::mem::take(&mut current)),
                    "}" => {
                        flush(&mut out, &mut current, &prefix, line);
                        prefix.pop();
                    }
                    "," => flush(&mut out, &mut current, &prefix, line),
                    "as" => i += 1,
                    "*" => {}
                    // `self` in a group names the group's own path.
                    "self" if tokens[i - 1].text == "{" || tokens[i - 1].text == "," => {
                        out.push(Named {
                            line: tok.line,
                            segments: prefix.concat(),
                        });
                    }
                    word => {
                        current.push(word.to_string());
                        line = tok.line;
                    }
                }
                i += 1;
            }
            flush(&mut out, &mut current, &prefix, line);
            continue;
        }
        let starts = t.text.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !after_colons
            && tokens.get(i + 1).is_some_and(|n| n.text == "::")
            && !(i > 0 && tokens[i - 1].text == "in");
        if starts {
            let mut segments = vec![t.text.clone()];
            let mut line = t.line;
            let mut j = i + 1;
            while tokens.get(j).is_some_and(|n| n.text == "::")
                && tokens
                    .get(j + 1)
                    .is_some_and(|n| n.text.chars().all(|c| c.is_alphanumeric() || c == '_'))
            {
                segments.push(tokens[j + 1].text.clone());
                line = tokens[j + 1].line;
                j += 2;
            }
            out.push(Named { line, segments });
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// A source file of the wing: its module name and its text.
struct Source {
    module: String,
    file: String,
    text: String,
}

/// Every file under `src/replay/` but the tests (`tests.rs`, `*_tests.rs`).
fn sources() -> Vec<Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/replay");
    let mut out = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if !name.ends_with(".rs") || name == "tests.rs" || name.ends_with("_tests.rs") {
                continue;
            }
            let rel = path.strip_prefix(&root).unwrap().to_string_lossy();
            out.push(Source {
                module: module_of(&rel),
                file: format!("src/replay/{rel}"),
                text: std::fs::read_to_string(&path).unwrap(),
            });
        }
    }
    out.sort_by(|a, b| a.module.cmp(&b.module));
    out
}

/// `link/spec.rs` → `link/spec`, `link/mod.rs` → `link`, `mod.rs` → ``.
fn module_of(rel: &str) -> String {
    let name = rel.trim_end_matches(".rs");
    let name = name.strip_suffix("/mod").unwrap_or(name);
    if name == "mod" { "" } else { name }.to_string()
}

/// The module a path names from `here`, if it names one of `mods`: its longest prefix that is a
/// module, after `crate::replay`, `super` and `self` are resolved. `None` for a path outside
/// the wing (the standard library, another crate, another stage).
fn resolve(mods: &BTreeSet<String>, here: &str, segments: &[String]) -> Option<String> {
    let here: Vec<&str> = if here.is_empty() {
        Vec::new()
    } else {
        here.split('/').collect()
    };
    let seg: Vec<&str> = segments.iter().map(String::as_str).collect();
    let absolute: Vec<&str> = match seg.as_slice() {
        ["crate", "replay", rest @ ..] => rest.to_vec(),
        ["crate", ..] => return None,
        ["super", ..] => {
            let ups = seg.iter().take_while(|s| **s == "super").count();
            if ups > here.len() {
                return None;
            }
            let mut base = here[..here.len() - ups].to_vec();
            base.extend(&seg[ups..]);
            base
        }
        ["self", rest @ ..] => {
            let mut base = here.clone();
            base.extend(rest);
            base
        }
        [first, ..] => {
            // A child module named from its parent.
            let mut child = here.clone();
            child.push(first);
            if !mods.contains(&child.join("/")) {
                return None;
            }
            let mut base = here.clone();
            base.extend(&seg);
            base
        }
        [] => return None,
    };
    (0..=absolute.len())
        .rev()
        .map(|i| absolute[..i].join("/"))
        .find(|m| mods.contains(m))
}

/// One import of one module by another, where it is written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    file: String,
    line: usize,
    from: String,
    to: String,
}

/// Every import between two different modules of `sources`.
fn edges(sources: &[Source]) -> Vec<Edge> {
    let mods: BTreeSet<String> = sources.iter().map(|s| s.module.clone()).collect();
    let mut out = BTreeSet::new();
    for s in sources {
        for p in paths(&s.text) {
            if let Some(to) = resolve(&mods, &s.module, &p.segments) {
                if to != s.module {
                    out.insert(Edge {
                        file: s.file.clone(),
                        line: p.line,
                        from: s.module.clone(),
                        to,
                    });
                }
            }
        }
    }
    out.into_iter().collect()
}

/// The storey of `module`, by its index in [`STOREYS`] (the face's is one past the last), or
/// `None` when the table does not place it.
fn storey(module: &str) -> Option<usize> {
    if module.is_empty() {
        return Some(STOREYS.len());
    }
    STOREYS
        .iter()
        .enumerate()
        .flat_map(|(i, (_, mods))| mods.iter().map(move |m| (i, *m)))
        .filter(|(_, m)| module == *m || module.starts_with(&format!("{m}/")))
        .max_by_key(|(_, m)| m.len())
        .map(|(i, _)| i)
}

fn storey_name(i: usize) -> &'static str {
    STOREYS.get(i).map_or(FACE, |s| s.0)
}

/// Each import that runs up, as `file:line: storey X imports storey Y (from → to)`.
fn upward(edges: &[Edge]) -> Vec<String> {
    edges
        .iter()
        .filter_map(|e| {
            let (a, b) = (storey(&e.from)?, storey(&e.to)?);
            (b > a).then(|| {
                format!(
                    "{}:{}: storey {} imports storey {} ({} → {})",
                    e.file,
                    e.line,
                    storey_name(a),
                    storey_name(b),
                    e.from,
                    e.to
                )
            })
        })
        .collect()
}

/// The strongly connected components with more than one module (Tarjan's algorithm).
fn circles(edges: &[Edge]) -> Vec<Vec<String>> {
    let mut graph: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for e in edges {
        graph.entry(&e.from).or_default().insert(&e.to);
        graph.entry(&e.to).or_default();
    }
    struct State<'a> {
        graph: &'a BTreeMap<&'a str, BTreeSet<&'a str>>,
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
        for &w in &s.graph[v] {
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
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
        graph: &graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for &v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn every_replay_file_has_a_storey() {
    let sources = sources();
    assert!(sources.len() > 40, "{}", sources.len());
    let missing: Vec<&str> = sources
        .iter()
        .filter(|s| storey(&s.module).is_none())
        .map(|s| s.file.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "give these a storey in STOREYS: {missing:#?}"
    );
}

#[test]
fn no_replay_file_imports_from_a_higher_storey() {
    let found = upward(&edges(&sources()));
    assert!(
        found.is_empty(),
        "imports that run up:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_replay_files_import_each_other_without_a_circle() {
    let found = circles(&edges(&sources()));
    assert!(found.is_empty(), "import circles in src/replay: {found:#?}");
}

/// A wing of three files in the storeys above, in the text the checker reads.
fn planted(tcp: &str) -> Vec<Source> {
    let file = |module: &str, text: &str| Source {
        module: module.into(),
        file: format!("src/replay/{module}.rs"),
        text: text.into(),
    };
    vec![
        file("meter", "pub struct Counters;"),
        file("driver", "use super::transport::tcp::Wire;"),
        file("transport/tcp", tcp),
    ]
}

#[test]
fn the_check_fails_on_a_planted_upward_import() {
    // Downward only: a `use` group, an inline path, a path in a comment and a string.
    let clean = "use crate::replay::{meter::{self, Counters}};
                 // use super::super::driver::Needs;
                 fn f() -> &'static str { let _ = crate::replay::meter::Counters; \"super::super::driver\" }";
    assert_eq!(upward(&edges(&planted(clean))), Vec::<String>::new());
    // The transport reaching up into the clients' driver, inline on line 3.
    let upward_import = format!("{clean}\nfn g() {{ super::super::driver::drive(); }}");
    assert_eq!(
        upward(&edges(&planted(&upward_import))),
        [
            "src/replay/transport/tcp.rs:4: storey transport imports storey clients \
          (transport/tcp → driver)"
        ]
    );
    // And through a `use` group, with the circle it closes.
    let group = "use crate::replay::{driver::{self, Needs}, meter::Counters};";
    let found = edges(&planted(group));
    assert_eq!(upward(&found).len(), 1, "{found:#?}");
    assert_eq!(circles(&found), vec![vec!["driver", "transport/tcp"]]);
}

#[test]
fn tests_are_not_imports() {
    let text = "use super::meter::Counters;\n#[cfg(test)]\nmod tests {\n    use crate::replay::driver::Needs;\n}\n#[cfg(test)]\n#[path = \"x_tests.rs\"]\nmod other;";
    let paths: Vec<Vec<String>> = paths(text).into_iter().map(|p| p.segments).collect();
    assert_eq!(paths, vec![vec!["super", "meter", "Counters"]]);
}
