//! `ptxconform emit CASE_FILE [--case NAME]` (the function behind the subcommand).

use ptxconform::commands::emit::{render, EmitArgs};
use std::path::{Path, PathBuf};

fn example(f: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../cases/examples")
        .join(f)
}

#[test]
fn single_case_file_prints_its_kernel() {
    let ptx = render(&EmitArgs {
        file: example("cp_async_copy.yaml"),
        case: None,
    })
    .unwrap();
    assert!(ptx.starts_with(".version 7.0\n.target sm_80\n"), "{ptx}");
    assert!(ptx.contains("cp.async.cg.shared.global"));
}

#[test]
fn many_case_file_needs_a_name() {
    let file = example("mbarrier_phase.yaml");
    let e = render(&EmitArgs {
        file: file.clone(),
        case: None,
    })
    .unwrap_err();
    assert!(
        e.contains("--case") && e.contains("examples.mbarrier.two_arrivals"),
        "{e}"
    );
    let ptx = render(&EmitArgs {
        file: file.clone(),
        case: Some("examples.mbarrier.missing_arrival".into()),
    })
    .unwrap();
    assert!(ptx.contains("mbarrier.try_wait.parity"));
    let e = render(&EmitArgs {
        file,
        case: Some("nope".into()),
    })
    .unwrap_err();
    assert!(e.contains("no case `nope`"), "{e}");
    assert!(render(&EmitArgs {
        file: example("missing.yaml"),
        case: None
    })
    .is_err());
}

#[test]
fn a_file_without_cases_says_so() {
    let file = std::env::temp_dir().join(format!("ptxc-emit-empty-{}.yaml", std::process::id()));
    std::fs::write(&file, "# nothing yet\n").unwrap();
    let e = render(&EmitArgs {
        file: file.clone(),
        case: None,
    })
    .unwrap_err();
    let _ = std::fs::remove_file(&file);
    assert!(e.ends_with(": no cases"), "{e}");
}
