//! Draw v2's shared-memory and tx-count choices, made without the model (issue 34): how large
//! the box buffer is against the box (tight: the box's element bytes unpadded; padded: the
//! footprint with rows padded to 16 bytes / the swizzle span / the interleave granule; loose:
//! more), how large the CTA's dynamic shared-memory allocation is against the shared image
//! (exactly it, so the buffer and the mbarrier after it end where the allocation ends; a few
//! bytes more; kilobytes more; the device's maximum), where the buffer starts (every 16-byte
//! residue mod 1024, now and then one off the 16-byte grid), and what a load's expect-tx names
//! against the copy's count.
//!
//! Every choice comes from its own stream (seeded from the seed and index apart from v1's), so
//! a v2 configuration is v1's draw plus these choices.

use super::map::Combo;
use crate::sem::tensor::tensormap::{SplitMix, TensorMapParams};
use serde::Serialize;

/// The largest dynamic shared-memory allocation of a CTA on sm_90 (227 KiB, with opt-in).
pub const SMEM_MAX: u64 = 232_448;

/// The box buffer's size against the box.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RegionSize {
    /// The box's elements, unpadded (a padded copy runs past it).
    Tight,
    /// The box's padded footprint.
    Padded,
    /// The padded footprint and more.
    Loose,
}

/// The CTA's dynamic shared-memory allocation against the shared image (buffer, mbarrier).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Allocation {
    /// Exactly the image: the buffer (and the mbarrier after it) end at the allocation's end.
    Exact,
    /// The image plus fewer than 128 bytes.
    Granule,
    /// The image plus up to 16 KiB.
    Slack,
    /// The device's maximum, [`SMEM_MAX`].
    Max,
}

/// What a load's expect-tx names against the copy's complete-tx count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tx {
    Equal,
    /// Fewer bytes (by 16 to 64, at least zero).
    Less,
    /// More bytes (by 16 to 1024).
    More,
    Zero,
    /// The count split over several expect-tx, the box enlarged toward 64 KiB or more.
    Large,
}

impl RegionSize {
    pub const ALL: [RegionSize; 3] = [RegionSize::Tight, RegionSize::Padded, RegionSize::Loose];
}
impl Allocation {
    pub const ALL: [Allocation; 4] = [
        Allocation::Exact,
        Allocation::Granule,
        Allocation::Slack,
        Allocation::Max,
    ];
}
impl Tx {
    pub const ALL: [Tx; 5] = [Tx::Equal, Tx::Less, Tx::More, Tx::Zero, Tx::Large];
}

/// Draw v2's choices of one configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Placement {
    pub size: RegionSize,
    /// Bytes a loose buffer has beyond the padded footprint.
    pub loose_by: u64,
    pub allocation: Allocation,
    /// Bytes the allocation has beyond the image (granule, slack).
    pub slack: u64,
    /// The buffer's start, mod 1024 (its `misalign` under 1024-byte alignment).
    pub base: u64,
    /// The box's rows were made narrower than their padding (swizzle or interleave).
    pub narrow: bool,
    /// The type, swizzle and interleave were set from the stratified sequence.
    pub stratified: bool,
    /// Loads only.
    pub tx: Option<Tx>,
    /// Bytes a `Less` / `More` expect-tx is off by; pieces of a `Large` one.
    pub tx_by: u64,
}

/// The stream of configuration `index`'s v2 choices.
pub(super) fn stream(seed: u64, index: u64) -> SplitMix {
    SplitMix(seed.rotate_left(17) ^ index.wrapping_mul(0xD6E8_FEB8_6659_FD93) ^ 0x5eed_0002)
}

/// Every how many indices one takes the stratified combination.
pub const STRATA_EVERY: u64 = 4;

/// The stratified combination of configuration `index`: every [`STRATA_EVERY`]th index walks
/// through all type × swizzle × interleave combinations in turn (so any run of
/// `STRATA_EVERY * Combo::COUNT` indices has each; the others keep v1's mix, which draws types
/// and swizzles sm_90 lacks rarely).
pub(super) fn combo(index: u64) -> Option<Combo> {
    index
        .is_multiple_of(STRATA_EVERY)
        .then(|| Combo::nth(index / STRATA_EVERY))
}

/// The choices of a configuration (`load`: the copy is a load).
pub(super) fn draw(h: &mut SplitMix, stratified: bool, load: bool) -> Placement {
    let size = h.pick(&RegionSize::ALL);
    let loose_by = match h.below(4) {
        0 => 16,
        1 => 128,
        2 => 1024,
        _ => 16 * (1 + h.below(256)),
    };
    let allocation = h.pick(&Allocation::ALL);
    let slack = match allocation {
        Allocation::Granule => 1 + h.below(127),
        Allocation::Slack => 128 + h.below(16 * 1024),
        _ => 0,
    };
    // Half at 1024 bytes (every swizzle's alignment), a quarter at 128 bytes, a quarter at any
    // 16-byte residue mod 1024, one in eight of those off the grid by 1, 2, 4 or 8 bytes.
    let base = match h.below(4) {
        0 | 1 => 0,
        2 => 128 * h.below(8),
        _ if h.below(8) == 0 => 16 * h.below(64) + h.pick(&[1, 2, 4, 8]),
        _ => 16 * h.below(64),
    };
    let narrow = h.below(4) == 0;
    let tx = load.then(|| h.pick(&Tx::ALL));
    let tx_by = match tx {
        Some(Tx::Less) => 16 * (1 + h.below(4)),
        Some(Tx::More) => 16 * (1 + h.below(64)),
        Some(Tx::Large) => 2 + h.below(3),
        _ => 0,
    };
    Placement {
        size,
        loose_by,
        allocation,
        slack,
        base,
        narrow,
        stratified,
        tx,
        tx_by,
    }
}

/// Bytes of the box's elements, unpadded.
pub fn unpadded(p: &TensorMapParams) -> u64 {
    let elems: u64 = match (&p.box_dim, p.channels_per_pixel, p.pixels_per_column) {
        (Some(b), _, _) if !b.is_empty() => b.iter().map(|&x| x.max(1) as u64).product(),
        (_, Some(c), Some(px)) => c.max(1) as u64 * px.max(1) as u64,
        _ => 1,
    };
    (elems * p.tensor_data_type.bits()).div_ceil(8)
}

impl Placement {
    /// The box buffer's bytes for a box of `p` at offset `off` (at least 1).
    pub fn region_bytes(&self, p: &TensorMapParams, off: u64) -> u64 {
        let b = match self.size {
            RegionSize::Tight => unpadded(p),
            RegionSize::Padded => super::box_bytes(p),
            RegionSize::Loose => super::box_bytes(p) + self.loose_by,
        };
        (off + b).max(1)
    }

    /// The allocation for a shared image of `image` bytes (within [`SMEM_MAX`] where it fits).
    pub fn allocation_bytes(&self, image: u64) -> u64 {
        match self.allocation {
            Allocation::Exact => image,
            Allocation::Granule | Allocation::Slack => (image + self.slack).min(SMEM_MAX),
            Allocation::Max => SMEM_MAX,
        }
        .max(image)
    }

    /// The expect-tx values a load names for a copy of `count` bytes: one, or several pieces.
    pub fn expect_tx(&self, count: u64) -> Vec<i64> {
        let c = count as i64;
        match self.tx {
            None | Some(Tx::Equal) => vec![c],
            Some(Tx::Less) => vec![(c - self.tx_by as i64).max(0)],
            Some(Tx::More) => vec![c + self.tx_by as i64],
            Some(Tx::Zero) => vec![0],
            Some(Tx::Large) => {
                let n = self.tx_by.max(1) as i64;
                // Pieces on the 16-byte grid, the last taking the rest.
                let piece = c / n / 16 * 16;
                let mut v = vec![piece; n as usize - 1];
                v.push(c - piece * (n - 1));
                v
            }
        }
    }
}

/// Enlarge a tile box toward `want` unpadded bytes (doubling the outer sides), keeping its padded
/// footprint within `cap`.
pub(super) fn enlarge(p: &mut TensorMapParams, want: u64, cap: u64) {
    let Some(rank) = p.box_dim.as_ref().map(Vec::len) else {
        return;
    };
    for i in (1..rank).rev() {
        while unpadded(p) < want {
            let mut q = p.clone();
            let Some(b) = q.box_dim.as_mut() else { return };
            if b[i] >= 256 {
                break;
            }
            b[i] = (b[i].max(1) * 2).min(256);
            if super::box_bytes(&q) > cap {
                return;
            }
            *p = q;
        }
    }
}

/// Narrow the box's rows below their padding: dimension 0 of a tile box (channels of an im2col
/// one) whole 16-byte pieces short of the swizzle span (a 32-, 64- or 128-byte swizzle where the
/// map has neither swizzle nor interleave, unless `keep_layout`: a stratified combination stays
/// as it is), so each row is padded to the span.
pub(super) fn narrow(h: &mut SplitMix, p: &mut TensorMapParams, keep_layout: bool) {
    use crate::sem::tensor::tensormap::{Interleave, Swizzle};
    if !keep_layout && p.swizzle == Swizzle::None && p.interleave == Interleave::None {
        p.swizzle = h.pick(&[Swizzle::B32, Swizzle::B64, Swizzle::B128]);
    }
    let pieces = p.swizzle.span().unwrap_or(32) / 16;
    let per16 = (128 / p.tensor_data_type.bits().max(1)).max(1);
    let n = (per16 * (1 + h.below(pieces.max(2) - 1))).min(256) as u32;
    match p.box_dim.as_mut() {
        Some(b) if !b.is_empty() => b[0] = n,
        _ => p.channels_per_pixel = Some(n),
    }
}
