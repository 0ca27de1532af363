//! Tensor episodes (§9.7.9.25.5): cp.async.bulk.tensor loads (tile, im2col, gather4) into
//! `.shared::cluster` / `.shared::cta` through an mbarrier (optionally `.multicast::cluster`,
//! `.cta_group`), tile / scatter4 / im2col_no_offs stores and cp.reduce.async.bulk.tensor through a
//! bulk async-group, and cp.async.bulk.prefetch.tensor. Each episode declares its own tensor map
//! (`tm{n}`), drawn from the chunk.
//!
//! Always valid by construction, with the model as the judge rather than re-stated rules: a drawn
//! map is kept only when both [`tensor::validate`] (the documented contract) and
//! [`tensor::predict_driver`] (what driver 13.0 encodes) accept it for the target; a drawn copy only
//! when the copy model plans it ([`tensor::load`] / [`tensor::store`]: every per-copy rule) and every
//! unit lands inside the episode's regions; an instruction only when its `requirement()` is legal
//! on the target. The mbarrier expects exactly the plan's complete-tx bytes
//! ([`tensor::complete_tx_bytes`]). A draw that fails is redrawn (a bounded number of times, then
//! a fixed 1-D copy that always fits).
//!
//! A tensor episode needs more choices than a chunk holds, so after its first bytes it seeds a
//! [`SplitMix`] from eight chunk bytes: the episode still depends on its chunk only.
//!
//! Positions (ASSUMPTIONS of this generator, to keep GPU runs free of untested territory):
//! interleave and elementStrides only on loads and prefetches (stores with interleave have since
//! been observed, `Assumption::InterleaveGranuleUnits`, but are not drawn yet); reductions only on integer maps (arbitrary region bytes
//! are no float values worth reducing: NaN payloads); `.cta_group` only with a `.shared::cluster`
//! destination, its mbarrier in the destination CTA, `::2` only in even clusters and without
//! multicast; gather4 / multicast never together.
//!
//! Loads and prefetches are drawn in `load`, stores and reductions in `store`; this file holds
//! the regions, the maps and coordinates they draw, and the choice of episode.

use super::bytes::Chunk;
use super::world::World;
use super::{Deviation, Intent};
use crate::case::model::{Init, Memory, Param, Region, TensorMapDecl};
use crate::ptx::operand::Value;
use crate::ptx::tensor::Dim;
use crate::ptx::Instruction;
use crate::sem::tensor::access::{CopyPlan, Unit};
use crate::sem::tensor::tensormap::{
    DataType, Interleave, L2Promotion, OobFill, SplitMix, Swizzle, TensorMapParams,
};
use crate::sem::tensor::{self, ValidatedMap};
use crate::target::{PtxVersion, Verdict};

mod load;
mod store;

/// Global tensor read by loads and prefetches (a pattern), written by stores and reductions.
pub const TSRC: &str = "tsrc";
pub const TDST: &str = "tdst";
/// Per-CTA shared box buffer (1024-aligned: the 128B swizzle's atom, so the model's swizzle of
/// offset `o` is the swizzle of the real address).
pub const TBUF: &str = "tbuf";
/// Bytes of each tensor region (every unit a drawn copy touches lies inside).
pub const GLOBAL_BYTES: u64 = 4096;
pub const SMEM_BYTES: u64 = 4096;
/// The cache-policy value tensor and bulk copies take on hardware (an `evict_*` policy word).
const POLICY: i64 = 0x14F0_0000_0000_0000;
/// Redraws before the fixed fallback copy.
const TRIES: usize = 24;

/// The tensor regions, added when the swarm enables the family.
pub fn add_regions(memory: &mut Memory, seed: u64, fill: u8) {
    let region = |name: &str, align: u64, init: Init| Region {
        name: name.into(),
        size: GLOBAL_BYTES,
        align,
        misalign: 0,
        init,
    };
    memory
        .global
        .push(region(TSRC, 128, Init::Pattern(seed ^ 0x7e57)));
    memory
        .global
        .push(region(TDST, 128, Init::Fill(fill ^ 0x33)));
    memory.shared.push(Region {
        size: SMEM_BYTES,
        ..region(TBUF, 1024, Init::Fill(fill ^ 0x5a))
    });
}

/// One data type per non-packed class (the `.ftz` twins move as their base type; packed types need
/// sm_100 and 128-element boxes). A subset of `DataType::ALL`, not a copy of it.
const TYPES: [DataType; 11] = [
    DataType::Uint8,
    DataType::Uint16,
    DataType::Uint32,
    DataType::Int32,
    DataType::Uint64,
    DataType::Int64,
    DataType::Float16,
    DataType::Bfloat16,
    DataType::Float32,
    DataType::Tfloat32,
    DataType::Float64,
];

/// The swizzle modes sm_90's driver encodes, no swizzle drawn twice as often as each mode.
pub(super) const SWIZZLES_SM90: [Swizzle; 5] = [
    Swizzle::None,
    Swizzle::None,
    Swizzle::B32,
    Swizzle::B64,
    Swizzle::B128,
];

/// Types some tensor redOp takes (integers only, see the module's positions).
const REDUCE_TYPES: [DataType; 4] = [
    DataType::Uint32,
    DataType::Int32,
    DataType::Uint64,
    DataType::Int64,
];

/// What a drawn map may use.
#[derive(Clone, Copy, Debug, Default)]
struct Opts {
    interleave: bool,
    element_strides: bool,
    /// gather4 / scatter4 shape: 2-D, `boxDim[1] = 1`, no interleave.
    four_rows: bool,
    reduce: bool,
}

fn seed(c: &mut Chunk<'_>) -> SplitMix {
    SplitMix((0..8).fold(0u64, |a, _| a << 8 | c.byte() as u64))
}

pub(super) fn bit(g: &mut SplitMix) -> bool {
    g.below(2) == 1
}

/// A value in `lo..=hi`.
pub(super) fn range(g: &mut SplitMix, lo: i64, hi: i64) -> i64 {
    lo + g.below((hi - lo + 1).max(1) as u64) as i64
}

/// Values per 16 bytes: the step of a dimension-0 coordinate (§5.5.3.1 box start alignment).
pub(super) fn per16(ty: DataType) -> u32 {
    (128 / ty.bits()) as u32
}

/// Byte strides of dimensions 1.. for a row of `row` bytes: each covers the previous extent,
/// multiples of `align`, sometimes padded.
fn strides(g: &mut SplitMix, row: u64, dims: &[u64], align: u64) -> (Vec<u64>, u64) {
    let mut s = row.div_ceil(align) * align + align * g.below(2);
    let mut out = Vec::new();
    for &d in dims.iter().skip(1) {
        out.push(s);
        s = s * d + align * g.below(2);
    }
    (out, s)
}

fn finish_map(g: &mut SplitMix, p: &mut TensorMapParams) {
    if p.tensor_data_type.is_float() && g.below(3) == 0 {
        p.oob_fill = OobFill::NanRequestZeroFma;
    }
    p.l2_promotion = g.pick(&L2Promotion::ALL);
}

/// A tiled map of rank 1-5 within [`GLOBAL_BYTES`].
fn tiled(g: &mut SplitMix, o: Opts) -> TensorMapParams {
    let ty = if o.reduce {
        g.pick(&REDUCE_TYPES)
    } else {
        g.pick(&TYPES)
    };
    let rank = if o.four_rows {
        2
    } else {
        1 + g.below(5) as usize
    };
    let interleave = if o.interleave && rank >= 3 && g.below(3) == 0 {
        g.pick(&[Interleave::B16, Interleave::B32])
    } else {
        Interleave::None
    };
    let swizzle = if interleave == Interleave::B32 {
        Swizzle::B32
    } else {
        g.pick(&SWIZZLES_SM90)
    };
    let step = per16(ty);
    // boxDim[0]: whole 16-byte pieces (spec/09), within the swizzle span.
    let pieces = match (interleave, swizzle.span()) {
        (Interleave::None, Some(span)) => span / 16,
        (Interleave::None, None) => 4,
        _ => 1,
    };
    let box0 = step * (1 + g.below(pieces) as u32);
    let unit = Unit::of_layout(ty, interleave);
    let dim0 = if interleave == Interleave::None {
        1 + g.below(2 * box0 as u64 + step as u64)
    } else {
        1 + g.below(box0 as u64 + 2)
    };
    let mut dims = vec![dim0];
    let mut bx = vec![box0];
    for i in 1..rank {
        dims.push(1 + g.below(4));
        bx.push(if o.four_rows && i == 1 {
            1
        } else {
            1 + g.below(3) as u32
        });
    }
    let align = if interleave == Interleave::B32 {
        32
    } else {
        16
    };
    let (global_strides, _) = strides(g, dim0 * unit.global_bytes, &dims, align);
    let mut p = TensorMapParams::tiled(ty, dims, bx);
    p.global_strides = global_strides;
    p.interleave = interleave;
    p.swizzle = swizzle;
    if o.element_strides && g.below(3) == 0 {
        p.element_strides = Some((0..rank).map(|_| 1 + g.below(3) as u32).collect());
    }
    finish_map(g, &mut p);
    p
}

/// An im2col map of rank 3-5 (dimension 0 = C, 1.. = W/H/D, last = N). `store`: corners
/// lower ≥ 0 and upper ≤ 0, as `.im2col_no_offs` stores need (§9.7.9.25.5.1).
fn im2col(g: &mut SplitMix, store: bool, reduce: bool) -> TensorMapParams {
    let ty = if reduce {
        g.pick(&REDUCE_TYPES)
    } else {
        g.pick(&TYPES)
    };
    let rank = 3 + g.below(3) as usize;
    let swizzle = g.pick(&[Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128]);
    let step = per16(ty);
    let pieces = swizzle.span().map_or(4, |s| s / 16);
    let cpp = step * (1 + g.below(pieces) as u32);
    let c = cpp as u64 * (1 + g.below(2)) + step as u64 * g.below(2);
    let mut dims = vec![c];
    for _ in 0..rank - 2 {
        dims.push(1 + g.below(4));
    }
    dims.push(1 + g.below(2));
    let lower: Vec<i32> = (0..rank - 2)
        .map(|_| {
            if store {
                g.below(2) as i32
            } else {
                -(g.below(2) as i32)
            }
        })
        .collect();
    let upper: Vec<i32> = (0..rank - 2).map(|_| -(g.below(2) as i32)).collect();
    let (global_strides, _) = strides(g, c * ty.bits() / 8, &dims, 16);
    let mut p = TensorMapParams::im2col(ty, dims, lower, upper, cpp, 1 + g.below(8) as u32);
    p.global_strides = global_strides;
    p.swizzle = swizzle;
    if !store && g.below(3) == 0 {
        // Traversal strides of the spatial dimensions and of N (dimension 0 stays 1): a box
        // longer than the spatial extent wraps into N, which steps by its own stride
        // (Assumption::Im2colNStride).
        p.element_strides = Some(
            (0..rank)
                .map(|i| if i == 0 { 1 } else { 1 + g.below(2) as u32 })
                .collect(),
        );
    }
    finish_map(g, &mut p);
    p
}

/// The map if both the validator and the driver model accept it for the target.
fn accepted(p: &TensorMapParams, w: &World) -> Option<ValidatedMap> {
    tensor::predict_driver(p, w.target).ok()?;
    tensor::validate(p, w.target).ok()
}

/// Every unit inside the regions: global bytes within [`GLOBAL_BYTES`] (the map's address is 0),
/// shared bytes within [`SMEM_BYTES`].
fn fits(plan: &CopyPlan) -> bool {
    plan.transfers.iter().all(|t| {
        t.global.is_none_or(|g| g + t.global_bytes <= GLOBAL_BYTES)
            && t.smem + t.smem_bytes <= SMEM_BYTES
    })
}

pub(super) fn dim_of(rank: usize) -> Dim {
    Dim::ALL[rank.clamp(1, 5) - 1]
}

pub(super) fn imms(v: &[i32]) -> Vec<Value> {
    v.iter().map(|&x| Value::Imm(x as i64)).collect()
}

/// Tile coordinates: dimension 0 on the 16-byte grid (granules with interleave), every
/// coordinate from just before the tensor to just past it (`non_negative` for stores).
fn tile_coords(g: &mut SplitMix, p: &TensorMapParams, non_negative: bool) -> Vec<i32> {
    tile_coords_by(&mut |lo, hi| range(g, lo, hi), p, non_negative)
}

/// [`tile_coords`] with each coordinate drawn by `draw(lo, hi)` (a value in `lo..=hi`).
fn tile_coords_by(
    draw: &mut dyn FnMut(i64, i64) -> i64,
    p: &TensorMapParams,
    non_negative: bool,
) -> Vec<i32> {
    let bx = p.box_dim.clone().unwrap_or_default();
    let step = if p.interleave == Interleave::None {
        per16(p.tensor_data_type) as i64
    } else {
        1
    };
    p.global_dim
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            let b = *bx.get(i).unwrap_or(&1) as i64;
            let (s, hi) = if i == 0 {
                (step, d as i64 / step + 1)
            } else {
                (1, d as i64)
            };
            let lo = if non_negative { 0 } else { -(b / s) - 1 };
            (draw(lo, hi) * s) as i32
        })
        .collect()
}

/// im2col coordinates: channel on the 16-byte grid, the filter base inside the corners' box
/// (§5.5.4.1), N anywhere up to one past.
fn im2col_coords(g: &mut SplitMix, p: &TensorMapParams) -> Vec<i32> {
    im2col_coords_by(&mut |lo, hi| range(g, lo, hi), p)
}

/// [`im2col_coords`] with each coordinate drawn by `draw(lo, hi)`.
fn im2col_coords_by(draw: &mut dyn FnMut(i64, i64) -> i64, p: &TensorMapParams) -> Vec<i32> {
    let r = p.global_dim.len();
    let (lo, hi) = (
        p.pixel_box_lower_corner.clone().unwrap_or_default(),
        p.pixel_box_upper_corner.clone().unwrap_or_default(),
    );
    let step = per16(p.tensor_data_type) as i64;
    let mut out = vec![(draw(0, (p.global_dim[0] as i64 - 1) / step) * step) as i32];
    for s in 0..r - 2 {
        out.push(draw(lo[s] as i64, p.global_dim[s + 1] as i64 - 1 + hi[s] as i64) as i32);
    }
    out.push(draw(0, p.global_dim[r - 1] as i64) as i32);
    out
}

/// Which load shapes a draw may take.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Tile,
    Im2col,
    Gather4,
}

fn legal(w: &World, i: &Instruction) -> bool {
    i.requirement().verdict(w.target, PtxVersion::MAX_SUPPORTED) == Verdict::Legal
}

/// A fresh tensor map declaration over `global`; returns its name.
pub(super) fn declare(w: &mut World, global: &str, map: TensorMapParams) -> String {
    let name = format!("tm{}", w.memory.tensor_maps.len());
    w.memory.tensor_maps.push(TensorMapDecl {
        name: name.clone(),
        global: global.into(),
        map,
    });
    name
}

/// The cache-policy operand (the `tpolicy` parameter) when the swarm and a bit say so.
fn policy(w: &mut World, g: &mut SplitMix) -> Option<Value> {
    if !(w.swarm.features.cache_hint && bit(g)) {
        return None;
    }
    if !w.params.contains_key("tpolicy") {
        w.params.insert(
            "tpolicy".into(),
            Param::Typed {
                value: POLICY,
                ty: "b64".into(),
            },
        );
    }
    Some(Value::reg("tpolicy"))
}

pub fn episode(w: &mut World, c: &mut Chunk<'_>, dev: Option<Deviation>) -> Option<Intent> {
    let (cta, thread) = w.one(c);
    let b = c.below(w.bars.len() as u32) as usize;
    let kind = c.below(8);
    let mut g = seed(c);
    match (dev, kind) {
        (Some(_), _) | (None, 0..=3) => load::load(w, c, &mut g, cta, thread, b, dev),
        (None, 4 | 5) => store::to_global(w, &mut g, cta, thread, false),
        (None, 6) => store::to_global(w, &mut g, cta, thread, true),
        (None, _) => load::prefetch(w, &mut g, cta, thread),
    }
}
