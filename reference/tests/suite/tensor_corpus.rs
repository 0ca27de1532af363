//! Every case under cases/tensor/ (hand-written and tools/gen_tensor_cases.py output) loads and
//! validates through the case loader, executes on the reference model and meets its `expect`
//! (the checks `ptxconform run --reference-only` applies); well-defined cases leave every checked
//! region and mbarrier exactly known (the loads' announced tx-counts, computed by the generator
//! independently of the copy plans, complete their phases).

use ptxconform_reference::case::{load_file, Case, Expect};
use ptxconform_reference::sem::exec::{execute, ExpectedHw, Outcome};
use std::path::{Path, PathBuf};

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "yaml") {
            out.push(p);
        }
    }
}

fn corpus() -> Vec<(String, Case)> {
    let mut files = vec![];
    yaml_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/tensor"),
        &mut files,
    );
    files
        .iter()
        .flat_map(|p| {
            let cases = load_file(p).unwrap_or_else(|e| panic!("{e}"));
            cases.into_iter().map(move |c| (p.display().to_string(), c))
        })
        .collect()
}

/// Why a case fails its expectation (None: it meets it).
fn failure(c: &Case) -> Option<String> {
    let x = match execute(c) {
        Ok(x) => x,
        Err(e) => return Some(format!("case error: {e}")),
    };
    match (c.expect.as_ref().unwrap_or(&Expect::Pass), &x.outcome) {
        (Expect::Pass, Outcome::Defined) => {
            if x.expected_hw != ExpectedHw::Completes {
                return Some(format!("hardware expected to {:?}", x.expected_hw));
            }
            for name in &c.check {
                let bytes = x
                    .final_state
                    .global
                    .get(name)
                    .or_else(|| x.final_state.shared[0].get(name));
                if let Some(b) = bytes {
                    if let Some(i) = b.iter().position(|b| b.known().is_none()) {
                        return Some(format!("{name} byte {i} not exactly known"));
                    }
                }
                if let Some(m) = x.final_state.mbarriers[0].get(name) {
                    if m.phase_parity != Some(1)
                        && c.program.iter().any(|s| {
                            matches!(s.op, ptxconform_reference::case::StepOp::WaitParity { .. })
                        })
                    {
                        return Some(format!("mbarrier {name}: {m:?}"));
                    }
                }
            }
            None
        }
        (Expect::Pass, Outcome::Undefined { ub, step }) => {
            Some(format!("UB at step {step}: {} — {}", ub.rule, ub.detail))
        }
        (Expect::Undefined(r), Outcome::Undefined { ub, .. }) if ub.rule == r => None,
        (Expect::Undefined(r), Outcome::Undefined { ub, step }) => Some(format!(
            "expected {r}, got {} at step {step} — {}",
            ub.rule, ub.detail
        )),
        (Expect::Undefined(r), Outcome::Defined) => {
            Some(format!("expected {r}, model says defined"))
        }
        (Expect::Trap, _) if x.expected_hw == ExpectedHw::MayTrap => None,
        (Expect::Timeout, _) if x.expected_hw == ExpectedHw::Timeout => None,
        (e, o) => Some(format!("expected {e:?}, got {o:?} / {:?}", x.expected_hw)),
    }
}

#[test]
fn every_tensor_case_meets_its_expectation() {
    let cases = corpus();
    assert!(cases.len() >= 500, "only {} tensor cases", cases.len());
    let mut names = std::collections::BTreeSet::new();
    let mut bad = vec![];
    for (path, c) in &cases {
        assert!(
            names.insert(c.name.clone()),
            "{path}: duplicate case name {}",
            c.name
        );
        if let Some(why) = failure(c) {
            bad.push(format!("{path}: {}: {why}", c.name));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} cases fail:\n{}",
        bad.len(),
        cases.len(),
        bad.join("\n")
    );
}

/// One case per validator rule and per copy rule. `device-sm90` cannot be reached by a case: every
/// tensor instruction needs sm_90 itself, so a case below sm_90 is rejected by case validation.
#[test]
fn every_rule_has_a_case() {
    use ptxconform_reference::sem::exec::tensor::{copy_rule_id, encode_rejected_id};
    use ptxconform_reference::sem::tensor::access::copy_rule;
    use ptxconform_reference::sem::tensor::tensormap::rule;
    let expected: std::collections::BTreeSet<String> = corpus()
        .into_iter()
        .filter_map(|(_, c)| match c.expect {
            Some(Expect::Undefined(r)) => Some(r),
            _ => None,
        })
        .collect();
    let mut missing = vec![];
    for r in rule::ALL.iter().filter(|r| r.id != rule::DEVICE_SM90.id) {
        if !expected.contains(encode_rejected_id(r.id)) {
            missing.push(encode_rejected_id(r.id));
        }
    }
    for r in copy_rule::ALL {
        if !expected.contains(copy_rule_id(r)) {
            missing.push(copy_rule_id(r));
        }
    }
    assert!(missing.is_empty(), "rules without a case: {missing:?}");
    for r in &expected {
        assert!(
            ptxconform_reference::sem::ub::rule(r).is_some(),
            "`{r}` is not a catalogue rule"
        );
    }
    assert!(
        expected.contains("tensor.reduce_type_illegal")
            && expected.contains("tensor.mbar_cta_group")
    );
}

/// The executor against the pure plan: for every single-CTA, well-defined tile load of the
/// corpus, the destination the executor leaves equals `sem::tensor::apply_load` of the plan on the
/// initial bytes (region placement, run splitting, OOB fill and conversions agree).
#[test]
fn tile_loads_match_apply_load() {
    use ptxconform_reference::case::StepOp;
    use ptxconform_reference::layout::{Layout, Place};
    use ptxconform_reference::sem::exec::tensor::region_address;
    use ptxconform_reference::sem::tensor::{apply_load, load, validate, LoadMode};
    let mut checked = 0;
    for (path, c) in corpus() {
        if c.launch.ctas() != 1 || c.expect != Some(Expect::Pass) || c.memory.tensor_maps.len() != 1
        {
            continue;
        }
        let loads: Vec<&str> = c
            .program
            .iter()
            .filter_map(|s| match &s.op {
                StepOp::Ptx(t)
                    if t.starts_with("cp.async.bulk.tensor")
                        && t.contains(".global.tile.mbarrier") =>
                {
                    Some(t.as_str())
                }
                _ => None,
            })
            .collect();
        let waits = c
            .program
            .iter()
            .filter(|s| matches!(s.op, StepOp::WaitParity { .. }))
            .count();
        if loads.len() != 1 || waits != 1 || c.program.len() != 4 {
            continue;
        }
        let text = loads[0];
        let coords: Vec<i32> = text
            .split('{')
            .nth(1)
            .and_then(|s| s.split('}').next())
            .unwrap()
            .split(',')
            .map(|x| x.trim().parse().unwrap())
            .collect();
        let decl = &c.memory.tensor_maps[0];
        let gi = c
            .memory
            .global
            .iter()
            .position(|r| r.name == decl.global)
            .unwrap();
        let g = &c.memory.global[gi];
        let mut p = decl.map.clone();
        p.global_address = region_address(gi) + g.misalign;
        let map = validate(&p, c.target).unwrap();
        let layout = Layout::of(&c).unwrap();
        let dst_name = text.split('[').nth(1).unwrap().split(']').next().unwrap();
        let Some(Place::Shared { offset, size }) = layout.get(dst_name) else {
            panic!("{path}: {dst_name}")
        };
        if !c.check.iter().any(|n| n == dst_name) {
            continue; // e.g. padded sub-byte units: the destination is partly indeterminate
        }
        let plan = load(&map, &LoadMode::Tile, &coords, offset).unwrap();
        let global = g.init.materialize(g.size).unwrap();
        let mut smem = vec![0u8; layout.shared_bytes as usize];
        for r in &c.memory.shared {
            if let Some(Place::Shared { offset, size }) = layout.get(&r.name) {
                smem[offset as usize..(offset + size) as usize]
                    .copy_from_slice(&r.init.materialize(size).unwrap());
            }
        }
        apply_load(&plan, &global, p.global_address, &mut smem, 0).unwrap();
        let x = execute(&c).unwrap();
        let got: Vec<u8> = x.final_state.shared[0][dst_name]
            .iter()
            .map(|b| b.known().unwrap())
            .collect();
        assert_eq!(
            got,
            smem[offset as usize..(offset + size) as usize],
            "{path}: {}",
            c.name
        );
        checked += 1;
    }
    assert!(checked >= 400, "only {checked} tile loads compared");
}

/// Before its mbarrier wait a tensor load's destination is {old, new} per byte and the phase is
/// unknown; after a store's bulk wait_group the tensor bytes are exact (covered above).
#[test]
fn load_destination_is_uncertain_until_the_wait() {
    let (path, c) = corpus()
        .into_iter()
        .find(|(_, c)| c.name == "tensor.load.uncertain_before_wait")
        .expect("the case exists");
    let x = execute(&c).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(x.outcome, Outcome::Defined);
    let dst = &x.final_state.shared[0]["dst"];
    assert!(
        dst.iter()
            .all(|b| b.known().is_none() && b.allows(0) && b.allows(7)),
        "{dst:?}"
    );
    let bar = &x.final_state.mbarriers[0]["bar"];
    assert_eq!((bar.phase_parity, bar.tx_count), (None, None), "{bar:?}");
}
