//! The draws of one configuration: a tensor map of any encodable shape for the mode (dimension
//! and box lengths, strides, swizzle, interleave, fill), shrunk to the caps, and coordinates that
//! put the box where the drawn situation says.

use super::{box_bytes, extent, row_bytes, Mode, Oob, GLOBAL_CAP, SMEM_CAP};
use crate::gen::tensor::{bit, per16, range};
use crate::sem::tensor::tensormap::{
    DataType, Interleave, L2Promotion, OobFill, SplitMix, Swizzle, TensorMapParams,
};

/// A dimension length: mostly small, sometimes medium, sometimes large and odd (2^k ± 1), rarely
/// zero (which the driver must refuse).
fn dim(g: &mut SplitMix) -> u64 {
    match g.below(64) {
        0 if g.below(4) == 0 => 0,
        0 => 1,
        1..=31 => 1 + g.below(8),
        32..=47 => 1 + g.below(64),
        48..=55 => 1 + g.below(1024),
        _ => {
            let k = 4 + g.below(14);
            ((1u64 << k) as i64 + range(g, -1, 1)) as u64
        }
    }
}

/// A box length for a dimension of `d`: small, up to just past `d`, exactly `d`, the limit 256,
/// or just past it (refused).
fn box_len(g: &mut SplitMix, d: u64) -> u32 {
    match g.below(32) {
        0..=15 => 1 + g.below(d.clamp(1, 8)) as u32,
        16..=23 => 1 + g.below(d.clamp(1, 256) + 4) as u32,
        24..=27 => d.clamp(1, 256) as u32,
        28..=30 => 256,
        _ => g.pick(&[0, 257]),
    }
}

/// Strides covering each previous extent (16-byte multiples, sometimes padded), with rare
/// deviations the driver must refuse: off the 16-byte grid, or overlapping.
fn strides(g: &mut SplitMix, p: &TensorMapParams) -> Vec<u64> {
    let gran = if p.interleave == Interleave::B32 || p.tensor_data_type.is_packed16() {
        32
    } else {
        16
    };
    let mut s = row_bytes(p).div_ceil(gran) * gran;
    let mut out = Vec::new();
    for i in 1..p.global_dim.len() {
        s += gran * g.pick(&[0, 0, 0, 1, 3]);
        let mut v = s;
        match g.below(128) {
            0 => v += 8,
            1 => v = 16,
            _ => {}
        }
        out.push(v);
        s = v.max(16) * p.global_dim[i].max(1);
    }
    out
}

/// A data type, swizzle and interleave drawn together (draw v2 stratifies over all of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Combo {
    pub ty: DataType,
    pub swizzle: Swizzle,
    pub interleave: Interleave,
}

impl Combo {
    /// How many combinations there are.
    pub const COUNT: usize = DataType::ALL.len() * Swizzle::ALL.len() * Interleave::ALL.len();

    /// Combination `k` (mod [`Combo::COUNT`]).
    pub fn nth(k: u64) -> Combo {
        let k = (k % Self::COUNT as u64) as usize;
        let (t, rest) = (k % DataType::ALL.len(), k / DataType::ALL.len());
        Combo {
            ty: DataType::ALL[t],
            swizzle: Swizzle::ALL[rest % Swizzle::ALL.len()],
            interleave: Interleave::ALL[rest / Swizzle::ALL.len()],
        }
    }
}

/// A map of any encodable shape for `mode`, shrunk to the caps.
/// `fit`: boxes no larger than the tensor (so a box can lie inside it). `force`: the type,
/// swizzle and interleave to use instead of the drawn ones (the draws are still made, so the
/// rest of the stream is the same).
pub(super) fn draw_map(
    g: &mut SplitMix,
    mode: Mode,
    fit: bool,
    force: Option<Combo>,
) -> TensorMapParams {
    // Types sm_90 lacks (packed, sm_100) rarely: they only ever meet the driver's refusal.
    let ty = loop {
        let t = g.pick(&DataType::ALL);
        if !t.is_packed16() && t != DataType::U4Align8B || g.below(12) == 0 {
            break t;
        }
    };
    let ty = force.map_or(ty, |f| f.ty);
    let rank = if mode.im2col() {
        3 + g.below(3) as usize
    } else {
        1 + g.below(5) as usize
    };
    let mut dims: Vec<u64> = (0..rank).map(|_| dim(g)).collect();
    if mode == Mode::StoreIm2col {
        // Room for a store's window (corners inside the tensor) in the spatial dimensions.
        for d in &mut dims[1..rank - 1] {
            *d = (*d).max(3);
        }
    }
    let step = per16(ty) as u64;
    // The sm_100 atom swizzles rarely (sm_90's driver refuses them).
    let swizzle = if g.below(12) == 0 {
        g.pick(&Swizzle::ALL)
    } else {
        g.pick(&crate::gen::tensor::SWIZZLES_SM90)
    };
    let swizzle = force.map_or(swizzle, |f| f.swizzle);
    let mut p = if mode.im2col() {
        let s = rank - 2;
        let lim = [1i64 << 15, 1 << 7, 1 << 4][s - 1];
        // Corners: mostly a small window around the tensor (inside it for stores, which need
        // lower ≥ 0 and upper ≤ 0), sometimes at or past the limits.
        let store = mode == Mode::StoreIm2col;
        let corner = |g: &mut SplitMix, upper: bool| -> i32 {
            (match g.below(64) {
                0 => -lim,
                1 => lim - 1,
                2 => g.pick(&[-lim - 1, lim]),
                3..=4 => range(g, -3, 3),
                _ if store && upper => range(g, -1, 0),
                _ if store => range(g, 0, 1),
                _ if upper => range(g, -1, 1),
                _ => range(g, -2, 0),
            }) as i32
        };
        let lower: Vec<i32> = (0..s).map(|_| corner(g, false)).collect();
        let upper: Vec<i32> = (0..s).map(|_| corner(g, true)).collect();
        let cpp = match g.below(8) {
            0 => g.pick(&[1, 255, 256, 257]),
            _ => (step * (1 + g.below(swizzle.span().map_or(8, |s| s / 16)))) as u32,
        };
        let ppc = match g.below(8) {
            0 => g.pick(&[0, 1024, 1025]),
            1..=2 => 1 + g.below(256) as u32,
            _ => 1 + g.below(16) as u32,
        };
        TensorMapParams::im2col(ty, dims.clone(), lower, upper, cpp, ppc)
    } else {
        let mut bx: Vec<u32> = dims
            .iter()
            .map(|&d| {
                let b = box_len(g, d);
                if fit {
                    b.min(d.max(1) as u32)
                } else {
                    b
                }
            })
            .collect();
        // Dimension 0 in whole 16-byte pieces within the swizzle span, mostly; sometimes any
        // length.
        if g.below(16) != 0 {
            let pieces = swizzle.span().map_or(8, |s| s / 16);
            bx[0] = (step * (1 + g.below(pieces))).min(256) as u32;
        }
        TensorMapParams::tiled(ty, dims.clone(), bx)
    };
    p.swizzle = swizzle;
    p.interleave = match g.below(16) {
        0 => Interleave::B16,
        1 => Interleave::B32,
        _ => Interleave::None,
    };
    if p.interleave == Interleave::B32 && g.below(4) != 0 {
        p.swizzle = Swizzle::B32;
    }
    if let Some(f) = force {
        (p.swizzle, p.interleave) = (f.swizzle, f.interleave);
    }
    if bit(g) {
        p.element_strides = Some(
            (0..rank)
                .map(|_| match g.below(32) {
                    0 if g.below(4) == 0 => g.pick(&[0, 9]),
                    0 => 1,
                    1..=15 => 1,
                    _ => 1 + g.below(8) as u32,
                })
                .collect(),
        );
    }
    // NaN fill on integer types (refused) now and then, on float types often.
    if g.below(if ty.is_float() { 3 } else { 32 }) == 0 {
        p.oob_fill = OobFill::NanRequestZeroFma;
    }
    p.l2_promotion = g.pick(&L2Promotion::ALL);
    // Shrink to the caps (halving keeps odd sizes odd often enough).
    loop {
        p.global_dim = dims.clone();
        p.global_strides = strides(g, &p);
        if extent(&p) <= GLOBAL_CAP {
            break;
        }
        if let Some(m) = (0..rank).max_by_key(|&i| dims[i]) {
            dims[m] = (dims[m] / 2).max(1);
        }
    }
    if let (true, Some(b)) = (fit, p.box_dim.as_mut()) {
        for (x, d) in b.iter_mut().zip(&dims) {
            *x = (*x).min((*d).max(1) as u32);
        }
    }
    shrink_box(&mut p, SMEM_CAP - 2048);
    p
}

/// Halve the box's largest side (im2col: pixels, then channels) until its padded footprint is
/// at most `cap` bytes.
pub(super) fn shrink_box(p: &mut TensorMapParams, cap: u64) {
    while box_bytes(p) > cap {
        if let Some(b) = p.box_dim.as_mut() {
            match (0..b.len()).max_by_key(|&i| b[i]) {
                Some(m) if b[m] > 1 => b[m] /= 2,
                _ => return,
            }
        } else if p.pixels_per_column.unwrap_or(1) > 1 {
            p.pixels_per_column = p.pixels_per_column.map(|x| x / 2);
        } else if p.channels_per_pixel.unwrap_or(1) > 1 {
            p.channels_per_pixel = p.channels_per_pixel.map(|x| (x / 2).max(1));
        } else {
            return;
        }
    }
}

/// The box's extent per dimension as coordinates see it (im2col: channels, then one pixel).
fn box_extent(p: &TensorMapParams) -> Vec<i64> {
    match &p.box_dim {
        Some(b) if !b.is_empty() => b.iter().map(|&x| x.max(1) as i64).collect(),
        _ => {
            let mut v = vec![1; p.global_dim.len()];
            v[0] = p.channels_per_pixel.unwrap_or(1).max(1) as i64;
            v
        }
    }
}

/// Coordinates for a drawn situation, the im2col offsets (loads), and the situation the
/// coordinates actually give.
pub(super) fn draw_coords(
    g: &mut SplitMix,
    p: &TensorMapParams,
    mode: Mode,
    wanted: Oob,
) -> (Vec<i32>, Vec<u16>, Oob) {
    let r = p.global_dim.len();
    let bx = box_extent(p);
    let dims: Vec<i64> = p.global_dim.iter().map(|&d| d as i64).collect();
    let pick_dim = g.below(r as u64) as usize;
    let offsets: Vec<u16> = if mode == Mode::LoadIm2col || mode == Mode::PrefetchIm2col {
        let bits = [16u32, 8, 5][(r - 3).min(2)];
        (0..r - 2)
            .map(|_| match g.below(16) {
                0 => ((1u32 << bits) - 1) as u16,
                _ => g.below(3) as u16,
            })
            .collect()
    } else {
        Vec::new()
    };
    // The load's offset moves the filter base: start early enough that base + offset can lie inside.
    let shift = |i: usize| offsets.get(i.wrapping_sub(1)).map_or(0, |&o| o as i64);
    let mut c: Vec<i64> = (0..r)
        .map(|i| range(g, 0, (dims[i] - bx[i] - shift(i)).max(0)))
        .collect();
    let i = pick_dim;
    match wanted {
        Oob::Inside => {}
        Oob::PartlyOutside => c[i] = range(g, (dims[i] - bx[i] + 1).max(0), dims[i] - 1).max(0),
        Oob::Negative => c[i] = range(g, -bx[i] + 1, -1).min(-1),
        Oob::FullyOutside => {
            c[i] = match g.below(4) {
                0 => -bx[i] - range(g, 0, 3),
                1 => g.pick(&[i32::MIN as i64, i32::MAX as i64 - 255]),
                _ => dims[i] + range(g, 0, 3),
            }
        }
    }
    // Dimension 0 on the 16-byte grid (whole granules with interleave), mostly.
    if p.interleave == Interleave::None && !matches!(c[0], v if v.abs() > 1 << 30) {
        let step = per16(p.tensor_data_type) as i64;
        c[0] = c[0].div_euclid(step) * step;
        if g.below(16) == 0 {
            c[0] += 1;
        }
    }
    // im2col: a spatial coordinate is the filter base (plus the load's offset); the pixels walk
    // the corners' bounding box, which reaches outside the tensor where a corner does.
    let (lower, upper) = (
        p.pixel_box_lower_corner.clone().unwrap_or_default(),
        p.pixel_box_upper_corner.clone().unwrap_or_default(),
    );
    let situation = (0..r)
        .map(|i| {
            let lo = c[i] + shift(i);
            let walks_out = mode.im2col()
                && i >= 1
                && i + 1 < r
                && (lower.get(i - 1).is_some_and(|&x| x < 0)
                    || upper.get(i - 1).is_some_and(|&x| x > 0));
            if lo >= dims[i] || lo + bx[i] <= 0 {
                Oob::FullyOutside
            } else if lo < 0 {
                Oob::Negative
            } else if lo + bx[i] > dims[i] || walks_out {
                Oob::PartlyOutside
            } else {
                Oob::Inside
            }
        })
        .max()
        .unwrap_or(Oob::Inside);
    let coords = c
        .iter()
        .map(|&v| v.clamp(i32::MIN as i64, i32::MAX as i64) as i32)
        .collect();
    (coords, offsets, situation)
}
