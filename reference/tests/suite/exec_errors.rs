//! Executor: case-level errors carry the step index; the trace prints what each step touched.

use crate::exec_support::*;
use ptxconform_reference::sem::exec::{execute, ErrorKind};

fn prog(body: &str) -> String {
    format!("name: t\ntarget: sm_90a\nparams: {{ n: 4, p: {{ value: 1, type: pred }} }}\nmemory:\n  global:\n    - {{ name: src, size: 64 }}\n  shared:\n    - {{ name: buf, size: 64, init: {{ fill: 0xAA }} }}\nprogram:\n  - ptx: cp.async.commit_group\n{body}")
}

fn err(body: &str) -> (Option<usize>, ErrorKind) {
    let e = execute(&case(&prog(body))).expect_err("case error expected");
    (e.step, e.kind)
}

#[test]
fn case_errors_name_the_step() {
    assert!(
        matches!(err("  - ptx: cp.async.ca.shared.global [nope], [src], 4\n"), (Some(1), ErrorKind::UnknownName(n)) if n == "nope")
    );
    assert!(matches!(
        err("  - ptx: cp.async.ca.shared.global [buf], [src], 4, 5, 6, 7\n"),
        (Some(1), ErrorKind::Parse(_))
    ));
    // a shared region where .global is required; a number where an address is required
    assert!(matches!(
        err("  - ptx: cp.async.ca.shared.global [buf], [buf], 4\n"),
        (Some(1), ErrorKind::OperandKind(_))
    ));
    assert!(matches!(
        err("  - ptx: cp.async.ca.shared.global [n], [src], 4\n"),
        (Some(1), ErrorKind::OperandKind(_))
    ));
    assert!(matches!(
        err("  - ptx: cp.async.ca.shared.global [buf], [src], 4, unbound\n"),
        (Some(1), ErrorKind::UnboundRegister(_))
    ));
    assert!(matches!(
        err("  - { cta: 3, ptx: cp.async.commit_group }\n"),
        (Some(1), ErrorKind::Launch(_))
    ));
}

#[test]
fn guarded_step_and_trace_text() {
    let x = defined(&prog("  - ptx: \"@!p cp.async.ca.shared.global [buf+1], [src], 4\"\n  - ptx: cp.async.ca.shared.global [buf], [src], 4\n"));
    // The guard is false: the misaligned copy does not execute.
    assert!(x.trace[1].touched.is_empty());
    let text = x.trace[2].to_string();
    assert!(
        text.contains("#2 cta 0 thread 0: cp.async.ca.shared.global [buf], [src], 4"),
        "{text}"
    );
    assert!(text.contains("Issue cta0:buf[0..4) uncertain"), "{text}");
    assert!(text.contains("Read src[0..4) exact"), "{text}");
}
