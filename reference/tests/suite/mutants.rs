//! Every mutant of the schema (sem::mutant) changes what the reference does on some input: a
//! corpus case (`cases/mutants/` holds cases written for mutants the rest does not tell apart),
//! or the reference-only case in `mutants/`. A mutant that changes nothing anywhere is a bug of
//! the schema.
#![cfg(feature = "mutants")]

use ptxconform_reference::case::{load_dir, Case};
use ptxconform_reference::sem::exec::{execute_with, ExecOptions, Execution};
use ptxconform_reference::sem::mutant::{reached, Mutant, Unobservable};
use ptxconform_reference::sem::profile::Profile;
use std::path::Path;

/// Every case under `dir`, named `FILE:CASE` (files that do not load are the corpus tests' to
/// report).
fn cases(dir: &Path) -> Vec<(String, Case)> {
    load_dir(dir)
        .into_iter()
        .filter_map(|(f, r)| Some((f, r.ok()?)))
        .flat_map(|(f, cs)| {
            cs.into_iter()
                .map(move |c| (format!("{}:{}", f.display(), c.name), c))
        })
        .collect()
}

/// What an execution shows: its outcome, final state, predicted ending and driver verdicts (the
/// trace and notes are how it got there).
fn shown(ex: &Result<Execution, String>) -> String {
    match ex {
        Ok(x) => format!(
            "{:?} {:?} {:?} {:?}",
            x.outcome, x.final_state, x.expected_hw, x.driver_rejects
        ),
        Err(e) => e.clone(),
    }
}

fn run(case: &Case, mutant: Option<Mutant>) -> Result<Execution, String> {
    let opts = ExecOptions {
        mutant,
        ..ExecOptions::of(Profile::Sm90)
    };
    execute_with(case, opts).map_err(|e| e.to_string())
}

/// The first case of `cases` whose execution the mutant changes, for every mutant.
fn witnesses(cases: &[(String, Case)]) -> Vec<Option<String>> {
    let mut found: Vec<Option<String>> = vec![None; Mutant::ALL.len()];
    for (name, case) in cases {
        let (base, hit) = reached(|| run(case, None));
        let base = shown(&base);
        for m in hit {
            if found[m as usize].is_none() && shown(&run(case, Some(m))) != base {
                found[m as usize] = Some(name.clone());
            }
        }
    }
    found
}

/// A mutant counted apart as needing sm_100 changes the execution of no corpus case that sm_90
/// silicon could run: every case whose execution it changes targets sm_100 or later.
#[test]
fn mutants_apart_for_sm100_change_only_sm100_cases() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let apart: Vec<Mutant> = Mutant::ALL
        .iter()
        .copied()
        .filter(|m| m.unobservable_on_sm90() == Some(Unobservable::NeedsSm100))
        .collect();
    assert_eq!(apart.len(), 5, "{apart:?}");
    let mut changed_sm100 = 0;
    for (name, case) in cases(&root.join("../cases")) {
        let (base, hit) = reached(|| run(&case, None));
        let base = shown(&base);
        for m in hit.into_iter().filter(|m| apart.contains(m)) {
            if shown(&run(&case, Some(m))) != base {
                assert!(
                    case.target.sm >= 100,
                    "{} changes {name} ({})",
                    m.id(),
                    case.target
                );
                changed_sm100 += 1;
            }
        }
    }
    assert!(changed_sm100 > 0, "the sm_100 cases tell them apart");
}

#[test]
fn every_mutant_changes_some_execution() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = witnesses(&cases(&root.join("../cases")));
    let extra = witnesses(&cases(&root.join("tests/suite/mutants")));
    let mut missing = vec![];
    for m in Mutant::ALL {
        let w = corpus[*m as usize].as_ref().or(extra[*m as usize].as_ref());
        match w {
            Some(w) => println!("{:<44} {w}", m.id()),
            None => missing.push(m.id()),
        }
    }
    assert!(
        missing.is_empty(),
        "mutants that change nothing: {missing:?}"
    );
}

/// Every witness case (`witness.<mutant id>`, in `cases/mutants/` and `mutants/`) is told apart
/// by the mutant it is named for: its execution under that mutant differs from the model's.
#[test]
fn each_witness_changes_under_its_mutant() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = cases(&root.join("../cases/mutants"));
    all.extend(cases(&root.join("tests/suite/mutants")));
    let mut same = vec![];
    let mut told = 0;
    for (name, case) in &all {
        let Some(id) = case.name.strip_prefix("witness.") else {
            continue;
        };
        let m = Mutant::ALL
            .iter()
            .find(|m| m.id() == id)
            .unwrap_or_else(|| panic!("{name}: no mutant named {id}"));
        if shown(&run(case, None)) == shown(&run(case, Some(*m))) {
            same.push(name.clone());
        } else {
            told += 1;
        }
    }
    assert!(
        same.is_empty(),
        "witnesses their mutant does not change: {same:?}"
    );
    assert!(told >= 20, "only {told} witnesses found");
}
