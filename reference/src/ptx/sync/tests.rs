//! Tests of the fence / membar / barrier.cluster family: round trip of every variant, parse
//! errors, operand slots and legality.

use super::*;
use crate::target::{Target, Verdict};

family_parser!(Sync, SyncOp);

#[test]
fn every_variant_round_trips() {
    let all = SyncOp::variants();
    // 4 scopes × (5 sems × (thread, mbarrier_init, 2 sync_restrict) + 2 sems × (2 tensormap + 2 async::generic))
    // + 2 spellings × 5 proxy kinds + 3 membar levels + 2 aligned × (3 arrive + 2 wait)
    assert_eq!(all.len(), 4 * (5 * 4 + 2 * 4) + 2 * 5 + 3 + 2 * 5);
    assert_round_trips(&all);
}

/// Every fence / membar / barrier.cluster instruction in the examples of spec/08 (Part A) and
/// spec/03 (barrier.cluster in the mbarrier try_wait example 4).
const MANUAL: &[&str] = &[
    "membar.gl;",
    "membar.cta;",
    "membar.sys;",
    "fence.sc.cta;",
    "fence.sc.cluster;",
    "fence.proxy.alias;",
    "membar.proxy.alias;",
    "fence.mbarrier_init.release.cluster;",
    "fence.proxy.async;",
    "fence.proxy.async.shared::cta;",
    "fence.proxy.async.shared::cluster;",
    "fence.proxy.async.global;",
    "fence.proxy.tensormap::generic.release.gpu;",
    "fence.proxy.tensormap::generic.acquire.gpu [tmap], 128;",
    "barrier.cluster.wait.acquire;",
    "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;",
    "fence.mbarrier_init.release.cluster;",
    "barrier.cluster.arrive.relaxed;",
    "fence.acquire.sync_restrict::shared::cluster.cluster;",
    "fence.release.sync_restrict::shared::cta.cluster;",
    // syntax block lines that are concrete instructions
    "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;",
    // spec/03 §9.7.13.15.16 example 4
    "barrier.cluster.arrive;",
    "barrier.cluster.wait;",
];

#[test]
fn manual_examples_parse_legal_and_reprint() {
    for text in MANUAL {
        let x = parse(text).unwrap_or_else(|e| panic!("`{text}`: {e}"));
        assert_eq!(format!("{x};"), *text, "canonical order is the manual's");
        assert_eq!(
            x.requirement()
                .verdict(Target::SM_90A, PtxVersion::MAX_SUPPORTED),
            Verdict::Legal,
            "{text}"
        );
    }
    let x = parse("fence.cluster.sync_restrict::shared::cta.release").unwrap();
    assert_eq!(
        x.to_string(),
        "fence.release.sync_restrict::shared::cta.cluster"
    );
    let x = parse("barrier.cluster.arrive.aligned.release").unwrap();
    assert_eq!(x.to_string(), "barrier.cluster.arrive.release.aligned");
}

#[test]
fn syntax_placeholders_and_bad_forms_are_errors() {
    let err = |t: &str| parse(t).unwrap_err().to_string();
    // The syntax block's placeholders are not instructions.
    assert_eq!(
        err("fence.op_restrict.release.cluster"),
        "expected a qualifier of fence, found `.op_restrict`"
    );
    assert_eq!(err("fence.proxy.proxykind"), "expected proxy kind: one of `.alias`, `.async`, `.tensormap::generic`, `.async::generic`, found none");
    assert_eq!(
        err("membar.level"),
        "expected `.level`: one of `.cta`, `.gl`, `.sys`, found none"
    );
    assert_eq!(
        err("fence.sc"),
        "expected `.scope`: one of `.cta`, `.cluster`, `.gpu`, `.sys`, found none"
    );
    assert_eq!(
        err("fence.sc.cta [a], 128"),
        "expected at most 0 operands (fence takes no operands), found 2"
    );
    assert_eq!(
        err("fence.proxy.tensormap::generic.acquire.gpu [tmap]"),
        "expected operand 2 (size), found end of instruction"
    );
    assert_eq!(
        err("fence.proxy.tensormap::generic.acquire.gpu [tmap], n"),
        "expected size (an integer constant), found a register"
    );
    assert_eq!(
        err("fence.proxy.tensormap::generic.acquire.gpu tmap, 128"),
        "expected addr as an address `[...]`, found a register"
    );
    assert_eq!(
        err("membar.proxy.tensormap::generic.release.gpu"),
        "expected a bi-directional proxy kind after `membar.proxy`, found a uni-directional one"
    );
    assert_eq!(
        err("fence.proxy.async.shared"),
        "expected a qualifier of fence.proxy, found `.shared`"
    );
    assert_eq!(
        err("barrier.cluster.wait.release"),
        "expected a qualifier of barrier.cluster, found `.release`"
    );
    assert_eq!(
        err("barrier.cluster.arrive.release.relaxed"),
        "expected at most one `.sem`, found a second one, `.relaxed`"
    );
    assert_eq!(
        err("barrier.cluster.sync"),
        "expected `.arrive` or `.wait`: one of `.arrive`, `.wait`, found none"
    );
    assert_eq!(
        err("fence.mbarrier_init.release.sync_restrict::shared::cta.cluster"),
        "expected at most one of `.op_restrict`, `.sync_restrict`, found both"
    );
}

#[test]
fn requirements_follow_the_notes() {
    let verdict = |t: &str, tgt: Target| {
        parse(t)
            .unwrap()
            .requirement()
            .verdict(tgt, PtxVersion::MAX_SUPPORTED)
    };
    let min = |t: &str, tgt: Target| parse(t).unwrap().requirement().min_ptx_for(tgt);
    assert_eq!(min("fence.sc.gpu", Target::SM_80), Ok(v(7, 0)));
    assert!(min("fence.sc.cluster", Target::SM_80).is_err());
    assert!(min("fence.acquire.gpu", Target::SM_80).is_err());
    assert_eq!(min("fence.acquire.gpu", Target::SM_90), Ok(v(8, 6)));
    assert_eq!(
        min("fence.proxy.tensormap::generic.release.gpu", Target::SM_90),
        Ok(v(8, 3))
    );
    assert_eq!(min("fence.proxy.alias", Target::SM_80), Ok(v(7, 5)));
    assert!(min("fence.proxy.async", Target::SM_80).is_err());
    assert_eq!(min("barrier.cluster.arrive", Target::SM_90), Ok(v(7, 8)));
    assert_eq!(
        min("barrier.cluster.arrive.relaxed.aligned", Target::SM_90),
        Ok(v(8, 0))
    );
    assert_eq!(
        verdict(
            "fence.release.sync_restrict::shared::cta.gpu",
            Target::SM_90A
        ),
        Verdict::WrongTarget {
            why: ".sync_restrict::shared::cta needs .cluster scope".into()
        }
    );
    assert_eq!(
        verdict(
            "fence.acquire.sync_restrict::shared::cta.cluster",
            Target::SM_90A
        ),
        Verdict::WrongTarget {
            why: ".sync_restrict::shared::cta needs .release".into()
        }
    );
    assert!(matches!(
        verdict("fence.mbarrier_init.release.cta", Target::SM_90A),
        Verdict::WrongTarget { .. }
    ));
    assert!(matches!(
        verdict(
            "fence.proxy.tensormap::generic.acquire.gpu [a], 64",
            Target::SM_90A
        ),
        Verdict::WrongTarget { .. }
    ));
}

#[test]
fn operand_slots_and_rows() {
    let mut x = parse("fence.proxy.tensormap::generic.acquire.sys [tmap+8], 128").unwrap();
    let mut seen = Vec::new();
    x.visit_operands(&mut |s| {
        if let Slot::Addr { role, space, addr } = s {
            seen.push(format!("{role}@{space:?}={addr}"));
        } else {
            seen.push("?".into());
        }
    });
    assert_eq!(seen, ["addr@Generic=[tmap+8]"]);
    assert_eq!(x.row(), "fence.proxy.tensormap::generic.acquire.sys +addr");
    assert_eq!(x.family(), "fence");
    let mut y = parse("fence.sc.cta").unwrap();
    y.visit_operands(&mut |_| panic!("no operands"));
    assert_eq!(
        parse("barrier.cluster.wait").unwrap().family(),
        "barrier.cluster"
    );
    assert_eq!(
        parse("membar.proxy.async.global").unwrap().row(),
        "membar.proxy.async.global"
    );
}
