//! A test that needs ptxas and does not find it passes, but says so in the normal `cargo test`
//! output (not only under `--nocapture`); with `PTXCONFORM_REQUIRE_PTXAS` set it fails instead.
//! Checked by running this test binary again on the ptxas-dependent test with `$PTXAS` naming
//! a file that does not exist.

use ptxconform_gpu::ptxas;
use ptxconform_reference::target::Target;
use std::process::{Command, Output};

const MODULE: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\
    .visible .entry k()\n{\n  cp.async.commit_group;\n  cp.async.wait_group 0;\n  ret;\n}\n";

#[test]
fn assembles_a_cp_async_kernel() {
    let Some(p) = ptxas::for_tests() else {
        return;
    };
    assert_eq!(p.assemble(MODULE, Target::SM_80), Ok(()));
}

/// The test above as the test binary names it.
const ASSEMBLES: &str = "ptxas_skip::assembles_a_cp_async_kernel";

/// This binary, run on [`ASSEMBLES`] alone without a ptxas to find.
fn without_ptxas(require: bool) -> Output {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", ASSEMBLES])
        .env("PTXAS", "/nonexistent/ptxconform-test/ptxas")
        .env_remove(ptxas::REQUIRE_ENV);
    if require {
        c.env(ptxas::REQUIRE_ENV, "1");
    }
    c.output().unwrap()
}

#[test]
fn a_skip_is_visible_in_the_normal_output() {
    let out = without_ptxas(false);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains(&format!(
            "note: {ASSEMBLES} SKIPPED its checks: ptxas not found"
        )),
        "{all}"
    );
    assert!(all.contains("/nonexistent/ptxconform-test/ptxas"), "{all}");
    // The README quotes the note (`TEST` for the name, `…` for the reason's detail): its wording
    // must be what the test output shows.
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .unwrap()
        .replace('\n', " ");
    let quoted = readme
        .split('`')
        .find(|s| s.starts_with("note: TEST SKIPPED its checks: ptxas not found"))
        .expect("the README quotes the ptxas skip note");
    let (head, tail) = quoted.split_once('…').unwrap();
    let line = all.lines().find(|l| l.contains(" SKIPPED ")).unwrap();
    assert!(
        line.starts_with(head.replace("TEST", ASSEMBLES).trim_end()) && line.ends_with(tail),
        "README: `{quoted}`\noutput: {line}"
    );
}

#[test]
fn a_required_ptxas_that_is_absent_fails_the_test() {
    let out = without_ptxas(true);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("is set but ptxas not found"));
}
