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

/// Every recorded trap under `cases/` loads as a typed kind that agrees with its CUDA code, and
/// recording again writes each trap as it was written (kind name and code, in order): a
/// re-recorded file does not change where it did not change.
#[test]
fn recorded_trap_kinds_load_typed_and_write_back_as_recorded() {
    use ptxconform_reference::case::{load_file, to_yaml, Ending, TrapKind};
    // The `kind:`/`code:` pairs under each `trap:` of a YAML text, in order.
    fn traps(text: &str) -> Vec<(String, String)> {
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        lines
            .windows(3)
            .filter(|w| w[0] == "trap:")
            .map(|w| (w[1].to_string(), w[2].to_string()))
            .collect()
    }
    let dir = cases_dir();
    let mut seen = 0;
    for (path, result) in load_dir(&dir) {
        let text = std::fs::read_to_string(&path).unwrap();
        let before = traps(&text);
        if before.is_empty() {
            continue;
        }
        let cases = result.unwrap();
        for o in cases.iter().flat_map(|c| &c.observed) {
            if let Ending::Trap { kind, code } = o.outcome {
                assert_eq!(kind, TrapKind::from_code(code), "{}", path.display());
                assert_ne!(kind, TrapKind::Other(code), "{}: unnamed", path.display());
                seen += 1;
            }
        }
        let again = to_yaml(&cases);
        assert_eq!(traps(&again), before, "{}", path.display());
        // Written once more, a recorded file is a fixed point.
        let tmp = std::env::temp_dir().join(format!("ptxc-traps-{}.yaml", std::process::id()));
        std::fs::write(&tmp, &again).unwrap();
        let reloaded = load_file(&tmp).unwrap();
        std::fs::remove_file(&tmp).ok();
        assert_eq!(to_yaml(&reloaded), again, "{}", path.display());
    }
    assert!(seen >= 7, "only {seen} recorded traps");
}

/// Trap kinds are written by name; an unnamed code as `Other(CODE)`; a name the harness does not
/// report is refused.
#[test]
fn trap_kind_names() {
    use ptxconform_reference::case::TrapKind;
    for code in [700, 715, 716, 719, 799, -3] {
        let k = TrapKind::from_code(code);
        assert_eq!(k.code(), code);
        assert_eq!(k.to_string().parse::<TrapKind>(), Ok(k));
    }
    assert_eq!(TrapKind::from_code(716), TrapKind::MisalignedAddress);
    assert_eq!(TrapKind::from_code(799).to_string(), "Other(799)");
    assert!("predicted".parse::<TrapKind>().is_err());
}
