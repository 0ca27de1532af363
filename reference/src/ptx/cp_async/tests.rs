//! Tests of the cp.async family: round trip of every variant, the spec's examples, parse errors,
//! operand slots, legality, and the fourth operand as the source's declarations decide it.

use super::*;
use crate::ptx::{Instruction, Statement};
use crate::target::{Target, Verdict};

family_parser!(CpAsync, CpAsyncOp);

fn legal(x: &CpAsyncOp, t: Target) -> bool {
    x.requirement().verdict(t, PtxVersion::MAX_SUPPORTED) == Verdict::Legal
}

#[test]
fn roundtrip_every_variant() {
    let vs = CpAsyncOp::variants();
    assert_eq!(vs.len(), 2 * 2 * 3 * 4 * 11 + 3 + 6);
    assert_round_trips(&vs);
    assert_eq!(
        parse("cp.async.cg.shared.global.L2::cache_hint [d], [s], 16, q, pol")
            .unwrap()
            .row(),
        "cp.async.cg.shared.global.L2::cache_hint cp-size=16 +ignoreSrc +policy"
    );
    let mut rows: Vec<String> = vs.iter().map(|v| v.row()).collect();
    rows.sort();
    rows.dedup();
    assert_eq!(rows.len(), vs.len(), "rows distinguish variants");
}

#[test]
fn spec_examples_parse() {
    let ex = [
        "cp.async.ca.shared.global  [shrd],    [gbl + 4], 4;",
        "cp.async.ca.shared::cta.global  [%r0 + 8], [%r1],     8;",
        "cp.async.cg.shared.global  [%r2],     [%r3],     16;",
        "cp.async.cg.shared.global.L2::64B   [%r2],      [%r3],     16;",
        "cp.async.cg.shared.global.L2::128B  [%r0 + 16], [%r1],     16;",
        "cp.async.cg.shared.global.L2::256B  [%r2 + 32], [%r3],     16;",
        "cp.async.ca.shared.global.L2::cache_hint [%r2], [%r1], 4, cache-policy;",
        "cp.async.ca.shared.global                   [shrd], [gbl], 4, p;",
        "cp.async.cg.shared.global.L2::cache_hint   [%r0], [%r2], 16, q, cache-policy;",
        "cp.async.commit_group ;",
        "cp.async.wait_group 1;",
        "cp.async.wait_all ;",
        "cp.async.mbarrier.arrive.shared.b64 [shMem];",
        "cp.async.mbarrier.arrive.noinc.shared.b64 [shMem];",
    ];
    for e in ex {
        let x = parse(e).unwrap_or_else(|err| panic!("{e}: {err}"));
        assert!(legal(&x, Target::SM_80), "{e} legal on sm_80");
    }
    let CpAsyncOp::Copy(c) =
        parse("cp.async.ca.shared.global.L2::cache_hint [%r2], [%r1], 4, cache-policy").unwrap()
    else {
        panic!()
    };
    assert_eq!(c.fill, Fill::Full);
    assert_eq!(c.hint.policy, Some(Value::reg("cache-policy")));
    let CpAsyncOp::Copy(c) =
        parse("cp.async.cg.shared.global.L2::cache_hint [%r0], [%r2], 16, q, cache-policy")
            .unwrap()
    else {
        panic!()
    };
    assert_eq!(c.fill, Fill::IgnoreSrc("q".into()));
    assert_eq!(c.dst, Address::reg("%r0"));
}

/// The same text parses by each context's declarations, whatever was parsed before it
/// (statements are remembered by text and the lookups their parse made): a declaration the
/// parse reads decides, one it does not read does not.
#[test]
fn remembered_parses_follow_the_declarations() {
    let text = "cp.async.ca.shared.global [d], [s], 4, %x;";
    let fill = |decls: &[&str]| {
        let mut ctx = ParseCtx::default();
        for d in decls {
            ctx.declare(d);
        }
        match crate::ptx::Statement::parse_with(text, &ctx).unwrap().instr {
            crate::ptx::Instruction::CpAsync(CpAsyncOp::Copy(c)) => c.fill,
            other => panic!("{other:?}"),
        }
    };
    let ignore = Fill::IgnoreSrc("%x".into());
    for _ in 0..2 {
        assert_eq!(fill(&[".reg .pred %x"]), ignore);
        assert_ne!(fill(&[".reg .b32 %x"]), ignore);
        assert_eq!(fill(&[".reg .pred %x", ".reg .b32 %y"]), ignore);
        assert_ne!(fill(&[".reg .b32 %x", ".reg .pred %y"]), ignore);
        // Undeclared, `%x` follows the naming habits: not a predicate.
        assert_ne!(fill(&[".reg .pred %y"]), ignore);
    }
    // What the memo keeps of a context: the fourth operand's declared type, nothing else.
    let mut ctx = ParseCtx::default();
    ctx.declare(".reg .pred %x");
    ctx.declare(".reg .b32 %y");
    let x_pred = vec![("%x".to_string(), Some(crate::ptx::operand::RegTy::Pred))];
    let (_, consulted) = ParseCtx::recording(|| crate::ptx::Statement::parse_uncached(text, &ctx));
    assert_eq!(consulted, x_pred);
    // A parse that reuses a remembered one inherits its lookups.
    let (_, consulted) = ParseCtx::recording(|| crate::ptx::Statement::parse_with(text, &ctx));
    assert_eq!(consulted, x_pred);
}

#[test]
fn fourth_operand_by_declared_type() {
    let mut ctx = ParseCtx::default();
    ctx.declare(".reg .pred %r9");
    ctx.declare(".reg .b32 pol");
    let CpAsyncOp::Copy(c) = CpAsyncOp::parse(
        "cp.async",
        &op("cp.async.ca.shared.global"),
        &args("[a], [b], 4, %r9"),
        &ctx,
    )
    .unwrap() else {
        panic!()
    };
    assert_eq!(c.fill, Fill::IgnoreSrc("%r9".into()));
    let CpAsyncOp::Copy(c) = CpAsyncOp::parse(
        "cp.async",
        &op("cp.async.ca.shared.global.L2::cache_hint"),
        &args("[a], [b], 4, pol"),
        &ctx,
    )
    .unwrap() else {
        panic!()
    };
    assert_eq!(
        c.fill,
        Fill::SrcSize(Value::reg("pol")),
        "a declared .b32 is a src-size"
    );
    let CpAsyncOp::Copy(c) = parse("cp.async.ca.shared.global [a], [b], 4, 3").unwrap() else {
        panic!()
    };
    assert_eq!(c.fill, Fill::SrcSize(Value::Imm(3)));
}

#[test]
fn source_declarations_decide_the_fourth_operand() {
    use crate::ptx::{parse_source, Parsed};
    let src = ".reg .pred flag;\n.reg .b32 n;\ncp.async.ca.shared.global [a], [b], 4, flag;\ncp.async.ca.shared.global [a], [b], 4, n;\ncp.async.ca.shared.global [a], [b], 5;";
    let got: Vec<_> = parse_source(src)
        .into_iter()
        .filter(|p| !matches!(p, Parsed::Directive(_)))
        .collect();
    let fill = |p: &Parsed| match p {
        Parsed::Instr(
            _,
            Statement {
                instr: Instruction::CpAsync(CpAsyncOp::Copy(c)),
                ..
            },
        ) => Some(c.fill.clone()),
        _ => None,
    };
    assert_eq!(fill(&got[0]), Some(Fill::IgnoreSrc("flag".into())));
    assert_eq!(fill(&got[1]), Some(Fill::SrcSize(Value::reg("n"))));
    let Parsed::Error(pos, e) = &got[2] else {
        panic!("{:?}", got[2])
    };
    assert_eq!((pos.line, pos.col), (5, 37), "{e}");
}

fn op(s: &str) -> Opcode {
    Opcode::parse(&mut crate::ptx::lex::Cursor::new(s)).unwrap()
}
fn args(s: &str) -> Args {
    Args::parse(&mut crate::ptx::lex::Cursor::new(s)).unwrap()
}

#[test]
fn errors() {
    let bad = [
        ("cp.async.ca.shared.global [a], [b]", "3 operands"),
        (
            "cp.async.ca.shared.global [a], [b], 4, s, p, x",
            "at most 5",
        ),
        (
            "cp.async.ca.shared.global [a], [b], 12",
            "cp-size 4, 8 or 16",
        ),
        ("cp.async.ca.shared.global [a], [b], n", "integer constant"),
        ("cp.async.ca.shared.global a, [b], 4", "address"),
        (
            "cp.async.ca.shared.global.L2::32B [a], [b], 4",
            "`.L2::32B`",
        ),
        ("cp.async.cs.shared.global [a], [b], 4", "cache operator"),
        (
            "cp.async.ca.shared.global.L2::64B.L2::128B [a], [b], 4",
            "at most one prefetch size",
        ),
        (
            "cp.async.ca.shared::cluster.global [a], [b], 4",
            "destination state space",
        ),
        ("cp.async.wait_group", "1 operands"),
        ("cp.async.wait_group n", "integer constant"),
        ("cp.async.commit_group 1", "at most 0"),
        ("cp.async.mbarrier.arrive.shared.b32 [m]", "type"),
        ("cp.async.mbarrier.arrive.b64 m", "address"),
    ];
    assert_rejected(&bad);
}

#[test]
fn legality() {
    let cg4 = parse("cp.async.cg.shared.global [a], [b], 4").unwrap();
    assert!(!legal(&cg4, Target::SM_100A));
    let ca4 = parse("cp.async.ca.shared::cta.global [a], [b], 4, p").unwrap();
    assert!(legal(&ca4, Target::SM_80));
    assert_eq!(
        ca4.requirement().min_ptx_for(Target::SM_80),
        Ok(PtxVersion::new(7, 8))
    );
    assert_eq!(
        parse("cp.async.ca.shared.global [a], [b], 4, p")
            .unwrap()
            .requirement()
            .min_ptx_for(Target::SM_80),
        Ok(PtxVersion::new(7, 5))
    );
    let hint_only = parse("cp.async.ca.shared.global.L2::cache_hint [a], [b], 4, srcsize").unwrap();
    assert!(!legal(&hint_only, Target::SM_90));
    let pol_no_hint = parse("cp.async.ca.shared.global [a], [b], 4, sz, pol").unwrap();
    assert!(!legal(&pol_no_hint, Target::SM_90));
    let imm = |a: &str| {
        legal(
            &parse(&format!("cp.async.ca.shared.global {a}")).unwrap(),
            Target::SM_80,
        )
    };
    assert!(
        imm("[d], [s], 4, 4")
            && imm("[d], [s], 8, 0")
            && !imm("[d], [s], 4, 5")
            && !imm("[d], [s], 16, -1")
    );
    let Some(arrive) = CpAsyncOp::variants()
        .into_iter()
        .find(|v| matches!(v, CpAsyncOp::MbarrierArrive { .. }))
    else {
        panic!()
    };
    assert!(legal(&arrive, Target::SM_80));
}

#[test]
fn operand_slots() {
    let mut x =
        parse("cp.async.cg.shared::cta.global.L2::cache_hint [d], [s], 16, ignore, pol").unwrap();
    let mut seen = Vec::new();
    x.visit_operands(&mut |s| match s {
        Slot::Addr { role, space, .. } => seen.push(format!("{role}:{space:?}")),
        Slot::Value {
            role, ty, imm_ok, ..
        } => seen.push(format!("{role}:{ty:?}:{imm_ok}")),
        _ => seen.push("?".into()),
    });
    assert_eq!(
        seen,
        [
            "dst:SharedCta",
            "src:Global",
            "ignoreSrc:Pred:false",
            "policy:B64:false"
        ]
    );
}
