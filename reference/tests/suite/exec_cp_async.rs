//! Executor: cp.async (§9.7.9.25.3) and its cp.async-group completion.

use crate::exec_support::*;
use proptest::prelude::*;
use ptxconform_reference::sem::exec::{ExpectedHw, TouchKind};
use ptxconform_reference::sem::memory::Byte;

fn prog(body: &str, params: &str) -> String {
    format!(
        "name: t\ntarget: sm_90a\n{params}memory:\n  global:\n    - {{ name: src, size: 64, init: {{ pattern: 7 }} }}\n  shared:\n    - {{ name: buf, size: 64, init: {{ fill: 0xAA }} }}\nprogram:\n{body}"
    )
}

#[test]
fn copy_then_wait_all_lands_exactly() {
    let x = defined(&prog(
        "  - ptx: cp.async.ca.shared.global [buf+4], [src+8], 4\n  - ptx: cp.async.wait_all\n",
        "",
    ));
    let s = pattern(7, 64);
    let b = known(shared(&x, 0, "buf")).unwrap();
    assert_eq!(&b[4..8], &s[8..12]);
    assert!(b[..4].iter().chain(&b[8..]).all(|v| *v == 0xAA));
    assert_eq!(x.final_state.groups[0].cp_async_groups, 0);
    assert!(x.trace[0].touched.iter().any(|t| t.kind == TouchKind::Issue
        && t.region == "buf"
        && t.range == (4..8)
        && t.exact == Some(false)));
    assert!(x.trace[1]
        .touched
        .iter()
        .any(|t| t.kind == TouchKind::Land && t.exact == Some(true)));
}

#[test]
fn wait_group_leaves_newest_in_flight() {
    let x = defined(&prog(
        "  - ptx: cp.async.cg.shared.global [buf], [src], 16\n  - ptx: cp.async.commit_group\n  - ptx: cp.async.cg.shared.global [buf+16], [src+16], 16\n  - ptx: cp.async.commit_group\n  - ptx: cp.async.wait_group 1\n",
        "",
    ));
    let b = shared(&x, 0, "buf");
    let s = pattern(7, 64);
    assert_eq!(known(&b[..16]).unwrap(), &s[..16]);
    for i in 16..32 {
        assert_eq!(b[i], Byte::Known(0xAA).union(Byte::Known(s[i])));
    }
    assert_eq!(x.final_state.groups[0].cp_async_groups, 1);
}

#[test]
fn src_size_zero_fills_and_ignore_src() {
    let x = defined(&prog(
        "  - ptx: cp.async.ca.shared.global [buf], [src], 16, 3\n  - ptx: cp.async.ca.shared.global [buf+16], [src], 16, p\n  - ptx: cp.async.wait_all\n",
        "params: { p: { value: 1, type: pred } }\n",
    ));
    let b = known(shared(&x, 0, "buf")).unwrap();
    let s = pattern(7, 64);
    assert_eq!(&b[..3], &s[..3]);
    assert!(b[3..32].iter().all(|v| *v == 0));
}

#[test]
fn classified_ub() {
    let p = |body: &str| prog(body, "");
    assert_eq!(
        undefined(&p("  - ptx: cp.async.ca.shared.global [buf+2], [src], 4\n")),
        ("address.misaligned", 0)
    );
    assert_eq!(
        undefined(&p("  - ptx: cp.async.ca.shared.global [buf], [src+4], 8\n")),
        ("address.misaligned", 0)
    );
    assert_eq!(
        undefined(&p(
            "  - ptx: cp.async.ca.shared.global [buf], [src], 8, 9\n"
        ))
        .0,
        "cp.async.src_size_gt_cp_size"
    );
    assert_eq!(
        undefined(&p(
            "  - ptx: cp.async.cg.shared.global [buf+64], [src], 16\n"
        ))
        .0,
        "address.out_of_region"
    );
    assert_eq!(
        undefined(&p("  - ptx: cp.async.ca.shared.global [buf], [src], 8\n  - ptx: cp.async.ca.shared.global [buf+4], [src+8], 4\n")),
        ("cp.async.same_dst_in_group", 1)
    );
    // Reading the destination of an in-flight copy as another copy's source: not before completion.
    assert_eq!(
        undefined(&p("  - ptx: cp.async.ca.shared.global [buf], [src], 4\n  - store: { at: src, bytes: [1] }\n")).0,
        "async.src_modified_before_completion"
    );
    assert_eq!(
        undefined(&p("  - ptx: cp.async.ca.shared.global [buf], [src], 4\n  - store: { at: buf, bytes: [1] }\n")).0,
        "async.dst_written_before_completion"
    );
    let x = run(&p("  - ptx: cp.async.ca.shared.global [buf+2], [src], 4\n"));
    assert_eq!(x.expected_hw, ExpectedHw::MayTrap);
}

#[test]
fn after_wait_store_is_fine_and_group_is_separate() {
    defined(&prog(
        "  - ptx: cp.async.ca.shared.global [buf], [src], 8\n  - ptx: cp.async.commit_group\n  - ptx: cp.async.ca.shared.global [buf], [src+8], 8\n  - ptx: cp.async.wait_all\n  - store: { at: src, bytes: [1, 2] }\n",
        "",
    ));
}

proptest! {
    /// Copy + completing wait: destination == source; without a wait: exactly {old, new}.
    #[test]
    fn copy_wait_equals_source(size_i in 0usize..3, slot in 0u64..4, soff in 0u64..4, wait in any::<bool>(), seed in 0u64..1000) {
        let n = [4u64, 8, 16][size_i];
        let (d, s) = (slot * 16, soff * 16);
        let cache = if n == 16 { "cg" } else { "ca" };
        let body = format!("  - ptx: cp.async.{cache}.shared.global [buf+{d}], [src+{s}], {n}\n  - ptx: cp.async.commit_group\n{}",
            if wait { "  - ptx: cp.async.wait_group 0\n" } else { "" });
        let y = prog(&body, "").replace("pattern: 7", &format!("pattern: {seed}"));
        let x = defined(&y);
        let src = pattern(seed, 64);
        let b = shared(&x, 0, "buf");
        for i in 0..64u64 {
            let inside = i >= d && i < d + n;
            let want = if !inside { Byte::Known(0xAA) }
                else if wait { Byte::Known(src[(s + i - d) as usize]) }
                else { Byte::Known(0xAA).union(Byte::Known(src[(s + i - d) as usize])) };
            prop_assert_eq!(b[i as usize], want);
        }
        prop_assert_eq!(known(global(&x, "src")).unwrap(), src);
    }
}
