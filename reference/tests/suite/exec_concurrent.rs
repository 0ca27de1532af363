//! Concurrent step groups (A-EXEC-CONCURRENT-INTERLEAVINGS): how many orders run, how their
//! final bytes merge, UB in one order, and the located validation errors.

use ptxconform_reference::case::load_str;
use ptxconform_reference::sem::exec::concurrent::{schedules, MAX_ORDERS};
use ptxconform_reference::sem::exec::{execute, ErrorKind, Outcome};
use ptxconform_reference::sem::memory::Byte;

const HEAD: &str = "name: t\ntarget: sm_90\nlaunch: { threads: 128 }\nmemory:\n  global: [ { name: src, size: 64, init: { pattern: 1 } } ]\n  shared: [ { name: buf, size: 16 } ]\n  mbarriers: [ { name: bar } ]\nprogram:\n";

fn case(body: &str) -> ptxconform_reference::case::Case {
    load_str(&format!("{HEAD}{body}"), "t.yaml")
        .unwrap_or_else(|e| panic!("{e}"))
        .remove(0)
}

fn load_err(body: &str) -> String {
    load_str(&format!("{HEAD}{body}"), "t.yaml")
        .expect_err("a validation error")
        .to_string()
}

#[test]
fn interleavings_keep_each_threads_order() {
    // Two threads of two steps each: C(4, 2) = 6 orders; a step outside the group adds none.
    let c = case(
        "  - store: { at: buf, bytes: [9] }\n\
         \x20 - { store: { at: buf, bytes: [1] }, thread: 0, concurrent: g }\n\
         \x20 - { store: { at: buf, bytes: [2] }, thread: 0, concurrent: g }\n\
         \x20 - { store: { at: buf, bytes: [3] }, thread: 32, concurrent: g }\n\
         \x20 - { store: { at: buf, bytes: [4] }, thread: 32, concurrent: g }\n",
    );
    let s = schedules(&c).unwrap();
    assert_eq!(s.len(), 6);
    for order in &s {
        assert_eq!(order[0].step, 0);
        let pos = |k: usize| order.iter().position(|u| u.step == k).unwrap();
        assert!(pos(1) < pos(2) && pos(3) < pos(4), "{order:?}");
    }
    // The listed order comes first.
    assert_eq!(
        s[0].iter().map(|u| u.step).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
    // Final byte 0: whatever thread's last store was last (2 or 4), never 1, 3 or 9.
    let e = execute(&c).unwrap();
    let b = e.final_region("buf@cta0").unwrap()[0];
    assert!(b.allows(2) && b.allows(4) && !b.allows(1) && !b.allows(3) && !b.allows(9));
}

#[test]
fn differing_bytes_merge_into_an_uncertain_set() {
    let c = case(
        "  - { store: { at: buf, bytes: [1, 1, 1] }, thread: 0, concurrent: race }\n\
         \x20 - { store: { at: buf, bytes: [2] }, thread: 64, concurrent: race }\n",
    );
    let e = execute(&c).unwrap();
    assert_eq!(e.outcome, Outcome::Defined);
    let buf = e.final_region("buf@cta0").unwrap();
    assert!(matches!(buf[0], Byte::OneOf(_)) && buf[0].allows(1) && buf[0].allows(2));
    assert_eq!(buf[1], Byte::Known(1));
    assert_eq!(buf[3], Byte::Known(0));
}

#[test]
fn ub_in_one_order_makes_the_case_undefined() {
    // Store before the copy: defined; copy first: the store hits a write in flight.
    let c = case(
        "  - { ptx: \"cp.async.ca.shared.global [buf], [src], 4\", thread: 0, concurrent: g }\n\
         \x20 - { store: { at: buf, bytes: [7] }, thread: 32, concurrent: g }\n\
         \x20 - ptx: cp.async.wait_all\n",
    );
    let e = execute(&c).unwrap();
    match &e.outcome {
        Outcome::Undefined { ub, step } => {
            assert_eq!(ub.rule, "async.dst_written_before_completion");
            assert_eq!(*step, 1);
            assert!(
                ub.detail.contains("of 2 of the concurrent steps"),
                "{}",
                ub.detail
            );
        }
        o => panic!("expected UB, got {o:?}"),
    }
}

#[test]
fn mbarrier_state_agrees_across_orders() {
    let c = case(
        "  - ptx: mbarrier.init.shared::cta.b64 [bar], 3\n\
         \x20 - { ptx: \"mbarrier.arrive.shared::cta.b64 _, [bar]\", thread: 0, concurrent: p }\n\
         \x20 - { ptx: \"mbarrier.arrive.shared::cta.b64 _, [bar]\", thread: 32, concurrent: p }\n\
         \x20 - { ptx: \"mbarrier.arrive.shared::cta.b64 _, [bar]\", thread: 64, concurrent: p }\n\
         \x20 - wait_parity: { mbar: bar, parity: 0 }\n",
    );
    // The arrivals commute (A-EXEC-CONCURRENT-MBAR-COMMUTE): one order instead of 3! = 6.
    assert_eq!(schedules(&c).unwrap().len(), 1);
    assert_eq!(execute(&c).unwrap().outcome, Outcome::Defined);
}

#[test]
fn validation_errors_are_located() {
    let one = load_err(
        "  - { store: { at: buf, bytes: [1] }, concurrent: g }\n\
         \x20 - { store: { at: buf, bytes: [2] }, concurrent: g }\n",
    );
    assert!(
        one.starts_with("t.yaml:9:") && one.contains("one thread only"),
        "{one}"
    );
    let wait = load_err(
        "  - ptx: mbarrier.init.shared::cta.b64 [bar], 1\n\
         \x20 - { store: { at: buf, bytes: [1] }, concurrent: g }\n\
         \x20 - { wait_parity: { mbar: bar, parity: 0 }, thread: 32, concurrent: g }\n",
    );
    assert!(
        wait.starts_with("t.yaml:11:") && wait.contains("wait_parity"),
        "{wait}"
    );
    let split = load_err(
        "  - { store: { at: buf, bytes: [1] }, concurrent: g }\n\
         \x20 - { store: { at: buf, bytes: [2] }, thread: 32, concurrent: g }\n\
         \x20 - store: { at: buf, bytes: [3] }\n\
         \x20 - { store: { at: buf, bytes: [1] }, concurrent: g }\n\
         \x20 - { store: { at: buf, bytes: [2] }, thread: 32, concurrent: g }\n",
    );
    assert!(
        split.starts_with("t.yaml:12:") && split.contains("already ended"),
        "{split}"
    );
    // 8 threads of one step: 8! = 40320 orders, over the bound.
    let body: String = (0..8)
        .map(|t| {
            format!("  - {{ store: {{ at: buf, bytes: [{t}] }}, thread: {t}, concurrent: g }}\n")
        })
        .collect();
    let big = load_err(&body);
    assert!(big.contains(&format!("more than {MAX_ORDERS}")), "{big}");
}

#[test]
fn a_step_outside_groups_keeps_one_order() {
    // `cta: all` over 8 CTAs outside any group: one order (A-EXEC-ORDER), not 8!.
    let text = HEAD.replace("launch: { threads: 128 }", "launch: { grid: [8, 1, 1] }");
    let c = load_str(
        &format!("{text}  - {{ store: {{ at: buf, bytes: [1] }}, cta: all }}\n"),
        "t.yaml",
    )
    .unwrap()
    .remove(0);
    assert_eq!(schedules(&c).unwrap().len(), 1);
}

/// A warp-wide group: lane `l` copies 16 bytes of `src` to `dst+16l` with cp.async and arrives
/// .noinc on `bar` (count 32); `extra` is appended to the group.
fn lanes_case(dst_of: impl Fn(u32) -> u32, extra: &str) -> ptxconform_reference::case::Case {
    let mut t = String::from(
        "name: t\ntarget: sm_90\nmemory:\n  global: [ { name: src, size: 512, init: { pattern: 1 } } ]\n  shared: [ { name: dst, size: 512, init: { fill: 0xAA } } ]\n  mbarriers: [ { name: bar } ]\nprogram:\n  - ptx: mbarrier.init.shared::cta.b64 [bar], 32\n",
    );
    for l in 0..32 {
        t += &format!(
            "  - {{ ptx: \"cp.async.cg.shared.global [dst+{}], [src+{}], 16\", thread: {l}, concurrent: w }}\n",
            dst_of(l),
            16 * l
        );
        t += &format!("  - {{ ptx: \"cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar]\", thread: {l}, concurrent: w }}\n");
    }
    t += extra;
    t += "  - wait_parity: { mbar: bar, parity: 0 }\n";
    load_str(&t, "t.yaml")
        .unwrap_or_else(|e| panic!("{e}"))
        .remove(0)
}

#[test]
fn independent_lanes_run_in_one_order() {
    let c = lanes_case(|l| 16 * l, "");
    assert_eq!(schedules(&c).unwrap().len(), 1);
    let e = execute(&c).unwrap();
    assert_eq!(e.outcome, Outcome::Defined);
    // Every copied byte is known after the wait: the source's byte.
    let src = e.final_region("src").unwrap();
    assert_eq!(e.final_region("dst@cta0").unwrap(), src);
}

#[test]
fn dependent_lanes_still_interleave_and_merge() {
    // Lane 1 copies onto lane 0's slice: only those two lanes depend on each other, so
    // C(4, 2) = 6 orders of their 4 steps; the other 30 lanes add none.
    let c = lanes_case(|l| if l == 1 { 0 } else { 16 * l }, "");
    assert_eq!(schedules(&c).unwrap().len(), 6);
    let e = execute(&c).unwrap();
    assert_eq!(e.outcome, Outcome::Defined);
    let src = e.final_region("src").unwrap().to_vec();
    let dst = e.final_region("dst@cta0").unwrap().to_vec();
    let known = |b: Byte| match b {
        Byte::Known(v) => v,
        b => panic!("{b:?}"),
    };
    // Lanes 0 and 1 copy src[0..16] and src[16..32] onto dst[0..16] with overlapping flights:
    // each byte may hold either source byte (where the two differ).
    let (a, b) = (known(src[0]), known(src[16]));
    assert!(a != b && dst[0].allows(a) && dst[0].allows(b) && matches!(dst[0], Byte::OneOf(_)));
    assert!(dst[16..32].iter().all(|b| *b == Byte::Known(0xAA)));
    assert_eq!(dst[32..], src[32..]);
}

#[test]
fn arrivals_that_may_complete_early_are_not_reduced() {
    // Arrive first: the phase completes and the expect-tx counts for phase 1; expect-tx first:
    // the phase stays open. The reduction's check sees the completion before the last update,
    // reruns every order and the differing mbarrier is reported, not one order's state.
    let c = case(
        "  - ptx: mbarrier.init.shared::cta.b64 [bar], 1\n\
         \x20 - { ptx: \"mbarrier.arrive.shared::cta.b64 _, [bar]\", thread: 0, concurrent: p }\n\
         \x20 - { ptx: \"mbarrier.expect_tx.shared::cta.b64 [bar], 16\", thread: 32, concurrent: p }\n",
    );
    assert_eq!(schedules(&c).unwrap().len(), 1);
    let e = execute(&c).expect_err("orders disagree on the mbarrier");
    assert!(
        matches!(&e.kind, ErrorKind::Nondeterministic(m) if m.contains("mbarrier `bar`")),
        "{e:?}"
    );
}

#[test]
fn a_full_cta_of_arrivals_is_one_order() {
    let body: String = (0..128)
        .map(|t| format!("  - {{ ptx: \"mbarrier.arrive.shared::cta.b64 _, [bar]\", thread: {t}, concurrent: a }}\n"))
        .collect();
    let c = case(&format!(
        "  - ptx: mbarrier.init.shared::cta.b64 [bar], 128\n{body}  - wait_parity: {{ mbar: bar, parity: 0 }}\n"
    ));
    assert_eq!(schedules(&c).unwrap().len(), 1);
    assert_eq!(execute(&c).unwrap().outcome, Outcome::Defined);
    // One arrival too many: whichever comes last arrives on phase 1 before any wait, in every
    // order; the order run shows it.
    let over = case(&format!(
        "  - ptx: mbarrier.init.shared::cta.b64 [bar], 127\n{body}"
    ));
    match execute(&over).unwrap().outcome {
        Outcome::Undefined { ub, .. } => assert_eq!(ub.rule, "mbarrier.arrive_before_wait"),
        o => panic!("{o:?}"),
    }
}

mod reduction_is_sound {
    //! The reduced orders (independent threads, commuting mbarrier updates) give the same merged
    //! outcome as every interleaving, on random groups over shared bytes and one mbarrier.
    use super::*;
    use proptest::prelude::*;
    use ptxconform_reference::case::load_str;
    use ptxconform_reference::sem::exec::execute_every_order;

    fn step() -> impl Strategy<Value = String> {
        let off = prop_oneof![Just(0u32), Just(4), Just(8)];
        prop_oneof![
            // Stores name a whole region: 4 or 12 bytes from the start of buf.
            (prop_oneof![Just(4usize), Just(12)], any::<u8>()).prop_map(|(n, v)| {
                format!("store: {{ at: buf, bytes: {:?} }}", vec![v; n])
            }),
            (off, 0u32..8).prop_map(|(o, k)| format!(
                "ptx: \"cp.async.ca.shared.global [buf+{o}], [src+{}], 4\"",
                4 * k
            )),
            Just("ptx: \"cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar]\"".to_string()),
            Just("ptx: \"cp.async.mbarrier.arrive.shared::cta.b64 [bar]\"".to_string()),
            Just("ptx: \"mbarrier.arrive.shared::cta.b64 _, [bar]\"".to_string()),
            Just("ptx: \"mbarrier.arrive.shared::cta.b64 _, [bar], 2\"".to_string()),
            Just("ptx: \"mbarrier.expect_tx.shared::cta.b64 [bar], 16\"".to_string()),
            Just("ptx: \"mbarrier.complete_tx.shared::cta.b64 [bar], 16\"".to_string()),
            Just("ptx: \"mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16\"".to_string()),
            Just("ptx: cp.async.wait_all".to_string()),
            Just("ptx: \"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [src+16], 16, [bar]\"".to_string()),
            Just("ptx: \"mbarrier.arrive.noComplete.shared::cta.b64 _, [bar], 1\"".to_string()),
            Just("ptx: \"mbarrier.arrive.shared::cta.b64 st, [bar]\"".to_string()),
            Just("ptx: \"mbarrier.arrive_drop.shared::cta.b64 _, [bar]\"".to_string()),
            Just("ptx: \"mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0\"".to_string()),
        ]
    }

    fn outcome(
        r: &Result<
            ptxconform_reference::sem::exec::Execution,
            ptxconform_reference::sem::exec::ExecError,
        >,
    ) -> String {
        match r {
            Ok(e) => match &e.outcome {
                Outcome::Defined => format!("defined {:?}", e.final_state),
                Outcome::Undefined { .. } => "undefined".into(),
            },
            Err(e) => format!("error {:?}", std::mem::discriminant(&e.kind)),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(160))]
        #[test]
        fn reduced_orders_merge_like_every_order(
            count in 1u32..5,
            threads in proptest::collection::vec(proptest::collection::vec(step(), 1..3), 2..5),
            wait in any::<bool>(),
        ) {
            let mut t = format!("{HEAD}  - ptx: mbarrier.init.shared::cta.b64 [bar], {count}\n");
            for (i, steps) in threads.iter().enumerate() {
                for s in steps {
                    t += &format!("  - {{ {s}, thread: {}, concurrent: g }}\n", 32 * i);
                }
            }
            if wait {
                t += "  - wait_parity: { mbar: bar, parity: 0 }\n";
            }
            let c = load_str(&t, "t.yaml").unwrap_or_else(|e| panic!("{e}\n{t}")).remove(0);
            prop_assert_eq!(outcome(&execute(&c)), outcome(&execute_every_order(&c)), "{}", t);
        }
    }
}

#[test]
fn corpus_concurrency_cases_take_their_reduced_order_counts() {
    // (case, reduced orders): independent producers take one order; the
    // store race keeps both of its orders.
    let want: &[(&str, usize)] = &[
        ("concurrency.cp_async.lanes_noinc", 1),
        ("concurrency.cp_async.warp_noinc", 1),
        ("concurrency.producers.arrive_count_128", 1),
        ("concurrency.producers.cta_arrive_128", 1),
        ("concurrency.producers.store_then_arrive", 1),
        ("concurrency.bulk.producers_expect_tx", 1),
        ("concurrency.bulk.producers_each_expect", 1),
        ("concurrency.cluster.multicast_into_each_other", 1),
        ("concurrency.store_race", 2),
    ];
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../cases/concurrency");
    let mut seen = Vec::new();
    for f in std::fs::read_dir(dir).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        for c in load_str(&text, &p.display().to_string()).unwrap() {
            let n = schedules(&c).unwrap().len();
            let expected = want.iter().find(|(name, _)| *name == c.name);
            assert_eq!(Some(n), expected.map(|w| w.1), "{}", c.name);
            seen.push(c.name);
        }
    }
    assert_eq!(seen.len(), want.len(), "{seen:?}");
}
