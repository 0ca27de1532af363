use super::*;
use crate::ptx::{Instruction, Statement};
use crate::target::Verdict;
use std::collections::HashSet;

fn parse(text: &str) -> Result<Tcgen05Op, SyntaxError> {
    match Instruction::parse(text)? {
        Instruction::Tcgen05(x) => Ok(x),
        other => panic!("`{text}` parsed as another family: {other:?}"),
    }
}

fn err(text: &str) -> String {
    match Instruction::parse(text) {
        Ok(x) => panic!("`{text}` parsed: {x}"),
        Err(e) => e.to_string(),
    }
}

fn legal(x: &Tcgen05Op, t: &str, ptx: (u8, u8)) -> Verdict {
    x.requirement()
        .verdict(t.parse().unwrap(), PtxVersion::new(ptx.0, ptx.1))
}

#[test]
fn every_variant_round_trips() {
    let all = Tcgen05Op::variants();
    let mut seen = HashSet::new();
    for v in &all {
        let text = v.to_string();
        assert_eq!(parse(&text).as_ref(), Ok(v), "{text}");
        assert!(seen.insert(text.clone()), "duplicate variant {text}");
        assert!(v.row().starts_with(&v.opcode()));
    }
    let count = |f: &str| all.iter().filter(|v| v.name() == f).count();
    // 2 cta_group x {generic, .shared::cta}
    assert_eq!(count("tcgen05.alloc"), 4);
    assert_eq!(count("tcgen05.dealloc"), 2);
    assert_eq!(count("tcgen05.relinquish_alloc_permit"), 2);
    // Table 49: 8 + 7 + 6 + 8 + 8 = 37 (.shape, .num) cells, x {no pack, .pack::16b}
    assert_eq!(count("tcgen05.ld"), 74);
    assert_eq!(count("tcgen05.st"), 74);
    // 37 cells x {min, max} x {f32, f32.abs, f32.NaN, f32.abs.NaN, u32, s32}
    assert_eq!(count("tcgen05.ld.red"), 444);
    assert_eq!(count("tcgen05.wait"), 2);
    // 2 cta_group x 5 shapes x {none, 3 multicasts} x {none, 2 decompressions}
    assert_eq!(count("tcgen05.cp"), 120);
    assert_eq!(count("tcgen05.shift"), 2);
    assert_eq!(count("tcgen05.fence"), 2);
    // 2 cta_group x {generic, .shared::cluster} x {-, .multicast::cluster + ctaMask}
    assert_eq!(count("tcgen05.commit"), 8);
    assert_eq!(all.len(), 734);
    // Families and rows.
    let fams: HashSet<_> = all.iter().map(|v| v.family()).collect();
    assert_eq!(
        fams,
        [
            "tcgen05.alloc",
            "tcgen05.ld/st",
            "tcgen05.cp",
            "tcgen05.sync"
        ]
        .into_iter()
        .collect()
    );
    assert!(all.iter().any(|v| v.row()
        == "tcgen05.commit.cta_group::2.mbarrier::arrive::one.multicast::cluster.b64 +ctaMask"));
}

#[test]
fn legal_cp_combinations() {
    let cps: Vec<_> = Tcgen05Op::variants()
        .into_iter()
        .filter(|v| matches!(v, Tcgen05Op::Cp(_)))
        .collect();
    let ok = cps
        .iter()
        .filter(|v| legal(v, "sm_100a", (9, 0)) == Verdict::Legal)
        .count();
    // 2 cta_group x (3 plain shapes + 2 for .64x128b + 1 for .32x128b) x 3 formats
    assert_eq!(ok, 36);
    for v in &cps {
        let Tcgen05Op::Cp(c) = v else { unreachable!() };
        let expect = c.shape.legal_multicasts().contains(&c.multicast);
        assert_eq!(legal(v, "sm_100a", (9, 0)) == Verdict::Legal, expect, "{v}");
    }
}

/// Every tcgen05 example (but tcgen05.mma) of seed 001 and spec 06/07, with its canonical print.
#[test]
fn manual_examples_parse() {
    let examples = [
        // seed 001 / §9.7.16.9.2 tcgen05.cp
        ("tcgen05.cp.cta_group::1.128x256b                 [taddr0], sdesc0;", "tcgen05.cp.cta_group::1.128x256b [taddr0], sdesc0;"),
        ("tcgen05.cp.cta_group::2.128x128b.b8x16.b6x16_p32 [taddr1], sdesc1;", "tcgen05.cp.cta_group::2.128x128b.b8x16.b6x16_p32 [taddr1], sdesc1;"),
        ("tcgen05.cp.cta_group::1.64x128b.warpx2::02_13    [taddr2], sdesc2;", "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [taddr2], sdesc2;"),
        // §9.7.16.7.1
        ("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [sMemAddr1], 32;", "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [sMemAddr1], 32;"),
        ("tcgen05.dealloc.cta_group::1.sync.aligned.b32  taddr, 32;", "tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, 32;"),
        ("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;", "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;"),
        ("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [sMemAddr2], 32;", "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [sMemAddr2], 32;"),
        ("tcgen05.dealloc.cta_group::2.sync.aligned.b32  taddr, 32;", "tcgen05.dealloc.cta_group::2.sync.aligned.b32 taddr, 32;"),
        ("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;", "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;"),
        // §9.7.16.8.3 tcgen05.ld (the .red example writes `.u32.max`; canonical is `.max.u32`)
        ("tcgen05.ld.sync.aligned.32x32b.x2.b32     {r0, r1}, [taddr1];", "tcgen05.ld.sync.aligned.32x32b.x2.b32 {r0, r1}, [taddr1];"),
        (
            "tcgen05.ld.sync.aligned.16x128b.x4.b32    {r0, r1, r2, r3, r4, r5, r6, r7}, [taddr2];",
            "tcgen05.ld.sync.aligned.16x128b.x4.b32 {r0, r1, r2, r3, r4, r5, r6, r7}, [taddr2];",
        ),
        (
            "tcgen05.ld.red.sync.aligned.16x32bx2.x8.u32.max {r0, r1, r2, r3, r4, r5, r6, r7},\n                                                 redVal, [taddr3], 16;",
            "tcgen05.ld.red.sync.aligned.16x32bx2.x8.max.u32 {r0, r1, r2, r3, r4, r5, r6, r7}, redVal, [taddr3], 16;",
        ),
        // §9.7.16.8.4 tcgen05.st
        ("tcgen05.st.sync.aligned.16x64b.x4.b32               [taddr0], {r0,  r1,  r2,  r3};", "tcgen05.st.sync.aligned.16x64b.x4.b32 [taddr0], {r0, r1, r2, r3};"),
        ("tcgen05.st.sync.aligned.16x128b.x1.unpack::16b.b32  [taddr1], {r0,  r1};", "tcgen05.st.sync.aligned.16x128b.x1.unpack::16b.b32 [taddr1], {r0, r1};"),
        // §9.7.16.8.5 tcgen05.wait
        ("tcgen05.ld.sync.aligned.32x32b.x2.b32     {r0, r1}, [taddr0];", "tcgen05.ld.sync.aligned.32x32b.x2.b32 {r0, r1}, [taddr0];"),
        ("tcgen05.wait::ld.sync.aligned;", "tcgen05.wait::ld.sync.aligned;"),
        ("tcgen05.st.sync.aligned.32x32b.x2.b32     [taddr0], {r0, r1};", "tcgen05.st.sync.aligned.32x32b.x2.b32 [taddr0], {r0, r1};"),
        ("tcgen05.wait::st.sync.aligned;", "tcgen05.wait::st.sync.aligned;"),
        // §9.7.16.9.3 tcgen05.shift: the examples put `.down` first; canonical follows the syntax block
        ("tcgen05.shift.down.cta_group::1 [taddr0];", "tcgen05.shift.cta_group::1.down [taddr0];"),
        ("tcgen05.shift.down.cta_group::2 [taddr1];", "tcgen05.shift.cta_group::2.down [taddr1];"),
        // §9.7.16.11.1 tcgen05.fence
        ("tcgen05.cp.cta_group::1.128x256b  [taddr0], sdesc0;", "tcgen05.cp.cta_group::1.128x256b [taddr0], sdesc0;"),
        ("tcgen05.fence::before_thread_sync;", "tcgen05.fence::before_thread_sync;"),
        ("tcgen05.fence::after_thread_sync;", "tcgen05.fence::after_thread_sync;"),
        // §9.7.16.12.1 tcgen05.commit
        ("tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [mbarObj1];", "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [mbarObj1];"),
        ("tcgen05.commit.cta_group::2.mbarrier::arrive::one.b64 [mbarObj2];", "tcgen05.commit.cta_group::2.mbarrier::arrive::one.b64 [mbarObj2];"),
        // spec 06 §9.7.16.6.4 sketches that are complete instructions
        ("tcgen05.fence::before_thread_sync", "tcgen05.fence::before_thread_sync;"),
    ];
    for (text, canonical) in examples {
        let st = Statement::parse(text).unwrap_or_else(|e| panic!("`{text}`: {e}"));
        assert_eq!(st.to_string(), canonical);
        assert_eq!(Statement::parse(canonical).unwrap(), st);
    }
    // The example's legality: .red is not on sm_100a, it is on sm_103a from PTX 8.8.
    let red = parse("tcgen05.ld.red.sync.aligned.16x32bx2.x8.u32.max {r0, r1, r2, r3, r4, r5, r6, r7}, redVal, [taddr3], 16").unwrap();
    assert!(matches!(
        legal(&red, "sm_100a", (9, 0)),
        Verdict::WrongTarget { .. }
    ));
    assert_eq!(legal(&red, "sm_103a", (8, 8)), Verdict::Legal);
}

/// Examples of the manual that do not parse: their exact errors (documentation errors or
/// out-of-scope instructions).
#[test]
fn manual_examples_that_do_not_parse() {
    // spec 06 Tables 47/48 (§9.7.16.5): `.2cta` is no qualifier (`.cta_group::2`), and `.b32 taddr, nCols` is missing.
    assert_eq!(
        err("tcgen05.dealloc.2cta.sync.aligned"),
        "expected `.cta_group`: one of `.cta_group::1`, `.cta_group::2`, found none"
    );
    // spec 06 §9.7.16.6.4.4 sketch: no `.cta_group`, no `.b64`.
    assert_eq!(
        err("tcgen05.commit.mbarrier::arrive::one [mbar]"),
        "expected `.cta_group`: one of `.cta_group::1`, `.cta_group::2`, found none"
    );
    // tcgen05.mma examples (§9.7.16.8.5, §9.7.16.11.1, §9.7.16.12.1) are out of scope.
    let mma = err("tcgen05.mma.cta_group::1.kind::f16   [taddr0],  a-desc,  b-desc, idesc, p");
    assert!(
        mma.contains("tcgen05.mma is out of scope") && mma.ends_with("found `.mma`"),
        "{mma}"
    );
}

#[test]
fn qualifiers_in_any_order() {
    let pairs = [
        (
            "tcgen05.ld.32x32b.x2.sync.aligned.b32 {a, b}, [t]",
            "tcgen05.ld.sync.aligned.32x32b.x2.b32 {a, b}, [t]",
        ),
        (
            "tcgen05.ld.sync.aligned.x2.32x32b.b32 {a, b}, [t]",
            "tcgen05.ld.sync.aligned.32x32b.x2.b32 {a, b}, [t]",
        ),
        (
            "tcgen05.cp.128x128b.cta_group::1 [t], d",
            "tcgen05.cp.cta_group::1.128x128b [t], d",
        ),
        (
            "tcgen05.cp.cta_group::1.warpx2::02_13.64x128b.b8x16.b4x16_p64 [t], d",
            "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13.b8x16.b4x16_p64 [t], d",
        ),
        // other qualifiers may stand between .dst_fmt and .src_fmt (ptxas accepts it)
        (
            "tcgen05.cp.cta_group::1.64x128b.b8x16.warpx2::02_13.b4x16_p64 [t], d",
            "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13.b8x16.b4x16_p64 [t], d",
        ),
        (
            "tcgen05.commit.b64.cta_group::1.mbarrier::arrive::one [m]",
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [m]",
        ),
        (
            "tcgen05.relinquish_alloc_permit.sync.aligned.cta_group::2",
            "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned",
        ),
        (
            "tcgen05.ld.red.sync.aligned.32x32b.x2.NaN.min.abs.f32 {a, b}, v, [t]",
            "tcgen05.ld.red.sync.aligned.32x32b.x2.min.abs.NaN.f32 {a, b}, v, [t]",
        ),
    ];
    for (any, canonical) in pairs {
        let x = parse(any).unwrap_or_else(|e| panic!("`{any}`: {e}"));
        assert_eq!(x.to_string(), canonical);
    }
}

#[test]
fn clear_errors() {
    let cases = [
        // Table 49: .16x128b.x4 takes 8 registers
        ("tcgen05.ld.sync.aligned.16x128b.x4.b32 {r0, r1, r2, r3}, [t]", "expected a vector of 8 32-bit registers for `.16x128b.x4` (Table 49), found 4 elements"),
        ("tcgen05.st.sync.aligned.32x32b.x1.b32 [t], {r0, r1}", "expected a vector of 1 32-bit registers for `.32x32b.x1` (Table 49), found 2 elements"),
        ("tcgen05.ld.sync.aligned.16x256b.x64.b32 {r0}, [t]", "expected `.num` at most `.x32` with `.16x256b` (Table 49), found `.x64`"),
        ("tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {r0}, [t]", "expected 3 operands (r, [taddr]{, immHalfSplitoff}), found 2"),
        ("tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {r0}, [t], s", "expected immHalfSplitoff (an integer constant), found a register"),
        ("tcgen05.ld.sync.aligned.32x32b.x1.b32 {r0}, [t], 16", "expected at most 2 operands (r, [taddr]{, immHalfSplitoff}), found 3"),
        ("tcgen05.ld.sync.aligned.32x32b.x1.b32 {5}, [t]", "expected destination registers in `r`, found an immediate"),
        ("tcgen05.ld.sync.aligned.32x32b.x1.b32 {r0}, [64]", "expected taddr as `[register]` (Tensor Memory addresses are 32-bit registers), found an immediate address"),
        ("tcgen05.ld.sync.aligned.32x32b.x1 {r0}, [t]", "expected the mandatory `.b32`, found none"),
        ("tcgen05.ld.32x32b.x1.b32 {r0}, [t]", "expected the mandatory `.sync`, found none"),
        ("tcgen05.ld.sync.aligned.red.32x32b.x2.min.u32 {a, b}, v, [t]", "expected `.red` directly after `tcgen05.ld`, found `.red` further on"),
        ("tcgen05.ld.red.sync.aligned.32x32b.x2.min.abs.u32 {a, b}, v, [t]", "expected `.abs` / `.NaN` only with `.f32`, found `.abs` on an integer type"),
        ("tcgen05.ld.red.sync.aligned.32x32b.x2.add.u32 {a, b}, v, [t]", "expected `.redOp`: one of `.min`, `.max`, found none"),
        ("tcgen05.ld.red.sync.aligned.32x32b.x2.pack::16b.min.u32 {a, b}, v, [t]", "expected a qualifier of tcgen05.ld.red, found `.pack::16b`"),
        ("tcgen05.cp.cta_group::1.128x128b.b8x16 [t], d", "expected `.b8x16` followed by `.src_fmt` (`.b6x16_p32` or `.b4x16_p64`), found `.b8x16` alone"),
        ("tcgen05.cp.cta_group::1.128x128b.b4x16_p64.b8x16 [t], d", "expected `.dst_fmt.src_fmt` in that order (`.b8x16` first), found `.src_fmt` before `.b8x16`"),
        ("tcgen05.cp.cta_group::1.128x128b.warpx4.warpx2::01_23 [t], d", "expected at most one `.multicast`, found a second one, `.warpx2::01_23`"),
        ("tcgen05.cp.128x128b [t], d", "expected `.cta_group`: one of `.cta_group::1`, `.cta_group::2`, found none"),
        ("tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [m], mask", "expected at most 1 operands ([mbar] (ctaMask only with `.multicast::cluster`)), found 2"),
        ("tcgen05.commit.cta_group::1.mbarrier::arrive::one.multicast::cluster.b64 [m]", "expected 2 operands ([mbar], ctaMask with `.multicast::cluster`), found 1"),
        ("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cta.b64 [m]", "expected a qualifier of tcgen05.commit, found `.shared::cta`"),
        ("tcgen05.alloc.cta_group::1.sync.aligned.shared::cluster.b32 [d], 32", "expected a qualifier of tcgen05.alloc, found `.shared::cluster`"),
        ("tcgen05.dealloc.cta_group::1.sync.aligned.b32 [t], 32", "expected taddr (register or immediate), found an address `[...]`"),
        ("tcgen05.fence::after_thread_sync.sync.aligned", "expected a qualifier of tcgen05.fence, found `.sync`"),
        ("tcgen05.shift.cta_group::1 [t]", "expected the mandatory `.down`, found none"),
        ("tcgen05.wait::st", "expected the mandatory `.sync`, found none"),
        ("tcgen05.bogus.cta_group::1", "expected a tcgen05 operation: one of"),
    ];
    for (text, want) in cases {
        let got = err(text);
        assert!(
            got.starts_with(want),
            "`{text}`:\n got  {got}\n want {want}"
        );
    }
}

#[test]
fn requirements() {
    let v = |s: &str| parse(s).unwrap();
    let cp = v("tcgen05.cp.cta_group::1.128x256b [t], d");
    assert_eq!(legal(&cp, "sm_100a", (8, 6)), Verdict::Legal);
    assert!(matches!(
        legal(&cp, "sm_100f", (8, 7)),
        Verdict::PtxTooOld { .. }
    ));
    assert_eq!(legal(&cp, "sm_100f", (8, 8)), Verdict::Legal);
    assert_eq!(legal(&cp, "sm_110a", (9, 0)), Verdict::Legal);
    assert!(matches!(
        legal(&cp, "sm_90a", (9, 0)),
        Verdict::WrongTarget { .. }
    ));
    assert!(matches!(
        legal(&cp, "sm_120a", (9, 0)),
        Verdict::WrongTarget { .. }
    ));
    // Shape/multicast rules are never met.
    for bad in [
        "tcgen05.cp.cta_group::1.64x128b [t], d",
        "tcgen05.cp.cta_group::1.32x128b [t], d",
        "tcgen05.cp.cta_group::1.64x128b.warpx4 [t], d",
        "tcgen05.cp.cta_group::1.32x128b.warpx2::01_23 [t], d",
        "tcgen05.cp.cta_group::1.128x256b.warpx4 [t], d",
    ] {
        assert!(
            v(bad).requirement().all.iter().any(|s| s.any.is_empty()),
            "{bad}"
        );
    }
    assert_eq!(
        legal(
            &v("tcgen05.cp.cta_group::2.32x128b.warpx4.b8x16.b6x16_p32 [t], d"),
            "sm_103a",
            (9, 0)
        ),
        Verdict::Legal
    );
    // tcgen05.shift: arch-specific targets only.
    let shift = v("tcgen05.shift.cta_group::1.down [t]");
    for (t, ok) in [
        ("sm_100a", true),
        ("sm_103a", true),
        ("sm_110a", true),
        ("sm_100f", false),
        ("sm_103f", false),
        ("sm_110f", false),
    ] {
        assert_eq!(legal(&shift, t, (9, 0)) == Verdict::Legal, ok, "{t}");
    }
    // tcgen05.ld.red: sm_103f family and sm_110, not sm_100.
    let red = v("tcgen05.ld.red.sync.aligned.32x32b.x2.max.f32 {a, b}, v, [t]");
    for (t, ok) in [
        ("sm_100a", false),
        ("sm_100f", false),
        ("sm_103a", true),
        ("sm_103f", true),
        ("sm_110a", true),
        ("sm_110f", true),
    ] {
        assert_eq!(legal(&red, t, (9, 0)) == Verdict::Legal, ok, "{t}");
    }
    assert!(matches!(
        legal(&red, "sm_110a", (8, 8)),
        Verdict::PtxTooOld { .. }
    ));
    let red_x1 = v("tcgen05.ld.red.sync.aligned.32x32b.x1.max.f32 {a}, v, [t]");
    assert!(
        matches!(legal(&red_x1, "sm_103a", (9, 0)), Verdict::WrongTarget { why } if why.contains("at least `.x2`"))
    );
    let red_shape = v("tcgen05.ld.red.sync.aligned.16x64b.x2.max.f32 {a, b}, v, [t]");
    assert!(matches!(
        legal(&red_shape, "sm_103a", (9, 0)),
        Verdict::WrongTarget { .. }
    ));
    // nCols immediates.
    for (n, ok) in [
        (32, true),
        (512, true),
        (64, true),
        (48, false),
        (16, false),
        (1024, false),
        (0, false),
    ] {
        let a = v(&format!(
            "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [d], {n}"
        ));
        assert_eq!(
            legal(&a, "sm_100a", (9, 0)) == Verdict::Legal,
            ok,
            "alloc {n}"
        );
    }
    assert_eq!(
        legal(
            &v("tcgen05.dealloc.cta_group::1.sync.aligned.b32 t, n"),
            "sm_100a",
            (9, 0)
        ),
        Verdict::Legal
    );
    // The text's rule also covers dealloc (ptxas 13.0 only checks for a multiple of 32 there).
    let d96 = v("tcgen05.dealloc.cta_group::1.sync.aligned.b32 t, 96");
    assert!(
        matches!(legal(&d96, "sm_100a", (9, 0)), Verdict::WrongTarget { why } if why.contains("power of 2"))
    );
}

#[test]
fn operands_visited_with_roles_and_types() {
    let mut seen = Vec::new();
    let mut x =
        parse("tcgen05.ld.red.sync.aligned.16x32bx2.x2.min.s32 {a, b}, v, [t+4], -8").unwrap();
    assert_eq!(
        x.to_string(),
        "tcgen05.ld.red.sync.aligned.16x32bx2.x2.min.s32 {a, b}, v, [t+4], -8"
    );
    x.visit_operands(&mut |s| {
        seen.push(match s {
            Slot::Vector { role, ty, values } => format!("{role}:{ty:?}:{}", values.len()),
            Slot::Value {
                role, ty, imm_ok, ..
            } => format!("{role}:{ty:?}:{imm_ok}"),
            Slot::Addr { role, space, .. } => format!("{role}:{space:?}"),
            Slot::Tensor { role, .. } => role.to_string(),
        })
    });
    assert_eq!(seen, ["ldDst:B32:2", "redval:B32:false", "taddr:B32:false"]);

    let mut seen = Vec::new();
    for text in [
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [d], n",
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32 t, n",
        "tcgen05.cp.cta_group::1.128x256b [t], d",
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [m], k",
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [m]",
    ] {
        parse(text).unwrap().visit_operands(&mut |s| {
            seen.push(match s {
                Slot::Value { role, ty, imm_ok, .. } => format!("{role}:{ty:?}:{imm_ok}"),
                Slot::Addr { role, space, .. } => format!("{role}:{space:?}"),
                _ => "other".into(),
            })
        });
    }
    assert_eq!(
        seen,
        [
            "dst:SharedCta",
            "nCols:B32:true",
            "taddr:B32:true",
            "nCols:B32:true",
            "taddr:B32:false",
            "s-desc:B64:true",
            "mbar:SharedCluster",
            "ctaMask:B16:false",
            "mbar:Generic",
        ]
    );
    // Placeholder operands are valid PTX identifiers named after roles.
    for mut v in Tcgen05Op::variants() {
        v.visit_operands(&mut |s| {
            let names: Vec<String> = match s {
                Slot::Value { value, .. } => vec![value.to_string()],
                Slot::Vector { values, .. } => values.iter().map(|x| x.to_string()).collect(),
                Slot::Addr { addr, .. } => {
                    vec![addr.to_string().trim_matches(['[', ']']).to_string()]
                }
                Slot::Tensor { .. } => vec!["?".into()],
            };
            for n in names {
                assert!(
                    n.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                        && n.chars().all(|c| c.is_ascii_alphanumeric()),
                    "{n}"
                );
            }
        });
    }
}
