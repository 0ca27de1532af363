//! The committed corpus (`cases/`): every file loads and validates with zero errors, and the
//! corpus meets its coverage promises (case-name prefixes per directory, every `expect:
//! undefined` names a catalogue rule, each executor-layer UB rule of the copy families has a case).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ptxconform_reference::case::{load_dir, Case, Expect};
use ptxconform_reference::sem::ub;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases")
}

/// Files whose cases bind a register to a remote CTA's copy of a shared region
/// (`{ mapa: REGION, cta: N }` params). Until the executor's `Param` variant lands they fail to
/// deserialize with exactly this error; afterwards they must validate like every other file.
const NEEDS_MAPA_PARAM: &[&str] = &["bulk/s2s_cluster.yaml", "mbarrier/remote.yaml", "reduce/cluster_remote.yaml", "ub/remote.yaml"];

/// Rules the executor helper adds to the catalogue (branch `exec`); until that lands a case may
/// name them. Afterwards `ub::rule` knows them and this list is redundant.
const PENDING_RULES: &[&str] = &[
    "bulk.multicast_cta_outside_cluster",
    "bulk.cluster_dst_is_executing_cta",
    "wait.never_completes",
    "async.dst_written_before_completion",
    "address.out_of_region",
];

/// Rules whose only cases are in [`NEEDS_MAPA_PARAM`] files (a .shared::cta operand naming
/// another CTA needs a mapa address).
const ONLY_IN_MAPA_FILES: &[&str] = &["bulk.dst_not_executing_cta"];

fn load_all() -> Vec<(String, Case)> {
    load_all_noting_skips().0
}

/// Every corpus case with its file, and whether any mapa file had to be skipped.
fn load_all_noting_skips() -> (Vec<(String, Case)>, bool) {
    let mut skipped = false;
    let dir = cases_dir();
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (path, result) in load_dir(&dir) {
        let rel = path.strip_prefix(&dir).unwrap_or(&path).to_string_lossy().replace('\\', "/");
        match result {
            Ok(cases) => out.extend(cases.into_iter().map(|c| (rel.clone(), c))),
            // Tolerated only while `Param` lacks the `mapa` form (serde then rejects the param).
            Err(e) if NEEDS_MAPA_PARAM.contains(&rel.as_str()) && e.message.contains("expected an integer, or") => {
                eprintln!("pending the mapa param: {e}");
                skipped = true;
            }
            Err(e) => errors.push(format!("{e}")),
        }
    }
    assert!(errors.is_empty(), "{} corpus file(s) do not validate:\n{}", errors.len(), errors.join("\n"));
    (out, skipped)
}

#[test]
fn every_corpus_file_validates() {
    let all = load_all();
    assert!(all.len() >= 100, "corpus unexpectedly small: {} cases", all.len());
    let mut names = BTreeSet::new();
    for (file, c) in &all {
        assert!(names.insert(c.name.clone()), "case name `{}` (in {file}) is used twice in the corpus", c.name);
    }
}

#[test]
fn names_follow_their_directory() {
    for (file, c) in load_all() {
        let dir = file.split('/').next().unwrap_or("");
        let ok = match dir {
            "cp_async" => c.name.starts_with("cp_async."),
            "bulk" => c.name.starts_with("bulk."),
            "reduce" => c.name.starts_with("reduce."),
            "mbarrier" => c.name.starts_with("mbarrier."),
            "ub" => c.name.starts_with("ub."),
            _ => true,
        };
        assert!(ok, "case `{}` in {file} does not carry its directory's prefix", c.name);
        if ["cp_async", "bulk", "reduce", "mbarrier", "ub"].contains(&dir) {
            assert!(!c.description.trim().is_empty(), "case `{}` in {file} has no description", c.name);
        }
    }
}

#[test]
fn ub_cases_name_catalogue_rules() {
    let mut covered = BTreeSet::new();
    let (all, skipped) = load_all_noting_skips();
    for (file, c) in all {
        match &c.expect {
            Some(Expect::Undefined(rule)) => {
                assert!(ub::rule(rule).is_some() || PENDING_RULES.contains(&rule.as_str()), "case `{}` in {file} expects unknown UB rule `{rule}`", c.name);
                covered.insert(rule.clone());
            }
            Some(Expect::Timeout) => {
                covered.insert("wait.never_completes".to_string());
            }
            _ => {}
        }
        if file.starts_with("ub/") {
            assert!(
                matches!(c.expect, Some(Expect::Undefined(_) | Expect::Timeout)),
                "case `{}` in {file} is under ub/ but expects neither a UB rule nor a timeout",
                c.name
            );
        }
    }
    // Every catalogue rule has at least one case (rules a case cannot reach are listed with why).
    let unreachable: &[&str] = &[];
    for r in ub::CATALOGUE {
        if unreachable.contains(&r.id) || (skipped && ONLY_IN_MAPA_FILES.contains(&r.id)) {
            continue;
        }
        assert!(covered.contains(r.id), "UB rule `{}` (§{}) has no corpus case", r.id, r.section);
    }
}
