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
//! Each configuration carries its [`ClassKey`]; the predicted outcome class comes from
//! [`predict`] (the model under a profile), kept apart from the draw.

use super::bytes::Chunk;
use super::swarm::Swarm;
use super::tensor::{bit, declare, dim_of, imms, per16, range, TBUF, TDST, TSRC};
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
    execute_silicon, execute_with, has_silicon_reading, ExecOptions, Execution, ExpectedHw, Outcome,
};
use crate::sem::profile::Profile;
use crate::sem::tensor;
use crate::sem::tensor::access::{LoadMode, Unit};
use crate::sem::tensor::tensormap::{
    DataType, Interleave, L2Promotion, OobFill, SplitMix, Swizzle, TensorMapParams,
};
use crate::target::Target;
use serde::Serialize;

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

/// What the run as a whole does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeClass {
    Completion,
    Trap,
    Hang,
    DriverRejection,
}

impl OutcomeClass {
    /// The class of how a run ended.
    pub fn of(e: &crate::case::Ending) -> OutcomeClass {
        use crate::case::Ending;
        match e {
            Ending::Completed => OutcomeClass::Completion,
            Ending::Trap { .. } => OutcomeClass::Trap,
            Ending::Timeout(_) | Ending::Watchdog(_) => OutcomeClass::Hang,
            Ending::Rejected(_) => OutcomeClass::DriverRejection,
        }
    }

    pub const ALL: [OutcomeClass; 4] = [
        OutcomeClass::Completion,
        OutcomeClass::Trap,
        OutcomeClass::Hang,
        OutcomeClass::DriverRejection,
    ];
    pub fn name(self) -> &'static str {
        match self {
            OutcomeClass::Completion => "completion",
            OutcomeClass::Trap => "trap",
            OutcomeClass::Hang => "hang",
            OutcomeClass::DriverRejection => "driver rejection",
        }
    }
}

/// The drawn classes of a configuration (the predicted outcome is [`Prediction`]'s).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClassKey {
    pub mode: Mode,
    pub rank: usize,
    pub ty: DataType,
    pub swizzle: Swizzle,
    pub interleave: Interleave,
    pub oob: Oob,
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
}

impl Config {
    /// The case: regions sized from the parameters (see the module's caps).
    pub fn build(&self) -> Case {
        let smem = (self.off + box_bytes(&self.map)).div_ceil(1024) * 1024;
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
        );
        case.name = self.name.clone();
        case
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

/// The model's prediction for a configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prediction {
    pub outcome: OutcomeClass,
    /// The UB rule id when the model calls the run undefined (none: well defined, exact bytes).
    pub rule: Option<&'static str>,
}

impl Prediction {
    pub fn well_defined(&self) -> bool {
        self.rule.is_none()
    }
    /// The `expect:` a saved case states for this prediction.
    pub fn expect(&self) -> Expect {
        match (self.outcome, self.rule) {
            (OutcomeClass::DriverRejection, _) => Expect::DriverRejects,
            (_, None) => Expect::Pass,
            (_, Some(r)) => Expect::Undefined(r.to_string()),
        }
    }
}

/// Configuration `index` of the sweep with seed `seed` (deterministic in both).
pub fn draw(seed: u64, index: u64) -> SweepCase {
    let mut g = SplitMix(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let _ = g.next_u64();
    let mode = g.pick(&Mode::ALL);
    let wanted = g.pick(&Oob::ALL);
    let mut p = draw_map(&mut g, mode, wanted == Oob::Inside);
    let off = match g.below(8) {
        0 => 16,
        1 => 1024,
        _ => 128 * g.below(4),
    };
    let (coords, offsets, oob) = draw_coords(&mut g, &p, mode, wanted);
    let key = ClassKey {
        mode,
        rank: p.global_dim.len(),
        ty: p.tensor_data_type,
        swizzle: p.swizzle,
        interleave: p.interleave,
        oob,
    };
    p.global_address = 0;
    let config = Config {
        name: format!("sweep.s{seed}.{index}.{mode:?}").to_lowercase(),
        mode,
        map: p,
        coords,
        offsets,
        off,
        build_seed: g.next_u64(),
        complete_tx: None,
    };
    SweepCase {
        case: config.build(),
        key,
        config,
    }
}

/// The model's prediction under `profile` (see [`predict_from`]).
pub fn predict(case: &Case, profile: Profile) -> Result<Prediction, String> {
    let ex = execute_with(case, ExecOptions { profile }).map_err(|e| e.to_string())?;
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
        profile: ex.profile,
    };
    execute_silicon(case, opts)
        .ok()
        .filter(|e| e.outcome == Outcome::Defined)
}

/// The prediction an execution makes: driver rejection where the driver model refuses a map
/// (the execution lists them), else what the execution expects silicon to do (A-EXEC-HW).
pub fn predict_from(ex: &Execution) -> Prediction {
    let rule = match &ex.outcome {
        Outcome::Undefined { ub, .. } => Some(ub.rule),
        Outcome::Defined => None,
    };
    let rejected = !ex.driver_rejects.is_empty();
    if rejected {
        return Prediction {
            outcome: OutcomeClass::DriverRejection,
            // The model accepts a map its driver model refuses: say so through the rule.
            rule: Some(rule.unwrap_or("tensormap.driver_rejects_accepted_map")),
        };
    }
    Prediction {
        outcome: match (rule, ex.expected_hw) {
            (None, _) | (_, ExpectedHw::Completes) => OutcomeClass::Completion,
            (_, ExpectedHw::Timeout) => OutcomeClass::Hang,
            (_, ExpectedHw::MayTrap) => OutcomeClass::Trap,
        },
        rule,
    }
}

/// A dimension length: mostly small, sometimes medium, sometimes large and odd (2^k ± 1), rarely
/// zero (which the driver must refuse).
fn dim(g: &mut SplitMix) -> u64 {
    match g.below(64) {
        0 if g.below(4) == 0 => 0,
        0 => 1,
        1..=31 => 1 + g.below(8),
        32..=47 => 1 + g.below(64),
        48..=55 => 1 + g.below(1024),
        _ => {
            let k = 4 + g.below(14);
            ((1u64 << k) as i64 + range(g, -1, 1)) as u64
        }
    }
}

/// A box length for a dimension of `d`: small, up to just past `d`, exactly `d`, the limit 256,
/// or just past it (refused).
fn box_len(g: &mut SplitMix, d: u64) -> u32 {
    match g.below(32) {
        0..=15 => 1 + g.below(d.clamp(1, 8)) as u32,
        16..=23 => 1 + g.below(d.clamp(1, 256) + 4) as u32,
        24..=27 => d.clamp(1, 256) as u32,
        28..=30 => 256,
        _ => g.pick(&[0, 257]),
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

/// Strides covering each previous extent (16-byte multiples, sometimes padded), with rare
/// deviations the driver must refuse: off the 16-byte grid, or overlapping.
fn strides(g: &mut SplitMix, p: &TensorMapParams) -> Vec<u64> {
    let gran = if p.interleave == Interleave::B32 || p.tensor_data_type.is_packed16() {
        32
    } else {
        16
    };
    let mut s = row_bytes(p).div_ceil(gran) * gran;
    let mut out = Vec::new();
    for i in 1..p.global_dim.len() {
        s += gran * g.pick(&[0, 0, 0, 1, 3]);
        let mut v = s;
        match g.below(128) {
            0 => v += 8,
            1 => v = 16,
            _ => {}
        }
        out.push(v);
        s = v.max(16) * p.global_dim[i].max(1);
    }
    out
}

/// A map of any encodable shape for `mode`, shrunk to the caps.
/// `fit`: boxes no larger than the tensor (so a box can lie inside it).
fn draw_map(g: &mut SplitMix, mode: Mode, fit: bool) -> TensorMapParams {
    // Types sm_90 lacks (packed, sm_100) rarely: they only ever meet the driver's refusal.
    let ty = loop {
        let t = g.pick(&DataType::ALL);
        if !t.is_packed16() && t != DataType::U4Align8B || g.below(12) == 0 {
            break t;
        }
    };
    let rank = if mode.im2col() {
        3 + g.below(3) as usize
    } else {
        1 + g.below(5) as usize
    };
    let mut dims: Vec<u64> = (0..rank).map(|_| dim(g)).collect();
    if mode == Mode::StoreIm2col {
        // Room for a store's window (corners inside the tensor) in the spatial dimensions.
        for d in &mut dims[1..rank - 1] {
            *d = (*d).max(3);
        }
    }
    let step = per16(ty) as u64;
    // The sm_100 atom swizzles rarely (sm_90's driver refuses them).
    let swizzle = if g.below(12) == 0 {
        g.pick(&Swizzle::ALL)
    } else {
        g.pick(&[
            Swizzle::None,
            Swizzle::None,
            Swizzle::B32,
            Swizzle::B64,
            Swizzle::B128,
        ])
    };
    let mut p = if mode.im2col() {
        let s = rank - 2;
        let lim = [1i64 << 15, 1 << 7, 1 << 4][s - 1];
        // Corners: mostly a small window around the tensor (inside it for stores, which need
        // lower ≥ 0 and upper ≤ 0), sometimes at or past the limits.
        let store = mode == Mode::StoreIm2col;
        let corner = |g: &mut SplitMix, upper: bool| -> i32 {
            (match g.below(64) {
                0 => -lim,
                1 => lim - 1,
                2 => g.pick(&[-lim - 1, lim]),
                3..=4 => range(g, -3, 3),
                _ if store && upper => range(g, -1, 0),
                _ if store => range(g, 0, 1),
                _ if upper => range(g, -1, 1),
                _ => range(g, -2, 0),
            }) as i32
        };
        let lower: Vec<i32> = (0..s).map(|_| corner(g, false)).collect();
        let upper: Vec<i32> = (0..s).map(|_| corner(g, true)).collect();
        let cpp = match g.below(8) {
            0 => g.pick(&[1, 255, 256, 257]),
            _ => (step * (1 + g.below(swizzle.span().map_or(8, |s| s / 16)))) as u32,
        };
        let ppc = match g.below(8) {
            0 => g.pick(&[0, 1024, 1025]),
            1..=2 => 1 + g.below(256) as u32,
            _ => 1 + g.below(16) as u32,
        };
        TensorMapParams::im2col(ty, dims.clone(), lower, upper, cpp, ppc)
    } else {
        let mut bx: Vec<u32> = dims
            .iter()
            .map(|&d| {
                let b = box_len(g, d);
                if fit {
                    b.min(d.max(1) as u32)
                } else {
                    b
                }
            })
            .collect();
        // Dimension 0 in whole 16-byte pieces within the swizzle span, mostly; sometimes any
        // length.
        if g.below(16) != 0 {
            let pieces = swizzle.span().map_or(8, |s| s / 16);
            bx[0] = (step * (1 + g.below(pieces))).min(256) as u32;
        }
        TensorMapParams::tiled(ty, dims.clone(), bx)
    };
    p.swizzle = swizzle;
    p.interleave = match g.below(16) {
        0 => Interleave::B16,
        1 => Interleave::B32,
        _ => Interleave::None,
    };
    if p.interleave == Interleave::B32 && g.below(4) != 0 {
        p.swizzle = Swizzle::B32;
    }
    if bit(g) {
        p.element_strides = Some(
            (0..rank)
                .map(|_| match g.below(32) {
                    0 if g.below(4) == 0 => g.pick(&[0, 9]),
                    0 => 1,
                    1..=15 => 1,
                    _ => 1 + g.below(8) as u32,
                })
                .collect(),
        );
    }
    // NaN fill on integer types (refused) now and then, on float types often.
    if g.below(if ty.is_float() { 3 } else { 32 }) == 0 {
        p.oob_fill = OobFill::NanRequestZeroFma;
    }
    p.l2_promotion = g.pick(&L2Promotion::ALL);
    // Shrink to the caps (halving keeps odd sizes odd often enough).
    loop {
        p.global_dim = dims.clone();
        p.global_strides = strides(g, &p);
        if extent(&p) <= GLOBAL_CAP {
            break;
        }
        if let Some(m) = (0..rank).max_by_key(|&i| dims[i]) {
            dims[m] = (dims[m] / 2).max(1);
        }
    }
    if let (true, Some(b)) = (fit, p.box_dim.as_mut()) {
        for (x, d) in b.iter_mut().zip(&dims) {
            *x = (*x).min((*d).max(1) as u32);
        }
    }
    while box_bytes(&p) + 1024 + 1024 > SMEM_CAP {
        if let Some(b) = p.box_dim.as_mut() {
            if let Some(m) = (0..b.len()).max_by_key(|&i| b[i]) {
                b[m] = (b[m] / 2).max(1);
            }
        } else if p.pixels_per_column.unwrap_or(1) > 1 {
            p.pixels_per_column = p.pixels_per_column.map(|x| x / 2);
        } else {
            p.channels_per_pixel = p.channels_per_pixel.map(|x| (x / 2).max(1));
        }
    }
    p
}

/// The box's extent per dimension as coordinates see it (im2col: channels, then one pixel).
fn box_extent(p: &TensorMapParams) -> Vec<i64> {
    match &p.box_dim {
        Some(b) if !b.is_empty() => b.iter().map(|&x| x.max(1) as i64).collect(),
        _ => {
            let mut v = vec![1; p.global_dim.len()];
            v[0] = p.channels_per_pixel.unwrap_or(1).max(1) as i64;
            v
        }
    }
}

/// Coordinates for a drawn situation, the im2col offsets (loads), and the situation the
/// coordinates actually give.
fn draw_coords(
    g: &mut SplitMix,
    p: &TensorMapParams,
    mode: Mode,
    wanted: Oob,
) -> (Vec<i32>, Vec<u16>, Oob) {
    let r = p.global_dim.len();
    let bx = box_extent(p);
    let dims: Vec<i64> = p.global_dim.iter().map(|&d| d as i64).collect();
    let pick_dim = g.below(r as u64) as usize;
    let offsets: Vec<u16> = if mode == Mode::LoadIm2col || mode == Mode::PrefetchIm2col {
        let bits = [16u32, 8, 5][(r - 3).min(2)];
        (0..r - 2)
            .map(|_| match g.below(16) {
                0 => ((1u32 << bits) - 1) as u16,
                _ => g.below(3) as u16,
            })
            .collect()
    } else {
        Vec::new()
    };
    // The load's offset moves the filter base: start early enough that base + offset can lie inside.
    let shift = |i: usize| offsets.get(i.wrapping_sub(1)).map_or(0, |&o| o as i64);
    let mut c: Vec<i64> = (0..r)
        .map(|i| range(g, 0, (dims[i] - bx[i] - shift(i)).max(0)))
        .collect();
    let i = pick_dim;
    match wanted {
        Oob::Inside => {}
        Oob::PartlyOutside => c[i] = range(g, (dims[i] - bx[i] + 1).max(0), dims[i] - 1).max(0),
        Oob::Negative => c[i] = range(g, -bx[i] + 1, -1).min(-1),
        Oob::FullyOutside => {
            c[i] = match g.below(4) {
                0 => -bx[i] - range(g, 0, 3),
                1 => g.pick(&[i32::MIN as i64, i32::MAX as i64 - 255]),
                _ => dims[i] + range(g, 0, 3),
            }
        }
    }
    // Dimension 0 on the 16-byte grid (whole granules with interleave), mostly.
    if p.interleave == Interleave::None && !matches!(c[0], v if v.abs() > 1 << 30) {
        let step = per16(p.tensor_data_type) as i64;
        c[0] = c[0].div_euclid(step) * step;
        if g.below(16) == 0 {
            c[0] += 1;
        }
    }
    // im2col: a spatial coordinate is the filter base (plus the load's offset); the pixels walk
    // the corners' bounding box, which reaches outside the tensor where a corner does.
    let (lower, upper) = (
        p.pixel_box_lower_corner.clone().unwrap_or_default(),
        p.pixel_box_upper_corner.clone().unwrap_or_default(),
    );
    let situation = (0..r)
        .map(|i| {
            let lo = c[i] + shift(i);
            let walks_out = mode.im2col()
                && i >= 1
                && i + 1 < r
                && (lower.get(i - 1).is_some_and(|&x| x < 0)
                    || upper.get(i - 1).is_some_and(|&x| x > 0));
            if lo >= dims[i] || lo + bx[i] <= 0 {
                Oob::FullyOutside
            } else if lo < 0 {
                Oob::Negative
            } else if lo + bx[i] > dims[i] || walks_out {
                Oob::PartlyOutside
            } else {
                Oob::Inside
            }
        })
        .max()
        .unwrap_or(Oob::Inside);
    let coords = c
        .iter()
        .map(|&v| v.clamp(i32::MIN as i64, i32::MAX as i64) as i32)
        .collect();
    (coords, offsets, situation)
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
        misalign: 0,
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
            // Sometimes an expect-tx one granule too high: the phase never completes (a hang).
            let tx = load_tx as i64 + 16 * (g.below(16) == 0) as i64;
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
            let style = [g.below(256) as u8; 4];
            let mut issue = |w: &mut World, _: &mut Chunk<'_>, _: usize| {
                w.ptx(&who, Instruction::Tensor(TensorOp::Load(instr.clone())));
            };
            super::bulk::through_mbarrier(
                &mut w,
                &mut Chunk::new(&style),
                0,
                &[0],
                0,
                &[tx],
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
        let mut seen = BTreeSet::new();
        let mut defined = 0;
        let mut n = 0;
        while seen.len() < OutcomeClass::ALL.len() && n < 2000 {
            let s = draw(7, n);
            let p = predict(&s.case, Profile::Sm90)
                .unwrap_or_else(|e| panic!("draw {n}: {e}\n{:#?}", s.case));
            defined += p.well_defined() as u32;
            seen.insert(p.outcome);
            n += 1;
        }
        assert_eq!(seen.len(), OutcomeClass::ALL.len(), "{seen:?} after {n}");
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

    /// Every case is schema-valid, within the caps, and legal for its target.
    #[test]
    fn cases_validate_within_caps() {
        for i in 0..300 {
            let s = draw(11, i);
            let text = crate::case::load::to_yaml(std::slice::from_ref(&s.case));
            let back = crate::case::load::load_str(&text, "sweep.yaml")
                .unwrap_or_else(|e| panic!("draw {i}: {e}\n{text}"));
            assert_eq!(back, vec![s.case.clone()]);
            assert!(
                crate::case::validate::illegal_step(&s.case).is_none(),
                "{text}"
            );
            assert!(s.case.memory.global[0].size <= GLOBAL_CAP);
            assert!(s.case.memory.shared[0].size <= SMEM_CAP);
            // Shrunk neighbours are cases of the same kind, within the caps too.
            for c in s.config.shrink() {
                let k = c.build();
                assert!(crate::case::validate::illegal_step(&k).is_none());
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
        let opts = ExecOptions {
            profile: Profile::Sm90,
        };
        let trap = draw(2, 4).case;
        let ex = execute_with(&trap, opts).unwrap();
        let p = predict_from(&ex);
        assert_eq!((p.outcome, p.rule), (OutcomeClass::Trap, Some(stride)));
        assert!(
            as_encoded(&trap, &ex).is_none(),
            "the copy breaks another rule"
        );

        let interleave = "tensormap.encode_rejected:interleave-32b-needs-swizzle-32b";
        for (index, rule) in [(1306, stride), (2469, interleave)] {
            let case = draw(2, index).case;
            let ex = execute_with(&case, opts).unwrap();
            let p = predict_from(&ex);
            assert_eq!((p.outcome, p.rule), (OutcomeClass::Completion, Some(rule)));
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
}
