//! The case corpus: loading it case by case (a bad case is an error of its own, never the loss
//! of its file), finding one case, and instances of a case with other data.

use ptxconform_reference::case::{load_dir_each, load_file, load_file_each, Case, Init};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The result name a file that loaded no case at all is reported under.
const FILE_ERROR: &str = "<file>";

/// A loaded case with the file it came from.
pub struct Loaded {
    pub file: String,
    pub case: Case,
}

/// Folders a directory walk skips unless named (or walked from inside): planted faults and
/// layout probes are not conformance cases.
const OPT_IN: [&str; 2] = ["planted", "probes"];

fn opt_in(p: &Path) -> bool {
    p.components()
        .any(|c| OPT_IN.iter().any(|o| c.as_os_str() == *o))
}

/// A case (or a whole file) that did not load: its file, the result name it is reported under
/// (`<file>`, or `<case K>` for one bad case of a file), every located message about it.
#[derive(Clone, Debug)]
pub struct LoadError {
    pub file: String,
    pub at: String,
    pub message: String,
}

/// The corpus a run without paths loads (relative to the working directory).
pub const DEFAULT_CORPUS: &str = "cases";

/// Load cases from files and directories (none: [`DEFAULT_CORPUS`]), case by case: every good
/// case of every file is kept, every bad case (or unreadable file) is an error of its own.
pub fn load_corpus(paths: &[PathBuf]) -> (Vec<Loaded>, Vec<LoadError>) {
    let defaults = [PathBuf::from(DEFAULT_CORPUS)];
    let paths = if paths.is_empty() {
        &defaults[..]
    } else {
        paths
    };
    let mut raw = Vec::new();
    for p in paths {
        if p.is_dir() {
            let skip_opt_in = !opt_in(p);
            raw.extend(
                load_dir_each(p)
                    .into_iter()
                    .filter(|(f, _, _)| !(skip_opt_in && opt_in(f))),
            );
        } else {
            let (cases, errors) = load_file_each(p);
            raw.push((p.clone(), cases, errors));
        }
    }
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    for (p, cs, es) in raw {
        let file = p.display().to_string();
        // One result per bad case (`[K]` leads the field path of case K of a sequence), or for
        // the file when nothing of it loaded.
        let whole = cs.is_empty() && es.iter().all(|e| !e.path.starts_with('['));
        cases.extend(cs.into_iter().map(|case| Loaded {
            file: file.clone(),
            case,
        }));
        let mut by_case: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for e in es {
            let at = match e.path.strip_prefix('[').and_then(|r| r.split_once(']')) {
                Some((k, _)) if !whole => format!("<case {k}>"),
                _ => FILE_ERROR.to_string(),
            };
            by_case.entry(at).or_default().push(e.to_string());
        }
        errors.extend(by_case.into_iter().map(|(at, messages)| LoadError {
            file: file.clone(),
            at,
            message: messages.join("\n"),
        }));
    }
    (cases, errors)
}

/// `n` instances of `template`: the first as it is, the others with every region initialised
/// from its own `pattern` seed (the emitted kernel does not change: data lives in the regions).
pub fn instances(template: &Case, n: usize) -> Vec<Case> {
    (0..n)
        .map(|i| {
            let mut c = template.clone();
            c.name = format!("{}#{i}", template.name);
            // Observations recorded for the template's data say nothing about other data.
            c.observed.clear();
            if i == 0 {
                return c;
            }
            let regions = c.memory.global.iter_mut().chain(c.memory.shared.iter_mut());
            for (k, r) in regions.enumerate() {
                r.init = Init::Pattern((i as u64) << 8 | k as u64);
            }
            c
        })
        .collect()
}

/// Case `name` of the corpus file `file` (relative to `corpus`).
pub fn corpus_case(corpus: &Path, file: &str, name: &str) -> Result<Case, String> {
    let path = corpus.join(file);
    let cases = load_file(&path).map_err(|e| e.to_string())?;
    cases
        .into_iter()
        .find(|c| c.name == name)
        .ok_or_else(|| format!("{}: no case `{name}`", path.display()))
}
