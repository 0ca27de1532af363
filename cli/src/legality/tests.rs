use super::*;
use ptxconform_gpu::ptxas;
use ptxconform_reference::ptx::operand::RegTy;
use std::collections::BTreeSet;

#[test]
fn staleness_is_judged_on_the_full_target_set_only() {
    let t = |l: &str| -> Vec<Target> { l.split(',').map(|s| s.parse().unwrap()).collect() };
    assert!(judges_staleness(&t(DEFAULT_TARGETS)));
    assert!(judges_staleness(&t("sm_80,sm_90a,sm_100a,sm_120a")));
    assert!(!judges_staleness(&t("sm_90a")));
}

#[test]
fn planted_bad_line_is_blamed() {
    let Some(p) = ptxas::for_tests() else { return };
    let mut kb = KernelBuilder::new(PtxVersion::MAX_SUPPORTED, Target::SM_90A);
    let mut bad = BTreeSet::new();
    for i in 0..12 {
        let (a, b) = (kb.fresh(RegTy::B32), kb.fresh(RegTy::B64));
        let idx = match i {
            // unknown instruction, unknown qualifier, and a wrong-target feature
            3 => kb.push_line(format!("bogus.op [{a}], {b};")),
            // a parse error (ptxas stops at the first one: a fatal error on its line)
            5 => kb.push_line(format!("cp.async.bulk.prefetch.L2.global [{b}, {a};")),
            7 => kb.push_line(format!(
                "cp.async.bulk.shared::cluster.global.foo [{a}], [{b}], {a}, [{a}];"
            )),
            10 => kb.push_line(format!(
                "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{a}], 32;"
            )),
            _ => kb.push_line(format!("cp.async.bulk.prefetch.L2.global [{b}], {a};")),
        };
        if matches!(i, 3 | 5 | 7 | 10) {
            bad.insert(idx);
        }
    }
    let v = judge_lines(&p, &kb);
    let flagged: BTreeSet<usize> = v
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_some())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(flagged, bad, "{v:?}");
    assert!(v[7].as_deref().unwrap().contains(".foo"), "{:?}", v[7]);
}

#[test]
fn unlocated_error_is_bisected_to_its_line() {
    let Some(p) = ptxas::for_tests() else { return };
    // A call to an undeclared function fails without the usual line mapping in some ptxas
    // versions; whatever ptxas says, the blame must end on that one line.
    let mut kb = KernelBuilder::new(PtxVersion::MAX_SUPPORTED, Target::SM_90A);
    for _ in 0..5 {
        kb.push_line("bar.sync 0;");
    }
    kb.push_line("call nosuchfn;");
    kb.push_line("bar.sync 0;");
    let v = judge_lines(&p, &kb);
    let flagged: Vec<usize> = v
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_some())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(flagged, vec![5], "{v:?}");
}

#[test]
fn exceptions_parse_and_match() {
    let f = parse_exceptions(
        "exceptions:\n  - row: \"cp.async.bulk.*\"\n    targets: [sm_80]\n    checks: [target]\n    reason: assembler_quirk\n    note: n1\n",
    )
    .unwrap();
    assert_eq!(f.exceptions.len(), 1);
    let mut d = Disagreement {
        family: "cp.async.bulk".into(),
        row: "cp.async.bulk.prefetch.L2.global".into(),
        instruction: "x".into(),
        target: Target::SM_80,
        ptx: "9.0".into(),
        check: CheckKind::Target,
        model: "legal".into(),
        model_reason: None,
        ptxas: "accepted".into(),
        listed: None,
        exception: None,
    };
    assert!(f.exceptions[0].matches(&d));
    d.target = Target::SM_90A;
    assert!(!f.exceptions[0].matches(&d));
    assert!(parse_exceptions("exceptions:\n  - reason: assembler_quirk\n    note: x\n").is_err());
    assert!(parse_exceptions("exceptions:\n  - row: x\n    reason: typo\n    note: x\n").is_err());
    // A pattern that is no glob would match nothing: refused at load, naming the exception.
    let e = parse_exceptions(
        "exceptions:\n  - row: \"cp.async[\"\n    reason: assembler_quirk\n    note: x\n",
    )
    .unwrap_err();
    assert!(
        e.starts_with("exception 1: invalid pattern `cp.async[`"),
        "{e}"
    );
    assert!(parse_exceptions("# nothing yet\n")
        .unwrap()
        .exceptions
        .is_empty());
}

#[test]
fn repository_exceptions_file_parses() {
    load_exceptions(&default_exceptions_path()).unwrap();
}

#[test]
fn plan_covers_boundaries() {
    let variants = Instruction::all_variants();
    let targets = [Target::SM_80, Target::SM_90A, Target::SM_100A];
    let checks = plan(&variants, &targets);
    let pairs = checks
        .iter()
        .filter(|c| c.kind == CheckKind::Target)
        .count();
    assert_eq!(pairs, variants.len() * targets.len());
    for c in checks.iter().filter(|c| c.kind != CheckKind::Target) {
        let min = variants[c.variant]
            .requirement()
            .min_ptx_for(c.target)
            .unwrap();
        assert!(min > c.target.min_ptx());
        match c.kind {
            CheckKind::AtMin => assert!(c.expect_ok() && c.ptx == min),
            _ => assert!(!c.expect_ok() && Some(c.ptx) == min.previous()),
        }
    }
}

#[test]
fn known_targets_only() {
    assert_eq!(known_target("sm_90a").unwrap().to_string(), "sm_90a");
    let e = known_target("sm_99").unwrap_err();
    assert!(
        e.starts_with("`sm_99` is not a target") && e.contains("sm_100a"),
        "{e}"
    );
    assert!(known_target("sm80").is_err());
}
