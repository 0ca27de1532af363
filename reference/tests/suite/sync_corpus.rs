//! The fence / barrier.cluster / proxy corpus (`cases/sync/`) on the reference executor: every
//! case validates and meets its `expect`; a `proxy.<rule>…unfenced` case names its rule in the
//! execution's notes and leaves bytes uncertain, its `.fenced` partner leaves no note and exact
//! bytes; every proxy rule the executor can reach has such a pair (or, for ordering rules, a case).

use std::collections::BTreeSet;
use std::path::Path;

use ptxconform_reference::case::validate::case_errors;
use ptxconform_reference::case::{load_dir, Case};
use ptxconform_reference::sem::exec::{execute, Execution, Outcome};
use ptxconform_reference::sem::proxy::{self, Effect};

fn corpus() -> Vec<(Case, Execution)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/sync");
    let mut out = Vec::new();
    for (path, r) in load_dir(&dir) {
        for c in r.unwrap_or_else(|e| panic!("{}: {e}", path.display())) {
            let errs: Vec<_> = case_errors(&c).into_iter().map(|p| p.message).collect();
            assert!(errs.is_empty(), "{}: {errs:?}", c.name);
            let x = execute(&c).unwrap_or_else(|e| panic!("{}: {e}", c.name));
            assert_eq!(x.outcome, Outcome::Defined, "{}", c.name);
            x.meets(c.expect.as_ref())
                .unwrap_or_else(|e| panic!("{}: {e}", c.name));
            out.push((c, x));
        }
    }
    out
}

/// The proxy rule a case is named after (`proxy.<rule>[.variant].{fenced,unfenced}`).
fn rule_of(name: &str) -> Option<&'static proxy::ProxyRule> {
    proxy::CATALOGUE
        .iter()
        .filter(|r| name.starts_with(&format!("{}.", r.id)))
        .max_by_key(|r| r.id.len())
}

fn uncertain_bytes(x: &Execution) -> usize {
    let all = x
        .final_state
        .global
        .values()
        .chain(x.final_state.shared.iter().flat_map(|m| m.values()));
    all.flatten().filter(|b| b.known().is_none()).count()
}

#[test]
fn proxy_cases_name_their_rule_exactly_when_unfenced() {
    let cases = corpus();
    assert!(cases.len() >= 60, "only {} cases", cases.len());
    let mut paired = BTreeSet::new();
    let mut ordered = BTreeSet::new();
    for (c, x) in &cases {
        let rules: BTreeSet<&str> = x.notes.iter().map(|n| n.rule).collect();
        match (rule_of(&c.name), c.name.ends_with(".unfenced")) {
            (Some(r), true) => {
                assert_eq!(rules, BTreeSet::from([r.id]), "{}: {:?}", c.name, x.notes);
                let n = &x.notes[0];
                assert_eq!(n.section, r.section);
                if r.effect == Effect::Uncertain {
                    assert!(uncertain_bytes(x) > 0, "{}: every byte certain", c.name);
                }
                let fenced = c.name.replace(".unfenced", ".fenced");
                let (_, y) = cases
                    .iter()
                    .find(|(d, _)| d.name == fenced)
                    .unwrap_or_else(|| panic!("{}: no {fenced}", c.name));
                assert_eq!(uncertain_bytes(y), 0, "{fenced}");
                paired.insert(r.id);
            }
            (r, _) => {
                assert!(x.notes.is_empty(), "{}: {:?}", c.name, x.notes);
                assert_eq!(uncertain_bytes(x), 0, "{}", c.name);
                if let Some(r) = r {
                    ordered.insert(r.id);
                }
            }
        }
    }
    for r in proxy::CATALOGUE {
        match r.effect {
            // Every landing in the executor is an observed completion, so an async write read
            // by the generic proxy before it is UB instead (async.dst_read_before_completion).
            _ if r.id == proxy::ASYNC_WRITE_GENERIC_READ.id => {}
            Effect::Uncertain | Effect::Noted => {
                assert!(
                    paired.contains(r.id),
                    "no fenced/unfenced pair for {}",
                    r.id
                )
            }
            // Ordering rules: a case named after the rule, or (fence.proxy.async) the fences
            // of the `.fenced` partners.
            Effect::Orders if r.id == proxy::FENCE_PROXY_ASYNC.id => {
                assert!(cases.iter().any(|(c, _)| c.name.ends_with(".fenced")
                    && c.program
                        .iter()
                        .any(|s| format!("{:?}", s.op).contains("fence.proxy.async."))))
            }
            Effect::Orders => assert!(ordered.contains(r.id), "no case named after {}", r.id),
        }
    }
}
