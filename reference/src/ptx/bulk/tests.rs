use super::*;
use crate::ptx::common::{RedOp, RedType};
use crate::target::{Target, Verdict};

family_parser!(Bulk, BulkOp);

fn legal(x: &BulkOp, t: Target) -> bool {
    x.requirement().verdict(t, PtxVersion::MAX_SUPPORTED) == Verdict::Legal
}

#[test]
fn roundtrip_every_variant() {
    let vs = BulkOp::variants();
    let count = |fam: &str| vs.iter().filter(|v| v.family() == fam).count();
    assert_eq!(count("cp.async.bulk"), 28);
    assert_eq!(count("cp.reduce.async.bulk"), 2 * 8 * 10 * 2 * 4);
    assert_eq!(count("cp.async.bulk.prefetch"), 4);
    assert_eq!(count("async-group"), 3);
    assert_round_trips(&vs);
    let mut rows: Vec<String> = vs.iter().map(|v| v.row()).collect();
    rows.sort();
    rows.dedup();
    assert_eq!(rows.len(), vs.len(), "rows distinguish variants");
}

#[test]
fn spec_examples_parse() {
    let ex = [
        ("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [dstMem], [srcMem], size, [mbar];", true),
        ("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.L2::cache_hint\n [dstMem], [srcMem], size, [mbar], cache-policy;", true),
        ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dstMem], [srcMem], size, [mbar];", true),
        ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [dstMem], [srcMem], size, [mbar], ctaMask;", true),
        ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [dstMem], [srcMem], size, [mbar], cache-policy;", true),
        ("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [dstMem], [srcMem], size, [mbar];", true),
        ("cp.async.bulk.global.shared::cta.bulk_group [dstMem], [srcMem], size;", true),
        ("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.cp_mask [dstMem], [srcMem], size, cache-policy, byteMask;", true),
        // 9.2-only: well-formed, but PTX 9.2 is beyond our toolchain.
        ("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob [dstMem], [srcMem], size, ignoreBytesLeft, ignoreBytesRight, [mbar];", false),
        ("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u64 [dstMem], [srcMem], size, [mbar];", true),
        ("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.min.s32 [dstMem], [srcMem], size, [mbar];", true),
        ("cp.reduce.async.bulk.global.shared::cta.bulk_group.min.f16 [dstMem], [srcMem], size;", true),
        // The manual's own example: `.xor.s32` is not in its redOp/type table (.b32/.b64 only).
        ("cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.xor.s32 [dstMem], [srcMem], size, policy;", false),
        ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [dstMem], [srcMem], size;", true),
        ("cp.async.bulk.prefetch.L2.global                 [srcMem], size;", true),
        ("cp.async.bulk.prefetch.L2.global.L2::cache_hint  [srcMem], size, policy;", true),
        ("cp.async.bulk.commit_group;", true),
        ("cp.async.bulk.wait_group.read   0;", true),
        ("cp.async.bulk.wait_group        2;", true),
    ];
    for (e, ok) in ex {
        let x = parse(e).unwrap_or_else(|err| panic!("{e}: {err}"));
        assert_eq!(legal(&x, Target::SM_100A), ok, "{e}");
    }
    // The example with a stray `}` after the hint is a typo in the manual: it must not parse.
    assert!(parse("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint} [dstMem], [srcMem], size, cache-policy;").is_err());
    let BulkOp::Copy(c) = parse("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.cp_mask [d], [s], 64, pol, 0xff").unwrap()
    else {
        panic!()
    };
    assert_eq!(
        c.dir,
        CopyDir::CtaToGlobal {
            byte_mask: Some(Value::Imm(0xff))
        }
    );
    assert_eq!(c.hint.policy, Some(Value::reg("pol")));
    assert_eq!(c.size, Value::Imm(64));
    // Qualifiers in a non-canonical order still parse; printing restores the syntax-block order.
    let x =
        parse("cp.async.bulk.shared::cluster.global.L2::cache_hint.multicast::cluster.mbarrier::complete_tx::bytes [d], [s], n, [m], k, p")
            .unwrap();
    assert_eq!(
        x.to_string(),
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [d], [s], n, [m], k, p"
    );
}

#[test]
fn errors() {
    let bad = [
        ("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [d], [s], n", "4 operands"),
        ("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [d], [s], n, [m], p, q", "at most 5"),
        ("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [d], [s], n, m", "mbar as an address"),
        ("cp.async.bulk.global.shared::cta.mbarrier::complete_tx::bytes [d], [s], n, [m]", "`.bulk_group` for .global.shared::cta"),
        ("cp.async.bulk.shared::cta.global.bulk_group [d], [s], n", "`.mbarrier::complete_tx::bytes`"),
        ("cp.async.bulk.global.global.bulk_group [d], [s], n", "direction"),
        ("cp.async.bulk.shared::cta.mbarrier::complete_tx::bytes [d], [s], n, [m]", "state spaces"),
        (
            "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.multicast::cluster [d], [s], n, [m], k",
            "only with .shared::cluster.global",
        ),
        ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.cp_mask [d], [s], n, [m], k", "only with .global.shared::cta"),
        ("cp.async.bulk.global.shared::cta.bulk_group.ignore_oob [d], [s], n", "only with .shared::cta.global"),
        ("cp.async.bulk.global.shared::cta.bulk_group.L2::evict_first [d], [s], n", "`.L2::evict_first`"),
        ("cp.async.bulk.global.shared::cta.bulk_group [d], [s], [n]", "size (register or immediate)"),
        ("cp.reduce.async.bulk.global.shared::cta.bulk_group.mul.u32 [d], [s], n", "reduction operation"),
        ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add [d], [s], n", "element type"),
        ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32.s32 [d], [s], n", "at most one element type"),
        ("cp.reduce.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.add.u32 [d], [s], n, [m]", "direction"),
        ("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [d], [s], n", "4 operands"),
        ("cp.async.bulk.prefetch.L2.global [s]", "2 operands"),
        ("cp.async.bulk.prefetch.global [s], n", "cache level"),
        ("cp.async.bulk.wait_group.write 0", "`.write`"),
        ("cp.async.bulk.wait_group n", "integer constant"),
        ("cp.async.bulk.commit_group.read", "`.read`"),
    ];
    assert_rejected(&bad);
}

#[test]
fn legality() {
    let t = |s: &str| parse(s).unwrap().requirement();
    let to_cta =
        t("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [d], [s], n, [m]");
    assert_eq!(to_cta.min_ptx_for(Target::SM_90), Ok(PtxVersion::new(8, 6)));
    assert!(to_cta.min_ptx_for(Target::SM_80).is_err());
    let to_cluster =
        t("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [d], [s], n, [m]");
    assert_eq!(
        to_cluster.min_ptx_for(Target::SM_90),
        Ok(PtxVersion::new(8, 0))
    );
    let mask = t("cp.async.bulk.global.shared::cta.bulk_group.cp_mask [d], [s], n, k");
    assert!(mask.min_ptx_for(Target::SM_90A).is_err());
    assert_eq!(
        mask.min_ptx_for(Target::SM_100F),
        Ok(PtxVersion::new(8, 8)),
        ".target sm_100f itself needs 8.8"
    );
    let oob = t("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob [d], [s], n, l, r, [m]");
    assert!(matches!(
        oob.verdict(Target::SM_100A, PtxVersion::MAX_SUPPORTED),
        Verdict::PtxTooOld { .. }
    ));
    let remote_hint = t("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.L2::cache_hint [d], [s], n, [m], p");
    assert!(remote_hint.min_ptx_for(Target::SM_100A).is_err());
    let imm = |s: &str| legal(&parse(s).unwrap(), Target::SM_90);
    assert!(imm(
        "cp.async.bulk.global.shared::cta.bulk_group [d], [s], 1048560"
    ));
    assert!(imm(
        "cp.async.bulk.global.shared::cta.bulk_group [d], [s], 0"
    ));
    assert!(!imm(
        "cp.async.bulk.global.shared::cta.bulk_group [d], [s], 1048576"
    ));
    assert!(!imm("cp.async.bulk.prefetch.L2.global [s], 20"));
    assert!(!imm(
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [d], [s], -16"
    ));
    // redOp/type table and .noftz.
    for op in RedOp::ALL {
        for ty in RedType::ALL {
            let r = BulkReduce {
                dst_kind: RedDst::Global,
                op,
                ty,
                noftz: false,
                hint: CacheHint::default(),
                dst: Address::reg("d"),
                src: Address::reg("s"),
                size: Value::reg("n"),
            };
            let half_add = op == RedOp::Add && matches!(ty, RedType::F16 | RedType::Bf16);
            let ok = legal(&BulkOp::Reduce(r.clone()), Target::SM_90);
            assert_eq!(
                ok,
                reduce::table_allows(Space::Global, op, ty) && !half_add,
                "{op:?} {ty:?}"
            );
            let nf = legal(
                &BulkOp::Reduce(BulkReduce { noftz: true, ..r }),
                Target::SM_90,
            );
            assert_eq!(nf, half_add, ".noftz {op:?} {ty:?}");
        }
    }
    assert!(!reduce::table_allows(
        Space::SharedCluster,
        RedOp::Add,
        RedType::S64
    ));
    assert!(reduce::table_allows(
        Space::Global,
        RedOp::Max,
        RedType::S64
    ));
    assert!(!reduce::table_allows(
        Space::Global,
        RedOp::Add,
        RedType::S64
    ));
}

#[test]
fn operand_slots() {
    let roles = |s: &str| {
        let mut x = parse(s).unwrap();
        let mut seen = Vec::new();
        x.visit_operands(&mut |s| match s {
            Slot::Addr { role, space, .. } => seen.push(format!("{role}:{space:?}")),
            Slot::Value {
                role, ty, imm_ok, ..
            } => seen.push(format!("{role}:{ty:?}:{imm_ok}")),
            _ => seen.push("?".into()),
        });
        seen
    };
    assert_eq!(
        roles(
            "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.cp_mask [d], [s], n, p, k"
        ),
        [
            "dst:Global",
            "src:SharedCta",
            "size:B32:true",
            "policy:B64:false",
            "byteMask:B16:true"
        ]
    );
    assert_eq!(
        roles("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [d], [s], n, [m], k, p"),
        ["dst:SharedCluster", "src:Global", "size:B32:true", "mbar:SharedCluster", "ctaMask:B16:true", "policy:B64:false"]
    );
    assert_eq!(
        roles("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob [d], [s], n, l, r, [m]"),
        ["dst:SharedCta", "src:Global", "size:B32:true", "ignoreBytesLeft:B32:true", "ignoreBytesRight:B32:true", "mbar:SharedCta"]
    );
    assert_eq!(
        roles("cp.async.bulk.wait_group.read 0"),
        Vec::<String>::new()
    );
}
