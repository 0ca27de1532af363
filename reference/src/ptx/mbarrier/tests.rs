//! Tests of the mbarrier family: round trip of every variant, parse errors, operand slots and
//! the legality rules against the spec's notes.

use super::*;
use crate::target::{Target, Verdict};

family_parser!(Mbarrier, MbarrierOp);

#[test]
fn every_variant_round_trips() {
    let all = MbarrierOp::variants();
    // 4 spaces × (init, inval, 2 tx × 6 orders, 2 arrive × 4 modes × 9 orders × 2 dests, 3 waits × 2 tokens × 9 orders) + pending_count
    assert_eq!(all.len(), 4 * (2 + 2 * 6 + 2 * 4 * 9 * 2 + 3 * 2 * 9) + 1);
    assert_round_trips(&all);
}

/// Every mbarrier instruction in the examples of spec/03 and spec/08 (Part A), as written.
const MANUAL: &[&str] = &[
    "mbarrier.init.b64        [addr],   %r1;",
    "mbarrier.init.shared::cta.b64 [shMem], 12;",
    "@t0 mbarrier.init.b64     [addr], %r1;",
    "@t0 mbarrier.inval.b64    [addr];",
    "mbarrier.init.shared.b64           [shmem], 12;",
    "@t0 mbarrier.inval.shared.b64      [shmem];",
    "@t0 mbarrier.init.shared.b64       [shmem], 24;",
    "@t0 mbarrier.inval.shared::cta.b64 [shmem];",
    "mbarrier.expect_tx.b64                       [addr], 32;",
    "mbarrier.expect_tx.relaxed.cta.shared.b64    [mbarObj1], 512;",
    "mbarrier.expect_tx.relaxed.cta.shared.b64    [mbarObj2], 512;",
    "mbarrier.complete_tx.b64             [addr],     32;",
    "mbarrier.complete_tx.shared.b64      [mbarObj1], 512;",
    "mbarrier.complete_tx.relaxed.cta.b64 [addr2],    32;",
    "mbarrier.arrive.shared.b64                       %r0, [shMem];",
    "mbarrier.arrive.shared::cta.b64                  %r0, [shMem2];",
    "mbarrier.arrive.release.cta.shared::cluster.b64  _, [remoteAddr32];",
    "mbarrier.arrive.release.cluster.b64              _, [remoteAddr64], cnt;",
    "mbarrier.arrive.expect_tx.release.cluster.b64    _, [remoteAddr64], tx_count;",
    "mbarrier.arrive.noComplete.b64                   %r1, [addr], 2;",
    "mbarrier.arrive.relaxed.cta.b64                  %r2, [addr], 4;",
    "mbarrier.arrive.b64                              %r2, [addr], cnt;",
    "@p mbarrier.arrive_drop.shared.b64 _, [shMem];",
    "@p2 mbarrier.arrive_drop.noComplete.shared.b64 _, [shMem], %a;",
    "@!p mbarrier.arrive.shared.b64   %r1, [shMem];",
    "@!p mbarrier.test_wait.shared.b64  q, [shMem], %r1;",
    "mbarrier.arrive_drop.shared::cluster.b64 _, [addr];",
    "mbarrier.arrive_drop.shared::cta.release.cluster.b64     _, [addr], cnt;",
    "mbarrier.arrive_drop.expect_tx.shared::cta.relaxed.cluster.b64 state, [addr], tx_count;",
    "mbarrier.init.shared.b64 [shMem], threadCount;",
    "mbarrier.arrive.shared.b64 state, [shMem];",
    "mbarrier.test_wait.shared.b64 p, [shMem], state;",
    "mbarrier.init.shared.b64 [shMem], totalCount;",
    "mbarrier.init.shared.b64 [shMem], N;",
    "mbarrier.arrive.shared.b64  %r1, [shMem];",
    "mbarrier.test_wait.shared.b64    complete, [shMem], %r1;",
    "mbarrier.try_wait.relaxed.cluster.shared.b64    complete, [shMem], %r1;",
    "mbarrier.test_wait.parity.shared.b64  complete, [shMem], parArg;",
    "mbarrier.init.shared.b64 [shMem2], threadCount;",
    "mbarrier.arrive.shared.b64 state, [shMem2];",
    "mbarrier.test_wait.shared::cta.b64 p, [shMem2], state;",
    "@p0 mbarrier.init.shared::cta.b64 [shMem], N;",
    "mbarrier.arrive.release.cluster.b64              _, [remAddr];",
    "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64  complete, [shMem], 0;",
    "mbarrier.arrive.noComplete.b64 state, [shMem], 1;",
    "mbarrier.pending_count.b64 %r1, state;",
    // spec/08 §9.7.13.4 examples
    "mbarrier.try_wait.relaxed.cluster.shared::cta.b64 complete, [addr], parity;",
    "mbarrier.arrive.relaxed.cluster.shared::cluster.b64 state, [bar];",
];

#[test]
fn manual_examples_parse_and_reprint() {
    for text in MANUAL {
        let x = parse(text).unwrap_or_else(|e| panic!("`{text}`: {e}"));
        assert_eq!(parse(&x.to_string()).unwrap(), x);
    }
    // Qualifier order as written does not matter; printing is canonical.
    let x = parse(
        "mbarrier.arrive_drop.expect_tx.shared::cta.relaxed.cluster.b64 state, [addr], tx_count",
    )
    .unwrap();
    assert_eq!(
        x.to_string(),
        "mbarrier.arrive_drop.expect_tx.relaxed.cluster.shared::cta.b64 state, [addr], tx_count"
    );
}

#[test]
fn manual_errors() {
    // spec/08 §9.7.13.4 example "Release local barrier state via generic proxy".
    assert_eq!(
        parse("mbarrier.init [bar];").unwrap_err().to_string(),
        "expected 2 operands ([addr], count), found 1"
    );
    // spec/08: `state` destination on .shared::cluster parses, but the page forbids it.
    let x = parse("mbarrier.arrive.relaxed.cluster.shared::cluster.b64 state, [bar];").unwrap();
    assert_eq!(
        x.requirement()
            .verdict(Target::SM_100A, PtxVersion::MAX_SUPPORTED),
        Verdict::WrongTarget {
            why: "sink `_` is mandatory on .shared::cluster".into()
        }
    );
}

#[test]
fn syntax_errors_are_clear() {
    let err = |t: &str| parse(t).unwrap_err().to_string();
    assert_eq!(
        err("mbarrier.init.b64 [addr]"),
        "expected 2 operands ([addr], count), found 1"
    );
    assert_eq!(
        err("mbarrier.init.shared [addr], 1"),
        "expected the type qualifier `.b64`, found none"
    );
    assert_eq!(
        err("mbarrier.init.b64 addr, 1"),
        "expected addr as an address `[...]`, found a register"
    );
    assert_eq!(
        err("mbarrier.arrive.b64 7, [addr]"),
        "expected state or sink `_` (a register), found an immediate"
    );
    assert_eq!(
        err("mbarrier.test_wait.b64 p, [addr], 1"),
        "expected state (a register), found an immediate"
    );
    assert_eq!(
        err("mbarrier.test_wait.b64 p, [addr], s, 10"),
        "expected at most 3 operands (waitComplete, [addr], state), found 4"
    );
    assert_eq!(
        err("mbarrier.arrive.expect_tx.b64 s, [addr]"),
        "expected 3 operands (state, [addr], txCount), found 2"
    );
    assert_eq!(
        err("mbarrier.arrive.noComplete.b64 s, [addr]"),
        "expected 3 operands (state, [addr], count), found 2"
    );
    assert_eq!(
        err("mbarrier.arrive.acquire.cta.b64 s, [addr]"),
        "expected a qualifier of mbarrier.arrive, found `.acquire`"
    );
    assert_eq!(
        err("mbarrier.test_wait.release.cta.b64 p, [addr], s"),
        "expected a qualifier of mbarrier.test_wait, found `.release`"
    );
    assert_eq!(
        err("mbarrier.arrive.expect_tx.noComplete.b64 s, [addr], 1"),
        "expected at most one of `.expect_tx`, `.noComplete`, found both"
    );
    assert_eq!(
        err("mbarrier.arrive.shared.shared::cta.b64 s, [a]"),
        "expected at most one state space, found a second one, `.shared::cta`"
    );
    assert_eq!(err("mbarrier.wait.b64 p, [a], s"), "expected an mbarrier operation (init, inval, expect_tx, complete_tx, arrive, arrive_drop, test_wait, try_wait, pending_count), found `.wait`");
    assert_eq!(
        err("mbarrier.test_wait.b64 _, [a], s"),
        "expected waitComplete (a register), found the sink `_`"
    );
    assert_eq!(
        err("mbarrier.init.b64 [a], _"),
        "expected count (register or immediate), found the sink `_`"
    );
    assert_eq!(
        err("mbarrier.pending_count.b64 c, _"),
        "expected state (a register), found the sink `_`"
    );
    assert_eq!(
        err("mbarrier.init.cta.b64 [a], 1"),
        "expected a qualifier of mbarrier.init, found `.cta`"
    );
    assert_eq!(
        err("mbarrier.inval.relaxed.cta.b64 [a]"),
        "expected a qualifier of mbarrier.inval, found `.relaxed`"
    );
    assert_eq!(
        err("mbarrier.pending_count.shared.b64 c, s"),
        "expected a qualifier of mbarrier.pending_count, found `.shared`"
    );
    assert_eq!(
        err("mbarrier.test_wait.noComplete.b64 p, [a], s"),
        "expected a qualifier of mbarrier.test_wait, found `.noComplete`"
    );
    assert_eq!(
        err("mbarrier.arrive.parity.b64 s, [a]"),
        "expected a qualifier of mbarrier.arrive, found `.parity`"
    );
    assert_eq!(
        err("mbarrier.pending_count.b64 c, [s]"),
        "expected state (a register), found an address `[...]`"
    );
}

#[test]
fn operand_slots() {
    let mut x = parse("mbarrier.try_wait.parity.shared::cta.b64 done, [bar], 1, hint").unwrap();
    let mut seen = Vec::new();
    x.visit_operands(&mut |s| match s {
        Slot::Addr { role, space, .. } => seen.push(format!("{role}@{space:?}")),
        Slot::Value {
            role, ty, imm_ok, ..
        } => seen.push(format!(
            "{role}:{}{}",
            ty.ptx(),
            if imm_ok { "/imm" } else { "" }
        )),
        _ => seen.push("?".into()),
    });
    assert_eq!(
        seen,
        [
            "waitComplete:.pred",
            "addr@SharedCta",
            "phaseParity:.b32/imm",
            "suspendTimeHint:.b32/imm"
        ]
    );
    let roles = |t: &str| {
        let mut x = parse(t).unwrap();
        let mut v = Vec::new();
        x.visit_operands(&mut |s| match s {
            Slot::Addr { role, space, .. } => v.push(format!("{role}@{space:?}")),
            Slot::Value { role, ty, .. } => v.push(format!("{role}:{}", ty.ptx())),
            _ => {}
        });
        v
    };
    assert_eq!(
        roles("mbarrier.arrive.b64 _, [a], 2"),
        ["addr@Generic", "count:.b32"]
    );
    assert_eq!(
        roles("mbarrier.arrive.expect_tx.shared::cluster.b64 _, [a], 2"),
        ["addr@SharedCluster", "txCount:.b32"]
    );
    assert_eq!(
        roles("mbarrier.arrive_drop.shared.b64 s, [a]"),
        ["state:.b64", "addr@Shared"]
    );
    assert_eq!(
        roles("mbarrier.test_wait.b64 p, [a], s"),
        ["waitComplete:.pred", "addr@Generic", "state:.b64"]
    );
    assert_eq!(
        roles("mbarrier.pending_count.b64 c, s"),
        ["count:.b32", "state:.b64"]
    );
    assert_eq!(
        roles("mbarrier.init.b64 [a], 3"),
        ["addr@Generic", "count:.b32"]
    );
}

#[test]
fn requirements_follow_the_notes() {
    let min = |t: &str, tgt: Target| parse(t).unwrap().requirement().min_ptx_for(tgt);
    assert_eq!(
        min("mbarrier.init.shared.b64 [a], 1", Target::SM_80),
        Ok(v(7, 0))
    );
    assert_eq!(
        min("mbarrier.init.shared::cta.b64 [a], 1", Target::SM_80),
        Ok(v(7, 8))
    );
    assert_eq!(
        min("mbarrier.arrive.b64 _, [a]", Target::SM_80),
        Ok(v(7, 1))
    );
    assert_eq!(
        min("mbarrier.arrive_drop.b64 _, [a]", Target::SM_80),
        Ok(v(7, 0))
    );
    assert_eq!(
        min("mbarrier.test_wait.parity.b64 p, [a], 0", Target::SM_80),
        Ok(v(7, 1))
    );
    assert_eq!(
        min("mbarrier.arrive.noComplete.b64 s, [a], 2", Target::SM_80),
        Ok(v(7, 0))
    );
    assert!(min("mbarrier.arrive.b64 s, [a], 2", Target::SM_80).is_err());
    assert_eq!(
        min("mbarrier.arrive.b64 s, [a], 2", Target::SM_90),
        Ok(v(7, 8))
    );
    assert!(min("mbarrier.try_wait.b64 p, [a], s", Target::SM_80).is_err());
    assert_eq!(
        min("mbarrier.try_wait.b64 p, [a], s", Target::SM_90),
        Ok(v(7, 8))
    );
    assert_eq!(
        min("mbarrier.arrive.relaxed.cta.b64 s, [a]", Target::SM_90),
        Ok(v(8, 6))
    );
    assert_eq!(
        min("mbarrier.expect_tx.relaxed.cta.b64 [a], 4", Target::SM_90),
        Ok(v(8, 0))
    );
    assert!(min("mbarrier.arrive.release.cluster.b64 s, [a]", Target::SM_80).is_err());
    assert_eq!(
        min("mbarrier.arrive.release.cta.b64 s, [a]", Target::SM_80),
        Ok(v(8, 0))
    );
    assert!(min("mbarrier.arrive.release.b64 s, [a]", Target::SM_90A).is_err());
    assert!(min("mbarrier.init.shared::cluster.b64 [a], 1", Target::SM_90A).is_err());
    assert!(min(
        "mbarrier.arrive.noComplete.relaxed.cta.b64 s, [a], 1",
        Target::SM_90A
    )
    .is_err());
    assert_eq!(
        min("mbarrier.arrive.shared::cluster.b64 _, [a]", Target::SM_90),
        Ok(v(8, 0))
    );
}
