//! The judge: one comparison of a reference execution with a typed hardware [`Observation`].
//! A live GPU run, a fuzz campaign, minimization and the replay of recorded observations all
//! come here, so a recorded observation is checked exactly as the run that recorded it was.

use crate::report::{CaseResult, ExpectedByte, KnownDivergences, RegionDiff, Verdict};
use ptxconform_reference::case::{Case, Ending, Observation};
use ptxconform_reference::sem::exec::{Execution, ExpectedHw, Outcome};
use ptxconform_reference::sem::memory::Byte;

pub fn expected_byte(b: &Byte) -> ExpectedByte {
    match b {
        Byte::Known(v) => ExpectedByte::Known(*v),
        Byte::OneOf(s) if s.len() == 256 => ExpectedByte::Any,
        Byte::OneOf(s) => ExpectedByte::OneOf(s.iter().collect()),
    }
}

/// Region name as reports and observations name it: global regions by name, shared regions
/// (and mbarriers, Tensor Memory) as `name@ctaN`.
pub fn shared_key(name: &str, cta: usize) -> String {
    ptxconform_reference::case::region_key(name, cta)
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

/// The model's verdict in a few words, for details.
pub fn ref_summary(ex: &Execution) -> String {
    match &ex.outcome {
        Outcome::Defined => format!("well defined, expects {:?}", ex.expected_hw),
        Outcome::Undefined { ub, step } => format!(
            "UB {} at step {step}, expects {:?}",
            ub.rule, ex.expected_hw
        ),
    }
}

/// Judge `obs` against the reference's execution `ex` of `case`: sets `r`'s verdict, detail and
/// region diffs (known divergences are not applied here).
pub fn judge(case: &Case, ex: &Execution, obs: &Observation, r: &mut CaseResult) {
    let undefined = matches!(ex.outcome, Outcome::Undefined { .. });
    let mut abnormal = |what: String, trapped: bool| {
        r.verdict = match (ex.expected_hw, trapped) {
            (ExpectedHw::MayTrap, true) => Verdict::TrapExpected,
            (ExpectedHw::Timeout, false) => Verdict::TimeoutExpected,
            _ if undefined => Verdict::ReferenceUndefined,
            (_, true) => Verdict::TrapUnexpected,
            (_, false) => Verdict::TimeoutUnexpected,
        };
        r.detail = format!("{what}; reference: {}", ref_summary(ex));
    };
    match &obs.outcome {
        Ending::Trap { kind, code } => {
            return abnormal(format!("trap {kind} (CUDA error {code})"), true);
        }
        Ending::Watchdog(ms) => {
            return abnormal(format!("timeout: watchdog after {ms} ms"), false);
        }
        Ending::Timeout(steps) => {
            return abnormal(format!("timeout in wait step(s) {steps:?}"), false);
        }
        Ending::Rejected(message) => {
            // A map the model calls undefined may be refused; one it accepts may not.
            r.verdict = if undefined {
                Verdict::ReferenceUndefined
            } else {
                Verdict::HarnessError
            };
            r.detail = format!("driver: {message}; reference: {}", ref_summary(ex));
            return;
        }
        Ending::Completed => {}
    }
    if undefined {
        r.verdict = Verdict::ReferenceUndefined;
        r.detail = format!("hardware completed; reference: {}", ref_summary(ex));
        return;
    }
    let mut problems = Vec::new();
    if !obs.canaries_broken.is_empty() {
        problems.push(format!(
            "canary bytes overwritten around {:?}",
            obs.canaries_broken
        ));
    }
    if !obs.not_reached.is_empty() {
        problems.push(format!("CTAs {:?} did not reach the end", obs.not_reached));
    }
    for (name, exp) in expected_regions(case, ex) {
        let Some(o) = obs.regions.get(&name) else {
            continue;
        };
        if o.len() != exp.len() {
            problems.push(format!(
                "{name}: {} bytes observed, the case declares {}",
                o.len(),
                exp.len()
            ));
            continue;
        }
        let d = RegionDiff {
            region: name.clone(),
            expected: exp,
            observed: o.clone(),
        };
        if let Some(i) = d.first_mismatch() {
            problems.push(format!("{name} byte {i}: observed {:#04x}", d.observed[i]));
            r.diffs.push(d);
        }
    }
    for (cta, ts) in ex.final_state.tmem.iter().enumerate() {
        for (name, cells) in ts {
            let key = shared_key(name, cta);
            let Some(o) = obs.tmem.get(&key) else {
                continue;
            };
            let cols = (cells.len() / 128).max(1);
            if let Some(i) = cells.iter().zip(o).position(|(c, v)| !c.accepts(*v)) {
                problems.push(format!(
                    "Tensor Memory {key} lane {} column {}: observed {:#010x}, expected {:?}",
                    i / cols,
                    i % cols,
                    o[i],
                    cells[i]
                ));
            }
        }
    }
    for (cta, ms) in ex.final_state.mbarriers.iter().enumerate() {
        for (name, st) in ms {
            let key = shared_key(name, cta);
            let (Some(p), true, Some(cur)) = (obs.mbarriers.get(&key), st.valid, st.phase_parity)
            else {
                continue;
            };
            // test_wait.parity(p) is true when the phase of parity p (the current or the
            // immediately preceding one) has completed, i.e. when p != the current parity.
            if (p.parity0_done, p.parity1_done) != (cur != 0, cur != 1) {
                problems.push(format!(
                    "mbarrier {key}: phase parity {cur} expected, test_wait.parity gave ({}, {})",
                    p.parity0_done, p.parity1_done
                ));
            }
        }
    }
    if problems.is_empty() {
        r.verdict = Verdict::Pass;
        r.detail.clear();
    } else {
        r.verdict = Verdict::Diverge;
        r.detail = problems.join("; ");
    }
}

/// Replay every hardware observation recorded in `case` through [`judge`]: a recorded run that
/// the model now judges a failure (after the known divergences) makes `r` a reference failure
/// naming the recording, so the model cannot drift from silicon unnoticed without a GPU.
pub fn replay(case: &Case, ex: &Execution, known: &KnownDivergences, r: &mut CaseResult) {
    for obs in &case.observed {
        let mut j = CaseResult {
            verdict: Verdict::Pass,
            detail: String::new(),
            diffs: vec![],
            ..r.clone()
        };
        judge(case, ex, obs, &mut j);
        known.apply(&mut j);
        if j.verdict.is_failure() {
            r.verdict = Verdict::ReferenceFail;
            r.detail = format!(
                "replay of the run recorded on {} ({}): {}: {}",
                obs.device,
                obs.date,
                j.verdict.name(),
                j.detail
            );
            r.diffs = j.diffs;
            return;
        }
    }
}

/// Does a recorded hardware run confirm `case`: the model runs it and some recorded observation
/// judges as a pass?
pub fn confirmed(case: &Case) -> bool {
    if case.observed.is_empty() {
        return false;
    }
    let (r, ex) = crate::run::reference::evaluate("", case);
    let Ok(ex) = ex else { return false };
    case.observed.iter().any(|obs| {
        let mut j = r.clone();
        judge(case, &ex, obs, &mut j);
        j.verdict == Verdict::Pass
    })
}
