//! Concurrent step groups (A-EXEC-CONCURRENT-INTERLEAVINGS): how many orders run, how their
//! final bytes merge, UB in one order, and the located validation errors.

use ptxconform_reference::case::load_str;
use ptxconform_reference::sem::exec::concurrent::{schedules, MAX_ORDERS};
use ptxconform_reference::sem::exec::{execute, Outcome};
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
    assert_eq!(schedules(&c).unwrap().len(), 6);
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
