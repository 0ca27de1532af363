//! The `syntax` subcommand reports errors as FILE:LINE:COL and exits 1.

use std::io::Write;
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ptxconform"))
}

#[test]
fn bad_line_in_file_is_located() {
    let dir = std::env::temp_dir().join(format!("ptxconform-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.ptx");
    std::fs::write(
        &f,
        ".reg .b64 %rd<4>;\n\n    cp.async.bulk.nonsense [%rd1], [%rd2, 16;\n",
    )
    .unwrap();
    let out = bin().arg("syntax").arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let want = format!("{}:3:", f.display());
    assert!(err.starts_with(&want), "stderr: {err}");
    assert!(err.contains(": error: expected "), "stderr: {err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `syntax` on standard input: (exit code, stdout, stderr).
fn syntax_stdin(src: &str) -> (Option<i32>, String, String) {
    let mut child = bin()
        .arg("syntax")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(src.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn stdin_is_read_and_named() {
    // An unmodelled instruction is kept and marked; a malformed modelled one is a located error.
    let (code, out, err) = syntax_stdin(
        "  foo.bar %r1;
  cp.async.ca.shared.global [a], [b, 16;
",
    );
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(out, "foo.bar %r1;  // skipped: not modelled\n");
    assert!(
        err.starts_with("<stdin>:2:38: error: expected "),
        "stderr: {err}"
    );
    assert!(
        err.ends_with("<stdin>: 0 modelled instructions, 1 skipped (not modelled), 1 errors\n"),
        "stderr: {err}"
    );
}

#[test]
fn nothing_is_dropped_after_a_directive_or_a_brace_line() {
    // Before the module reader, both instructions were swallowed into the directive before them
    // and vanished with exit code 0.
    let (code, out, err) = syntax_stdin(
        ".version 8.0\n.target sm_90\n.visible .entry k()\n{\ncp.async.commit_group;\n  {\nfence.proxy.async.shared::cta;\n  }\n}\n",
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        ".version 8.0\n.target sm_90\n.visible .entry k()\n{\n    cp.async.commit_group;\n    {\n        fence.proxy.async.shared::cta;\n    }\n}\n"
    );
    // The same without indentation or a function: a brace line, then a directive line.
    let (code, out, err) =
        syntax_stdin("{\ncp.async.wait_all;\n}\n.version 8.0\ncp.async.commit_group;\n");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        "{\n    cp.async.wait_all;\n}\n.version 8.0\ncp.async.commit_group;\n"
    );
}

/// The devices row compares one device with several: with fewer than two it fails, naming
/// what it needs, and writes no figures.
#[test]
fn bench_devices_needs_two_devices() {
    let json =
        std::env::temp_dir().join(format!("ptxconform-bench-dev-{}.json", std::process::id()));
    let out = bin()
        .args(["bench", "--reference-only", "--only", "devices", "--out"])
        .arg(&json)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("bench --only devices: 0 device(s) found")
            && stderr.contains("`--devices 0,1`"),
        "{stderr}"
    );
    assert!(!json.exists());
}

#[test]
fn bench_reference_only_writes_its_figures() {
    let out = bin().args(["bench", "--anything"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown flag is a usage error"
    );

    let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/../cases");
    let (stdout, v) = bench_json(
        "ref",
        &["--reference-only", "--cases", "64", "--corpus", corpus],
    );
    assert!(stdout.contains("cp.async.bulk.tensor tile"), "{stdout}");
    let fams = v["families"].as_array().unwrap();
    assert_eq!(fams.len(), 5);
    for f in fams {
        assert!(f["reference_per_s"].as_f64().unwrap() > 0.0, "{f}");
        let one = f["reference_one_thread_per_s"].as_f64().unwrap();
        let worth = f["reference_threads_worth"].as_f64().unwrap();
        assert!(one > 0.0, "{f}");
        let all = f["reference_per_s"].as_f64().unwrap();
        assert!((worth - all / one).abs() < 1e-6 * worth.max(1.0), "{f}");
        assert!(
            f["end_to_end_per_s"].is_null(),
            "no GPU rate without a GPU: {f}"
        );
    }
}

/// `ptxconform bench ARGS --out FILE` (FILE in the temp folder, named for `tag`): it exits 0;
/// its stdout and the JSON it wrote.
fn bench_json(tag: &str, args: &[&str]) -> (String, serde_json::Value) {
    let json = std::env::temp_dir().join(format!(
        "ptxconform-bench-{tag}-{}.json",
        std::process::id()
    ));
    let out = bin()
        .arg("bench")
        .args(args)
        .arg("--out")
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    (stdout, v)
}

#[test]
fn good_line_printed_canonically() {
    // Extra spaces and a comment go; the instruction comes back in canonical form.
    let mut child = bin()
        .arg("syntax")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes  [d] ,[m, {x,y}], [b]; // c\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [d], [m, {x, y}], [b];\n"
    );
}

/// `bench --only fuzz-host --fuzz-mixes all` over the repository's corpus and known findings,
/// with `more` arguments: its standard output and its JSON.
fn bench_fuzz_host(tag: &str, more: &[&str]) -> (String, serde_json::Value) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let (cases, known) = (
        format!("{root}/cases"),
        format!("{root}/reports/known-divergences.yaml"),
    );
    let mut args = vec!["--only", "fuzz-host", "--fuzz-mixes", "all"];
    args.extend_from_slice(&["--corpus", &cases, "--known", &known]);
    args.extend_from_slice(more);
    bench_json(tag, &args)
}

/// Where ptxas is found, the host-only fuzz row compiles each block's new shapes as a device's
/// engine would and prices ptxas's CPU a program beside the process's own.
#[test]
fn bench_fuzz_host_prices_ptxas() {
    if ptxconform_gpu::ptxas::for_tests().is_none() {
        return;
    }
    let (stdout, v) = bench_fuzz_host("host", &["--fuzz-programs", "2048"]);
    assert!(stdout.contains("ptxas ms/prog"), "{stdout}");
    let row = &v["fuzz_host"][0];
    assert_eq!(row["programs"].as_u64(), Some(2048), "{row}");
    assert!(row["modules"].as_u64().unwrap() > 0, "{row}");
    assert!(row["compile_s"].as_f64().unwrap() > 0.0, "{row}");
    if cfg!(target_os = "linux") {
        assert!(row["ptxas_ms_per_program"].as_f64().unwrap() > 0.0, "{row}");
        assert!(row["cpu_ms_per_program"].as_f64().unwrap() > 0.0, "{row}");
    }
}

/// `--fuzz-rounds`: each round of a mix is a line and an entry of its own, on programs of its
/// own (seeds differ), and the mix's median over them is printed and kept.
#[test]
fn bench_fuzz_rounds_report_the_median() {
    let more = ["--fuzz-programs", "256", "--fuzz-rounds", "3"];
    let (stdout, v) = bench_fuzz_host("rounds", &more);
    let rows = v["fuzz_host"].as_array().unwrap();
    let rounds: Vec<u64> = rows.iter().map(|r| r["round"].as_u64().unwrap()).collect();
    assert_eq!(rounds, vec![0, 1, 2], "{v}");
    let seeds: std::collections::BTreeSet<u64> =
        rows.iter().map(|r| r["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds.len(), 3, "{v}");
    let mut rates: Vec<f64> = rows
        .iter()
        .map(|r| r["programs_per_s"].as_f64().unwrap())
        .collect();
    rates.sort_by(f64::total_cmp);
    let sum = &v["fuzz_rounds"][0];
    assert_eq!(sum["row"], "fuzz-host", "{sum}");
    assert_eq!(sum["rounds"].as_u64(), Some(3), "{sum}");
    let spread = &sum["programs_per_s"];
    let got = ["min", "median", "max"].map(|k| spread[k].as_f64().unwrap());
    assert_eq!(got, [rates[0], rates[1], rates[2]], "{sum}");
    assert!(stdout.contains("all #3 "), "{stdout}");
    assert!(stdout.contains("all, median of 3 rounds: "), "{stdout}");
}
