//! Materialising a region's initial contents from its [`Init`].
//!
//! - `fill: B`: every byte `B`.
//! - `pattern: SEED`: the splitmix64 stream seeded with `SEED`, each 64-bit output written
//!   little-endian, truncated to the region size. Output `i` (0-based) is
//!   `mix(SEED + (i+1)·0x9E3779B97F4A7C15)` with `mix(z) = z ^= z>>30; z *= 0xBF58476D1CE4E5B9;
//!   z ^= z>>27; z *= 0x94D049BB133111EB; z ^ z>>31` (all wrapping). Any tool can regenerate it.
//! - `hash: KEY`: byte `i` is the low byte of `mix(mix(KEY) ^ i)` (`mix` as above): a keyed
//!   hash of the byte index, so any byte of a multi-megabyte region is computed alone.
//! - `bytes: [..]` / `hex: "0102.."`: those bytes, then zeros; more bytes than the region holds
//!   is an error.
//! - `values: { type: T, data: [..] }`: elements of type T, little-endian, then zeros. Integer
//!   types take integral values in range (so u64/s64 beyond 2^53 cannot be written exactly: the
//!   data are YAML floats); f16/bf16 round to nearest, ties to even, straight from the f64 (no
//!   double rounding through f32); f32 likewise (`as f32`).

use super::model::{Init, TypedValues};
use std::fmt;

/// Largest region we materialise (1 GiB): a guard against absurd sizes in untrusted files.
pub const MAX_REGION_BYTES: u64 = 1 << 30;

/// Why an `init` cannot fill its region. `element` is the index into `values.data` (or
/// `bytes`) the problem concerns, when it concerns one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitError {
    pub element: Option<usize>,
    pub message: String,
}

impl fmt::Display for InitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.element {
            Some(i) => write!(f, "element {i}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for InitError {}

fn err(element: Option<usize>, message: impl Into<String>) -> InitError {
    InitError {
        element,
        message: message.into(),
    }
}

/// The splitmix64 generator (Steele, Lea, Flood 2014), as specified in the module docs: the one
/// deterministic generator of the workspace (patterns, generators, sweeps, campaign seeds).
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

/// splitmix64's output function (a bijection of `u64` with full avalanche).
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Byte `i` of the contents `hash: key`.
pub fn hash(key: u64, i: u64) -> u8 {
    mix(mix(key) ^ i) as u8
}

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }
    /// Below `n` (0 when `n` is 0); the modulo bias is irrelevant for test generation.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

impl Iterator for SplitMix64 {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        Some(self.next_u64())
    }
}

/// `len` bytes of the pattern for `seed`.
pub fn pattern(seed: u64, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 8);
    for w in SplitMix64(seed) {
        if out.len() >= len {
            break;
        }
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// An element type of `values`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemType {
    F16,
    Bf16,
    F32,
    F64,
    /// Unsigned (or untyped `bN`) integer of this many bytes.
    U(u8),
    /// Signed integer of this many bytes.
    S(u8),
}

impl ElemType {
    pub fn parse(s: &str) -> Option<ElemType> {
        Some(match s.trim_start_matches('.') {
            "f16" => ElemType::F16,
            "bf16" => ElemType::Bf16,
            "f32" => ElemType::F32,
            "f64" => ElemType::F64,
            "u8" | "b8" => ElemType::U(1),
            "u16" | "b16" => ElemType::U(2),
            "u32" | "b32" => ElemType::U(4),
            "u64" | "b64" => ElemType::U(8),
            "s8" => ElemType::S(1),
            "s16" => ElemType::S(2),
            "s32" => ElemType::S(4),
            "s64" => ElemType::S(8),
            _ => return None,
        })
    }
    pub fn bytes(self) -> usize {
        match self {
            ElemType::F16 | ElemType::Bf16 => 2,
            ElemType::F32 => 4,
            ElemType::F64 => 8,
            ElemType::U(n) | ElemType::S(n) => n as usize,
        }
    }
    /// The little-endian encoding of `x`, or why it has none.
    pub fn encode(self, x: f64) -> Result<Vec<u8>, String> {
        let n = self.bytes();
        let bits: u64 = match self {
            ElemType::F16 => round_float(x, 5, 10),
            ElemType::Bf16 => round_float(x, 8, 7),
            ElemType::F32 => (x as f32).to_bits() as u64,
            ElemType::F64 => x.to_bits(),
            ElemType::U(_) | ElemType::S(_) => {
                if x.fract() != 0.0 || !x.is_finite() {
                    return Err(format!("{x} is not an integer"));
                }
                let bits = 8 * n as u32;
                let signed = matches!(self, ElemType::S(_));
                // Ranges as f64 bounds: [lo, hi) with hi a power of two, exactly representable.
                let (lo, hi) = if signed {
                    (-(2f64.powi(bits as i32 - 1)), 2f64.powi(bits as i32 - 1))
                } else {
                    (0.0, 2f64.powi(bits as i32))
                };
                if x < lo || x >= hi {
                    return Err(format!(
                        "{x} is out of range for {}{}",
                        if signed { "s" } else { "u" },
                        bits
                    ));
                }
                if signed {
                    (x as i64) as u64
                } else {
                    x as u64
                }
            }
        };
        Ok(bits.to_le_bytes()[..n].to_vec())
    }
}

/// Round `x` to the binary floating-point format with `e` exponent bits and `m` stored mantissa
/// bits (IEEE 754 layout), to nearest with ties to even; overflow gives infinity, NaN a quiet NaN
/// with the sign of `x`. Returns the encoding in the low `1+e+m` bits.
pub fn round_float(x: f64, e: u32, m: u32) -> u64 {
    let sign = (x.is_sign_negative() as u64) << (e + m);
    let exp_ones = ((1u64 << e) - 1) << m;
    if x.is_nan() {
        return sign | exp_ones | (1 << (m - 1));
    }
    if x.is_infinite() {
        return sign | exp_ones;
    }
    let b = x.abs().to_bits();
    let (ef, frac) = ((b >> 52) as i32, b & ((1u64 << 52) - 1));
    // |x| = mant · 2^exp exactly.
    let (mant, exp) = if ef == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), ef - 1075)
    };
    if mant == 0 {
        return sign;
    }
    let bias = (1i32 << (e - 1)) - 1;
    let emin = 1 - bias;
    let log2 = exp + 63 - mant.leading_zeros() as i32;
    // The quantum (value of the last mantissa bit) of the result: normal or subnormal spacing.
    let mut k = (log2 - m as i32).max(emin - m as i32);
    let shift = k - exp;
    let mut q: u64 = if shift <= 0 {
        mant << (-shift) as u32
    } else if shift > 60 {
        0 // far below half a quantum: rounds to zero
    } else {
        let q = mant >> shift;
        let rem = mant & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        if rem > half || (rem == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    if q == 1 << (m + 1) {
        q >>= 1;
        k += 1;
    }
    if q >= 1 << m {
        let biased = k + m as i32 + bias;
        if biased >= (1 << e) - 1 {
            return sign | exp_ones;
        }
        sign | ((biased as u64) << m) | (q - (1 << m))
    } else {
        sign | q
    }
}

impl Init {
    /// Can this init fill a region of `size` bytes? (Validation: no allocation.)
    pub fn check(&self, size: u64) -> Result<(), InitError> {
        if size > MAX_REGION_BYTES {
            return Err(err(
                None,
                format!("region size {size} exceeds the {MAX_REGION_BYTES}-byte limit"),
            ));
        }
        match self {
            Init::Fill(_) | Init::Pattern(_) | Init::Hash(_) => Ok(()),
            Init::Bytes(bytes) if bytes.len() as u64 > size => Err(err(
                Some(size as usize),
                format!("{} bytes do not fit in a {size}-byte region", bytes.len()),
            )),
            Init::Hex(bytes) if bytes.len() as u64 > size => Err(err(
                None,
                format!("{} bytes do not fit in a {size}-byte region", bytes.len()),
            )),
            Init::Bytes(_) | Init::Hex(_) => Ok(()),
            Init::Values(tv) => tv.check(size).map(|_| ()),
        }
    }

    /// The region's initial bytes, `size` of them.
    pub fn materialize(&self, size: u64) -> Result<Vec<u8>, InitError> {
        self.check(size)?;
        let len = size as usize;
        Ok(match self {
            Init::Fill(b) => vec![*b; len],
            Init::Pattern(seed) => pattern(*seed, len),
            Init::Hash(key) => (0..size).map(|i| hash(*key, i)).collect(),
            Init::Bytes(bytes) | Init::Hex(bytes) => {
                let mut out = bytes.clone();
                out.resize(len, 0);
                out
            }
            Init::Values(tv) => {
                let ty = tv.check(size)?;
                let mut out = Vec::with_capacity(len);
                for x in &tv.data {
                    // Encodability was checked above.
                    out.extend(ty.encode(*x).map_err(|m| err(None, m))?);
                }
                out.resize(len, 0);
                out
            }
        })
    }
}

impl TypedValues {
    /// The element type, once the type is known, the data fit and every value is encodable.
    fn check(&self, size: u64) -> Result<ElemType, InitError> {
        let ty = ElemType::parse(&self.ty).ok_or_else(|| {
            err(
                None,
                format!(
                    "unknown element type `{}` (f16 bf16 f32 f64 u8..u64 s8..s64 b8..b64)",
                    self.ty
                ),
            )
        })?;
        let need = (self.data.len() as u64).saturating_mul(ty.bytes() as u64);
        if need > size {
            let first_out = (size / ty.bytes() as u64) as usize;
            return Err(err(
                Some(first_out),
                format!(
                    "{} {} values ({need} bytes) do not fit in a {size}-byte region",
                    self.data.len(),
                    self.ty
                ),
            ));
        }
        for (i, x) in self.data.iter().enumerate() {
            ty.encode(*x).map_err(|m| err(Some(i), m))?;
        }
        Ok(ty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn f16(x: f64) -> u64 {
        round_float(x, 5, 10)
    }
    fn bf16(x: f64) -> u64 {
        round_float(x, 8, 7)
    }

    #[test]
    fn splitmix_reference_outputs() {
        // Published splitmix64 outputs for seed 0.
        let v: Vec<u64> = SplitMix64(0).take(3).collect();
        assert_eq!(
            v,
            vec![
                0xE220_A839_7B1D_CDAF,
                0x6E78_9E6A_A1B9_65F4,
                0x06C4_5D18_8009_454F
            ]
        );
        let p = pattern(0, 10);
        assert_eq!(
            p,
            vec![0xAF, 0xCD, 0x1D, 0x7B, 0x39, 0xA8, 0x20, 0xE2, 0xF4, 0x65]
        );
        assert_ne!(pattern(1, 16), pattern(0, 16));
    }

    #[test]
    fn f16_known_values() {
        assert_eq!(f16(1.0), 0x3C00);
        assert_eq!(f16(-2.0), 0xC000);
        assert_eq!(f16(65504.0), 0x7BFF);
        assert_eq!(f16(65519.99), 0x7BFF);
        assert_eq!(f16(65520.0), 0x7C00); // tie between 65504 and 65536 -> even -> overflow
        assert_eq!(f16(1.0 / 3.0), 0x3555);
        assert_eq!(f16(2f64.powi(-24)), 0x0001); // least subnormal
        assert_eq!(f16(2f64.powi(-25)), 0x0000); // tie -> even (zero)
        assert_eq!(f16(1.5 * 2f64.powi(-25)), 0x0001);
        assert_eq!(f16(3.0 * 2f64.powi(-25)), 0x0002); // tie between 1 and 2 ulps -> even
        assert_eq!(f16(2f64.powi(-14)), 0x0400); // least normal
        assert_eq!(f16(2f64.powi(-14) - 2f64.powi(-25)), 0x0400); // rounds up into normals
        assert_eq!(f16(-0.0), 0x8000);
        assert_eq!(f16(f64::INFINITY), 0x7C00);
        assert_eq!(f16(f64::NAN) & 0x7E00, 0x7E00);
        assert_eq!(f16(1.0 + 2f64.powi(-11)), 0x3C00); // tie -> even
        assert_eq!(f16(1.0 + 3.0 * 2f64.powi(-11)), 0x3C02); // tie -> even (up)
        assert_eq!(f16(1e-300), 0);
    }

    #[test]
    fn bf16_known_values() {
        assert_eq!(bf16(1.0), 0x3F80);
        assert_eq!(bf16(1.0 / 3.0), 0x3EAB);
        assert_eq!(bf16(-1.5), 0xBFC0);
        assert_eq!(bf16(3.4e38), 0x7F80); // beyond the largest bf16 (~3.39e38) after rounding
        assert_eq!(bf16(f64::from(f32::MIN_POSITIVE)), 0x0080);
    }

    proptest! {
        /// The generic rounding agrees with Rust's f64 -> f32 conversion (itself RNE).
        #[test]
        fn round_float_matches_as_f32(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            prop_assume!(!x.is_nan());
            prop_assert_eq!(round_float(x, 8, 23), (x as f32).to_bits() as u64);
        }

        /// f16 values round-trip through f64 exactly.
        #[test]
        fn f16_exact_values_roundtrip(h in 0u16..0x7C00, neg in any::<bool>()) {
            let e = (h >> 10) as i32;
            let f = (h & 0x3FF) as f64;
            let v = if e == 0 { f * 2f64.powi(-24) } else { (1024.0 + f) * 2f64.powi(e - 25) };
            let v = if neg { -v } else { v };
            prop_assert_eq!(f16(v), h as u64 | if neg { 0x8000 } else { 0 });
        }
    }

    #[test]
    fn materialize_kinds() {
        assert_eq!(Init::Fill(0xAA).materialize(3).unwrap(), vec![0xAA; 3]);
        assert_eq!(
            Init::Bytes(vec![1, 2]).materialize(4).unwrap(),
            vec![1, 2, 0, 0]
        );
        let e = Init::Bytes(vec![1, 2, 3]).materialize(2).unwrap_err();
        assert_eq!(e.message, "3 bytes do not fit in a 2-byte region");
        let v = |ty: &str, data: Vec<f64>| {
            Init::Values(TypedValues {
                ty: ty.into(),
                data,
            })
        };
        assert_eq!(
            v("f32", vec![1.0, -0.0]).materialize(8).unwrap(),
            vec![0, 0, 0x80, 0x3F, 0, 0, 0, 0x80]
        );
        assert_eq!(v("u16", vec![258.0]).materialize(3).unwrap(), vec![2, 1, 0]);
        assert_eq!(
            v("s8", vec![-1.0, -128.0]).materialize(2).unwrap(),
            vec![0xFF, 0x80]
        );
        assert_eq!(
            v("bf16", vec![1.0]).materialize(2).unwrap(),
            vec![0x80, 0x3F]
        );
        assert_eq!(
            v("f16", vec![1.0]).materialize(2).unwrap(),
            vec![0x00, 0x3C]
        );
        assert_eq!(
            v("f64", vec![1.0]).materialize(8).unwrap(),
            1f64.to_le_bytes().to_vec()
        );
        assert_eq!(
            v("u64", vec![2f64.powi(63)]).materialize(8).unwrap(),
            (1u64 << 63).to_le_bytes().to_vec()
        );
        let e = v("s8", vec![1.0, 128.0]).materialize(2).unwrap_err();
        assert_eq!(e.to_string(), "element 1: 128 is out of range for s8");
        let e = v("u8", vec![1.5]).materialize(2).unwrap_err();
        assert_eq!(e.to_string(), "element 0: 1.5 is not an integer");
        assert!(v("u64", vec![2f64.powi(64)]).materialize(8).is_err());
        assert!(v("u8", vec![-1.0]).materialize(1).is_err());
        assert!(v("f32", vec![1.0, 2.0]).materialize(4).is_err());
        assert!(v("f8", vec![1.0])
            .materialize(4)
            .unwrap_err()
            .message
            .contains("unknown element type"));
        assert!(Init::Fill(0).materialize(MAX_REGION_BYTES + 1).is_err());
        assert_eq!(Init::Hex(vec![1, 2]).materialize(3).unwrap(), vec![1, 2, 0]);
        let e = Init::Hex(vec![1, 2, 3]).materialize(2).unwrap_err();
        assert_eq!(e.to_string(), "3 bytes do not fit in a 2-byte region");
    }

    #[test]
    fn hash_contents() {
        // Pinned values: tools outside the workspace regenerate the contents from the docs.
        assert_eq!(mix(0), 0);
        assert_eq!(hash(0, 1), mix(1) as u8);
        assert_eq!(hash(7, 0), mix(mix(7)) as u8);
        let a = Init::Hash(7).materialize(4096).unwrap();
        // Deterministic, byte i computed alone, a prefix of a larger region's contents.
        assert_eq!(a, Init::Hash(7).materialize(4096).unwrap());
        assert!(a.iter().enumerate().all(|(i, &b)| b == hash(7, i as u64)));
        assert_eq!(Init::Hash(7).materialize(100).unwrap(), a[..100]);
        // Another key gives other contents (nearly every byte differs), and none is constant.
        let b = Init::Hash(8).materialize(4096).unwrap();
        let same = a.iter().zip(&b).filter(|(x, y)| x == y).count();
        assert!(same < 64, "{same} of 4096 bytes agree across keys");
        let distinct: std::collections::BTreeSet<u8> = a.iter().copied().collect();
        assert!(
            distinct.len() > 200,
            "{} distinct byte values",
            distinct.len()
        );
        // Not the `pattern` of the same seed.
        assert_ne!(a, pattern(7, 4096));
    }
}
