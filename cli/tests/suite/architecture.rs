//! The layering ARCHITECTURE.md describes, checked: which crate may depend on which, and no
//! cycle among the top-level modules of a crate (through `crate::` and a top-level file's
//! `super::` paths; test code — `tests.rs`, `*_tests.rs`, `tests/` folders, a trailing
//! `#[cfg(test)] mod` — may reach across, since nothing else depends on it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Each workspace crate's folder, package name, and the workspace crates it may use.
const LAYERS: [(&str, &str, &[&str]); 4] = [
    ("reference", "ptxconform-reference", &[]),
    ("core", "ptxconform-core", &["ptxconform-reference"]),
    (
        "gpu",
        "ptxconform-gpu",
        &["ptxconform-reference", "ptxconform-core"],
    ),
    (
        "cli",
        "ptxconform",
        &["ptxconform-reference", "ptxconform-core", "ptxconform-gpu"],
    ),
];

/// Module cycles that exist and are known, each with why it is still there. The check fails on
/// any other cycle, and on a listed one that is gone (so the list shrinks as they are removed).
/// Empty: every crate's top-level modules form a DAG.
const KNOWN_CYCLES: [(&str, &[&str], &str); 0] = [];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn is_test_file(rel: &Path) -> bool {
    rel.components().any(|c| {
        let s = c.as_os_str().to_string_lossy();
        s == "tests" || s == "tests.rs" || s.ends_with("_tests.rs")
    })
}

/// The source without comments and without a trailing `#[cfg(test)] mod … {` block.
fn non_test_code(text: &str) -> String {
    let cut = text
        .match_indices("#[cfg(test)]")
        .find(|(i, _)| text[i + 12..].trim_start().starts_with("mod "))
        .map_or(text.len(), |(i, _)| i);
    text[..cut]
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Names following `prefix` (`crate::NAME`, or each NAME of `crate::{NAME, NAME::x}`).
fn referenced(code: &str, prefix: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices(prefix) {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            out.extend(group.split(',').map(|p| ident(p.trim())));
        } else {
            out.insert(ident(rest));
        }
    }
    out.retain(|s| !s.is_empty() && s != "self");
    out
}

/// Top-level module -> the top-level modules its non-test code uses.
fn module_graph(krate: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = root().join(krate).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap().to_path_buf();
        if is_test_file(&rel) {
            continue;
        }
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if top == "lib" || top == "main" {
            continue;
        }
        let code = non_test_code(&std::fs::read_to_string(&f).unwrap());
        let mut uses = referenced(&code, "crate::");
        // In a top-level file `super::` is the crate root.
        if rel.components().count() == 1 {
            uses.extend(referenced(&code, "super::"));
        }
        uses.remove(&top);
        g.entry(top).or_default().extend(uses);
    }
    g
}

/// The strongly connected components of more than one module (Tarjan), each sorted.
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        for w in t.g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !t.g.contains_key(w) {
                continue;
            }
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.stack.contains(&w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn no_module_cycles_but_the_known_ones() {
    for (krate, _, _) in LAYERS {
        let found = cycles(&module_graph(krate));
        let known: Vec<Vec<String>> = KNOWN_CYCLES
            .iter()
            .filter(|(k, _, _)| *k == krate)
            .map(|(_, m, _)| m.iter().map(|s| s.to_string()).collect())
            .collect();
        assert_eq!(
            found, known,
            "module cycles of `{krate}` (found, then the known ones)"
        );
    }
}

#[test]
fn the_checker_sees_a_cycle() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let code = non_test_code(
        "use crate::{b, c::x};\n// crate::d\nfn f() { crate::e::g() }\n#[cfg(test)]\nmod tests { use crate::f; }",
    );
    assert_eq!(
        referenced(&code, "crate::"),
        ["b", "c", "e"].map(String::from).into()
    );
    g.insert("a".into(), ["b".to_string()].into());
    g.insert("b".into(), ["c".to_string()].into());
    g.insert("c".into(), ["a".to_string()].into());
    g.insert("d".into(), ["a".to_string()].into());
    assert_eq!(cycles(&g), vec![vec!["a", "b", "c"]]);
    g.get_mut("c").unwrap().clear();
    assert!(cycles(&g).is_empty());
}

/// Each crate's manifest names only the workspace crates below it; CUDA only in the GPU crate,
/// the command-line parser only in the CLI.
#[test]
fn crates_depend_downwards_only() {
    let workspace: Vec<&str> = LAYERS.iter().map(|(_, p, _)| *p).collect();
    for (dir, package, allowed) in LAYERS {
        let manifest = std::fs::read_to_string(root().join(dir).join("Cargo.toml")).unwrap();
        assert!(manifest.contains(&format!("name = \"{package}\"")), "{dir}");
        let deps = manifest
            .split("[dependencies]")
            .nth(1)
            .unwrap_or("")
            .split("\n[")
            .next()
            .unwrap();
        let names: Vec<&str> = deps
            .lines()
            .filter_map(|l| l.split(['.', ' ', '=']).next())
            .filter(|n| !n.is_empty())
            .collect();
        for n in &names {
            if workspace.contains(n) {
                assert!(allowed.contains(n), "{package} depends on {n}");
            }
        }
        assert_eq!(
            names.contains(&"cudarc"),
            dir == "gpu",
            "cudarc in {package}"
        );
        assert_eq!(names.contains(&"clap"), dir == "cli", "clap in {package}");
    }
}
