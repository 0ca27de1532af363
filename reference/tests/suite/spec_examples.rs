//! Every instruction example of the modelled families in the seed pages and the spec sections
//! (extracted to tests/data/spec_examples.tsv by tools/extract_spec_examples.py) parses — except the
//! ones listed in tests/data/spec_examples_exceptions.tsv, each of which must fail *with the listed
//! error*, so a documentation error stays a recorded finding rather than a silent skip.

use ptxconform_reference::ptx::{parse_source, Parsed};
use std::collections::HashMap;

const EXAMPLES: &str = include_str!("../data/spec_examples.tsv");
const EXCEPTIONS: &str = include_str!("../data/spec_examples_exceptions.tsv");

fn rows(text: &str) -> impl Iterator<Item = Vec<&str>> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').collect())
}

#[test]
fn every_spec_example_parses_or_is_a_listed_exception() {
    let mut exceptions: HashMap<&str, (&str, &str)> = HashMap::new();
    for r in rows(EXCEPTIONS) {
        assert!(
            r.len() >= 4,
            "exception row needs STATEMENT, KIND, EXPECTED-ERROR, REASON: {r:?}"
        );
        assert!(
            matches!(r[1], "manual_error" | "out_of_scope"),
            "unknown exception kind {}",
            r[1]
        );
        exceptions.insert(r[0], (r[1], r[2]));
    }
    let (mut parsed, mut excepted, mut failures) = (0, 0, Vec::new());
    let mut used = std::collections::HashSet::new();
    for r in rows(EXAMPLES) {
        let (origin, stmt) = (r[0], r[1]);
        let result = parse_source(stmt);
        assert_eq!(result.len(), 1, "{origin}: `{stmt}` is not one statement");
        match (&result[0], exceptions.get(stmt)) {
            (Parsed::Instr(..), None) => parsed += 1,
            (Parsed::Error(pos, e), Some((_, expected))) if e.to_string().contains(expected) => {
                let _ = pos;
                used.insert(stmt);
                excepted += 1;
            }
            (Parsed::Error(pos, e), _) => failures.push(format!("{origin}: `{stmt}`: {pos}: {e}")),
            (Parsed::Instr(..), Some(_)) => failures.push(format!(
                "{origin}: `{stmt}` is listed as an exception but parses"
            )),
            (Parsed::Directive(_), _) => {
                failures.push(format!("{origin}: `{stmt}` read as a directive"))
            }
            // An out-of-scope instruction is read as not modelled (a module reader skips it).
            (Parsed::Skipped(..), Some(("out_of_scope", _))) => {
                used.insert(stmt);
                excepted += 1;
            }
            (Parsed::Skipped(..), _) => {
                failures.push(format!("{origin}: `{stmt}` read as not modelled"))
            }
        }
    }
    for k in exceptions.keys() {
        if !used.contains(k) && !failures.iter().any(|f| f.contains(k)) {
            failures.push(format!("stale exception (not among the examples): `{k}`"));
        }
    }
    println!("{parsed} examples parse, {excepted} are listed exceptions");
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(parsed >= 140, "only {parsed} examples parsed");
}
