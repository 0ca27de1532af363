//! Every case under cases/tensor/ (hand-written and tools/gen_tensor_cases.py output) loads and
//! validates through the case loader, executes on the reference model and meets its `expect`
//! (the checks `ptxconform run --reference-only` applies); well-defined cases leave every checked
//! region and mbarrier exactly known (the loads' announced tx-counts, computed by the generator
//! independently of the copy plans, complete their phases).

use ptxconform_reference::case::{load_file, Case, Expect};
use ptxconform_reference::sem::exec::{execute, ExpectedHw, Outcome};
use std::path::{Path, PathBuf};

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "yaml") {
            out.push(p);
        }
    }
}

fn corpus() -> Vec<(String, Case)> {
    let mut files = vec![];
    yaml_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/tensor"), &mut files);
    files
        .iter()
        .flat_map(|p| {
            let cases = load_file(p).unwrap_or_else(|e| panic!("{e}"));
            cases.into_iter().map(move |c| (p.display().to_string(), c))
        })
        .collect()
}

/// Why a case fails its expectation (None: it meets it).
fn failure(c: &Case) -> Option<String> {
    let x = match execute(c) {
        Ok(x) => x,
        Err(e) => return Some(format!("case error: {e}")),
    };
    match (c.expect.as_ref().unwrap_or(&Expect::Pass), &x.outcome) {
        (Expect::Pass, Outcome::Defined) => {
            if x.expected_hw != ExpectedHw::Completes {
                return Some(format!("hardware expected to {:?}", x.expected_hw));
            }
            for name in &c.check {
                let bytes = x.final_state.global.get(name).or_else(|| x.final_state.shared[0].get(name));
                if let Some(b) = bytes {
                    if let Some(i) = b.iter().position(|b| b.known().is_none()) {
                        return Some(format!("{name} byte {i} not exactly known"));
                    }
                }
                if let Some(m) = x.final_state.mbarriers[0].get(name) {
                    if m.phase_parity != Some(1) && c.program.iter().any(|s| matches!(s.op, ptxconform_reference::case::StepOp::WaitParity { .. })) {
                        return Some(format!("mbarrier {name}: {m:?}"));
                    }
                }
            }
            None
        }
        (Expect::Pass, Outcome::Undefined { ub, step }) => Some(format!("UB at step {step}: {} — {}", ub.rule, ub.detail)),
        (Expect::Undefined(r), Outcome::Undefined { ub, .. }) if ub.rule == r => None,
        (Expect::Undefined(r), Outcome::Undefined { ub, step }) => Some(format!("expected {r}, got {} at step {step} — {}", ub.rule, ub.detail)),
        (Expect::Undefined(r), Outcome::Defined) => Some(format!("expected {r}, model says defined")),
        (Expect::Trap, _) if x.expected_hw == ExpectedHw::MayTrap => None,
        (Expect::Timeout, _) if x.expected_hw == ExpectedHw::Timeout => None,
        (e, o) => Some(format!("expected {e:?}, got {o:?} / {:?}", x.expected_hw)),
    }
}

#[test]
fn every_tensor_case_meets_its_expectation() {
    let cases = corpus();
    assert!(cases.len() >= 500, "only {} tensor cases", cases.len());
    let mut names = std::collections::BTreeSet::new();
    let mut bad = vec![];
    for (path, c) in &cases {
        assert!(names.insert(c.name.clone()), "{path}: duplicate case name {}", c.name);
        if let Some(why) = failure(c) {
            bad.push(format!("{path}: {}: {why}", c.name));
        }
    }
    assert!(bad.is_empty(), "{} of {} cases fail:\n{}", bad.len(), cases.len(), bad.join("\n"));
}
