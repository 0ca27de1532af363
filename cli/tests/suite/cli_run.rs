//! `ptxconform run` as a shell user meets it: behind a pipe that closes early (`run | head`), with
//! nothing to run, with `--record` and no GPU.

use std::process::{Command, Stdio};

/// The reader is gone before the run prints anything (as `head` is once it has its lines): the
/// run ends with the status of a process killed by SIGPIPE, not a panic. The pipe's reading end is
/// closed before the spawn, so the first write fails every time.
#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    let out = std::env::temp_dir().join(format!("ptxc-pipe-{}", std::process::id()));
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = Command::new(env!("CARGO_BIN_EXE_ptxconform"))
        .args([
            "run",
            "--reference-only",
            "--filter",
            "cp_async.ca.4",
            "--out",
        ])
        .arg(&out)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .env("CI", "1")
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    // A panic (std's `println!`) would end it with 101 and a message on stderr.
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(141), "{err}");
    std::fs::remove_dir_all(out).ok();
}

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ptxconform"))
        .arg("run")
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .env("CI", "1")
        .output()
        .unwrap()
}

/// Nothing to run is an error that says why, not "0 cases" and success.
#[test]
fn nothing_to_run_is_an_error() {
    let empty = std::env::temp_dir().join(format!("ptxc-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let out = empty.join("out").display().to_string();
    for (args, says) in [
        (
            vec!["--filter", "no-such-case-name"],
            "no cases selected by --filter `no-such-case-name`",
        ),
        (vec![empty.to_str().unwrap()], "no cases in"),
        (
            vec!["--record", "--reference-only", "--filter", "cp_async.ca.4"],
            "needs a GPU",
        ),
    ] {
        let mut a = args.clone();
        a.extend(["--out", out.as_str()]);
        let o = run(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(empty).ok();
}

/// A file with bad cases: every bad case is a failure of its own, with its place; the good
/// cases of the same file still run.
#[test]
fn bad_cases_lose_no_good_case() {
    let dir = std::env::temp_dir().join(format!("ptxc-badcases-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mixed.yaml");
    std::fs::write(
        &file,
        "\
- name: good
  target: sm_90a
  program: [ { ptx: cp.async.wait_all } ]
- name: typo
  target: sm_90a
  progrm: [ { ptx: cp.async.wait_all } ]
- name: undeclared
  target: sm_90a
  program: [ { ptx: \"cp.async.ca.shared.global [nope], [src], 4\" } ]
",
    )
    .unwrap();
    let out = dir.join("out");
    let o = run(&[
        file.to_str().unwrap(),
        "--reference-only",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let got: Vec<(String, String)> = s["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["case"].as_str().unwrap().into(),
                r["verdict"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want = [
        ("<case 1>", "reference_fail"),
        ("<case 2>", "reference_fail"),
        ("good", "reference_pass"),
    ];
    assert_eq!(
        got,
        want.map(|(a, b)| (a.to_string(), b.to_string())).to_vec()
    );
    let detail = s["results"][1]["detail"].as_str().unwrap();
    assert!(
        detail.contains("mixed.yaml:9:") && detail.contains("`src`"),
        "{detail}"
    );
    std::fs::remove_dir_all(dir).ok();
}
