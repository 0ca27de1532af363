use super::settled;
use ptxconform_reference::case::{load_str, Case};

/// A one-CTA cp.async case whose copy step is `copy` (with parameter `p`, a predicate, at
/// `taken`).
fn cp_async(copy: &str, taken: bool) -> Case {
    let text = format!(
        "name: t\ntarget: sm_80\n\
         launch: {{ grid: [1, 1, 1], cluster: [1, 1, 1], threads: 32 }}\n\
         params: {{ p: {{ value: {}, type: pred }} }}\n\
         memory:\n  global: [ {{ name: src, size: 16, init: {{ fill: 1 }} }} ]\n  \
         shared: [ {{ name: dst, size: 16, init: {{ fill: 0 }} }} ]\n\
         program:\n  - ptx: \"{copy}\"\n  - ptx: cp.async.commit_group\n  - ptx: cp.async.wait_group 0\n",
        taken as u8
    );
    load_str(&text, "t.yaml").unwrap().remove(0)
}

/// Copies are told by their parsed instruction: a copy that moves nothing (its guard false) is
/// no hardware candidate, whatever its text starts with.
#[test]
fn a_copy_that_moves_nothing_is_not_settled() {
    let copy = "cp.async.cg.shared.global [dst], [src], 16";
    assert!(settled(&cp_async(copy, true)));
    assert!(settled(&cp_async(&format!("@p {copy}"), true)));
    assert!(!settled(&cp_async(&format!("@p {copy}"), false)));
}
