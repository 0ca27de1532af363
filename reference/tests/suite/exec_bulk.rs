//! Executor: cp.async.bulk (§9.7.9.25.4.1) directions, bulk async-group completion, cp_mask,
//! multicast destinations and the operand UB rules.

use crate::exec_support::*;
use proptest::prelude::*;
use ptxconform_reference::sem::exec::ExpectedHw;
use ptxconform_reference::sem::memory::Byte;

/// One cluster of `cluster` CTAs; `buf` (64 B, 0xAA) in shared, `src` (pattern 7) and `out`
/// (64 B, 0x11) in global, mbarrier `bar`.
fn prog(cluster: u32, params: &str, body: &str) -> String {
    format!(
        "name: t\ntarget: sm_90a\nlaunch: {{ grid: [{cluster},1,1], cluster: [{cluster},1,1] }}\n{params}memory:\n  global:\n    - {{ name: src, size: 64, init: {{ pattern: 7 }} }}\n    - {{ name: out, size: 64, init: {{ fill: 0x11 }} }}\n  shared:\n    - {{ name: buf, size: 64, init: {{ fill: 0xAA }} }}\n  mbarriers: [ {{ name: bar }} ]\nprogram:\n{body}"
    )
}

const TO_GLOBAL: &str = "cp.async.bulk.global.shared::cta.bulk_group";

#[test]
fn shared_to_global_bulk_group() {
    let x = defined(&prog(1, "", &format!(
        "  - store: {{ at: buf, bytes: [1, 2, 3] }}\n  - ptx: fence.proxy.async.shared::cta\n  - ptx: {TO_GLOBAL} [out+16], [buf], 32\n  - ptx: cp.async.bulk.commit_group\n  - ptx: cp.async.bulk.wait_group 0\n")));
    let o = known(global(&x, "out")).unwrap();
    assert_eq!(&o[16..19], &[1, 2, 3]);
    assert!(o[19..48].iter().all(|v| *v == 0xAA));
    assert!(o[..16].iter().chain(&o[48..]).all(|v| *v == 0x11));
}

#[test]
fn read_wait_frees_source_only() {
    let x = defined(&prog(1, "", &format!(
        "  - ptx: {TO_GLOBAL} [out], [buf], 16\n  - ptx: cp.async.bulk.commit_group\n  - ptx: cp.async.bulk.wait_group.read 0\n  - store: {{ at: buf, bytes: [5] }}\n")));
    assert_eq!(
        global(&x, "out")[0],
        Byte::Known(0x11).union(Byte::Known(0xAA))
    );
    // without the .read wait the store is UB
    let (r, step) = undefined(&prog(1, "", &format!("  - ptx: {TO_GLOBAL} [out], [buf], 16\n  - ptx: cp.async.bulk.commit_group\n  - store: {{ at: buf, bytes: [5] }}\n")));
    assert_eq!((r, step), ("async.src_modified_before_completion", 2));
}

#[test]
fn global_to_shared_without_wait_is_old_or_new() {
    let x = defined(&prog(1, "", "  - ptx: cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [buf], [src+16], 32, [bar]\n"));
    let s = pattern(7, 64);
    let b = shared(&x, 0, "buf");
    for i in 0..32 {
        assert_eq!(b[i], Byte::Known(0xAA).union(Byte::Known(s[16 + i])));
    }
    assert!(b[32..].iter().all(|v| *v == Byte::Known(0xAA)));
}

#[test]
fn ignore_oob_bytes_are_indeterminate() {
    // `out` is 40 bytes: a 32-byte copy from out+16 runs 8 bytes past it, ignoreBytesRight 8.
    let y = prog(1, "", "  - ptx: cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob [buf], [out+16], 32, 0, 8, [bar]\n")
        .replace("name: out, size: 64", "name: out, size: 40");
    let x = defined(&y);
    let b = shared(&x, 0, "buf");
    assert!(b[24..32].iter().all(|v| *v == Byte::ANY));
    assert!(b[..24]
        .iter()
        .all(|v| *v == Byte::Known(0xAA).union(Byte::Known(0x11))));
    assert_eq!(
        undefined(&y.replace("0, 8, [bar]", "0, 7, [bar]")).0,
        "bulk.range_overflow"
    );
    assert_eq!(undefined(&prog(1, "", "  - ptx: cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob [buf], [src], 16, 16, 0, [bar]\n")).0, "bulk.ignore_oob_range");
}

#[test]
fn classified_ub() {
    let p = |b: &str| {
        prog(
            2,
            "params: { n: 24, far: { mapa: buf, cta: 1 }, me: { mapa: buf, cta: 0 } }\n",
            b,
        )
    };
    let g2s = "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes";
    assert_eq!(
        undefined(&p(&format!("  - ptx: {g2s} [buf], [src], n, [bar]\n"))).0,
        "bulk.size_not_multiple_of_16"
    );
    assert_eq!(
        undefined(&p(&format!("  - ptx: {g2s} [buf+8], [src], 16, [bar]\n"))).0,
        "address.misaligned"
    );
    assert_eq!(
        undefined(&p(&format!("  - ptx: {g2s} [buf], [src+48], 32, [bar]\n"))).0,
        "bulk.range_overflow"
    );
    assert_eq!(
        undefined(&p(&format!("  - ptx: {g2s} [far], [src], 16, [bar]\n"))).0,
        "bulk.dst_not_executing_cta"
    );
    assert_eq!(
        undefined(&p("  - ptx: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [me], [buf], 16, [bar]\n")).0,
        "bulk.cluster_dst_is_executing_cta"
    );
    assert_eq!(
        undefined(&p("  - ptx: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [buf], [src], 16, [bar], 5\n")).0,
        "bulk.multicast_cta_outside_cluster"
    );
    // A-EXEC-HW as H100 and H200 ran these (cases/ub): a range past its region lands next to
    // it and completes; a copy into another CTA's `.shared::cta` window signals that CTA's
    // mbarrier (A-BULK-DST-OTHER-CTA-HW), so the issuer's wait for it never returns, and with
    // no wait the complete-tx to a never-initialized object may trap (A-MB-NEVER-INIT-HW).
    let x = run(&p(&format!("  - ptx: {g2s} [buf], [src+48], 32, [bar]\n")));
    assert_eq!(x.expected_hw, ExpectedHw::Completes);
    let x = run(&p(&format!("  - {{ cta: all, ptx: \"mbarrier.init.shared::cta.b64 [bar], 1\" }}\n  - ptx: mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16\n  - ptx: {g2s} [far], [src], 16, [bar]\n  - wait_parity: {{ mbar: bar, parity: 0 }}\n")));
    assert_eq!(x.expected_hw, ExpectedHw::Timeout);
    let x = run(&p(&format!("  - ptx: {g2s} [far], [src], 16, [bar]\n")));
    assert_eq!(x.expected_hw, ExpectedHw::MayTrap);
    let x = run(&p(&format!("  - ptx: {g2s} [buf+8], [src], 16, [bar]\n")));
    assert_eq!(x.expected_hw, ExpectedHw::MayTrap);
}

#[test]
fn cta_to_cluster_writes_the_remote_cta() {
    let x = defined(&prog(2, "params: { far: { mapa: buf, cta: 1 } }\n", "  - store: { at: buf, bytes: [9] }\n  - ptx: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [far], [buf], 16, [bar]\n"));
    assert_eq!(
        shared(&x, 1, "buf")[0],
        Byte::Known(0xAA).union(Byte::Known(9))
    );
    assert_eq!(shared(&x, 0, "buf")[0], Byte::Known(9));
    assert_eq!(
        x.final_state.mbarriers[1]["bar"].phase_parity, None,
        "copy tracked by CTA 1's barrier is in flight"
    );
}

proptest! {
    /// shared→global + bulk_group wait: destination == source.
    #[test]
    fn to_global_wait_equals_source(d in 0u64..3, s in 0u64..3, chunks in 1u64..2, seed in 0u64..500) {
        let n = chunks * 16;
        let y = prog(1, "", &format!("  - ptx: {TO_GLOBAL} [out+{}], [buf+{}], {n}\n  - ptx: cp.async.bulk.commit_group\n  - ptx: cp.async.bulk.wait_group 0\n", d * 16, s * 16))
            .replace("fill: 0xAA", &format!("pattern: {seed}"));
        let x = defined(&y);
        let b = pattern(seed, 64);
        let o = known(global(&x, "out")).unwrap();
        for i in 0..64u64 {
            let inside = i >= d * 16 && i < d * 16 + n;
            prop_assert_eq!(o[i as usize], if inside { b[(s * 16 + i - d * 16) as usize] } else { 0x11 });
        }
    }

    /// .cp_mask: unselected bytes of every 16-byte chunk are untouched (exactly old).
    #[test]
    fn byte_mask_leaves_unmasked_bytes(mask in any::<u16>(), wait in any::<bool>()) {
        let y = prog(1, &format!("params: {{ m: {mask} }}\n"), &format!(
            "  - ptx: {TO_GLOBAL}.cp_mask [out], [buf], 48, m\n  - ptx: cp.async.bulk.commit_group\n{}",
            if wait { "  - ptx: cp.async.bulk.wait_group 0\n" } else { "" }));
        let x = defined(&y);
        let o = global(&x, "out");
        prop_assert!(o.len() >= 64);
        for (i, got) in o.iter().enumerate().take(64) {
            let sel = i < 48 && mask >> (i % 16) & 1 == 1;
            let want = match (sel, wait) {
                (false, _) => Byte::Known(0x11),
                (true, true) => Byte::Known(0xAA),
                (true, false) => Byte::Known(0x11).union(Byte::Known(0xAA)),
            };
            prop_assert_eq!(*got, want);
        }
    }

    /// Multicast writes exactly the masked CTAs, at the same CTA-relative offset.
    #[test]
    fn multicast_writes_masked_ctas(mask in 0u16..16, off in 0u64..3) {
        let y = prog(4, &format!("params: {{ m: {mask} }}\n"), &format!(
            "  - ptx: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [buf+{}], [src], 16, [bar], m\n", off * 16));
        let x = defined(&y);
        let s = pattern(7, 64);
        for cta in 0..4usize {
            let b = shared(&x, cta, "buf");
            let hit = mask >> cta & 1 == 1;
            for i in 0..64u64 {
                let inside = hit && i >= off * 16 && i < off * 16 + 16;
                let want = if inside { Byte::Known(0xAA).union(Byte::Known(s[(i - off * 16) as usize])) } else { Byte::Known(0xAA) };
                prop_assert_eq!(b[i as usize], want);
            }
            prop_assert_eq!(x.final_state.mbarriers[cta]["bar"].valid, false);
        }
    }
}

#[test]
fn mapa_params_pass_the_case_loader() {
    let y = prog(2, "params: { far: { mapa: buf, cta: 1 } }\n", "  - ptx: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [far], [buf], 16, [bar]\n");
    let cases = ptxconform_reference::case::load_str(&y, "t").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        cases[0].params["far"],
        ptxconform_reference::case::Param::Mapa {
            mapa: "buf".into(),
            cta: 1
        }
    );
    let bad = y.replace("cta: 1 }", "cta: 2 }");
    assert!(
        ptxconform_reference::case::load_str(&bad, "t").is_err(),
        "rank outside the cluster"
    );
    let bad = y.replace("mapa: buf", "mapa: src");
    assert!(
        ptxconform_reference::case::load_str(&bad, "t").is_err(),
        "mapa of a global region"
    );
}
