//! A-EXEC-HW against the corpus's hardware observations: every recorded run of a case the model
//! calls undefined ended in the outcome class the model expects of silicon, and where the model
//! runs that UB as silicon does (`execute_silicon`), the bytes it is certain of are the bytes
//! silicon left.

use ptxconform_reference::case::{load::load_dir_each, split_region_key};
use ptxconform_reference::gen::sweep::{predict_from, OutcomeClass};
use ptxconform_reference::sem::exec::{execute_silicon, execute_with, ExecOptions, Outcome};
use ptxconform_reference::sem::memory::Byte;
use ptxconform_reference::sem::profile::Profile;
use std::path::Path;

#[test]
fn undefined_cases_end_on_silicon_as_the_model_expects() {
    let opts = ExecOptions::of(Profile::Sm90);
    let (mut runs, mut bytes_checked, mut wrong) = (0, 0, Vec::new());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    for (path, cases, _) in load_dir_each(&dir) {
        for c in cases.iter().filter(|c| !c.observed.is_empty()) {
            let Ok(ex) = execute_with(c, opts) else {
                continue;
            };
            let Outcome::Undefined { ub, .. } = &ex.outcome else {
                continue;
            };
            let expected = predict_from(&ex).outcome;
            let silicon = execute_silicon(c, opts)
                .ok()
                .filter(|s| s.outcome == Outcome::Defined);
            for o in &c.observed {
                runs += 1;
                let got = OutcomeClass::of(&o.outcome);
                if got != expected {
                    wrong.push(format!(
                        "{}: {} ({}): expected {}, {} {}",
                        path.display(),
                        c.name,
                        ub.rule,
                        expected.name(),
                        o.device,
                        got.name()
                    ));
                }
                let (Some(s), true) = (&silicon, got == OutcomeClass::Completion) else {
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
