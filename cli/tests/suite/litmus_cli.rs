//! `ptxconform litmus` through the built binary: without a GPU it says so and exits 2; with one
//! (else skipped, unless `PTXCONFORM_REQUIRE_GPU` is set) a small campaign on the engine runs
//! every planned launch and judges every instance.

use std::process::Command;

/// `ptxconform litmus ARGS --out OUT` on a case of `cases/litmus/races.yaml`.
fn litmus(case: &str, out: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ptxconform"))
        .arg("litmus")
        .arg(format!("cases/litmus/races.yaml:{case}"))
        .args(args)
        .arg("--out")
        .arg(out)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .unwrap()
}

#[test]
fn a_litmus_campaign_runs_every_launch_on_the_gpu() {
    let out = std::env::temp_dir().join(format!("ptxc-litmus-{}", std::process::id()));
    let args = [
        "--instances",
        "100",
        "--per-launch",
        "16",
        "--stress",
        "shuffle",
    ];
    let o = litmus("litmus.cp_async.no_wait", &out, &args);
    let stdout = String::from_utf8_lossy(&o.stdout);
    if let Err(e) = ptxconform_gpu::device::gpu_available() {
        assert!(
            std::env::var_os("PTXCONFORM_REQUIRE_GPU").is_none(),
            "GPU required: {e}"
        );
        assert_eq!(o.status.code(), Some(2), "{stdout}");
        assert!(stdout.contains("litmus needs a GPU"), "{stdout}");
        ptxconform_gpu::test_support::note(&format!("no GPU: {e}"), "PTXCONFORM_REQUIRE_GPU");
        return;
    }
    assert_eq!(o.status.code(), Some(0), "{stdout}");
    let text = std::fs::read_to_string(out.join("litmus.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let c = &json["cases"][0];
    assert_eq!(
        (c["instances"].as_u64(), c["not_observed"].as_u64()),
        (Some(100), Some(0))
    );
    // Shuffled launches of 8..=16 instances: at least 7, at most 13.
    let launches = c["launches"].as_u64().unwrap();
    assert!((7..=13).contains(&launches), "{launches}");
    let seen: u64 = c["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["count"].as_u64().unwrap())
        .sum();
    assert_eq!(seen, 100, "{text}");
    std::fs::remove_dir_all(out).ok();
}
