//! The reference side of a run: execute a case on the model and check what the case itself
//! asserts (`expect`).

use crate::result::{CaseResult, Verdict};
use ptxconform_reference::case::validate::{illegal_steps, IllegalStep};
use ptxconform_reference::case::{Case, Expect, StepOp};
use ptxconform_reference::ptx::Instruction;
use ptxconform_reference::sem::exec::{execute_with, ExecError, ExecOptions, Execution, Outcome};
use ptxconform_reference::sem::profile::Profile;

/// The family a case is counted under in a run's tables: the instruction of its first copy
/// (`cp.*`, `tcgen05.cp`), else of its first instruction, by the instruction's PTX name.
pub fn family_of(case: &Case) -> String {
    let mut ctx = None;
    let mut first = None;
    for step in &case.program {
        let StepOp::Ptx(text) = &step.op else {
            continue;
        };
        let Some((copy, name)) = step_name(case, text, &mut ctx) else {
            continue;
        };
        if copy {
            return name;
        }
        first.get_or_insert(name);
    }
    first.unwrap_or_else(|| "other".into())
}

/// Whether a step's instruction counts as a copy, and its name: decided on the parsed
/// instruction, remembered by the step's opcode (its qualifiers decide both, its operands
/// neither), so a campaign's programs, whose operands differ, are named without parsing or
/// printing them again. `None`: the step does not parse.
fn step_name(
    case: &Case,
    text: &str,
    ctx: &mut Option<ptxconform_reference::ptx::operand::ParseCtx>,
) -> Option<(bool, String)> {
    let op = opcode_of(text);
    if let Some(hit) = NAMES.with(|m| m.borrow().get(op).cloned()) {
        return Some(hit);
    }
    let ctx = ctx.get_or_insert_with(|| ptxconform_reference::case::validate::parse_ctx(case));
    let st = ptxconform_reference::ptx::Statement::parse_with(text, ctx).ok()?;
    let named = (counts_as_copy(&st.instr), instruction_name(&st.instr));
    NAMES.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= NAMES_HELD {
            m.clear();
        }
        m.insert(op.to_string(), named.clone());
    });
    Some(named)
}

/// A step's opcode: its first word after the guard (`@p`, `@!p`).
fn opcode_of(text: &str) -> &str {
    let t = text.trim_start();
    let t = match t.strip_prefix('@') {
        Some(guarded) => guarded
            .split_once(char::is_whitespace)
            .map_or("", |(_, rest)| rest.trim_start()),
        None => t,
    };
    t.split_whitespace().next().unwrap_or("")
}

/// Whether a case is counted under this instruction before its others ([`family_of`]): the
/// instructions of the copy families (`cp.async` with its mbarrier arrive, the bulk copy,
/// reduction and prefetch, every tensor operation) and `tcgen05.cp` / `tcgen05.shift`; not the
/// async-group commits and waits, mbarriers, fences, tensor-map updates or other tcgen05 work.
/// Decided on the instruction, exhaustively, so a new family or operation has to be placed.
fn counts_as_copy(i: &Instruction) -> bool {
    use ptxconform_reference::ptx::{bulk::BulkOp, cp_async::CpAsyncOp, tcgen05::Tcgen05Op};
    match i {
        Instruction::CpAsync(op) => match op {
            CpAsyncOp::Copy(_) | CpAsyncOp::MbarrierArrive { .. } => true,
            CpAsyncOp::CommitGroup | CpAsyncOp::WaitGroup(_) | CpAsyncOp::WaitAll => false,
        },
        Instruction::Bulk(op) => match op {
            BulkOp::Copy(_) | BulkOp::Reduce(_) | BulkOp::Prefetch(_) => true,
            BulkOp::CommitGroup | BulkOp::WaitGroup { .. } => false,
        },
        Instruction::Tensor(_) => true,
        Instruction::Tcgen05(op) => match op {
            Tcgen05Op::Cp(_) | Tcgen05Op::Shift(_) => true,
            Tcgen05Op::Alloc(_)
            | Tcgen05Op::Dealloc(_)
            | Tcgen05Op::Relinquish(_)
            | Tcgen05Op::Ld(_)
            | Tcgen05Op::LdRed(_)
            | Tcgen05Op::St(_)
            | Tcgen05Op::Wait(_)
            | Tcgen05Op::Fence(_)
            | Tcgen05Op::Commit(_) => false,
        },
        Instruction::Mbarrier(_) | Instruction::Sync(_) | Instruction::Tensormap(_) => false,
    }
}

/// Whether an instruction counts as a copy, and its name, by its step's opcode, per thread
/// ([`family_of`]); looked up for every step of every program, so hashed with foldhash.
type Names = std::collections::HashMap<String, (bool, String), foldhash::fast::FixedState>;

/// Names a thread holds before it starts over.
const NAMES_HELD: usize = 4096;

thread_local! {
    static NAMES: std::cell::RefCell<Names> = std::cell::RefCell::new(Names::default());
}

/// PTX instruction names that the model's coverage families group: `async-group` (the
/// commit / wait instructions of cp.async and of bulk copies), `tcgen05.alloc` (with dealloc and
/// relinquish_alloc_permit), `tcgen05.ld/st`, `tcgen05.cp` (with shift), `tcgen05.sync`; and
/// the copy families' names, so that a longer name wins (`cp.async.bulk.tensor` over
/// `cp.async.bulk`, `cp.async.mbarrier.arrive` over `cp.async`).
const INSTRUCTIONS: [&str; 25] = [
    "cp.async",
    "cp.async.commit_group",
    "cp.async.wait_group",
    "cp.async.wait_all",
    "cp.async.mbarrier.arrive",
    "cp.async.bulk",
    "cp.async.bulk.commit_group",
    "cp.async.bulk.wait_group",
    "cp.async.bulk.prefetch",
    "cp.async.bulk.tensor",
    "cp.async.bulk.prefetch.tensor",
    "cp.reduce.async.bulk",
    "cp.reduce.async.bulk.tensor",
    "tcgen05.alloc",
    "tcgen05.dealloc",
    "tcgen05.relinquish_alloc_permit",
    "tcgen05.ld",
    "tcgen05.st",
    "tcgen05.wait",
    "tcgen05.cp",
    "tcgen05.shift",
    "tcgen05.fence",
    "tcgen05.commit",
    "tensormap.replace",
    "tensormap.cp_fenceproxy",
];

/// The PTX name of an instruction: the longest of [`INSTRUCTIONS`] its opcode starts with (up to
/// a `.` or `::` qualifier), else its family (`mbarrier`, `fence`, `barrier.cluster`, which name
/// the instruction or its whole family).
fn instruction_name(i: &Instruction) -> String {
    let text = i.to_string();
    let opcode = text.split_whitespace().next().unwrap_or("");
    INSTRUCTIONS
        .iter()
        .filter(|n| {
            opcode.strip_prefix(**n).is_some_and(|rest| {
                rest.is_empty() || rest.starts_with('.') || rest.starts_with("::")
            })
        })
        .max_by_key(|n| n.len())
        .map(|n| n.to_string())
        .unwrap_or_else(|| i.family().to_string())
}

/// The family of every parsed `ptx:` step, in program order.
pub fn families_of(case: &Case) -> Vec<&'static str> {
    ptxconform_reference::case::validate::parsed_steps(case)
        .iter()
        .filter_map(|s| s.as_deref()?.as_ref().ok())
        .map(|s| s.instr.family())
        .collect()
}

/// The reference's result of a case under the harness's [`crate::judge::DEFAULT_PROFILE`].
pub fn evaluate(file: &str, case: &Case) -> (CaseResult, Result<Execution, ExecError>) {
    evaluate_under(file, case, crate::judge::DEFAULT_PROFILE)
}

/// The reference's result of a case: its program is legal on its target, the model runs it under
/// `profile` and `expect` holds (recorded observations are replayed by [`crate::judge::replay`]).
pub fn evaluate_under(
    file: &str,
    case: &Case,
    profile: Profile,
) -> (CaseResult, Result<Execution, ExecError>) {
    evaluate_with(file, case, ExecOptions::of(profile))
}

/// [`evaluate_under`] with every execution option (the mutation schema runs mutants this way).
pub fn evaluate_with(
    file: &str,
    case: &Case,
    opts: ExecOptions,
) -> (CaseResult, Result<Execution, ExecError>) {
    let t = std::time::Instant::now();
    let ex = execute_with(case, opts);
    evaluate_executed(file, case, ex, t.elapsed())
}

/// [`evaluate_with`] of the execution `ex` a caller already made (it ran for `took`): `ex` must
/// be what [`execute_with`] gives for `case` under the options the result stands for. A fuzz
/// campaign runs the reference once per program for its own checks and hands the run on.
pub fn evaluate_executed(
    file: &str,
    case: &Case,
    ex: Result<Execution, ExecError>,
    took: std::time::Duration,
) -> (CaseResult, Result<Execution, ExecError>) {
    let family = family_of(case);
    let mut r = CaseResult::new(&case.name, file, &family, Verdict::ReferencePass);
    r.wall_us = took.as_micros() as u64;
    let illegal = illegal_steps(case);
    if let Some(Expect::Illegal(rule)) = &case.expect {
        (r.verdict, r.detail) = expected_illegal(case, rule, &illegal);
        return (r, ex);
    }
    if !illegal.is_empty() {
        // What ptxas would refuse is never a pass, whatever the model makes of it.
        r.verdict = Verdict::Illegal;
        r.detail = steps(&illegal);
        return (r, ex);
    }
    match &ex {
        Err(e) => {
            r.verdict = Verdict::ReferenceFail;
            r.detail = format!("case error: {e}");
        }
        Ok(x) => {
            if let Err(why) = x.meets(case.expect.as_ref()) {
                r.verdict = Verdict::ReferenceFail;
                r.detail = why;
            } else if case.expect == Some(Expect::DriverRejects) {
                // The refusal is the case's outcome: no kernel runs, so the program's own
                // behaviour (often UB on the refused map) is never reached.
                let refused: Vec<String> = x
                    .driver_rejects
                    .iter()
                    .map(|(map, why)| format!("`{map}` ({why})"))
                    .collect();
                r.detail = format!("the driver model refuses tensor map {}", refused.join(", "));
            } else {
                if let Outcome::Undefined { ub, step } = &x.outcome {
                    r.verdict = Verdict::ReferenceUndefined;
                    r.detail = format!(
                        "UB at step {step}: {} ({}) — {}",
                        ub.rule, ub.section, ub.detail
                    );
                }
            }
        }
    }
    (r, ex)
}

/// Every illegal step, in program order.
fn steps(illegal: &[IllegalStep]) -> String {
    let each: Vec<String> = illegal.iter().map(IllegalStep::to_string).collect();
    each.join("; ")
}

/// The verdict of a case that expects its program to be illegal by `rule`: it is when some step
/// breaks that restriction (by name), whatever else it breaks.
fn expected_illegal(case: &Case, rule: &str, illegal: &[IllegalStep]) -> (Verdict, String) {
    if illegal.is_empty() {
        let why = format!(
            "expected the program to be illegal by `{rule}`, it is legal on {}",
            case.target
        );
        return (Verdict::ReferenceFail, why);
    }
    if illegal.iter().any(|s| s.broken.iter().any(|b| b == rule)) {
        return (Verdict::IllegalExpected, steps(illegal));
    }
    let why = format!(
        "expected the program to be illegal by `{rule}`, it breaks other restrictions: {}",
        steps(illegal)
    );
    (Verdict::ReferenceFail, why)
}

/// Does a recorded hardware run confirm `case`: the model runs it and some recorded observation
/// judges as a pass?
pub fn confirmed(case: &Case) -> bool {
    if case.observed.is_empty() {
        return false;
    }
    let (r, ex) = evaluate_under("", case, crate::judge::DEFAULT_PROFILE);
    let Ok(ex) = ex else { return false };
    case.observed.iter().any(|obs| {
        let mut j = r.clone();
        crate::judge::judge(case, &ex, obs, &mut j);
        j.verdict == Verdict::Pass
    })
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

    /// Naming by opcode gives every corpus case the family that parsing each step gives: the
    /// first copy's name, else the first instruction's.
    #[test]
    fn family_by_opcode_is_family_by_parse() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        let (loaded, _) = crate::corpus::load_corpus(&[dir]);
        assert!(loaded.len() > 2000);
        for l in &loaded {
            let parsed: Vec<Instruction> =
                ptxconform_reference::case::validate::parse_steps(&l.case)
                    .into_iter()
                    .filter_map(|(_, s)| Some(s.ok()?.instr))
                    .collect();
            let want = parsed
                .iter()
                .find(|i| counts_as_copy(i))
                .or(parsed.first())
                .map_or("other".to_string(), instruction_name);
            assert_eq!(family_of(&l.case), want, "{}", l.case.name);
        }
        assert_eq!(
            opcode_of("@!p cp.async.ca.shared.global [b], [s], 4"),
            "cp.async.ca.shared.global"
        );
        assert_eq!(
            opcode_of("  mbarrier.init.shared.b64 [bar], 1"),
            "mbarrier.init.shared.b64"
        );
    }
}

#[cfg(test)]
mod legality_tests {
    use super::*;
    use ptxconform_reference::case::load_str;

    /// A program ptxas would refuse on its target is classified illegal with the restriction
    /// named, never a pass (and not run).
    #[test]
    fn illegal_programs_are_never_a_pass() {
        for (target, ptx, says) in [
            (
                "sm_80",
                "cp.async.cg.shared.global [buf], [src], 8",
                "cp.async.cg",
            ),
            (
                "sm_80",
                "cp.async.bulk.prefetch.L2.global [src], 16",
                "sm_80",
            ),
        ] {
            let yaml = format!(
                "name: c\ntarget: {target}\nmemory:\n  global: [ {{ name: src, size: 64 }} ]\n  shared: [ {{ name: buf, size: 64 }} ]\nprogram:\n  - ptx: {ptx}\n"
            );
            let c = load_str(&yaml, "t.yaml").unwrap().remove(0);
            let (r, _) = evaluate("t.yaml", &c);
            assert_eq!(r.verdict, Verdict::Illegal, "{ptx}: {}", r.detail);
            assert!(
                r.detail.contains(says) && r.detail.starts_with("step 0"),
                "{}",
                r.detail
            );
            assert!(r.verdict.is_failure());
        }
    }

    fn case(target: &str, steps: &[&str], expect: &str) -> Case {
        let program: String = steps.iter().map(|s| format!("  - ptx: {s}\n")).collect();
        let yaml = format!(
            "name: c\ntarget: {target}\nmemory:\n  global: [ {{ name: src, size: 64 }} ]\n  shared: [ {{ name: buf, size: 64 }} ]\nprogram:\n{program}{expect}"
        );
        load_str(&yaml, "t.yaml").unwrap().remove(0)
    }

    const CG8: &str = "cp.async.cg.shared.global [buf], [src], 8";
    const PREFETCH: &str = "cp.async.bulk.prefetch.L2.global [src], 16";

    /// An illegal program names every illegal step, in program order, not only the first.
    #[test]
    fn every_illegal_step_is_named() {
        let c = case("sm_80", &[CG8, "cp.async.wait_all", PREFETCH], "");
        let (r, _) = evaluate("t.yaml", &c);
        assert_eq!(r.verdict, Verdict::Illegal);
        let (first, third) = (r.detail.find("step 0:"), r.detail.find("step 2:"));
        assert!(first.is_some() && first < third, "{}", r.detail);
        assert!(!r.detail.contains("step 1"), "{}", r.detail);
    }

    /// `expect: { illegal: R }` holds when a step breaks restriction R: not a failure, not run;
    /// a legal program, or one that breaks only other restrictions, fails the case.
    #[test]
    fn a_case_asserts_its_program_illegal() {
        let cg = "expect: { illegal: \"`.cg` requires cp-size 16\" }\n";
        let c = case("sm_80", &[CG8, PREFETCH], cg);
        let (r, _) = evaluate("t.yaml", &c);
        assert_eq!(r.verdict, Verdict::IllegalExpected, "{}", r.detail);
        assert!(!r.verdict.is_failure() && !r.verdict.goes_on());
        assert!(r.detail.contains("step 1:"), "{}", r.detail);
        // The restriction of another step counts too.
        let c = case(
            "sm_80",
            &[CG8, PREFETCH],
            "expect: { illegal: cp.async.bulk.prefetch }\n",
        );
        assert_eq!(evaluate("t.yaml", &c).0.verdict, Verdict::IllegalExpected);
        // Legal: the expectation fails.
        let c = case("sm_80", &["cp.async.cg.shared.global [buf], [src], 16"], cg);
        let (r, _) = evaluate("t.yaml", &c);
        assert_eq!(r.verdict, Verdict::ReferenceFail);
        assert!(r.detail.contains("it is legal on sm_80"), "{}", r.detail);
        // Illegal for another reason: fails, naming what it does break.
        let c = case("sm_80", &[PREFETCH], cg);
        let (r, _) = evaluate("t.yaml", &c);
        assert_eq!(r.verdict, Verdict::ReferenceFail);
        assert!(
            r.detail.contains("breaks other restrictions: step 0"),
            "{}",
            r.detail
        );
    }

    /// Every modelled instruction is counted under its PTX name: the families that group several
    /// instructions (async-group, tcgen05.*) never name a row.
    #[test]
    fn rows_are_named_for_instructions() {
        let mut names = std::collections::BTreeMap::new();
        for i in Instruction::all_variants() {
            let n = instruction_name(&i);
            assert!(!n.contains('/') && n != "async-group", "{i}: {n}");
            let head = i.to_string();
            assert!(head.starts_with(&n) || n == i.family(), "{head}: {n}");
            names.entry(n).or_insert(i.family());
        }
        for (n, fam) in &names {
            assert!(
                INSTRUCTIONS.contains(&n.as_str())
                    || ["mbarrier", "fence", "barrier.cluster"].contains(fam),
                "{n} ({fam})"
            );
        }
        assert!(names.contains_key("cp.async.bulk.commit_group"));
        assert!(names.contains_key("tcgen05.relinquish_alloc_permit"));
    }

    /// The copies a case is counted under are the instructions of the `cp.*` families and of
    /// `tcgen05.cp` (what the family names said before the decision was typed).
    #[test]
    fn copies_are_the_cp_families_and_tcgen05_cp() {
        for i in Instruction::all_variants() {
            let f = i.family();
            assert_eq!(
                counts_as_copy(&i),
                f.starts_with("cp.") || f == "tcgen05.cp",
                "{i} ({f})"
            );
        }
    }

    /// A tcgen05 program allocates Tensor Memory before it copies: it counts as a copy.
    #[test]
    fn tcgen05_copies_count_under_tcgen05_cp() {
        let file =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/tcgen05/cp.yaml");
        let cases = ptxconform_reference::case::load_file(&file).unwrap();
        assert!(families_of(&cases[0]).contains(&"tcgen05.alloc"));
        assert!(cases.iter().all(|c| family_of(c) == "tcgen05.cp"));
    }
}
