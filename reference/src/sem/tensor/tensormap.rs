//! The tensor map as the host builds it: the parameters of `cuTensorMapEncodeTiled` /
//! `cuTensorMapEncodeIm2col` / `cuTensorMapEncodeIm2colWide` (spec/09), and the validator that
//! applies every rule the driver page states (plus the few the PTX ISA adds, marked as such).
//!
//! Field names are the driver parameter names in snake_case, so a YAML case carries a map as
//! `encode: tiled`, `tensor_data_type: float32`, `global_dim: [...]`, `swizzle: 128b`, ...
//! Parameters are kept raw (any integer, any array length) so that invalid maps are
//! representable: the validator, not the type, decides, and says which rule failed.

use crate::target::Target;
use serde::{Deserialize, Serialize};

/// `CUtensorMapDataType` (enum values = `cu_value`, cuda.h order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DataType {
    Uint8,
    Uint16,
    Uint32,
    Int32,
    Uint64,
    Int64,
    Float16,
    Float32,
    Float64,
    Bfloat16,
    Float32Ftz,
    Tfloat32,
    Tfloat32Ftz,
    /// `.b4x16`: 16 packed U4 in 8 bytes, no padding.
    #[serde(rename = "16u4_align8b")]
    U4Align8B,
    /// `.b4x16_p64`: 16 packed U4 (8 bytes) + 8 bytes of padding in shared memory.
    #[serde(rename = "16u4_align16b")]
    U4Align16B,
    /// `.b6x16_p32` (load) / `.b6p2x16` (store): 16 packed U6 (12 bytes) ↔ 16 bytes in shared memory.
    #[serde(rename = "16u6_align16b")]
    U6Align16B,
}

impl DataType {
    pub const ALL: [DataType; 16] = [
        DataType::Uint8,
        DataType::Uint16,
        DataType::Uint32,
        DataType::Int32,
        DataType::Uint64,
        DataType::Int64,
        DataType::Float16,
        DataType::Float32,
        DataType::Float64,
        DataType::Bfloat16,
        DataType::Float32Ftz,
        DataType::Tfloat32,
        DataType::Tfloat32Ftz,
        DataType::U4Align8B,
        DataType::U4Align16B,
        DataType::U6Align16B,
    ];
    /// The `CU_TENSOR_MAP_DATA_TYPE_*` value (cuda.h: sequential from UINT8 = 0).
    pub fn cu_value(self) -> u32 {
        Self::ALL.iter().position(|&t| t == self).unwrap_or(0) as u32
    }
    /// Bits one value occupies in global memory (spec/09 enum comments).
    pub fn bits(self) -> u64 {
        use DataType::*;
        match self {
            Uint8 => 8,
            Uint16 | Float16 | Bfloat16 => 16,
            Uint32 | Int32 | Float32 | Float32Ftz | Tfloat32 | Tfloat32Ftz => 32,
            Uint64 | Int64 | Float64 => 64,
            U4Align8B | U4Align16B => 4,
            U6Align16B => 6,
        }
    }
    pub fn is_packed(self) -> bool {
        matches!(
            self,
            DataType::U4Align8B | DataType::U4Align16B | DataType::U6Align16B
        )
    }
    /// The two types padded to 16 bytes in shared memory (`.b4x16_p64`, `.b6x16_p32`/`.b6p2x16`).
    pub fn is_packed16(self) -> bool {
        matches!(self, DataType::U4Align16B | DataType::U6Align16B)
    }
    /// spec/09: NAN_REQUEST_ZERO_FMA "only when tensorDataType represents a floating-point data type".
    pub fn is_float(self) -> bool {
        use DataType::*;
        matches!(
            self,
            Float16 | Float32 | Float64 | Bfloat16 | Float32Ftz | Tfloat32 | Tfloat32Ftz
        )
    }
    /// Bytes of `n` values in global memory, if whole.
    pub fn global_bytes(self, n: u64) -> Option<u64> {
        let bits = n.checked_mul(self.bits())?;
        (bits % 8 == 0).then_some(bits / 8)
    }
}

/// `CUtensorMapInterleave`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum Interleave {
    #[default]
    #[serde(rename = "none")]
    None,
    #[serde(rename = "16b")]
    B16,
    #[serde(rename = "32b")]
    B32,
}

impl Interleave {
    pub const ALL: [Interleave; 3] = [Interleave::None, Interleave::B16, Interleave::B32];
    /// Bytes of one interleave granule (the C slice of NC/8HWC8 / NC/16HWC16, §5.5.6).
    pub fn granule(self) -> Option<u64> {
        match self {
            Interleave::None => None,
            Interleave::B16 => Some(16),
            Interleave::B32 => Some(32),
        }
    }
    pub fn cu_value(self) -> u32 {
        self as u32
    }
}

/// `CUtensorMapSwizzle`. The PTX-only 96B mode (tensormap field value 4, sm_103a) has no
/// driver enumerator in spec/09 (cuda.h 13.x mentions `CU_TENSOR_MAP_SWIZZLE_96B` in prose but
/// does not define it), so it is not encodable here; [`super::swizzle::Pattern`] models it.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum Swizzle {
    #[default]
    #[serde(rename = "none")]
    None,
    #[serde(rename = "32b")]
    B32,
    #[serde(rename = "64b")]
    B64,
    #[serde(rename = "128b")]
    B128,
    #[serde(rename = "128b_atom_32b")]
    B128Atom32B,
    #[serde(rename = "128b_atom_32b_flip_8b")]
    B128Atom32BFlip8B,
    #[serde(rename = "128b_atom_64b")]
    B128Atom64B,
}

impl Swizzle {
    pub const ALL: [Swizzle; 7] = [
        Swizzle::None,
        Swizzle::B32,
        Swizzle::B64,
        Swizzle::B128,
        Swizzle::B128Atom32B,
        Swizzle::B128Atom32BFlip8B,
        Swizzle::B128Atom64B,
    ];
    pub fn cu_value(self) -> u32 {
        self as u32
    }
    /// Span in bytes the inner box dimension must fit in (spec/09: 32, 64, 128 for 128B*).
    pub fn span(self) -> Option<u64> {
        match self {
            Swizzle::None => None,
            Swizzle::B32 => Some(32),
            Swizzle::B64 => Some(64),
            _ => Some(128),
        }
    }
    /// The 128B sub-modes with an atomicity other than 16B (PTX `.swizzle_atomicity` ≠ 0).
    pub fn has_atomicity(self) -> bool {
        matches!(
            self,
            Swizzle::B128Atom32B | Swizzle::B128Atom32BFlip8B | Swizzle::B128Atom64B
        )
    }
}

/// `CUtensorMapL2promotion`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum L2Promotion {
    #[default]
    #[serde(rename = "none")]
    None,
    #[serde(rename = "l2_64b", alias = "64b")]
    L2_64B,
    #[serde(rename = "l2_128b", alias = "128b")]
    L2_128B,
    #[serde(rename = "l2_256b", alias = "256b")]
    L2_256B,
}

impl L2Promotion {
    pub const ALL: [L2Promotion; 4] = [
        L2Promotion::None,
        L2Promotion::L2_64B,
        L2Promotion::L2_128B,
        L2Promotion::L2_256B,
    ];
    pub fn cu_value(self) -> u32 {
        self as u32
    }
}

/// `CUtensorMapFloatOOBfill`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum OobFill {
    #[default]
    None,
    NanRequestZeroFma,
}

impl OobFill {
    pub fn cu_value(self) -> u32 {
        self as u32
    }
}

/// `CUtensorMapIm2ColWideMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WideMode {
    W,
    W128,
}

impl WideMode {
    pub fn cu_value(self) -> u32 {
        self as u32
    }
}

/// Which encode function builds the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EncodeKind {
    /// `cuTensorMapEncodeTiled`
    Tiled,
    /// `cuTensorMapEncodeIm2col`
    Im2col,
    /// `cuTensorMapEncodeIm2colWide`
    Im2colWide,
}

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

/// Where a validator rule comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleSource {
    /// Stated on the driver page (spec/09): `cuTensorMapEncode*` must return INVALID_VALUE.
    Driver,
    /// Stated only in the PTX ISA: the driver may accept the map, the copy is then invalid.
    Ptx,
    /// A shape check of this model (array lengths, fields of the right encode function).
    Model,
    /// Not documented; found by probing the driver (see [`Observed`]).
    Probe,
}

/// What the real driver did with a map that breaks only this rule: `cuTensorMapEncode*` of CUDA
/// driver 13.0 (580.159.04) on an H100 (sm_90), probed with `driver_check/driver_check.c`
/// (reports/tensor-open-questions.md has the probes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Observed {
    /// CUDA_ERROR_INVALID_VALUE, as the rule says.
    Rejects,
    /// CUDA_SUCCESS: the driver does not enforce the rule at encode time (on sm_90).
    Accepts,
    /// Not probed (e.g. sm_100-only types, which sm_90 rejects for another reason).
    Untested,
}

/// One validator rule: stable id, source, one-line citation, driver observation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    pub id: &'static str,
    pub source: RuleSource,
    pub observed: Observed,
    pub cite: &'static str,
}

/// What sm_90 silicon did with copies through a map the driver accepts although it breaks rule
/// `id`, where the random truth sweeps say (`reports/sweep/`). The model predicts it as the copy
/// through the map as encoded (A-TENSOR-ACCEPTED-MAP-HW): its other rules decide trap or hang,
/// and a completion leaves the bytes the map as encoded gives.
pub fn silicon_when_accepted(id: &str) -> Option<&'static str> {
    match id {
        "global-stride-covers-previous" => Some(
            "runs as encoded (strides as given, elements may alias), predicted: H100 sweeps of \
             2026-11-25, seeds 2 / 3 / 4, completed 160 / 63 / 163, trapped 159 / 51 / 153, hung \
             41 / 19 / 42, every outcome as predicted; bytes of the completions exact 148 / 61 / \
             162 (the other 12 / 2 / 1 undecided: aliased elements leave several allowed values, \
             or the copy is undefined as encoded too)",
        ),
        "interleave-32b-needs-swizzle-32b" => Some(
            "runs as encoded (the swizzle as given), predicted: H100 sweeps of 2026-11-25, seeds \
             2 / 3 / 4, completed 20 / 6 / 12, trapped 17 / 10 / 15, hung 6 / 4 / 16, every \
             outcome as predicted; bytes of the completions exact 20 / 6 / 12",
        ),
        _ => None,
    }
}

macro_rules! rules {
    ($($name:ident = $id:literal, $src:ident, $obs:ident, $cite:literal;)*) => {
        /// Every rule of [`validate`], by id.
        pub mod rule {
            use super::{Observed, Rule, RuleSource};
            $(pub const $name: Rule = Rule { id: $id, source: RuleSource::$src, observed: Observed::$obs, cite: $cite };)*
            pub const ALL: &[Rule] = &[$($name),*];
        }
    };
}

rules! {
    FIELDS_FOR_ENCODE = "fields-for-encode", Model, Accepts, "each encode function takes its own parameter set (spec/09 signatures)";
    ARRAY_LENGTHS = "array-lengths-match-rank", Model, Accepts, "globalDim/boxDim/elementStrides have tensorRank entries, globalStrides rank-1, corners rank-2 (spec/09)";
    DEVICE_SM90 = "device-sm90", Driver, Untested, "tensor map objects are only supported on compute capability 9.0 or higher (spec/09)";
    WIDE_NEEDS_SM100 = "im2col-wide-needs-sm100", Driver, Accepts, "cuTensorMapEncodeIm2colWide: only compute capability 10.0 or higher (spec/09)";
    PACKED_NEEDS_SM100 = "packed-type-needs-sm100", Ptx, Rejects, "elemtype 13-15 (sub-byte) on sm_100a/sm_110a/sm_120a and families only (spec/02 tensormap.replace target notes)";
    ATOMICITY_NEEDS_SM100 = "swizzle-atomicity-needs-sm100", Ptx, Rejects, ".swizzle_atomicity on sm_100a/sm_110a/sm_120a and families only (spec/02)";
    RANK_RANGE = "rank-range", Driver, Rejects, "tiled: tensorRank non-zero and <= 5 (spec/09)";
    RANK_INTERLEAVE = "rank-interleave-min-3", Driver, Rejects, "interleave != NONE needs tensorRank >= 3 (spec/09 EncodeTiled)";
    RANK_IM2COL = "rank-im2col-3-to-5", Driver, Rejects, "im2col / im2col-wide: tensorRank must be 3, 4, or 5 (spec/09)";
    ADDR_ALIGN_16 = "global-address-align-16", Driver, Rejects, "globalAddress must be 16 byte aligned (spec/09)";
    ADDR_ALIGN_32_INTERLEAVE = "global-address-align-32-interleave-32b", Driver, Rejects, "interleave 32B: globalAddress 32 byte aligned (spec/09)";
    ADDR_ALIGN_32_PACKED = "global-address-align-32-packed16", Driver, Untested, "16U6_ALIGN16B / 16U4_ALIGN16B: globalAddress 32 byte aligned (spec/09)";
    DIM_RANGE = "global-dim-range", Driver, Rejects, "globalDim non-zero and <= 2^32 (spec/09; cuda.h 13.x says 2^31, driver 13.0 accepts 2^32, rejects 2^32+1)";
    DIM0_PACKED16 = "global-dim0-packed16-multiple-128", Driver, Untested, "16U6_ALIGN16B / 16U4_ALIGN16B: globalDim[0] multiple of 128 (spec/09)";
    DIM0_U4_ALIGN8 = "global-dim0-u4-align8b-multiple-2", Driver, Untested, "16U4_ALIGN8B: globalDim[0] multiple of 2 (spec/09)";
    STRIDE_16 = "global-stride-multiple-16", Driver, Rejects, "globalStrides multiple of 16 (spec/09)";
    STRIDE_MAX = "global-stride-below-2-40", Driver, Rejects, "globalStrides less than 2^40 (spec/09)";
    STRIDE_32_INTERLEAVE = "global-stride-multiple-32-interleave-32b", Driver, Rejects, "interleave 32B: strides multiple of 32 (spec/09)";
    STRIDE_32_PACKED = "global-stride-multiple-32-packed16", Driver, Untested, "16U6_ALIGN16B / 16U4_ALIGN16B: strides multiple of 32 (spec/09)";
    STRIDE_COVERS = "global-stride-covers-previous", Driver, Accepts, "globalStrides[0] >= globalDim[0]*elemsize, globalStrides[i] >= globalStrides[i-1]*globalDim[i] (spec/09 pseudo-code; enforcement unknown)";
    BOX_RANGE = "box-dim-range", Driver, Rejects, "boxDim non-zero and <= 256 (spec/09)";
    BOX_INNER_16 = "box-inner-bytes-multiple-of-16", Driver, Rejects, "boxDim[0]*elementSize multiple of 16 bytes (spec/09 says with interleave NONE; driver 13.0 also rejects 8/24-byte boxes with interleave 16B)";
    CPP_BYTES_16 = "im2col-channel-bytes-multiple-of-16", Probe, Rejects, "channelsPerPixel*elementSize multiple of 16 bytes (undocumented; driver 13.0 rejects 4, 8, 24 bytes for im2col and im2col-wide)";
    BOX0_PACKED16 = "box-dim0-packed16-is-128", Driver, Untested, "16U6_ALIGN16B / 16U4_ALIGN16B: boxDim[0] must be 128 (spec/09)";
    ELEM_STRIDE_RANGE = "element-stride-range", Driver, Rejects, "elementStrides non-zero and <= 8 (spec/09)";
    SWIZZLE_SPAN = "box-inner-within-swizzle-span", Driver, Rejects, "interleave NONE and swizzle: inner box bytes (boxDim[0] or channelsPerPixel x elemsize) <= 32/64/128 (spec/09)";
    INTERLEAVE32_SWIZZLE = "interleave-32b-needs-swizzle-32b", Driver, Accepts, "interleave 32B: swizzle must be 32B (spec/09)";
    U6_INTERLEAVE = "packed-u6-needs-interleave-none", Driver, Untested, "16U6_ALIGN16B requires interleave NONE (spec/09)";
    PACKED_SWIZZLE = "packed16-swizzle-modes", Driver, Untested, "16U6_ALIGN16B: NONE/128B/128B_ATOM_32B/128B_ATOM_64B; 16U4_ALIGN16B: NONE/128B/128B_ATOM_32B (spec/09; wide: no NONE)";
    OOB_NAN_FLOAT = "oob-nan-needs-float-type", Driver, Rejects, "NAN_REQUEST_ZERO_FMA only for floating-point, non-packed types (spec/09; §9.7.9.25.5.1)";
    CORNER_RANGE = "im2col-corner-range", Driver, Rejects, "pixelBox corners: rank 3 [-32768,32767], rank 4 [-128,127], rank 5 [-16,15] (spec/09, §5.5.4.1)";
    BOX_AREA = "im2col-box-nonzero-area", Driver, Rejects, "the bounding box given by the corners must have non-zero area (spec/09)";
    CPP_RANGE = "channels-per-pixel-range", Driver, Rejects, "channelsPerPixel <= 256 (spec/09; 0 rejected by this model)";
    CPP_PACKED16 = "channels-per-pixel-packed16-is-128", Driver, Untested, "16U6_ALIGN16B / 16U4_ALIGN16B: channelsPerPixel must be 128 (spec/09)";
    PPC_RANGE = "pixels-per-column-range", Driver, Rejects, "pixelsPerColumn in 1..=1024 (spec/09 gives <= 1024 and 'ignored' for W128; driver 13.0 rejects 0 also for W128)";
    WIDE_CORNER_RANGE = "im2col-wide-corner-range", Driver, Rejects, "pixelBoxLower/UpperCornerWidth: spec/09 says [-32768, 32767]; driver 13.0 enforces the im2col per-rank ranges (rank 4 [-128,127], rank 5 [-16,15])";
    WIDE_SWIZZLE = "im2col-wide-swizzle-modes", Driver, Accepts, "im2col-wide: swizzle 64B, 128B or 128B_ATOM_32B only (spec/09; §5.5.5 forbids NONE and 32B+8B-flip)";
    WIDE_INTERLEAVE = "im2col-wide-interleave-none", Ptx, Accepts, "interleave is not supported for .im2col::w / .im2col::w::128 (§5.5.6)";
}

/// Why a map is rejected: the first failing rule and a message with the offending values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeReject {
    pub rule: &'static str,
    pub source: RuleSource,
    pub message: String,
}

impl std::fmt::Display for EncodeReject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.rule, self.message)
    }
}

fn reject(r: Rule, message: impl Into<String>) -> EncodeReject {
    EncodeReject {
        rule: r.id,
        source: r.source,
        message: format!("{} ({})", message.into(), r.cite),
    }
}

/// Whether rules the driver was seen not to enforce ([`Observed::Accepts`]) reject.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Documented,
    AsDriver,
}

fn check(
    mode: Mode,
    ok: bool,
    r: Rule,
    message: impl FnOnce() -> String,
) -> Result<(), EncodeReject> {
    if ok || (mode == Mode::AsDriver && r.observed == Observed::Accepts) {
        Ok(())
    } else {
        Err(reject(r, message()))
    }
}

/// The verdict `cuTensorMapEncode*` is expected to return: [`validate`] without the rules the
/// driver was observed not to enforce ([`Observed::Accepts`]). `Ok` means CUDA_SUCCESS.
pub fn predict_driver(p: &TensorMapParams, target: Target) -> Result<(), EncodeReject> {
    validate_as_driver(p, target).map(|_| ())
}

/// The map as driver 13.0 encodes it: [`validate`] without the rules it does not enforce, so a
/// copy can be planned through a map that breaks only those.
pub fn validate_as_driver(
    p: &TensorMapParams,
    target: Target,
) -> Result<ValidatedMap, EncodeReject> {
    validate_in(p, target, Mode::AsDriver)
}

/// The im2col geometry of a validated map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Im2colBox {
    /// `cuTensorMapEncodeIm2col`: corners per spatial dimension, W first (rank-2 entries).
    Full { lower: Vec<i32>, upper: Vec<i32> },
    /// `cuTensorMapEncodeIm2colWide`.
    Wide {
        lower_w: i32,
        upper_w: i32,
        mode: WideMode,
    },
}

/// How the box is shaped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Geometry {
    Tiled {
        box_dim: Vec<u32>,
    },
    Im2col {
        corners: Im2colBox,
        channels_per_pixel: u32,
        pixels_per_column: u32,
    },
}

/// A map every applicable rule accepted; the copy models take only these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidatedMap {
    pub params: TensorMapParams,
    pub ty: DataType,
    pub rank: usize,
    pub global_address: u64,
    pub global_dim: Vec<u64>,
    /// Byte stride of every dimension, dimension 0 included (its element size, for packed
    /// types the size of one addressing unit, see [`super::access::Unit`]).
    pub byte_strides: Vec<u64>,
    pub geometry: Geometry,
    /// `elementStrides` with entry 0 forced to 1 when interleave is NONE (spec/09: "ignored").
    pub element_strides: Vec<u32>,
    pub interleave: Interleave,
    pub swizzle: Swizzle,
    pub oob_fill: OobFill,
}

/// Apply every rule of the driver page (and the PTX-only ones) in a fixed order; the first
/// failure is returned. `target` is the device the map is encoded for.
pub fn validate(p: &TensorMapParams, target: Target) -> Result<ValidatedMap, EncodeReject> {
    validate_in(p, target, Mode::Documented)
}

fn validate_in(
    p: &TensorMapParams,
    target: Target,
    mode: Mode,
) -> Result<ValidatedMap, EncodeReject> {
    let ty = p.tensor_data_type;
    let rank = p.rank();
    let kind = p.encode;

    // Shape of the parameter set.
    let (is_tiled, is_full, is_wide) = (
        kind == EncodeKind::Tiled,
        kind == EncodeKind::Im2col,
        kind == EncodeKind::Im2colWide,
    );
    let fields: [(&str, bool, bool); 8] = [
        ("box_dim", p.box_dim.is_some(), is_tiled),
        (
            "pixel_box_lower_corner",
            p.pixel_box_lower_corner.is_some(),
            is_full,
        ),
        (
            "pixel_box_upper_corner",
            p.pixel_box_upper_corner.is_some(),
            is_full,
        ),
        (
            "pixel_box_lower_corner_width",
            p.pixel_box_lower_corner_width.is_some(),
            is_wide,
        ),
        (
            "pixel_box_upper_corner_width",
            p.pixel_box_upper_corner_width.is_some(),
            is_wide,
        ),
        (
            "channels_per_pixel",
            p.channels_per_pixel.is_some(),
            !is_tiled,
        ),
        (
            "pixels_per_column",
            p.pixels_per_column.is_some(),
            !is_tiled,
        ),
        ("mode", p.mode.is_some(), is_wide),
    ];
    for (name, present, wanted) in fields {
        check(mode, present == wanted, rule::FIELDS_FOR_ENCODE, || {
            if present {
                format!("`{name}` is not a parameter of the {kind:?} encode function")
            } else {
                format!("the {kind:?} encode function needs `{name}`")
            }
        })?;
    }

    // Device.
    check(mode, target.sm >= 90, rule::DEVICE_SM90, || {
        format!("device {target}")
    })?;
    check(
        mode,
        !is_wide || target.sm >= 100,
        rule::WIDE_NEEDS_SM100,
        || format!("device {target}"),
    )?;
    check(
        mode,
        !ty.is_packed() || target.sm >= 100,
        rule::PACKED_NEEDS_SM100,
        || format!("{ty:?} on {target}"),
    )?;
    check(
        mode,
        !p.swizzle.has_atomicity() || target.sm >= 100,
        rule::ATOMICITY_NEEDS_SM100,
        || format!("{:?} on {target}", p.swizzle),
    )?;

    // Rank.
    if is_tiled {
        check(mode, (1..=5).contains(&rank), rule::RANK_RANGE, || {
            format!("tensorRank {rank}")
        })?;
        check(
            mode,
            p.interleave == Interleave::None || rank >= 3,
            rule::RANK_INTERLEAVE,
            || format!("tensorRank {rank} with interleave {:?}", p.interleave),
        )?;
    } else {
        check(mode, (3..=5).contains(&rank), rule::RANK_IM2COL, || {
            format!("tensorRank {rank}")
        })?;
    }
    let r = rank as usize;
    let lens = |p: &TensorMapParams, exact: bool| {
        let fits = |n: usize, want: usize| if exact { n == want } else { n >= want };
        fits(p.global_dim.len(), r)
            && fits(p.global_strides.len(), r - 1)
            && fits(p.element_strides_or_ones().len(), r)
            && p.box_dim.as_ref().is_none_or(|b| fits(b.len(), r))
            && p.pixel_box_lower_corner
                .as_ref()
                .is_none_or(|c| fits(c.len(), r - 2))
            && p.pixel_box_upper_corner
                .as_ref()
                .is_none_or(|c| fits(c.len(), r - 2))
    };
    check(mode, lens(p, true), rule::ARRAY_LENGTHS, || {
        format!("tensorRank {rank}: an array has the wrong number of entries")
    })?;
    // The driver reads the first `tensorRank` (−1, −2) entries: predict on those. Too-short arrays
    // cannot be predicted (the driver would read past them) and stay rejected.
    if !lens(p, false) {
        return Err(reject(
            rule::ARRAY_LENGTHS,
            format!("tensorRank {rank}: an array is too short"),
        ));
    }
    let truncated;
    let p = if lens(p, true) {
        p
    } else {
        let mut q = p.clone();
        q.global_dim.truncate(r);
        q.global_strides.truncate(r - 1);
        q.element_strides = Some(q.element_strides_or_ones().into_iter().take(r).collect());
        for v in [&mut q.pixel_box_lower_corner, &mut q.pixel_box_upper_corner]
            .into_iter()
            .flatten()
        {
            v.truncate(r - 2);
        }
        if let Some(b) = q.box_dim.as_mut() {
            b.truncate(r);
        }
        truncated = q;
        &truncated
    };
    let es = p.element_strides_or_ones();

    // globalAddress.
    let a = p.global_address;
    check(mode, a % 16 == 0, rule::ADDR_ALIGN_16, || {
        format!("globalAddress {a:#x}")
    })?;
    check(
        mode,
        p.interleave != Interleave::B32 || a % 32 == 0,
        rule::ADDR_ALIGN_32_INTERLEAVE,
        || format!("globalAddress {a:#x}"),
    )?;
    check(
        mode,
        !ty.is_packed16() || a % 32 == 0,
        rule::ADDR_ALIGN_32_PACKED,
        || format!("globalAddress {a:#x} with {ty:?}"),
    )?;

    // globalDim.
    for (i, &d) in p.global_dim.iter().enumerate() {
        check(mode, d > 0 && d <= GLOBAL_DIM_MAX, rule::DIM_RANGE, || {
            format!("globalDim[{i}] = {d}")
        })?;
    }
    let d0 = p.global_dim[0];
    check(
        mode,
        !ty.is_packed16() || d0 % 128 == 0,
        rule::DIM0_PACKED16,
        || format!("globalDim[0] = {d0}"),
    )?;
    check(
        mode,
        ty != DataType::U4Align8B || d0 % 2 == 0,
        rule::DIM0_U4_ALIGN8,
        || format!("globalDim[0] = {d0}"),
    )?;

    // globalStrides.
    for (i, &s) in p.global_strides.iter().enumerate() {
        check(mode, s % 16 == 0, rule::STRIDE_16, || {
            format!("globalStrides[{i}] = {s}")
        })?;
        check(mode, s < 1 << 40, rule::STRIDE_MAX, || {
            format!("globalStrides[{i}] = {s}")
        })?;
        check(
            mode,
            p.interleave != Interleave::B32 || s % 32 == 0,
            rule::STRIDE_32_INTERLEAVE,
            || format!("globalStrides[{i}] = {s}"),
        )?;
        check(
            mode,
            !ty.is_packed16() || s % 32 == 0,
            rule::STRIDE_32_PACKED,
            || format!("globalStrides[{i}] = {s} with {ty:?}"),
        )?;
    }
    let mut prev = ty.global_bytes(d0).unwrap_or(d0 * ty.bits() / 8);
    for (i, &s) in p.global_strides.iter().enumerate() {
        check(mode, s >= prev, rule::STRIDE_COVERS, || {
            format!("globalStrides[{i}] = {s} < {prev} (the extent of the lower dimensions)")
        })?;
        prev = s.saturating_mul(p.global_dim[i + 1]);
    }

    // boxDim (tiled).
    let inner_box_values: u64 = if let Some(b) = &p.box_dim {
        for (i, &x) in b.iter().enumerate() {
            check(mode, (1..=256).contains(&x), rule::BOX_RANGE, || {
                format!("boxDim[{i}] = {x}")
            })?;
        }
        let inner = ty.global_bytes(b[0] as u64);
        // Probe: driver 13.0 applies this with interleave too (spec/09 says "When interleave is NONE").
        check(
            mode,
            inner.is_some_and(|x| x % 16 == 0),
            rule::BOX_INNER_16,
            || format!("boxDim[0] = {} of {ty:?}", b[0]),
        )?;
        check(
            mode,
            !ty.is_packed16() || b[0] == 128,
            rule::BOX0_PACKED16,
            || format!("boxDim[0] = {}", b[0]),
        )?;
        b[0] as u64
    } else {
        p.channels_per_pixel.unwrap_or(0) as u64
    };

    // elementStrides.
    for (i, &e) in es.iter().enumerate() {
        check(mode, (1..=8).contains(&e), rule::ELEM_STRIDE_RANGE, || {
            format!("elementStrides[{i}] = {e}")
        })?;
    }

    // Interleave / swizzle.
    if let (Interleave::None, Some(span)) = (p.interleave, p.swizzle.span()) {
        let inner = ty.global_bytes(inner_box_values).unwrap_or(u64::MAX);
        check(mode, inner <= span, rule::SWIZZLE_SPAN, || {
            format!("inner box {inner} bytes > {:?} span {span}", p.swizzle)
        })?;
    }
    check(
        mode,
        p.interleave != Interleave::B32 || p.swizzle == Swizzle::B32,
        rule::INTERLEAVE32_SWIZZLE,
        || format!("swizzle {:?}", p.swizzle),
    )?;
    check(
        mode,
        ty != DataType::U6Align16B || p.interleave == Interleave::None,
        rule::U6_INTERLEAVE,
        || format!("interleave {:?}", p.interleave),
    )?;
    if ty.is_packed16() {
        use Swizzle::*;
        let ok = match (ty, is_wide) {
            (DataType::U6Align16B, false) => {
                matches!(p.swizzle, None | B128 | B128Atom32B | B128Atom64B)
            }
            (_, false) => matches!(p.swizzle, None | B128 | B128Atom32B),
            // cuda.h 13.x adds 64B (store only) for U6 in wide mode; spec/09 lists 128B and 128B_ATOM_32B.
            (_, true) => matches!(p.swizzle, B128 | B128Atom32B),
        };
        check(mode, ok, rule::PACKED_SWIZZLE, || {
            format!("{ty:?} with swizzle {:?}", p.swizzle)
        })?;
    }
    check(
        mode,
        p.oob_fill == OobFill::None || (ty.is_float() && !ty.is_packed()),
        rule::OOB_NAN_FLOAT,
        || format!("{ty:?} with oobFill {:?}", p.oob_fill),
    )?;

    // Im2col geometry.
    let geometry = match kind {
        EncodeKind::Tiled => Geometry::Tiled {
            box_dim: p.box_dim.clone().unwrap_or_default(),
        },
        EncodeKind::Im2col | EncodeKind::Im2colWide => {
            let corners = if is_full {
                let (lo, hi) = (
                    p.pixel_box_lower_corner.clone().unwrap_or_default(),
                    p.pixel_box_upper_corner.clone().unwrap_or_default(),
                );
                let lim = corner_limit(rank);
                for (i, &c) in lo.iter().chain(hi.iter()).enumerate() {
                    check(mode, (-lim..lim).contains(&c), rule::CORNER_RANGE, || {
                        format!(
                            "corner value #{i} = {c} outside [{}, {}] for rank {rank}",
                            -lim,
                            lim - 1
                        )
                    })?;
                }
                // The corners bound the spatial dimensions 1..rank−2, or 0..rank−3 with
                // interleave (Assumption::Im2colInterleaveStepsDim0): driver 13.0 rejected 62 of
                // 62 interleaved im2col maps of the 2026-11-25 sweep (seed 2) whose box is empty
                // in the shifted dimensions, 12 of them non-empty in the unshifted ones, and
                // accepted all 349 others, 4 of them empty in the unshifted ones.
                let first = usize::from(p.interleave == Interleave::None);
                for s in 0..r - 2 {
                    let d = s + first;
                    let extent = p.global_dim[d] as i64 - lo[s] as i64 + hi[s] as i64;
                    check(mode, extent > 0, rule::BOX_AREA, || {
                        format!("spatial dimension {d} spans {extent} positions")
                    })?;
                }
                Im2colBox::Full {
                    lower: lo,
                    upper: hi,
                }
            } else {
                let (lo, hi) = (
                    p.pixel_box_lower_corner_width.unwrap_or(0),
                    p.pixel_box_upper_corner_width.unwrap_or(0),
                );
                // Probe: the per-rank limits of the im2col corners, not spec/09's [-32768, 32767].
                let lim = corner_limit(rank);
                for c in [lo, hi] {
                    check(
                        mode,
                        (-lim..lim).contains(&c),
                        rule::WIDE_CORNER_RANGE,
                        || format!("corner {c} outside [{}, {}] for rank {rank}", -lim, lim - 1),
                    )?;
                }
                let extent = p.global_dim[1] as i64 - lo as i64 + hi as i64;
                check(mode, extent > 0, rule::BOX_AREA, || {
                    format!("W spans {extent} positions")
                })?;
                Im2colBox::Wide {
                    lower_w: lo,
                    upper_w: hi,
                    mode: p.mode.unwrap_or(WideMode::W),
                }
            };
            let cpp = p.channels_per_pixel.unwrap_or(0);
            check(mode, (1..=256).contains(&cpp), rule::CPP_RANGE, || {
                format!("channelsPerPixel {cpp}")
            })?;
            check(
                mode,
                ty.global_bytes(cpp as u64).is_some_and(|b| b % 16 == 0),
                rule::CPP_BYTES_16,
                || format!("channelsPerPixel {cpp} of {ty:?}"),
            )?;
            check(
                mode,
                !ty.is_packed16() || cpp == 128,
                rule::CPP_PACKED16,
                || format!("channelsPerPixel {cpp}"),
            )?;
            let ppc = p.pixels_per_column.unwrap_or(0);
            // W128 loads 128 pixels whatever pixelsPerColumn says, but the driver still range-checks it.
            let ignored = p.mode == Some(WideMode::W128);
            check(mode, (1..=1024).contains(&ppc), rule::PPC_RANGE, || {
                format!("pixelsPerColumn {ppc}")
            })?;
            if is_wide {
                check(
                    mode,
                    matches!(
                        p.swizzle,
                        Swizzle::B64 | Swizzle::B128 | Swizzle::B128Atom32B
                    ),
                    rule::WIDE_SWIZZLE,
                    || format!("swizzle {:?}", p.swizzle),
                )?;
                check(
                    mode,
                    p.interleave == Interleave::None,
                    rule::WIDE_INTERLEAVE,
                    || format!("interleave {:?}", p.interleave),
                )?;
            }
            Geometry::Im2col {
                corners,
                channels_per_pixel: cpp,
                pixels_per_column: if ignored { 128 } else { ppc },
            }
        }
    };

    let unit = super::access::Unit::of_layout(ty, p.interleave);
    let mut byte_strides = vec![unit.global_bytes];
    byte_strides.extend(p.global_strides.iter().copied());
    let mut element_strides = es;
    if p.interleave == Interleave::None {
        element_strides[0] = 1;
    }
    Ok(ValidatedMap {
        params: p.clone(),
        ty,
        rank: r,
        global_address: a,
        global_dim: p.global_dim.clone(),
        byte_strides,
        geometry,
        element_strides,
        interleave: p.interleave,
        swizzle: p.swizzle,
        oob_fill: p.oob_fill,
    })
}

/// §5.5.4.1 / spec/09: corner range per rank, rank 3 [-2^15, 2^15-1], rank 4 [-2^7, 2^7-1], rank 5 [-2^4, 2^4-1].
fn corner_limit(rank: u32) -> i32 {
    match rank {
        3 => 1 << 15,
        4 => 1 << 7,
        _ => 1 << 4,
    }
}

/// spec/09: "globalDim ... less than or equal to 2^32". cuda.h of CUDA 13.x says 2^31, but
/// driver 13.0 on sm_90 accepts 2^31 + 1 and 2^32 and rejects 2^32 + 1 (dimensions 0 and 1 probed).
pub const GLOBAL_DIM_MAX: u64 = 1 << 32;

/// The workspace's deterministic generator, under the name sweeps use.
pub use crate::case::init::SplitMix64 as SplitMix;

/// `n` parameter sets for comparing [`validate`] with the real driver. Deterministic in `seed`.
/// Each set starts from a valid map of a random encode kind and then, with probability about
/// one half, pushes one parameter to an interesting boundary (just inside or just outside a
/// rule's limit), so both accepted and rejected maps come out, near every rule's edge.
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
