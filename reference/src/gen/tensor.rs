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

use super::bulk::through_mbarrier;
use super::bytes::Chunk;
use super::world::World;
use super::{Deviation, Intent};
use crate::case::model::{Init, Memory, Param, Region, TensorMapDecl};
use crate::ptx::bulk::BulkOp;
use crate::ptx::common::{CtaGroup, RedOp};
use crate::ptx::operand::{Address, TensorRef, Value};
use crate::ptx::tensor::{
    self as syn, Dim, FetchMode, LoadDst, ReduceMode, TensorLoad, TensorOp, TensorPrefetch,
    TensorReduce, TensorStore, Tile, ToGlobal,
};
use crate::ptx::Instruction;
use crate::sem::exec::tensor::{copy_rule_id, encode_rejected_id, reduce_type};
use crate::sem::tensor::access::{copy_rule, CopyPlan, LoadMode, StoreMode, Unit};
use crate::sem::tensor::tensormap::{
    DataType, Interleave, L2Promotion, OobFill, SplitMix, Swizzle, TensorMapParams,
};
use crate::sem::tensor::{self, ValidatedMap};
use crate::target::{PtxVersion, Target, Verdict};

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
        g.pick(&[
            Swizzle::None,
            Swizzle::None,
            Swizzle::B32,
            Swizzle::B64,
            Swizzle::B128,
        ])
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
        // Traversal strides of the spatial dimensions (dimension 0 and N stay 1).
        p.element_strides = Some(
            (0..rank)
                .map(|i| {
                    if i == 0 || i == rank - 1 {
                        1
                    } else {
                        1 + g.below(2) as u32
                    }
                })
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
            (range(g, lo, hi) * s) as i32
        })
        .collect()
}

/// im2col coordinates: channel on the 16-byte grid, the filter base inside the corners' box
/// (§5.5.4.1), N anywhere up to one past.
fn im2col_coords(g: &mut SplitMix, p: &TensorMapParams) -> Vec<i32> {
    let r = p.global_dim.len();
    let (lo, hi) = (
        p.pixel_box_lower_corner.clone().unwrap_or_default(),
        p.pixel_box_upper_corner.clone().unwrap_or_default(),
    );
    let step = per16(p.tensor_data_type) as i64;
    let mut out = vec![(range(g, 0, (p.global_dim[0] as i64 - 1) / step) * step) as i32];
    for s in 0..r - 2 {
        out.push(range(
            g,
            lo[s] as i64,
            p.global_dim[s + 1] as i64 - 1 + hi[s] as i64,
        ) as i32);
    }
    out.push(range(g, 0, p.global_dim[r - 1] as i64) as i32);
    out
}

/// A load (or prefetch) drawn and checked by the model.
struct Load {
    params: TensorMapParams,
    map: ValidatedMap,
    dim: Dim,
    mode: FetchMode,
    plan_mode: LoadMode,
    coords: Vec<i32>,
    off: u64,
}

impl Load {
    fn tensor(&self, name: &str) -> TensorRef {
        TensorRef {
            map: name.to_string(),
            coords: imms(&self.coords),
        }
    }
}

/// Which load shapes a draw may take.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Tile,
    Im2col,
    Gather4,
}

fn draw_load(g: &mut SplitMix, w: &World, shape: Shape) -> Option<Load> {
    let (params, mode, plan_mode, coords) = match shape {
        Shape::Tile => {
            let p = tiled(
                g,
                Opts {
                    interleave: true,
                    element_strides: true,
                    ..Opts::default()
                },
            );
            let coords = tile_coords(g, &p, false);
            (
                p,
                FetchMode::Tile(if bit(g) {
                    Tile::Explicit
                } else {
                    Tile::Implicit
                }),
                LoadMode::Tile,
                coords,
            )
        }
        Shape::Gather4 => {
            let p = tiled(
                g,
                Opts {
                    four_rows: true,
                    ..Opts::default()
                },
            );
            let mut coords = tile_coords(g, &p, false);
            coords.truncate(1);
            for _ in 0..4 {
                coords.push(range(g, -1, p.global_dim[1] as i64) as i32);
            }
            (p, FetchMode::Gather4, LoadMode::Gather4, coords)
        }
        Shape::Im2col => {
            let p = im2col(g, false, false);
            let coords = im2col_coords(g, &p);
            let offsets: Vec<u16> = (0..p.global_dim.len() - 2)
                .map(|_| g.below(3) as u16)
                .collect();
            let info = offsets.iter().map(|&o| Value::Imm(o as i64)).collect();
            (
                p,
                FetchMode::Im2col(info),
                LoadMode::Im2col { offsets },
                coords,
            )
        }
    };
    let map = accepted(&params, w)?;
    let off = tensor::SMEM_ALIGN_BYTES * g.below(4) * g.below(2);
    let plan = tensor::load(&map, &plan_mode, &coords, off).ok()?;
    fits(&plan).then(|| Load {
        dim: dim_of(params.global_dim.len()),
        params,
        map,
        mode,
        plan_mode,
        coords,
        off,
    })
}

/// The fixed fallback: a 1-D box of 16 bytes at 0 (legal on every sm_90+ target).
fn fallback_load(w: &World) -> Option<Load> {
    let params = TensorMapParams::tiled(DataType::Uint8, vec![16], vec![16]);
    let map = accepted(&params, w)?;
    Some(Load {
        params,
        map,
        dim: Dim::D1,
        mode: FetchMode::Tile(Tile::Implicit),
        plan_mode: LoadMode::Tile,
        coords: vec![0],
        off: 0,
    })
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
        (Some(_), _) | (None, 0..=3) => load(w, c, &mut g, cta, thread, b, dev),
        (None, 4 | 5) => to_global(w, &mut g, cta, thread, false),
        (None, 6) => to_global(w, &mut g, cta, thread, true),
        (None, _) => prefetch(w, &mut g, cta, thread),
    }
}

/// A load through mbarrier `b`: the issuing CTA's own box buffer, or with multicast the same
/// offset in every CTA of the mask, each of whose mbarriers expects the complete-tx bytes.
fn load(
    w: &mut World,
    c: &mut Chunk<'_>,
    g: &mut SplitMix,
    cta: u32,
    thread: u32,
    b: usize,
    dev: Option<Deviation>,
) -> Option<Intent> {
    let cs = w.cluster_size();
    let blackwell = w.target.sm >= 100;
    let mut built = None;
    for attempt in 0..TRIES {
        let shape = match g.below(6) {
            0 | 1 => Shape::Im2col,
            2 if blackwell && attempt < TRIES / 2 => Shape::Gather4,
            _ => Shape::Tile,
        };
        let Some(l) = draw_load(g, w, shape) else {
            continue;
        };
        let dst = if bit(g) {
            LoadDst::SharedCta
        } else {
            LoadDst::SharedCluster
        };
        let mask = (dst == LoadDst::SharedCluster
            && shape != Shape::Gather4
            && w.swarm.features.multicast
            && cs > 1
            && bit(g))
        .then(|| {
            let m = (g.next_u64() as u32) & ((1 << cs) - 1);
            if m == 0 {
                1 << (cta % cs)
            } else {
                m
            }
        });
        let cta_group = match g.below(4) {
            _ if !blackwell || dst != LoadDst::SharedCluster => None,
            0 => Some(CtaGroup::One),
            1 if mask.is_none() && cs.is_multiple_of(2) => Some(CtaGroup::Two),
            _ => None,
        };
        let cache_policy = policy(w, g);
        let instr = TensorLoad {
            dim: l.dim,
            dst,
            mode: l.mode.clone(),
            multicast: mask.map(|m| Value::Imm(m as i64)),
            cta_group,
            cache_policy,
            dst_mem: Address::reg_off(TBUF, l.off as i64),
            tensor: l.tensor("tm"),
            mbar: World::bar_addr(b),
        };
        if legal(w, &Instruction::Tensor(TensorOp::Load(instr.clone()))) {
            built = Some((l, instr, mask));
            break;
        }
    }
    let (mut l, mut instr, mask) = match built {
        Some(x) => x,
        None => {
            let l = fallback_load(w)?;
            let instr = TensorLoad {
                dim: l.dim,
                dst: LoadDst::SharedCluster,
                mode: l.mode.clone(),
                multicast: None,
                cta_group: None,
                cache_policy: None,
                dst_mem: Address::reg_off(TBUF, 0),
                tensor: l.tensor("tm"),
                mbar: World::bar_addr(b),
            };
            (l, instr, None)
        }
    };
    let tx = tensor::complete_tx_bytes(&l.map, &l.plan_mode, &l.coords, l.off).ok()? as i64;
    let mut intent = None;
    match dev {
        Some(Deviation::Illegal) => {
            if w.target.sm < 100 {
                // §9.7.9.25.5.2: `.cta_group` is sm_100a / sm_100f (and later) only.
                instr.cta_group = Some(CtaGroup::One);
                instr.dst = LoadDst::SharedCluster;
                intent = Some(Intent::Illegal {
                    step: 0,
                    why: "`.cta_group::1` needs sm_100a/sm_100f".into(),
                });
            } else {
                // §9.7.9.25.5.2: `.multicast::cluster` only in the `.shared::cluster` syntax block.
                instr.dst = LoadDst::SharedCta;
                instr.multicast = Some(Value::Imm(1));
                instr.cta_group = None;
                intent = Some(Intent::Illegal {
                    step: 0,
                    why: "`.multicast::cluster` with a `.shared::cta` destination".into(),
                });
            }
            if legal(w, &Instruction::Tensor(TensorOp::Load(instr.clone()))) {
                intent = None;
            }
        }
        Some(Deviation::Undefined) => intent = Some(undefined(g, w.target, &mut l, &mut instr)),
        _ => {}
    }
    let name = declare(w, TSRC, l.params.clone());
    instr.tensor.map = name;
    let dests: Vec<u32> = match mask {
        Some(m) => (0..cs)
            .filter(|r| m & (1 << r) != 0)
            .map(|r| w.in_cluster(cta, r))
            .collect(),
        None => vec![cta],
    };
    let issuer = w.who(&[cta], thread);
    let mut at = 0;
    let mut issue = |w: &mut World, _: &mut Chunk<'_>, _: usize| {
        at = w.ptx(&issuer, Instruction::Tensor(TensorOp::Load(instr.clone())));
    };
    through_mbarrier(w, c, b, &dests, thread, &[tx], &mut issue);
    match intent {
        Some(Intent::Illegal { why, .. }) => Some(Intent::Illegal { step: at, why }),
        other => other,
    }
}

/// Make the load undefined: its box start off the 16-byte grid (§5.5.3.1), or its map one the
/// validator rejects (the rule the validator names; the executor classifies the first use).
fn undefined(g: &mut SplitMix, target: Target, l: &mut Load, instr: &mut TensorLoad) -> Intent {
    if l.params.interleave == Interleave::None && bit(g) {
        l.coords[0] += 1;
        if let Some(v) = instr.tensor.coords.first_mut() {
            *v = Value::Imm(l.coords[0] as i64);
        }
        if tensor::load(&l.map, &l.plan_mode, &l.coords, l.off)
            .err()
            .map(|e| e.rule)
            == Some(copy_rule::BOX_START_ALIGNED)
        {
            return Intent::Undefined {
                rule: copy_rule_id(copy_rule::BOX_START_ALIGNED),
            };
        }
        l.coords[0] -= 1;
        if let Some(v) = instr.tensor.coords.first_mut() {
            *v = Value::Imm(l.coords[0] as i64);
        }
    }
    // Map perturbations the driver would also see: an elementStride past 8, a 16-byte-breaking
    // stride, an oobFill NaN on an integer type.
    let r = l.params.global_dim.len();
    let mut p = l.params.clone();
    match g.below(3) {
        0 if r > 1 => p.global_strides[0] += 8,
        1 if !p.tensor_data_type.is_float() => p.oob_fill = OobFill::NanRequestZeroFma,
        _ => {
            let mut es = p.element_strides_or_ones();
            es[g.below(r as u64) as usize] = 9;
            p.element_strides = Some(es);
        }
    }
    match tensor::validate(&p, target) {
        Err(e) => {
            l.params = p;
            Intent::Undefined {
                rule: encode_rejected_id(e.rule),
            }
        }
        // Unreachable for these perturbations; the copy rule is the safe fallback.
        Ok(_) => {
            l.coords[0] += 1;
            Intent::Undefined {
                rule: copy_rule_id(copy_rule::BOX_START_ALIGNED),
            }
        }
    }
}

/// A store (`reduce`: a reduction) from the CTA's box buffer into [`TDST`], then commit and wait.
fn to_global(
    w: &mut World,
    g: &mut SplitMix,
    cta: u32,
    thread: u32,
    reduce: bool,
) -> Option<Intent> {
    let who = w.who(&[cta], thread);
    let blackwell = w.target.sm >= 100;
    let mut built = None;
    for attempt in 0..TRIES {
        let shape = match g.below(6) {
            0 => Shape::Im2col,
            1 if blackwell && !reduce && attempt < TRIES / 2 => Shape::Gather4,
            _ => Shape::Tile,
        };
        let (params, coords) = match shape {
            Shape::Im2col => {
                let p = im2col(g, true, reduce);
                let r = p.global_dim.len();
                let mut coords = tile_coords(
                    g,
                    &TensorMapParams {
                        box_dim: Some(vec![1; r]),
                        ..p.clone()
                    },
                    true,
                );
                coords[0] = (range(
                    g,
                    0,
                    (p.global_dim[0] as i64 - 1) / per16(p.tensor_data_type) as i64,
                ) * per16(p.tensor_data_type) as i64) as i32;
                (p, coords)
            }
            Shape::Gather4 => {
                let p = tiled(
                    g,
                    Opts {
                        four_rows: true,
                        ..Opts::default()
                    },
                );
                let mut coords = tile_coords(g, &p, true);
                coords.truncate(1);
                for _ in 0..4 {
                    coords.push(range(g, 0, p.global_dim[1] as i64 - 1) as i32);
                }
                (p, coords)
            }
            Shape::Tile => {
                let p = tiled(
                    g,
                    Opts {
                        reduce,
                        ..Opts::default()
                    },
                );
                let coords = tile_coords(g, &p, true);
                (p, coords)
            }
        };
        let Some(map) = accepted(&params, w) else {
            continue;
        };
        let plan_mode = match shape {
            Shape::Im2col => StoreMode::Im2colNoOffs,
            Shape::Gather4 => StoreMode::Scatter4,
            Shape::Tile => StoreMode::Tile,
        };
        let off = tensor::SMEM_ALIGN_BYTES * g.below(4) * g.below(2);
        let Ok(plan) = tensor::store(&map, plan_mode, &coords, off) else {
            continue;
        };
        if !fits(&plan) {
            continue;
        }
        let ops = ToGlobal {
            tensor: TensorRef {
                map: "tm".into(),
                coords: imms(&coords),
            },
            src_mem: Address::reg_off(TBUF, off as i64),
            cache_policy: policy(w, g),
        };
        let dim = dim_of(params.global_dim.len());
        let op = if reduce {
            let ops_ok: Vec<RedOp> = RedOp::ALL
                .iter()
                .copied()
                .filter(|o| reduce_type(*o, map.ty).is_some())
                .collect();
            if ops_ok.is_empty() {
                continue;
            }
            let mode = if shape == Shape::Im2col {
                ReduceMode::Im2colNoOffs
            } else {
                ReduceMode::Tile(Tile::Implicit)
            };
            TensorOp::Reduce(TensorReduce {
                dim,
                op: g.pick(&ops_ok),
                mode,
                ops,
            })
        } else {
            let mode = match shape {
                Shape::Im2col => syn::StoreMode::Im2colNoOffs,
                Shape::Gather4 => syn::StoreMode::Scatter4,
                Shape::Tile => syn::StoreMode::Tile(if bit(g) {
                    Tile::Explicit
                } else {
                    Tile::Implicit
                }),
            };
            TensorOp::Store(TensorStore { dim, mode, ops })
        };
        if legal(w, &Instruction::Tensor(op.clone())) {
            built = Some((params, op));
            break;
        }
    }
    let (params, mut op) = built?;
    let name = declare(w, TDST, params);
    match &mut op {
        TensorOp::Store(s) => s.ops.tensor.map = name,
        TensorOp::Reduce(r) => r.ops.tensor.map = name,
        _ => {}
    }
    w.ptx(&who, Instruction::Tensor(op));
    w.ptx(&who, Instruction::Bulk(BulkOp::CommitGroup));
    // §9.7.9.25.6.2: `.read` waits for the source reads only; the full wait follows.
    if bit(g) {
        w.ptx(
            &who,
            Instruction::Bulk(BulkOp::WaitGroup { read: true, n: 0 }),
        );
    }
    w.ptx(
        &who,
        Instruction::Bulk(BulkOp::WaitGroup { read: false, n: 0 }),
    );
    None
}

/// cp.async.bulk.prefetch.tensor (tile or im2col): no completion to wait for.
fn prefetch(w: &mut World, g: &mut SplitMix, cta: u32, thread: u32) -> Option<Intent> {
    for _ in 0..TRIES {
        let shape = if g.below(3) == 0 {
            Shape::Im2col
        } else {
            Shape::Tile
        };
        let Some(l) = draw_load(g, w, shape) else {
            continue;
        };
        let p = TensorPrefetch {
            dim: l.dim,
            mode: l.mode.clone(),
            cache_policy: policy(w, g),
            tensor: l.tensor("tm"),
        };
        if legal(w, &Instruction::Tensor(TensorOp::Prefetch(p.clone()))) {
            let name = declare(w, TSRC, l.params);
            let who = w.who(&[cta], thread);
            w.ptx(
                &who,
                Instruction::Tensor(TensorOp::Prefetch(TensorPrefetch {
                    tensor: TensorRef {
                        map: name,
                        ..p.tensor
                    },
                    ..p
                })),
            );
            return None;
        }
    }
    None
}
