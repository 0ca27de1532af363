//! `expect: { bytes: .. }`: a case states the final bytes it must leave, checked by
//! `Execution::meets` on the reference (no GPU).

use crate::exec_support::run;
use ptxconform_reference::case::{load_str, Expect};

/// 4 bytes copied into the first half of an 8-byte shared buffer (the rest stays 0xAA); with
/// `wait` false the copy is never waited for, so the 4 bytes stay uncertain.
fn copy(wait: bool) -> String {
    format!(
        "name: c\ntarget: sm_80\nmemory:\n  global: [ {{ name: src, size: 8, init: {{ bytes: [1, 2, 3, 4] }} }} ]\n  \
         shared: [ {{ name: buf, size: 8, init: {{ fill: 0xAA }} }} ]\nprogram:\n  \
         - ptx: cp.async.ca.shared.global [buf], [src], 4\n{}",
        if wait { "  - ptx: cp.async.wait_all\n" } else { "" }
    )
}

/// What `meets` says of `expect: { bytes: { REGION: PATTERN } }` on the reference's execution.
fn check(case_yaml: &str, region: &str, pattern: &str) -> Result<(), String> {
    let x = run(case_yaml);
    let want = [(region.to_string(), pattern.parse().unwrap())].into();
    x.meets(Some(&Expect::Bytes(want)))
}

#[test]
fn exact_open_and_dont_care_patterns_meet() {
    let c = copy(true);
    for p in [
        "01020304aaaaaaaa",
        "0102 0304 aaaa aaaa",
        "01020304..",
        "01??03??..",
        "..",
    ] {
        assert_eq!(check(&c, "buf@cta0", p), Ok(()), "{p}");
    }
    assert_eq!(check(&c, "src", "0102030400000000"), Ok(()));
}

#[test]
fn a_wrong_byte_is_named_by_region_and_offset() {
    let e = check(&copy(true), "buf@cta0", "01020305..").unwrap_err();
    assert!(e.contains("`buf@cta0` byte 3"), "{e}");
    assert!(e.contains("0x05") && e.contains("0x04"), "{e}");
}

#[test]
fn an_uncertain_byte_meets_no_expected_value() {
    // Never waited for: each byte is {0xaa, new}. Both candidates fail, the old and the new.
    for p in ["01..", "aa.."] {
        let e = check(&copy(false), "buf@cta0", p).unwrap_err();
        assert!(
            e.contains("`buf@cta0` byte 0") && e.contains("uncertain"),
            "{e}"
        );
    }
    // Bytes the copy does not write are still exactly known.
    assert_eq!(check(&copy(false), "buf@cta0", "????????aaaaaaaa"), Ok(()));
}

#[test]
fn lengths_and_names_are_checked() {
    let c = copy(true);
    let e = check(&c, "buf@cta0", "01020304").unwrap_err();
    assert!(e.contains("expected 4 bytes") && e.contains("has 8"), "{e}");
    let e = check(&c, "buf@cta0", "01020304aaaaaaaa00..").unwrap_err();
    assert!(e.contains("or more"), "{e}");
    for missing in ["buf", "buf@cta1", "nope"] {
        let e = check(&c, missing, "..").unwrap_err();
        assert!(e.contains("no such region"), "{missing}: {e}");
    }
}

#[test]
fn undefined_behaviour_does_not_meet_expected_bytes() {
    let ub = copy(true).replace("[buf], [src]", "[buf+1], [src]");
    let e = check(&ub, "buf@cta0", "..").unwrap_err();
    assert!(e.contains("expected well defined"), "{e}");
}

#[test]
fn loader_reads_the_form_and_locates_bad_patterns() {
    let text = format!(
        "{}expect: {{ bytes: {{ buf@cta0: 01020304.., src: \"01 ?? ..\" }} }}\n",
        copy(true)
    );
    let c = &load_str(&text, "t.yaml").unwrap()[0];
    let Some(Expect::Bytes(m)) = &c.expect else {
        panic!("{:?}", c.expect)
    };
    assert_eq!(m["src"].to_string(), "01??..");
    let x = ptxconform_reference::sem::exec::execute(c).unwrap();
    assert_eq!(x.meets(c.expect.as_ref()), Ok(()));

    let bad = format!("{}expect: {{ bytes: {{ buf@cta0: 01x2 }} }}\n", copy(true));
    let e = load_str(&bad, "t.yaml").unwrap_err();
    assert_eq!(e.file, "t.yaml");
    assert!(e.line >= 6 && e.message.contains("bad byte"), "{e}");
}

#[test]
fn loader_locates_regions_that_do_not_fit_the_expected_bytes() {
    for (bytes, says) in [
        ("nope: ..", "not a global region"),
        ("buf: ..", "`buf@cta0`"),
        ("buf@cta1: ..", "CTA 1 is not in the grid"),
        ("src: 0102", "end the pattern with `..`"),
        ("buf@cta0: 000000000000000000..", "9 expected bytes"),
    ] {
        let text = format!("{}expect:\n  bytes:\n    {bytes}\n", copy(true));
        let e = load_str(&text, "t.yaml").unwrap_err();
        assert!(e.message.contains(says), "{bytes}: {e}");
        // At the pattern: line 11 of the text, after `    KEY: `.
        let key = bytes.split(':').next().unwrap();
        assert_eq!((e.line, e.col), (11, key.len() + 7), "{bytes}: {e}");
    }
}

/// Written back (`run --record` rewrites case files), expected bytes read the same, digits-only
/// patterns included (the writer must quote them).
#[test]
fn expected_bytes_survive_a_yaml_round_trip() {
    let text = format!(
        "{}expect: {{ bytes: {{ buf@cta0: \"01020304aaaaaaaa\", src: \"01 ?? ..\" }} }}\n",
        copy(true)
    );
    let cases = load_str(&text, "t.yaml").unwrap();
    let back = ptxconform_reference::case::to_yaml(&cases);
    assert_eq!(load_str(&back, "back.yaml").unwrap(), cases, "{back}");
}
