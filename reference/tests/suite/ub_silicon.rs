//! A-EXEC-HW against the corpus's hardware observations: every recorded run of a case the model
//! calls undefined ended in the outcome class the model expects of silicon, and where the model
//! runs that UB as silicon does (`execute_silicon`), the bytes it is certain of are the bytes
//! silicon left.

use ptxconform_reference::case::{load::load_dir_each, split_region_key};
use ptxconform_reference::gen::sweep::predict_from;
use ptxconform_reference::sem::exec::{
    execute_silicon, execute_with, ExecOptions, HwOutcome, Outcome, Prediction,
};
use ptxconform_reference::sem::memory::Byte;
use ptxconform_reference::sem::profile::Profile;
use std::path::Path;

/// `probes/` holds configurations the model does not predict yet (each file says which); like
/// `run`, the corpus checks leave them out, and
/// [`issue34_probes_are_undecided_and_land_the_models_bytes`] keeps them in view.
fn opt_in(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str() == "probes")
}

#[test]
fn undefined_cases_end_on_silicon_as_the_model_expects() {
    let opts = ExecOptions::of(Profile::Sm90);
    let (mut runs, mut bytes_checked, mut wrong) = (0, 0, Vec::new());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    for (path, cases, _) in load_dir_each(&dir) {
        if opt_in(&path) {
            continue;
        }
        for c in cases.iter().filter(|c| !c.observed.is_empty()) {
            let Ok(ex) = execute_with(c, opts) else {
                continue;
            };
            let Outcome::Undefined { ub, .. } = &ex.outcome else {
                continue;
            };
            let expected = predict_from(&ex).outcomes;
            let silicon = execute_silicon(c, opts)
                .ok()
                .filter(|s| s.outcome == Outcome::Defined);
            for o in &c.observed {
                runs += 1;
                let got = HwOutcome::of(&o.outcome);
                if !expected.has_class(got.class()) {
                    wrong.push(format!(
                        "{}: {} ({}): expected {}, {} {}",
                        path.display(),
                        c.name,
                        ub.rule,
                        expected,
                        o.device,
                        got
                    ));
                }
                let (Some(s), true) = (&silicon, got == HwOutcome::Completes) else {
                    continue;
                };
                for (key, seen) in &o.regions {
                    let (name, cta) = split_region_key(key);
                    let model = match cta {
                        None => s.final_state.global.get(name),
                        Some(k) => k
                            .parse::<usize>()
                            .ok()
                            .and_then(|k| s.final_state.shared.get(k))
                            .and_then(|m| m.get(name)),
                    };
                    let Some(model) = model else { continue };
                    bytes_checked += 1;
                    let off = model
                        .iter()
                        .zip(seen)
                        .position(|(m, b)| matches!(m, Byte::Known(v) if v != b));
                    if let Some(i) = off {
                        wrong.push(format!(
                            "{}: {} on {}: `{key}` byte {i} differs from the silicon reading",
                            path.display(),
                            c.name,
                            o.device
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "{runs} runs of undefined cases, {bytes_checked} regions against the silicon reading"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The corpus holds H100 and H200 runs of undefined cases of ~40 rules, and a bulk store
    // whose size silicon rounds down (A-BULK-SIZE-ROUNDS-DOWN).
    assert!(runs >= 70, "{runs} recorded runs of undefined cases");
    assert!(
        bytes_checked >= 4,
        "{bytes_checked} regions compared with the silicon reading"
    );
}

/// Every recorded run of a case the model calls undefined ended in one of the outcomes the model
/// predicts (class and trap kind), and recorded traps name their kind.
#[test]
fn recorded_undefined_runs_are_inside_the_prediction() {
    use ptxconform_reference::sem::exec::HwOutcome;
    let opts = ExecOptions::of(Profile::Sm90);
    let (mut runs, mut traps, mut wrong) = (0, 0, Vec::new());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    for (path, cases, _) in load_dir_each(&dir) {
        if opt_in(&path) {
            continue;
        }
        for c in cases.iter().filter(|c| !c.observed.is_empty()) {
            let Ok(ex) = execute_with(c, opts) else {
                continue;
            };
            if ex.outcome == Outcome::Defined {
                continue;
            }
            for o in &c.observed {
                runs += 1;
                let got = HwOutcome::of(&o.outcome);
                traps += usize::from(matches!(got, HwOutcome::Traps(_)));
                if !ex.prediction.allows(got) {
                    wrong.push(format!(
                        "{}: {} on {}: {got}, predicted {}",
                        path.display(),
                        c.name,
                        o.device,
                        ex.prediction
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(runs >= 80 && traps >= 7, "{runs} runs, {traps} traps");
}

/// The shared-window probes (`cases/ub/shared_window.yaml`): an access past its region is
/// predicted to complete while it ends within the CTA's allocation rounded up to
/// `SHARED_WINDOW_GRANULE`, and to trap with an illegal address past it.
#[test]
fn shared_window_probes_are_predicted_by_the_allocation() {
    use ptxconform_reference::case::{load_file, TrapKind};
    use ptxconform_reference::layout::Layout;
    use ptxconform_reference::sem::exec::{HwOutcome, Prediction};
    use ptxconform_reference::sem::profile::SHARED_WINDOW_GRANULE;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/ub/shared_window.yaml");
    let cases = load_file(&path).unwrap();
    let completes = Prediction::one(HwOutcome::Completes);
    let traps = Prediction::one(HwOutcome::Traps(TrapKind::IllegalAddress));
    let mut n_traps = 0;
    for c in &cases {
        let ex = execute_with(c, ExecOptions::of(Profile::Sm90)).unwrap();
        let Outcome::Undefined { ub, .. } = &ex.outcome else {
            panic!("{}: defined", c.name)
        };
        let a = ub.shared_access.unwrap();
        let layout = Layout::of(c).unwrap();
        assert_eq!(Some(a.allocation), c.memory.shared_allocation, "{}", c.name);
        assert_eq!(layout.shared_allocation, a.allocation);
        let bound = a.allocation.div_ceil(SHARED_WINDOW_GRANULE) * SHARED_WINDOW_GRANULE;
        let past = a.end > bound as i64;
        n_traps += usize::from(past);
        assert_eq!(
            ex.prediction,
            if past {
                traps.clone()
            } else {
                completes.clone()
            },
            "{}",
            c.name
        );
    }
    // Named points of the grid under the 128-byte granule.
    let predicted = |name: &str| {
        let c = cases.iter().find(|c| c.name == name).unwrap();
        execute_with(c, ExecOptions::of(Profile::Sm90))
            .unwrap()
            .prediction
    };
    assert_eq!(predicted("ub.shared_window.s2g.a64.plus16"), completes);
    assert_eq!(predicted("ub.shared_window.s2g.a64.plus128"), traps);
    assert_eq!(predicted("ub.shared_window.g2s.a1024.at_end"), completes);
    assert_eq!(predicted("ub.shared_window.g2s.a1024.plus16"), traps);
    assert_eq!(predicted("ub.shared_window.s2g.a49167.plus1"), completes);
    // A swizzled tile whose padded rows span [0, 1024): the whole span decides, not the first
    // unit that leaves the region.
    assert_eq!(
        predicted("ub.shared_window.tensor.box4x8.a144.image"),
        traps
    );
    assert_eq!(
        predicted("ub.shared_window.tensor.box4x8.a896.beyond128"),
        traps
    );
    assert_eq!(
        predicted("ub.shared_window.tensor.box4x8.a1008.beyond16"),
        completes
    );
    assert_eq!(
        predicted("ub.shared_window.tensor.box4x8.a1024.at_end"),
        completes
    );
    assert!(n_traps > 10 && n_traps < cases.len(), "{n_traps}");
}

/// `memory.shared_allocation` below the shared image is refused by the layout.
#[test]
fn a_shared_allocation_below_the_image_is_refused() {
    use ptxconform_reference::case::load_file;
    use ptxconform_reference::layout::Layout;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/ub/shared_window.yaml");
    let mut c = load_file(&path).unwrap().remove(0);
    assert_eq!(Layout::of(&c).unwrap().shared_allocation, 64);
    c.memory.shared_allocation = Some(48);
    assert!(Layout::of(&c).is_err());
    c.memory.shared_allocation = None;
    let l = Layout::of(&c).unwrap();
    assert_eq!(l.shared_allocation, l.shared_bytes);
}

/// The three configurations of issue 34 (`cases/probes/issue34.yaml`): tensor loads that credit
/// their phase more complete-tx than it expects. H100 completed two and timed out on one, so the
/// model predicts such a phase undecided (A-TX-OVERSHOT-HW): every recorded run is inside the
/// prediction, no prediction is one outcome, and the bytes each run left are those of the
/// model's run (the silicon reading for the two maps the driver encodes against the text). When
/// the probes of `cases/probes/interleave-tx.yaml` decide the outcome, this fails: narrow the
/// prediction and move the file into the corpus.
#[test]
fn issue34_probes_are_undecided_and_land_the_models_bytes() {
    use ptxconform_reference::case::load_file;
    use ptxconform_reference::sem::exec::{HwOutcome, Undecided};
    let opts = ExecOptions::of(Profile::Sm90);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/probes/issue34.yaml");
    let cases = load_file(&path).unwrap();
    assert_eq!(cases.len(), 3);
    for c in cases {
        let ex = execute_with(&c, opts).unwrap();
        assert_eq!(
            ex.prediction.undecided(),
            Some(Undecided::Class),
            "{}: {}",
            c.name,
            ex.prediction
        );
        let silicon = execute_silicon(&c, opts).unwrap();
        let dst = &silicon.final_state.shared[0]["dst"];
        assert!(!c.observed.is_empty(), "{}", c.name);
        for o in &c.observed {
            let got = HwOutcome::of(&o.outcome);
            assert!(ex.prediction.allows(got), "{}: {got}", c.name);
            let seen = &o.regions["dst@cta0"];
            assert_eq!(dst.len(), seen.len(), "{}", c.name);
            let off = dst
                .iter()
                .zip(seen)
                .position(|(m, b)| *m != Byte::Known(*b));
            assert_eq!(
                off, None,
                "{}: dst byte differs from the model's run",
                c.name
            );
        }
    }
}

/// A-TENSOR-SMEM-ALIGN-LAST-HW against the recorded tensor sweeps: every recorded trap's kind is
/// the one outcome predicted; a copy whose shared address is misaligned traps MisalignedAddress
/// unless it breaks another copy rule, checked first, whose kind it then takes.
#[test]
fn sweep_traps_are_predicted_with_their_kind() {
    use ptxconform_reference::case::{Ending, TrapKind};
    use ptxconform_reference::gen::sweep::{draw_as, Draw};
    use ptxconform_reference::sem::exec::{HwOutcome, Prediction};
    let sets = [
        "h100-2026-11-25-10k",
        "h100-2026-11-25-seed3",
        "h100-2026-11-25-seed4",
        "h100-2026-11-26-seed6",
        "h200-2026-11-25-seed5",
    ];
    let smem = "tensor.copy:smem-alignment";
    let (mut traps, mut alone, mut after, mut wrong) = (0, 0, 0, Vec::new());
    for set in sets {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../reports/sweep")
            .join(set)
            .join("records.jsonl");
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            let ending: Ending = serde_json::from_value(r["outcome"].clone()).unwrap();
            let Ending::Trap { kind, .. } = ending else {
                continue;
            };
            traps += 1;
            let draw = Draw::of(r["draw"].as_u64().unwrap_or(1) as u8).unwrap();
            let (seed, index) = (r["seed"].as_u64().unwrap(), r["index"].as_u64().unwrap());
            let mut config = draw_as(draw, seed, index).config;
            config.complete_tx = r["complete_tx"].as_u64().or(config.complete_tx);
            let ex = execute_with(&config.build(), ExecOptions::of(Profile::Sm90)).unwrap();
            if ex.prediction != Prediction::one(HwOutcome::Traps(kind)) {
                wrong.push(format!(
                    "{set} #{index}: {kind:?}, predicted {}",
                    ex.prediction
                ));
            }
            if let Outcome::Undefined { ub, .. } = &ex.outcome {
                if ub.rule == smem {
                    match (ub.checked_first, kind) {
                        (None, TrapKind::MisalignedAddress) => alone += 1,
                        (Some(_), TrapKind::IllegalInstruction) => after += 1,
                        _ => {}
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(
        traps >= 7400 && alone >= 900 && after >= 500,
        "{traps} traps, {alone} misaligned alone, {after} after another rule"
    );
}

/// The cases of `file` under `cases/` (and those of the corpus's `ub/remote.yaml` whose name
/// ends with `also`), each undefined and checked against its recorded runs: every run is inside
/// the prediction, and a copy into another CTA names the silicon reading. Where the destination
/// CTA waits on its own object (a case named `…waits…`), the silicon reading leaves every CTA's
/// phase as the dumped parities show (the destination's complete, the issuer's open) and the
/// bytes silicon left. Returns each case's name, rule and prediction, and how many
/// destinations waited.
fn dst_in_another_cta_as_recorded(
    file: &str,
    also: Option<&str>,
) -> (Vec<(String, String, Prediction)>, usize) {
    use ptxconform_reference::case::load_file;
    let opts = ExecOptions::of(Profile::Sm90);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    let mut cases = load_file(&root.join(file)).unwrap();
    let corpus = load_file(&root.join("ub/remote.yaml")).unwrap();
    cases.extend(
        corpus
            .into_iter()
            .filter(|c| also.is_some_and(|a| c.name.ends_with(a))),
    );
    let (mut waits, mut seen) = (0, Vec::new());
    for c in &cases {
        let ex = execute_with(c, opts).unwrap();
        let Outcome::Undefined { ub, .. } = &ex.outcome else {
            panic!("{}: {:?}", c.name, ex.outcome)
        };
        assert!(!c.observed.is_empty(), "{}", c.name);
        for o in &c.observed {
            let got = HwOutcome::of(&o.outcome);
            assert!(
                ex.prediction.allows(got),
                "{}: {got} not in {}",
                c.name,
                ex.prediction
            );
        }
        if ["bulk.dst_not_executing_cta", "tensor.dst_not_executing_cta"].contains(&ub.rule) {
            assert!(
                ex.readings.contains(&"A-BULK-DST-OTHER-CTA-HW"),
                "{}",
                c.name
            );
        }
        seen.push((c.name.clone(), ub.rule.to_string(), ex.prediction.clone()));
        if !c.name.contains("waits") {
            continue;
        }
        waits += 1;
        let s = execute_silicon(c, opts).unwrap();
        for o in &c.observed {
            let mut completed = 0;
            for (key, m) in &o.mbarriers {
                let (name, cta) = split_region_key(key);
                let cta: usize = cta.unwrap().parse().unwrap();
                let model = s.final_state.mbarriers[cta][name].phase_parity;
                assert_eq!(model, Some(u8::from(m.parity0_done)), "{}: {key}", c.name);
                completed += usize::from(m.parity0_done);
            }
            assert_eq!(completed, 1, "{}: only the destination's phase", c.name);
            for (key, seen) in &o.regions {
                let (name, cta) = split_region_key(key);
                let model = match cta {
                    None => &s.final_state.global[name],
                    Some(k) => &s.final_state.shared[k.parse::<usize>().unwrap()][name],
                };
                assert!(
                    model.iter().zip(seen).all(|(m, b)| *m == Byte::Known(*b)),
                    "{}: `{key}` differs from the silicon reading",
                    c.name
                );
            }
        }
    }
    (seen, waits)
}

/// A-BULK-DST-OTHER-CTA-HW (`cases/probes/bulk-dst-other-cta.yaml` and the corpus's
/// `ub.bulk.dst_not_executing_cta.destination_waits`, H33): a .shared::cta bulk copy into
/// another CTA of the cluster writes that CTA and signals its mbarrier at the operand's offset;
/// the generator-9 programs are predicted to trap, and only to.
#[test]
fn bulk_copy_into_another_cta_signals_the_destination_ctas_mbarrier() {
    let (runs, waits) = dst_in_another_cta_as_recorded(
        "probes/bulk-dst-other-cta.yaml",
        Some(".destination_waits"),
    );
    assert_eq!((runs.len(), waits), (8, 2));
    let launch_failed = HwOutcome::Traps(ptxconform_reference::case::TrapKind::LaunchFailed);
    for (name, rule, prediction) in &runs {
        assert_eq!(rule, "bulk.dst_not_executing_cta", "{name}");
        if name.contains(".s51_") {
            assert_eq!(*prediction, Prediction::one(launch_failed), "{name}");
        }
    }
}

/// A-BULK-DST-OTHER-CTA-HW for tensor loads (`cases/probes/tensor-dst-other-cta.yaml`): a load
/// whose .shared::cta destination is another CTA's lands there and signals that CTA's mbarrier,
/// as bulk copies do (1D and 2D tiles in clusters of 2 and 4, an im2col load, a tile under the
/// 128B swizzle).
#[test]
fn tensor_load_into_another_cta_signals_the_destination_ctas_mbarrier() {
    let (runs, waits) = dst_in_another_cta_as_recorded("probes/tensor-dst-other-cta.yaml", None);
    assert_eq!((runs.len(), waits), (6, 4));
    for (name, rule, _) in &runs {
        assert_eq!(rule, "tensor.dst_not_executing_cta", "{name}");
    }
}

/// H33 cut apart (`cases/probes/bulk-dst-other-cta-cut.yaml`): the generator-9 program traps
/// at its last arrive-on, past the pending count of the phase the missing bytes left open
/// (A-MB-COPIES-FIRST-HW's trap), not at the copy: without that arrive-on it times out (and is
/// predicted to hang, only that, where no never-initialized object is signalled); a second
/// arrive-on after a timed-out wait traps with or without the copy.
#[test]
fn bulk_copy_into_another_cta_traps_only_at_a_later_arrive_on() {
    let (runs, waits) = dst_in_another_cta_as_recorded("probes/bulk-dst-other-cta-cut.yaml", None);
    assert_eq!((runs.len(), waits), (5, 0));
    let launch_failed = HwOutcome::Traps(ptxconform_reference::case::TrapKind::LaunchFailed);
    for (name, rule, prediction) in &runs {
        // The control without a copy stops at its wait instead.
        let copies = !name.contains(".no_copy_");
        let expected = if copies {
            "bulk.dst_not_executing_cta"
        } else {
            "wait.never_completes"
        };
        assert_eq!(rule, expected, "{name}");
        if name.contains("second_arrive") {
            assert_eq!(*prediction, Prediction::one(launch_failed), "{name}");
        } else if name.contains("init_all") {
            assert_eq!(*prediction, Prediction::one(HwOutcome::Hangs), "{name}");
        }
    }
}
