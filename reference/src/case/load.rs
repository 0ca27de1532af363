//! Loading case files (YAML text -> typed, validated [`Case`]s) and writing them back.
//!
//! A file holds one YAML document: one case (a mapping) or many (a sequence of mappings); an
//! empty file holds none. Every problem becomes a located [`CaseError`]; nothing here panics on
//! any input. Loading is two passes over the text: serde-saphyr deserializes the typed cases, and
//! the YAML event stream gives a located node tree ([`super::loc`]) that turns the field paths of
//! validation problems (and of serde's errors) into line:column positions. (serde-saphyr's
//! `Spanned<T>` would locate values too, but loses positions under `flatten`/`untagged`, which
//! the schema uses for steps, CTAs and params, and would change the schema's types.)
//!
//! PTX syntax errors are located inside the `ptx:` string: exactly for one-line plain and
//! quoted scalars and for `|` blocks, approximately for `>` blocks and multi-line flow scalars
//! (see `loc::Node::inner_pos`).

use std::path::{Path, PathBuf};

use super::error::CaseError;
use super::loc::{self, Kind, Node, Seg};
use super::model::Case;
use super::validate::{self, Problem, Severity};
use crate::ptx::lex::Pos;
use serde_saphyr::granit_parser::{Event, Parser};

/// Everything known about one file: the cases that deserialized, and every located problem.
/// `errors` non-empty means the file must not be run; `notes` are advisory (e.g. a non-portable
/// cluster size).
#[derive(Clone, Debug, Default)]
pub struct Checked {
    pub cases: Vec<Case>,
    pub errors: Vec<CaseError>,
    pub notes: Vec<CaseError>,
    /// Indices into `cases` of the cases an error is about.
    pub bad: std::collections::BTreeSet<usize>,
}

fn located(file: &str, at: Pos, path: &str, message: impl Into<String>) -> CaseError {
    CaseError {
        file: file.to_string(),
        line: at.line.max(1),
        col: at.col.max(1),
        path: path.to_string(),
        message: message.into(),
    }
}

/// serde-saphyr appends " at line L, column C" to its messages; we print the position up front.
fn strip_location_suffix(msg: &str) -> &str {
    match msg.rfind(" at line ") {
        Some(i) if msg[i..].contains(", column ") => &msg[..i],
        _ => msg,
    }
}

/// serde's messages for the schema's untagged and flattened enums name Rust types; say what the
/// YAML should hold instead.
fn friendlier(msg: &str) -> &str {
    match msg {
        "data did not match any variant of untagged enum Ctas" => {
            "expected a CTA index, `all`, or a list of CTA indices"
        }
        "data did not match any variant of untagged enum Param" => {
            "expected an integer, or `{ value: INTEGER, type: REGISTER-TYPE }`"
        }
        "no variant of enum StepOp found in flattened data" => {
            "a step needs one of `ptx`, `wait_parity` or `store` (besides `cta` and `thread`)"
        }
        m => m,
    }
}

fn serde_error(e: &serde_saphyr::Error, root: Option<&Node>, file: &str) -> CaseError {
    let e = e.without_snippet();
    let at = e
        .location()
        .map(|l| Pos {
            line: l.line() as usize,
            col: l.column() as usize,
        })
        .unwrap_or(Pos { line: 1, col: 1 });
    let text = e.to_string();
    let msg = friendlier(strip_location_suffix(&text));
    let mut at = at;
    let path = match root {
        Some(r) => {
            let (mut path, on_key) = r.path_at(at);
            // serde locates a missing field at some key of the mapping that lacks it; point at
            // the mapping instead.
            if on_key && msg.starts_with("missing field") {
                path.pop();
                at = r.find(&path).at;
            }
            // Under `flatten` serde locates an unknown field at its mapping; point at the key.
            // (or, for a flattened enum's variant, at the variant's key): point at the key.
            if let Some(name) = msg
                .strip_prefix("unknown field `")
                .and_then(|m| m.split('`').next())
            {
                let here = r.find(&path);
                if let Some((rel, k)) = here.key_below(name) {
                    at = k.at;
                    path.extend(rel);
                }
            }
            if path.is_empty() {
                "case".to_string()
            } else {
                loc::path_string(&path)
            }
        }
        None => "yaml".to_string(),
    };
    located(file, at, &path, msg)
}

/// Load, deserialize and validate every case of one YAML text, collecting every problem.
/// `origin` names the text in messages (usually its path).
pub fn check_str(text: &str, origin: &str) -> Checked {
    // Most texts are well-formed cases: deserialize first and build the located node tree (a
    // second YAML parse) only when there is a problem to locate. serde-saphyr's `from_str` reads
    // the whole stream and fails on a second document or a syntax error anywhere, so its success
    // means the located pass would have found this one document with this root.
    let mut first = None;
    if let Some(multi) = collection_root(text) {
        match deserialize(text, multi) {
            Ok(cases) => {
                let problems = validate::validate_file(&cases);
                if problems.is_empty() {
                    return Checked {
                        cases,
                        ..Checked::default()
                    };
                }
                if let Ok(docs) = loc::parse(text) {
                    if let [root] = docs.as_slice() {
                        return with_problems(cases, &problems, multi, root, text, origin);
                    }
                }
                first = Some((multi, Ok(cases)));
            }
            // The located pass reuses the error rather than deserializing again.
            Err(e) => first = Some((multi, Err(e))),
        }
    }
    located_pass(text, origin, first)
}

/// Whether the first document's root is a sequence (`Some(true)`) or a mapping (`Some(false)`),
/// from the first events only; `None` for anything else (a scalar, an empty stream, an early
/// syntax error), which the located pass handles.
fn collection_root(text: &str) -> Option<bool> {
    for ev in Parser::new_from_str(text) {
        match ev.ok()?.0 {
            Event::StreamStart | Event::DocumentStart(..) | Event::Comment(..) => {}
            Event::MappingStart(..) => return Some(false),
            Event::SequenceStart(..) => return Some(true),
            _ => return None,
        }
    }
    None
}

fn deserialize(text: &str, multi: bool) -> Result<Vec<Case>, serde_saphyr::Error> {
    if multi {
        serde_saphyr::from_str::<Vec<Case>>(text)
    } else {
        serde_saphyr::from_str::<Case>(text).map(|c| vec![c])
    }
}

/// [`check_str`] with the located node tree built first (every problem gets a position).
#[cfg(test)]
pub(super) fn check_located(text: &str, origin: &str) -> Checked {
    located_pass(text, origin, None)
}

/// The located pass; `first` is a deserialization of `text` already tried (sequence root or not).
fn located_pass(
    text: &str,
    origin: &str,
    mut first: Option<(bool, Result<Vec<Case>, serde_saphyr::Error>)>,
) -> Checked {
    let mut out = Checked::default();
    let docs = match loc::parse(text) {
        Ok(d) => d,
        Err(scan) => {
            // Prefer serde-saphyr's wording of the syntax error; fall back to the scanner's.
            let e = match serde_saphyr::from_str::<serde::de::IgnoredAny>(text) {
                Err(e) => serde_error(&e, None, origin),
                Ok(_) => {
                    let m = scan.marker();
                    located(
                        origin,
                        Pos {
                            line: m.line(),
                            col: m.col() + 1,
                        },
                        "yaml",
                        scan.info(),
                    )
                }
            };
            out.errors.push(e);
            return out;
        }
    };
    let root = match docs.as_slice() {
        [] => return out,
        [root] => root,
        [_, second, ..] => {
            out.errors.push(located(
                origin,
                second.at,
                "yaml",
                "a case file holds one YAML document (a case, or a sequence of cases); found another document",
            ));
            return out;
        }
    };
    let mut deserialized = |multi: bool| match first.take() {
        Some((m, r)) if m == multi => r,
        _ => deserialize(text, multi),
    };
    let (cases, multi) = match &root.kind {
        Kind::Map(_) => (deserialized(false), false),
        Kind::Seq(_) => (deserialized(true), true),
        Kind::Scalar(s, _) if s.is_empty() || s == "~" || s == "null" => return out,
        _ => {
            out.errors.push(located(
                origin,
                root.at,
                "case",
                "expected a case (a mapping) or a sequence of cases",
            ));
            return out;
        }
    };
    let cases = match cases {
        Ok(c) => c,
        Err(e) => {
            out.errors.push(serde_error(&e, Some(root), origin));
            return out;
        }
    };
    let problems = validate::validate_file(&cases);
    with_problems(cases, &problems, multi, root, text, origin)
}

/// The deserialized cases with their validation problems located in the tree under `root`.
fn with_problems(
    cases: Vec<Case>,
    problems: &[Problem],
    multi: bool,
    root: &Node,
    text: &str,
    origin: &str,
) -> Checked {
    let mut out = Checked::default();
    for p in problems {
        let prefix = if multi {
            vec![Seg::Idx(p.case)]
        } else {
            Vec::new()
        };
        let e = locate_problem(p, root, &prefix, text, origin);
        match p.severity {
            Severity::Error => {
                out.errors.push(e);
                out.bad.insert(p.case);
            }
            Severity::Note => out.notes.push(e),
        }
    }
    out.errors.sort_by_key(|e| (e.line, e.col));
    out.notes.sort_by_key(|e| (e.line, e.col));
    out.cases = cases;
    out
}

fn locate_problem(p: &Problem, root: &Node, prefix: &[Seg], text: &str, origin: &str) -> CaseError {
    let mut full = prefix.to_vec();
    full.extend(p.path.iter().cloned());
    let node = root.find(&full);
    let at = match p.offset {
        Some(off) => node.inner_pos(text, off),
        None => node.at,
    };
    let path = if full.is_empty() {
        "case".to_string()
    } else {
        loc::path_string(&full)
    };
    located(origin, at, &path, p.message.clone())
}

/// Load one YAML text: its cases, or the first problem (by position) if there is any.
pub fn load_str(text: &str, origin: &str) -> Result<Vec<Case>, CaseError> {
    let mut c = check_str(text, origin);
    if c.errors.is_empty() {
        Ok(c.cases)
    } else {
        Err(c.errors.swap_remove(0))
    }
}

/// Load one YAML text case by case: every good case, and an error for every bad one, so that one
/// bad case loses no other. A sequence of cases that does not deserialize as a whole is split at
/// its top-level items (`- ` in column 1) and each item loaded alone, at its place in the file.
pub fn load_each(text: &str, origin: &str) -> (Vec<Case>, Vec<CaseError>) {
    let c = check_str(text, origin);
    if c.errors.is_empty() || !c.cases.is_empty() {
        let good = c.cases.into_iter().enumerate();
        let good = good.filter(|(i, _)| !c.bad.contains(i)).map(|(_, x)| x);
        return (good.collect(), c.errors);
    }
    let starts: Vec<usize> = text
        .split_inclusive('\n')
        .scan(0, |at, l| {
            let start = *at;
            *at += l.len();
            Some((start, l))
        })
        .filter(|(_, l)| l.starts_with("- ") || l.trim_end() == "-")
        .map(|(start, _)| start)
        .collect();
    if starts.len() < 2 {
        return (Vec::new(), c.errors);
    }
    let (mut cases, mut errors) = (Vec::new(), Vec::new());
    let mut seen = std::collections::HashSet::new();
    for (k, &a) in starts.iter().enumerate() {
        let b = starts.get(k + 1).copied().unwrap_or(text.len());
        // Blank lines in front keep every line number of the item what it is in the file.
        let lines_before = text[..a].matches('\n').count();
        let item = format!("{}{}", "\n".repeat(lines_before), &text[a..b]);
        let one = check_str(&item, origin);
        // The item is case [k] of the file, not [0] of its own text.
        errors.extend(one.errors.into_iter().map(|mut e| {
            if let Some(rest) = e.path.strip_prefix("[0]") {
                e.path = format!("[{k}]{rest}");
            }
            e
        }));
        for (i, case) in one.cases.into_iter().enumerate() {
            if one.bad.contains(&i) {
                continue;
            }
            // Names stay unique across items loaded apart, as `validate_file` keeps them.
            if !seen.insert(case.name.clone()) {
                let at = Pos {
                    line: lines_before + 1,
                    col: 1,
                };
                let msg = format!("duplicate case name `{}`", case.name);
                errors.push(located(origin, at, &format!("[{k}].name"), msg));
                continue;
            }
            cases.push(case);
        }
    }
    (cases, errors)
}

/// [`load_each`] of a file: an unreadable file or invalid UTF-8 is its only error.
pub fn load_file_each(path: &Path) -> (Vec<Case>, Vec<CaseError>) {
    let origin = path.display().to_string();
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            return (
                vec![],
                vec![located(
                    &origin,
                    Pos { line: 1, col: 1 },
                    "io",
                    e.to_string(),
                )],
            )
        }
    };
    match std::str::from_utf8(&bytes) {
        Ok(t) => load_each(t.strip_prefix('\u{feff}').unwrap_or(t), &origin),
        Err(_) => (
            vec![],
            vec![load_bytes(&bytes, &origin).err().unwrap_or_else(|| {
                located(&origin, Pos { line: 1, col: 1 }, "utf-8", "invalid UTF-8")
            })],
        ),
    }
}

/// [`load_file_each`] of every case file under `dir` (as [`load_dir`] finds them).
pub fn load_dir_each(dir: &Path) -> Vec<(PathBuf, Vec<Case>, Vec<CaseError>)> {
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    walk(dir, &mut files, &mut unreadable);
    let mut out: Vec<(PathBuf, Vec<Case>, Vec<CaseError>)> = unreadable
        .into_iter()
        .map(|(p, r)| (p, vec![], r.err().into_iter().collect()))
        .collect();
    for f in files {
        let (cases, errors) = load_file_each(&f);
        out.push((f, cases, errors));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Like [`load_str`], for raw bytes (invalid UTF-8 is a located error).
pub fn load_bytes(bytes: &[u8], origin: &str) -> Result<Vec<Case>, CaseError> {
    match std::str::from_utf8(bytes) {
        Ok(t) => load_str(t.strip_prefix('\u{feff}').unwrap_or(t), origin),
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            // Safe: the prefix up to valid_up_to is valid UTF-8.
            let at = crate::ptx::lex::locate(std::str::from_utf8(good).unwrap_or(""), good.len());
            Err(located(
                origin,
                at,
                "utf-8",
                format!("invalid UTF-8 (byte 0x{:02x})", bytes[e.valid_up_to()]),
            ))
        }
    }
}

/// Load one case file.
pub fn load_file(path: &Path) -> Result<Vec<Case>, CaseError> {
    let origin = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| located(&origin, Pos { line: 1, col: 1 }, "io", e.to_string()))?;
    load_bytes(&bytes, &origin)
}

/// Every `*.yaml` / `*.yml` file under `dir` (recursively, in sorted path order) with its own
/// result, so one bad file loses no other file's cases. An unreadable directory is an entry too.
pub fn load_dir(dir: &Path) -> Vec<(PathBuf, Result<Vec<Case>, CaseError>)> {
    let mut files = Vec::new();
    let mut out = Vec::new();
    walk(dir, &mut files, &mut out);
    files.sort();
    for f in files {
        let r = load_file(&f);
        out.push((f, r));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn walk(
    dir: &Path,
    files: &mut Vec<PathBuf>,
    errs: &mut Vec<(PathBuf, Result<Vec<Case>, CaseError>)>,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            let origin = dir.display().to_string();
            errs.push((
                dir.to_path_buf(),
                Err(located(
                    &origin,
                    Pos { line: 1, col: 1 },
                    "io",
                    e.to_string(),
                )),
            ));
            return;
        }
    };
    for entry in entries.flatten() {
        let p = entry.path();
        let ft = match entry.file_type() {
            Ok(t) => t,
            Err(_) => continue,
        };
        if ft.is_dir() {
            walk(&p, files, errs);
        } else if matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")) {
            files.push(p);
        }
    }
}

/// Write cases as one YAML document (a sequence), loadable by [`load_str`].
pub fn to_yaml(cases: &[Case]) -> String {
    // The schema's types serialize infallibly (no maps with non-string keys, no borrowed data);
    // a failure here is a bug in the schema, not in any input.
    // PTX text stays on one line however long (a folded `>` scalar would still load, but reads
    // badly and locates errors only approximately); text with newlines becomes a `|` block.
    let opts = serde_saphyr::ser_options! { folded_wrap_chars: 100_000 };
    serde_saphyr::to_string_with_options(&cases, opts).expect("case schema serializes to YAML")
}
