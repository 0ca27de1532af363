//! The case set a run selected, before sharding: recorded in every shard's results, so that
//! `merge` tells the shards of one run from a lost, doubled or foreign one.

use super::select::SelectArgs;
use ptxconform_core::corpus::{LoadError, Loaded};
use ptxconform_core::hash::{fnv1a128, FNV128_OFFSET};
use ptxconform_core::result::{CaseSet, Selection};
use ptxconform_reference::case::Case;
use std::path::PathBuf;

/// The case set of `cases` and `errors` (every selected case, every case or file that did not
/// load), selected by `paths` and `select`.
pub fn case_set(
    paths: &[PathBuf],
    select: &SelectArgs,
    cases: &[Loaded],
    errors: &[LoadError],
) -> CaseSet {
    let shown = |ps: &[PathBuf]| ps.iter().map(|p| p.display().to_string()).collect();
    CaseSet {
        selection: Selection {
            paths: shown(paths),
            filter: select.filter.clone(),
            exclude: select.exclude.clone(),
            case_list: shown(&select.case_list),
        },
        cases: cases.len() + errors.len(),
        fingerprint: fingerprint(cases, errors),
    }
}

/// A stable hash of every case's file, name and content (recorded observations left out: a
/// sharded `--record` run writes them into the files while later shards load), and of the file
/// and place of every load error, in a fixed order.
fn fingerprint(cases: &[Loaded], errors: &[LoadError]) -> String {
    let mut entries: Vec<String> = cases
        .iter()
        .map(|l| {
            let content = Case {
                observed: Vec::new(),
                ..l.case.clone()
            };
            // Serializing a case cannot fail (no maps with non-string keys); should it, the
            // identity alone still separates case sets.
            let json = serde_json::to_string(&content).unwrap_or_default();
            format!("case\0{}\0{}\0{json}", l.file, l.case.name)
        })
        .chain(
            errors
                .iter()
                .map(|e| format!("error\0{}\0{}", e.file, e.at)),
        )
        .collect();
    entries.sort();
    let h = entries.iter().fold(FNV128_OFFSET, |h, e| {
        fnv1a128(fnv1a128(h, e.as_bytes()), b"\n")
    });
    format!("{h:032x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxconform_reference::case::load_str;

    fn loaded(file: &str, yaml: &str) -> Loaded {
        Loaded {
            file: file.into(),
            case: load_str(yaml, file).unwrap().remove(0),
        }
    }

    const A: &str = "name: a\ntarget: sm_90a\nprogram: [ { ptx: cp.async.wait_all } ]\n";
    const B: &str = "name: b\ntarget: sm_90a\nprogram: [ { ptx: cp.async.wait_all } ]\n";

    /// The fingerprint is of the set (not its order), and changes with a case's file, name or
    /// content, not with its recorded observations.
    #[test]
    fn fingerprint_is_of_the_set_and_its_content() {
        let set = |cs: &[Loaded]| case_set(&[], &SelectArgs::default(), cs, &[]);
        let (a, b) = (loaded("x.yaml", A), loaded("x.yaml", B));
        let ab = set(&[loaded("x.yaml", A), loaded("x.yaml", B)]);
        assert_eq!(ab.cases, 2);
        assert_eq!(ab.fingerprint.len(), 32);
        assert_eq!(ab, set(&[b, a]), "order does not matter");
        assert_ne!(ab.fingerprint, set(&[loaded("x.yaml", A)]).fingerprint);
        let moved = set(&[loaded("y.yaml", A), loaded("x.yaml", B)]);
        assert_ne!(ab.fingerprint, moved.fingerprint);
        let edited = A.replace("sm_90a", "sm_80");
        let other = set(&[loaded("x.yaml", &edited), loaded("x.yaml", B)]);
        assert_ne!(ab.fingerprint, other.fingerprint);
        let observed = "observed:\n- { device: X, driver: CUDA 13.0, date: \"2026-11-21\", outcome: completed }\n";
        let recorded = loaded("x.yaml", &format!("{A}{observed}"));
        assert_eq!(recorded.case.observed.len(), 1);
        assert_eq!(ab, set(&[recorded, loaded("x.yaml", B)]));
        let broken = LoadError {
            file: "z.yaml".into(),
            at: "<file>".into(),
            message: "bad".into(),
        };
        let with_error = case_set(
            &[],
            &SelectArgs::default(),
            &[loaded("x.yaml", A), loaded("x.yaml", B)],
            &[broken],
        );
        assert_eq!(with_error.cases, 3);
        assert_ne!(ab.fingerprint, with_error.fingerprint);
    }

    #[test]
    fn the_selection_is_recorded_as_given() {
        let select = SelectArgs {
            filter: vec!["bulk*".into()],
            exclude: vec![],
            case_list: vec!["must.txt".into()],
        };
        let s = case_set(&["cases/bulk".into()], &select, &[], &[]);
        assert_eq!(
            s.selection.to_string(),
            "cases/bulk --filter bulk* --case-list must.txt"
        );
    }
}
