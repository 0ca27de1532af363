//! The random truth sweep: one tensor map and one tensor copy per configuration, drawn over the
//! whole parameter space — maps the driver rejects, copies the model calls undefined and
//! well-defined ones alike — so that silicon can be compared with the model's prediction.
//!
//! Unlike [`super::tensor`] (always valid, the model filters every draw), nothing here asks the
//! model: the model is what the sweep tests. What is bounded is size, so that every byte the
//! hardware could write lands in a region the harness dumps with canaries around it:
//! - the global tensor region is the map's full extent (the highest byte any in-bound element can
//!   occupy, from the drawn dims and strides), at most [`GLOBAL_CAP`];
//! - the shared box buffer holds the largest box the drawn parameters allow (rows padded to 16
//!   bytes, to the swizzle span or the interleave granule, element strides ignored) plus the
//!   destination offset, at most [`SMEM_CAP`].
//!
//! Draws that would exceed a cap are shrunk (the largest dimension halved) before the map is
//! built, so the caps shape the space rather than filter it.
//!
//! Draw v1 sizes the box buffer by the box's padded footprint rounded up to 1 KiB and launches
//! with the shared image as the allocation: a copy never leaves its region, the way the model
//! thinks of memory. Draw v2 ([`Draw::V2`], [`placement`]) is v1's draw plus choices made without
//! the model: buffers tight / padded / loose around the box, allocations from exactly the image
//! up to the device's [`SMEM_MAX`], buffer starts at every 16-byte residue mod 1024 and some off
//! the grid, rows narrower than their padding, every type × swizzle × interleave, and a load's
//! expect-tx equal to, below, above the copy's count, zero, or split over several. Writes past
//! the buffer stay inside the CTA's allocation (or trap): shared memory holds nothing the
//! harness needs but the buffer and the mbarrier, both read back.
//!
//! Each configuration carries its [`ClassKey`]; the prediction comes from [`predict`] (the
//! model under a profile: the outcomes silicon may end in, [`exec::Prediction`]), kept apart
//! from the draw.

use super::bytes::Chunk;
use super::swarm::Swarm;
use super::tensor::{bit, declare, dim_of, imms, TBUF, TDST, TSRC};
use super::world::World;
use super::GenConfig;
use crate::case::model::{Case, Expect, Init, Region};
use crate::ptx::bulk::BulkOp;
use crate::ptx::common::RedOp;
use crate::ptx::operand::{Address, TensorRef, Value};
use crate::ptx::tensor::{
    self as syn, FetchMode, LoadDst, ReduceMode, TensorLoad, TensorOp, TensorPrefetch,
    TensorReduce, TensorStore, Tile, ToGlobal,
};
use crate::ptx::Instruction;
use crate::sem::exec::tensor::reduce_type;
use crate::sem::exec::{
    self, execute_silicon, execute_with, has_silicon_reading, ExecOptions, Execution, HwOutcome,
    Outcome,
};
use crate::sem::profile::Profile;
use crate::sem::tensor;
use crate::sem::tensor::access::{LoadMode, Unit};
use crate::sem::tensor::tensormap::{
    DataType, Interleave, L2Promotion, OobFill, SplitMix, Swizzle, TensorMapParams,
};
use crate::target::Target;
use serde::Serialize;

mod map;
pub mod placement;

pub use map::Combo;
pub use placement::{Placement, SMEM_MAX};

/// Largest global tensor region (bytes).
pub const GLOBAL_CAP: u64 = 256 * 1024;
/// Largest shared box buffer (bytes; above 48 KiB the harness opts the kernel in).
pub const SMEM_CAP: u64 = 96 * 1024;

/// What the copy does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    LoadTile,
    LoadIm2col,
    StoreTile,
    StoreIm2col,
    ReduceTile,
    PrefetchTile,
    PrefetchIm2col,
}

impl Mode {
    pub const ALL: [Mode; 7] = [
        Mode::LoadTile,
        Mode::LoadIm2col,
        Mode::StoreTile,
        Mode::StoreIm2col,
        Mode::ReduceTile,
        Mode::PrefetchTile,
        Mode::PrefetchIm2col,
    ];
    fn im2col(self) -> bool {
        matches!(
            self,
            Mode::LoadIm2col | Mode::StoreIm2col | Mode::PrefetchIm2col
        )
    }
    fn load(self) -> bool {
        matches!(self, Mode::LoadTile | Mode::LoadIm2col)
    }
    fn to_global(self) -> bool {
        matches!(self, Mode::StoreTile | Mode::StoreIm2col | Mode::ReduceTile)
    }
}

/// Where the box lies against the tensor (nominal: from the coordinates, the box / pixel window
/// and the dims, before any model rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Oob {
    Inside,
    PartlyOutside,
    Negative,
    FullyOutside,
}

impl Oob {
    pub const ALL: [Oob; 4] = [
        Oob::Inside,
        Oob::PartlyOutside,
        Oob::Negative,
        Oob::FullyOutside,
    ];
}

/// Which draw a configuration comes from (a record without one is v1's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Default)]
pub enum Draw {
    #[default]
    V1,
    V2,
}

impl Draw {
    /// The draw numbered `n` (1 or 2).
    pub fn of(n: u8) -> Option<Draw> {
        match n {
            1 => Some(Draw::V1),
            2 => Some(Draw::V2),
            _ => None,
        }
    }
    pub fn number(self) -> u8 {
        match self {
            Draw::V1 => 1,
            Draw::V2 => 2,
        }
    }
}

/// The drawn classes of a configuration (the prediction is [`Predicted`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClassKey {
    pub mode: Mode,
    pub rank: usize,
    pub ty: DataType,
    pub swizzle: Swizzle,
    pub interleave: Interleave,
    pub oob: Oob,
    /// Draw v2's choices (absent: draw v1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement: Option<Placement>,
}

/// One configuration of the sweep.
#[derive(Clone, Debug)]
pub struct SweepCase {
    pub case: Case,
    pub key: ClassKey,
    /// What the case was built from (for shrinking).
    pub config: Config,
}

/// The drawn choices a case is built from ([`Config::build`]); [`Config::shrink`] gives smaller
/// neighbours for minimizing a disagreement.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub name: String,
    pub mode: Mode,
    pub map: TensorMapParams,
    pub coords: Vec<i32>,
    /// im2col load / prefetch offsets.
    pub offsets: Vec<u16>,
    /// Destination (loads) or source (stores) offset in the box buffer.
    pub off: u64,
    /// Seed of the remaining choices (data, mbarrier style, expect-tx bump, redOp).
    pub build_seed: u64,
    /// The complete-tx bytes a load's expect-tx names; `None`: the model's count (a drawn
    /// configuration). A replay sets the count its record ran with, so that it rebuilds the
    /// program that ran although the model's count has changed since.
    pub complete_tx: Option<u64>,
    /// Draw v2's choices (absent: draw v1).
    pub placement: Option<Placement>,
}

impl Config {
    /// The case: regions sized from the parameters (see the module's caps).
    pub fn build(&self) -> Case {
        let smem = match &self.placement {
            None => (self.off + box_bytes(&self.map)).div_ceil(1024) * 1024,
            Some(pl) => pl.region_bytes(&self.map, self.off),
        };
        let global = extent(&self.map).clamp(16, GLOBAL_CAP).div_ceil(128) * 128;
        let mut p = self.map.clone();
        // A map the executor sees at its region's address; the sweep draws none misaligned.
        p.global_address = 0;
        let mut case = build(
            &mut SplitMix(self.build_seed),
            self.mode,
            p,
            self.coords.clone(),
            self.offsets.clone(),
            self.off,
            (smem, global),
            self.load_tx().unwrap_or(0),
            self.placement.as_ref(),
        );
        case.name = self.name.clone();
        if let (Some(pl), Ok(l)) = (&self.placement, crate::layout::Layout::of(&case)) {
            case.memory.shared_allocation = Some(pl.allocation_bytes(l.shared_bytes));
        }
        case
    }

    /// The draw this configuration comes from.
    pub fn draw(&self) -> Draw {
        if self.placement.is_some() {
            Draw::V2
        } else {
            Draw::V1
        }
    }

    /// The complete-tx bytes the case's load expects (`None` for the other modes): the one set,
    /// else the model's count where it plans the copy, else the whole box (the hardware's count
    /// is then the question the run answers).
    pub fn load_tx(&self) -> Option<u64> {
        let plan_mode = match self.mode {
            Mode::LoadTile => LoadMode::Tile,
            Mode::LoadIm2col => LoadMode::Im2col {
                offsets: self.offsets.clone(),
            },
            _ => return None,
        };
        Some(self.complete_tx.unwrap_or_else(|| {
            tensor::validate(&self.map, Target::SM_90)
                .ok()
                .and_then(|m| {
                    tensor::complete_tx_bytes(&m, &plan_mode, &self.coords, self.off).ok()
                })
                .unwrap_or_else(|| box_bytes(&self.map))
        }))
    }

    /// Smaller neighbours, one change each: a dimension, a box side, a coordinate or an offset
    /// halved, a parameter back to its default.
    pub fn shrink(&self) -> Vec<Config> {
        let mut out = Vec::new();
        let mut push = |f: &dyn Fn(&mut Config)| {
            let mut c = self.clone();
            f(&mut c);
            if c != *self {
                out.push(c);
            }
        };
        for i in 0..self.map.global_dim.len() {
            push(&|c| c.map.global_dim[i] = (c.map.global_dim[i] / 2).max(1));
            push(&|c| c.coords[i] /= 2);
            push(&|c| {
                if let Some(b) = c.map.box_dim.as_mut() {
                    b[i] = (b[i] / 2).max(1);
                }
            });
        }
        for i in 0..self.offsets.len() {
            push(&|c| c.offsets[i] /= 2);
        }
        push(&|c| c.map.element_strides = None);
        push(&|c| c.map.swizzle = Swizzle::None);
        push(&|c| c.map.l2_promotion = L2Promotion::None);
        push(&|c| c.map.oob_fill = OobFill::None);
        push(&|c| c.off = 0);
        push(&|c| c.map.pixels_per_column = c.map.pixels_per_column.map(|x| (x / 2).max(1)));
        out
    }
}

/// The model's prediction for a configuration: the outcomes silicon may end in, and the UB rule
/// that makes the run undefined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Predicted {
    pub outcomes: exec::Prediction,
    /// The UB rule id when the model calls the run undefined (none: well defined, exact bytes).
    pub rule: Option<&'static str>,
}

impl Predicted {
    pub fn well_defined(&self) -> bool {
        self.rule.is_none()
    }
    /// The `expect:` a saved case states for this prediction.
    pub fn expect(&self) -> Expect {
        match self.rule {
            _ if self.outcomes.allows(HwOutcome::Refused) => Expect::DriverRejects,
            None => Expect::Pass,
            Some(r) => Expect::Undefined(r.to_string()),
        }
    }
}

/// Configuration `index` of draw v1 with seed `seed` (deterministic in both).
pub fn draw(seed: u64, index: u64) -> SweepCase {
    draw_as(Draw::V1, seed, index)
}

/// Configuration `index` of draw `version` with seed `seed` (deterministic in all three). V2 makes
/// v1's draws, the type, swizzle and interleave of every other index set from the stratified
/// sequence, and adds its own choices from a stream of its own.
pub fn draw_as(version: Draw, seed: u64, index: u64) -> SweepCase {
    let mut g = SplitMix(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let _ = g.next_u64();
    let mode = g.pick(&Mode::ALL);
    let wanted = g.pick(&Oob::ALL);
    let v2 = version == Draw::V2;
    let force = if v2 { placement::combo(index) } else { None };
    let mut p = map::draw_map(&mut g, mode, wanted == Oob::Inside, force);
    let off = match g.below(8) {
        0 => 16,
        1 => 1024,
        _ => 128 * g.below(4),
    };
    let mut h = placement::stream(seed, index);
    let pl = v2.then(|| placement::draw(&mut h, force.is_some(), mode.load()));
    if let Some(pl) = &pl {
        if pl.narrow {
            placement::narrow(&mut h, &mut p, pl.stratified);
        }
        if pl.tx == Some(placement::Tx::Large) {
            placement::enlarge(&mut p, 64 * 1024, SMEM_MAX - 8192);
        }
        // Narrowed rows pad to the span: the footprint may grow past v1's cap; the device's
        // maximum still holds the buffer (with its offsets, loose bytes and the mbarrier).
        map::shrink_box(&mut p, SMEM_MAX - 8192);
    }
    let (coords, offsets, oob) = map::draw_coords(&mut g, &p, mode, wanted);
    let key = ClassKey {
        mode,
        rank: p.global_dim.len(),
        ty: p.tensor_data_type,
        swizzle: p.swizzle,
        interleave: p.interleave,
        oob,
        placement: pl.clone(),
    };
    p.global_address = 0;
    let prefix = if v2 { "sweep2" } else { "sweep" };
    let config = Config {
        name: format!("{prefix}.s{seed}.{index}.{mode:?}").to_lowercase(),
        mode,
        map: p,
        coords,
        offsets,
        off,
        build_seed: g.next_u64(),
        complete_tx: None,
        placement: pl,
    };
    SweepCase {
        case: config.build(),
        key,
        config,
    }
}

/// The model's prediction under `profile` (see [`predict_from`]).
pub fn predict(case: &Case, profile: Profile) -> Result<Predicted, String> {
    let ex = execute_with(case, ExecOptions::of(profile)).map_err(|e| e.to_string())?;
    Ok(predict_from(&ex))
}

/// The execution through the case's maps as the driver encodes them, when `ex` stopped at a map
/// that breaks only rules the driver does not enforce and that execution is well defined: its
/// bytes are what silicon is predicted to leave (A-TENSOR-ACCEPTED-MAP-HW).
pub fn as_encoded(case: &Case, ex: &Execution) -> Option<Execution> {
    if !has_silicon_reading(ex) {
        return None;
    }
    let opts = ExecOptions {
        mutant: ex.mutant,
        ..ExecOptions::of(ex.profile)
    };
    execute_silicon(case, opts)
        .ok()
        .filter(|e| e.outcome == Outcome::Defined)
}

/// The prediction an execution makes (A-EXEC-HW): its outcome set (a refusal where the driver
/// model refuses a map), with its UB rule.
pub fn predict_from(ex: &Execution) -> Predicted {
    let rule = match &ex.outcome {
        Outcome::Undefined { ub, .. } => Some(ub.rule),
        Outcome::Defined => None,
    };
    let rule = match rule {
        // The model accepts a map its driver model refuses: say so through the rule.
        None if !ex.driver_rejects.is_empty() => Some("tensormap.driver_rejects_accepted_map"),
        r => r,
    };
    Predicted {
        outcomes: ex.prediction.clone(),
        rule,
    }
}

/// Bytes of dimension 0's row in global memory.
fn row_bytes(p: &TensorMapParams) -> u64 {
    let u = Unit::of_layout(p.tensor_data_type, p.interleave);
    p.global_dim[0].div_ceil(u.values) * u.global_bytes
}

/// One past the highest byte an in-bound element occupies (the map's address is 0).
pub fn extent(p: &TensorMapParams) -> u64 {
    let mut top = row_bytes(p);
    for (i, s) in p.global_strides.iter().enumerate() {
        let d = p.global_dim.get(i + 1).copied().unwrap_or(1);
        top = top.saturating_add(d.saturating_sub(1).saturating_mul(*s));
    }
    top
}

/// Bytes of the largest box the parameters can put into shared memory.
pub fn box_bytes(p: &TensorMapParams) -> u64 {
    let ty = p.tensor_data_type;
    let pad = |elems: u64| {
        let u = Unit::of_layout(ty, p.interleave);
        let raw = elems.div_ceil(u.values) * u.smem_bytes;
        raw.div_ceil(16)
            .max(1)
            .saturating_mul(16)
            .max(p.swizzle.span().unwrap_or(0))
            .max(p.interleave.granule().unwrap_or(0))
    };
    match (&p.box_dim, p.channels_per_pixel, p.pixels_per_column) {
        (Some(b), _, _) if !b.is_empty() => {
            let rows: u64 = b[1..].iter().map(|&x| x.max(1) as u64).product();
            pad(b[0].max(1) as u64).saturating_mul(rows)
        }
        (_, Some(c), Some(px)) => pad(c.max(1) as u64).saturating_mul(px.max(1) as u64),
        _ => 16,
    }
}

/// The case: one CTA, one thread issuing, the tensor region, the box buffer, one mbarrier.
#[allow(clippy::too_many_arguments)]
fn build(
    g: &mut SplitMix,
    mode: Mode,
    p: TensorMapParams,
    coords: Vec<i32>,
    offsets: Vec<u16>,
    off: u64,
    (smem, global): (u64, u64),
    load_tx: u64,
    pl: Option<&Placement>,
) -> Case {
    let cfg = GenConfig {
        targets: vec![Target::SM_90],
        max_ctas: 1,
        max_cluster: 1,
        max_threads: 32,
        ..GenConfig::default()
    };
    let mut w = World::new(&mut Chunk::new(&[]), &cfg, Swarm::none());
    let seed = g.next_u64() & 0xffff;
    // Reductions read and write typed values: fills keep floats finite (no NaN payloads).
    let (src_init, dst_init) = if mode == Mode::ReduceTile {
        (Init::Fill(0x21), Init::Fill(0x13))
    } else {
        (Init::Pattern(seed), Init::Fill(0x5a))
    };
    let gname = if mode.to_global() { TDST } else { TSRC };
    w.memory.global = vec![Region {
        name: gname.into(),
        size: global,
        align: 128,
        misalign: 0,
        init: if mode.to_global() {
            dst_init.clone()
        } else {
            Init::Pattern(seed)
        },
    }];
    w.memory.shared = vec![Region {
        name: TBUF.into(),
        size: smem,
        align: 1024,
        misalign: pl.map_or(0, |p| p.base),
        init: if mode.to_global() { src_init } else { dst_init },
    }];
    let rank = p.global_dim.len();
    let ty = p.tensor_data_type;
    let name = declare(&mut w, gname, p.clone());
    let tref = TensorRef {
        map: name,
        coords: imms(&coords),
    };
    let dim = dim_of(rank);
    let who = w.who(&[0], 0);
    let tile = || {
        if bit(&mut SplitMix(coords.len() as u64)) {
            Tile::Explicit
        } else {
            Tile::Implicit
        }
    };
    let fetch = if mode.im2col() {
        FetchMode::Im2col(offsets.iter().map(|&o| Value::Imm(o as i64)).collect())
    } else {
        FetchMode::Tile(tile())
    };
    match mode {
        Mode::LoadTile | Mode::LoadIm2col => {
            // v1: sometimes an expect-tx one granule too high (the phase never completes); v2:
            // what its placement says.
            let bump = 16 * (g.below(16) == 0) as i64;
            let per = match pl {
                None => vec![load_tx as i64 + bump],
                Some(pl) => pl.expect_tx(load_tx),
            };
            let instr = TensorLoad {
                dim,
                dst: LoadDst::SharedCluster,
                mode: fetch,
                multicast: None,
                cta_group: None,
                cache_policy: None,
                dst_mem: Address::reg_off(TBUF, off as i64),
                tensor: tref,
                mbar: World::bar_addr(0),
            };
            let mut style = g.below(256) as u8;
            if per.len() > 1 {
                // A split count: each piece its own expect-tx (the third of through_mbarrier's
                // styles, chosen by the first byte mod 3).
                style = style % 85 * 3 + 2;
            }
            let style = [style; 4];
            // One copy, after the last expect-tx.
            let last = per.len() - 1;
            let mut issue = |w: &mut World, _: &mut Chunk<'_>, i: usize| {
                if i == last {
                    w.ptx(&who, Instruction::Tensor(TensorOp::Load(instr.clone())));
                }
            };
            super::bulk::through_mbarrier(
                &mut w,
                &mut Chunk::new(&style),
                0,
                &[0],
                0,
                &per,
                &mut issue,
            );
        }
        Mode::PrefetchTile | Mode::PrefetchIm2col => {
            w.ptx(
                &who,
                Instruction::Tensor(TensorOp::Prefetch(TensorPrefetch {
                    dim,
                    mode: fetch,
                    cache_policy: None,
                    tensor: tref,
                })),
            );
        }
        Mode::StoreTile | Mode::StoreIm2col | Mode::ReduceTile => {
            let ops = ToGlobal {
                tensor: tref,
                src_mem: Address::reg_off(TBUF, off as i64),
                cache_policy: None,
            };
            let op = match mode {
                Mode::ReduceTile => {
                    let ok: Vec<RedOp> = RedOp::ALL
                        .iter()
                        .copied()
                        .filter(|o| reduce_type(*o, ty).is_some())
                        .collect();
                    // No op fits the type: any op (the model calls the pair undefined).
                    let op = if ok.is_empty() {
                        g.pick(&RedOp::ALL)
                    } else {
                        g.pick(&ok)
                    };
                    TensorOp::Reduce(TensorReduce {
                        dim,
                        op,
                        mode: ReduceMode::Tile(tile()),
                        ops,
                    })
                }
                Mode::StoreIm2col => TensorOp::Store(TensorStore {
                    dim,
                    mode: syn::StoreMode::Im2colNoOffs,
                    ops,
                }),
                _ => TensorOp::Store(TensorStore {
                    dim,
                    mode: syn::StoreMode::Tile(tile()),
                    ops,
                }),
            };
            w.ptx(&who, Instruction::Tensor(op));
            w.ptx(&who, Instruction::Bulk(BulkOp::CommitGroup));
            w.ptx(
                &who,
                Instruction::Bulk(BulkOp::WaitGroup { read: false, n: 0 }),
            );
        }
    }
    let mut case = w.finish(&super::Intent::WellDefined);
    case.expect = None;
    case.description = "random truth sweep configuration".into();
    if pl.is_some() && !mode.load() {
        // v2: only a load uses its mbarrier; without one the buffer is the image's end, so an
        // exact allocation ends where the buffer does.
        case.memory.mbarriers.clear();
    }
    case
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Over 2,000 draws every value of every drawn class dimension occurs.
    #[test]
    fn covers_every_class_value() {
        let keys: Vec<ClassKey> = (0..2000).map(|i| draw(7, i).key).collect();
        let count = |f: &dyn Fn(&ClassKey) -> String| {
            keys.iter().map(f).collect::<BTreeSet<String>>().len()
        };
        assert_eq!(count(&|k| format!("{:?}", k.mode)), Mode::ALL.len());
        assert_eq!(count(&|k| k.rank.to_string()), 5);
        assert_eq!(count(&|k| format!("{:?}", k.ty)), DataType::ALL.len());
        assert_eq!(count(&|k| format!("{:?}", k.swizzle)), Swizzle::ALL.len());
        assert_eq!(count(&|k| format!("{:?}", k.interleave)), 3);
        assert_eq!(count(&|k| format!("{:?}", k.oob)), Oob::ALL.len());
    }

    /// Every predicted outcome class occurs early in a seed's sequence, each draw executes on the
    /// reference, and well-defined ones are a sizeable share (the sweep is not all rejections).
    #[test]
    fn predicts_every_outcome_class() {
        use crate::sem::exec::OutcomeClass;
        let all = [
            OutcomeClass::Completes,
            OutcomeClass::Hangs,
            OutcomeClass::Traps,
            OutcomeClass::Refused,
        ];
        let mut seen = BTreeSet::new();
        let mut defined = 0;
        let mut n = 0;
        while seen.len() < all.len() && n < 2000 {
            let s = draw(7, n);
            let p = predict(&s.case, Profile::Sm90)
                .unwrap_or_else(|e| panic!("draw {n}: {e}\n{:#?}", s.case));
            defined += p.well_defined() as u32;
            seen.extend(p.outcomes.outcomes().map(HwOutcome::class));
            n += 1;
        }
        assert_eq!(seen.len(), all.len(), "{seen:?} after {n}");
        assert!(defined * 5 >= n as u32, "{defined} of {n} well defined");
    }

    #[test]
    fn deterministic_per_seed() {
        for i in 0..50 {
            assert_eq!(draw(3, i).case, draw(3, i).case);
            assert_eq!(draw(3, i).key, draw(3, i).key);
            let s = draw(3, i);
            assert_eq!(s.config.build(), s.case);
        }
        assert!((0..50).any(|i| draw(3, i).case != draw(4, i).case));
    }

    /// Draw `i`'s case survives a YAML round trip and is legal for its target; its YAML.
    fn round_trips_legal(case: &Case, i: u64) -> String {
        let text = crate::case::load::to_yaml(std::slice::from_ref(case));
        let back = crate::case::load::load_str(&text, "sweep.yaml")
            .unwrap_or_else(|e| panic!("draw {i}: {e}\n{text}"));
        assert_eq!(back, vec![case.clone()]);
        assert!(
            crate::case::validate::illegal_steps(case).is_empty(),
            "{text}"
        );
        text
    }

    /// Every case is schema-valid, within the caps, and legal for its target.
    #[test]
    fn cases_validate_within_caps() {
        for i in 0..300 {
            let s = draw(11, i);
            round_trips_legal(&s.case, i);
            assert!(s.case.memory.global[0].size <= GLOBAL_CAP);
            assert!(s.case.memory.shared[0].size <= SMEM_CAP);
            // Shrunk neighbours are cases of the same kind, within the caps too.
            for c in s.config.shrink() {
                let k = c.build();
                assert!(crate::case::validate::illegal_steps(&k).is_empty());
                assert!(k.memory.shared[0].size <= SMEM_CAP);
                assert!(k.memory.global[0].size <= GLOBAL_CAP);
            }
        }
    }
    /// A-TENSOR-ACCEPTED-MAP-HW on configurations of the H100 sweep of seed 2, maps the driver
    /// encodes against the text. Index 4 (strides that do not cover the previous dimension)
    /// trapped: its store is also from a shared address not aligned to its 128B swizzle span.
    /// Indices 1306 (a reduction through such strides) and 2469 (a store through an interleave
    /// 32B map with 64B swizzle) completed, leaving in the global tensor exactly the bytes of the
    /// map as encoded.
    #[test]
    fn accepted_maps_run_as_encoded() {
        let stride = "tensormap.encode_rejected:global-stride-covers-previous";
        let opts = ExecOptions::of(Profile::Sm90);
        let trap = draw(2, 4).case;
        let ex = execute_with(&trap, opts).unwrap();
        let p = predict_from(&ex);
        assert!(p.outcomes.has_class(crate::sem::exec::OutcomeClass::Traps));
        assert_eq!(p.rule, Some(stride));
        assert!(
            as_encoded(&trap, &ex).is_none(),
            "the copy breaks another rule"
        );

        let interleave = "tensormap.encode_rejected:interleave-32b-needs-swizzle-32b";
        for (index, rule) in [(1306, stride), (2469, interleave)] {
            let case = draw(2, index).case;
            let ex = execute_with(&case, opts).unwrap();
            let p = predict_from(&ex);
            assert_eq!(
                (p.outcomes, p.rule),
                (exec::Prediction::one(HwOutcome::Completes), Some(rule))
            );
            let enc = as_encoded(&case, &ex).expect("well defined through the map as encoded");
            let dst = &case.memory.global[0];
            let init = dst.init.materialize(dst.size).unwrap();
            let changed = enc.final_state.global[&dst.name]
                .iter()
                .zip(&init)
                .filter(|(b, i)| **b != crate::sem::memory::Byte::Known(**i))
                .count();
            assert!(
                changed > 1000,
                "{index}: {changed} bytes land in the global tensor"
            );
        }
    }

    /// Draw v2 reaches every class of its own dimensions: every type × swizzle × interleave
    /// within `STRATA_EVERY * Combo::COUNT` indices, every region size, allocation and tx
    /// situation, every 16-byte base residue mod 1024 and some off the grid, narrow rows, loads
    /// expecting 65,536 bytes or more; every allocation holds the image and stays within the
    /// device's maximum, one above 48 KiB among them.
    #[test]
    fn v2_draws_reach_every_class() {
        use placement::{Allocation, RegionSize, Tx, STRATA_EVERY};
        let n = STRATA_EVERY * Combo::COUNT as u64;
        let draws: Vec<SweepCase> = (0..n).map(|i| draw_as(Draw::V2, 9, i)).collect();
        let pls: Vec<&Placement> = draws
            .iter()
            .map(|d| d.config.placement.as_ref().expect("a v2 draw"))
            .collect();
        let combos: BTreeSet<String> = draws
            .iter()
            .map(|d| format!("{:?}", (d.key.ty, d.key.swizzle, d.key.interleave)))
            .collect();
        assert_eq!(combos.len(), Combo::COUNT);
        let set =
            |f: &dyn Fn(&Placement) -> String| pls.iter().map(|p| f(p)).collect::<BTreeSet<_>>();
        assert_eq!(
            set(&|p| format!("{:?}", p.size)).len(),
            RegionSize::ALL.len()
        );
        assert_eq!(
            set(&|p| format!("{:?}", p.allocation)).len(),
            Allocation::ALL.len()
        );
        let txs = set(&|p| format!("{:?}", p.tx));
        assert_eq!(txs.len(), Tx::ALL.len() + 1, "{txs:?}");
        let grid: BTreeSet<u64> = pls.iter().map(|p| p.base).filter(|b| b % 16 == 0).collect();
        assert_eq!(grid.len(), 64);
        assert!(pls.iter().any(|p| p.base % 16 != 0));
        assert!(draws.iter().any(|d| {
            d.config.placement.as_ref().is_some_and(|p| p.narrow)
                && box_bytes(&d.config.map) > placement::unpadded(&d.config.map)
        }));
        // The split count arrives as several expect-tx instructions.
        let yaml = |d: &SweepCase| crate::case::load::to_yaml(std::slice::from_ref(&d.case));
        assert!(draws
            .iter()
            .filter(|d| d
                .config
                .placement
                .as_ref()
                .is_some_and(|p| p.tx == Some(Tx::Large)))
            .all(|d| yaml(d).matches("expect_tx").count() >= 2));
        let large = draws.iter().filter(|d| {
            let tx = d.config.placement.as_ref().zip(d.config.load_tx());
            tx.is_some_and(|(p, c)| {
                p.expect_tx(c).len() > 1 && p.expect_tx(c).iter().sum::<i64>() >= 65_536
            })
        });
        assert!(large.count() > 0);
        let mut above_48k = 0;
        for d in &draws {
            let l = crate::layout::Layout::of(&d.case).expect("a valid layout");
            assert!(l.shared_allocation >= l.shared_bytes && l.shared_allocation <= SMEM_MAX);
            above_48k += (l.shared_allocation > 48 * 1024) as u32;
            assert!(d.case.memory.global[0].size <= GLOBAL_CAP);
        }
        assert!(above_48k > 0);
        let exact = draws
            .iter()
            .find(|d| d.config.placement.as_ref().map(|p| p.allocation) == Some(Allocation::Exact));
        let l = crate::layout::Layout::of(&exact.expect("an exact allocation").case).unwrap();
        assert_eq!(l.shared_allocation, l.shared_bytes);
        // A copy from shared memory has no mbarrier: its buffer ends where the allocation ends
        // (to the 16 bytes the image rounds to); a load's mbarrier follows its buffer.
        let mut ends = 0;
        for d in &draws {
            let (Some(p), true) = (&d.config.placement, d.config.mode.to_global()) else {
                continue;
            };
            if p.allocation == Allocation::Exact {
                let buf = &d.case.memory.shared[0];
                let end = buf.misalign + buf.size;
                assert_eq!(d.case.memory.shared_allocation, Some(end.div_ceil(16) * 16));
                ends += (end % 16 == 0) as u32;
            }
        }
        assert!(ends > 0);
    }

    /// Draw v2's cases are schema-valid (through YAML and back), legal, rebuilt from their
    /// configuration, and the model predicts each (no panic, no error).
    #[test]
    fn v2_cases_validate_and_execute() {
        for i in 0..200 {
            let s = draw_as(Draw::V2, 13, i);
            assert!(s.case.name.starts_with("sweep2.s13."));
            let text = round_trips_legal(&s.case, i);
            assert_eq!(s.config.build(), s.case);
            predict(&s.case, Profile::Sm90).unwrap_or_else(|e| panic!("draw {i}: {e}\n{text}"));
        }
    }

    /// A v2 configuration is v1's draw plus its own choices: where v2 neither stratifies nor
    /// narrows, the map, coordinates and offsets are v1's.
    #[test]
    fn v2_extends_v1() {
        let mut same = 0;
        for i in 0..100 {
            let (a, b) = (draw(5, i).config, draw_as(Draw::V2, 5, i).config);
            let pl = b.placement.as_ref().expect("a v2 draw");
            assert!(a.placement.is_none());
            if !pl.stratified && !pl.narrow && pl.tx != Some(placement::Tx::Large) {
                assert_eq!(
                    (&a.map, &a.coords, &a.offsets, a.off),
                    (&b.map, &b.coords, &b.offsets, b.off)
                );
                same += 1;
            }
        }
        assert!(same > 30);
    }
}
