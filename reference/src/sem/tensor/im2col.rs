//! im2col (§5.5.4) and im2col::w / im2col::w::128 (§5.5.5): pixels of an NDHWC / NHWC / NWC
//! tensor gathered into shared-memory rows of channelsPerPixel elements each.
//!
//! Dimension roles: 0 = C, 1 = W, 2 = H (rank ≥ 4), 3 = D (rank 5), rank−1 = N; with interleave
//! one dimension lower (0 = W, rank−2 fixed, [`Assumption::Im2colInterleaveStepsDim0`]). Corners
//! and im2col offsets are indexed W first; N steps by its traversal stride
//! ([`Assumption::Im2colNStride`]). The traversal order is [`Assumption::Im2colTraversal`],
//! halo placement [`Assumption::Im2colWHalo`], OOB [`Assumption::Im2colOobIsTensorBound`].

use super::access::{
    box_fits, box_start_aligned, copy_rule, interleaved, need, packed_coord0, row_pitch, CopyError,
    Slot, Unit,
};
use super::assumptions::Assumption;
use super::tensormap::{Geometry, Im2colBox, ValidatedMap, WideMode};
use crate::sem::mutant::{self, Mutant as M};

/// im2col offsets limit per rank (§5.5.4.1: [0, 2^16−1], [0, 2^8−1], [0, 2^5−1]).
pub fn offset_limit_of_rank(rank: usize) -> u32 {
    match rank {
        3 => 1 << 16,
        4 => 1 << 8,
        _ => 1 << 5,
    }
}

/// [`offset_limit_of_rank`] as the executor applies it (a mutant may loosen it).
fn offset_limit(rank: usize) -> u32 {
    if mutant::on(M::Im2colOffsetLimitLoose) {
        return 1 << 16;
    }
    offset_limit_of_rank(rank)
}

/// The rows of one pixel: `cpp` channel units starting at channel `c`.
fn pixel(
    out: &mut Vec<Slot>,
    unit: Unit,
    pitch: u64,
    row: u64,
    cpp_units: u64,
    c: i64,
    rest: &[i64],
) {
    for u in 0..cpp_units {
        let mut coords = vec![c + (u * unit.values) as i64];
        coords.extend_from_slice(rest);
        out.push(Slot {
            coords,
            offset: row * pitch + u * unit.smem_bytes,
        });
    }
}

/// `.im2col` (and the store's `.im2col_no_offs` with all offsets 0).
pub fn slots(map: &ValidatedMap, coords: &[i32], offsets: &[u16]) -> Result<Vec<Slot>, CopyError> {
    let Geometry::Im2col {
        corners: Im2colBox::Full { lower, upper },
        channels_per_pixel,
        pixels_per_column,
    } = &map.geometry
    else {
        return Err(CopyError {
            rule: copy_rule::MODE_MATCHES_MAP,
            message: ".im2col needs a cuTensorMapEncodeIm2col map".into(),
        });
    };
    let r = map.rank;
    need(coords.len() == r, copy_rule::COORD_COUNT, || {
        format!("{} coordinates for rank {r}", coords.len())
    })?;
    need(offsets.len() == r - 2, copy_rule::IM2COL_OFFSETS, || {
        format!("{} offsets for rank {r} (rank − 2)", offsets.len())
    })?;
    let lim = offset_limit(r);
    need(
        offsets.iter().all(|&o| (o as u32) < lim),
        copy_rule::IM2COL_OFFSETS,
        || format!("offsets {offsets:?} (limit {lim})"),
    )?;
    if map.ty.is_packed() {
        packed_coord0(map, coords[0] as i64)?;
    }
    let _ = (
        Assumption::Im2colTraversal,
        Assumption::Im2colOobIsTensorBound,
        Assumption::Im2colNStride,
    );
    let spatial = r - 2;
    // The tensor dimension that plays spatial role s (W, H, D) and the batch dimension N.
    let dims = spatial_dims(map);
    let lo: Vec<i64> = (0..spatial).map(|s| lower[s] as i64).collect();
    let hi: Vec<i64> = (0..spatial)
        .map(|s| {
            let exclusive = i64::from(mutant::on(M::Im2colUpperCornerExclusive));
            map.global_dim[dims[s]] as i64 - 1 + upper[s] as i64 - exclusive
        })
        .collect();
    let mut pos: Vec<i64> = (0..spatial).map(|s| coords[dims[s]] as i64).collect();
    // §5.5.4.1: "The filter corner location must be within the bounding box".
    let _ = Assumption::Im2colBoxEnd;
    for s in 0..spatial {
        need(
            lo[s] <= pos[s] && pos[s] <= hi[s],
            copy_rule::FILTER_IN_BOX,
            || {
                format!(
                    "filter base {} in spatial dimension {} outside the box [{}, {}]",
                    pos[s], dims[s], lo[s], hi[s]
                )
            },
        )?;
    }
    let unit = Unit::of_map(map);
    box_start_aligned(map, coords[0] as i64)?;
    // One shared-memory row per pixel: an interleaved pixel is one granule
    // (Assumption::Im2colInterleaveStepsDim0), otherwise channelsPerPixel elements.
    let (cpp_units, pitch) = if interleaved(map) {
        (1, unit.smem_bytes)
    } else {
        let cpp_units = *channels_per_pixel as u64 / unit.values;
        (cpp_units, row_pitch(map, cpp_units * unit.smem_bytes))
    };
    box_fits(*pixels_per_column as u64 * pitch / unit.smem_bytes, unit)?;
    let n_dim = r - 1;
    let mut n = coords[n_dim] as i64;
    let mut out = Vec::new();
    let pixels =
        *pixels_per_column as u64 + u64::from(mutant::on(M::Im2colPixelsPerColumnOffByOne));
    for k in 0..pixels {
        let mut at: Vec<i64> = coords.iter().map(|&c| c as i64).collect();
        for s in 0..spatial {
            let o = if mutant::on(M::Im2colOffsetsReversed) {
                offsets[spatial - 1 - s]
            } else {
                offsets[s]
            };
            at[dims[s]] = pos[s] + o as i64;
        }
        at[n_dim] = n;
        pixel(&mut out, unit, pitch, k, cpp_units, at[0], &at[1..]);
        // Advance the first spatial dimension by its traversal stride, wrapping from the box
        // end to the box start into the next one, then into N.
        let mut s = 0;
        loop {
            if s == spatial {
                // Assumption::Im2colNStride: N steps by its own traversal stride.
                n += if mutant::on(M::Im2colNStepsByOne) {
                    1
                } else {
                    map.element_strides[n_dim] as i64
                };
                break;
            }
            pos[s] += if mutant::on(M::Im2colSpatialStrideIgnored) {
                1
            } else {
                map.element_strides[dims[s]] as i64
            };
            if pos[s] <= hi[s] {
                break;
            }
            pos[s] = lo[s];
            s += 1;
        }
    }
    Ok(out)
}

/// The tensor dimensions that play the spatial roles W, H, D (corner and offset index order).
/// Dense layouts: dimensions 1..rank−2 (§5.5.4 NWC / NHWC / NDHWC). Interleaved layouts
/// ([`Assumption::Im2colInterleaveStepsDim0`]): dimensions 0..rank−3, the granules of dimension
/// 0 being the W pixels, and dimension rank−2 is not traversed (as in an interleaved tile box,
/// [`Assumption::InterleaveDropsDimRankMinus2`]).
fn spatial_dims(map: &ValidatedMap) -> Vec<usize> {
    let first = if interleaved(map) { 0 } else { 1 };
    (first..first + map.rank - 2).collect()
}

/// `.im2col::w` / `.im2col::w::128` with `{wHalo, wOffset}`.
pub fn wide_slots(
    map: &ValidatedMap,
    coords: &[i32],
    want: WideMode,
    w_halo: u16,
    w_offset: u16,
) -> Result<Vec<Slot>, CopyError> {
    let Geometry::Im2col {
        corners:
            Im2colBox::Wide {
                lower_w,
                upper_w,
                mode,
            },
        channels_per_pixel,
        pixels_per_column,
    } = &map.geometry
    else {
        return Err(CopyError {
            rule: copy_rule::MODE_MATCHES_MAP,
            message: ".im2col::w needs a cuTensorMapEncodeIm2colWide map".into(),
        });
    };
    need(*mode == want, copy_rule::MODE_MATCHES_MAP, || {
        format!("load mode {want:?} with a map of mode {mode:?}")
    })?;
    let r = map.rank;
    need(coords.len() == r, copy_rule::COORD_COUNT, || {
        format!("{} coordinates for rank {r}", coords.len())
    })?;
    let halo_lim = if want == WideMode::W { 512 } else { 32 };
    need(
        w_halo < halo_lim && w_offset < 32,
        copy_rule::W_ARGS,
        || format!("wHalo {w_halo} (< {halo_lim}), wOffset {w_offset} (< 32)"),
    )?;
    if map.ty.is_packed() {
        packed_coord0(map, coords[0] as i64)?;
    }
    // §5.5.5.4: corners and W all move by wOffset.
    let off = if mutant::on(M::Im2colWideOffsetIgnored) {
        0
    } else {
        w_offset as i64
    };
    let hi = map.global_dim[1] as i64 - 1 + *upper_w as i64 + off;
    let w0 = coords[1] as i64 + off;
    // §5.5.5.1: the first element may lie outside the box, on its left side only.
    need(w0 <= hi, copy_rule::FILTER_IN_BOX, || {
        format!(
            "first W {w0} right of the box end {hi} (lower corner {})",
            *lower_w as i64 + off
        )
    })?;
    let _ = (Assumption::Im2colWHalo, Assumption::Im2colOobIsTensorBound);
    let stride = map.element_strides[1] as i64;
    let unit = Unit::of_map(map);
    let cpp_units = *channels_per_pixel as u64 / unit.values;
    box_start_aligned(map, coords[0] as i64)?;
    let pitch = row_pitch(map, cpp_units * unit.smem_bytes);
    // Pixel indices along W (in traversal steps), in shared-memory row order.
    let seq: Vec<u64> = match want {
        WideMode::W => (0..*pixels_per_column as u64 + w_halo as u64).collect(),
        WideMode::W128 => (0..4u64)
            .flat_map(|g| (32 * g..32 * g + 32).chain(32 * (g + 1)..32 * (g + 1) + w_halo as u64))
            .collect(),
    };
    box_fits(seq.len() as u64 * pitch / unit.smem_bytes, unit)?;
    let mut out = Vec::new();
    for (row, &k) in seq.iter().enumerate() {
        let mut rest = vec![w0 + k as i64 * stride];
        rest.extend(coords[2..].iter().map(|&c| c as i64));
        pixel(
            &mut out,
            unit,
            pitch,
            row as u64,
            cpp_units,
            coords[0] as i64,
            &rest,
        );
    }
    Ok(out)
}
