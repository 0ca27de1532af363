use super::*;
use ptxconform_reference::case::{Ending, TrapKind};
use ptxconform_reference::sem::exec::OutcomeClass;
use std::collections::BTreeSet;

const N: u64 = 48;

fn plan(minimize: usize) -> Plan {
    Plan {
        profile: Profile::Sm90,
        seed: 5,
        draw: Draw::V1,
        start: 0,
        count: N,
        batch: 16,
        minimize,
        minimize_rounds: 3,
    }
}

fn reference() -> ptxconform_core::differential::Predicted {
    ptxconform_core::differential::Predicted {
        info: RunInfo::default(),
    }
}

/// The model's prediction for a device agrees with itself everywhere, and every configuration
/// executes on the reference (none is left unobserved by a reference failure).
#[test]
fn prediction_agrees_with_itself() {
    for draw in [Draw::V1, Draw::V2] {
        let r = sweep(&mut reference(), Plan { draw, ..plan(0) }, None).unwrap();
        assert_eq!(r.count, N);
        assert_eq!(r.total.not_observed, 0, "{:#?}", r.rows);
        assert!(r.disagreements.is_empty(), "{:#?}", r.disagreements);
        assert!(r.total.defined > 0 && r.total.undefined > 0);
        assert_eq!(r.coverage.is_some(), draw == Draw::V2);
        for d in score::DIMENSIONS {
            let v2 = d.starts_with("v2:");
            if v2 && draw == Draw::V1 {
                assert!(!r.classes.contains_key(d), "{d}");
                continue;
            }
            let sum: u64 = r.classes[d]
                .values()
                .map(|t| t.defined + t.undefined + t.not_observed)
                .sum();
            // Only loads have an expect-tx.
            if d == "v2: expect-tx" {
                assert!(sum > 0 && sum < N, "{d}");
            } else {
                assert_eq!(sum, N, "{d}");
            }
        }
    }
}

/// A device that departs in chosen configurations: one byte flipped where the model predicts
/// exact bytes, another outcome class where it predicts undefined behaviour. With `as_encoded`
/// every configuration completes with the bytes of its maps as encoded
/// (A-TENSOR-ACCEPTED-MAP-HW), and a departure is always the flipped byte.
struct Departing {
    flip: BTreeSet<String>,
    as_encoded: bool,
    /// Every trap reports this CUDA error instead of the predicted one.
    traps_as: Option<i32>,
}

/// Another outcome class than the prediction's.
fn other_outcome(p: &Predicted) -> Ending {
    if p.outcomes.has_class(OutcomeClass::Traps) {
        Ending::Completed
    } else {
        Ending::trap(0)
    }
}

impl Backend for Departing {
    fn info(&self) -> RunInfo {
        RunInfo::default()
    }
    fn runs(&self, _: Target) -> bool {
        true
    }
    fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
        Ok(cases
            .iter()
            .map(|(c, ex)| {
                let encoded = self
                    .as_encoded
                    .then(|| gen::as_encoded(c, ex).expect("a map the driver accepts"));
                let mut o = ptxconform_core::differential::predicted(
                    &RunInfo::default(),
                    encoded.as_ref().unwrap_or(ex),
                );
                if let (Some(code), Ending::Trap { .. }) = (self.traps_as, &o.outcome) {
                    o.outcome = Ending::trap(code);
                }
                if self.flip.contains(&c.name) {
                    let p = predict_from(ex);
                    if p.well_defined() || self.as_encoded {
                        if let Some(b) = o.regions.get_mut(&c.memory.global[0].name) {
                            b[0] ^= 0xff;
                        }
                    } else {
                        o.outcome = other_outcome(&p);
                    }
                }
                Run::observed(o)
            })
            .collect())
    }
}

#[test]
fn departures_are_exactly_the_disagreements_in_their_classes() {
    let base = sweep(&mut reference(), plan(0), None).unwrap();
    let defined: Vec<&Row> = base
        .rows
        .iter()
        .filter(|r| r.well_defined())
        .take(3)
        .collect();
    let undefined: Vec<&Row> = base
        .rows
        .iter()
        .filter(|r| !r.well_defined())
        .take(2)
        .collect();
    assert_eq!((defined.len(), undefined.len()), (3, 2));
    let flip: BTreeSet<String> = defined
        .iter()
        .chain(&undefined)
        .map(|r| r.case.clone())
        .collect();
    let dir = std::env::temp_dir().join(format!("ptxconform-sweep-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut dev = Departing {
        flip: flip.clone(),
        as_encoded: false,
        traps_as: None,
    };
    let r = sweep(&mut dev, plan(8), Some(&dir)).unwrap();
    let got: BTreeSet<String> = r.disagreements.iter().map(|d| d.case.clone()).collect();
    assert_eq!(got, flip);
    assert_eq!(r.total.defined - r.total.defined_agree, 3);
    assert_eq!(r.total.undefined - r.total.undefined_agree, 2);
    // Every observation's record was written as its batch finished.
    let recs = std::fs::read_to_string(dir.join("records.jsonl")).unwrap();
    assert_eq!(
        crate::records::parse_lines("records.jsonl", &recs).unwrap(),
        r.records
    );
    let text = std::fs::read_to_string(dir.join("disagreements.yaml")).unwrap();
    let saved = ptxconform_reference::case::load_str(&text, "saved").unwrap();
    assert_eq!(saved.len(), flip.len());
    let mut shrunk = 0;
    for d in &r.disagreements {
        let b = base.rows.iter().find(|b| b.case == d.case).unwrap();
        assert_eq!(
            (&d.key, &d.predicted, &d.rule),
            (&b.key, &b.predicted, &b.rule)
        );
        // Each class the row belongs to counts it as a disagreement.
        for dim in score::DIMENSIONS {
            let Some(v) = score::dimension_value(d, dim) else {
                continue;
            };
            let t = &r.classes[dim][&v];
            assert!(t.defined_agree < t.defined || t.undefined_agree < t.undefined);
        }
        let cases: Vec<&Case> = saved
            .iter()
            .filter(|c| {
                c.description.contains(&format!(
                    "observed {}",
                    score::outcome_name(d.observed.unwrap())
                ))
            })
            .filter(|c| c.name == d.case)
            .collect();
        assert!(!cases.is_empty(), "{} not saved", d.case);
        assert_eq!(cases[0].observed.len(), 1, "{text}");
        // Minimized: a saved map is never larger than the drawn one, and it still disagrees.
        let drawn = ptxconform_reference::gen::sweep::draw(5, d.index).case;
        let size = |c: &Case| -> u64 {
            let m = &c.memory.tensor_maps[0].map;
            m.global_dim.iter().product::<u64>()
                + m.box_dim.iter().flatten().map(|&b| b as u64).sum::<u64>()
        };
        assert!(size(cases[0]) <= size(&drawn), "{text}");
        shrunk += (cases[0].memory.tensor_maps != drawn.memory.tensor_maps
            || cases[0].program != drawn.program) as usize;
    }
    assert!(shrunk > 0, "no disagreement was minimized");
    assert!(r
        .markdown()
        .contains(&format!("## Disagreements ({})", flip.len())));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Records of a sweep, replayed, judge every configuration as the live sweep did: the bytes of
/// agreeing regions come back from the prediction, those of departing ones from the kept runs.
#[test]
fn replayed_records_judge_as_the_live_sweep() {
    let base = sweep(&mut reference(), plan(0), None).unwrap();
    let flip: BTreeSet<String> = base
        .rows
        .iter()
        .filter(|r| r.well_defined())
        .take(2)
        .chain(base.rows.iter().filter(|r| !r.well_defined()).take(2))
        .map(|r| r.case.clone())
        .collect();
    let mut dev = Departing {
        flip,
        as_encoded: false,
        traps_as: None,
    };
    let live = sweep(&mut dev, plan(0), None).unwrap();
    assert_eq!(live.records.len() as u64, N);
    let kept = live
        .records
        .iter()
        .filter(|r| r.regions.values().any(|d| d.runs.is_some()))
        .count();
    assert_eq!(
        kept, 2,
        "only the departing well-defined regions keep bytes"
    );
    let text = crate::records::to_lines(&live.records);
    let back = crate::records::parse_lines("records.jsonl", &text).unwrap();
    assert_eq!(back, live.records);
    let replayed = replay::replay(back, plan(0), None).unwrap();
    let key = |r: &Row| (r.case.clone(), r.observed, r.agree, r.verdict.clone());
    assert_eq!(
        replayed.rows.iter().map(key).collect::<Vec<_>>(),
        live.rows.iter().map(key).collect::<Vec<_>>()
    );
    assert_eq!(replayed.total, live.total);
}

/// A record that no longer matches the model's bytes (and kept none) is a disagreement where the
/// model is certain, never a pass; a damaged line names its file and line.
#[test]
fn replay_without_kept_bytes_disagrees_and_bad_lines_are_located() {
    let live = sweep(&mut reference(), plan(0), None).unwrap();
    let mut recs = live.records.clone();
    let (i, r) = recs
        .iter_mut()
        .enumerate()
        .find(|(_, r)| !r.regions.is_empty())
        .unwrap();
    let d = r.regions.values_mut().next().unwrap();
    d.fnv = "0000000000000000".into();
    let replayed = replay::replay(recs, plan(0), None).unwrap();
    let row = &replayed.rows[i];
    assert!(row.agree != Some(true), "{row:?}");
    assert_eq!(row.observed, Some(HwOutcome::Completes), "{row:?}");
    assert!(row.detail.starts_with("recorded bytes differ"), "{row:?}");
    let e = crate::records::parse_lines("r.jsonl", "{\"seed\": 1}\n").unwrap_err();
    assert!(e.starts_with("r.jsonl:1:"), "{e}");
}

/// Only a replay's records say, typed, that a case's recorded bytes differ from the prediction:
/// a device whose words for not running a case read the same leaves its rows unobserved.
#[test]
fn a_detail_is_never_read_as_unkept_bytes() {
    struct Refusing;
    impl Backend for Refusing {
        fn info(&self) -> RunInfo {
            RunInfo::default()
        }
        fn runs(&self, _: Target) -> bool {
            true
        }
        fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
            let why = replay::Unkept {
                region: "dst@cta0".into(),
                certain: true,
            };
            Ok(cases
                .iter()
                .map(|_| Run {
                    ran: ptxconform_core::differential::Ran::NotRun(why.to_string()),
                    ptx: None,
                    wall_us: 0,
                    device: String::new(),
                    build: None,
                })
                .collect())
        }
    }
    let r = sweep(
        &mut Refusing,
        Plan {
            count: 4,
            ..plan(0)
        },
        None,
    )
    .unwrap();
    for row in &r.rows {
        assert_eq!(
            row.detail,
            "recorded bytes differ from this prediction in `dst@cta0` (not kept), where it is certain"
        );
        assert_eq!(
            (row.observed, row.agree, row.bytes),
            (None, None, None),
            "{row:?}"
        );
    }
    assert_eq!(r.total.not_observed, 4);
}

/// Undefined completions through maps the driver accepts are judged on the bytes of the maps as
/// encoded, live and replayed alike: a flipped byte is a disagreement although the outcome class
/// is right. Seed 2's configurations 1306 (strides that do not cover) and 2469 (interleave 32B
/// with 64B swizzle) both complete through such a map.
#[test]
fn accepted_map_completions_are_judged_on_their_bytes() {
    for (index, flipped) in [(1306, false), (2469, false), (1306, true), (2469, true)] {
        let plan = Plan {
            seed: 2,
            start: index,
            count: 1,
            ..plan(0)
        };
        let flip = if flipped {
            BTreeSet::from([gen::draw(2, index).case.name])
        } else {
            BTreeSet::new()
        };
        let mut dev = Departing {
            flip,
            as_encoded: true,
            traps_as: None,
        };
        let live = sweep(&mut dev, plan, None).unwrap();
        let row = &live.rows[0];
        assert!(!row.well_defined(), "{row:?}");
        assert_eq!(row.observed, Some(HwOutcome::Completes));
        assert_eq!(
            (row.bytes, row.agree),
            (Some(!flipped), Some(!flipped)),
            "{row:?}"
        );
        assert_eq!(live.total.undefined_bytes, 1);
        let replayed = replay::replay(live.records.clone(), plan, None).unwrap();
        assert_eq!(replayed.rows[0].bytes, row.bytes);
        assert_eq!(replayed.total, live.total);
    }
}

/// A replay rebuilds a load with the complete-tx count its record ran with, not the current
/// model's (a completed load whose recorded count is 16 bytes higher now reads as a
/// disagreement: that program hangs), and a record whose case fingerprint differs from the
/// rebuilt case is reported, not judged.
#[test]
fn replay_rebuilds_the_recorded_count_and_refuses_another_case() {
    let live = sweep(&mut reference(), plan(0), None).unwrap();
    let (i, rec) = live
        .records
        .iter()
        .enumerate()
        .find(|(k, r)| {
            r.complete_tx.is_some() && live.rows[*k].well_defined() && r.outcome.read_back()
        })
        .expect("a well-defined load that completed");
    assert_eq!(rec.case_fnv.as_ref().map(String::len), Some(16));
    let judged = |edit: &dyn Fn(&mut Record)| {
        let mut recs = live.records.clone();
        edit(&mut recs[i]);
        replay::replay(recs, plan(0), None).unwrap().rows[i].clone()
    };
    assert_eq!(judged(&|_| {}).agree, Some(true));
    let raised = judged(&|r| {
        r.complete_tx = r.complete_tx.map(|t| t + 16);
        r.case_fnv = None;
    });
    assert_eq!(raised.predicted, vec![HwOutcome::Hangs], "{raised:?}");
    assert_eq!(raised.agree, Some(false), "{raised:?}");
    let other = judged(&|r| r.case_fnv = Some("0123456789abcdef".into()));
    assert_eq!(other.agree, None, "{other:?}");
    assert!(other.detail.contains("another case"), "{other:?}");
}

/// Draw v1 is unchanged: configurations of the H100 sweep of seed 6 rebuild the very cases that
/// ran (the fingerprints their records kept), with the expect-tx recorded.
#[test]
fn v1_draws_rebuild_the_recorded_cases() {
    let text = include_str!("../../../reports/sweep/h100-2026-11-26-seed6/records.jsonl");
    let recs = crate::records::parse_lines("seed6", text).unwrap();
    let mut checked = 0;
    for r in recs.iter().take(40) {
        assert_eq!(r.draw().unwrap(), Draw::V1);
        let mut c = gen::draw(r.seed, r.index).config;
        c.complete_tx = r.complete_tx.or(c.complete_tx);
        assert_eq!(
            r.case_fnv.as_deref(),
            Some(crate::records::case_digest(&c.build()).as_str()),
            "{}",
            r.index
        );
        checked += 1;
    }
    assert_eq!(checked, 40);
}

/// An observed trap's kind: exact where the prediction is that trap alone, undecided where it is
/// one of several, wrong where it is not allowed; counted so, and in the confusion table.
#[test]
fn trap_kinds_are_scored_exact_undecided_or_wrong() {
    let ii = HwOutcome::Traps(TrapKind::IllegalInstruction);
    let mis = HwOutcome::Traps(TrapKind::MisalignedAddress);
    let both = Prediction::of_set(ii, &[mis]);
    let k = |p: &Prediction, t| KindScore::of(p, t);
    assert_eq!(
        k(&Prediction::one(ii), TrapKind::IllegalInstruction),
        KindScore::Exact
    );
    assert_eq!(k(&both, TrapKind::MisalignedAddress), KindScore::Undecided);
    assert_eq!(
        k(&Prediction::one(ii), TrapKind::IllegalAddress),
        KindScore::Wrong
    );
    assert_eq!(
        k(
            &Prediction::of_set(HwOutcome::Completes, &[ii]),
            TrapKind::IllegalInstruction
        ),
        KindScore::Undecided
    );
    // A device whose traps all report IllegalAddress: every predicted IllegalInstruction trap is
    // a wrong kind and a disagreement, its class still right.
    let base = sweep(&mut reference(), plan(0), None).unwrap();
    let mut relabel = Departing {
        flip: BTreeSet::new(),
        as_encoded: false,
        traps_as: Some(700),
    };
    let r = sweep(&mut relabel, plan(0), None).unwrap();
    assert!(r.total.traps > 0);
    assert_eq!(r.total.traps, base.total.traps);
    assert_eq!(
        (r.total.undefined_agree, r.total.undefined),
        (base.total.undefined_agree, base.total.undefined)
    );
    assert_eq!(r.total.traps_exact, 0, "{:?}", r.total);
    assert_eq!(r.total.figures()[2], (0, r.total.traps));
    let wrong = r
        .rows
        .iter()
        .filter(|x| x.kind == Some(KindScore::Wrong))
        .count() as u64;
    assert_eq!(wrong, r.total.traps - r.total.traps_undecided);
    assert_eq!(r.disagreements.len() as u64, wrong);
    let observed: u64 = r.trap_kinds.values().map(|m| m["IllegalAddress"]).sum();
    assert_eq!(observed, r.total.traps);
    let md = r.markdown();
    assert!(
        md.contains("## Targets (issue 34)") && md.contains("| predicted | IllegalAddress |"),
        "{md}"
    );
}

/// A set of several classes is undecided: allowed, yet counted against the class target.
#[test]
fn undecided_classes_count_against_the_target() {
    let base = sweep(&mut reference(), plan(0), None).unwrap();
    let mut row = base
        .rows
        .iter()
        .find(|r| !r.well_defined() && r.agree == Some(true))
        .unwrap()
        .clone();
    let mut t = Tally::default();
    t.add(&row);
    assert_eq!(
        (t.undefined, t.undefined_decided(), t.undefined_undecided),
        (1, 1, 0)
    );
    row.predicted = vec![HwOutcome::Completes, HwOutcome::Hangs];
    row.predicted.extend(row.observed);
    row.predicted.sort();
    row.predicted.dedup();
    let mut t = Tally::default();
    t.add(&row);
    assert_eq!(
        (
            t.undefined,
            t.undefined_agree,
            t.undefined_decided(),
            t.undefined_undecided
        ),
        (1, 1, 0, 1)
    );
    assert!(score::dimension_value(&row, "predicted")
        .unwrap()
        .starts_with("undecided"));
}

/// Draw v2 records say so, and replay as the live sweep judged them; draw v1 records keep their
/// old form (no `draw` field).
#[test]
fn v2_records_replay_as_the_live_sweep() {
    let v2 = Plan {
        draw: Draw::V2,
        ..plan(0)
    };
    let live = sweep(&mut reference(), v2, None).unwrap();
    assert!(live.records.iter().all(|r| r.draw == 2));
    let text = crate::records::to_lines(&live.records);
    assert!(text.lines().all(|l| l.contains("\"draw\":2")));
    let back = crate::records::parse_lines("records.jsonl", &text).unwrap();
    let replayed = replay::replay(back, v2, None).unwrap();
    let key = |r: &Row| {
        (
            r.case.clone(),
            r.observed,
            r.agree,
            r.kind,
            r.verdict.clone(),
        )
    };
    assert_eq!(
        replayed.rows.iter().map(key).collect::<Vec<_>>(),
        live.rows.iter().map(key).collect::<Vec<_>>()
    );
    assert_eq!(replayed.total, live.total);
    let v1 = sweep(
        &mut reference(),
        Plan {
            count: 4,
            ..plan(0)
        },
        None,
    )
    .unwrap();
    assert!(!crate::records::to_lines(&v1.records).contains("draw"));
    let mut bad = v1.records.clone();
    bad[0].draw = 3;
    assert!(replay::replay(bad, v2, None)
        .unwrap_err()
        .contains("no draw 3"));
}

/// Draw v2's cases emit for the GPU with exactly their allocation as dynamic shared memory (up to
/// the device's maximum; above 48 KiB the launch opts in).
#[test]
fn v2_cases_emit_with_their_allocation() {
    let mut above_48k = 0;
    for i in 0..2000 {
        let case = gen::draw_as(Draw::V2, 7, i).case;
        let em = ptxconform_gpu::emit::emit(&case).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        assert_eq!(Some(em.dyn_smem_bytes), case.memory.shared_allocation);
        assert!(em.dyn_smem_bytes <= gen::SMEM_MAX);
        above_48k += (em.dyn_smem_bytes > 48 * 1024) as u32;
    }
    assert!(above_48k > 0);
}
