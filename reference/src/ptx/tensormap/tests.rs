use super::*;
use crate::target::{Suffix, Target, Verdict};

family_parser!(Tensormap, TensormapOp);

#[test]
fn every_variant_round_trips() {
    let all = TensormapOp::variants();
    // 3 spaces × (2 whole + 4 dim fields × 6 ordinals + Table 33's 16+3+5+4+2 values) + 4 scopes
    assert_eq!(all.len(), 3 * (2 + 4 * 6 + 30) + 4);
    assert_round_trips(&all);
}

/// The instructions of spec/02's examples and syntax lines, in the manual's spelling.
#[test]
fn manual_examples_parse_and_reprint() {
    for text in [
        "tensormap.replace.tile.global_address.shared::cta.b1024.b64 [sMem], new_val",
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [gbl], [sMem], 128",
        "tensormap.replace.tile.box_dim.global.b1024.b32 [tmap], 2, 64",
        "tensormap.replace.tile.swizzle_mode.b1024.b32 [tmap], 4",
    ] {
        let x = parse(text).unwrap_or_else(|e| panic!("`{text}`: {e}"));
        assert_eq!(x.to_string(), text);
    }
    // Qualifiers in another order print in the syntax block's order.
    let x = parse("tensormap.replace.tile.b1024.shared::cta.rank.b32 [a], 3").unwrap();
    assert_eq!(
        x.to_string(),
        "tensormap.replace.tile.rank.shared::cta.b1024.b32 [a], 3"
    );
    let x = parse("tensormap.replace.tile.elemtype.b1024.b32 [a], 15").unwrap();
    assert_eq!(
        x,
        TensormapOp::Replace(Replace {
            space: None,
            addr: Address::reg("a"),
            what: Replacement::Code(Code::Elemtype(ElemType::B6x16P32)),
        })
    );
}

#[test]
fn forms_the_syntax_rules_out_are_errors() {
    let err = |t: &str| parse(t).unwrap_err().to_string();
    assert_eq!(
        err("tensormap.replace.tile.global_address.b1024.b32 [a], r"),
        "expected `.b64` with `.global_address`, found `.b32`"
    );
    assert_eq!(
        err("tensormap.replace.tile.rank.b1024.b64 [a], r"),
        "expected `.b32` with `.rank`, found `.b64`"
    );
    assert_eq!(
        err("tensormap.replace.tile.rank.b1024.b32 [a], 0, r"),
        "expected at most 2 operands ([addr], new_val), found 3"
    );
    assert_eq!(
        err("tensormap.replace.tile.box_dim.b1024.b32 [a], r"),
        "expected 3 operands ([addr], ord, new_val), found 2"
    );
    assert_eq!(
        err("tensormap.replace.tile.box_dim.b1024.b32 [a], i, r"),
        "expected ord (an integer constant), found a register"
    );
    assert_eq!(
        err("tensormap.replace.tile.box_dim.b1024.b32 [a], -1, r"),
        "expected a non-negative ordinal, found -1"
    );
    assert_eq!(
        err("tensormap.replace.tile.elemtype.b1024.b32 [a], r"),
        "expected new_val (an integer constant), found a register"
    );
    assert_eq!(
        err("tensormap.replace.tile.fill_mode.b1024.b32 [a], 2"),
        "expected a `.fill_mode` new_val of Table 33 (0..=1), found 2"
    );
    assert_eq!(
        err("tensormap.replace.tile.swizzle_mode.b1024.b32 [a], 5"),
        "expected a `.swizzle_mode` new_val of Table 33 (0..=4), found 5"
    );
    // The spec's own cp_fenceproxy example writes `.shared`; the syntax (and ptxas 13.0: "State
    // space incorrect") takes only `.shared::cta`.
    assert_eq!(
        err("tensormap.replace.tile.global_address.shared.b1024.b64 [a], r"),
        "expected a qualifier of tensormap.replace, found `.shared`"
    );
    assert_eq!(
        err("tensormap.replace.tile.rank.b32 [a], r"),
        "expected the mandatory `.b1024`, found none"
    );
    assert_eq!(
        err("tensormap.replace.im2col.rank.b1024.b32 [a], r"),
        "expected the mandatory `.tile`, found none"
    );
    assert_eq!(
        err("tensormap.replace.tile.b1024.b32 [a], r"),
        "expected `.field`: one of `.global_address`, `.rank`, `.box_dim`, `.global_dim`, `.global_stride`, `.element_stride`, `.elemtype`, `.interleave_layout`, `.swizzle_mode`, `.swizzle_atomicity`, `.fill_mode`, found none"
    );
    let cp = "tensormap.cp_fenceproxy";
    assert_eq!(
        err(&format!(
            "{cp}.global.shared::cta.tensormap::generic.release.gpu.sync [d], [s], 128"
        )),
        "expected the mandatory `.aligned`, found none"
    );
    assert_eq!(
        err(&format!(
            "{cp}.shared::cta.global.tensormap::generic.release.gpu.sync.aligned [d], [s], 128"
        )),
        "expected `.global.shared::cta` (the copy's destination and source), found .shared::cta.global"
    );
    assert_eq!(
        err(&format!(
            "{cp}.global.shared::cta.tensormap::generic.acquire.gpu.sync.aligned [d], [s], 128"
        )),
        "expected the mandatory `.release`, found none"
    );
    assert_eq!(
        err(&format!(
            "{cp}.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [d], [s], n"
        )),
        "expected size (an integer constant), found a register"
    );
}

#[test]
fn requirements_follow_the_notes() {
    let t = |s: &str| s.parse::<Target>().unwrap();
    let min = |text: &str, tgt: &str| parse(text).unwrap().requirement().min_ptx_for(t(tgt));
    let rank = "tensormap.replace.tile.rank.b1024.b32 [a], r";
    assert_eq!(min(rank, "sm_90a"), Ok(v(8, 3)));
    assert_eq!(min(rank, "sm_100a"), Ok(v(8, 6)));
    assert_eq!(min(rank, "sm_120a"), Ok(v(8, 7)));
    assert_eq!(min(rank, "sm_100f"), Ok(v(8, 8)));
    assert_eq!(min(rank, "sm_103a"), Ok(v(8, 8)));
    assert_eq!(min(rank, "sm_110f"), Ok(v(9, 0)));
    for plain in ["sm_80", "sm_90", "sm_100", "sm_120"] {
        assert_eq!(min(rank, plain), Err("tensormap.replace".into()), "{plain}");
    }
    let atom = "tensormap.replace.tile.swizzle_atomicity.b1024.b32 [a], 3";
    assert_eq!(min(atom, "sm_90a"), Err(".swizzle_atomicity".into()));
    assert_eq!(min(atom, "sm_100a"), Ok(v(8, 6)));
    assert_eq!(min(atom, "sm_100f"), Ok(v(8, 8)));
    let packed = "tensormap.replace.tile.elemtype.b1024.b32 [a], 13";
    assert_eq!(min(packed, "sm_100a"), Ok(v(8, 7)));
    assert_eq!(min(packed, "sm_90a"), Err(".elemtype 13-15".into()));
    assert_eq!(
        min(
            "tensormap.replace.tile.elemtype.b1024.b32 [a], 12",
            "sm_90a"
        ),
        Ok(v(8, 3))
    );
    let sw96 = "tensormap.replace.tile.swizzle_mode.b1024.b32 [a], 4";
    assert_eq!(min(sw96, "sm_103a"), Ok(v(8, 8)));
    for other in ["sm_100a", "sm_103f", "sm_90a", "sm_120a"] {
        assert!(min(sw96, other).is_err(), "{other}");
    }
    assert!(min(
        "tensormap.replace.tile.box_dim.b1024.b32 [a], 5, r",
        "sm_90a"
    )
    .is_err());
    let cp = "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cluster.sync.aligned [d], [s], 128";
    assert_eq!(min(cp, "sm_90"), Ok(v(8, 3)));
    assert_eq!(min(cp, "sm_120"), Ok(v(8, 7)));
    assert!(min(cp, "sm_80").is_err());
    let bad = parse(&cp.replace("128", "64")).unwrap().requirement();
    assert_eq!(
        bad.verdict(Target::new(90, Suffix::Arch), PtxVersion::MAX_SUPPORTED),
        Verdict::WrongTarget {
            why: "the only valid size is 128".into()
        }
    );
}

#[test]
fn operand_slots_rows_and_families() {
    let slots = |x: &mut TensormapOp| {
        let mut seen = Vec::new();
        x.visit_operands(&mut |s| match s {
            Slot::Addr { role, space, addr } => seen.push(format!("{role}@{space:?}={addr}")),
            Slot::Value {
                role, ty, value, ..
            } => seen.push(format!("{role}:{}={value}", ty.ptx())),
            _ => seen.push("?".into()),
        });
        seen
    };
    let mut x =
        parse("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [m+128], 3, s").unwrap();
    assert_eq!(slots(&mut x), ["addr@SharedCta=[m+128]", "new_val:.b64=s"]);
    assert_eq!(
        x.row(),
        "tensormap.replace.tile.global_stride.shared::cta.b1024.b64"
    );
    assert_eq!(x.family(), "tensormap.replace");
    let mut x = parse("tensormap.replace.tile.interleave_layout.b1024.b32 [m], 2").unwrap();
    assert_eq!(slots(&mut x), ["addr@Generic=[m]"]);
    assert_eq!(
        x.row(),
        "tensormap.replace.tile.interleave_layout.b1024.b32 new_val=2"
    );
    let mut x = parse("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.sys.sync.aligned [g], [s], 128").unwrap();
    assert_eq!(slots(&mut x), ["dst@Global=[g]", "src@SharedCta=[s]"]);
    assert_eq!(x.family(), "tensormap.cp_fenceproxy");
}
