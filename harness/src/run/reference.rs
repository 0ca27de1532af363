//! The reference side of a run: execute a case on the model, check what the case itself asserts
//! (`expect`), and replay recorded hardware observations against the model's final state — the
//! check CI runs without a GPU so the reference cannot drift from silicon unnoticed.

use crate::report::{CaseResult, ExpectedByte, RegionDiff, Verdict};
use ptxconform_reference::case::{Case, Observation};
use ptxconform_reference::sem::exec::{execute, ExecError, Execution, Outcome};
use ptxconform_reference::sem::memory::Byte;

/// The coverage family a case belongs to: its first copy instruction's family, else its first
/// instruction's family.
pub fn family_of(case: &Case) -> String {
    let fams = families_of(case);
    let copy = |f: &&&str| f.starts_with("cp.") || f.starts_with("tcgen05");
    fams.iter()
        .find(copy)
        .or(fams.first())
        .map(|s| s.to_string())
        .unwrap_or_else(|| "other".into())
}

/// The family of every parsed `ptx:` step, in program order.
pub fn families_of(case: &Case) -> Vec<&'static str> {
    ptxconform_reference::case::validate::parse_steps(case)
        .into_iter()
        .filter_map(|(_, s)| s.ok())
        .map(|s| s.instr.family())
        .collect()
}

pub fn expected_byte(b: &Byte) -> ExpectedByte {
    match b {
        Byte::Known(v) => ExpectedByte::Known(*v),
        Byte::OneOf(s) if s.len() == 256 => ExpectedByte::Any,
        Byte::OneOf(s) => ExpectedByte::OneOf(s.iter().collect()),
    }
}

/// Region name as reports and observations name it: global regions by name, shared regions as
/// `name@ctaN`.
pub fn shared_key(name: &str, cta: usize) -> String {
    format!("{name}@cta{cta}")
}

/// Every checked region of the final state, expected bytes by report name.
pub fn expected_regions(case: &Case, ex: &Execution) -> Vec<(String, Vec<ExpectedByte>)> {
    let checked = |n: &str| case.check.is_empty() || case.check.iter().any(|c| c == n);
    let mut out = Vec::new();
    for (name, bytes) in &ex.final_state.global {
        if checked(name) {
            out.push((name.clone(), bytes.iter().map(expected_byte).collect()));
        }
    }
    for (cta, regions) in ex.final_state.shared.iter().enumerate() {
        for (name, bytes) in regions {
            if checked(name) {
                out.push((
                    shared_key(name, cta),
                    bytes.iter().map(expected_byte).collect(),
                ));
            }
        }
    }
    out
}

/// Compare recorded observed regions (hex) with the model's expectation; diffs of the regions
/// that disagree.
pub fn replay(
    expected: &[(String, Vec<ExpectedByte>)],
    obs: &Observation,
) -> Result<Vec<RegionDiff>, String> {
    let mut diffs = Vec::new();
    for (name, hex) in &obs.regions {
        // Observations hold every region; only the checked ones are compared.
        let Some((_, exp)) = expected.iter().find(|(n, _)| n == name) else {
            continue;
        };
        let observed =
            crate::hex::decode(hex).map_err(|e| format!("recorded region `{name}`: {e}"))?;
        if observed.len() != exp.len() {
            return Err(format!(
                "recorded region `{name}` has {} bytes, the case declares {}",
                observed.len(),
                exp.len()
            ));
        }
        let d = RegionDiff {
            region: name.clone(),
            expected: exp.clone(),
            observed,
        };
        if d.mismatches() > 0 {
            diffs.push(d);
        }
    }
    Ok(diffs)
}

/// The reference-only result of a case (no GPU): the model runs it, `expect` holds, and every
/// recorded hardware observation still agrees with the model.
pub fn evaluate(file: &str, case: &Case) -> (CaseResult, Result<Execution, ExecError>) {
    let family = family_of(case);
    let mut r = CaseResult {
        case: case.name.clone(),
        file: file.to_string(),
        family,
        verdict: Verdict::ReferencePass,
        detail: String::new(),
        diffs: vec![],
        wall_us: 0,
    };
    let t = std::time::Instant::now();
    let ex = execute(case);
    r.wall_us = t.elapsed().as_micros() as u64;
    match &ex {
        Err(e) => {
            r.verdict = Verdict::ReferenceFail;
            r.detail = format!("case error: {e}");
        }
        Ok(x) => {
            if let Err(why) = x.meets(case.expect.as_ref()) {
                r.verdict = Verdict::ReferenceFail;
                r.detail = why;
            } else {
                if let Outcome::Undefined { ub, step } = &x.outcome {
                    r.verdict = Verdict::ReferenceUndefined;
                    r.detail = format!(
                        "UB at step {step}: {} ({}) — {}",
                        ub.rule, ub.section, ub.detail
                    );
                }
                let expected = expected_regions(case, x);
                for obs in &case.observed {
                    if !matches!(obs.outcome.as_str(), "pass" | "diverge") {
                        continue;
                    }
                    match replay(&expected, obs) {
                        Err(e) => {
                            r.verdict = Verdict::ReferenceFail;
                            r.detail = format!("observation of {} ({}): {e}", obs.device, obs.date);
                        }
                        Ok(d) if !d.is_empty() && obs.outcome == "pass" => {
                            r.verdict = Verdict::ReferenceFail;
                            r.detail = format!(
                                "reference drifted from hardware recorded on {} ({}): region {} byte {}",
                                obs.device,
                                obs.date,
                                d[0].region,
                                d[0].first_mismatch().unwrap_or(0)
                            );
                            r.diffs = d;
                        }
                        Ok(_) => {}
                    }
                }
            }
        }
    }
    (r, ex)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxconform_reference::case::{load_str, Expect};

    const CASE: &str = r#"
name: copy4
target: sm_90a
memory:
  global: [ { name: src, size: 16, init: { bytes: [1,2,3,4] } } ]
  shared: [ { name: buf, size: 16, init: { fill: 170 } } ]
program:
  - ptx: cp.async.ca.shared.global [buf], [src], 4
  - ptx: cp.async.wait_all
check: [buf]
"#;

    #[test]
    fn reference_pass_and_replay_drift() {
        let mut c = load_str(CASE, "t.yaml").unwrap().remove(0);
        let (r, _) = evaluate("t.yaml", &c);
        assert_eq!(r.verdict, Verdict::ReferencePass, "{}", r.detail);
        // A recorded observation that matches the model keeps it passing...
        let good = format!("01020304{}", "aa".repeat(12));
        c.observed.push(Observation {
            device: "H100".into(),
            driver: "580".into(),
            date: "d".into(),
            outcome: "pass".into(),
            regions: [("buf@cta0".to_string(), good)].into(),
            mbarriers: Default::default(),
        });
        assert_eq!(evaluate("t.yaml", &c).0.verdict, Verdict::ReferencePass);
        // ...one that disagrees is drift, reported with the first differing byte.
        c.observed[0]
            .regions
            .insert("buf@cta0".into(), format!("01020305{}", "aa".repeat(12)));
        let (r, _) = evaluate("t.yaml", &c);
        assert_eq!(r.verdict, Verdict::ReferenceFail);
        assert!(r.detail.contains("byte 3"), "{}", r.detail);
    }

    #[test]
    fn expect_mismatch_fails() {
        let mut c = load_str(CASE, "t.yaml").unwrap().remove(0);
        c.expect = Some(Expect::Undefined("bulk.size_not_multiple_of_16".into()));
        let (r, _) = evaluate("t.yaml", &c);
        assert_eq!(r.verdict, Verdict::ReferenceFail);
        assert!(r.detail.contains("well defined"), "{}", r.detail);
        // A well-defined copy is expected to complete: `expect: trap` is a failure.
        c.expect = Some(Expect::Trap);
        let (r, _) = evaluate("t.yaml", &c);
        assert_eq!(r.verdict, Verdict::ReferenceFail);
        assert!(r.detail.contains("expected a trap"), "{}", r.detail);
        assert_eq!(family_of(&c), "cp.async");
    }
}
