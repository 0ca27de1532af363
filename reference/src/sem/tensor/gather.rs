//! `.tile::gather4` / `.tile::scatter4` (§5.5.3.4): four rows `{col, row0..row3}` of a 2D tensor,
//! each a box of `boxDim[0]` elements and height one, placed one after another in shared memory.

use super::access::{
    box_fits, box_start_aligned, copy_rule, interleaved, need, packed_coord0, row_pitch, CopyError,
    Slot, Unit,
};
use super::tensormap::{Geometry, ValidatedMap};

pub fn slots(map: &ValidatedMap, coords: &[i32]) -> Result<Vec<Slot>, CopyError> {
    let Geometry::Tiled { box_dim } = &map.geometry else {
        return Err(CopyError {
            rule: copy_rule::MODE_MATCHES_MAP,
            message: "gather4/scatter4 need a tiled map".into(),
        });
    };
    need(map.rank == 2, copy_rule::FOUR_ROWS, || {
        format!("rank {} (2D only)", map.rank)
    })?;
    need(box_dim[1] == 1, copy_rule::FOUR_ROWS, || {
        format!("boxDim[1] = {} (must be one)", box_dim[1])
    })?;
    need(!interleaved(map), copy_rule::FOUR_ROWS, || {
        "interleaved layout".into()
    })?;
    need(coords.len() == 5, copy_rule::COORD_COUNT, || {
        format!("{} coordinates (5: col, row0..row3)", coords.len())
    })?;
    if map.ty.is_packed() {
        packed_coord0(map, coords[0] as i64)?;
    }
    box_start_aligned(map, coords[0] as i64)?;
    let unit = Unit::of_map(map);
    let per_row = box_dim[0] as u64 / unit.values;
    let pitch = row_pitch(map, per_row * unit.smem_bytes);
    box_fits(4 * per_row, unit)?;
    let mut out = Vec::new();
    for (r, &row) in coords[1..].iter().enumerate() {
        for j in 0..per_row {
            let c0 = coords[0] as i64 + (j * unit.values) as i64;
            out.push(Slot {
                coords: vec![c0, row as i64],
                offset: r as u64 * pitch + j * unit.smem_bytes,
            });
        }
    }
    Ok(out)
}
