//! The judge: one comparison of a reference execution with a typed hardware [`Observation`].
//! A live GPU run, a fuzz campaign, minimization and the replay of recorded observations all
//! come here, so a recorded observation is checked exactly as the run that recorded it was.
//!
//! The execution's [`Profile`] is the reading hardware is judged against. Under `sm_90` a pass
//! in a case whose execution met a profile position (where the readings differ) is judged again
//! against the spec reading: departing from it, the pass carries a "spec departure" note and the
//! position ids ([`CaseResult::departures`]), which reports count and list as findings.

use crate::known::KnownDivergences;
use crate::result::{
    model_refusals, render, CaseResult, Difference, ExpectedByte, RegionDiff, Verdict,
};
use ptxconform_reference::case::{Case, Ending, Expect, Observation, PartialBytes};
use ptxconform_reference::sem::exec::{
    execute_with, ExecOptions, Execution, HwOutcome, Outcome, OutcomeClass, TraceDetail,
};
use ptxconform_reference::sem::memory::{Byte, RegionBytes};
use ptxconform_reference::sem::profile::Profile;
use ptxconform_reference::sem::tcgen05::tmem::Cell;

/// The profile hardware is judged under unless a command names another: what sm_90 silicon was
/// recorded doing, so that its known departures from the text are findings, not failures.
pub const DEFAULT_PROFILE: Profile = Profile::Sm90;

fn expected_byte(b: &Byte) -> ExpectedByte {
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
    checked_regions(case, ex)
        .map(|(name, bytes)| (name, bytes.iter().map(expected_byte).collect()))
        .collect()
}

/// Every checked region of the final state, the model's bytes by report name.
fn checked_regions<'a>(
    case: &'a Case,
    ex: &'a Execution,
) -> impl Iterator<Item = (String, &'a RegionBytes)> + 'a {
    let checked = |n: &str| case.check.is_empty() || case.check.iter().any(|c| c == n);
    let global = ex
        .final_state
        .global
        .iter()
        .filter(move |(name, _)| checked(name))
        .map(|(name, bytes)| (name.clone(), bytes));
    let shared = ex
        .final_state
        .shared
        .iter()
        .enumerate()
        .flat_map(move |(cta, regions)| {
            regions
                .iter()
                .filter(move |(name, _)| checked(name))
                .map(move |(name, bytes)| (shared_key(name, cta), bytes))
        });
    global.chain(shared)
}

/// The model's verdict in a few words, for details.
fn ref_summary(ex: &Execution) -> String {
    match &ex.outcome {
        Outcome::Defined => format!("well defined, predicts: {}", ex.prediction),
        Outcome::Undefined { ub, step } => {
            format!("UB {} at step {step}, predicts: {}", ub.rule, ex.prediction)
        }
    }
}

/// Judge `obs` against the reference's execution `ex` of `case` under `ex`'s profile: sets `r`'s
/// verdict, detail, region diffs and spec departures (known divergences are not applied here).
pub fn judge(case: &Case, ex: &Execution, obs: &Observation, r: &mut CaseResult) {
    r.departures.clear();
    judge_bytes(case, ex, obs, r);
    if ex.departures.is_empty() {
        return;
    }
    let ids: Vec<&str> = ex.departures.iter().map(|p| p.id).collect();
    match ex.profile {
        Profile::Sm90 if r.verdict == Verdict::Pass => {
            let Ok(spec) = execute_with(
                case,
                // The same model (mutant included) under the text's reading; its bytes are
                // all this reads of it.
                ExecOptions {
                    mutant: ex.mutant,
                    ..ExecOptions::of(Profile::Spec)
                }
                .keeping(TraceDetail::Touches),
            ) else {
                return;
            };
            let mut s = r.clone();
            judge_bytes(case, &spec, obs, &mut s);
            if s.verdict != Verdict::Pass {
                r.departures = ids.iter().map(|i| i.to_string()).collect();
                r.detail = format!(
                    "spec departure: {} (the spec reading: {}: {})",
                    ids.join(", "),
                    s.verdict.name(),
                    s.detail
                );
            }
        }
        Profile::Spec if r.verdict.is_failure() => {
            r.detail = format!(
                "{} [profile position {} met: the sm_90 profile reads it otherwise]",
                r.detail,
                ids.join(", ")
            );
        }
        _ => {}
    }
}

/// `expect: driver_rejects`: the run must end at the driver's refusal of a tensor map (the
/// reference side checks that the model's driver refuses one).
fn judge_rejection(ex: &Execution, obs: &Observation, r: &mut CaseResult) {
    let model: Vec<(String, String)> = ex
        .driver_rejects
        .iter()
        .map(|(map, why)| (map.clone(), why.rule.to_string()))
        .collect();
    if let Ending::Rejected(message) = &obs.outcome {
        r.verdict = Verdict::Pass;
        r.detail = format!(
            "driver refused a tensor map as expected: {message} ({})",
            model_refusals(&model)
        );
    } else {
        r.differences = vec![Difference::NotRefused {
            ended: obs.outcome.clone(),
            model,
        }];
        r.verdict = Verdict::Diverge;
        r.detail = render(&r.differences);
    }
}

/// The part of region `name` that `part` gives, compared with the model's bytes `exp`: a
/// difference if it differs or lies outside, and the coverage, which the verdict's detail states
/// (the rest of the region was not observed, so it neither passes nor fails).
fn judge_part(
    name: &str,
    exp: &[ExpectedByte],
    part: &PartialBytes,
    found: &mut Vec<Difference>,
    coverage: &mut Vec<String>,
    diffs: &mut Vec<RegionDiff>,
) {
    let n = exp.len();
    let Some(range) = part.range().filter(|r| r.end <= n as u64) else {
        found.push(Difference::OutsideRegion {
            region: name.to_string(),
            offset: part.offset,
            len: part.bytes.len(),
            region_len: n,
        });
        return;
    };
    let (a, b) = (range.start as usize, range.end as usize);
    coverage.push(format!("{name} bytes {a}..{b} of {n}"));
    let d = RegionDiff {
        region: format!("{name}[{a}..{b}]"),
        expected: exp[a..b].to_vec(),
        observed: part.bytes.clone(),
    };
    if let Some(i) = d.first_mismatch() {
        found.push(Difference::Byte {
            region: name.to_string(),
            offset: a + i,
            expected: d.expected[i].clone(),
            observed: d.observed[i],
        });
        diffs.push(d);
    }
}

/// An undefined case: the run must end in one of the predicted outcomes (class and trap kind);
/// outside them it is mispredicted, a failure. A prediction of several outcomes is noted as
/// undecided.
fn judge_undefined(ex: &Execution, obs: &Observation, r: &mut CaseResult) {
    let observed = HwOutcome::of(&obs.outcome);
    let predicted: Vec<HwOutcome> = ex.prediction.outcomes().collect();
    let mut found = Vec::new();
    r.verdict = if !ex.prediction.allows(observed) {
        found.push(Difference::Mispredicted {
            predicted: predicted.clone(),
            ended: obs.outcome.clone(),
        });
        Verdict::UndefinedMispredicted
    } else {
        if obs.outcome != Ending::Completed {
            found.push(Difference::Ending {
                ended: obs.outcome.clone(),
            });
        }
        match observed.class() {
            OutcomeClass::Traps => Verdict::TrapExpected,
            OutcomeClass::Hangs => Verdict::TimeoutExpected,
            OutcomeClass::Completes | OutcomeClass::Refused => Verdict::ReferenceUndefined,
        }
    };
    if let (Some(between), Outcome::Undefined { ub, .. }) = (ex.prediction.undecided(), &ex.outcome)
    {
        found.push(Difference::Undecided {
            rule: ub.rule.to_string(),
            predicted,
            between,
        });
    }
    let mut parts: Vec<String> = Vec::new();
    if obs.outcome == Ending::Completed {
        parts.push("hardware completed".into());
    }
    parts.extend(found.iter().map(|d| d.to_string()));
    parts.push(format!("reference: {}", ref_summary(ex)));
    r.detail = parts.join("; ");
    r.differences = found;
}

/// [`judge`] without the second reading.
fn judge_bytes(case: &Case, ex: &Execution, obs: &Observation, r: &mut CaseResult) {
    r.differences.clear();
    if case.expect == Some(Expect::DriverRejects) {
        return judge_rejection(ex, obs, r);
    }
    if matches!(ex.outcome, Outcome::Undefined { .. }) {
        return judge_undefined(ex, obs, r);
    }
    if obs.outcome != Ending::Completed {
        let ended = Difference::Ending {
            ended: obs.outcome.clone(),
        };
        r.verdict = match &obs.outcome {
            // A map the model accepts may not be refused.
            Ending::Rejected(_) => Verdict::HarnessError,
            Ending::Trap { .. } => Verdict::TrapUnexpected,
            _ => Verdict::TimeoutUnexpected,
        };
        r.detail = format!("{ended}; reference: {}", ref_summary(ex));
        r.differences = vec![ended];
        return;
    }
    let mut found = Vec::new();
    if !obs.canaries_broken.is_empty() {
        found.push(Difference::Canaries {
            regions: obs.canaries_broken.clone(),
        });
    }
    if !obs.not_reached.is_empty() {
        found.push(Difference::NotReached {
            ctas: obs.not_reached.clone(),
        });
    }
    let mut coverage = Vec::new();
    for (name, bytes) in checked_regions(case, ex) {
        let expected = || bytes.iter().map(expected_byte).collect::<Vec<_>>();
        if let Some(part) = obs.partial.get(&name) {
            judge_part(
                &name,
                &expected(),
                part,
                &mut found,
                &mut coverage,
                &mut r.diffs,
            );
            continue;
        }
        let Some(o) = obs.regions.get(&name) else {
            continue;
        };
        if o.len() != bytes.len() {
            found.push(Difference::Length {
                region: name,
                observed: o.len(),
                declared: bytes.len(),
            });
            continue;
        }
        // Against the model's bytes: the expected bytes are spelled out only for a diff.
        if let Some(i) = bytes.first_disallowed(o) {
            found.push(Difference::Byte {
                region: name.clone(),
                offset: i,
                expected: expected_byte(&bytes[i]),
                observed: o[i],
            });
            r.diffs.push(RegionDiff {
                region: name,
                expected: expected(),
                observed: o.clone(),
            });
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
                found.push(Difference::TensorMemory {
                    region: key,
                    lane: i / cols,
                    column: i % cols,
                    expected: match cells[i] {
                        Cell::Known(v) => Some(v),
                        Cell::Unwritten => None,
                    },
                    observed: o[i],
                });
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
                found.push(Difference::Parity {
                    mbarrier: key,
                    parity: cur.into(),
                    parity0_done: p.parity0_done,
                    parity1_done: p.parity1_done,
                });
            }
        }
    }
    r.verdict = if found.is_empty() {
        Verdict::Pass
    } else {
        Verdict::Diverge
    };
    r.detail = render(&found);
    r.differences = found;
    if !coverage.is_empty() {
        let note = format!(
            "observed in part: {}; the rest of {} not observed",
            coverage.join(", "),
            if coverage.len() == 1 {
                "that region"
            } else {
                "those regions"
            }
        );
        r.detail = if r.detail.is_empty() {
            note
        } else {
            format!("{}; {note}", r.detail)
        };
    }
}

/// Replay every hardware observation recorded in `case` through [`judge`], but `observed[left]`
/// (judged afterwards as a live one): a recorded run that the model now judges a failure (after
/// the known divergences) makes `r` a reference failure naming the recording, so the model cannot
/// drift from silicon unnoticed without a GPU. A recorded spec departure is noted on `r`.
pub fn replay(
    case: &Case,
    ex: &Execution,
    known: &KnownDivergences,
    left: Option<usize>,
    r: &mut CaseResult,
) {
    for (_, obs) in case
        .observed
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != left)
    {
        let mut j = CaseResult {
            verdict: Verdict::Pass,
            detail: String::new(),
            differences: vec![],
            diffs: vec![],
            ..r.clone()
        };
        judge(case, ex, obs, &mut j);
        known.apply(&mut j, Some(crate::known::Site::of(obs)));
        let departs = !j.departures.is_empty() && r.departures.is_empty();
        // A spec departure, or a pass that says something (what part was observed, an expected
        // refusal), is noted with the recording it came from.
        if departs || (j.verdict == Verdict::Pass && !j.detail.is_empty()) {
            if departs {
                r.departures = j.departures;
            }
            let note = format!(
                "replay of the run recorded on {} ({}): {}",
                obs.device, obs.date, j.detail
            );
            r.detail = if r.detail.is_empty() {
                note
            } else {
                format!("{}; {note}", r.detail)
            };
        } else if j.verdict.is_failure() {
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

#[cfg(test)]
mod tests {
    use crate::differential::{reference_side, run_batch_under, Replay};
    use crate::known::KnownDivergences;
    use crate::result::Verdict;
    use ptxconform_reference::case::{load_file, Case, Ending, Observation};
    use ptxconform_reference::sem::profile::Profile;
    use std::path::Path;

    fn root(p: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(p)
    }

    /// The cases the recordings show departing from the text (H3, H4), by position.
    fn departing(name: &str) -> Option<&'static str> {
        if name.starts_with("reduce.global.add.f32") {
            Some("P-RED-F32-SUBNORMALS")
        } else if name.starts_with("reduce.global.add.f64") {
            Some("P-RED-F64-NAN-OPERAND")
        } else {
            None
        }
    }

    /// Every recorded H100 and H200 reduction (cases/reduce/global.yaml), judged as `run --replay`
    /// judges it with the project's known divergences: under sm_90 the H3 / H4 cases pass with
    /// a spec-departure note naming their position and nothing else departs; under spec exactly
    /// those cases fail, no known divergence suppressing them.
    #[test]
    fn recorded_reductions_under_each_profile() {
        let cases: Vec<Case> = load_file(&root("cases/reduce/global.yaml")).unwrap();
        let batch: Vec<(&str, &Case)> = cases.iter().map(|c| ("global.yaml", c)).collect();
        let known = KnownDivergences::load(&root("reports/known-divergences.yaml")).unwrap();
        for device in ["H100", "H200"] {
            let mut replay = Replay {
                device: device.into(),
            };
            let sm90 = run_batch_under(Profile::Sm90, &mut replay, &known, &batch).unwrap();
            let spec = run_batch_under(Profile::Spec, &mut replay, &known, &batch).unwrap();
            let mut departed = 0;
            for ((c, a), b) in cases.iter().zip(&sm90).zip(&spec) {
                let (a, b) = (&a.result, &b.result);
                assert_eq!(
                    a.verdict,
                    Verdict::Pass,
                    "{} {}: {}",
                    c.name,
                    device,
                    a.detail
                );
                match departing(&c.name) {
                    Some(id) => {
                        departed += 1;
                        assert_eq!(a.departures, [id], "{}", c.name);
                        assert!(
                            a.detail.starts_with(&format!("spec departure: {id}")),
                            "{}",
                            a.detail
                        );
                        // The recorded observations fail the spec reading on the reference side.
                        assert_eq!(b.verdict, Verdict::ReferenceFail, "{}", c.name);
                        assert!(b.detail.contains(id), "{}", b.detail);
                    }
                    None => {
                        assert!(a.departures.is_empty() && a.detail.is_empty(), "{}", c.name);
                        assert_eq!(b.verdict, Verdict::Pass, "{}: {}", c.name, b.detail);
                    }
                }
            }
            assert_eq!(departed, 5, "{device}");
        }
    }

    /// A live observation is judged alone (without the recordings replayed on the reference
    /// side): under spec the H3 and H4 observations diverge at the recorded bytes.
    #[test]
    fn live_observations_diverge_under_spec() {
        let mut cases: Vec<Case> = load_file(&root("cases/reduce/global.yaml")).unwrap();
        cases.retain(|c| departing(&c.name).is_some());
        let recorded: Vec<Case> = cases.clone();
        for c in &mut cases {
            c.observed.clear();
        }
        // Each judged against its first recorded observation.
        for (profile, verdict) in [
            (Profile::Spec, Verdict::Diverge),
            (Profile::Sm90, Verdict::Pass),
        ] {
            for (c, r) in cases.iter().zip(&recorded) {
                let known = KnownDivergences::default();
                let (mut res, ex) = reference_side("f", c, &known, profile);
                let ex = ex.unwrap();
                assert_eq!(ex.profile, profile);
                crate::judge::judge(c, &ex, &r.observed[0], &mut res);
                assert_eq!(
                    res.verdict, verdict,
                    "{} under {profile}: {}",
                    c.name, res.detail
                );
                assert_eq!(res.departures.is_empty(), profile == Profile::Spec);
            }
        }
    }

    /// Without a GPU run, the reference side replays the recordings under the profile: sm_90
    /// notes the departure on a reference pass, spec makes it a reference failure.
    #[test]
    fn reference_only_replay_notes_departures() {
        let cases: Vec<Case> = load_file(&root("cases/reduce/global.yaml")).unwrap();
        let c = cases
            .iter()
            .find(|c| c.name == "reduce.global.add.f64")
            .unwrap();
        let known = KnownDivergences::default();
        let (r, _) = reference_side("f", c, &known, Profile::Sm90);
        assert_eq!(r.verdict, Verdict::ReferencePass);
        assert_eq!(r.departures, ["P-RED-F64-NAN-OPERAND"]);
        assert!(r.detail.contains("recorded on NVIDIA H100"), "{}", r.detail);
        let (r, _) = reference_side("f", c, &known, Profile::Spec);
        assert_eq!(r.verdict, Verdict::ReferenceFail);
        assert!(r.departures.is_empty());
        assert!(
            r.detail.contains("out byte 24: observed 0x00"),
            "{}",
            r.detail
        );
    }

    fn example(name: &str) -> Case {
        load_file(&root(&format!("cases/examples/{name}")))
            .unwrap()
            .remove(0)
    }

    /// A recorded observation of part of a region: the judge compares that range alone and says
    /// what it covered, a byte differing inside it diverges at its region offset, and a range
    /// outside the region (only an observation built in code can hold one: a case file with it
    /// is refused at load) is a divergence naming it.
    #[test]
    fn partial_observations_judge_only_their_range() {
        let c = example("partial_observation.yaml");
        let known = KnownDivergences::default();
        let (r, ex) = reference_side("f", &c, &known, Profile::Sm90);
        let coverage = "observed in part: dst@cta0 bytes 4..16 of 256; the rest of that region \
                        not observed";
        assert_eq!(r.verdict, Verdict::ReferencePass, "{}", r.detail);
        assert!(r.detail.contains(coverage), "{}", r.detail);
        let ex = ex.unwrap();
        let judged = |obs: &Observation| {
            let mut j = r.clone();
            crate::judge::judge(&c, &ex, obs, &mut j);
            j
        };
        let obs = c.observed[0].clone();
        let j = judged(&obs);
        assert_eq!((j.verdict, j.detail.as_str()), (Verdict::Pass, coverage));
        let mut bad = obs.clone();
        bad.partial.get_mut("dst@cta0").unwrap().bytes[11] = 1;
        let j = judged(&bad);
        assert_eq!(j.verdict, Verdict::Diverge);
        assert_eq!(
            j.detail,
            format!("dst@cta0 byte 15: observed 0x01; {coverage}")
        );
        assert_eq!(j.diffs[0].region, "dst@cta0[4..16]");
        // Recorded, the differing observation makes the case a reference failure.
        let mut recorded = c.clone();
        recorded.observed = vec![bad];
        let (r2, _) = reference_side("f", &recorded, &known, Profile::Sm90);
        assert_eq!(r2.verdict, Verdict::ReferenceFail);
        assert!(r2.detail.contains("dst@cta0 byte 15"), "{}", r2.detail);
        let mut outside = obs;
        outside.partial.get_mut("dst@cta0").unwrap().offset = 250;
        let j = judged(&outside);
        assert_eq!(j.verdict, Verdict::Diverge);
        assert_eq!(
            j.detail,
            "dst@cta0: bytes from 250 (12 of them) observed, the region has 256"
        );
    }

    /// `expect: driver_rejects` on hardware: the run must end at the driver's refusal. The
    /// model's own prediction is that refusal; a recorded refusal keeps the case passing (with
    /// a note), a completed run is a divergence naming the model's refusal.
    #[test]
    fn driver_rejects_is_judged_by_the_ending() {
        let c = example("driver_rejects.yaml");
        let known = KnownDivergences::default();
        let (r, ex) = reference_side("f", &c, &known, Profile::Sm90);
        assert_eq!(r.verdict, Verdict::ReferencePass, "{}", r.detail);
        assert!(
            r.detail
                .starts_with("the driver model refuses tensor map `tm` (global-stride-multiple-16"),
            "{}",
            r.detail
        );
        let ex = ex.unwrap();
        let info = crate::result::RunInfo {
            device: "test: built here, not a GPU run".into(),
            ..Default::default()
        };
        let refused = crate::differential::predicted(&info, &ex);
        assert!(
            matches!(refused.outcome, Ending::Rejected(_)),
            "{refused:?}"
        );
        let judged = |obs: &Observation| {
            let mut j = r.clone();
            crate::judge::judge(&c, &ex, obs, &mut j);
            j
        };
        let j = judged(&refused);
        assert_eq!(j.verdict, Verdict::Pass, "{}", j.detail);
        assert!(j
            .detail
            .starts_with("driver refused a tensor map as expected"));
        let mut completed = refused.clone();
        completed.outcome = Ending::Completed;
        let j = judged(&completed);
        assert_eq!(j.verdict, Verdict::Diverge);
        assert_eq!(
            j.detail,
            "expected the driver to refuse a tensor map (the driver model refuses `tm`: \
             global-stride-multiple-16); the run completed"
        );
        // As recorded observations, replayed on the reference side.
        for (obs, verdict, says) in [
            (
                refused,
                Verdict::ReferencePass,
                "driver refused a tensor map as expected",
            ),
            (completed, Verdict::ReferenceFail, "the run completed"),
        ] {
            let mut recorded = c.clone();
            recorded.observed = vec![obs];
            let (r, _) = reference_side("f", &recorded, &known, Profile::Sm90);
            assert_eq!(r.verdict, verdict, "{}", r.detail);
            assert!(r.detail.contains(says), "{}", r.detail);
        }
    }

    /// An undefined case is judged by its predicted outcomes: a trap of a predicted kind is
    /// expected (noted undecided where the prediction holds several kinds), another kind or a
    /// completion is mispredicted, a failure with a typed difference. The model decides this
    /// case's kind (A-MISALIGNED-KIND-HW); the judge is given the two kinds it predicted before.
    #[test]
    fn undefined_outcomes_are_judged_against_the_prediction() {
        use crate::result::Difference;
        use ptxconform_reference::case::TrapKind;
        use ptxconform_reference::sem::exec::{HwOutcome, Prediction, Undecided};
        let cases: Vec<Case> = load_file(&root("cases/ub/copy.yaml")).unwrap();
        let c = cases
            .iter()
            .find(|c| c.name == "ub.address.cp_async_dst_misaligned")
            .unwrap();
        let known = KnownDivergences::default();
        let (r, ex) = reference_side("f", c, &known, Profile::Sm90);
        let mut ex = ex.unwrap();
        let kinds = [
            HwOutcome::Traps(TrapKind::IllegalInstruction),
            HwOutcome::Traps(TrapKind::MisalignedAddress),
        ];
        assert_eq!(ex.prediction, Prediction::one(kinds[1]));
        ex.prediction = Prediction::of_set(kinds[0], &kinds[1..]);
        let info = crate::result::RunInfo {
            device: "test: built here, not a GPU run".into(),
            ..Default::default()
        };
        let base = crate::differential::predicted(&info, &ex);
        assert_eq!(base.outcome, Ending::trap(715));
        let judged = |ending: Ending| {
            let mut obs = base.clone();
            obs.outcome = ending;
            let mut j = r.clone();
            crate::judge::judge(c, &ex, &obs, &mut j);
            j
        };
        let undecided = Difference::Undecided {
            rule: "address.misaligned".into(),
            predicted: kinds.to_vec(),
            between: Undecided::Kind,
        };
        let j = judged(Ending::trap(716));
        assert_eq!(j.verdict, Verdict::TrapExpected, "{}", j.detail);
        assert_eq!(j.differences.last(), Some(&undecided));
        for (ending, site) in [
            (Ending::trap(700), "mispredicted: trap IllegalAddress"),
            (Ending::Completed, "mispredicted: completed"),
            (Ending::Timeout(vec![]), "mispredicted: timeout"),
        ] {
            let j = judged(ending.clone());
            assert_eq!(j.verdict, Verdict::UndefinedMispredicted, "{}", j.detail);
            assert!(j.verdict.is_failure());
            assert_eq!(
                j.differences[0],
                Difference::Mispredicted {
                    predicted: kinds.to_vec(),
                    ended: ending
                }
            );
            assert_eq!(j.differences[0].site(), site);
            assert!(j.detail.contains("outcome mispredicted"), "{}", j.detail);
        }
        // Recorded, a mispredicted run makes the case a reference failure.
        let mut recorded = c.clone();
        let mut obs = base.clone();
        obs.outcome = Ending::Completed;
        recorded.observed = vec![obs];
        let (r2, _) = reference_side("f", &recorded, &known, Profile::Sm90);
        assert_eq!(r2.verdict, Verdict::ReferenceFail, "{}", r2.detail);
        assert!(
            r2.detail.contains("undefined, outcome mispredicted"),
            "{}",
            r2.detail
        );
    }
}
