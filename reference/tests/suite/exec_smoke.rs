//! The cases under cases/exec-smoke/: each runs through `execute` with the outcome its
//! `expect` states; completed cases leave every checked region exactly known.

use crate::exec_support::*;
use ptxconform_reference::case::{Case, Expect};
use ptxconform_reference::sem::exec::{execute, ExpectedHw, Outcome};
use std::path::Path;

fn smoke() -> Vec<(String, Case)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/exec-smoke");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("cases/exec-smoke")
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .flat_map(|p| {
            // Through the case loader: the smoke cases also pass schema and name validation.
            let cases = ptxconform_reference::case::load_file(&p).unwrap_or_else(|e| panic!("{e}"));
            cases.into_iter().map(move |c| (p.display().to_string(), c))
        })
        .collect()
}

#[test]
fn smoke_cases_meet_their_expectation() {
    let cases = smoke();
    assert!(cases.len() >= 6);
    for (path, c) in &cases {
        let x = execute(c).unwrap_or_else(|e| panic!("{path}: {e}"));
        match c.expect.as_ref().expect("smoke cases state an expectation") {
            Expect::Pass | Expect::Bytes(_) => {
                assert_eq!(x.outcome, Outcome::Defined, "{path}");
                assert_eq!(x.expected_hw, ExpectedHw::Completes);
                for name in &c.check {
                    if let Some(b) = x
                        .final_state
                        .global
                        .get(name)
                        .or_else(|| x.final_state.shared[0].get(name))
                    {
                        assert!(known(b).is_some(), "{path}: {name} not exactly known");
                    }
                }
            }
            Expect::Undefined(rule) => {
                assert!(
                    matches!(&x.outcome, Outcome::Undefined { ub, .. } if ub.rule == rule),
                    "{path}: {:?}",
                    x.outcome
                )
            }
            Expect::Timeout => assert_eq!(x.expected_hw, ExpectedHw::Timeout, "{path}"),
            Expect::Trap => assert_eq!(x.expected_hw, ExpectedHw::MayTrap, "{path}"),
            Expect::DriverRejects => assert_eq!(x.meets(c.expect.as_ref()), Ok(()), "{path}"),
            Expect::Illegal(r) => assert!(
                ptxconform_reference::case::validate::illegal_steps(c)
                    .iter()
                    .any(|s| s.broken.contains(r)),
                "{path}"
            ),
        }
    }
}

fn get(name: &str) -> Case {
    smoke()
        .into_iter()
        .find(|(_, c)| c.name == name)
        .map(|(_, c)| c)
        .unwrap_or_else(|| panic!("{name}"))
}

#[test]
fn smoke_values() {
    let x = execute(&get("exec-smoke.bulk.g2s_complete_tx")).unwrap();
    assert_eq!(
        known(&x.final_state.shared[0]["dst"]).unwrap(),
        pattern(11, 128)
    );
    let bar = x.final_state.mbarriers[0]["bar"];
    assert_eq!(
        (bar.phase_parity, bar.pending, bar.tx_count),
        (Some(1), Some(1), Some(0))
    );

    let x = execute(&get("exec-smoke.reduce.add_u32")).unwrap();
    let acc = known(&x.final_state.global["acc"]).unwrap();
    let words: Vec<u32> = acc
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(words, vec![11, 22, 33, 44, 55, 66, 77, 1]);

    let x = execute(&get("exec-smoke.bulk.multicast")).unwrap();
    let s = pattern(9, 32);
    for cta in 0..4 {
        let d = known(&x.final_state.shared[cta]["dst"]).unwrap();
        assert_eq!(
            d,
            if cta == 0 || cta == 2 {
                s.clone()
            } else {
                vec![0xAA; 32]
            },
            "cta {cta}"
        );
    }

    let x = execute(&get("exec-smoke.mbarrier.cp_async_arrive")).unwrap();
    assert_eq!(
        known(&x.final_state.shared[0]["buf"]).unwrap(),
        pattern(1, 16)
    );

    let x = execute(&get("exec-smoke.wait.never_completes")).unwrap();
    let Outcome::Undefined { ub, step } = x.outcome else {
        panic!()
    };
    assert_eq!((ub.rule, step), ("wait.never_completes", 3));
}
