//! Executor: cp.reduce.async.bulk (§9.7.9.25.4.2) lands with the element arithmetic, checked
//! against an independent scalar computation.

use crate::exec_support::*;
use proptest::prelude::*;
use ptxconform_reference::sem::memory::Byte;

fn prog(op: &str, ty: &str, dst: &[u8], src: &[u8], wait: bool) -> String {
    format!(
        "name: t\ntarget: sm_90a\nmemory:\n  global:\n    - {{ name: out, size: 32, init: {{ bytes: {} }} }}\n  shared:\n    - {{ name: buf, size: 32, init: {{ bytes: {} }} }}\nprogram:\n  - ptx: cp.reduce.async.bulk.global.shared::cta.bulk_group.{op}.{ty} [out], [buf], 32\n  - ptx: cp.async.bulk.commit_group\n{}",
        bytes_yaml(dst),
        bytes_yaml(src),
        if wait { "  - ptx: cp.async.bulk.wait_group 0\n" } else { "" }
    )
}

/// Scalar reference for 32-bit elements.
fn scalar32(op: &str, ty: &str, d: u32, x: u32) -> u32 {
    match (op, ty) {
        ("add", _) => d.wrapping_add(x),
        ("min", "u32") => d.min(x),
        ("max", "u32") => d.max(x),
        ("min", "s32") => (d as i32).min(x as i32) as u32,
        ("max", "s32") => (d as i32).max(x as i32) as u32,
        ("and", _) => d & x,
        ("or", _) => d | x,
        ("xor", _) => d ^ x,
        // atom.inc / atom.dec (§9.7.13.5)
        ("inc", _) => {
            if d >= x {
                0
            } else {
                d + 1
            }
        }
        ("dec", _) => {
            if d == 0 || d > x {
                x
            } else {
                d - 1
            }
        }
        _ => unreachable!(),
    }
}

const OPS32: &[(&str, &str)] = &[
    ("add", "u32"),
    ("add", "s32"),
    ("min", "u32"),
    ("max", "u32"),
    ("min", "s32"),
    ("max", "s32"),
    ("and", "b32"),
    ("or", "b32"),
    ("xor", "b32"),
    ("inc", "u32"),
    ("dec", "u32"),
];

proptest! {
    #[test]
    fn reduction_matches_scalar(k in 0..OPS32.len(), dst in proptest::collection::vec(any::<u8>(), 32), src in proptest::collection::vec(any::<u8>(), 32)) {
        let (op, ty) = OPS32[k];
        let x = defined(&prog(op, ty, &dst, &src, true));
        let o = known(global(&x, "out")).unwrap();
        for e in 0..8 {
            let r = |v: &[u8]| u32::from_le_bytes(v[e * 4..e * 4 + 4].try_into().unwrap());
            prop_assert_eq!(r(&o), scalar32(op, ty, r(&dst), r(&src)), "{}.{} element {}", op, ty, e);
        }
    }

    #[test]
    fn u64_add_matches_scalar(dst in proptest::collection::vec(any::<u8>(), 32), src in proptest::collection::vec(any::<u8>(), 32)) {
        let x = defined(&prog("add", "u64", &dst, &src, true));
        let o = known(global(&x, "out")).unwrap();
        for e in 0..4 {
            let r = |v: &[u8]| u64::from_le_bytes(v[e * 8..e * 8 + 8].try_into().unwrap());
            prop_assert_eq!(r(&o), r(&dst).wrapping_add(r(&src)));
        }
    }

    /// Without a wait the destination is {old, result} per byte.
    #[test]
    fn in_flight_reduction_is_old_or_result(dst in proptest::collection::vec(any::<u8>(), 32), src in proptest::collection::vec(any::<u8>(), 32)) {
        let x = defined(&prog("xor", "b32", &dst, &src, false));
        let o = global(&x, "out");
        for i in 0..32 {
            prop_assert_eq!(o[i], Byte::Known(dst[i]).union(Byte::Known(dst[i] ^ src[i])));
        }
        prop_assert_eq!(x.final_state.groups[0].bulk_groups, 1);
    }
}

#[test]
fn f32_add_on_global() {
    let one = 1.5f32.to_le_bytes();
    let two = 2.25f32.to_le_bytes();
    let x = defined(&prog("add", "f32", &one.repeat(8), &two.repeat(8), true));
    let o = known(global(&x, "out")).unwrap();
    assert_eq!(f32::from_le_bytes(o[..4].try_into().unwrap()), 3.75);
}

#[test]
fn illegal_combination_is_a_case_error() {
    let c = case(&prog("add", "f32", &[0; 32], &[0; 32], true).replace(
        ".global.shared::cta.bulk_group.add.f32",
        ".global.shared::cta.bulk_group.inc.b64",
    ));
    assert!(ptxconform_reference::sem::exec::execute(&c).is_err());
}
