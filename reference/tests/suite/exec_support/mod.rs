//! Helpers shared by the executor tests: cases from YAML text, byte views of the final state.
#![allow(dead_code)]

use ptxconform_reference::case::Case;
use ptxconform_reference::sem::exec::{execute, Execution, Outcome};
use ptxconform_reference::sem::memory::Byte;

pub fn case(yaml: &str) -> Case {
    serde_saphyr::from_str(yaml).unwrap_or_else(|e| panic!("bad test case: {e}\n{yaml}"))
}

pub fn run(yaml: &str) -> Execution {
    execute(&case(yaml)).unwrap_or_else(|e| panic!("case error {e}\n{yaml}"))
}

pub fn defined(yaml: &str) -> Execution {
    let x = run(yaml);
    assert_eq!(x.outcome, Outcome::Defined, "{yaml}\n{:#?}", x.trace);
    x
}

/// The UB rule id and step, panicking if defined.
pub fn undefined(yaml: &str) -> (&'static str, usize) {
    match run(yaml).outcome {
        Outcome::Undefined { ub, step } => (ub.rule, step),
        Outcome::Defined => panic!("expected UB:\n{yaml}"),
    }
}

pub fn known<B: std::borrow::Borrow<Byte>>(b: impl IntoIterator<Item = B>) -> Option<Vec<u8>> {
    b.into_iter().map(|x| x.borrow().known()).collect()
}

/// A global region's final bytes, as a vector (for slicing).
pub fn global(x: &Execution, name: &str) -> Vec<Byte> {
    x.final_state.global[name].to_vec()
}

/// A shared region's final bytes in CTA `cta`, as a vector (for slicing).
pub fn shared(x: &Execution, cta: usize, name: &str) -> Vec<Byte> {
    x.final_state.shared[cta][name].to_vec()
}

/// The bytes of the pattern init `seed` (what `init: { pattern: seed }` gives).
pub fn pattern(seed: u64, len: usize) -> Vec<u8> {
    ptxconform_reference::case::init::pattern(seed, len)
}

pub fn bytes_yaml(v: &[u8]) -> String {
    format!(
        "[{}]",
        v.iter()
            .map(|b| b.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}
