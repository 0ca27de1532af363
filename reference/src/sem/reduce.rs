//! cp.reduce.async.bulk{.tensor} element arithmetic (§9.7.9.25.4.2, §9.7.9.25.5.3) and the
//! legality tables of `.redOp` × `.type`. Values are little-endian element bytes.
//!
//! Model positions where the spec is silent (named, see [`ASSUMPTIONS`]):
//! - A-RED-INCDEC: the spec only says .inc/.dec "return a result in the range [0..x] where x is
//!   the value at the source state space". The model uses the atom/red definition (§9.7.13.5),
//!   with d the destination element and x the source element:
//!   inc: `d >= x ? 0 : d + 1`; dec: `(d == 0 || d > x) ? x : d - 1` (unsigned 32-bit).
//! - A-RED-NAN: a NaN result is written as the canonical NaN (f16/bf16 0x7FFF, f32 0x7FFFFFFF,
//!   f64 0x7FFFFFFFFFFFFFFF); comparisons should accept any NaN ([`same_value`]).
//! - A-RED-MINMAX-NAN: f16/bf16 min/max with one NaN operand return the other operand; both NaN
//!   give the canonical NaN (as PTX min/max.f16 do).
//! - A-RED-MINMAX-ZERO: min(−0, +0) = −0 and max(−0, +0) = +0.
//! - A-RED-F64: f64 add rounds to nearest even and preserves subnormals (the flush statement
//!   names only .f32).
//! - A-RED-F32-FLUSH-SIGN: a flushed f32 result keeps the sign of the exact result; x + (−x) is +0.
//!   (Flushing decides on the rounded result; for add of flushed inputs the exact sum is a
//!   multiple of 2^-149, so a tiny result is exact and the choice does not matter.)
//! - A-RED-TENSOR-FLOAT: cp.reduce.async.bulk.tensor has no .noftz; the model uses the same
//!   arithmetic as the non-tensor form (f32 flushes, f16/bf16 preserve subnormals).
//!
//! Where sm_90 silicon reads a position otherwise, the arithmetic holds both readings ([`Arith`]
//! picks one; the positions are [`super::profile::POSITIONS`]): `P-RED-F32-SUBNORMALS` (the bulk
//! f32 add keeps subnormals) and `P-RED-F64-NAN-OPERAND` (the bulk f64 add returns its quiet NaN
//! operand).

use crate::ptx::common::{RedOp, RedType};

use super::memory::{Byte, ByteSet};
use super::mutant::{self, Mutant as M};
use super::profile::{self, Position, Profile};

pub const ASSUMPTIONS: &[&str] = &[
    "A-RED-INCDEC",
    "A-RED-NAN",
    "A-RED-MINMAX-NAN",
    "A-RED-MINMAX-ZERO",
    "A-RED-F64",
    "A-RED-F32-FLUSH-SIGN",
    "A-RED-TENSOR-FLOAT",
];

/// Which legality table applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceForm {
    /// cp.reduce.async.bulk.shared::cluster.shared::cta (mbarrier completion).
    BulkSharedCluster,
    /// cp.reduce.async.bulk.global.shared::cta (bulk_group completion).
    BulkGlobal,
    /// cp.reduce.async.bulk.tensor (§9.7.9.25.5.3).
    Tensor,
    /// cp.reduce.async.bulk.tensor over a `FLOAT32_FTZ` map: the table of [`ReduceForm::Tensor`],
    /// f32 sums flushed under every reading (the map's type asks for it; H100 flushes there and
    /// keeps subnormals over a `FLOAT32` map, P-RED-TENSOR-F32-SUBNORMALS).
    TensorFtz,
}

/// The arithmetic of one reduction: the profile's reading of each position, for the form the
/// instruction has (the sm_90 readings were recorded for the non-tensor form only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arith {
    pub profile: Profile,
    pub form: ReduceForm,
}

impl Arith {
    /// The text's arithmetic of `cp.reduce.async.bulk .global`.
    pub const SPEC: Arith = Arith {
        profile: Profile::Spec,
        form: ReduceForm::BulkGlobal,
    };

    /// The same form under the other reading.
    fn under(self, profile: Profile) -> Arith {
        Arith { profile, ..self }
    }

    /// Does the recorded sm_90 reading apply?
    fn silicon(self) -> bool {
        self.profile == Profile::Sm90
    }
}

/// The profile position that governs `.op.ty` in `form`, if its readings differ there.
pub fn position(op: RedOp, ty: RedType, form: ReduceForm) -> Option<&'static Position> {
    match (op, ty, form) {
        (RedOp::Add, RedType::F32, ReduceForm::Tensor) => Some(&profile::RED_TENSOR_F32_SUBNORMALS),
        (_, _, ReduceForm::Tensor | ReduceForm::TensorFtz) => None,
        (RedOp::Add, RedType::F32, _) => Some(&profile::RED_F32_SUBNORMALS),
        (RedOp::Add, RedType::F64, _) => Some(&profile::RED_F64_NAN_OPERAND),
        _ => None,
    }
}

/// Is `.redOp.type` (with or without `.noftz`) legal for the form? Err is a one-line reason.
pub fn legal(form: ReduceForm, op: RedOp, ty: RedType, noftz: bool) -> Result<(), &'static str> {
    use RedOp::*;
    use RedType::*;
    let types: &[RedType] = match (form, op) {
        // §9.7.9.25.4.2 table, .dst = .shared::cluster
        (ReduceForm::BulkSharedCluster, Add) => &[U32, S32, U64],
        (ReduceForm::BulkSharedCluster, Min | Max) => &[U32, S32],
        (ReduceForm::BulkSharedCluster, And | Or | Xor) => &[B32],
        // §9.7.9.25.4.2 table, .dst = .global
        (ReduceForm::BulkGlobal, Add) => &[U32, S32, U64, F32, F64, F16, Bf16],
        // §9.7.9.25.5.3 table
        (ReduceForm::Tensor | ReduceForm::TensorFtz, Add) => &[U32, S32, U64, F32, F16, Bf16],
        (ReduceForm::BulkGlobal | ReduceForm::Tensor | ReduceForm::TensorFtz, Min | Max) => {
            &[U32, S32, U64, S64, F16, Bf16]
        }
        (ReduceForm::BulkGlobal | ReduceForm::Tensor | ReduceForm::TensorFtz, And | Or | Xor) => {
            &[B32, B64]
        }
        (_, Inc | Dec) => &[U32],
    };
    if !types.contains(&ty) {
        return Err(
            "element type not allowed with this .redOp (§9.7.9.25.4.2 / §9.7.9.25.5.3 table)",
        );
    }
    let half = matches!(ty, F16 | Bf16);
    match (form, op == Add && half, noftz) {
        // §9.7.9.25.4.2: ".add.f16 and .add.bf16 require .noftz"; .noftz exists only there.
        (ReduceForm::BulkGlobal, true, false) => {
            Err(".add.f16/.add.bf16 require .noftz (§9.7.9.25.4.2)")
        }
        (ReduceForm::BulkGlobal, false, true) => {
            Err(".noftz only with .add.f16/.add.bf16 (§9.7.9.25.4.2 syntax)")
        }
        (ReduceForm::BulkSharedCluster | ReduceForm::Tensor | ReduceForm::TensorFtz, _, true) => {
            Err(".noftz not in this form's syntax")
        }
        _ => Ok(()),
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReduceError {
    /// No form allows this combination, so it has no arithmetic.
    NoArithmetic(RedOp, RedType),
    /// dst and src differ in length, or the length is not a multiple of the element size.
    Length { dst: usize, src: usize, elem: usize },
}

fn has_arithmetic(op: RedOp, ty: RedType) -> bool {
    [
        ReduceForm::BulkGlobal,
        ReduceForm::Tensor,
        ReduceForm::BulkSharedCluster,
    ]
    .iter()
    .any(|f| legal(*f, op, ty, false).is_ok() || legal(*f, op, ty, true).is_ok())
}

pub const FMT_F16: Fmt = Fmt { exp: 5, man: 10 };
pub const FMT_BF16: Fmt = Fmt { exp: 8, man: 7 };
pub const FMT_F32: Fmt = Fmt { exp: 8, man: 23 };

/// An IEEE-style binary format: exponent and stored-mantissa bit counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fmt {
    pub exp: u32,
    pub man: u32,
}

impl Fmt {
    fn bias(self) -> i32 {
        (1 << (self.exp - 1)) - 1
    }
    fn exp_mask(self) -> u64 {
        (1 << self.exp) - 1
    }
    fn canonical_nan(self) -> u64 {
        (self.exp_mask() << self.man) | ((1 << self.man) - 1)
    }
    pub fn is_nan(self, bits: u64) -> bool {
        (bits >> self.man) & self.exp_mask() == self.exp_mask() && bits & ((1 << self.man) - 1) != 0
    }

    /// Exact value of `bits` as f64 (every f16/bf16/f32 value is an f64).
    pub fn decode(self, bits: u64) -> f64 {
        let sign = if bits >> (self.exp + self.man) & 1 == 1 {
            -1.0
        } else {
            1.0
        };
        let e = (bits >> self.man) & self.exp_mask();
        let m = bits & ((1 << self.man) - 1);
        let emin = 1 - self.bias();
        let mag = if e == 0 {
            m as f64 * pow2(emin - self.man as i32)
        } else if e == self.exp_mask() {
            if m == 0 {
                f64::INFINITY
            } else {
                return f64::NAN;
            }
        } else {
            ((1u64 << self.man) + m) as f64 * pow2(e as i32 - self.bias() - self.man as i32)
        };
        sign * mag
    }

    /// Rounds an f64 to this format toward zero (the truncating mistake of
    /// [`M::RedHalfAddTruncates`]): the nearest-even result, stepped back one ulp where it
    /// rounded away from zero.
    fn round_toward_zero(self, x: f64) -> u64 {
        let r = self.round(x);
        let back = self.decode(r);
        if x.is_finite() && (back.is_infinite() || back.abs() > x.abs()) {
            r - 1
        } else {
            r
        }
    }

    /// Rounds an f64 to this format, to nearest even, with subnormals and overflow to infinity.
    pub fn round(self, x: f64) -> u64 {
        let sign = if x.is_sign_negative() {
            1u64 << (self.exp + self.man)
        } else {
            0
        };
        if x.is_nan() {
            return self.canonical_nan();
        }
        if x.is_infinite() {
            return sign | (self.exp_mask() << self.man);
        }
        if x == 0.0 {
            return sign;
        }
        // |x| = mant * 2^q_in with a 53-bit (or smaller, if f64-subnormal) integer mant.
        let b = x.abs().to_bits();
        let (mant, q_in) = match (b >> 52) as i32 {
            0 => (b & ((1 << 52) - 1), -1074),
            e => ((b & ((1 << 52) - 1)) | 1 << 52, e - 1075),
        };
        let e_x = 63 - mant.leading_zeros() as i32 + q_in; // floor(log2 |x|)
        let emin = 1 - self.bias();
        let man = self.man as i32;
        // Target quantum: ulp at x's exponent, but not below the subnormal quantum.
        let mut q = (e_x - man).max(emin - man);
        let s = (q - q_in) as u32; // > 0 for every format narrower than f64
        let mut n = if s >= 64 {
            0 // mant < 2^53 ≤ 2^(s-1): below half a quantum
        } else {
            let (hi, rem, half) = (mant >> s, mant & ((1u64 << s) - 1), 1u64 << (s - 1));
            if rem > half || (rem == half && hi & 1 == 1) {
                hi + 1
            } else {
                hi
            }
        };
        if n == 0 {
            return sign;
        }
        if n >> (self.man + 1) != 0 {
            n >>= 1; // carry out of rounding: n was 2^(man+1), exact
            q += 1;
        }
        if n >> self.man == 0 {
            return sign | n; // subnormal (q is the subnormal quantum)
        }
        let e = q + man + self.bias();
        if e >= self.exp_mask() as i32 {
            return sign | (self.exp_mask() << self.man);
        }
        sign | (e as u64) << self.man | (n & ((1 << self.man) - 1))
    }
}

fn pow2(k: i32) -> f64 {
    2f64.powi(k)
}

/// Result of one element: `d` is the destination element, `s` the source element (raw bits in
/// the low bits). Precondition: `has_arithmetic(op, ty)`.
fn elem(a: Arith, op: RedOp, ty: RedType, d: u64, s: u64) -> u64 {
    use RedOp::*;
    use RedType::*;
    let mask = if ty.bytes() == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * ty.bytes())) - 1
    };
    let r = match (op, ty) {
        (And, _) => d & s,
        (Or, _) => d | s,
        (Xor, _) if mutant::on(M::RedXorAsOr) => d | s,
        (Xor, _) => d ^ s,
        (Add, U64) if mutant::on(M::RedAddU64Carry32) => {
            (d & !0xFFFF_FFFF).wrapping_add(s & !0xFFFF_FFFF)
                + (d as u32).wrapping_add(s as u32) as u64
        }
        (Add, U32 | S32 | U64 | S64 | B32 | B64) => d.wrapping_add(s),
        (Min | Max, S32) if mutant::on(M::RedMinMaxS32Unsigned) => pick(op == Min, d <= s, d, s),
        (Min | Max, S64) if mutant::on(M::RedMinMaxS64Unsigned) => pick(op == Min, d <= s, d, s),
        (Min | Max, U32 | U64 | B32 | B64) => pick(op == Min, d <= s, d, s),
        (Min | Max, S32) => pick(op == Min, (d as u32 as i32) <= (s as u32 as i32), d, s),
        (Min | Max, S64) => pick(op == Min, (d as i64) <= (s as i64), d, s),
        // A-RED-INCDEC (§9.7.13.5 atom .inc/.dec)
        (Inc, _) => {
            let wraps = if mutant::on(M::RedIncInclusive) {
                (d as u32) > (s as u32)
            } else {
                (d as u32) >= (s as u32)
            };
            if wraps {
                0
            } else {
                d + 1
            }
        }
        (Dec, _) if d as u32 == 0 && mutant::on(M::RedDecZeroStays) => 0,
        (Dec, _) => {
            if d as u32 == 0 || (d as u32) > (s as u32) {
                s
            } else {
                d - 1
            }
        }
        (Add, F32)
            if a.silicon()
                && a.form != ReduceForm::TensorFtz
                && !mutant::on(M::RedF32FlushOnSilicon) =>
        {
            add_f32_keep(d as u32, s as u32) as u64
        }
        (Add, F32) => add_f32_ftz(d as u32, s as u32) as u64,
        (Add, F64) => add_f64(a, d, s),
        (Add, F16) => add_half(FMT_F16, d, s),
        (Add, Bf16) => add_half(FMT_BF16, d, s),
        (Min | Max, F16) => minmax_half(FMT_F16, op == Min, d, s),
        (Min | Max, Bf16) => minmax_half(FMT_BF16, op == Min, d, s),
        // Excluded by has_arithmetic.
        (Min | Max, F32 | F64) => d,
    };
    r & mask
}

fn pick(min: bool, d_le_s: bool, d: u64, s: u64) -> u64 {
    if min == d_le_s {
        d
    } else {
        s
    }
}

fn flush_f32(x: f32) -> f32 {
    if x.is_subnormal() {
        0f32.copysign(x)
    } else {
        x
    }
}

/// §9.7.9.25.4.2: f32 add, round to nearest even, subnormal inputs and results → signed zero.
fn add_f32_ftz(d: u32, s: u32) -> u32 {
    let r = flush_f32(flush_f32(f32::from_bits(d)) + flush_f32(f32::from_bits(s)));
    if r.is_nan() {
        nan_f32(d, s)
    } else {
        r.to_bits()
    }
}

/// P-RED-F32-SUBNORMALS, sm_90 reading: f32 add, round to nearest even, no flush; a NaN result is
/// the canonical NaN (recorded for NaN + 1.0 and inf + -inf).
fn add_f32_keep(d: u32, s: u32) -> u32 {
    let r = f32::from_bits(d) + f32::from_bits(s);
    if r.is_nan() {
        nan_f32(d, s)
    } else {
        r.to_bits()
    }
}

/// f64 add, nearest even, subnormals kept (A-RED-F64). A NaN result is the canonical NaN
/// (A-RED-NAN), except under the sm_90 reading of P-RED-F64-NAN-OPERAND: a NaN source operand is
/// returned bit for bit, else a NaN destination operand (signalling NaNs are not quieted), and
/// inf + -inf gives 0xFFF8000000000000.
fn add_f64(a: Arith, d: u64, s: u64) -> u64 {
    let (x, y) = (f64::from_bits(d), f64::from_bits(s));
    if a.silicon() && !mutant::on(M::RedF64NanCanonical) {
        if y.is_nan() {
            return s;
        }
        if x.is_nan() {
            return d;
        }
    }
    let r = x + y;
    match (
        r.is_nan(),
        a.silicon() && !mutant::on(M::RedF64NanCanonical),
    ) {
        (true, true) => 0xFFF8_0000_0000_0000,
        (true, false) => u64::MAX >> 1,
        _ => r.to_bits(),
    }
}

/// §9.7.9.25.4.2 .noftz: f16/bf16 add, nearest even, subnormals preserved. The f64 sum is exact
/// for f16; for bf16 the double rounding is innocuous (53 ≥ 2·8 + 2).
fn add_half(f: Fmt, d: u64, s: u64) -> u64 {
    let sum = f.decode(d) + f.decode(s);
    let r = if mutant::on(M::RedHalfAddTruncates) {
        f.round_toward_zero(sum)
    } else {
        f.round(sum)
    };
    let subnormal = (r >> f.man) & f.exp_mask() == 0;
    if subnormal && mutant::on(M::RedHalfAddFlushes) {
        r & (1 << (f.exp + f.man))
    } else {
        r
    }
}

/// The NaN an f32 add returns: the canonical NaN (A-RED-NAN), or under the mutant the first NaN
/// operand as it was.
fn nan_f32(d: u32, s: u32) -> u32 {
    match [d, s].into_iter().find(|x| f32::from_bits(*x).is_nan()) {
        Some(x) if mutant::on(M::RedF32NanPayload) => x,
        _ => 0x7FFF_FFFF,
    }
}

fn minmax_half(f: Fmt, min: bool, d: u64, s: u64) -> u64 {
    match (f.is_nan(d), f.is_nan(s)) {
        (true, true) => f.canonical_nan(),
        (true, false) | (false, true) if mutant::on(M::RedHalfMinMaxNanPropagates) => {
            f.canonical_nan()
        }
        (true, false) => s,
        (false, true) => d,
        _ => {
            let (x, y) = (f.decode(d), f.decode(s));
            if x == y {
                // Only ±0 compare equal with different bits (A-RED-MINMAX-ZERO).
                if mutant::on(M::RedMinMaxZeroFirst) {
                    d
                } else if min {
                    d | s
                } else {
                    d & s
                }
            } else if (x < y) == min {
                d
            } else {
                s
            }
        }
    }
}

#[allow(clippy::manual_is_multiple_of)] // is_multiple_of needs Rust 1.87; MSRV is 1.85
fn check_len(ty: RedType, dst: usize, src: usize) -> Result<usize, ReduceError> {
    let elem = ty.bytes();
    if dst != src || dst % elem != 0 {
        return Err(ReduceError::Length { dst, src, elem });
    }
    Ok(elem)
}

/// Reduces `src` into `dst` element-wise with the text's arithmetic ([`Arith::SPEC`]) and returns
/// the new destination bytes.
pub fn apply(op: RedOp, ty: RedType, dst: &[u8], src: &[u8]) -> Result<Vec<u8>, ReduceError> {
    apply_with(Arith::SPEC, op, ty, dst, src)
}

/// [`apply`] with the arithmetic `a`.
pub fn apply_with(
    a: Arith,
    op: RedOp,
    ty: RedType,
    dst: &[u8],
    src: &[u8],
) -> Result<Vec<u8>, ReduceError> {
    if !has_arithmetic(op, ty) {
        return Err(ReduceError::NoArithmetic(op, ty));
    }
    let n = check_len(ty, dst.len(), src.len())?;
    let mut out = Vec::with_capacity(dst.len());
    for (d, s) in dst.chunks(n).zip(src.chunks(n)) {
        let r = elem(a, op, ty, le(d), le(s));
        out.extend_from_slice(&r.to_le_bytes()[..n]);
    }
    Ok(out)
}

fn le(b: &[u8]) -> u64 {
    b.iter().rev().fold(0, |a, x| a << 8 | *x as u64)
}

/// At most this many operand combinations are enumerated per element before the element's
/// result is widened to "any".
pub const ENUMERATION_LIMIT: usize = 256;

/// The new destination bytes of a reduction, and the profile position whose two readings gave
/// different results for some element (the run met a place where the text and sm_90 differ).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reduced {
    pub bytes: Vec<Byte>,
    pub departs: Option<&'static Position>,
}

/// [`apply_with`] over uncertain bytes: each element's result allows every combination of the
/// allowed operand values (per byte), or any value when there are too many combinations.
pub fn apply_uncertain(
    a: Arith,
    op: RedOp,
    ty: RedType,
    dst: &[Byte],
    src: &[Byte],
) -> Result<Reduced, ReduceError> {
    if !has_arithmetic(op, ty) {
        return Err(ReduceError::NoArithmetic(op, ty));
    }
    let n = check_len(ty, dst.len(), src.len())?;
    let pos = position(op, ty, a.form);
    let other = a.under(match a.profile {
        Profile::Spec => Profile::Sm90,
        Profile::Sm90 => Profile::Spec,
    });
    let mut departs = None;
    let mut out = Vec::with_capacity(dst.len());
    for (d, s) in dst.chunks(n).zip(src.chunks(n)) {
        let (ds, ss) = (values(d), values(s));
        match (ds, ss) {
            (Some(ds), Some(ss)) if ds.len() * ss.len() <= ENUMERATION_LIMIT => {
                let mut sets = vec![ByteSet::default(); n];
                for dv in &ds {
                    for sv in &ss {
                        let r = elem(a, op, ty, *dv, *sv);
                        if pos.is_some() && r != elem(other, op, ty, *dv, *sv) {
                            departs = pos;
                        }
                        let r = r.to_le_bytes();
                        for (set, b) in sets.iter_mut().zip(r) {
                            set.insert(b);
                        }
                    }
                }
                out.extend(sets.into_iter().map(Byte::from_set));
            }
            _ => out.extend(std::iter::repeat_n(Byte::ANY, n)),
        }
    }
    Ok(Reduced {
        bytes: out,
        departs,
    })
}

/// All element values a run of uncertain bytes allows, if there are at most ENUMERATION_LIMIT.
fn values(bytes: &[Byte]) -> Option<Vec<u64>> {
    let mut vals = vec![0u64];
    for (i, b) in bytes.iter().enumerate() {
        if let Byte::Known(x) = b {
            vals.iter_mut().for_each(|v| *v |= (*x as u64) << (8 * i));
            continue;
        }
        let set = b.set();
        if vals.len() * set.len() as usize > ENUMERATION_LIMIT {
            return None;
        }
        vals = vals
            .iter()
            .flat_map(|v| set.iter().map(move |x| v | (x as u64) << (8 * i)))
            .collect();
    }
    Some(vals)
}

/// Is `bits` a NaN of the float type `ty`? (false for integer types)
pub fn is_nan(ty: RedType, bits: u64) -> bool {
    match ty {
        RedType::F16 => FMT_F16.is_nan(bits),
        RedType::Bf16 => FMT_BF16.is_nan(bits),
        RedType::F32 => FMT_F32.is_nan(bits),
        RedType::F64 => f64::from_bits(bits).is_nan(),
        _ => false,
    }
}

/// Same value for comparison purposes: equal bits, or both NaN (A-RED-NAN).
pub fn same_value(ty: RedType, a: u64, b: u64) -> bool {
    a == b || (is_nan(ty, a) && is_nan(ty, b))
}

#[cfg(test)]
mod tests;
