use super::oracle::{static_oracles, Validates};
use super::swarm::{Families, Family};
use super::*;
use crate::case::model::StepOp;
use proptest::prelude::*;

#[test]
fn empty_input_gives_a_valid_case() {
    let g = generate_bytes(&[], &GenConfig::default());
    assert!(!g.case.program.is_empty());
    for o in static_oracles() {
        o.check(&g).unwrap();
    }
}

#[test]
fn families_and_targets_follow_the_config() {
    let cfg = GenConfig { targets: vec![Target::SM_80], families: Families::of(&[Family::CpAsync]), ..GenConfig::default() };
    for seed in 0..200u8 {
        let bytes: Vec<u8> = (0..200).map(|i| seed.wrapping_mul(31).wrapping_add(i as u8 ^ seed)).collect();
        let g = generate_bytes(&bytes, &cfg);
        assert_eq!(g.case.target, Target::SM_80);
        assert_eq!(g.case.launch.cluster, [1, 1, 1]);
        for s in &g.case.program {
            if let StepOp::Ptx(t) = &s.op {
                assert!(t.starts_with("cp.async.") || t.starts_with("mbarrier."), "{t}");
                assert!(!t.starts_with("cp.async.bulk"), "{t}");
            }
        }
    }
}

#[test]
fn illegal_intent_names_a_ptx_step() {
    let cfg = GenConfig { illegal_per_256: 255, ..GenConfig::default() };
    let mut seen = 0;
    for seed in 0..300u32 {
        let bytes: Vec<u8> = (0..HEADER + 4 * BLOCK).map(|i| (seed.wrapping_mul(2654435761).rotate_left(i as u32 % 32) >> 7) as u8).collect();
        let g = generate_bytes(&bytes, &cfg);
        if let Intent::Illegal { step, .. } = &g.intent {
            seen += 1;
            assert!(matches!(g.case.program[*step].op, StepOp::Ptx(_)), "{g:?}");
            assert_eq!(g.case.expect, None);
        }
    }
    assert!(seen > 100, "{seen}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn strategy_cases_validate(c in strategy::case()) {
        let g = Generated { case: c, intent: Intent::WellDefined, episodes: 0 };
        prop_assert!(oracle::Oracle::check(&Validates, &g).is_ok());
    }
}
