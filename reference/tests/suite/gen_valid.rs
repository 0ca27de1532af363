//! 2000 generated cases per config validate, print-parse, are statically legal as intended and
//! round-trip through YAML; the swarm reaches every family and the interesting operand forms.

use ptxconform_reference::case::init::SplitMix64;
use ptxconform_reference::case::model::StepOp;
use ptxconform_reference::gen::oracle::static_oracles;
use ptxconform_reference::gen::{generate_bytes, GenConfig, Generated, Intent, BLOCK, HEADER};
use std::collections::BTreeSet;

fn inputs(seed: u64, n: usize) -> impl Iterator<Item = Vec<u8>> {
    let mut rng = SplitMix64(seed);
    (0..n).map(move |_| {
        let len = (rng.next().unwrap_or(0) % (HEADER + 8 * BLOCK) as u64) as usize;
        (0..len).map(|_| rng.next().unwrap_or(0) as u8).collect()
    })
}

fn check_all(cfg: &GenConfig, seed: u64) -> Vec<Generated> {
    let oracles = static_oracles();
    let mut out = Vec::new();
    for bytes in inputs(seed, 2000) {
        let g = generate_bytes(&bytes, cfg);
        for o in &oracles {
            if let Err(v) = o.check(&g) {
                panic!(
                    "{v}\ninput {bytes:?}\ncase {}",
                    ptxconform_reference::case::to_yaml(std::slice::from_ref(&g.case))
                );
            }
        }
        out.push(g);
    }
    out
}

fn texts(gs: &[Generated]) -> Vec<String> {
    gs.iter()
        .flat_map(|g| g.case.program.iter())
        .filter_map(|s| match &s.op {
            StepOp::Ptx(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn legal_cases_validate_and_cover_the_space() {
    let gs = check_all(&GenConfig::legal(), 1);
    assert!(gs.iter().all(|g| g.intent == Intent::WellDefined));
    let t = texts(&gs);
    let has = |s: &str| t.iter().any(|x| x.contains(s));
    for needle in [
        "cp.async.ca.shared.global",
        "cp.async.cg.shared::cta.global",
        "cp.async.wait_all",
        "cp.async.mbarrier.arrive.noinc",
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster",
        "cp.async.bulk.shared::cta.global",
        "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [remote",
        "cp.async.bulk.global.shared::cta.bulk_group.cp_mask",
        "L2::cache_hint",
        "cp.async.bulk.wait_group.read",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group",
        // (reductions into .shared::cluster appear only as UB programs: A-EXEC-REDUCE-REMOTE)
        ".add.noftz.",
        "cp.async.bulk.prefetch.L2.global",
        "mbarrier.arrive.expect_tx",
        "mbarrier.expect_tx",
        "mbarrier.complete_tx",
        "mbarrier.arrive_drop",
        "mbarrier.arrive.noComplete",
        "mbarrier.inval",
        "mbarrier.try_wait.parity",
        ".release.cluster",
    ] {
        assert!(has(needle), "no generated step contains `{needle}`");
    }
    let targets: BTreeSet<String> = gs.iter().map(|g| g.case.target.to_string()).collect();
    assert!(targets.len() >= 5, "{targets:?}");
    assert!(gs.iter().any(|g| g.case.launch.cluster[0] > 1));
    assert!(gs.iter().any(|g| g
        .case
        .program
        .iter()
        .any(|s| matches!(s.op, StepOp::Store { .. }))));
    assert!(gs.iter().any(|g| !g.case.params.is_empty()));
}

#[test]
fn mixed_cases_carry_each_deviation() {
    let gs = check_all(&GenConfig::mixed(), 2);
    let mut rules = BTreeSet::new();
    let (mut illegal, mut fine) = (0, 0);
    for g in &gs {
        match &g.intent {
            Intent::Illegal { .. } => illegal += 1,
            Intent::Undefined { rule } | Intent::Racy { rule } => {
                rules.insert(*rule);
            }
            Intent::WellDefined => fine += 1,
        }
    }
    assert!(
        illegal > 100 && fine > 1000,
        "illegal {illegal}, well defined {fine}"
    );
    for r in [
        "cp.async.src_size_gt_cp_size",
        "cp.async.same_dst_in_group",
        "address.misaligned",
        "bulk.size_not_multiple_of_16",
        "async.src_modified_before_completion",
        "mbarrier.not_initialized",
        "mbarrier.pending_count_range",
        "bulk.cluster_dst_is_executing_cta",
    ] {
        assert!(rules.contains(r), "rule {r} never generated; got {rules:?}");
    }
}
