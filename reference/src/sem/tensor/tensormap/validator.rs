//! The validator: every rule of [`super::rule`] applied in a fixed order, as documented
//! ([`validate`]) or as driver 13.0 enforces them ([`validate_as_driver`], [`predict_driver`]),
//! giving the [`ValidatedMap`] the copy models take or the first failing rule.

use super::rules::{rule, Observed, Rule, RuleSource};
use crate::sem::mutant::{self, Mutant as M};
use crate::target::Target;
use crate::tensor_map::{
    DataType, EncodeKind, Interleave, OobFill, Swizzle, TensorMapParams, WideMode,
};

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

/// The most bytes a tiled box may hold (228 KiB): driver 13.0 refuses 234,496 and more and
/// accepts 233,472 (H100, every element type and rank probed).
pub const BOX_BYTES_MAX: u64 = 233_472;

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
    /// types the size of one addressing unit, see [`crate::sem::tensor::access::Unit`]).
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
                format!("`{name}` is not a parameter of the {kind} encode function")
            } else {
                format!("the {kind} encode function needs `{name}`")
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
        || format!("{ty} on {target}"),
    )?;
    check(
        mode,
        !p.swizzle.has_atomicity() || target.sm >= 100,
        rule::ATOMICITY_NEEDS_SM100,
        || format!("{} on {target}", p.swizzle),
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
            || format!("tensorRank {rank} with interleave {}", p.interleave),
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
        || format!("globalAddress {a:#x} with {ty}"),
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
        let granule = if mutant::on(M::EncodeStride8) { 8 } else { 16 };
        check(mode, s % granule == 0, rule::STRIDE_16, || {
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
            || format!("globalStrides[{i}] = {s} with {ty}"),
        )?;
    }
    let mut prev = ty.global_bytes(d0).unwrap_or(d0 * ty.bits() / 8);
    for (i, &s) in p.global_strides.iter().enumerate() {
        let covers = s >= prev || mutant::on(M::EncodeStrideCoversSkipped);
        check(mode, covers, rule::STRIDE_COVERS, || {
            format!("globalStrides[{i}] = {s} < {prev} (the extent of the lower dimensions)")
        })?;
        prev = s.saturating_mul(p.global_dim[i + 1]);
    }

    // boxDim (tiled).
    let inner_box_values: u64 = if let Some(b) = &p.box_dim {
        for (i, &x) in b.iter().enumerate() {
            let max = 256 + u32::from(mutant::on(M::EncodeBoxDim257));
            check(mode, (1..=max).contains(&x), rule::BOX_RANGE, || {
                format!("boxDim[{i}] = {x}")
            })?;
        }
        let inner = ty.global_bytes(b[0] as u64);
        // Probe: driver 13.0 applies this with interleave too (spec/09 says "When interleave is NONE").
        check(
            mode,
            inner.is_some_and(|x| x % 16 == 0),
            rule::BOX_INNER_16,
            || format!("boxDim[0] = {} of {ty}", b[0]),
        )?;
        // Probe (reports/probes/box-bytes): the driver bounds the whole box by the shared
        // memory of one SM, which no copy could fill beyond.
        let elements = b.iter().fold(1u64, |a, &x| a.saturating_mul(u64::from(x)));
        let bytes = ty.global_bytes(elements).unwrap_or(u64::MAX);
        check(mode, bytes <= BOX_BYTES_MAX, rule::BOX_BYTES, || {
            format!("box of {bytes} bytes > {BOX_BYTES_MAX}")
        })?;
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
        let max = if mutant::on(M::EncodeElemStride16) {
            16
        } else {
            8
        };
        check(
            mode,
            (1..=max).contains(&e),
            rule::ELEM_STRIDE_RANGE,
            || format!("elementStrides[{i}] = {e}"),
        )?;
    }

    // Interleave / swizzle.
    if let (Interleave::None, Some(span)) = (p.interleave, p.swizzle.span()) {
        let inner = ty.global_bytes(inner_box_values).unwrap_or(u64::MAX);
        let fits = inner < span || (inner == span && !mutant::on(M::EncodeSwizzleSpanStrict));
        check(mode, fits, rule::SWIZZLE_SPAN, || {
            format!("inner box {inner} bytes > {} span {span}", p.swizzle)
        })?;
    }
    check(
        mode,
        p.interleave != Interleave::B32 || p.swizzle == Swizzle::B32,
        rule::INTERLEAVE32_SWIZZLE,
        || format!("swizzle {}", p.swizzle),
    )?;
    check(
        mode,
        ty != DataType::U6Align16B || p.interleave == Interleave::None,
        rule::U6_INTERLEAVE,
        || format!("interleave {}", p.interleave),
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
            format!("{ty} with swizzle {}", p.swizzle)
        })?;
    }
    check(
        mode,
        p.oob_fill == OobFill::None
            || (ty.is_float() && !ty.is_packed())
            || mutant::on(M::EncodeNanFillIntegers),
        rule::OOB_NAN_FLOAT,
        || format!("{ty} with oobFill {}", p.oob_fill),
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
                || format!("channelsPerPixel {cpp} of {ty}"),
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
                    || format!("swizzle {}", p.swizzle),
                )?;
                check(
                    mode,
                    p.interleave == Interleave::None,
                    rule::WIDE_INTERLEAVE,
                    || format!("interleave {}", p.interleave),
                )?;
            }
            Geometry::Im2col {
                corners,
                channels_per_pixel: cpp,
                pixels_per_column: if ignored { 128 } else { ppc },
            }
        }
    };

    let unit = crate::sem::tensor::access::Unit::of_layout(ty, p.interleave);
    let mut byte_strides = vec![unit.global_bytes];
    byte_strides.extend(p.global_strides.iter().copied());
    let mut element_strides = es;
    if p.interleave == Interleave::None && !mutant::on(M::ElemStrideDim0Honoured) {
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
pub fn corner_limit_of_rank(rank: u32) -> i32 {
    match rank {
        3 => 1 << 15,
        4 => 1 << 7,
        _ => 1 << 4,
    }
}

/// [`corner_limit_of_rank`] as the validator applies it (a mutant may widen it).
fn corner_limit(rank: u32) -> i32 {
    if mutant::on(M::EncodeCornerLimitRank3) {
        return 1 << 15;
    }
    corner_limit_of_rank(rank)
}

/// spec/09: "globalDim ... less than or equal to 2^32". cuda.h of CUDA 13.x says 2^31, but
/// driver 13.0 on sm_90 accepts 2^31 + 1 and 2^32 and rejects 2^32 + 1 (dimensions 0 and 1 probed).
pub const GLOBAL_DIM_MAX: u64 = 1 << 32;
