//! `ptxconform legality` end to end: its JSON figures add up, and bad options are errors.

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ptxconform"))
}

fn ptxas_present() -> bool {
    ptxconform_gpu::ptxas::for_tests().is_some()
}

#[test]
fn json_figures_add_up() {
    if !ptxas_present() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("ptxconform-leg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (json, ex) = (dir.join("l.json"), dir.join("ex.yaml"));
    std::fs::write(
        &ex,
        "exceptions:\n  - row: no.such.row\n    reason: assembler_quirk\n    note: never matches\n\
         \x20 - row: cp.async.ca.*\n    targets: [sm_80]\n    reason: assembler_quirk\n    note: not on sm_90a\n",
    )
    .unwrap();
    let out = bin()
        .args(["legality", "--targets", "sm_90a", "--jobs", "2", "--json"])
        .arg(&json)
        .arg("--exceptions")
        .arg(&ex)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let total = &v["total"];
    let n = |t: &serde_json::Value, k: &str| t[k].as_u64().unwrap();
    for part in ["targets", "boundary"] {
        let t = &total[part];
        assert_eq!(
            n(t, "agreed") + n(t, "disagreements"),
            n(t, "assembled"),
            "{part}"
        );
        assert_eq!(
            n(t, "listed") + n(t, "unexplained"),
            n(t, "disagreements"),
            "{part}"
        );
    }
    assert_eq!(
        n(&total["targets"], "assembled"),
        n(total, "variants"),
        "one pair per variant on one target"
    );
    let unexplained = n(&total["targets"], "unexplained") + n(&total["boundary"], "unexplained");
    assert_eq!(
        v["disagreements"].as_array().unwrap().len() as u64,
        unexplained,
        "nothing is listed"
    );
    assert_eq!(
        out.status.code(),
        Some(if unexplained > 0 { 1 } else { 0 }),
        "{stdout}"
    );
    assert!(
        stdout.contains("stale exception (no longer occurs): row=no.such.row"),
        "{stdout}"
    );
    // An exception about a variant may concern a target this run left out: not called stale.
    assert!(
        stdout.contains("exception not met on these targets (stale only if a run on sm_80,sm_90a,sm_100a does not meet it either): row=cp.async.ca.*"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_target_is_an_error() {
    let out = bin()
        .args(["legality", "--targets", "sm80"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sm80"));
}

#[test]
fn family_filter_names_a_family_or_fails() {
    let out = bin()
        .args(["legality", "--family", "no.such.family"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--family no.such.family: no family's name contains it")
            && err.contains("tensormap.replace"),
        "{err}"
    );
    if !ptxas_present() {
        return;
    }
    // Exceptions about the families left out are neither met nor called stale.
    let out = bin()
        .args([
            "legality",
            "--family",
            "tensormap",
            "--targets",
            "sm_80,sm_90a,sm_100a",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(!stdout.contains("exception"), "{stdout}");
    assert!(
        stdout.contains("tensormap.replace ") && !stdout.contains("mbarrier"),
        "{stdout}"
    );
}
