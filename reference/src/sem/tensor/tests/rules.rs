//! The validator's rules: one accepting and one rejecting map per rule id.

use super::{i2c4, i2c_interleaved, packed, t2, t3, wide, with, SM100, SM90};
use crate::sem::tensor::tensormap::*;
use crate::sem::tensor::tile::box_counts;
use crate::target::Target;
use std::collections::BTreeSet;

/// (rule, target, accepted map, rejected map): the accepted one sits at or near the rule's edge.
pub(super) fn rule_cases() -> Vec<(Rule, Target, TensorMapParams, TensorMapParams)> {
    use DataType::*;
    vec![
        (
            rule::FIELDS_FOR_ENCODE,
            SM90,
            t2(),
            with(t2(), |p| p.channels_per_pixel = Some(8)),
        ),
        (
            rule::FIELDS_FOR_ENCODE,
            SM90,
            i2c4(),
            with(i2c4(), |p| p.pixels_per_column = None),
        ),
        (
            rule::ARRAY_LENGTHS,
            SM90,
            t2(),
            with(t2(), |p| p.box_dim = Some(vec![16, 8, 1])),
        ),
        (
            rule::ARRAY_LENGTHS,
            SM90,
            t2(),
            with(t2(), |p| p.global_strides = vec![]),
        ),
        (rule::DEVICE_SM90, SM90, t2(), t2()), // rejected on sm_80 below
        (rule::WIDE_NEEDS_SM100, SM100, wide(), wide()),
        (
            rule::PACKED_NEEDS_SM100,
            SM100,
            packed(U4Align8B),
            packed(U4Align8B),
        ),
        (
            rule::ATOMICITY_NEEDS_SM100,
            SM100,
            with(t2(), |p| p.swizzle = Swizzle::B128Atom32B),
            with(t2(), |p| p.swizzle = Swizzle::B128Atom64B),
        ),
        (
            rule::RANK_RANGE,
            SM90,
            TensorMapParams::tiled(Uint8, vec![16, 2, 2, 2, 2], vec![16, 1, 1, 1, 1]),
            TensorMapParams::tiled(Uint8, vec![16, 2, 2, 2, 2, 2], vec![16, 1, 1, 1, 1, 1]),
        ),
        (
            rule::RANK_RANGE,
            SM90,
            TensorMapParams::tiled(Uint8, vec![16], vec![16]),
            with(TensorMapParams::tiled(Uint8, vec![16], vec![16]), |p| {
                p.tensor_rank = Some(0)
            }),
        ),
        (
            rule::RANK_INTERLEAVE,
            SM90,
            with(t3(), |p| p.interleave = Interleave::B16),
            with(t2(), |p| p.interleave = Interleave::B16),
        ),
        (
            rule::RANK_IM2COL,
            SM90,
            TensorMapParams::im2col(Float16, vec![8, 9, 2], vec![0], vec![0], 8, 8),
            TensorMapParams::im2col(Float16, vec![8, 9], vec![], vec![], 8, 8),
        ),
        (
            rule::ADDR_ALIGN_16,
            SM90,
            with(t2(), |p| p.global_address = 0x1010),
            with(t2(), |p| p.global_address = 0x1008),
        ),
        (
            rule::ADDR_ALIGN_32_INTERLEAVE,
            SM90,
            with(t3(), |p| {
                p.interleave = Interleave::B32;
                p.swizzle = Swizzle::B32;
                p.global_strides = vec![32, 256];
                p.global_address = 0x20;
            }),
            with(t3(), |p| {
                p.interleave = Interleave::B32;
                p.swizzle = Swizzle::B32;
                p.global_strides = vec![32, 256];
                p.global_address = 0x30;
            }),
        ),
        (
            rule::ADDR_ALIGN_32_PACKED,
            SM100,
            with(packed(U4Align16B), |p| p.global_address = 0x20),
            with(packed(U4Align16B), |p| p.global_address = 0x10),
        ),
        (
            rule::DIM_RANGE,
            SM90,
            TensorMapParams::tiled(Uint8, vec![1 << 32], vec![16]),
            TensorMapParams::tiled(Uint8, vec![(1 << 32) + 1], vec![16]),
        ),
        (
            rule::DIM_RANGE,
            SM90,
            t2(),
            with(t2(), |p| p.global_dim[1] = 0),
        ),
        (
            rule::DIM0_PACKED16,
            SM100,
            packed(U6Align16B),
            with(packed(U6Align16B), |p| p.global_dim[0] = 192),
        ),
        (
            rule::DIM0_U4_ALIGN8,
            SM100,
            with(packed(U4Align8B), |p| p.global_dim[0] = 254),
            with(packed(U4Align8B), |p| p.global_dim[0] = 255),
        ),
        (
            rule::STRIDE_16,
            SM90,
            with(t2(), |p| p.global_strides = vec![272]),
            with(t2(), |p| p.global_strides = vec![264]),
        ),
        (
            rule::STRIDE_MAX,
            SM90,
            with(t3(), |p| p.global_strides = vec![32, (1 << 40) - 16]),
            with(t3(), |p| p.global_strides = vec![32, 1 << 40]),
        ),
        (
            rule::STRIDE_32_INTERLEAVE,
            SM90,
            with(t3(), |p| {
                p.interleave = Interleave::B32;
                p.swizzle = Swizzle::B32;
                p.global_strides = vec![64, 512];
            }),
            with(t3(), |p| {
                p.interleave = Interleave::B32;
                p.swizzle = Swizzle::B32;
                p.global_strides = vec![48, 512];
            }),
        ),
        (
            rule::STRIDE_32_PACKED,
            SM100,
            with(packed(U4Align16B), |p| p.global_strides = vec![160]),
            with(packed(U4Align16B), |p| p.global_strides = vec![144]),
        ),
        (
            rule::STRIDE_COVERS,
            SM90,
            with(t2(), |p| p.global_strides = vec![256]),
            with(t2(), |p| p.global_strides = vec![240]),
        ),
        (
            rule::BOX_RANGE,
            SM90,
            TensorMapParams::tiled(Uint8, vec![512, 512], vec![256, 256]),
            TensorMapParams::tiled(Uint8, vec![512, 512], vec![256, 257]),
        ),
        (
            rule::BOX_BYTES,
            SM90,
            TensorMapParams::tiled(Float32, vec![256, 256], vec![256, 228]),
            TensorMapParams::tiled(Float32, vec![256, 256], vec![256, 229]),
        ),
        (
            rule::BOX_RANGE,
            SM90,
            t2(),
            with(t2(), |p| p.box_dim = Some(vec![16, 0])),
        ),
        (
            rule::BOX_INNER_16,
            SM90,
            with(t3(), |p| p.box_dim = Some(vec![8, 4, 2])).with_interleave16(),
            with(t2(), |p| p.box_dim = Some(vec![6, 8])),
        ),
        // Probed: driver 13.0 also rejects a 24-byte inner box with interleave 16B.
        (
            rule::BOX_INNER_16,
            SM90,
            with(t3(), |p| p.box_dim = Some(vec![16, 4, 2])).with_interleave16(),
            with(t3(), |p| p.box_dim = Some(vec![12, 4, 2])).with_interleave16(),
        ),
        (
            rule::CPP_BYTES_16,
            SM90,
            i2c4(),
            with(i2c4(), |p| p.channels_per_pixel = Some(4)),
        ),
        (
            rule::CPP_BYTES_16,
            SM100,
            wide(),
            with(wide(), |p| p.channels_per_pixel = Some(12)),
        ),
        (
            rule::BOX0_PACKED16,
            SM100,
            packed(U6Align16B),
            with(packed(U6Align16B), |p| p.box_dim = Some(vec![64, 2])),
        ),
        (
            rule::ELEM_STRIDE_RANGE,
            SM90,
            with(t2(), |p| p.element_strides = Some(vec![8, 8])),
            with(t2(), |p| p.element_strides = Some(vec![1, 9])),
        ),
        (
            rule::ELEM_STRIDE_RANGE,
            SM90,
            t2(),
            with(t2(), |p| p.element_strides = Some(vec![0, 1])),
        ),
        (
            rule::SWIZZLE_SPAN,
            SM90,
            with(t2(), |p| p.swizzle = Swizzle::B64),
            with(t2(), |p| p.swizzle = Swizzle::B32),
        ),
        (
            rule::SWIZZLE_SPAN,
            SM90,
            with(i2c4(), |p| p.swizzle = Swizzle::B32),
            with(i2c4(), |p| {
                p.swizzle = Swizzle::B32;
                p.channels_per_pixel = Some(24);
            }),
        ),
        (
            rule::INTERLEAVE32_SWIZZLE,
            SM90,
            with(t3(), |p| {
                p.interleave = Interleave::B32;
                p.swizzle = Swizzle::B32;
                p.global_strides = vec![64, 512];
            }),
            with(t3(), |p| {
                p.interleave = Interleave::B32;
                p.global_strides = vec![64, 512];
            }),
        ),
        (
            rule::U6_INTERLEAVE,
            SM100,
            TensorMapParams::tiled(U6Align16B, vec![128, 2, 2], vec![128, 1, 1]),
            with(
                TensorMapParams::tiled(U6Align16B, vec![128, 2, 2], vec![128, 1, 1]),
                |p| p.interleave = Interleave::B16,
            ),
        ),
        (
            rule::PACKED_SWIZZLE,
            SM100,
            with(packed(U4Align16B), |p| p.swizzle = Swizzle::B128Atom32B),
            with(packed(U4Align16B), |p| p.swizzle = Swizzle::B128Atom64B),
        ),
        (
            rule::PACKED_SWIZZLE,
            SM100,
            with(packed(U6Align16B), |p| p.swizzle = Swizzle::B128Atom64B),
            with(packed(U6Align16B), |p| {
                p.swizzle = Swizzle::B128Atom32BFlip8B
            }),
        ),
        (
            rule::OOB_NAN_FLOAT,
            SM90,
            with(t2(), |p| p.oob_fill = OobFill::NanRequestZeroFma),
            with(
                TensorMapParams::tiled(Int32, vec![64, 32], vec![16, 8]),
                |p| p.oob_fill = OobFill::NanRequestZeroFma,
            ),
        ),
        (
            rule::OOB_NAN_FLOAT,
            SM100,
            packed(U4Align8B),
            with(packed(U4Align8B), |p| {
                p.oob_fill = OobFill::NanRequestZeroFma
            }),
        ),
        (
            rule::CORNER_RANGE,
            SM90,
            with(i2c4(), |p| p.pixel_box_lower_corner = Some(vec![-128, 0])),
            with(i2c4(), |p| p.pixel_box_lower_corner = Some(vec![-129, 0])),
        ),
        (
            rule::CORNER_RANGE,
            SM90,
            TensorMapParams::im2col(
                DataType::Float16,
                vec![8, 40, 40, 4, 2],
                vec![-16, 0, 0],
                vec![15, 0, 0],
                8,
                8,
            ),
            TensorMapParams::im2col(
                DataType::Float16,
                vec![8, 40, 40, 4, 2],
                vec![-16, 0, 0],
                vec![16, 0, 0],
                8,
                8,
            ),
        ),
        (
            rule::BOX_AREA,
            SM90,
            with(i2c4(), |p| p.pixel_box_upper_corner = Some(vec![-8, 0])),
            with(i2c4(), |p| {
                p.pixel_box_lower_corner = Some(vec![0, 0]);
                p.pixel_box_upper_corner = Some(vec![-9, 0]);
            }),
        ),
        (
            // With interleave the corners bound dimensions 0 and 1 (16 and 4 here), not 1 and 2.
            rule::BOX_AREA,
            SM90,
            i2c_interleaved(vec![16, 4, 14, 2], vec![0, 0], vec![-5, 0], 8),
            i2c_interleaved(vec![16, 4, 14, 2], vec![0, 0], vec![-16, 0], 8),
        ),
        (
            rule::CPP_RANGE,
            SM90,
            with(i2c4(), |p| p.channels_per_pixel = Some(256)),
            with(i2c4(), |p| p.channels_per_pixel = Some(257)),
        ),
        (
            rule::CPP_RANGE,
            SM90,
            i2c4(),
            with(i2c4(), |p| p.channels_per_pixel = Some(0)),
        ),
        (
            rule::CPP_PACKED16,
            SM100,
            TensorMapParams::im2col(U4Align16B, vec![128, 4, 2], vec![0], vec![0], 128, 4),
            TensorMapParams::im2col(U4Align16B, vec![128, 4, 2], vec![0], vec![0], 64, 4),
        ),
        (
            rule::PPC_RANGE,
            SM90,
            with(i2c4(), |p| p.pixels_per_column = Some(1024)),
            with(i2c4(), |p| p.pixels_per_column = Some(1025)),
        ),
        // Probed: pixelsPerColumn is range-checked in W128 mode too.
        (
            rule::PPC_RANGE,
            SM100,
            with(wide(), |p| {
                p.mode = Some(WideMode::W128);
                p.pixels_per_column = Some(1);
            }),
            with(wide(), |p| {
                p.mode = Some(WideMode::W128);
                p.pixels_per_column = Some(0);
            }),
        ),
        // Probed: rank-4 wide maps take [-128, 127], rank-3 ones [-32768, 32767].
        (
            rule::WIDE_CORNER_RANGE,
            SM100,
            with(wide(), |p| p.pixel_box_lower_corner_width = Some(-128)),
            with(wide(), |p| p.pixel_box_lower_corner_width = Some(-129)),
        ),
        (
            rule::WIDE_CORNER_RANGE,
            SM100,
            TensorMapParams::im2col_wide(
                DataType::Float16,
                vec![64, 9, 2],
                -32768,
                0,
                64,
                128,
                WideMode::W,
            ),
            TensorMapParams::im2col_wide(
                DataType::Float16,
                vec![64, 9, 2],
                -32769,
                0,
                64,
                128,
                WideMode::W,
            ),
        ),
        (
            rule::WIDE_SWIZZLE,
            SM100,
            with(wide(), |p| p.swizzle = Swizzle::B128Atom32B),
            with(wide(), |p| p.swizzle = Swizzle::None),
        ),
        (
            rule::WIDE_SWIZZLE,
            SM100,
            with(wide(), |p| {
                p.swizzle = Swizzle::B64;
                p.channels_per_pixel = Some(32);
            }),
            with(wide(), |p| p.swizzle = Swizzle::B128Atom32BFlip8B),
        ),
        (
            rule::WIDE_INTERLEAVE,
            SM100,
            wide(),
            with(wide(), |p| p.interleave = Interleave::B16),
        ),
    ]
}

trait WithInterleave {
    fn with_interleave16(self) -> Self;
}
impl WithInterleave for TensorMapParams {
    fn with_interleave16(mut self) -> Self {
        self.interleave = Interleave::B16;
        self
    }
}

#[test]
fn every_rule_accepts_and_rejects() {
    let mut covered = BTreeSet::new();
    for (r, target, ok, bad) in rule_cases() {
        if let Err(e) = validate(&ok, target) {
            panic!("{}: accepting example rejected: {e}", r.id);
        }
        // The three device rules reject the same map on an older device.
        let bad_target = match r.id {
            "device-sm90" => Target::SM_80,
            "im2col-wide-needs-sm100"
            | "packed-type-needs-sm100"
            | "swizzle-atomicity-needs-sm100" => SM90,
            _ => target,
        };
        match validate(&bad, bad_target) {
            Ok(_) => panic!("{}: rejecting example accepted", r.id),
            Err(e) => assert_eq!(e.rule, r.id, "{}: rejected by another rule: {e}", r.id),
        }
        covered.insert(r.id);
    }
    let all: BTreeSet<_> = rule::ALL.iter().map(|r| r.id).collect();
    assert_eq!(covered, all, "rules without a test");
    // Ids are unique.
    assert_eq!(all.len(), rule::ALL.len());
}

#[test]
fn element_stride_0_is_ignored_without_interleave() {
    let m = validate(&with(t2(), |p| p.element_strides = Some(vec![4, 2])), SM90).unwrap();
    assert_eq!(m.element_strides, vec![1, 2]);
    assert_eq!(box_counts(&m), vec![16, 4]);
}
