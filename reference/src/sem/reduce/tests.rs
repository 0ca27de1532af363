//! Tests of the reduction arithmetic: the legality tables against ptxas, worked values per
//! profile, and properties against a from-scratch rounding reference and the host's IEEE
//! arithmetic.

use super::*;
use proptest::prelude::*;
use RedOp::*;
use RedType::*;

fn one(op: RedOp, ty: RedType, d: u64, s: u64) -> u64 {
    let n = ty.bytes();
    le(&apply(op, ty, &d.to_le_bytes()[..n], &s.to_le_bytes()[..n]).unwrap())
}

#[test]
fn legality_tables_match_ptxas() {
    // Bulk-form cases verified against ptxas (CUDA 13.0); the tensor form takes its element
    // type from the tensor-map, so ptxas cannot check those (spec table only).
    let g = ReduceForm::BulkGlobal;
    let c = ReduceForm::BulkSharedCluster;
    assert!(legal(g, Add, F16, true).is_ok());
    assert!(legal(g, Add, F16, false).is_err());
    assert!(legal(g, Add, Bf16, false).is_err());
    assert!(legal(g, Add, F32, true).is_err());
    assert!(legal(g, Min, F16, true).is_err());
    assert!(legal(g, Min, F16, false).is_ok());
    assert!(legal(g, Min, F32, false).is_err());
    assert!(legal(g, Max, F64, false).is_err());
    assert!(legal(g, Add, S64, false).is_err());
    assert!(legal(g, Add, B32, false).is_err());
    assert!(legal(g, Min, S64, false).is_ok());
    assert!(legal(g, And, B64, false).is_ok());
    assert!(legal(g, And, U32, false).is_err());
    assert!(legal(g, Inc, U64, false).is_err());
    assert!(legal(g, Dec, S32, false).is_err());
    assert!(legal(g, Add, F64, false).is_ok());
    assert!(legal(c, Add, U64, false).is_ok());
    assert!(legal(c, Add, S64, false).is_err());
    assert!(legal(c, Min, U64, false).is_err());
    assert!(legal(c, And, B64, false).is_err());
    assert!(legal(c, Inc, U32, false).is_ok());
    assert!(legal(c, Add, F32, false).is_err());
    assert!(legal(ReduceForm::Tensor, Add, F64, false).is_err());
    assert!(legal(ReduceForm::Tensor, Add, F16, false).is_ok());
    // Every legal combination has arithmetic; every combination is decided.
    for op in RedOp::ALL {
        for ty in RedType::ALL {
            if legal(g, op, ty, false).is_ok() || legal(g, op, ty, true).is_ok() {
                assert!(apply(op, ty, &vec![0; ty.bytes()], &vec![0; ty.bytes()]).is_ok());
            }
        }
    }
    assert_eq!(
        apply(Min, F32, &[0; 4], &[0; 4]),
        Err(ReduceError::NoArithmetic(Min, F32))
    );
    assert!(matches!(
        apply(Add, U32, &[0; 4], &[0; 8]),
        Err(ReduceError::Length { .. })
    ));
    assert!(matches!(
        apply(Add, U32, &[0; 6], &[0; 6]),
        Err(ReduceError::Length { .. })
    ));
}

#[test]
fn integers() {
    assert_eq!(one(Add, U32, 0xFFFF_FFFF, 2), 1);
    assert_eq!(one(Add, U64, u64::MAX, 2), 1);
    assert_eq!(one(Min, S32, 0xFFFF_FFFF, 1), 0xFFFF_FFFF); // -1 < 1
    assert_eq!(one(Min, U32, 0xFFFF_FFFF, 1), 1);
    assert_eq!(one(Max, S64, u64::MAX, 0), 0);
    assert_eq!(one(Max, U64, u64::MAX, 0), u64::MAX);
    assert_eq!(one(Xor, B64, 0xF0F0, 0xFF00), 0x0FF0);
    assert_eq!(one(And, B32, 0xF0F0, 0xFF00), 0xF000);
    assert_eq!(one(Or, B32, 0xF0F0, 0xFF00), 0xFFF0);
}

#[test]
fn inc_dec_wrap() {
    // inc: d >= x ? 0 : d+1 ; dec: (d == 0 || d > x) ? x : d-1
    assert_eq!(one(Inc, U32, 3, 5), 4);
    assert_eq!(one(Inc, U32, 5, 5), 0);
    assert_eq!(one(Inc, U32, 9, 5), 0);
    assert_eq!(one(Inc, U32, 0, 0), 0);
    assert_eq!(one(Dec, U32, 3, 5), 2);
    assert_eq!(one(Dec, U32, 0, 5), 5);
    assert_eq!(one(Dec, U32, 9, 5), 5);
    assert_eq!(one(Dec, U32, 0xFFFF_FFFF, 0xFFFF_FFFF), 0xFFFF_FFFE);
}

#[test]
fn f32_flush_and_rounding() {
    let sub = 0x0000_0001u32; // smallest subnormal
    let minn = 0x0080_0000u32; // smallest normal
    assert_eq!(one(Add, F32, sub as u64, 0), 0);
    assert_eq!(
        one(Add, F32, (sub | 0x8000_0000) as u64, 0x8000_0000),
        0x8000_0000
    );
    // 1.5·2^-126 − 2^-126 = 2^-127: a subnormal result flushes to +0.
    assert_eq!(one(Add, F32, 0x00C0_0000, (minn | 0x8000_0000) as u64), 0);
    assert_eq!(one(Add, F32, 0x80C0_0000, minn as u64), 0x8000_0000);
    // Ties to even: 1 + 2^-24 → 1; (1 + 2^-23) + 2^-24 → 1 + 2^-22.
    assert_eq!(
        one(
            Add,
            F32,
            1f32.to_bits() as u64,
            2f32.powi(-24).to_bits() as u64
        ),
        1f32.to_bits() as u64
    );
    assert_eq!(
        one(
            Add,
            F32,
            (1.0f32 + 2f32.powi(-23)).to_bits() as u64,
            2f32.powi(-24).to_bits() as u64
        ),
        (1.0f32 + 2f32.powi(-22)).to_bits() as u64
    );
    assert_eq!(
        one(
            Add,
            F32,
            f32::INFINITY.to_bits() as u64,
            f32::NEG_INFINITY.to_bits() as u64
        ),
        0x7FFF_FFFF
    );
    assert_eq!(
        one(
            Add,
            F32,
            f32::MAX.to_bits() as u64,
            f32::MAX.to_bits() as u64
        ),
        f32::INFINITY.to_bits() as u64
    );
}

#[test]
fn half_noftz_preserves_subnormals() {
    assert_eq!(one(Add, F16, 0x0001, 0x0001), 0x0002);
    assert_eq!(one(Add, F16, 0x03FF, 0x0001), 0x0400); // largest subnormal + ulp = min normal
    assert_eq!(one(Add, F16, 0x7BFF, 0x7BFF), 0x7C00); // max + max = inf
    assert_eq!(one(Add, F16, 0x3C00, 0x1000), 0x3C00); // 1 + 2^-11: tie to even → 1
    assert_eq!(one(Add, Bf16, 0x0001, 0x0001), 0x0002);
    assert_eq!(one(Add, Bf16, 0x3F80, 0x3F80), 0x4000);
    assert_eq!(one(Add, F16, 0x7C00, 0xFC00), 0x7FFF);
    assert_eq!(one(Add, F64, 1, 1), 2); // f64 subnormals preserved (A-RED-F64)
}

#[test]
fn half_minmax_nan_and_zero() {
    assert_eq!(one(Min, F16, 0x7E00, 0x3C00), 0x3C00);
    assert_eq!(one(Max, F16, 0x3C00, 0x7E01), 0x3C00);
    assert_eq!(one(Min, F16, 0x7E00, 0x7E01), 0x7FFF);
    assert_eq!(one(Min, F16, 0x8000, 0x0000), 0x8000);
    assert_eq!(one(Min, F16, 0x0000, 0x8000), 0x8000);
    assert_eq!(one(Max, F16, 0x8000, 0x0000), 0x0000);
    assert_eq!(one(Max, Bf16, 0x8000, 0x8000), 0x8000);
    assert_eq!(one(Min, Bf16, 0xBF80, 0x3F80), 0xBF80); // -1 < 1
    assert_eq!(one(Max, F16, 0xFC00, 0x0001), 0x0001);
}

#[test]
fn generic_round_matches_native_f32_cast() {
    for x in [
        1.0f64 + 2f64.powi(-24),
        1.0 + 3.0 * 2f64.powi(-24),
        1e-40,
        2f64.powi(-149) * 0.5,
        2f64.powi(-149) * 0.75,
        3.5e38,
        -7.25e-45,
        1e300,
    ] {
        assert_eq!(FMT_F32.round(x) as u32, (x as f32).to_bits(), "{x:e}");
    }
}

#[test]
fn uncertain_operands() {
    let d = [
        Byte::Known(1).union(Byte::Known(2)),
        Byte::Known(0),
        Byte::Known(0),
        Byte::Known(0),
    ];
    let s = [
        Byte::Known(10),
        Byte::Known(0),
        Byte::Known(0),
        Byte::Known(0),
    ];
    let r = apply_uncertain(Arith::SPEC, Add, U32, &d, &s).unwrap();
    assert_eq!(r.bytes[0], Byte::Known(11).union(Byte::Known(12)));
    assert_eq!(r.bytes[1], Byte::Known(0));
    assert_eq!(r.departs, None);
    let any = [Byte::ANY; 4];
    assert_eq!(
        apply_uncertain(Arith::SPEC, Add, U32, &any, &s)
            .unwrap()
            .bytes,
        vec![Byte::ANY; 4]
    );
}

const SM90: Arith = Arith {
    profile: Profile::Sm90,
    form: ReduceForm::BulkGlobal,
};

fn under(a: Arith, ty: RedType, d: u64, s: u64) -> u64 {
    let n = ty.bytes();
    le(&apply_with(a, Add, ty, &d.to_le_bytes()[..n], &s.to_le_bytes()[..n]).unwrap())
}

fn departs(a: Arith, op: RedOp, ty: RedType, d: u64, s: u64) -> Option<&'static str> {
    let n = ty.bytes();
    let b = |v: u64| {
        v.to_le_bytes()[..n]
            .iter()
            .map(|x| Byte::Known(*x))
            .collect::<Vec<_>>()
    };
    apply_uncertain(a, op, ty, &b(d), &b(s))
        .unwrap()
        .departs
        .map(|p| p.id)
}

/// P-RED-F32-SUBNORMALS: the recorded H3 pairs, each reading; what both readings share.
#[test]
fn f32_subnormals_per_profile() {
    let f = |x: f32| x.to_bits() as u64;
    let spec = Arith::SPEC;
    // Recorded on H100 / H200: 2e-39 + 2e-39 and -1e-40 + -0.0 keep their subnormals.
    assert_eq!(under(SM90, F32, f(2e-39), f(2e-39)), 0x002b_8e60);
    assert_eq!(under(spec, F32, f(2e-39), f(2e-39)), 0);
    assert_eq!(under(SM90, F32, f(-1e-40), f(-0.0)), 0x8001_16c2);
    assert_eq!(under(spec, F32, f(-1e-40), f(-0.0)), 0x8000_0000);
    // The tensor form over a FLOAT32 map keeps them too (H11); over FLOAT32_FTZ it flushes.
    let tensor = Arith {
        form: ReduceForm::Tensor,
        ..SM90
    };
    let tensor_ftz = Arith {
        form: ReduceForm::TensorFtz,
        ..SM90
    };
    assert_eq!(under(tensor, F32, f(2e-39), f(2e-39)), 0x002b_8e60);
    assert_eq!(under(tensor_ftz, F32, f(2e-39), f(2e-39)), 0);
    // Recorded alike under both readings: ties to even, overflow, canonical NaN results.
    for a in [spec, SM90] {
        assert_eq!(under(a, F32, f(1.0), f(2f32.powi(-24))), f(1.0));
        assert_eq!(under(a, F32, f(3e38), f(3e38)), f(f32::INFINITY));
        assert_eq!(under(a, F32, 0x7fc0_0000, f(1.0)), 0x7fff_ffff);
        assert_eq!(
            under(a, F32, f(f32::INFINITY), f(f32::NEG_INFINITY)),
            0x7fff_ffff
        );
    }
    // Where the readings differ the run says so, whichever profile it runs under.
    for a in [spec, SM90] {
        assert_eq!(
            departs(a, Add, F32, f(2e-39), f(2e-39)),
            Some("P-RED-F32-SUBNORMALS")
        );
        assert_eq!(departs(a, Add, F32, f(1.0), f(2.0)), None);
    }
    assert_eq!(
        departs(tensor, Add, F32, f(2e-39), f(2e-39)),
        Some("P-RED-TENSOR-F32-SUBNORMALS")
    );
    assert_eq!(departs(tensor_ftz, Add, F32, f(2e-39), f(2e-39)), None);
    assert_eq!(departs(SM90, Add, U32, 1, 2), None);
}

/// P-RED-F64-NAN-OPERAND: the recorded H4 pair, its reading, and the unprobed NaN cases
/// that keep the spec reading under sm_90.
#[test]
fn f64_nan_operand_per_profile() {
    const QNAN: u64 = 0x7ff8_0000_0000_0000;
    const CANONICAL: u64 = 0x7fff_ffff_ffff_ffff;
    let inf = f64::INFINITY.to_bits();
    let one = 1f64.to_bits();
    // Recorded: +inf (dst) + 0x7ff8000000000000 (src) = the NaN operand.
    assert_eq!(under(SM90, F64, inf, QNAN), QNAN);
    assert_eq!(under(Arith::SPEC, F64, inf, QNAN), CANONICAL);
    assert_eq!(
        departs(SM90, Add, F64, inf, QNAN),
        Some("P-RED-F64-NAN-OPERAND")
    );
    // Recorded (H12): the source's NaN, else the destination's, bit for bit, signalling
    // NaNs unquieted; inf + -inf is 0xfff8000000000000. The spec reading: canonical.
    const SNAN: u64 = 0x7ff0_0000_0000_0001;
    assert_eq!(under(SM90, F64, QNAN | 5, one), QNAN | 5);
    assert_eq!(under(SM90, F64, one, QNAN | 1 << 63), QNAN | 1 << 63);
    assert_eq!(under(SM90, F64, SNAN, one), SNAN);
    assert_eq!(under(SM90, F64, QNAN, SNAN | 1 << 63), SNAN | 1 << 63);
    assert_eq!(under(SM90, F64, SNAN, QNAN | 2), QNAN | 2);
    let ninf = f64::NEG_INFINITY.to_bits();
    assert_eq!(under(SM90, F64, inf, ninf), 0xfff8_0000_0000_0000);
    assert_eq!(under(SM90, F64, ninf, inf), 0xfff8_0000_0000_0000);
    assert_eq!(under(Arith::SPEC, F64, SNAN, one), CANONICAL);
    assert_eq!(under(Arith::SPEC, F64, inf, ninf), CANONICAL);
    assert_eq!(
        departs(SM90, Add, F64, QNAN, QNAN | 1),
        Some("P-RED-F64-NAN-OPERAND")
    );
    // Finite operands agree (ties to even, subnormals kept).
    assert_eq!(under(SM90, F64, one, 2f64.powi(-53).to_bits()), one);
    assert_eq!(under(SM90, F64, 1, 1), 2);
}

/// Independent f16/bf16 reference: nearest finite value by search over all encodings
/// (ties to even mantissa), overflow by the IEEE rule (≥ max + half ulp → inf).
fn reference_round(f: Fmt, x: f64) -> u64 {
    if x.is_nan() {
        return f.canonical_nan();
    }
    let sign = if x.is_sign_negative() {
        1u64 << (f.exp + f.man)
    } else {
        0
    };
    let a = x.abs();
    let max_bits = ((f.exp_mask() - 1) << f.man) | ((1 << f.man) - 1);
    let max = ref_decode(f, max_bits);
    let ulp_max = ref_decode(f, max_bits) - ref_decode(f, max_bits - 1);
    if a >= max + ulp_max / 2.0 {
        return sign | (f.exp_mask() << f.man);
    }
    // binary search for the first encoding with value >= a
    let (mut lo, mut hi) = (0u64, max_bits);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if ref_decode(f, mid) < a {
            lo = mid + 1
        } else {
            hi = mid
        }
    }
    let up = lo;
    let best = if up == 0 {
        0
    } else {
        let (dv, uv) = (a - ref_decode(f, up - 1), ref_decode(f, up) - a);
        if dv < uv || (dv == uv && up & 1 == 1) {
            up - 1
        } else {
            up
        }
    };
    sign | best
}

/// Straightforward decode by formula (independent of Fmt::decode's structure).
fn ref_decode(f: Fmt, bits: u64) -> f64 {
    let e = ((bits >> f.man) & f.exp_mask()) as i32;
    let m = (bits & ((1 << f.man) - 1)) as f64 / (1u64 << f.man) as f64;
    let bias = (1 << (f.exp - 1)) - 1;
    if e == 0 {
        m * 2f64.powi(1 - bias)
    } else {
        (1.0 + m) * 2f64.powi(e - bias)
    }
}

fn half_bits(f: Fmt) -> impl Strategy<Value = u64> {
    let top = 1u64 << (f.exp + f.man + 1);
    prop_oneof![
        0..top,
        0u64..8,
        (top / 2)..(top / 2 + 8),
        Just(f.exp_mask() << f.man),
        Just((f.exp_mask() << f.man) + 1)
    ]
}

fn f32_bits() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        0u32..0x0080_0010,
        0x8000_0000u32..0x8080_0010,
        0x7F7F_FF00u32..0x7F80_0002,
        0x3F00_0000u32..0x4000_0000
    ]
}

/// Pairs that stress rounding: near-cancellation (b ≈ −a) and exact half-ulp ties
/// (b = half of a's last mantissa bit, with a's sign or the opposite).
fn hard_pair(f: Fmt) -> impl Strategy<Value = (u64, u64)> {
    let sign = 1u64 << (f.exp + f.man);
    let finite_top = f.exp_mask() << f.man;
    prop_oneof![
        (0..finite_top, 0u64..4, any::<bool>()).prop_map(move |(a, d, s)| {
            let b = (a + d).min(finite_top - 1) | sign;
            if s {
                (a | sign, b ^ sign)
            } else {
                (a, b)
            }
        }),
        (
            (f.man as u64 + 2)..(f.exp_mask() - 1),
            0u64..(1 << f.man),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(move |(e, m, sa, sb)| {
                let a = e << f.man | m | if sa { sign } else { 0 };
                let b = (e - f.man as u64 - 1) << f.man | if sb { sign } else { 0 };
                (a, b)
            }),
    ]
}

proptest! {
    #[test]
    fn f32_add_vs_f64_reference(a in f32_bits(), b in f32_bits()) {
        let ftz = |x: f64| if x != 0.0 && x.abs() < 2f64.powi(-126) { 0f64.copysign(x) } else { x };
        let (x, y) = (ftz(f32::from_bits(a) as f64), ftz(f32::from_bits(b) as f64));
        let exact = x + y; // f64 rounding then f32 rounding: innocuous (53 ≥ 2·24+2)
        let r = FMT_F32.round(exact) as u32;
        let want = if f32::from_bits(r).is_subnormal() { r & 0x8000_0000 } else { r };
        let got = one(Add, F32, a as u64, b as u64) as u32;
        prop_assert!(same_value(F32_TY, got as u64, want as u64), "{a:#x}+{b:#x}: got {got:#x} want {want:#x}");
    }

    #[test]
    fn hard_pairs_vs_reference((a, b) in hard_pair(FMT_F16), (c, d) in hard_pair(FMT_BF16), (x, y) in hard_pair(FMT_F32)) {
        let want = reference_round(FMT_F16, ref_decode_full(FMT_F16, a) + ref_decode_full(FMT_F16, b));
        prop_assert!(same_value(F16_TY, one(Add, F16, a, b), want), "f16 {a:#x}+{b:#x}");
        let want = reference_round(FMT_BF16, ref_decode_full(FMT_BF16, c) + ref_decode_full(FMT_BF16, d));
        prop_assert!(same_value(BF16_TY, one(Add, Bf16, c, d), want), "bf16 {c:#x}+{d:#x}");
        let ftz = |v: f64| if v != 0.0 && v.abs() < 2f64.powi(-126) { 0f64.copysign(v) } else { v };
        let r = reference_round(FMT_F32, ftz(ref_decode_full(FMT_F32, x)) + ftz(ref_decode_full(FMT_F32, y)));
        let want = if r & 0x7F80_0000 == 0 { r & 0x8000_0000 } else { r };
        prop_assert!(same_value(F32_TY, one(Add, F32, x, y), want), "f32 {x:#x}+{y:#x}");
    }

    #[test]
    fn sm90_f32_add_is_ieee(a in f32_bits(), b in f32_bits()) {
        let want = f32::from_bits(a) + f32::from_bits(b);
        let got = under(SM90, F32, a as u64, b as u64) as u32;
        prop_assert!(same_value(F32_TY, got as u64, want.to_bits() as u64), "{a:#x}+{b:#x}: got {got:#x}");
    }

    #[test]
    fn f16_add_vs_reference(a in half_bits(FMT_F16), b in half_bits(FMT_F16)) {
        let want = reference_round(FMT_F16, ref_decode_full(FMT_F16, a) + ref_decode_full(FMT_F16, b));
        let got = one(Add, F16, a, b);
        prop_assert!(same_value(F16_TY, got, want), "{a:#x}+{b:#x}: got {got:#x} want {want:#x}");
    }

    #[test]
    fn bf16_add_vs_reference(a in half_bits(FMT_BF16), b in half_bits(FMT_BF16)) {
        let want = reference_round(FMT_BF16, ref_decode_full(FMT_BF16, a) + ref_decode_full(FMT_BF16, b));
        let got = one(Add, Bf16, a, b);
        prop_assert!(same_value(BF16_TY, got, want), "{a:#x}+{b:#x}: got {got:#x} want {want:#x}");
    }

    #[test]
    fn half_minmax_vs_reference(a in half_bits(FMT_F16), b in half_bits(FMT_F16)) {
        let (x, y) = (ref_decode_full(FMT_F16, a), ref_decode_full(FMT_F16, b));
        let got_min = one(Min, F16, a, b);
        if !x.is_nan() && !y.is_nan() && x != y {
            prop_assert_eq!(got_min, if x < y { a } else { b });
            prop_assert_eq!(one(Max, F16, a, b), if x < y { b } else { a });
        }
    }

    #[test]
    fn decode_round_trip(a in half_bits(FMT_F16), b in half_bits(FMT_BF16)) {
        prop_assert!(same_value(F16_TY, FMT_F16.round(FMT_F16.decode(a)), a));
        prop_assert!(same_value(BF16_TY, FMT_BF16.round(FMT_BF16.decode(b)), b));
    }

    #[test]
    fn int_add_vs_wide(a in any::<u32>(), b in any::<u32>(), c in any::<i64>(), d in any::<i64>()) {
        prop_assert_eq!(one(Add, S32, a as u64, b as u64), ((a as i64 + b as i64) as u64) & 0xFFFF_FFFF);
        prop_assert_eq!(one(Min, S64, c as u64, d as u64), c.min(d) as u64);
        prop_assert_eq!(one(Max, U32, a as u64, b as u64), a.max(b) as u64);
        let inc = one(Inc, U32, a as u64, b as u64) as u32;
        prop_assert!(inc <= b);
        let dec = one(Dec, U32, a as u64, b as u64) as u32;
        prop_assert!(dec <= b);
    }
}

const F16_TY: RedType = RedType::F16;
const BF16_TY: RedType = RedType::Bf16;
const F32_TY: RedType = RedType::F32;

/// ref_decode with sign, infinities and NaN.
fn ref_decode_full(f: Fmt, bits: u64) -> f64 {
    let neg = bits >> (f.exp + f.man) & 1 == 1;
    let mag = bits & ((1 << (f.exp + f.man)) - 1);
    let v = if mag >> f.man == f.exp_mask() {
        if mag & ((1 << f.man) - 1) == 0 {
            f64::INFINITY
        } else {
            f64::NAN
        }
    } else {
        ref_decode(f, mag)
    };
    if neg {
        -v
    } else {
        v
    }
}
