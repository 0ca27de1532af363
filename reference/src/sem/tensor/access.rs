//! The copy plan of one tensor copy: which tensor element (or OOB) goes to / comes from which
//! shared-memory bytes, in order, and what the mbarrier is told. The mode modules ([`super::tile`],
//! [`super::gather`], [`super::im2col`]) list the box's slots (tensor coordinates + logical
//! shared-memory offset); this module checks the per-copy rules, bounds-checks, addresses and
//! swizzles them.

use super::assumptions::{Assumption, OOB_NAN_F16, OOB_NAN_F32, OOB_NAN_F64};
use super::swizzle::Pattern;
use super::tensormap::{
    DataType, Geometry, Im2colBox, Interleave, OobFill, Swizzle, ValidatedMap, WideMode,
};
use crate::sem::mutant::{self, Mutant as M};

/// How a data type is addressed: the smallest thing a coordinate names and a copy moves
/// ([`Assumption::SubByteUnits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unit {
    /// Tensor values per unit (dimension-0 coordinates step by this).
    pub values: u64,
    pub global_bytes: u64,
    /// Bytes the unit takes in shared memory (data + padding).
    pub smem_bytes: u64,
}

impl Unit {
    pub fn of(ty: DataType) -> Unit {
        match ty {
            DataType::U4Align8B => Unit {
                values: 2,
                global_bytes: 1,
                smem_bytes: 1,
            },
            DataType::U4Align16B => Unit {
                values: 16,
                global_bytes: 8,
                smem_bytes: 16,
            },
            DataType::U6Align16B => Unit {
                values: 16,
                global_bytes: 12,
                smem_bytes: 16,
            },
            t => Unit {
                values: 1,
                global_bytes: t.bits() / 8,
                smem_bytes: t.bits() / 8,
            },
        }
    }

    /// The unit of a layout: with interleave a whole granule whatever the type
    /// ([`Assumption::InterleaveGranuleUnits`]), otherwise [`Unit::of`] the type.
    pub fn of_layout(ty: DataType, interleave: Interleave) -> Unit {
        let _ = Assumption::InterleaveGranuleUnits;
        let granule = match interleave.granule() {
            Some(32) if mutant::on(M::Interleave32BAs16B) => Some(16),
            Some(_) if mutant::on(M::InterleaveUnitIsElement) => None,
            g => g,
        };
        match granule {
            Some(g) => Unit {
                values: 1,
                global_bytes: g,
                smem_bytes: g,
            },
            None => Unit::of(ty),
        }
    }

    /// The unit a validated map addresses.
    pub fn of_map(map: &ValidatedMap) -> Unit {
        Unit::of_layout(map.ty, map.interleave)
    }
}

/// A load mode of cp.async.bulk.tensor global→shared with its im2colInfo operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadMode {
    Tile,
    Gather4,
    /// `{i2cOffW, i2cOffH, i2cOffD}` truncated to rank − 2.
    Im2col {
        offsets: Vec<u16>,
    },
    Im2colW {
        w_halo: u16,
        w_offset: u16,
    },
    Im2colW128 {
        w_halo: u16,
        w_offset: u16,
    },
}

/// A load mode of cp.async.bulk.tensor shared::cta→global.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreMode {
    Tile,
    Scatter4,
    Im2colNoOffs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Load,
    Store,
}

/// One box position before addressing: tensor coordinates (dimension 0 in values) and the
/// byte offset from `dstMem`/`srcMem` before swizzling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    pub coords: Vec<i64>,
    pub offset: u64,
}

/// How a unit's bytes are moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conv {
    /// `global_bytes` bytes copied as is; any further `smem_bytes` are padding, left
    /// indeterminate by a load (§5.5.1.1.1 "un-initialized") and not read by a store.
    Bytes,
    /// `.b6p2x16` store: 16 shared bytes (6 data bits each) packed into 12 global bytes
    /// ([`pack_b6p2x16`]).
    PackB6P2,
    /// tf32 / tf32.ftz load: each 32-bit value rounded to tf32 ([`round_tf32`]). §5.5.1 lists
    /// ".tf32 ... (rounded to nearest even)"; observed on H100: 0x40000000|k loads as 0x40000000.
    RoundTf32,
}

/// One unit of the copy, in the order the box is traversed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// Tensor coordinates, dimension 0 first (in values).
    pub coords: Vec<i64>,
    /// Global byte address, `None` when the unit is out of the tensor's bounds.
    pub global: Option<u64>,
    /// Shared-memory address of the unit's first byte, after swizzling.
    pub smem: u64,
    pub global_bytes: u64,
    pub smem_bytes: u64,
    pub conv: Conv,
}

/// The value OOB units of a load receive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    Zero,
    /// OOB-NaN: the little-endian bytes of [`Assumption::OobNanAllOnes`]'s pattern.
    Nan {
        bytes: [u8; 8],
        width: u8,
    },
}

impl Fill {
    pub fn of(map: &ValidatedMap) -> Fill {
        if map.oob_fill == OobFill::None || mutant::on(M::OobNanFillsZero) {
            return Fill::Zero;
        }
        let _ = Assumption::OobNanAllOnes;
        let mut bytes = [0u8; 8];
        let width = match map.ty {
            DataType::Float16 | DataType::Bfloat16 => {
                bytes[..2].copy_from_slice(&OOB_NAN_F16.to_le_bytes());
                2
            }
            DataType::Float64 => {
                bytes.copy_from_slice(&OOB_NAN_F64.to_le_bytes());
                8
            }
            DataType::Float32 if mutant::on(M::OobNanF32Canonical) => {
                bytes[..4].copy_from_slice(&0x7FC0_0000u32.to_le_bytes());
                4
            }
            _ => {
                bytes[..4].copy_from_slice(&OOB_NAN_F32.to_le_bytes());
                4
            }
        };
        Fill::Nan { bytes, width }
    }
    /// The fill bytes for a unit of `n` bytes.
    pub fn bytes(self, n: u64) -> Vec<u8> {
        match self {
            Fill::Zero => vec![0; n as usize],
            Fill::Nan { bytes, width } => {
                (0..n).map(|i| bytes[(i % width as u64) as usize]).collect()
            }
        }
    }
}

/// The whole copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyPlan {
    pub direction: Direction,
    pub transfers: Vec<Transfer>,
    pub fill: Fill,
}

impl CopyPlan {
    /// complete-tx bytes of a load ([`Assumption::CompleteTxCountsWholeBox`]).
    pub fn complete_tx_bytes(&self) -> u64 {
        let _ = Assumption::CompleteTxCountsWholeBox;
        self.transfers.iter().map(|t| t.smem_bytes).sum()
    }
    pub fn oob_count(&self) -> usize {
        self.transfers.iter().filter(|t| t.global.is_none()).count()
    }
}

/// Why a copy with a valid map is still invalid (the instruction's own rules).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyError {
    pub rule: &'static str,
    pub message: String,
}

impl std::fmt::Display for CopyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.rule, self.message)
    }
}

pub(crate) fn need(
    ok: bool,
    rule: &'static str,
    message: impl FnOnce() -> String,
) -> Result<(), CopyError> {
    if ok {
        Ok(())
    } else {
        Err(CopyError {
            rule,
            message: message(),
        })
    }
}

/// Ids of the per-copy rules (checked by [`load`] / [`store`]).
pub mod copy_rule {
    /// tensorCoords has `.dim` entries (5 for gather4/scatter4) (§9.7.9.25.5.2).
    pub const COORD_COUNT: &str = "coords-count";
    /// The load mode needs a map of the matching encode kind (tile ↔ tiled, im2col ↔ im2col,
    /// im2col::w ↔ wide W, im2col::w::128 ↔ wide W128).
    pub const MODE_MATCHES_MAP: &str = "mode-matches-map";
    /// gather4/scatter4: 2D only, `boxDim[1] = 1`, no interleave (§5.5.3.4).
    pub const FOUR_ROWS: &str = "gather4-scatter4-shape";
    /// im2col offsets: rank−2 of them, within [0, 2^16−1] / [0, 2^8−1] / [0, 2^5−1] (§5.5.4.1).
    pub const IM2COL_OFFSETS: &str = "im2col-offsets-range";
    /// wHalo in [0,512) (w) / [0,32) (w::128), wOffset in [0,32) (§9.7.9.25.5.2).
    pub const W_ARGS: &str = "whalo-woffset-range";
    /// im2col: the filter base (DHW coordinates) must lie within the bounding box (§5.5.4.1);
    /// im2col::w: the first element may lie outside the box on its left side only (§5.5.5.1).
    pub const FILTER_IN_BOX: &str = "im2col-filter-base-in-box";
    /// Store: tensorCoords non-negative, im2col corners lower ≥ 0 and upper ≤ 0 (§9.7.9.25.5.1).
    pub const STORE_BOUNDS: &str = "store-coords-in-tensor";
    /// Sub-byte types: dimension-0 coordinate a multiple of 128 (packed16), of the unit otherwise (§9.7.9.25.5.1).
    pub const PACKED_COORD: &str = "packed-coord0-alignment";
    /// 16U4_ALIGN16B (.b4x16_p64) cannot be stored; the swizzle modes of spec/09 marked "Load
    /// only" / "Store only" (§9.7.9.25.5.1, spec/09).
    pub const PACKED_DIRECTION: &str = "packed-type-direction";
    /// 32B atomicity + 8B flip: loads only, not the im2col::w modes (§9.7.9.25.5.1).
    pub const FLIP_8B: &str = "flip-8b-load-not-im2col-w";
    /// Shared-memory address aligned to [`SMEM_ALIGN_BYTES`](super::SMEM_ALIGN_BYTES) (§5.5.3.1, §5.5.7 say 16, 32 / 64; 128 observed, see `Assumption::SharedAlign128`).
    pub const SMEM_ALIGN: &str = "smem-alignment";
    /// The box must fit in one CTA's shared memory ([`SMEM_MAX_BYTES`](super::SMEM_MAX_BYTES)); also keeps
    /// the plan's size bounded (a 256^5 box is a valid map).
    pub const BOX_FITS_SMEM: &str = "box-fits-shared-memory";
    /// §5.5.3.1: the box's start address (dimension-0 coordinate × element size) is a multiple of 16 bytes.
    pub const BOX_START_ALIGNED: &str = "box-start-16b-aligned";
    pub const ALL: [&str; 13] = [
        COORD_COUNT,
        MODE_MATCHES_MAP,
        FOUR_ROWS,
        IM2COL_OFFSETS,
        W_ARGS,
        FILTER_IN_BOX,
        STORE_BOUNDS,
        PACKED_COORD,
        PACKED_DIRECTION,
        FLIP_8B,
        SMEM_ALIGN,
        BOX_FITS_SMEM,
        BOX_START_ALIGNED,
    ];
}

/// Alignment a tensor copy's shared-memory address needs ([`Assumption::SharedAlign128`],
/// observed; above the 16 / 32 / 64 bytes of §5.5.3.1 and §5.5.7).
pub const SMEM_ALIGN_BYTES: u64 = 128;

/// The most shared memory one CTA can have on sm_90 / sm_100 (227 KiB of opt-in dynamic shared
/// memory); a copy whose box is larger cannot have a valid destination.
pub const SMEM_MAX_BYTES: u64 = 227 * 1024;

/// Shared-memory pitch of one box row (dimension-0 run, gather4 row, im2col pixel) of
/// `inner_bytes` bytes. Observed on H100: with a swizzle (and no interleave) each row starts on
/// its own swizzle-span line (128 B for the 128B modes; 16×f32 rows under SWIZZLE_128B land
/// every 128 bytes, the other 64 bytes untouched); without swizzle rows are dense
/// ([`Assumption::SwizzleRowPitchIsSpan`]).
pub fn row_pitch(map: &ValidatedMap, inner_bytes: u64) -> u64 {
    let _ = Assumption::SwizzleRowPitchIsSpan;
    match (map.interleave, map.swizzle.span()) {
        (Interleave::None, Some(span)) if !mutant::on(M::SwizzleRowsDense) => inner_bytes.max(span),
        _ => inner_bytes,
    }
}

/// §5.5.3.1: "The address of the bounding Box must also be aligned to 16 bytes": the
/// dimension-0 start coordinate must be a multiple of 16 bytes. Observed on H100: a tile load
/// at x = 1 of an f32 tensor traps (CUDA_ERROR_ILLEGAL_INSTRUCTION); x = −4 works.
pub(crate) fn box_start_aligned(map: &ValidatedMap, c0: i64) -> Result<(), CopyError> {
    // With interleave the coordinate counts 16/32-byte granules (Assumption::InterleaveGranuleUnits): always aligned.
    let bits = if interleaved(map) {
        0
    } else {
        c0.unsigned_abs().saturating_mul(map.ty.bits())
    };
    let unchecked = mutant::on(M::BoxStartUnchecked);
    need(
        bits % 128 == 0 || unchecked,
        copy_rule::BOX_START_ALIGNED,
        || {
            format!(
                "dimension-0 coordinate {c0} of {} is not a multiple of 16 bytes",
                map.ty
            )
        },
    )
}

/// Reject boxes of `units` units of `unit` that cannot fit in shared memory.
pub(crate) fn box_fits(units: u64, unit: Unit) -> Result<(), CopyError> {
    let bytes = units.checked_mul(unit.smem_bytes);
    need(
        bytes.is_some_and(|b| b <= SMEM_MAX_BYTES),
        copy_rule::BOX_FITS_SMEM,
        || {
            format!(
                "{units} units of {} bytes exceed {SMEM_MAX_BYTES} bytes of shared memory",
                unit.smem_bytes
            )
        },
    )
}

/// Plan a load (`cp.async.bulk.tensor.*.shared::{cta,cluster}.global`) into `dst` (shared address).
pub fn load(
    map: &ValidatedMap,
    mode: &LoadMode,
    coords: &[i32],
    dst: u64,
) -> Result<CopyPlan, CopyError> {
    common_checks(map, Direction::Load, dst)?;
    let flip = map.swizzle == Swizzle::B128Atom32BFlip8B;
    let slots = match mode {
        LoadMode::Tile => super::tile::slots(map, coords)?,
        LoadMode::Gather4 => super::gather::slots(map, coords)?,
        LoadMode::Im2col { offsets } => super::im2col::slots(map, coords, offsets)?,
        LoadMode::Im2colW { w_halo, w_offset } | LoadMode::Im2colW128 { w_halo, w_offset } => {
            need(!flip, copy_rule::FLIP_8B, || {
                "32B+8B-flip swizzle with an im2col::w mode".into()
            })?;
            let want = if matches!(mode, LoadMode::Im2colW { .. }) {
                WideMode::W
            } else {
                WideMode::W128
            };
            super::im2col::wide_slots(map, coords, want, *w_halo, *w_offset)?
        }
    };
    Ok(finish(map, Direction::Load, slots, dst))
}

/// Check a prefetch (`cp.async.bulk.prefetch.tensor`): the box is formed as a load forms it
/// (§9.7.9.25.5.4 names the same tensor map, coordinates and load mode), so every rule of a
/// load that is not about the shared-memory destination applies. A-TENSOR-PREFETCH-BOX: the
/// text lists no separate restrictions; observed on H100 (sweeps of 2026-11-25), a prefetch
/// traps exactly where a load of the same box is undefined: seed 2, 10,000 configurations,
/// tile prefetches with a box start not 16-byte aligned 58 of 58 trapped, the other 870
/// completed; im2col prefetches breaking a load rule 252 of 252 trapped, the other 570
/// completed (seed 3: 13 / 349, 120 / 222).
pub fn prefetch(map: &ValidatedMap, mode: &LoadMode, coords: &[i32]) -> Result<(), CopyError> {
    // No destination: an aligned stand-in keeps the destination rules quiet.
    load(map, mode, coords, 0).map(|_| ())
}

/// Plan a store (`cp.async.bulk.tensor.*.global.shared::cta`) from `src` (shared address).
pub fn store(
    map: &ValidatedMap,
    mode: StoreMode,
    coords: &[i32],
    src: u64,
) -> Result<CopyPlan, CopyError> {
    common_checks(map, Direction::Store, src)?;
    need(
        map.swizzle != Swizzle::B128Atom32BFlip8B,
        copy_rule::FLIP_8B,
        || "32B+8B-flip swizzle on a store".into(),
    )?;
    need(
        coords.iter().all(|&c| c >= 0),
        copy_rule::STORE_BOUNDS,
        || format!("store coordinates {coords:?}"),
    )?;
    let slots = match mode {
        StoreMode::Tile => super::tile::slots(map, coords)?,
        StoreMode::Scatter4 => super::gather::slots(map, coords)?,
        StoreMode::Im2colNoOffs => {
            if let Geometry::Im2col {
                corners: Im2colBox::Full { lower, upper },
                ..
            } = &map.geometry
            {
                need(
                    lower.iter().all(|&c| c >= 0) && upper.iter().all(|&c| c <= 0),
                    copy_rule::STORE_BOUNDS,
                    || format!("store with corners lower {lower:?} upper {upper:?}"),
                )?;
            }
            let zeros = vec![0; map.rank.saturating_sub(2)];
            super::im2col::slots(map, coords, &zeros)?
        }
    };
    Ok(finish(map, Direction::Store, slots, src))
}

/// complete-tx bytes a load reports to its mbarrier.
pub fn complete_tx_bytes(
    map: &ValidatedMap,
    mode: &LoadMode,
    coords: &[i32],
    dst: u64,
) -> Result<u64, CopyError> {
    load(map, mode, coords, dst).map(|p| p.complete_tx_bytes())
}

fn common_checks(map: &ValidatedMap, dir: Direction, smem: u64) -> Result<(), CopyError> {
    let _ = Assumption::SharedAlign128;
    let align = if mutant::on(M::SmemAlign16) {
        16
    } else {
        SMEM_ALIGN_BYTES
    };
    need(smem.is_multiple_of(align), copy_rule::SMEM_ALIGN, || {
        format!("shared address {smem:#x} not {align}-byte aligned")
    })?;
    if dir == Direction::Store {
        need(
            map.ty != DataType::U4Align16B,
            copy_rule::PACKED_DIRECTION,
            || "16U4_ALIGN16B (.b4x16_p64) cannot be stored".into(),
        )?;
    } else {
        // spec/09: 16U6_ALIGN16B with 128B_ATOM_64B is "Store only".
        need(
            !(map.ty == DataType::U6Align16B && map.swizzle == Swizzle::B128Atom64B),
            copy_rule::PACKED_DIRECTION,
            || "16U6_ALIGN16B with 128B_ATOM_64B is store only".into(),
        )?;
    }
    Ok(())
}

/// Check the dimension-0 coordinate of a sub-byte type.
pub(crate) fn packed_coord0(map: &ValidatedMap, c0: i64) -> Result<(), CopyError> {
    let unit = Unit::of(map.ty);
    let m = if map.ty.is_packed16() {
        128
    } else {
        unit.values as i64
    };
    need(c0.rem_euclid(m) == 0, copy_rule::PACKED_COORD, || {
        format!(
            "dimension-0 coordinate {c0} of {} not a multiple of {m}",
            map.ty
        )
    })
}

fn finish(map: &ValidatedMap, dir: Direction, slots: Vec<Slot>, smem_base: u64) -> CopyPlan {
    let unit = Unit::of_map(map);
    let pat = Pattern::from(map.swizzle);
    let _ = Assumption::SwizzleOnAbsoluteAddress;
    let conv = match (dir, map.ty) {
        (Direction::Store, DataType::U6Align16B) => Conv::PackB6P2,
        // Only loads were probed; stores are assumed bit-exact (Assumption::BitExactTransit).
        (Direction::Load, DataType::Tfloat32 | DataType::Tfloat32Ftz) => Conv::RoundTf32,
        _ => Conv::Bytes,
    };
    // Stores clip dimension 0 at the tensor's inner extent rounded up to 16 bytes
    // ([`Assumption::StoreClips16ByteGranules`], observed on H100); loads at the element.
    let _ = Assumption::StoreClips16ByteGranules;
    let dim0_limit = match dir {
        Direction::Load => map.global_dim[0] as i64,
        Direction::Store if mutant::on(M::StoreClipsAtElement) => map.global_dim[0] as i64,
        Direction::Store => {
            let bytes = (map.global_dim[0] / unit.values * unit.global_bytes).div_ceil(16) * 16;
            (bytes / unit.global_bytes * unit.values) as i64
        }
    };
    // The swizzle permutes 16-byte chunks, so a unit wider than 16 bytes (a 32B interleave
    // granule) moves as 16-byte pieces, each placed by its own address.
    let pieces = unit.smem_bytes.div_ceil(16).max(1);
    let piece = unit.smem_bytes / pieces;
    let transfers = slots
        .into_iter()
        .flat_map(|s| {
            let inside = s
                .coords
                .iter()
                .zip(&map.global_dim)
                .enumerate()
                .all(|(i, (&c, &d))| {
                    let (w, limit) = if i == 0 {
                        (unit.values as i64, dim0_limit)
                    } else {
                        (1, d as i64)
                    };
                    if i > 0 && mutant::on(M::OobOnlyDim0) {
                        return true;
                    }
                    let limit = limit + i64::from(mutant::on(M::OobUpperBoundInclusive));
                    (c >= 0 || mutant::on(M::OobNegativeInBounds)) && c + w <= limit
                });
            let global = inside.then(|| {
                // In-bound coordinates are < 2^32 and strides < 2^40: wrap like the 64-bit address
                // arithmetic rather than panic on the (absurd) overflowing maps.
                let mut a = map.global_address.wrapping_add(
                    (s.coords[0] as u64 / unit.values).wrapping_mul(unit.global_bytes),
                );
                for i in 1..map.rank {
                    a = a.wrapping_add((s.coords[i] as u64).wrapping_mul(map.byte_strides[i]));
                }
                a
            });
            (0..pieces).map(move |k| {
                let (global_bytes, smem_bytes) = if pieces == 1 {
                    (unit.global_bytes, unit.smem_bytes)
                } else {
                    (piece, piece)
                };
                let global = global.map(|g| g.wrapping_add(k * piece));
                Transfer {
                    coords: s.coords.clone(),
                    global,
                    smem: if mutant::on(M::SwizzleOnBoxOffset) {
                        smem_base + pat.apply(s.offset + k * piece)
                    } else {
                        pat.apply(smem_base + s.offset + k * piece)
                    },
                    global_bytes,
                    smem_bytes,
                    conv,
                }
            })
        })
        .collect();
    CopyPlan {
        direction: dir,
        transfers,
        fill: Fill::of(map),
    }
}

/// f32 → tf32 (10 mantissa bits), round to nearest even; infinities pass unchanged, NaN becomes
/// the canonical tf32 NaN.
pub fn round_tf32(x: u32) -> u32 {
    if x & 0x7F80_0000 == 0x7F80_0000 {
        // Hardware decided (H100, 2026-11-21, cases/tensor/gen/load_tile.yaml `*.tfloat32.*`): a
        // NaN arrives as the canonical tf32 NaN 0x7FFFE000 (sign and payload dropped); infinities
        // pass unchanged.
        return if x & 0x007F_FFFF != 0 { 0x7FFF_E000 } else { x };
    }
    if mutant::on(M::Tf32Truncates) {
        return x & !0x1FFF;
    }
    let lsb = (x >> 13) & 1;
    x.wrapping_add(0xFFF + lsb) & !0x1FFF
}

/// `.b6p2x16` → packed U6 ([`Assumption::B6PackLsbFirst`]).
pub fn pack_b6p2x16(smem: &[u8; 16]) -> [u8; 12] {
    let mut bits: u128 = 0;
    for (i, &b) in smem.iter().enumerate() {
        bits |= ((b & 0x3F) as u128) << (6 * i);
    }
    let mut out = [0u8; 12];
    out.copy_from_slice(&bits.to_le_bytes()[..12]);
    out
}

/// Execute a load plan on plain byte arrays (`global[0]` is address `global_base`, `smem[0]` is
/// `smem_base`). Padding bytes are left as they were. For tests and simple executors.
pub fn apply_load(
    plan: &CopyPlan,
    global: &[u8],
    global_base: u64,
    smem: &mut [u8],
    smem_base: u64,
) -> Result<(), String> {
    for t in &plan.transfers {
        let d = (t.smem.checked_sub(smem_base).ok_or("smem below base")?) as usize;
        let src = match t.global {
            Some(g) => {
                let g = (g.checked_sub(global_base).ok_or("global below base")?) as usize;
                let bytes = global
                    .get(g..g + t.global_bytes as usize)
                    .ok_or("global out of range")?;
                match t.conv {
                    Conv::RoundTf32 => bytes
                        .chunks(4)
                        .flat_map(|w| {
                            round_tf32(u32::from_le_bytes([w[0], w[1], w[2], w[3]])).to_le_bytes()
                        })
                        .collect(),
                    _ => bytes.to_vec(),
                }
            }
            None => plan.fill.bytes(t.global_bytes),
        };
        smem.get_mut(d..d + src.len())
            .ok_or("smem out of range")?
            .copy_from_slice(&src);
    }
    Ok(())
}

/// Execute a store plan on plain byte arrays (OOB units are dropped, [`Assumption::StoreClips16ByteGranules`]).
pub fn apply_store(
    plan: &CopyPlan,
    smem: &[u8],
    smem_base: u64,
    global: &mut [u8],
    global_base: u64,
) -> Result<(), String> {
    for t in &plan.transfers {
        let Some(g) = t.global else { continue };
        let s = (t.smem.checked_sub(smem_base).ok_or("smem below base")?) as usize;
        let g = (g.checked_sub(global_base).ok_or("global below base")?) as usize;
        let data: Vec<u8> = match t.conv {
            Conv::Bytes | Conv::RoundTf32 => smem
                .get(s..s + t.global_bytes as usize)
                .ok_or("smem out of range")?
                .to_vec(),
            Conv::PackB6P2 => {
                let mut b = [0u8; 16];
                b.copy_from_slice(smem.get(s..s + 16).ok_or("smem out of range")?);
                pack_b6p2x16(&b).to_vec()
            }
        };
        global
            .get_mut(g..g + data.len())
            .ok_or("global out of range")?
            .copy_from_slice(&data);
    }
    Ok(())
}

/// True when `map` has interleave (used by the four-row modes' checks).
pub(crate) fn interleaved(map: &ValidatedMap) -> bool {
    map.interleave != Interleave::None
}
