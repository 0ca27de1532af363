//! Tensor-map encoding through the driver (`cuTensorMapEncode*`), loaded by symbol: the
//! encoders are optional (older drivers lack the im2col-wide one), so each reports
//! `Unavailable` instead of failing the worker.

use std::ffi::{c_int, c_void};

use cudarc::driver::sys;
use serde::{Deserialize, Serialize};

use super::driver::*;

/// Why a tensor map could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EncodeError {
    /// The driver rejected the parameters (normally `CUDA_ERROR_INVALID_VALUE`).
    Driver { code: i32, name: String },
    /// The loaded driver does not export this encoder.
    Unavailable { symbol: String },
    /// Array lengths disagree with the rank (caught before calling the driver, which would read
    /// past our arrays).
    BadShape { what: String },
}

/// Parameters shared by all three encoders. Enum-valued fields are raw `u32` so that invalid values
/// can be sent to the driver on purpose.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EncodeCommon {
    pub data_type: u32,
    pub rank: u32,
    /// `rank` entries.
    pub global_dim: Vec<u64>,
    /// `rank - 1` entries (the stride of dimension 0 is the element size and is implicit).
    pub global_strides: Vec<u64>,
    /// `rank` entries.
    pub element_strides: Vec<u32>,
    pub interleave: u32,
    pub swizzle: u32,
    pub l2_promotion: u32,
    pub oob_fill: u32,
}

/// Upper bound on rank we accept before handing arrays to the driver (§09: rank ≤ 5; 3..5 for
/// im2col). Ranks above this are still sent, with arrays padded to this length, so that the
/// driver's own rejection is observed instead of ours.
const MAX_RANK_ARRAYS: usize = 8;

/// The 128-byte opaque tensor map.
pub type TensorMapBytes = [u8; 128];

type Padded = (
    [u64; MAX_RANK_ARRAYS],
    [u64; MAX_RANK_ARRAYS],
    [u32; MAX_RANK_ARRAYS],
);

/// The first `n` entries of `a`, as the driver reads an array it is told has `n`: a longer array
/// goes through (the driver never sees the rest, as for a caller in C); a shorter one is refused
/// here, since the driver would read past it.
fn first<'a, T>(a: &'a [T], n: usize, what: &str) -> Result<&'a [T], EncodeError> {
    a.get(..n).ok_or_else(|| EncodeError::BadShape {
        what: format!("{what}: {} entries, the driver reads {n}", a.len()),
    })
}

impl EncodeCommon {
    /// Arrays padded to a fixed length so the driver can never read past them, even when `rank`
    /// is deliberately invalid.
    fn padded(&self) -> Result<Padded, EncodeError> {
        let r = self.rank as usize;
        if r > MAX_RANK_ARRAYS {
            return Err(EncodeError::BadShape {
                what: "rank above 8".into(),
            });
        }
        let strides = r.saturating_sub(1);
        let mut d = [0u64; MAX_RANK_ARRAYS];
        let mut s = [0u64; MAX_RANK_ARRAYS];
        let mut e = [0u32; MAX_RANK_ARRAYS];
        d[..r].copy_from_slice(first(&self.global_dim, r, "global_dim")?);
        s[..strides].copy_from_slice(first(&self.global_strides, strides, "global_strides")?);
        e[..r].copy_from_slice(first(&self.element_strides, r, "element_strides")?);
        Ok((d, s, e))
    }
}

fn map_bytes(m: &sys::CUtensorMap) -> TensorMapBytes {
    let mut out = [0u8; 128];
    for (i, w) in m.opaque.iter().enumerate() {
        out[i * 8..i * 8 + 8].copy_from_slice(&w.to_le_bytes());
    }
    out
}

fn encode_result(r: c_int, m: &sys::CUtensorMap) -> Result<TensorMapBytes, EncodeError> {
    if r == 0 {
        Ok(map_bytes(m))
    } else {
        Err(EncodeError::Driver {
            code: r,
            name: error_name(r),
        })
    }
}

fn unavailable(symbol: &str) -> EncodeError {
    EncodeError::Unavailable {
        symbol: symbol.into(),
    }
}

type Dims = *const u64;
type U32s = *const u32;
type EncodeTiledFn = unsafe extern "C" fn(
    *mut sys::CUtensorMap,
    u32,
    u32,
    *mut c_void,
    Dims,
    Dims,
    U32s,
    U32s,
    u32,
    u32,
    u32,
    u32,
) -> c_int;
type EncodeIm2colFn = unsafe extern "C" fn(
    *mut sys::CUtensorMap,
    u32,
    u32,
    *mut c_void,
    Dims,
    Dims,
    *const c_int,
    *const c_int,
    u32,
    u32,
    U32s,
    u32,
    u32,
    u32,
    u32,
) -> c_int;
type EncodeIm2colWideFn = unsafe extern "C" fn(
    *mut sys::CUtensorMap,
    u32,
    u32,
    *mut c_void,
    Dims,
    Dims,
    c_int,
    c_int,
    u32,
    u32,
    U32s,
    u32,
    u32,
    u32,
    u32,
    u32,
) -> c_int;

/// `cuTensorMapEncodeTiled`. `box_dim` has `rank` entries.
pub fn encode_tiled(
    _d: &Driver,
    global_address: u64,
    c: &EncodeCommon,
    box_dim: &[u32],
) -> Result<TensorMapBytes, EncodeError> {
    let (dims, strides, estr) = c.padded()?;
    let box_dim = first(box_dim, c.rank as usize, "box_dim")?;
    let mut bx = [0u32; MAX_RANK_ARRAYS];
    bx[..box_dim.len()].copy_from_slice(box_dim);
    // SAFETY: a `Driver` exists so libcuda is present; `EncodeTiledFn` matches the C prototype of
    // cuTensorMapEncodeTiled with every enum parameter as its 32-bit underlying type.
    let f = unsafe { lookup::<EncodeTiledFn>(b"cuTensorMapEncodeTiled\0") }
        .ok_or_else(|| unavailable("cuTensorMapEncodeTiled"))?;
    let mut m = sys::CUtensorMap { opaque: [0; 16] };
    // SAFETY: every array has MAX_RANK_ARRAYS ≥ rank entries and lives across the call; the
    // driver only encodes `global_address` into the map and never dereferences it; `m` is a
    // properly aligned (128-byte) output.
    let r = unsafe {
        f(
            &mut m,
            c.data_type,
            c.rank,
            global_address as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            bx.as_ptr(),
            estr.as_ptr(),
            c.interleave,
            c.swizzle,
            c.l2_promotion,
            c.oob_fill,
        )
    };
    encode_result(r, &m)
}

/// `cuTensorMapEncodeIm2col`. The corners have `rank - 2` entries.
#[allow(clippy::too_many_arguments)]
pub fn encode_im2col(
    _d: &Driver,
    global_address: u64,
    c: &EncodeCommon,
    lower_corner: &[i32],
    upper_corner: &[i32],
    channels_per_pixel: u32,
    pixels_per_column: u32,
) -> Result<TensorMapBytes, EncodeError> {
    let (dims, strides, estr) = c.padded()?;
    let n = (c.rank as usize).saturating_sub(2);
    let lower_corner = first(lower_corner, n, "pixel box lower corner")?;
    let upper_corner = first(upper_corner, n, "pixel box upper corner")?;
    let mut lo = [0 as c_int; MAX_RANK_ARRAYS];
    let mut hi = [0 as c_int; MAX_RANK_ARRAYS];
    lo[..n].copy_from_slice(lower_corner);
    hi[..n].copy_from_slice(upper_corner);
    // SAFETY: as for `encode_tiled`; `EncodeIm2colFn` matches cuTensorMapEncodeIm2col.
    let f = unsafe { lookup::<EncodeIm2colFn>(b"cuTensorMapEncodeIm2col\0") }
        .ok_or_else(|| unavailable("cuTensorMapEncodeIm2col"))?;
    let mut m = sys::CUtensorMap { opaque: [0; 16] };
    // SAFETY: all arrays are MAX_RANK_ARRAYS long and outlive the call; see `encode_tiled`.
    let r = unsafe {
        f(
            &mut m,
            c.data_type,
            c.rank,
            global_address as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            lo.as_ptr(),
            hi.as_ptr(),
            channels_per_pixel,
            pixels_per_column,
            estr.as_ptr(),
            c.interleave,
            c.swizzle,
            c.l2_promotion,
            c.oob_fill,
        )
    };
    encode_result(r, &m)
}

/// `cuTensorMapEncodeIm2colWide` (CUDA ≥ 12.8; present in cudarc 0.19's `cuda-13000` bindings).
#[allow(clippy::too_many_arguments)]
pub fn encode_im2col_wide(
    _d: &Driver,
    global_address: u64,
    c: &EncodeCommon,
    lower_corner_width: i32,
    upper_corner_width: i32,
    channels_per_pixel: u32,
    pixels_per_column: u32,
    mode: u32,
) -> Result<TensorMapBytes, EncodeError> {
    let (dims, strides, estr) = c.padded()?;
    // SAFETY: as for `encode_tiled`; `EncodeIm2colWideFn` matches cuTensorMapEncodeIm2colWide.
    let f = unsafe { lookup::<EncodeIm2colWideFn>(b"cuTensorMapEncodeIm2colWide\0") }
        .ok_or_else(|| unavailable("cuTensorMapEncodeIm2colWide"))?;
    let mut m = sys::CUtensorMap { opaque: [0; 16] };
    // SAFETY: all arrays are MAX_RANK_ARRAYS long and outlive the call; see `encode_tiled`.
    let r = unsafe {
        f(
            &mut m,
            c.data_type,
            c.rank,
            global_address as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            lower_corner_width,
            upper_corner_width,
            channels_per_pixel,
            pixels_per_column,
            estr.as_ptr(),
            c.interleave,
            mode,
            c.swizzle,
            c.l2_promotion,
            c.oob_fill,
        )
    };
    encode_result(r, &m)
}

// Compile-time checks that our function-pointer types agree with cudarc's bindings in everything
// but the enum parameters (which we pass as their u32 representation).
const _: () = {
    assert!(std::mem::size_of::<sys::CUtensorMapDataType>() == 4);
    assert!(std::mem::size_of::<sys::CUtensorMapSwizzle>() == 4);
    assert!(std::mem::size_of::<sys::CUtensorMapIm2ColWideMode>() == 4);
    assert!(std::mem::size_of::<sys::CUtensorMap>() == 128);
    assert!(std::mem::align_of::<sys::CUtensorMap>() == 128);
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_shapes_are_checked_before_the_driver() {
        let c = EncodeCommon {
            data_type: 0,
            rank: 2,
            global_dim: vec![16, 16],
            global_strides: vec![16],
            element_strides: vec![1, 1],
            interleave: 0,
            swizzle: 0,
            l2_promotion: 0,
            oob_fill: 0,
        };
        let (d, s, e) = c.padded().unwrap();
        assert_eq!(
            (&d[..3], &s[..2], &e[..3]),
            (&[16, 16, 0][..], &[16, 0][..], &[1, 1, 0][..])
        );
        // Longer arrays go through as the driver reads them (their first `rank` entries);
        // shorter ones are refused before the driver could read past them.
        let long = EncodeCommon {
            global_strides: vec![16, 256],
            element_strides: vec![1, 1, 7],
            ..c.clone()
        };
        let (_, s, e) = long.padded().unwrap();
        assert_eq!((&s[..2], &e[..3]), (&[16, 0][..], &[1, 1, 0][..]));
        let bad = EncodeCommon {
            element_strides: vec![1],
            ..c.clone()
        };
        assert!(matches!(bad.padded(), Err(EncodeError::BadShape { .. })));
        let huge = EncodeCommon { rank: 9, ..c };
        assert!(matches!(huge.padded(), Err(EncodeError::BadShape { .. })));
    }

    #[test]
    fn map_bytes_are_little_endian_words() {
        let mut m = sys::CUtensorMap { opaque: [0; 16] };
        m.opaque[0] = 0x0102;
        m.opaque[15] = 0xff << 56;
        let b = map_bytes(&m);
        assert_eq!((b[0], b[1], b[127]), (2, 1, 0xff));
    }
}
