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
use super::loc::{self, Kind, Lines, Node, ParseError, Seg};
use super::model::Case;
use super::validate::{self, Problem, Severity};
use crate::ptx::lex::Pos;
use serde_saphyr::budget::BudgetBreach;
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

/// The environment variable that sets the most YAML nodes one case file may hold.
pub const NODES_ENV: &str = "PTXCONFORM_YAML_NODES";

/// The default of [`NODES_ENV`]: a 50 MB file of bytes written as tightly as YAML allows (`0,`
/// per element) holds 25 million nodes. The limit bounds the memory a file can take (about 50
/// bytes a node when a problem must be located), not the work, which is linear in the file.
pub const DEFAULT_MAX_NODES: usize = 25_000_000;

/// The rule named by an error about the node limit (for a file, never for a case).
const NODE_LIMIT: &str = "node-limit";

/// The node limit from [`NODES_ENV`]'s value, if set (digits, `_` allowed as a separator).
fn parse_node_limit(value: Option<&str>) -> Result<usize, String> {
    let Some(v) = value else {
        return Ok(DEFAULT_MAX_NODES);
    };
    let digits = v.trim().replace('_', "");
    match digits.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "{NODES_ENV}={v:?}: expected a positive whole number of YAML nodes (default {DEFAULT_MAX_NODES})"
        )),
    }
}

fn node_limit() -> Result<usize, String> {
    parse_node_limit(std::env::var(NODES_ENV).ok().as_deref())
}

fn over_node_limit(file: &str, at: Pos, limit: usize) -> CaseError {
    located(
        file,
        at,
        NODE_LIMIT,
        format!(
            "the file holds more than {limit} YAML nodes (scalars, sequences and mappings), the \
             loader's limit; raise it with the environment variable {NODES_ENV} (e.g. \
             {NODES_ENV}={}) or split the file",
            limit.saturating_mul(4)
        ),
    )
}

/// serde-saphyr's options for a text under a node limit. Its own budget stops at 250,000 nodes
/// and 1,000,000 events; here the node limit is ours, events follow from nodes and the text's
/// length (each event is a node, ends a collection, or consumes text), and the scalar bytes of
/// a text already in memory are bounded by the text.
fn yaml_options(text: &str, max_nodes: usize) -> serde_saphyr::Options {
    let budget = serde_saphyr::budget! {
        max_nodes: max_nodes,
        max_events: usize::MAX,
        max_total_scalar_bytes: text.len().max(serde_saphyr::Budget::default().max_total_scalar_bytes),
    };
    serde_saphyr::options! { budget: budget }
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

/// What a serde-saphyr error reports, as far as locating and rewording it needs.
#[derive(Debug, PartialEq, Eq)]
enum Reported<'a> {
    MissingField,
    UnknownField(&'a str),
    /// A step names none of its operations (`StepOp`, flattened into `Step`).
    NoStepOp,
    /// A sequence (`true`) or mapping (`false`) was expected where another node stands.
    ExpectedCollection {
        seq: bool,
    },
    Other,
}

/// The error under serde-saphyr's wrappers (a source snippet, the use of an alias).
fn cause(mut e: &serde_saphyr::Error) -> &serde_saphyr::Error {
    use serde_saphyr::Error as E;
    while let E::WithSnippet { error, .. } | E::AliasError { error, .. } = e {
        e = error;
    }
    e
}

fn reported(e: &serde_saphyr::Error) -> Reported<'_> {
    use serde_saphyr::Error as E;
    match cause(e) {
        E::SerdeMissingField { .. } => Reported::MissingField,
        E::SerdeUnknownField { field, .. } => Reported::UnknownField(field),
        // serde-saphyr's names of the parser events it expected.
        E::Unexpected {
            expected: "sequence start",
            ..
        } => Reported::ExpectedCollection { seq: true },
        E::Unexpected {
            expected: "mapping start",
            ..
        } => Reported::ExpectedCollection { seq: false },
        E::Message { msg, .. } => serde_custom(msg),
        _ => Reported::Other,
    }
}

/// serde's derive reports an unknown key under `flatten` (as `Step` has) and a flattened enum
/// that finds none of its variants through `de::Error::custom`, so they reach serde-saphyr,
/// and us, only as text in serde's fixed wording. This is the one place that reads it; were
/// serde to reword them, the error would stay, located at the mapping, with serde's words.
fn serde_custom(msg: &str) -> Reported<'_> {
    if let Some(field) = msg
        .strip_prefix("unknown field `")
        .and_then(|m| m.strip_suffix('`'))
    {
        return Reported::UnknownField(field);
    }
    if msg == "no variant of enum StepOp found in flattened data" {
        return Reported::NoStepOp;
    }
    Reported::Other
}

/// Leaves positions out of serde-saphyr's messages: a [`CaseError`] names its own up front.
struct Unlocated;

impl serde_saphyr::Localizer for Unlocated {
    fn attach_location<'a>(
        &self,
        base: std::borrow::Cow<'a, str>,
        _: serde_saphyr::Location,
    ) -> std::borrow::Cow<'a, str> {
        base
    }

    fn alias_used_at(&self, _: serde_saphyr::Location) -> String {
        String::new()
    }
}

/// `first_case`: the file's index of the text's first case (see [`check_limited`]).
fn serde_error(
    e: &serde_saphyr::Error,
    root: Option<(&Lines, &Node)>,
    file: &str,
    first_case: usize,
) -> CaseError {
    let e = e.without_snippet();
    let mut at = e
        .location()
        .map(|l| Pos {
            line: l.line() as usize,
            col: l.column() as usize,
        })
        .unwrap_or(Pos { line: 1, col: 1 });
    let what = reported(e);
    let mut step = false;
    let path = match root {
        Some((lines, r)) => {
            let (mut path, on_key) = r.path_at(lines.offset(at));
            match what {
                // serde locates a missing field at some key of the mapping that lacks it;
                // point at the mapping instead.
                Reported::MissingField if on_key => {
                    path.pop();
                    at = lines.pos(r.find(&path).start);
                }
                // Under `flatten` serde locates an unknown field at its mapping (or, for a
                // flattened enum's variant, at the variant's key): point at the key.
                Reported::UnknownField(name) => {
                    if let Some((rel, k)) = r.find(&path).key_below(name) {
                        at = lines.pos(k.start);
                        path.extend(rel);
                    }
                }
                _ => {}
            }
            step = is_step(&path);
            shown(&path, first_case)
        }
        None => "yaml".to_string(),
    };
    let message = match what {
        Reported::ExpectedCollection { seq } => shape_hint(seq, step).to_string(),
        Reported::NoStepOp => {
            "a step needs one of `ptx`, `wait_parity` or `store` (besides `cta` and `thread`)"
                .to_string()
        }
        _ => e.render_with_formatter(
            &serde_saphyr::DefaultMessageFormatter.with_localizer(&Unlocated),
        ),
    };
    located(file, at, &path, message)
}

/// `path` as an error names it: "case" for the case itself, and the case's index in a sequence
/// counted from `first_case`.
fn shown(path: &[Seg], first_case: usize) -> String {
    match path {
        [] => "case".to_string(),
        [Seg::Idx(i), rest @ ..] => {
            let mut p = vec![Seg::Idx(first_case + i)];
            p.extend_from_slice(rest);
            loc::path_string(&p)
        }
        p => loc::path_string(p),
    }
}

/// Whether `path` is a step: `program[N]` of the case, or of case `[K]` in a sequence.
fn is_step(path: &[Seg]) -> bool {
    let in_case = match path {
        [Seg::Idx(_), rest @ ..] => rest,
        p => p,
    };
    matches!(in_case, [Seg::Key(k), Seg::Idx(_)] if k == "program")
}

/// What to write where serde-saphyr expected a sequence (`seq`) or a mapping: it names the
/// parser event.
fn shape_hint(seq: bool, step: bool) -> &'static str {
    match (seq, step) {
        (true, _) => "expected a list: `[A, B, …]`, or one `- ITEM` per line",
        (false, true) => {
            "a step is a mapping: `- ptx: INSTRUCTION`, `- wait_parity: { mbar: M, parity: P }` \
             or `- store: { at: REGION, bytes: [...] }`"
        }
        (false, false) => "expected a mapping: `{ KEY: VALUE, … }`, or one `KEY: VALUE` per line",
    }
}

/// The node-limit error for a deserialization that stopped at the limit.
fn limit_error(e: &serde_saphyr::Error, file: &str, limit: usize) -> Option<CaseError> {
    match e.without_snippet() {
        serde_saphyr::Error::Budget {
            breach: BudgetBreach::Nodes { .. },
            location,
        } => {
            let at = Pos {
                line: location.line() as usize,
                col: location.column() as usize,
            };
            Some(over_node_limit(file, at, limit))
        }
        _ => None,
    }
}

/// Load, deserialize and validate every case of one YAML text, collecting every problem.
/// `origin` names the text in messages (usually its path). A text of more YAML nodes than
/// [`NODES_ENV`] allows (default [`DEFAULT_MAX_NODES`]) has that as its only error.
pub fn check_str(text: &str, origin: &str) -> Checked {
    match node_limit() {
        Ok(limit) => check_limited(text, origin, limit, false, 0).unwrap_or_default(),
        Err(msg) => Checked {
            errors: vec![located(origin, Pos { line: 1, col: 1 }, NODE_LIMIT, msg)],
            ..Checked::default()
        },
    }
}

/// [`check_str`] under a node limit. With `defer_seq_error`, a sequence of cases that does not
/// deserialize is `None` instead: the caller loads its items apart, and the whole text's located
/// tree (a second parse and its memory) would go unused. `first_case` is the file's index of
/// the text's first case (non-zero for an item of a sequence loaded alone): errors name cases by
/// it.
fn check_limited(
    text: &str,
    origin: &str,
    limit: usize,
    defer_seq_error: bool,
    first_case: usize,
) -> Option<Checked> {
    // Most texts are well-formed cases: deserialize first and build the located node tree (a
    // second YAML parse) only when there is a problem to locate. serde-saphyr's deserializer reads
    // the whole stream and fails on a second document or a syntax error anywhere, so its success
    // means the located pass would have found this one document with this root.
    let mut first = None;
    if let Some(multi) = collection_root(text) {
        match deserialize(text, multi, limit) {
            Ok(cases) => {
                let problems = validate::validate_file(&cases);
                if problems.is_empty() {
                    return Some(Checked {
                        cases,
                        ..Checked::default()
                    });
                }
                if let Ok(l) = loc::parse(text, limit) {
                    if let [root] = l.docs.as_slice() {
                        let c = with_problems(
                            cases, &problems, multi, &l.lines, root, origin, first_case,
                        );
                        return Some(c);
                    }
                }
                first = Some((multi, Ok(cases)));
            }
            Err(e) => {
                if let Some(over) = limit_error(&e, origin, limit) {
                    return Some(Checked {
                        errors: vec![over],
                        ..Checked::default()
                    });
                }
                if multi && defer_seq_error {
                    return None;
                }
                // The located pass reuses the error rather than deserializing again.
                first = Some((multi, Err(e)));
            }
        }
    }
    Some(located_pass(text, origin, limit, first, first_case))
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

fn deserialize(text: &str, multi: bool, limit: usize) -> Result<Vec<Case>, serde_saphyr::Error> {
    let opts = yaml_options(text, limit);
    if multi {
        serde_saphyr::from_str_with_options::<Vec<Case>>(text, opts)
    } else {
        serde_saphyr::from_str_with_options::<Case>(text, opts).map(|c| vec![c])
    }
}

/// [`check_str`] with the located node tree built first (every problem gets a position).
#[cfg(test)]
pub(super) fn check_located(text: &str, origin: &str) -> Checked {
    located_pass(text, origin, DEFAULT_MAX_NODES, None, 0)
}

/// The located pass; `first` is a deserialization of `text` already tried (sequence root or not).
fn located_pass(
    text: &str,
    origin: &str,
    limit: usize,
    mut first: Option<(bool, Result<Vec<Case>, serde_saphyr::Error>)>,
    first_case: usize,
) -> Checked {
    let mut out = Checked::default();
    let located_tree = match loc::parse(text, limit) {
        Ok(l) => l,
        Err(ParseError::TooManyNodes { at }) => {
            let at = crate::ptx::lex::locate(text, at);
            out.errors.push(over_node_limit(origin, at, limit));
            return out;
        }
        Err(ParseError::Syntax(scan)) => {
            // Prefer serde-saphyr's wording of the syntax error; fall back to the scanner's.
            let e = match serde_saphyr::from_str_with_options::<serde::de::IgnoredAny>(
                text,
                yaml_options(text, limit),
            ) {
                Err(e) => serde_error(&e, None, origin, first_case),
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
    let lines = &located_tree.lines;
    let root = match located_tree.docs.as_slice() {
        [] => return out,
        [root] => root,
        [_, second, ..] => {
            out.errors.push(located(
                origin,
                lines.pos(second.start),
                "yaml",
                "a case file holds one YAML document (a case, or a sequence of cases); found another document",
            ));
            return out;
        }
    };
    let mut deserialized = |multi: bool| match first.take() {
        Some((m, r)) if m == multi => r,
        _ => deserialize(text, multi, limit),
    };
    let (cases, multi) = match &root.kind {
        Kind::Map(_) => (deserialized(false), false),
        Kind::Seq(_) => (deserialized(true), true),
        Kind::Scalar(s, _) if s.is_empty() || s == "~" || s == "null" => return out,
        _ => {
            out.errors.push(located(
                origin,
                lines.pos(root.start),
                "case",
                "expected a case (a mapping) or a sequence of cases",
            ));
            return out;
        }
    };
    let cases = match cases {
        Ok(c) => c,
        Err(e) => {
            out.errors
                .push(serde_error(&e, Some((lines, root)), origin, first_case));
            return out;
        }
    };
    let problems = validate::validate_file(&cases);
    with_problems(cases, &problems, multi, lines, root, origin, first_case)
}

/// The deserialized cases with their validation problems located in the tree under `root`.
fn with_problems(
    cases: Vec<Case>,
    problems: &[Problem],
    multi: bool,
    lines: &Lines,
    root: &Node,
    origin: &str,
    first_case: usize,
) -> Checked {
    let mut out = Checked::default();
    for p in problems {
        let prefix = if multi {
            vec![Seg::Idx(p.case)]
        } else {
            Vec::new()
        };
        let e = locate_problem(p, lines, root, &prefix, origin, first_case);
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

fn locate_problem(
    p: &Problem,
    lines: &Lines,
    root: &Node,
    prefix: &[Seg],
    origin: &str,
    first_case: usize,
) -> CaseError {
    let mut full = prefix.to_vec();
    full.extend(p.path.iter().cloned());
    let node = root.find(&full);
    let at = match p.offset {
        Some(off) => node.inner_pos(lines, off),
        None => lines.pos(node.start),
    };
    located(origin, at, &shown(&full, first_case), p.message.clone())
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
/// A text over the node limit is one error for the whole text.
pub fn load_each(text: &str, origin: &str) -> (Vec<Case>, Vec<CaseError>) {
    let limit = match node_limit() {
        Ok(l) => l,
        Err(msg) => {
            return (
                vec![],
                vec![located(origin, Pos { line: 1, col: 1 }, NODE_LIMIT, msg)],
            )
        }
    };
    let (cases, errors) = load_each_limited(text, origin, limit);
    (cases, capped(errors))
}

/// A file's first [`crate::capped::SHOWN`] errors and one that counts the rest, at the first
/// left out: text that is no case file at all (megabytes of garbage, each line an item of a
/// sequence) is a screenful of errors, not one per line.
fn capped(mut errors: Vec<CaseError>) -> Vec<CaseError> {
    if errors.len() <= crate::capped::SHOWN {
        return errors;
    }
    let rest = errors.split_off(crate::capped::SHOWN);
    let first = &rest[0];
    let message = crate::capped::more(rest.len(), "errors in this file");
    errors.push(CaseError {
        path: "error-limit".into(),
        message,
        ..first.clone()
    });
    errors
}

fn load_each_limited(text: &str, origin: &str, limit: usize) -> (Vec<Case>, Vec<CaseError>) {
    let starts = item_starts(text);
    let split = starts.len() >= 2;
    let Some(c) = check_limited(text, origin, limit, split, 0) else {
        return load_items(text, &starts, origin, limit);
    };
    let over = c.errors.iter().any(|e| e.path == NODE_LIMIT);
    if c.errors.is_empty() || !c.cases.is_empty() || over || !split {
        let good = c.cases.into_iter().enumerate();
        let good = good.filter(|(i, _)| !c.bad.contains(i)).map(|(_, x)| x);
        return (good.collect(), c.errors);
    }
    load_items(text, &starts, origin, limit)
}

/// Where each top-level item (`- ` in column 1) of `text` starts, with the number of lines
/// before it, counted in one pass.
fn item_starts(text: &str) -> Vec<(usize, usize)> {
    let mut starts = Vec::new();
    let mut at = 0;
    for (line, l) in text.split_inclusive('\n').enumerate() {
        if l.starts_with("- ") || l.trim_end() == "-" {
            starts.push((at, line));
        }
        at += l.len();
    }
    starts
}

/// [`load_each`] of a sequence of cases item by item, each at its place in the file.
fn load_items(
    text: &str,
    starts: &[(usize, usize)],
    origin: &str,
    limit: usize,
) -> (Vec<Case>, Vec<CaseError>) {
    let (mut cases, mut errors) = (Vec::new(), Vec::new());
    let mut seen = std::collections::HashSet::new();
    for (k, &(a, lines_before)) in starts.iter().enumerate() {
        let b = starts.get(k + 1).map_or(text.len(), |s| s.0);
        // The item starts a line, so its positions are the file's, lines_before lines down.
        // The item is case [k] of the file, not [0] of its own text.
        let one = check_limited(&text[a..b], origin, limit, false, k).unwrap_or_default();
        errors.extend(one.errors.into_iter().map(|mut e| {
            e.line += lines_before;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::model::{Region, Step};

    fn reported_by<T: serde::de::DeserializeOwned + std::fmt::Debug>(yaml: &str) -> String {
        let e = serde_saphyr::from_str::<T>(yaml).unwrap_err();
        format!("{:?}", reported(&e))
    }

    /// serde's errors, structured or in its fixed custom wording, reach the loader as types: a
    /// serde release that rewords the custom ones fails here.
    #[test]
    fn serde_errors_are_reported_as_types() {
        let flattened_unknown = "{ store: { at: o, bytes: [1] }, bogus: 2 }";
        assert_eq!(
            reported_by::<Step>(flattened_unknown),
            r#"UnknownField("bogus")"#
        );
        assert_eq!(reported_by::<Step>("ptxx: a"), "NoStepOp");
        let unknown = "{ name: o, size: 1, sise: 2 }";
        assert_eq!(reported_by::<Region>(unknown), r#"UnknownField("sise")"#);
        assert_eq!(reported_by::<Region>("{ name: o }"), "MissingField");
        let seq = "ExpectedCollection { seq: true }";
        assert_eq!(reported_by::<Vec<Region>>("{ name: o }"), seq);
        let map = "ExpectedCollection { seq: false }";
        assert_eq!(reported_by::<Region>("[ o ]"), map);
        assert_eq!(reported_by::<Region>("{ name: o, size: x }"), "Other");
    }

    /// Text that is not serde's wording of the two custom errors decides nothing.
    #[test]
    fn other_custom_text_is_other() {
        for msg in [
            "unknown field `x`, expected one of a, b",
            "no variant of enum Expect found in flattened data",
            "unknown field x",
            "",
        ] {
            assert_eq!(serde_custom(msg), Reported::Other, "{msg}");
        }
    }

    /// A case's index is shown counted from the text's first case; the tree's own index is 0.
    #[test]
    fn paths_as_shown() {
        let k = |s: &str| Seg::Key(s.into());
        assert_eq!(shown(&[], 4), "case");
        assert_eq!(shown(&[Seg::Idx(0), k("name")], 4), "[4].name");
        let step = [k("program"), Seg::Idx(2), k("ptx")];
        assert_eq!(shown(&step, 4), "program[2].ptx");
    }

    #[test]
    fn steps_by_path() {
        let k = |s: &str| Seg::Key(s.into());
        assert!(is_step(&[k("program"), Seg::Idx(3)]));
        assert!(is_step(&[Seg::Idx(1), k("program"), Seg::Idx(0)]));
        assert!(!is_step(&[k("program")]));
        assert!(!is_step(&[k("memory"), Seg::Idx(0)]));
        assert!(!is_step(&[k("program"), Seg::Idx(0), k("ptx")]));
    }
}
