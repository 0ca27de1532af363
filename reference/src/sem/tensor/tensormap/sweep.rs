//! A deterministic sweep of parameter sets around every rule's edge, for comparing the
//! validator with the real driver (`driver_check/driver_check.c`).

use crate::tensor_map::{
    DataType, EncodeKind, Interleave, L2Promotion, OobFill, Swizzle, TensorMapParams, WideMode,
};

/// The workspace's deterministic generator, under the name sweeps use.
pub use crate::case_model::init::SplitMix64 as SplitMix;

/// `n` parameter sets for comparing [`validate`] with the real driver. Deterministic in `seed`.
/// Each set starts from a valid map of a random encode kind and then, with probability about
/// one half, pushes one parameter to an interesting boundary (just inside or just outside a
/// rule's limit), so both accepted and rejected maps come out, near every rule's edge.
///
/// [`validate`]: super::validate
pub fn param_sweep(seed: u64, n: usize) -> Vec<TensorMapParams> {
    let mut g = SplitMix(seed);
    (0..n).map(|_| one_sweep_case(&mut g)).collect()
}

fn one_sweep_case(g: &mut SplitMix) -> TensorMapParams {
    let ty = g.pick(&DataType::ALL);
    let kind = g.pick(&[
        EncodeKind::Tiled,
        EncodeKind::Tiled,
        EncodeKind::Im2col,
        EncodeKind::Im2colWide,
    ]);
    let rank = if kind == EncodeKind::Tiled {
        1 + g.below(5) as usize
    } else {
        3 + g.below(3) as usize
    };
    // Dimension 0 a multiple of 128 so packed types start valid.
    let mut dims: Vec<u64> = (0..rank)
        .map(|i| {
            if i == 0 {
                128 * (1 + g.below(2))
            } else {
                1 + g.below(12)
            }
        })
        .collect();
    let bytes_per_16 = 16 * 8 / ty.bits(); // values per 16 bytes
    let mut p = match kind {
        EncodeKind::Tiled => {
            let b0 = (bytes_per_16 * (1 + g.below(2))).min(256) as u32;
            let b0 = if ty.is_packed16() { 128 } else { b0 };
            let bx: Vec<u32> = (0..rank)
                .map(|i| {
                    if i == 0 {
                        b0
                    } else {
                        1 + g.below(dims[i].min(8)) as u32
                    }
                })
                .collect();
            TensorMapParams::tiled(ty, dims.clone(), bx)
        }
        EncodeKind::Im2col => {
            let s = rank - 2;
            let lim = [1 << 15, 1 << 7, 1 << 4][s - 1] as i64;
            let lo: Vec<i32> = (0..s)
                .map(|_| -(g.below(2.min(lim as u64)) as i32))
                .collect();
            let hi: Vec<i32> = (0..s).map(|_| -(g.below(2) as i32)).collect();
            let cpp = if ty.is_packed16() {
                128
            } else {
                bytes_per_16 as u32
            };
            TensorMapParams::im2col(ty, dims.clone(), lo, hi, cpp, 1 + g.below(64) as u32)
        }
        EncodeKind::Im2colWide => {
            let cpp = if ty.is_packed16() {
                128
            } else {
                bytes_per_16 as u32
            };
            let mode = g.pick(&[WideMode::W, WideMode::W128]);
            TensorMapParams::im2col_wide(
                ty,
                dims.clone(),
                -(g.below(2) as i32),
                0,
                cpp,
                1 + g.below(128) as u32,
                mode,
            )
        }
    };
    if ty.is_packed16() {
        p.global_strides = p
            .global_strides
            .iter()
            .map(|s| s.div_ceil(32) * 32)
            .collect();
        p.global_address = 0;
    }
    p.swizzle = match kind {
        EncodeKind::Im2colWide => g.pick(&[Swizzle::B64, Swizzle::B128, Swizzle::B128Atom32B]),
        _ => g.pick(&[
            Swizzle::None,
            Swizzle::None,
            Swizzle::B128,
            Swizzle::B128Atom32B,
        ]),
    };
    if ty.is_float() && g.below(3) == 0 {
        p.oob_fill = OobFill::NanRequestZeroFma;
    }
    p.l2_promotion = g.pick(&L2Promotion::ALL);
    // One perturbation, half of the time.
    match g.below(30) {
        0 => p.global_address = g.pick(&[8, 16, 24, 32, 48]),
        1 => p.tensor_rank = Some(g.pick(&[0, 6])),
        2 => dims[0] = g.pick(&[0, (1 << 31) + 1, 1 << 32, (1 << 32) + 1]),
        3 => {
            if let Some(s) = p.global_strides.first_mut() {
                *s = g.pick(&[*s + 8, *s + 16, *s + 32, 1 << 40, (1 << 40) - 16, 0]);
            }
        }
        4 => {
            if let Some(b) = p.box_dim.as_mut() {
                let i = g.below(b.len() as u64) as usize;
                b[i] = g.pick(&[0, 255, 256, 257, b[i] + 1]);
            }
        }
        5 => p.element_strides = Some((0..p.rank()).map(|_| g.pick(&[0, 1, 2, 8, 9])).collect()),
        6 => p.interleave = g.pick(&[Interleave::B16, Interleave::B32]),
        7 => p.swizzle = g.pick(&Swizzle::ALL),
        8 => p.oob_fill = OobFill::NanRequestZeroFma,
        9 => {
            p.channels_per_pixel = p
                .channels_per_pixel
                .map(|_| g.pick(&[0, 1, 8, 255, 256, 257]))
        }
        10 => p.pixels_per_column = p.pixels_per_column.map(|_| g.pick(&[0, 1, 1024, 1025])),
        11 => {
            if let (Some(lo), Some(hi)) = (
                p.pixel_box_lower_corner.as_mut(),
                p.pixel_box_upper_corner.as_mut(),
            ) {
                let lim = [1 << 15, 1 << 7, 1 << 4][lo.len() - 1];
                lo[0] = g.pick(&[-lim, -lim - 1, lim - 1, lim]);
                hi[0] = g.pick(&[-lim, lim - 1, lim, 0]);
            }
            if let Some(w) = p.pixel_box_lower_corner_width.as_mut() {
                *w = g.pick(&[-32768, -32769, 32767, 32768]);
            }
        }
        12 => {
            if let Some(b) = p.box_dim.as_mut() {
                b[0] = (b[0] + 1).min(256);
            }
        }
        13 => p.tensor_data_type = g.pick(&DataType::ALL),
        14 => p.swizzle = g.pick(&[Swizzle::B32, Swizzle::B64]),
        _ => {}
    }
    p.global_dim = dims;
    p
}
