//! Executor: mbarrier instructions (§9.7.13.15), the waits that land tracked copies, tx
//! bookkeeping, cp.async.mbarrier.arrive and never-completing waits.

use crate::exec_support::*;
use proptest::prelude::*;
use ptxconform_reference::sem::exec::ExpectedHw;
use ptxconform_reference::sem::memory::Byte;

fn prog(cluster: u32, params: &str, body: &str) -> String {
    format!(
        "name: t\ntarget: sm_90a\nlaunch: {{ grid: [{cluster},1,1], cluster: [{cluster},1,1] }}\n{params}memory:\n  global:\n    - {{ name: src, size: 256, init: {{ pattern: 4 }} }}\n  shared:\n    - {{ name: buf, size: 256, init: {{ fill: 0xAA }} }}\n  mbarriers: [ {{ name: bar }}, {{ name: bar2 }} ]\nprogram:\n{body}"
    )
}

const G2S: &str = "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes";

#[test]
fn arrive_state_and_test_wait() {
    let x = defined(&prog(1, "", "  - ptx: mbarrier.init.shared::cta.b64 [bar], 2\n  - ptx: mbarrier.arrive.shared::cta.b64 st, [bar]\n  - ptx: mbarrier.test_wait.shared::cta.b64 p, [bar], st\n  - ptx: mbarrier.arrive.shared::cta.b64 st2, [bar]\n  - ptx: mbarrier.test_wait.shared::cta.b64 q, [bar], st\n"));
    let b = x.final_state.mbarriers[0]["bar"];
    assert_eq!(
        (b.valid, b.phase_parity, b.pending, b.expected, b.tx_count),
        (true, Some(1), Some(2), 2, Some(0))
    );
    assert_eq!(x.trace[2].mbarriers[0].2.pending, Some(1));
}

#[test]
fn pending_count_reads_no_complete_state() {
    // mbarrier.pending_count writes a register; pending_count of a plain arrive's state is UB.
    defined(&prog(1, "", "  - ptx: mbarrier.init.shared::cta.b64 [bar], 3\n  - ptx: mbarrier.arrive.noComplete.shared::cta.b64 st, [bar], 1\n  - ptx: mbarrier.pending_count.b64 n, st\n"));
    let (r, step) = undefined(&prog(1, "", "  - ptx: mbarrier.init.shared::cta.b64 [bar], 3\n  - ptx: mbarrier.arrive.shared::cta.b64 st, [bar]\n  - ptx: mbarrier.pending_count.b64 n, st\n"));
    assert_eq!((r, step), ("mbarrier.pending_count_state", 2));
}

#[test]
fn mechanism_ub_is_classified() {
    assert_eq!(
        undefined(&prog(
            1,
            "",
            "  - ptx: mbarrier.arrive.shared::cta.b64 _, [bar]\n"
        ))
        .0,
        "mbarrier.not_initialized"
    );
    assert_eq!(
        undefined(&prog(
            1,
            "",
            "  - ptx: mbarrier.init.shared::cta.b64 [bar], 0\n"
        ))
        .0,
        "mbarrier.init_count_range"
    );
    assert_eq!(
        undefined(&prog(
            1,
            "",
            "  - ptx: mbarrier.init.shared::cta.b64 [buf+4], 1\n"
        ))
        .0,
        "mbarrier.misaligned"
    );
    assert_eq!(
        undefined(&prog(
            1,
            "",
            "  - ptx: mbarrier.init.shared::cta.b64 [bar], 1\n  - store: { at: bar, bytes: [0] }\n"
        ))
        .0,
        "mbarrier.non_mbarrier_access"
    );
    let x = run(&prog(1, "", "  - ptx: mbarrier.init.shared::cta.b64 [bar], 1\n  - wait_parity: { mbar: bar, parity: 0 }\n"));
    assert_eq!(x.expected_hw, ExpectedHw::Timeout);
}

#[test]
fn try_wait_probe_writes_false_without_ub() {
    let x = defined(&prog(1, "", "  - ptx: mbarrier.init.shared::cta.b64 [bar], 2\n  - ptx: mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0\n"));
    assert_eq!(x.final_state.mbarriers[0]["bar"].pending, Some(2));
}

#[test]
fn cp_async_arrive_increments_then_fires() {
    // Without .noinc the pending count is incremented at issue; the arrive-on fires when the copy lands.
    let x = defined(&prog(1, "", "  - ptx: mbarrier.init.shared.b64 [bar], 1\n  - ptx: cp.async.cg.shared.global [buf], [src], 16\n  - ptx: cp.async.mbarrier.arrive.shared.b64 [bar]\n  - ptx: mbarrier.arrive.shared.b64 _, [bar]\n"));
    let b = x.final_state.mbarriers[0]["bar"];
    assert_eq!(
        (b.phase_parity, b.pending),
        (None, None),
        "arrive-on still pending"
    );
    let x = defined(&prog(1, "", "  - ptx: mbarrier.init.shared.b64 [bar], 1\n  - ptx: cp.async.cg.shared.global [buf], [src], 16\n  - ptx: cp.async.mbarrier.arrive.shared.b64 [bar]\n  - ptx: mbarrier.arrive.shared.b64 _, [bar]\n  - wait_parity: { mbar: bar, parity: 0 }\n"));
    assert_eq!(known(&shared(&x, 0, "buf")[..16]).unwrap(), pattern(4, 16));
    assert_eq!(x.final_state.mbarriers[0]["bar"].phase_parity, Some(1));
}

#[test]
fn remote_complete_tx_and_cluster_copy() {
    let x = defined(&prog(2, "params: { rbar: { mapa: bar, cta: 1 }, rbuf: { mapa: buf, cta: 1 } }\n", "  - { cta: all, ptx: \"mbarrier.init.shared::cta.b64 [bar], 1\" }\n  - { cta: 1, ptx: \"mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 32\" }\n  - ptx: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [rbuf], [buf], 32, [rbar]\n  - { cta: 1, wait_parity: { mbar: bar, parity: 0 } }\n"));
    assert_eq!(known(&shared(&x, 1, "buf")[..32]).unwrap(), vec![0xAA; 32]);
    assert_eq!(x.final_state.mbarriers[1]["bar"].phase_parity, Some(1));
    assert_eq!(x.final_state.mbarriers[0]["bar"].phase_parity, Some(0));
}

#[test]
fn tx_overflow_is_ub() {
    assert_eq!(
        undefined(&prog(1, "", "  - ptx: mbarrier.init.shared::cta.b64 [bar], 1\n  - ptx: mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 1048575\n  - ptx: mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 1\n")).0,
        "mbarrier.tx_count_range"
    );
}

proptest! {
    /// Bulk global→shared + expect_tx + wait_parity: destination == source, the phase completes,
    /// and tx-count returns to exactly 0 (no bytes lost or invented).
    #[test]
    fn bulk_with_wait_equals_source(sizes in proptest::collection::vec(1u64..4, 1..4), extra in 0u64..2) {
        let total: u64 = sizes.iter().sum::<u64>() * 16;
        let mut body = format!("  - ptx: mbarrier.init.shared::cta.b64 [bar], 1\n  - ptx: mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], {}\n", total + extra * 16);
        let mut off = 0;
        for s in &sizes {
            body += &format!("  - ptx: {G2S} [buf+{off}], [src+{off}], {}, [bar]\n", s * 16);
            off += s * 16;
        }
        body += "  - wait_parity: { mbar: bar, parity: 0 }\n";
        let c = prog(1, "", &body);
        if extra == 0 {
            let x = defined(&c);
            prop_assert_eq!(known(&shared(&x, 0, "buf")[..total as usize]).unwrap(), pattern(4, total as usize));
            prop_assert!(shared(&x, 0, "buf")[total as usize..].iter().all(|b| *b == Byte::Known(0xAA)));
            let b = x.final_state.mbarriers[0]["bar"];
            prop_assert_eq!((b.phase_parity, b.tx_count, b.pending), (Some(1), Some(0), Some(1)));
        } else {
            // Expecting more bytes than the copies deliver: the phase can never complete.
            let x = run(&c);
            prop_assert_eq!(x.expected_hw, ExpectedHw::Timeout);
            let b = x.final_state.mbarriers[0]["bar"];
            prop_assert_eq!(b.tx_count, Some(16));
        }
    }

    /// tx bookkeeping: after a probe lands every tracked copy, tx-count is exactly
    /// expected − completed − delivered bytes (nothing lost or invented); before it, unknown.
    #[test]
    fn tx_count_accounts_every_byte(ops in proptest::collection::vec((0u8..3, 1u64..4), 1..8)) {
        let mut body = "  - ptx: mbarrier.init.shared::cta.b64 [bar], 1\n".to_string();
        let (mut tx, mut off, mut copies) = (0i64, 0u64, 0);
        for (k, n) in &ops {
            match k {
                0 => { body += &format!("  - ptx: mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], {}\n", n * 8); tx += (n * 8) as i64; }
                1 => { body += &format!("  - ptx: mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], {}\n", n * 8); tx -= (n * 8) as i64; }
                // Copies stay inside the 256-byte `buf` (seven of 48 bytes would not).
                _ if off + n * 16 > 256 => {}
                _ => { body += &format!("  - ptx: {G2S} [buf+{off}], [src+{off}], {}, [bar]\n", n * 16); tx -= (n * 16) as i64; off += n * 16; copies += 1; }
            }
        }
        let before = defined(&prog(1, "", &body));
        let b = before.final_state.mbarriers[0]["bar"];
        prop_assert_eq!(b.tx_count.is_none(), copies > 0);
        body += "  - ptx: mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0\n";
        let after = defined(&prog(1, "", &body));
        let b = after.final_state.mbarriers[0]["bar"];
        prop_assert_eq!(b.tx_count, Some(tx));
        prop_assert_eq!(b.phase_parity, Some(0), "pending arrival keeps phase 0");
        prop_assert_eq!(known(&shared(&after, 0, "buf")[..off as usize]).unwrap(), pattern(4, off as usize));
    }
}
