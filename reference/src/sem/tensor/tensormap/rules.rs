//! The validator's rules: one stable id per rule, where it comes from (driver page, PTX ISA,
//! model, probe), and what driver 13.0 on sm_90 was seen to do with a map that breaks it.

use serde::{Deserialize, Serialize};

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
        /// Every rule of [`validate`](crate::sem::tensor::tensormap::validate()), by id.
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
    BOX_BYTES = "box-bytes-at-most-228kib", Probe, Rejects, "boxDim product x elementSize <= 233472 bytes (228 KiB; undocumented: driver 13.0 refuses 234496 bytes and more on H100, reports/probes/box-bytes)";
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
