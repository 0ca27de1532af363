//! The corpus against the reference executor: every case runs, and its `expect` holds:
//! `pass` (or none) is well defined, `undefined: RULE` stops at exactly that rule, `timeout` is a
//! wait that can never complete (`wait.never_completes`), `bytes` holds (`Execution::meets`).

use std::path::Path;

use ptxconform_reference::case::{load_dir, Expect};
use ptxconform_reference::sem::exec::{execute, Outcome};

#[test]
fn every_corpus_case_meets_its_expectation() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    let mut failures = Vec::new();
    let mut ran = 0;
    for (path, result) in load_dir(&dir) {
        let rel = path
            .strip_prefix(&dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        let cases = match result {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{rel}: does not load: {e}"));
                continue;
            }
        };
        for c in cases {
            ran += 1;
            let exec = match execute(&c) {
                Ok(x) => x,
                Err(e) => {
                    failures.push(format!("{rel} `{}`: cannot execute: {e}", c.name));
                    continue;
                }
            };
            let got = match &exec.outcome {
                Outcome::Defined => "defined".to_string(),
                Outcome::Undefined { ub, step } => {
                    format!("undefined `{}` at step {step} ({})", ub.rule, ub.detail)
                }
            };
            let ok = match (&c.expect, &exec.outcome) {
                (None | Some(Expect::Pass), Outcome::Defined) => true,
                (Some(Expect::Undefined(rule)), Outcome::Undefined { ub, .. }) => ub.rule == rule,
                (Some(Expect::Timeout), Outcome::Undefined { ub, .. }) => {
                    ub.rule == "wait.never_completes"
                }
                // A trap is the hardware face of an address UB: any classification will do.
                (Some(Expect::Trap), Outcome::Undefined { .. }) => true,
                (Some(Expect::Bytes(_) | Expect::DriverRejects), _) => {
                    exec.meets(c.expect.as_ref()).is_ok()
                }
                _ => false,
            };
            if !ok {
                failures.push(format!(
                    "{rel} `{}`: expected {:?}, got {got}",
                    c.name, c.expect
                ));
            }
        }
    }
    assert!(ran >= 300, "only {ran} corpus cases ran");
    assert!(
        failures.is_empty(),
        "{} of {ran} corpus cases fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
