//! `ptxconform run` as a shell user meets it: behind a pipe that closes early (`run | head`), with
//! nothing to run, with `--record` and no GPU.

use std::process::{Command, Stdio};

#[test]
fn a_closed_pipe_ends_the_run_without_a_panic() {
    let out = std::env::temp_dir().join(format!("ptxc-pipe-{}", std::process::id()));
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxconform"))
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
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader is gone before the run prints anything (as `head` is once it has its lines).
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        matches!(o.status.code(), Some(0 | 1 | 141)),
        "{:?}",
        o.status
    );
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
            "no cases with `no-such-case-name`",
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
