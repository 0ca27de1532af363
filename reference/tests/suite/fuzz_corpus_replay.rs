//! Replays every file of the CPU fuzz targets' corpora (`fuzz/corpus/<target>/`) through the same
//! checks the targets make (`fuzz/fuzz_targets/*.rs`), so CI covers the corpus without cargo-fuzz.
//! The `ptxas` target's corpus is replayed by `fuzz/tests/corpus_replay.rs` (it needs the harness).

use ptxconform_reference::gen::oracle::{check_cpu, Oracle, YamlRoundTrip};
use ptxconform_reference::gen::{generate_input, GenConfig};
use std::path::PathBuf;

/// The files of one target's corpus (libFuzzer's temporary files skipped).
fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "empty corpus {}", dir.display());
    files
        .into_iter()
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect()
}

/// The config of the generated-case targets (`ptxconform_fuzz::config`).
fn config() -> GenConfig {
    GenConfig::mixed()
}

#[test]
fn reference_target_corpus() {
    for (p, data) in corpus("reference") {
        let g = generate_input(&data, &config());
        if let Err(v) = check_cpu(&g) {
            panic!("{}: {v}", p.display());
        }
    }
}

#[test]
fn yaml_roundtrip_target_corpus() {
    for (p, data) in corpus("yaml_roundtrip") {
        let g = generate_input(&data, &config());
        if let Err(v) = YamlRoundTrip.check(&g) {
            panic!("{}: {v}", p.display());
        }
    }
}

#[test]
fn yaml_bytes_target_corpus() {
    let mut loaded = 0;
    for (_, data) in corpus("yaml_bytes") {
        loaded += usize::from(ptxconform_reference::case::load_bytes(&data, "fuzz").is_ok());
        if let Ok(text) = std::str::from_utf8(&data) {
            let _ = ptxconform_reference::case::check_str(text, "fuzz");
        }
    }
    assert!(loaded > 0, "the YAML seeds are valid cases");
}
