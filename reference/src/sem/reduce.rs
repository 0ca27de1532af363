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
        (Xor, _) => d ^ s,
        (Add, U32 | S32 | U64 | S64 | B32 | B64) => d.wrapping_add(s),
        (Min | Max, U32 | U64 | B32 | B64) => pick(op == Min, d <= s, d, s),
        (Min | Max, S32) => pick(op == Min, (d as u32 as i32) <= (s as u32 as i32), d, s),
        (Min | Max, S64) => pick(op == Min, (d as i64) <= (s as i64), d, s),
        // A-RED-INCDEC (§9.7.13.5 atom .inc/.dec)
        (Inc, _) => {
            if (d as u32) >= (s as u32) {
                0
            } else {
                d + 1
            }
        }
        (Dec, _) => {
            if d as u32 == 0 || (d as u32) > (s as u32) {
                s
            } else {
                d - 1
            }
        }
        (Add, F32) if a.silicon() && a.form != ReduceForm::TensorFtz => {
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
        0x7FFF_FFFF
    } else {
        r.to_bits()
    }
}

/// P-RED-F32-SUBNORMALS, sm_90 reading: f32 add, round to nearest even, no flush; a NaN result is
/// the canonical NaN (recorded for NaN + 1.0 and inf + -inf).
fn add_f32_keep(d: u32, s: u32) -> u32 {
    let r = f32::from_bits(d) + f32::from_bits(s);
    if r.is_nan() {
        0x7FFF_FFFF
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
    if a.silicon() {
        if y.is_nan() {
            return s;
        }
        if x.is_nan() {
            return d;
        }
    }
    let r = x + y;
    match (r.is_nan(), a.silicon()) {
        (true, true) => 0xFFF8_0000_0000_0000,
        (true, false) => u64::MAX >> 1,
        _ => r.to_bits(),
    }
}

/// §9.7.9.25.4.2 .noftz: f16/bf16 add, nearest even, subnormals preserved. The f64 sum is exact
/// for f16; for bf16 the double rounding is innocuous (53 ≥ 2·8 + 2).
fn add_half(f: Fmt, d: u64, s: u64) -> u64 {
    f.round(f.decode(d) + f.decode(s))
}

fn minmax_half(f: Fmt, min: bool, d: u64, s: u64) -> u64 {
    match (f.is_nan(d), f.is_nan(s)) {
        (true, true) => f.canonical_nan(),
        (true, false) => s,
        (false, true) => d,
        _ => {
            let (x, y) = (f.decode(d), f.decode(s));
            if x == y {
                // Only ±0 compare equal with different bits (A-RED-MINMAX-ZERO).
                if min {
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
mod tests {
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
}
