//! One `cuTensorMapEncode*` call's parameters as a case carries them ([`TensorMapParams`]), and
//! the same call as plain driver integers ([`DriverArgs`]) for the GPU comparison harness.

use super::enums::{DataType, EncodeKind, Interleave, L2Promotion, OobFill, Swizzle, WideMode};
use serde::{Deserialize, Serialize};

/// The parameters of one `cuTensorMapEncode*` call (the output `tensorMap` pointer aside).
/// Fields that belong to another encode function must be absent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TensorMapParams {
    /// The encode function.
    pub encode: EncodeKind,
    /// `tensorDataType`: the element type.
    pub tensor_data_type: DataType,
    /// `tensorRank`; absent means `global_dim.len()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tensor_rank: Option<u32>,
    /// `globalAddress`. Cases leave it 0 and the executor puts the region's address here.
    #[serde(default)]
    pub global_address: u64,
    /// `globalDim`: elements per dimension, innermost first.
    pub global_dim: Vec<u64>,
    /// Bytes, dimensions 1..rank-1 (`rank - 1` entries).
    #[serde(default)]
    pub global_strides: Vec<u64>,
    /// Tiled only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub box_dim: Option<Vec<u32>>,
    /// Im2col only: {W, H, D} order of the driver's "DHW" array is innermost first (W first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixel_box_lower_corner: Option<Vec<i32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Im2col only: the upper corner, same order as the lower one.
    pub pixel_box_upper_corner: Option<Vec<i32>>,
    /// Im2colWide only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixel_box_lower_corner_width: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Im2colWide only.
    pub pixel_box_upper_corner_width: Option<i32>,
    /// Im2col and Im2colWide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels_per_pixel: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Im2col and Im2colWide.
    pub pixels_per_column: Option<u32>,
    /// Im2colWide only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<WideMode>,
    /// Absent means all ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element_strides: Option<Vec<u32>>,
    /// `interleave` (default none).
    #[serde(default)]
    pub interleave: Interleave,
    /// `swizzle` of the shared-memory box (default none).
    #[serde(default)]
    pub swizzle: Swizzle,
    /// `l2Promotion` (default none).
    #[serde(default)]
    pub l2_promotion: L2Promotion,
    /// `oobFill`: what out-of-bounds elements read as (default zeros).
    #[serde(default)]
    pub oob_fill: OobFill,
}

impl TensorMapParams {
    /// A minimal tiled map (all strides 1, no swizzle), dense strides.
    pub fn tiled(ty: DataType, global_dim: Vec<u64>, box_dim: Vec<u32>) -> Self {
        let global_strides = dense_strides(ty, &global_dim);
        TensorMapParams {
            encode: EncodeKind::Tiled,
            tensor_data_type: ty,
            tensor_rank: None,
            global_address: 0,
            global_dim,
            global_strides,
            box_dim: Some(box_dim),
            pixel_box_lower_corner: None,
            pixel_box_upper_corner: None,
            pixel_box_lower_corner_width: None,
            pixel_box_upper_corner_width: None,
            channels_per_pixel: None,
            pixels_per_column: None,
            mode: None,
            element_strides: None,
            interleave: Interleave::None,
            swizzle: Swizzle::None,
            l2_promotion: L2Promotion::None,
            oob_fill: OobFill::None,
        }
    }
    /// A minimal im2col map.
    pub fn im2col(
        ty: DataType,
        global_dim: Vec<u64>,
        lower: Vec<i32>,
        upper: Vec<i32>,
        channels_per_pixel: u32,
        pixels_per_column: u32,
    ) -> Self {
        TensorMapParams {
            encode: EncodeKind::Im2col,
            box_dim: None,
            pixel_box_lower_corner: Some(lower),
            pixel_box_upper_corner: Some(upper),
            channels_per_pixel: Some(channels_per_pixel),
            pixels_per_column: Some(pixels_per_column),
            ..Self::tiled(ty, global_dim, vec![])
        }
    }
    /// A minimal im2col-wide map (128B swizzle: the wide modes need a swizzle).
    pub fn im2col_wide(
        ty: DataType,
        global_dim: Vec<u64>,
        lower_w: i32,
        upper_w: i32,
        channels_per_pixel: u32,
        pixels_per_column: u32,
        mode: WideMode,
    ) -> Self {
        TensorMapParams {
            encode: EncodeKind::Im2colWide,
            box_dim: None,
            pixel_box_lower_corner_width: Some(lower_w),
            pixel_box_upper_corner_width: Some(upper_w),
            channels_per_pixel: Some(channels_per_pixel),
            pixels_per_column: Some(pixels_per_column),
            mode: Some(mode),
            swizzle: Swizzle::B128,
            ..Self::tiled(ty, global_dim, vec![])
        }
    }
    pub fn rank(&self) -> u32 {
        self.tensor_rank.unwrap_or(self.global_dim.len() as u32)
    }
    /// `elementStrides` as passed to the driver (all ones when absent).
    pub fn element_strides_or_ones(&self) -> Vec<u32> {
        self.element_strides
            .clone()
            .unwrap_or_else(|| vec![1; self.rank() as usize])
    }
}

/// The exact arguments of the `cuTensorMapEncode*` call for a parameter set, as plain integers
/// (enum values per cuda.h), for the GPU comparison harness. Arrays are passed as given (their
/// lengths are not forced to the rank, so shape errors reach the driver too); the driver reads
/// `tensorRank` entries of globalDim/boxDim/elementStrides, `tensorRank − 1` of globalStrides and
/// `tensorRank − 2` of the im2col corners.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriverArgs {
    /// `cuTensorMapEncodeTiled`, `cuTensorMapEncodeIm2col` or `cuTensorMapEncodeIm2colWide`.
    pub function: String,
    pub tensor_data_type: u32,
    pub tensor_rank: u32,
    pub global_address: u64,
    pub global_dim: Vec<u64>,
    pub global_strides: Vec<u64>,
    /// Tiled: `boxDim`.
    pub box_dim: Vec<u32>,
    /// Im2col: `pixelBoxLowerCorner` / `pixelBoxUpperCorner` (`const int*`), index 0 = W
    /// (tensor dimension 1), then H, then D.
    pub pixel_box_lower_corner: Vec<i32>,
    pub pixel_box_upper_corner: Vec<i32>,
    /// Im2colWide: `pixelBoxLowerCornerWidth` / `pixelBoxUpperCornerWidth` (`int`).
    pub pixel_box_lower_corner_width: i32,
    pub pixel_box_upper_corner_width: i32,
    pub channels_per_pixel: u32,
    pub pixels_per_column: u32,
    pub element_strides: Vec<u32>,
    pub interleave: u32,
    /// Im2colWide: `CUtensorMapIm2ColWideMode`.
    pub mode: u32,
    pub swizzle: u32,
    pub l2_promotion: u32,
    pub oob_fill: u32,
}

impl TensorMapParams {
    pub fn driver_args(&self) -> DriverArgs {
        DriverArgs {
            function: match self.encode {
                EncodeKind::Tiled => "cuTensorMapEncodeTiled",
                EncodeKind::Im2col => "cuTensorMapEncodeIm2col",
                EncodeKind::Im2colWide => "cuTensorMapEncodeIm2colWide",
            }
            .to_string(),
            tensor_data_type: self.tensor_data_type.cu_value(),
            tensor_rank: self.rank(),
            global_address: self.global_address,
            global_dim: self.global_dim.clone(),
            global_strides: self.global_strides.clone(),
            box_dim: self.box_dim.clone().unwrap_or_default(),
            pixel_box_lower_corner: self.pixel_box_lower_corner.clone().unwrap_or_default(),
            pixel_box_upper_corner: self.pixel_box_upper_corner.clone().unwrap_or_default(),
            pixel_box_lower_corner_width: self.pixel_box_lower_corner_width.unwrap_or(0),
            pixel_box_upper_corner_width: self.pixel_box_upper_corner_width.unwrap_or(0),
            channels_per_pixel: self.channels_per_pixel.unwrap_or(0),
            pixels_per_column: self.pixels_per_column.unwrap_or(0),
            element_strides: self.element_strides_or_ones(),
            interleave: self.interleave.cu_value(),
            mode: self.mode.map_or(0, WideMode::cu_value),
            swizzle: self.swizzle.cu_value(),
            l2_promotion: self.l2_promotion.cu_value(),
            oob_fill: self.oob_fill.cu_value(),
        }
    }
}

/// Packed, unpadded strides for a tensor of `dims` (rounded up to 16 bytes per dimension).
pub fn dense_strides(ty: DataType, dims: &[u64]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut s = dims
        .first()
        .map(|&d| (d * ty.bits()).div_ceil(8))
        .unwrap_or(0);
    for &d in dims.iter().skip(1) {
        s = s.div_ceil(16) * 16;
        out.push(s);
        s *= d;
    }
    out
}
