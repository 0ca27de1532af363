use super::*;
use crate::ptx::lex::SyntaxError;
use crate::ptx::operand::{RegTy, Value};
use crate::ptx::{parse_source, Instruction, Parsed};
use crate::target::{PtxVersion, Target, Verdict};
use std::collections::HashSet;

fn parse(text: &str) -> Result<TensorOp, SyntaxError> {
    match Instruction::parse(text)? {
        Instruction::Tensor(t) => Ok(t),
        other => panic!("`{text}` parsed as another family: {other:?}"),
    }
}

/// The error's `expected` text, and the text at its offset.
fn err(text: &str) -> (String, String, String) {
    let e = parse(text).expect_err(text);
    (
        e.expected,
        e.found,
        text[e.offset.min(text.len())..].chars().take(24).collect(),
    )
}

#[test]
fn every_variant_round_trips() {
    let vs = TensorOp::variants();
    let mut seen = HashSet::new();
    for v in &vs {
        let s = v.to_string();
        assert!(seen.insert(s.clone()), "duplicate variant text {s}");
        assert_eq!(parse(&s).as_ref(), Ok(v), "{s}");
    }
}

#[test]
fn variant_counts() {
    let vs = TensorOp::variants();
    let count = |f: fn(&TensorOp) -> bool| vs.iter().filter(|v| f(v)).count();
    // dims × dst × (6 modes, .im2col only from .3d: 5+5+6+6+6 = 28) × multicast × 3 cta_group × hint
    assert_eq!(
        count(|v| matches!(v, TensorOp::Load(_))),
        28 * 2 * 2 * 3 * 2
    );
    // dims × 4 modes × hint
    assert_eq!(count(|v| matches!(v, TensorOp::Store(_))), 5 * 4 * 2);
    // dims × 8 redOps × 3 modes × hint
    assert_eq!(count(|v| matches!(v, TensorOp::Reduce(_))), 5 * 8 * 3 * 2);
    assert_eq!(count(|v| matches!(v, TensorOp::Prefetch(_))), 28 * 2);
    assert_eq!(vs.len(), 672 + 40 + 240 + 56);
    let fams: HashSet<&str> = vs.iter().map(|v| v.family()).collect();
    assert_eq!(
        fams,
        HashSet::from([
            "cp.async.bulk.tensor",
            "cp.reduce.async.bulk.tensor",
            "cp.async.bulk.prefetch.tensor"
        ])
    );
}

/// Examples of §9.7.9.25.5.2 (seed 003), .5.3 and .5.4 (spec 05), verbatim.
const EXAMPLES: &str = r#"
.reg .b16 ctaMask;
.reg .u16 i2cOffW, i2cOffH, i2cOffD;
.reg .b64 l2CachePolicy;

cp.async.bulk.tensor.1d.shared::cta.global.mbarrier::complete_tx::bytes.tile  [sMem0], [tensorMap0, {tc0}], [mbar0];

@p cp.async.bulk.tensor.5d.shared::cta.global.im2col.mbarrier::complete_tx::bytes
                     [sMem2], [tensorMap2, {tc0, tc1, tc2, tc3, tc4}], [mbar2], {i2cOffW, i2cOffH, i2cOffD};

cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.tile  [sMem0], [tensorMap0, {tc0}], [mbar0];

@p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
                     [sMem1], [tensorMap1, {tc0, tc1}], [mbar2], ctaMask;

@p cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes
                     [sMem2], [tensorMap2, {tc0, tc1, tc2, tc3, tc4}], [mbar2], {i2cOffW, i2cOffH, i2cOffD};

@p cp.async.bulk.tensor.3d.im2col.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint
                     [sMem3], [tensorMap3, {tc0, tc1, tc2}], [mbar3], {i2cOffW}, policy;

@p cp.async.bulk.tensor.1d.global.shared::cta.bulk_group  [tensorMap3, {tc0}], [sMem3];

cp.async.bulk.tensor.2d.tile::gather4.shared::cluster.global.mbarrier::complete_tx::bytes
                     [sMem5], [tensorMap6, {x0, y0, y1, y2, y3}], [mbar5];

cp.async.bulk.tensor.3d.im2col::w.shared::cluster.global.mbarrier::complete_tx::bytes
                     [sMem4], [tensorMap5, {t0, t1, t2}], [mbar4], {im2colwHalo, im2colOff};

cp.async.bulk.tensor.1d.shared::cluster.global.tile.cta_group::2
                     [sMem6], [tensorMap7, {tc0}], [peerMbar];

cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group
                                             [tensorMap0, {tc0}], [sMem0];

cp.reduce.async.bulk.tensor.2d.global.shared::cta.and.bulk_group.L2::cache_hint
                                             [tensorMap1, {tc0, tc1}], [sMem1] , policy;

cp.reduce.async.bulk.tensor.3d.global.shared::cta.xor.im2col.bulk_group
                                             [tensorMap2, {tc0, tc1, tc2}], [sMem2];

.reg .b16 ctaMask, im2colwHalo, im2colOff;
.reg .u16 i2cOffW, i2cOffH, i2cOffD;
.reg .b64 l2CachePolicy;

cp.async.bulk.prefetch.tensor.1d.L2.global.tile  [tensorMap0, {tc0}];

@p cp.async.bulk.prefetch.tensor.2d.L2.global    [tensorMap1, {tc0, tc1}];

@p cp.async.bulk.prefetch.tensor.5d.L2.global.im2col
                      [tensorMap2, {tc0, tc1, tc2, tc3, tc4}], {i2cOffW, i2cOffH, i2cOffD};

@p cp.async.bulk.prefetch.tensor.3d.L2.global.im2col.L2::cache_hint
                      [tensorMap3, {tc0, tc1, tc2}], {i2cOffW}, policy;

cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [tensorMap5, {col_idx, row_idx0, row_idx1, row_idx2, row_idx3}];

cp.async.bulk.prefetch.tensor.4d.L2.global.im2col::w::128
                      [tensorMap4, {t0, t1, t2, t3}], {im2colwHalo, im2colOff};
"#;

#[test]
fn manual_examples_parse_except_two_documentation_errors() {
    let mut ok = Vec::new();
    let mut errors = Vec::new();
    for p in parse_source(EXAMPLES) {
        match p {
            Parsed::Instr(_, s) => ok.push(s),
            Parsed::Error(pos, e) => errors.push((pos.line, e.to_string())),
            Parsed::Skipped(pos, op) => errors.push((pos.line, format!("not modelled: {op}"))),
            Parsed::Directive(_) => {}
        }
    }
    assert_eq!(ok.len(), 9 + 2 + 6, "{errors:?}");
    // Documentation error 1 (§9.7.9.25.5.2, last example): no completion mechanism. ptxas 13.0:
    // ".completion_mechanism modifier required for instruction 'cp.async.bulk.tensor'".
    // Documentation error 2 (§9.7.9.25.5.3, last example): `.im2col` is not a load mode of
    // cp.reduce.async.bulk.tensor ({.tile, .im2col_no_offs}); ptxas 13.0: "Illegal modifier
    // '.im2col' for instruction 'cp.reduce.async.bulk.tensor'".
    assert_eq!(
        errors,
        vec![
            (
                30,
                "expected completion mechanism `.mbarrier::complete_tx::bytes` for this direction, found none".to_string()
            ),
            (
                39,
                "expected a load mode of cp.reduce.async.bulk.tensor: `.tile`, `.im2col_no_offs`, found `.im2col`".to_string()
            ),
        ]
    );
    // Every example prints canonically and reparses to itself, guard included.
    for s in &ok {
        let again = crate::ptx::Statement::parse(&s.to_string()).unwrap();
        assert_eq!(&again, s);
    }
}

#[test]
fn qualifier_order_is_free_but_printing_is_canonical() {
    let a = parse("cp.async.bulk.tensor.3d.im2col.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [s], [m, {a, b, c}], [mb], {o}, pol").unwrap();
    let b = parse("cp.async.bulk.tensor.3d.shared::cluster.global.L2::cache_hint.mbarrier::complete_tx::bytes.im2col [s], [m, {a, b, c}], [mb], {o}, pol").unwrap();
    assert_eq!(a, b);
    assert_eq!(
        a.to_string(),
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.L2::cache_hint [s], [m, {a, b, c}], [mb], {o}, pol"
    );
    // `.tile` after the completion mechanism moves before it; an absent `.tile` stays absent.
    let t = parse("cp.async.bulk.tensor.1d.shared::cta.global.mbarrier::complete_tx::bytes.tile [s], [m, {a}], [mb]").unwrap();
    assert_eq!(t.to_string(), "cp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes [s], [m, {a}], [mb]");
    let u = parse("cp.async.bulk.tensor.1d.shared::cta.global.mbarrier::complete_tx::bytes [s], [m, {a}], [mb]").unwrap();
    assert_ne!(t, u);
    assert!(!u.to_string().contains(".tile"));
    // `.dst.src` order is meaningful: shared::cluster → global is no direction.
    assert_eq!(
        err("cp.async.bulk.tensor.1d.global.shared::cluster.bulk_group [m, {a}], [s]").0,
        "`.dst.src`: `.shared::cta.global`, `.shared::cluster.global` or `.global.shared::cta`"
    );
}

#[test]
fn operand_errors_are_specific() {
    let l = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes";
    // Coordinate counts.
    let (e, f, at) = err(&format!("{l} [s], [m, {{a}}], [mb]"));
    assert_eq!(
        (e.as_str(), f.as_str()),
        ("2 tensor coordinates (one per `.dim` dimension)", "1")
    );
    assert!(at.starts_with("[m, {a}]"));
    let (e, f, _) = err("cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [s], [m, {a, b}], [mb]");
    assert_eq!(
        (e.as_str(), f.as_str()),
        (
            "5 tensor coordinates (`.tile::gather4` takes {col, row0, row1, row2, row3})",
            "2"
        )
    );
    let (e, f, _) = err(
        "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [m, {a, b}], [s]",
    );
    assert_eq!(
        (e.as_str(), f.as_str()),
        (
            "5 tensor coordinates (`.tile::scatter4` takes {col, row0, row1, row2, row3})",
            "2"
        )
    );
    // im2colInfo: required by the im2col modes, sized by the mode, refused elsewhere.
    let (e, f, _) = err("cp.async.bulk.tensor.4d.shared::cta.global.im2col.mbarrier::complete_tx::bytes [s], [m, {a, b, c, d}], [mb]");
    assert_eq!(
        (e.as_str(), f.as_str()),
        (
            "operand 4 (im2colInfo the .dim − 2 im2col offsets of `.im2col`)",
            "end of instruction"
        )
    );
    let (e, f, at) = err("cp.async.bulk.tensor.4d.shared::cta.global.im2col.mbarrier::complete_tx::bytes [s], [m, {a, b, c, d}], [mb], {o}");
    assert_eq!(
        (e.as_str(), f.as_str()),
        (
            "im2colInfo of `.im2col` with `.4d`: 2 elements (the .dim − 2 im2col offsets)",
            "1 elements"
        )
    );
    assert!(at.starts_with("{o}"));
    let (e, _, _) = err("cp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [s], [m, {a, b, c}], [mb], {h, o, x}");
    assert_eq!(
        e,
        "im2colInfo of `.im2col::w` with `.3d`: 2 elements ({wHalo, wOffset})"
    );
    let (e, f, _) = err(&format!("{l} [s], [m, {{a, b}}], [mb], {{o}}"));
    assert_eq!(
        (e.as_str(), f.as_str()),
        (
            "im2colInfo only with `.im2col`, `.im2col::w` or `.im2col::w::128`",
            "a vector `{...}`"
        )
    );
    let (e, f, _) = err("cp.async.bulk.tensor.2d.shared::cta.global.im2col.mbarrier::complete_tx::bytes [s], [m, {a, b}], [mb], {o}");
    assert_eq!(f, "`.2d`");
    assert!(e.starts_with("`.im2col` with `.3d`"));
    // Flag qualifiers and their operands come together.
    let (e, _, _) = err(&format!("{l} [s], [m, {{a, b}}], [mb], mask"));
    assert_eq!(
        e,
        "no operand 4 (ctaMask needs `.multicast::cluster`, cache-policy needs `.L2::cache_hint`)"
    );
    let (e, f, _) = err(&format!("{l}.multicast::cluster [s], [m, {{a, b}}], [mb]"));
    assert_eq!(
        (e.as_str(), f.as_str()),
        (
            "operand 4 (ctaMask, required by `.multicast::cluster`)",
            "end of instruction"
        )
    );
    let (e, _, _) =
        err("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.L2::cache_hint [m, {a}], [s]");
    assert_eq!(e, "operand 3 (cache-policy, required by `.L2::cache_hint`)");
    let (e, _, _) = err("cp.async.bulk.prefetch.tensor.1d.L2.global [m, {a}], pol");
    assert_eq!(e, "no operand 2 (cache-policy needs `.L2::cache_hint`)");
    // Completion mechanism belongs to the direction.
    let (e, f, _) = err(
        "cp.async.bulk.tensor.1d.global.shared::cta.mbarrier::complete_tx::bytes [m, {a}], [s]",
    );
    assert_eq!(
        (e.as_str(), f.as_str()),
        (
            "completion mechanism `.bulk_group` for this direction",
            "`.mbarrier::complete_tx::bytes`"
        )
    );
    // Qualifiers of other directions.
    let (_, f, _) =
        err("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.cta_group::1 [m, {a}], [s]");
    assert_eq!(f, "`.cta_group::1`");
    let (e, f, _) = err("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile::scatter4.bulk_group [m, {a, b, c, d, e}], [s]");
    assert_eq!(
        (e.as_str(), f.as_str()),
        (
            "a load mode of cp.reduce.async.bulk.tensor: `.tile`, `.im2col_no_offs`",
            "`.tile::scatter4`"
        )
    );
    let (e, _, _) =
        err("cp.async.bulk.tensor.3d.global.shared::cta.im2col.bulk_group [m, {a, b, c}], [s]");
    assert!(e.starts_with("a load mode of cp.async.bulk.tensor (shared::cta → global)"));
    let (e, _, _) =
        err("cp.reduce.async.bulk.tensor.1d.global.shared::cta.bulk_group [m, {a}], [s]");
    assert!(e.starts_with("reduction `.redOp`"));
    let (e, _, _) = err("cp.async.bulk.prefetch.tensor.1d.global.L2 [m, {a}]");
    assert_eq!(e, "`.L2.global` (prefetch from global memory to L2)");
    // Two load modes.
    let (e, f, _) = err(&format!("{l}.tile.im2col [s], [m, {{a, b}}], [mb]"));
    assert_eq!(
        (e.as_str(), f.as_str()),
        ("at most one load mode", "a second one, `.im2col`")
    );
}

fn verdict(text: &str, t: Target) -> Verdict {
    parse(text)
        .unwrap()
        .requirement()
        .verdict(t, PtxVersion::MAX_SUPPORTED)
}

fn legal(text: &str, t: Target) -> bool {
    verdict(text, t) == Verdict::Legal
}

#[test]
fn requirements_follow_the_target_isa_notes() {
    let sm100: Target = "sm_100".parse().unwrap();
    let cl = "cp.async.bulk.tensor.2d.shared::cluster.global";
    let cta = "cp.async.bulk.tensor.2d.shared::cta.global";
    let mb = "mbarrier::complete_tx::bytes";
    let g4 = "[s], [m, {a, b, c, d, e}], [mb]";
    // Plain loads: sm_90+; PTX 8.0, .shared::cta destination only from 8.6.
    assert!(!legal(
        &format!("{cl}.{mb} [s], [m, {{a, b}}], [mb]"),
        Target::SM_80
    ));
    assert!(legal(
        &format!("{cl}.{mb} [s], [m, {{a, b}}], [mb]"),
        Target::SM_90
    ));
    let r = parse(&format!("{cta}.{mb} [s], [m, {{a, b}}], [mb]"))
        .unwrap()
        .requirement();
    assert_eq!(r.min_ptx_for(Target::SM_90), Ok(PtxVersion::new(8, 6)));
    // gather4 depends on the destination.
    assert!(legal(&format!("{cta}.tile::gather4.{mb} {g4}"), sm100));
    assert!(!legal(&format!("{cl}.tile::gather4.{mb} {g4}"), sm100));
    assert!(legal(
        &format!("{cl}.tile::gather4.{mb} {g4}"),
        Target::SM_100A
    ));
    let r = parse(&format!("{cl}.tile::gather4.{mb} {g4}"))
        .unwrap()
        .requirement();
    assert_eq!(r.min_ptx_for(Target::SM_100F), Ok(PtxVersion::new(8, 8)));
    assert_eq!(r.min_ptx_for(Target::SM_100A), Ok(PtxVersion::new(8, 6)));
    // The manual names only sm_100a / sm_100f here (ptxas 13.0 also takes sm_110a: a finding).
    assert!(r.min_ptx_for("sm_110a".parse().unwrap()).is_err());
    assert_eq!(
        r.min_ptx_for("sm_103a".parse().unwrap()),
        Ok(PtxVersion::new(8, 8))
    );
    // Rank rules hold on every target.
    let g3 = "cp.async.bulk.tensor.3d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [s], [m, {a, b, c, d, e}], [mb]";
    assert_eq!(
        verdict(g3, Target::SM_100A),
        Verdict::WrongTarget {
            why: "`.tile::gather4` only with `.2d` (§5.5.3.4)".into()
        }
    );
    assert!(!legal("cp.async.bulk.tensor.2d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [s], [m, {a, b}], [mb], {h, o}", Target::SM_100A));
    assert!(!legal(
        "cp.async.bulk.tensor.2d.global.shared::cta.im2col_no_offs.bulk_group [m, {a, b}], [s]",
        Target::SM_100A
    ));
    assert!(legal(
        "cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [m, {a, b, c}], [s]",
        Target::SM_90
    ));
    // Multicast only into shared::cluster.
    assert!(legal(
        &format!("{cl}.{mb}.multicast::cluster [s], [m, {{a, b}}], [mb], k"),
        Target::SM_90
    ));
    assert!(!legal(
        &format!("{cta}.{mb}.multicast::cluster [s], [m, {{a, b}}], [mb], k"),
        Target::SM_100A
    ));
    // .cta_group, scatter4, im2col::w::128: sm_100a / sm_100f family.
    for t in [Target::SM_90A, sm100] {
        assert!(!legal(
            &format!("{cta}.{mb}.cta_group::2 [s], [m, {{a, b}}], [mb]"),
            t
        ));
        assert!(!legal("cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [m, {a, b, c, d, e}], [s]", t));
    }
    assert!(legal(
        &format!("{cta}.{mb}.cta_group::2 [s], [m, {{a, b}}], [mb]"),
        Target::SM_100F
    ));
    // Prefetch gather4 has no destination and needs the arch/family targets.
    assert!(!legal(
        "cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [m, {a, b, c, d, e}]",
        sm100
    ));
    assert!(legal(
        "cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [m, {a, b, c, d, e}]",
        Target::SM_100A
    ));
    // Reduce: sm_90, PTX 8.0, im2col_no_offs from .3d.
    assert!(legal("cp.reduce.async.bulk.tensor.3d.global.shared::cta.min.im2col_no_offs.bulk_group [m, {a, b, c}], [s]", Target::SM_90));
    assert!(!legal("cp.reduce.async.bulk.tensor.1d.global.shared::cta.min.im2col_no_offs.bulk_group [m, {a}], [s]", Target::SM_90));
}

#[test]
fn operands_are_visited_with_roles_and_types() {
    let mut op = parse("cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::1.L2::cache_hint [s], [m, {a, b, c}], [mb], {h, o}, k, pol").unwrap();
    assert_eq!(op.row(), "cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::1.L2::cache_hint +im2colInfo +ctaMask +cache-policy");
    let mut seen = Vec::new();
    op.visit_operands(&mut |s| {
        seen.push(match s {
            Slot::Addr { role, space, .. } => format!("{role}:addr{}", space.ptx()),
            Slot::Tensor { role, tensor } => format!("{role}:tensor{}", tensor.coords.len()),
            Slot::Vector { role, ty, values } => {
                values[0] = Value::Imm(3);
                format!("{role}:{}x{}", ty.ptx(), values.len())
            }
            Slot::Value { role, ty, .. } => format!("{role}:{}", ty.ptx()),
        })
    });
    assert_eq!(
        seen,
        [
            "dstMem:addr.shared::cluster",
            "tensorMap:tensor3",
            "mbar:addr.shared::cluster",
            "im2colInfo:.u16x2",
            "ctaMask:.b16",
            "cache-policy:.b64"
        ]
    );
    // Mutation through the slot shows in the printed text.
    assert!(op.to_string().contains("{3, o}"));
    let mut n = 0;
    let mut st =
        parse("cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.bulk_group [m, {a}], [s]")
            .unwrap();
    st.visit_operands(&mut |s| {
        n += 1;
        if let Slot::Addr { space, .. } = s {
            assert_eq!(space.ptx(), ".shared::cta");
        }
    });
    assert_eq!(n, 2);
    assert_eq!(RegTy::U16.bits(), 16);
}

/// Text ptxas 13.0 rejects as malformed (not as a target rule) is a parse error here too.
#[test]
fn ptxas_syntax_rejections_are_parse_errors() {
    for text in [
        // "State space incorrect"
        "cp.async.bulk.tensor.1d.shared.global.mbarrier::complete_tx::bytes [d], [m, {a}], [mb]",
        "cp.async.bulk.tensor.1d.global.shared.bulk_group [m, {a}], [s]",
        // "Arguments mismatch"
        "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.cta_group::1 [m, {a}], [s]",
        "cp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [d], [m, {a, b, c}], [mb], {h, o}, k",
        "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [d], [m, {a}], [mb]",
        "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col [m, {a, b, c}]",
        // "Illegal modifier"
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile::gather4.bulk_group [m, {a, b, c, d, e}], [s]",
        "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col_no_offs [m, {a, b, c}]",
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col_no_offs.mbarrier::complete_tx::bytes [d], [m, {a, b, c}], [mb]",
        "cp.async.bulk.tensor.2d.global.shared::cta.tile::gather4.bulk_group [m, {a, b, c, d, e}], [s]",
        "cp.async.bulk.tensor.2d.shared::cta.global.tile::scatter4.mbarrier::complete_tx::bytes [d], [m, {a, b, c, d, e}], [mb]",
        // "Argument vector size mismatch" / "syntax error" for .im2col below .3d
        "cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [d], [m, {a, b}], [mb], {o}",
        "cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [d], [m, {a, b}], [mb], {}",
    ] {
        assert!(parse(text).is_err(), "{text}");
    }
}
