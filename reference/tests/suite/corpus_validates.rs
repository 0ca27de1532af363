//! The committed corpus (`cases/`): every file loads and validates with zero errors, and the
//! corpus meets its coverage promises (case-name prefixes per directory, every `expect:
//! undefined` names a catalogue rule, every catalogue rule has a case).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ptxconform_reference::case::{load_dir, Case, Expect};
use ptxconform_reference::sem::ub;

/// The corpus directories of issue 3 (others, e.g. `examples/`, only need to validate).
const CORPUS_DIRS: &[&str] = &["cp_async", "bulk", "reduce", "mbarrier", "ub"];

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases")
}

/// Every case with its file (relative to `cases/`); panics listing every file that fails.
fn load_all() -> Vec<(String, Case)> {
    let dir = cases_dir();
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (path, result) in load_dir(&dir) {
        let rel = path
            .strip_prefix(&dir)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        match result {
            Ok(cases) => out.extend(cases.into_iter().map(|c| (rel.clone(), c))),
            Err(e) => errors.push(format!("{e}")),
        }
    }
    assert!(
        errors.is_empty(),
        "{} corpus file(s) do not validate:\n{}",
        errors.len(),
        errors.join("\n")
    );
    out
}

fn dir_of(file: &str) -> &str {
    file.split('/').next().unwrap_or("")
}

#[test]
fn every_corpus_file_validates() {
    let all = load_all();
    let corpus = all
        .iter()
        .filter(|(f, _)| CORPUS_DIRS.contains(&dir_of(f)))
        .count();
    assert!(corpus >= 300, "corpus unexpectedly small: {corpus} cases");
    let mut names = BTreeSet::new();
    for (file, c) in &all {
        assert!(
            names.insert(c.name.clone()),
            "case name `{}` (in {file}) is used twice in the corpus",
            c.name
        );
    }
}

#[test]
fn names_follow_their_directory() {
    for (file, c) in load_all() {
        let dir = dir_of(&file);
        if !CORPUS_DIRS.contains(&dir) {
            continue;
        }
        assert!(
            c.name.starts_with(&format!("{dir}.")),
            "case `{}` in {file} does not carry its directory's prefix",
            c.name
        );
        assert!(
            !c.description.trim().is_empty(),
            "case `{}` in {file} has no description",
            c.name
        );
    }
}

#[test]
fn ub_cases_name_catalogue_rules() {
    let mut covered = BTreeSet::new();
    for (file, c) in load_all() {
        match &c.expect {
            Some(Expect::Undefined(rule)) => {
                let Some(r) = ub::rule(rule) else {
                    panic!(
                        "case `{}` in {file} expects unknown UB rule `{rule}`",
                        c.name
                    )
                };
                // Family ids (`tensor.copy:<rule>`) cover their family's catalogue entry.
                covered.insert(r.id.to_string());
            }
            Some(Expect::Timeout) => {
                covered.insert(ub::WAIT_NEVER_COMPLETES.id.to_string());
            }
            _ => {}
        }
        if dir_of(&file) == "ub" {
            assert!(
                matches!(c.expect, Some(Expect::Undefined(_) | Expect::Timeout)),
                "case `{}` in {file} is under ub/ but expects neither a UB rule nor a timeout",
                c.name
            );
        }
    }
    for r in ub::CATALOGUE
        .iter()
        .filter(|r| !ub::NOT_PROGRAM_REACHABLE.contains(&r.id))
    {
        assert!(
            covered.contains(r.id),
            "UB rule `{}` (§{}) has no corpus case",
            r.id,
            r.section
        );
    }
}
