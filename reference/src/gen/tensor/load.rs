//! Tensor loads (tile, im2col, gather4) into shared memory through an mbarrier, optionally
//! multicast or `.cta_group`, made illegal or undefined on request; and prefetches, which draw
//! their copy the same way but wait for nothing.

use super::{
    accepted, bit, declare, dim_of, fits, im2col, im2col_coords, im2col_coords_by, imms, legal,
    policy, range, tile_coords, tile_coords_by, tiled, Opts, Shape, TBUF, TRIES, TSRC,
};
use crate::gen::bulk::through_mbarrier;
use crate::gen::bytes::Chunk;
use crate::gen::world::World;
use crate::gen::{Deviation, Intent};
use crate::ptx::common::CtaGroup;
use crate::ptx::operand::{Address, TensorRef, Value};
use crate::ptx::tensor::{Dim, FetchMode, LoadDst, TensorLoad, TensorOp, TensorPrefetch, Tile};
use crate::ptx::Instruction;
use crate::sem::exec::tensor::{copy_rule_id, encode_rejected_id};
use crate::sem::tensor::access::{copy_rule, LoadMode};
use crate::sem::tensor::tensormap::{DataType, Interleave, OobFill, SplitMix, TensorMapParams};
use crate::sem::tensor::{self, ValidatedMap};
use crate::sem::ub;
use crate::target::Target;

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

/// A load through mbarrier `b`: the issuing CTA's own box buffer, or with multicast the same
/// offset in every CTA of the mask, each of whose mbarriers expects the complete-tx bytes.
pub(super) fn load(
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
    if dev.is_none() {
        value_coords(c, &mut l, &mut instr);
    }
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
        // §9.7.9.25.5.2: a `.shared::cta` destination in another CTA of the cluster (one
        // undefined such load in eight, so that the copy rules keep their share).
        Some(Deviation::Undefined)
            if instr.dst == LoadDst::SharedCta && cs > 1 && g.below(8) == 0 =>
        {
            let rank = World::other_rank(cta, cs, g.below(u64::from(cs - 1)) as u32);
            instr.dst_mem = Address::reg_off(&w.mapa("remote", TBUF, rank), l.off as i64);
            intent = Some(Intent::Undefined {
                rule: ub::TENSOR_DST_NOT_OWN_CTA.id,
            });
        }
        Some(Deviation::Undefined) => intent = Some(undefined(g, w.target, &mut l, &mut instr)),
        _ => {}
    }
    let name = declare(w, TSRC, l.params.clone());
    instr.tensor.map = name;
    let dests = w.destinations(cta, mask);
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

/// The box start as a value of the value set (a shape's coordinates were drawn with the shape,
/// to accept it): redrawn from the chunk's value stream through its value classes, kept where the
/// model plans the load as it did the shape's. Coordinates are operands the kernel reads from its
/// parameter block, and the complete-tx count follows them; a single-stream chunk keeps the
/// shape's.
fn value_coords(c: &mut Chunk<'_>, l: &mut Load, instr: &mut TensorLoad) {
    if !c.has_values() {
        return;
    }
    let mut draw = |lo: i64, hi: i64| {
        let span = u32::try_from(hi.saturating_sub(lo).max(0)).unwrap_or(u32::MAX);
        lo + c.value_range(0, span) as i64
    };
    let coords = match &l.mode {
        FetchMode::Tile(_) => tile_coords_by(&mut draw, &l.params, false),
        FetchMode::Gather4 => {
            let mut v = tile_coords_by(&mut draw, &l.params, false);
            v.truncate(1);
            for _ in 0..4 {
                v.push(draw(-1, l.params.global_dim[1] as i64) as i32);
            }
            v
        }
        FetchMode::Im2col(_) => im2col_coords_by(&mut draw, &l.params),
        // Modes the generator does not draw keep the shape's coordinates.
        FetchMode::Im2colW(_) | FetchMode::Im2colW128(_) => return,
    };
    let plans = tensor::load(&l.map, &l.plan_mode, &coords, l.off).is_ok_and(|p| fits(&p))
        && tensor::complete_tx_bytes(&l.map, &l.plan_mode, &coords, l.off).is_ok();
    if plans && coords.len() == l.coords.len() {
        l.coords = coords;
        instr.tensor.coords = imms(&l.coords);
    }
}

/// Whether the load of `l` under `mode` breaks copy rule `rule` first (the rule the executor
/// classifies a perturbation by).
fn breaks(l: &Load, mode: &LoadMode, rule: &str) -> bool {
    tensor::load(&l.map, mode, &l.coords, l.off)
        .err()
        .is_some_and(|e| e.rule == rule)
}

/// Make the load undefined: an im2col limit of its rank (ranks 4 and 5: an offset at it, or a
/// pixel-box corner one past it, which the driver refuses, §5.5.4.1), its box start off the
/// 16-byte grid (§5.5.3.1), its shared address off the 128-byte grid, or its map one the
/// validator rejects (the rule the validator names; the executor classifies the first use). The
/// im2col limits come first, half the time, so that a perturbation only ranks 4 and 5 have is
/// not crowded out by those every load has. A copy-rule perturbation that does not break its
/// rule first is undone.
fn undefined(g: &mut SplitMix, target: Target, l: &mut Load, instr: &mut TensorLoad) -> Intent {
    if let (LoadMode::Im2col { offsets }, true) = (&l.plan_mode, bit(g)) {
        let rank = offsets.len() + 2;
        if matches!(rank, 4 | 5) && bit(g) {
            let mut p = l.params.clone();
            let limit = tensor::tensormap::corner_limit_of_rank(rank as u32);
            if let Some(c) = p
                .pixel_box_lower_corner
                .as_mut()
                .and_then(|c| c.first_mut())
            {
                *c = -limit - 1;
                return refused_map(target, l, instr, p);
            }
        }
        // An offset at its rank's limit (rank 3's, 2^16, is no u16).
        let limit = (rank >= 4)
            .then(|| tensor::im2col::offset_limit_of_rank(rank))
            .and_then(|l| u16::try_from(l).ok());
        if let Some(limit) = limit {
            let mut offsets = offsets.clone();
            offsets[0] = limit;
            let plan = LoadMode::Im2col {
                offsets: offsets.clone(),
            };
            if breaks(l, &plan, copy_rule::IM2COL_OFFSETS) {
                let info: Vec<Value> = offsets.iter().map(|&o| Value::Imm(o as i64)).collect();
                l.plan_mode = plan;
                l.mode = FetchMode::Im2col(info.clone());
                instr.mode = FetchMode::Im2col(info);
                return Intent::Undefined {
                    rule: copy_rule_id(copy_rule::IM2COL_OFFSETS),
                };
            }
        }
    }
    if l.params.interleave == Interleave::None && bit(g) {
        shift_start(l, instr, 1);
        if breaks(l, &l.plan_mode, copy_rule::BOX_START_ALIGNED) {
            return Intent::Undefined {
                rule: copy_rule_id(copy_rule::BOX_START_ALIGNED),
            };
        }
        shift_start(l, instr, -1);
    }
    if bit(g) {
        // A shared address 16 bytes past the 128-byte grid (Assumption::SharedAlign128; the
        // text asks 16).
        l.off += 16;
        instr.dst_mem = Address::reg_off(TBUF, l.off as i64);
        if breaks(l, &l.plan_mode, copy_rule::SMEM_ALIGN) {
            return Intent::Undefined {
                rule: copy_rule_id(copy_rule::SMEM_ALIGN),
            };
        }
        l.off -= 16;
        instr.dst_mem = Address::reg_off(TBUF, l.off as i64);
    }
    // Map perturbations every rank can have, one drawn among those that apply to this map: a
    // 16-byte-breaking stride, an oobFill NaN on an integer type, a boxDim one past 256, an
    // elementStride past 8.
    let r = l.params.global_dim.len();
    let mut p = l.params.clone();
    let applicable: Vec<MapPerturbation> = [
        (MapPerturbation::Stride, r > 1),
        (MapPerturbation::NanFill, !p.tensor_data_type.is_float()),
        (MapPerturbation::BoxDim, p.box_dim.is_some()),
        (MapPerturbation::ElementStride, true),
    ]
    .into_iter()
    .filter_map(|(m, applies)| applies.then_some(m))
    .collect();
    match applicable[g.below(applicable.len() as u64) as usize] {
        MapPerturbation::Stride => p.global_strides[0] += 8,
        MapPerturbation::NanFill => p.oob_fill = OobFill::NanRequestZeroFma,
        MapPerturbation::BoxDim => {
            if let Some(b) = p.box_dim.as_mut().and_then(|b| b.last_mut()) {
                *b = 257;
            }
        }
        MapPerturbation::ElementStride => {
            let mut es = p.element_strides_or_ones();
            es[g.below(r as u64) as usize] = 9;
            p.element_strides = Some(es);
        }
    }
    refused_map(target, l, instr, p)
}

/// The load on map `p`, which a perturbation made one the validator refuses: undefined by the
/// rule it names.
fn refused_map(target: Target, l: &mut Load, instr: &mut TensorLoad, p: TensorMapParams) -> Intent {
    match tensor::validate(&p, target) {
        Err(e) => {
            l.params = p;
            Intent::Undefined {
                rule: encode_rejected_id(e.rule),
            }
        }
        // Unreachable for these perturbations; the copy rule is the safe fallback.
        Ok(_) => {
            shift_start(l, instr, 1);
            Intent::Undefined {
                rule: copy_rule_id(copy_rule::BOX_START_ALIGNED),
            }
        }
    }
}

/// Moves the box's dimension-0 start by `d`, in the plan and in the instruction.
fn shift_start(l: &mut Load, instr: &mut TensorLoad, d: i32) {
    l.coords[0] += d;
    if let Some(v) = instr.tensor.coords.first_mut() {
        *v = Value::Imm(l.coords[0] as i64);
    }
}

/// A tensor-map parameter the driver's encoder refuses, drawn by [`undefined`].
#[derive(Clone, Copy)]
enum MapPerturbation {
    Stride,
    NanFill,
    BoxDim,
    ElementStride,
}

/// cp.async.bulk.prefetch.tensor (tile or im2col): no completion to wait for.
pub(super) fn prefetch(w: &mut World, g: &mut SplitMix, cta: u32, thread: u32) -> Option<Intent> {
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
