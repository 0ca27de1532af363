//! `ptxconform explain` through the built binary: what a user meets when the request cannot be
//! met (no tensor load to draw, a case name the file lacks, a file without cases).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn example(f: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../cases/examples")
        .join(f)
}

fn explain(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxconform"))
        .arg("explain")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn unmet_requests_are_errors_before_any_trace() {
    let file = example("cp_async_copy.yaml");
    let svg = std::env::temp_dir().join(format!("ptxc-explain-{}.svg", std::process::id()));
    let o = explain(&[file.as_os_str(), "--svg".as_ref(), svg.as_os_str()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--svg: no tensor load to draw"), "{err}");
    assert!(o.stdout.is_empty(), "no trace before the refusal");
    assert!(!svg.exists());

    let o = explain(&[file.as_os_str(), "--case".as_ref(), "nope".as_ref()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no case named nope (the file has 1 case;"),
        "{err}"
    );

    // The trace itself says what silicon is expected to do in words.
    let o = explain(&[file.as_os_str()]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("hardware expected: completes"), "{out}");
}
