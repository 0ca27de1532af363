//! Executor: proxies (§8.6, §9.7.9.25.2) and the fences that order them (§9.7.13.4). Each rule
//! of `sem::proxy::CATALOGUE` is exercised with and without what it asks for.

use crate::exec_support::*;
use ptxconform_reference::sem::exec::Execution;
use ptxconform_reference::sem::memory::Byte;
use ptxconform_reference::sem::proxy;

/// `cluster` CTAs in one cluster; `buf` (64 B, 0xAA) in shared, `src` (pattern 7) and `out`
/// (64 B, 0x11) in global, mbarrier `bar`.
fn prog(cluster: u32, params: &str, body: &str) -> String {
    format!(
        "name: t\ntarget: sm_90a\nlaunch: {{ grid: [{cluster},1,1], cluster: [{cluster},1,1], threads: 32 }}\n{params}memory:\n  global:\n    - {{ name: src, size: 64, init: {{ pattern: 7 }} }}\n    - {{ name: out, size: 64, init: {{ fill: 0x11 }} }}\n  shared:\n    - {{ name: buf, size: 64, init: {{ fill: 0xAA }} }}\n  mbarriers: [ {{ name: bar }} ]\nprogram:\n{body}"
    )
}

fn noted(x: &Execution, rule: &proxy::ProxyRule) -> bool {
    x.notes.iter().any(|n| n.rule == rule.id)
}

const S2G: &str = "  - ptx: cp.async.bulk.global.shared::cta.bulk_group [out], [buf], 16\n  - ptx: cp.async.bulk.commit_group\n  - ptx: cp.async.bulk.wait_group 0\n";

/// A store, then a bulk copy reading it through the async proxy, with `fence` between.
fn store_then_s2g(fence: &str) -> Execution {
    defined(&prog(
        1,
        "",
        &format!("  - store: {{ at: buf, bytes: [1, 2] }}\n{fence}{S2G}"),
    ))
}

#[test]
fn generic_write_then_async_read_needs_fence_proxy_async() {
    let x = store_then_s2g("");
    let o = global(&x, "out");
    assert_eq!(o[0], Byte::Known(1).union(Byte::Known(0xAA)));
    assert_eq!(o[1], Byte::Known(2).union(Byte::Known(0xAA)));
    assert_eq!(o[2], Byte::Known(0xAA), "bytes not stored stay certain");
    assert!(noted(&x, &proxy::GENERIC_WRITE_ASYNC_READ), "{:?}", x.notes);
    for fence in [
        "fence.proxy.async",
        "fence.proxy.async.shared::cta",
        "fence.proxy.async.shared::cluster",
        "membar.proxy.async",
        "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster",
        "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster",
    ] {
        let x = store_then_s2g(&format!("  - ptx: {fence}\n"));
        assert_eq!(
            known(&global(&x, "out")[..3]),
            Some(vec![1, 2, 0xAA]),
            "{fence}"
        );
        assert!(x.notes.is_empty(), "{fence}: {:?}", x.notes);
    }
}

#[test]
fn fences_are_limited_to_their_state_space() {
    for fence in [
        "fence.proxy.async.global",
        "fence.proxy.alias",
        "fence.acq_rel.cluster",
        "fence.proxy.tensormap::generic.release.gpu",
        "barrier.cluster.arrive",
    ] {
        let x = store_then_s2g(&format!("  - ptx: {fence}\n"));
        assert!(global(&x, "out")[0].known().is_none(), "{fence}");
        assert!(noted(&x, &proxy::GENERIC_WRITE_ASYNC_READ), "{fence}");
    }
}

#[test]
fn generic_store_to_global_then_bulk_load() {
    let run = |fence: &str| {
        defined(&prog(1, "", &format!(
            "  - ptx: mbarrier.init.shared::cta.b64 [bar], 1\n  - ptx: mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16\n  - store: {{ at: src, bytes: [9] }}\n{fence}  - ptx: cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [buf], [src], 16, [bar]\n  - wait_parity: {{ mbar: bar, parity: 0 }}\n")))
    };
    let x = run("");
    assert_eq!(
        shared(&x, 0, "buf")[0],
        Byte::Known(9).union(Byte::Known(pattern(7, 1)[0]))
    );
    assert!(noted(&x, &proxy::GENERIC_WRITE_ASYNC_READ));
    for fence in ["fence.proxy.async.global", "fence.proxy.async"] {
        let x = run(&format!("  - ptx: {fence}\n"));
        assert_eq!(shared(&x, 0, "buf")[0], Byte::Known(9), "{fence}");
    }
    let x = run("  - ptx: fence.proxy.async.shared::cta\n");
    assert!(shared(&x, 0, "buf")[0].known().is_none());
}

#[test]
fn cp_async_writes_through_the_generic_proxy() {
    // cp.async lands `src` into buf (generic proxy); a bulk copy then reads buf (async proxy).
    let body = |fence: &str| {
        format!("  - ptx: cp.async.ca.shared.global [buf], [src], 4\n  - ptx: cp.async.commit_group\n  - ptx: cp.async.wait_group 0\n{fence}{S2G}")
    };
    let x = defined(&prog(1, "", &body("")));
    assert_eq!(
        global(&x, "out")[0],
        Byte::Known(pattern(7, 1)[0]).union(Byte::Known(0xAA))
    );
    assert!(noted(&x, &proxy::GENERIC_WRITE_ASYNC_READ));
    let x = defined(&prog(
        1,
        "",
        &body("  - ptx: fence.proxy.async.shared::cta\n"),
    ));
    assert_eq!(known(&global(&x, "out")[..4]), Some(pattern(7, 4)));
}

#[test]
fn generic_write_then_async_write_is_unordered() {
    let run = |fence: &str| {
        defined(&prog(1, "", &format!(
            "  - ptx: mbarrier.init.shared::cta.b64 [bar], 1\n  - ptx: mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16\n  - store: {{ at: buf, bytes: [5] }}\n{fence}  - ptx: cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [buf], [src], 16, [bar]\n  - wait_parity: {{ mbar: bar, parity: 0 }}\n")))
    };
    let s = pattern(7, 16);
    let x = run("");
    let b = shared(&x, 0, "buf");
    assert_eq!(b[0], Byte::Known(5).union(Byte::Known(s[0])));
    assert_eq!(known(&b[1..16]), Some(s[1..].to_vec()));
    assert!(noted(&x, &proxy::GENERIC_WRITE_ASYNC_WRITE));
    let x = run("  - ptx: fence.proxy.async.shared::cta\n");
    assert_eq!(known(&shared(&x, 0, "buf")[..16]), Some(s));
    assert!(x.notes.is_empty(), "{:?}", x.notes);
}

#[test]
fn observed_completion_makes_async_writes_visible_to_the_generic_proxy() {
    // A bulk copy writes `out` (async proxy); after its group completes, cp.async (generic
    // proxy) reads it back with no fence: the implicit fence of the completion orders it.
    let x = defined(&prog(1, "", &format!("{S2G}  - ptx: cp.async.ca.shared.global [buf+32], [out], 4\n  - ptx: cp.async.wait_all\n")));
    assert_eq!(known(&shared(&x, 0, "buf")[32..36]), Some(vec![0xAA; 4]));
    assert!(x.notes.is_empty(), "{:?}", x.notes);
}

/// Two CTAs; CTA 0 copies into CTA 1's `buf` and signals CTA 1's `bar`.
fn remote_copy(fence: &str) -> Execution {
    let params = "params:\n  rbar: { mapa: bar, cta: 1 }\n  rbuf: { mapa: buf, cta: 1 }\n";
    defined(&prog(2, params, &format!(
        "  - cta: all\n    ptx: mbarrier.init.shared::cta.b64 [bar], 1\n{fence}  - cta: 1\n    ptx: mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16\n  - ptx: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [rbuf], [buf+16], 16, [rbar]\n  - cta: 1\n    wait_parity: {{ mbar: bar, parity: 0 }}\n")))
}

#[test]
fn peer_complete_tx_needs_the_init_released() {
    let x = remote_copy("");
    assert!(noted(&x, &proxy::MBARRIER_INIT_UNRELEASED), "{:?}", x.notes);
    assert_eq!(x.notes[0].step, 2, "noted at the copy that signals");
    for fence in [
        "fence.mbarrier_init.release.cluster",
        "fence.proxy.async.shared::cta",
        "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster",
    ] {
        let x = remote_copy(&format!("  - cta: all\n    ptx: {fence}\n"));
        assert!(!noted(&x, &proxy::MBARRIER_INIT_UNRELEASED), "{fence}");
    }
    // Only the initialising thread's fence.mbarrier_init releases it; a thread fence does not.
    let x =
        remote_copy("  - cta: all\n    thread: 1\n    ptx: fence.mbarrier_init.release.cluster\n");
    assert!(noted(&x, &proxy::MBARRIER_INIT_UNRELEASED));
    let x = remote_copy("  - cta: all\n    ptx: fence.acq_rel.cluster\n");
    assert!(noted(&x, &proxy::MBARRIER_INIT_UNRELEASED));
    // The fence of CTA 0 alone does not release CTA 1's barrier.
    let x = remote_copy("  - cta: 0\n    ptx: fence.mbarrier_init.release.cluster\n");
    assert!(noted(&x, &proxy::MBARRIER_INIT_UNRELEASED));
}

#[test]
fn tensor_store_source_is_read_through_the_async_proxy() {
    // A 16-float box from shared `src` stored at element 16 of the global tensor `out`.
    let run = |fence: &str| {
        defined(&format!(
            "name: t\ntarget: sm_90a\nmemory:\n  global:\n    - {{ name: out, size: 128, align: 128, init: {{ fill: 0x11 }} }}\n  shared:\n    - {{ name: src, size: 64, align: 1024, init: {{ fill: 0x22 }} }}\n  tensor_maps:\n    - {{ name: tm, global: out, map: {{ encode: tiled, tensor_data_type: float32, global_dim: [32], global_strides: [], box_dim: [16] }} }}\nprogram:\n  - store: {{ at: src, bytes: [7] }}\n{fence}  - ptx: cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [tm, {{16}}], [src]\n  - ptx: cp.async.bulk.commit_group\n  - ptx: cp.async.bulk.wait_group 0\n"
        ))
    };
    let x = run("");
    assert_eq!(
        global(&x, "out")[64],
        Byte::Known(7).union(Byte::Known(0x22))
    );
    assert!(noted(&x, &proxy::GENERIC_WRITE_ASYNC_READ));
    let x = run("  - ptx: fence.proxy.async.shared::cta\n");
    assert_eq!(
        global(&x, "out")[64..66],
        [Byte::Known(7), Byte::Known(0x22)]
    );
    assert!(x.notes.is_empty(), "{:?}", x.notes);
}

#[test]
fn shared_cta_fence_covers_its_own_cta_shared_cluster_the_whole_cluster() {
    // CTA 1 stores into its buf; CTA 0 fences; CTA 1 copies its buf to global (A-EXEC-PROXY-CAUSAL).
    let run = |fence: &str| {
        defined(&prog(2, "", &format!(
            "  - cta: 1\n    store: {{ at: buf, bytes: [3] }}\n  - cta: 0\n    ptx: {fence}\n  - cta: 1\n    ptx: cp.async.bulk.global.shared::cta.bulk_group [out], [buf], 16\n  - cta: 1\n    ptx: cp.async.bulk.commit_group\n  - cta: 1\n    ptx: cp.async.bulk.wait_group 0\n")))
    };
    let x = run("fence.proxy.async.shared::cta");
    assert!(global(&x, "out")[0].known().is_none());
    let x = run("fence.proxy.async.shared::cluster");
    assert_eq!(global(&x, "out")[0], Byte::Known(3));
}
