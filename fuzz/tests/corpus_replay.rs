//! Replays the `ptxas` target's corpus (`fuzz/corpus/ptxas/`) through the target's own glue
//! ([`ptxconform_fuzz::check_ptxas`]) so CI covers it without cargo-fuzz. Skipped (with a line
//! saying so) where ptxas is not installed; CI installs it. The other targets' corpora are
//! replayed by `reference/tests/suite/fuzz_corpus_replay.rs`.

use ptxconform_reference::gen::generate_input;
use std::path::PathBuf;

#[test]
fn ptxas_target_corpus() {
    let Some(p) = ptxconform_fuzz::ptxas() else {
        assert!(
            std::env::var_os("PTXCONFORM_REQUIRE_PTXAS").is_none(),
            "ptxas required but not found"
        );
        ptxconform_gpu::test_support::note(
            "ptxas not found: corpus replay skipped",
            ptxconform_gpu::ptxas::REQUIRE_ENV,
        );
        return;
    };
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus/ptxas");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for f in files {
        let g = generate_input(&std::fs::read(&f).unwrap(), ptxconform_fuzz::config());
        if let Err(v) = ptxconform_fuzz::check_ptxas(p, &g) {
            panic!("{}: {v}", f.display());
        }
    }
}
