//! Tiled mode (§5.5.3): the bounding box at `tensorCoords`, traversal strides, dense
//! row-major layout in shared memory (dimension 0 innermost).

use super::access::{
    box_fits, box_start_aligned, copy_rule, interleaved, need, packed_coord0, row_pitch, CopyError,
    Slot, Unit,
};
use super::assumptions::Assumption;
use super::tensormap::{Geometry, ValidatedMap};
use crate::sem::mutant::{self, Mutant as M};

/// Elements the box holds along each dimension: `ceil(boxDim[i] / elementStrides[i])` (spec/09),
/// dimension 0 counted in units. An interleaved box holds one position of dimension rank−2
/// ([`Assumption::InterleaveDropsDimRankMinus2`], observed).
pub fn box_counts(map: &ValidatedMap) -> Vec<u64> {
    let Geometry::Tiled { box_dim } = &map.geometry else {
        return vec![];
    };
    let unit = Unit::of_map(map);
    let dropped = interleaved(map).then(|| map.rank.wrapping_sub(2));
    box_dim
        .iter()
        .zip(&map.element_strides)
        .enumerate()
        .map(|(i, (&b, &e))| match i {
            _ if Some(i) == dropped && !mutant::on(M::InterleaveKeepsDimRankMinus2) => 1,
            0 if unit.values > 1 => b as u64 / unit.values,
            _ if mutant::on(M::ElemStrideBoxFloor) => (b as u64 / e as u64).max(1),
            _ => (b as u64).div_ceil(e as u64),
        })
        .collect()
}

/// The slots of a tile-mode box at `coords`, dimension 0 fastest.
pub fn slots(map: &ValidatedMap, coords: &[i32]) -> Result<Vec<Slot>, CopyError> {
    need(
        matches!(map.geometry, Geometry::Tiled { .. }),
        copy_rule::MODE_MATCHES_MAP,
        || "tile mode needs a tiled map".into(),
    )?;
    need(coords.len() == map.rank, copy_rule::COORD_COUNT, || {
        format!("{} coordinates for rank {}", coords.len(), map.rank)
    })?;
    if map.ty.is_packed() {
        packed_coord0(map, coords[0] as i64)?;
    }
    box_start_aligned(map, coords[0] as i64)?;
    let _ = Assumption::ElementStrideDim0;
    let unit = Unit::of_map(map);
    let counts = box_counts(map);
    let total = counts
        .iter()
        .try_fold(1u64, |a, &n| a.checked_mul(n))
        .unwrap_or(u64::MAX);
    box_fits(total, unit)?;
    let pitch = row_pitch(map, counts[0] * unit.smem_bytes);
    box_fits(total / counts[0] * pitch / unit.smem_bytes, unit)?;
    let mut out = Vec::with_capacity(total as usize);
    let mut j = vec![0u64; map.rank];
    for linear in 0..total {
        let mut rem = linear;
        for (i, &n) in counts.iter().enumerate() {
            j[i] = rem % n;
            rem /= n;
        }
        let c: Vec<i64> = (0..map.rank)
            .map(|i| {
                let step = if i == 0 && unit.values > 1 {
                    unit.values as i64
                } else if mutant::on(M::ElemStrideIgnored) {
                    1
                } else {
                    map.element_strides[i] as i64
                };
                coords[i] as i64 + j[i] as i64 * step
            })
            .collect();
        out.push(Slot {
            coords: c,
            offset: (linear / counts[0]) * pitch + j[0] * unit.smem_bytes,
        });
    }
    Ok(out)
}
