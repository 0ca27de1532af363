//! Copy plans of tile, gather4, interleaved and packed loads and stores, and the per-copy rules.

use super::{i2c4, packed, t2, vmap, wide, with, SM100, SM90};
use crate::sem::tensor::access::{self, copy_rule, Conv, Fill, LoadMode, StoreMode};
use crate::sem::tensor::assumptions::{OOB_NAN_F16, OOB_NAN_F32};
use crate::sem::tensor::tensormap::*;
use crate::sem::tensor::tile::box_counts;
use std::collections::BTreeSet;

#[test]
fn tile_load_addresses_and_oob() {
    let m = vmap(t2(), SM90);
    let plan = access::load(&m, &LoadMode::Tile, &[-4, 30], 0x400).unwrap();
    assert_eq!(plan.transfers.len(), 16 * 8);
    assert_eq!(plan.complete_tx_bytes(), 16 * 8 * 4);
    let t0 = &plan.transfers[0];
    assert_eq!(
        (t0.coords.clone(), t0.global, t0.smem),
        (vec![-4, 30], None, 0x400)
    );
    let t = &plan.transfers[4];
    assert_eq!(
        (t.coords.clone(), t.global, t.smem),
        (vec![0, 30], Some(30 * 256), 0x410)
    );
    // Rows 32.. are past the end: 2 rows in bounds x 12 columns.
    assert_eq!(plan.transfers.len() - plan.oob_count(), 12 * 2);
}

#[test]
fn copy_rules() {
    let m = vmap(t2(), SM90);
    let hit = std::cell::RefCell::new(BTreeSet::new());
    let e = |r: Result<access::CopyPlan, access::CopyError>| {
        let rule = r.unwrap_err().rule;
        hit.borrow_mut().insert(rule);
        rule
    };
    assert_eq!(
        e(access::load(&m, &LoadMode::Tile, &[0], 0)),
        copy_rule::COORD_COUNT
    );
    assert_eq!(
        e(access::load(&m, &LoadMode::Tile, &[1, 0], 0)),
        copy_rule::BOX_START_ALIGNED
    );
    assert!(access::load(&m, &LoadMode::Tile, &[-4, 0], 0).is_ok());
    assert_eq!(
        e(access::load(&m, &LoadMode::Tile, &[0, 0], 8)),
        copy_rule::SMEM_ALIGN
    );
    assert_eq!(
        e(access::load(&m, &LoadMode::Gather4, &[0, 0, 1, 2, 3], 0)),
        copy_rule::FOUR_ROWS
    );
    assert_eq!(
        e(access::load(
            &m,
            &LoadMode::Im2col {
                offsets: vec![0, 0]
            },
            &[0, 0],
            0
        )),
        copy_rule::MODE_MATCHES_MAP
    );
    assert_eq!(
        e(access::store(&m, StoreMode::Tile, &[-1, 0], 0)),
        copy_rule::STORE_BOUNDS
    );
    let a32 = vmap(with(t2(), |p| p.swizzle = Swizzle::B128Atom32B), SM100);
    assert_eq!(
        e(access::load(&a32, &LoadMode::Tile, &[0, 0], 16)),
        copy_rule::SMEM_ALIGN
    );
    let flip = vmap(
        with(t2(), |p| p.swizzle = Swizzle::B128Atom32BFlip8B),
        SM100,
    );
    assert!(access::load(&flip, &LoadMode::Tile, &[0, 0], 0).is_ok());
    assert_eq!(
        e(access::store(&flip, StoreMode::Tile, &[0, 0], 0)),
        copy_rule::FLIP_8B
    );
    let i = vmap(i2c4(), SM90);
    assert_eq!(
        e(access::load(
            &i,
            &LoadMode::Im2col {
                offsets: vec![0, 256]
            },
            &[0, 0, 0, 0],
            0
        )),
        copy_rule::IM2COL_OFFSETS
    );
    assert_eq!(
        e(access::load(
            &i,
            &LoadMode::Im2col { offsets: vec![0] },
            &[0, 0, 0, 0],
            0
        )),
        copy_rule::IM2COL_OFFSETS
    );
    assert_eq!(
        e(access::store(&i, StoreMode::Im2colNoOffs, &[0, 0, 0, 0], 0)),
        copy_rule::STORE_BOUNDS
    );
    let w = vmap(wide(), SM100);
    assert_eq!(
        e(access::load(
            &w,
            &LoadMode::Im2colW {
                w_halo: 512,
                w_offset: 0
            },
            &[0, 0, 0, 0],
            0
        )),
        copy_rule::W_ARGS
    );
    assert_eq!(
        e(access::load(
            &w,
            &LoadMode::Im2colW128 {
                w_halo: 0,
                w_offset: 0
            },
            &[0, 0, 0, 0],
            0
        )),
        copy_rule::MODE_MATCHES_MAP
    );
    assert_eq!(
        e(access::load(
            &w,
            &LoadMode::Im2colW {
                w_halo: 0,
                w_offset: 0
            },
            &[0, 9, 0, 0],
            0
        )),
        copy_rule::FILTER_IN_BOX
    );
    let p16 = vmap(packed(DataType::U4Align16B), SM100);
    assert_eq!(
        e(access::load(&p16, &LoadMode::Tile, &[64, 0], 0)),
        copy_rule::PACKED_COORD
    );
    assert_eq!(
        e(access::store(&p16, StoreMode::Tile, &[0, 0], 0)),
        copy_rule::PACKED_DIRECTION
    );
    let u6s = vmap(
        with(packed(DataType::U6Align16B), |p| {
            p.swizzle = Swizzle::B128Atom64B
        }),
        SM100,
    );
    assert_eq!(
        e(access::load(&u6s, &LoadMode::Tile, &[0, 0], 0)),
        copy_rule::PACKED_DIRECTION
    );
    assert!(access::store(&u6s, StoreMode::Tile, &[0, 0], 0).is_ok());
    // The largest box the driver encodes (233,472 bytes) is past a CTA's 232,448.
    let big = vmap(
        TensorMapParams::tiled(DataType::Float32, vec![256, 256], vec![256, 228]),
        SM90,
    );
    assert_eq!(
        e(access::load(&big, &LoadMode::Tile, &[0, 0], 0)),
        copy_rule::BOX_FITS_SMEM
    );
    let fits = vmap(
        TensorMapParams::tiled(DataType::Float64, vec![256, 256, 256], vec![32, 256, 3]),
        SM90,
    );
    assert!(access::load(&fits, &LoadMode::Tile, &[0, 0, 0], 0).is_ok()); // 196608 bytes
    let all: BTreeSet<&str> = copy_rule::ALL.iter().copied().collect();
    assert_eq!(*hit.borrow(), all, "copy rules without a rejecting test");
}

#[test]
fn interleaved_dim0_counts_granules() {
    // H9 (observed on H200): with interleave, dimension 0 counts 16-byte granules whatever the
    // type, elementStrides[0] strides granules, and dimension rank-2 is not traversed.
    let p = with(
        TensorMapParams::tiled(DataType::Float16, vec![8, 10, 10, 4], vec![8, 4, 2, 1]),
        |p| {
            p.interleave = Interleave::B16;
            p.global_strides = vec![128, 1280, 12800];
            p.element_strides = Some(vec![2, 1, 1, 1]);
        },
    );
    let m = vmap(p, SM90);
    assert_eq!(box_counts(&m), vec![4, 4, 1, 1]);
    let plan = access::load(&m, &LoadMode::Tile, &[1, 1, 3, 0], 0).unwrap();
    let c0: Vec<i64> = plan.transfers[..4].iter().map(|t| t.coords[0]).collect();
    assert_eq!(c0, [1, 3, 5, 7]);
    // granule 1 of row (1, 3): 16 + 128 + 3·1280; rows are dense 4·16 bytes in shared memory
    assert_eq!(plan.transfers[0].global, Some(16 + 128 + 3 * 1280));
    assert_eq!(plan.transfers[4].smem, 64);
    assert_eq!(plan.complete_tx_bytes(), 4 * 4 * 16);
    // globalDim[0] = 8 bounds granules: from x0 = 3 granules 3, 5, 7 are in, 9 is out
    let edge = access::load(&m, &LoadMode::Tile, &[3, 0, 0, 0], 0).unwrap();
    assert_eq!(
        edge.transfers[..4]
            .iter()
            .map(|t| t.global.is_some())
            .collect::<Vec<_>>(),
        [true, true, true, false]
    );
}

#[test]
fn interleaved_32b_granules_swizzle_as_16_byte_pieces() {
    // A 32-byte granule under SWIZZLE_32B: its two 16-byte halves are placed by their own
    // addresses (observed: the second row's halves swap).
    let p = with(
        TensorMapParams::tiled(DataType::Float32, vec![8, 4, 4], vec![4, 1, 2]),
        |p| {
            p.interleave = Interleave::B32;
            p.swizzle = Swizzle::B32;
            p.global_strides = vec![256, 1024];
        },
    );
    let m = vmap(p, SM90);
    let plan = access::load(&m, &LoadMode::Tile, &[0, 0, 0], 0).unwrap();
    assert_eq!(plan.complete_tx_bytes(), 2 * 4 * 32);
    let second_row: Vec<(Option<u64>, u64)> = plan
        .transfers
        .iter()
        .filter(|t| t.coords[2] == 1)
        .take(2)
        .map(|t| (t.global, t.smem))
        .collect();
    assert_eq!(second_row, [(Some(1024), 144), (Some(1040), 128)]);
}

#[test]
fn gather4_rows() {
    let m = vmap(
        TensorMapParams::tiled(DataType::Uint16, vec![64, 16], vec![8, 1]),
        SM100,
    );
    // Figure 10's rows 2, 5, 0, 9 (its column 1 would be a 2-byte box start: box-start-16b-aligned).
    let plan = access::load(&m, &LoadMode::Gather4, &[8, 2, 5, 0, 9], 0).unwrap();
    let rows: Vec<i64> = plan
        .transfers
        .iter()
        .step_by(8)
        .map(|t| t.coords[1])
        .collect();
    assert_eq!(rows, [2, 5, 0, 9]);
    assert_eq!(plan.transfers[8].smem, 16);
    assert_eq!(plan.transfers[8].global, Some(5 * 128 + 16));
    assert_eq!(plan.complete_tx_bytes(), 4 * 16);
    assert_eq!(plan.oob_count(), 0);
    let oob = access::load(&m, &LoadMode::Gather4, &[56, 2, 16, -1, 3], 0).unwrap();
    assert_eq!(oob.oob_count(), 8 + 8);
    let edge = access::load(&m, &LoadMode::Gather4, &[-8, 2, 3, 4, 5], 0).unwrap();
    assert_eq!(edge.oob_count(), 4 * 8);
}

#[test]
fn oob_nan_fill_pattern() {
    let m = vmap(
        with(
            TensorMapParams::tiled(DataType::Bfloat16, vec![16, 4], vec![16, 2]),
            |p| p.oob_fill = OobFill::NanRequestZeroFma,
        ),
        SM90,
    );
    let plan = access::load(&m, &LoadMode::Tile, &[0, 3], 0).unwrap();
    let mut smem = vec![0xAAu8; 64];
    access::apply_load(&plan, &[0x11; 128], 0, &mut smem, 0).unwrap();
    assert_eq!(&smem[..2], &[0x11, 0x11]);
    assert_eq!(u16::from_le_bytes([smem[32], smem[33]]), OOB_NAN_F16);
    assert_eq!(
        Fill::of(&vmap(
            with(t2(), |p| p.oob_fill = OobFill::NanRequestZeroFma),
            SM90
        ))
        .bytes(4),
        OOB_NAN_F32.to_le_bytes()
    );
}

#[test]
fn packed_units() {
    let m = vmap(packed(DataType::U6Align16B), SM100);
    let plan = access::load(&m, &LoadMode::Tile, &[128, 1], 0).unwrap();
    assert_eq!(plan.transfers.len(), 8 * 2);
    let t = &plan.transfers[1];
    assert_eq!(
        (t.global_bytes, t.smem_bytes, t.smem, t.coords[0]),
        (12, 16, 16, 144)
    );
    assert_eq!(t.global, Some(m.byte_strides[1] + 12 * 9));
    assert_eq!(plan.complete_tx_bytes(), 16 * 16);
    let s = access::store(&m, StoreMode::Tile, &[0, 0], 0).unwrap();
    assert_eq!(s.transfers[0].conv, Conv::PackB6P2);
    let mut b = [0u8; 16];
    b[0] = 0x3F;
    b[1] = 0xC1; // only the low 6 bits (1) count
    let packed = access::pack_b6p2x16(&b);
    assert_eq!(packed[0], 0x7F);
    assert_eq!(packed[1], 0x00);
}
