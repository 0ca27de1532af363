//! `tcgen05.cp` (§9.7.16.9.2): shared memory → Tensor Memory placement, multicast, `.cta_group::2`,
//! and the optional decompression (§9.7.16.9.1).
//!
//! # Derivation (the manual gives the placement only as "lane x size" and in figures)
//!
//! A shape `.Rx{128,256}b` moves R rows of 128 or 256 bits (§9.7.16.2.3: "lane indicates the
//! number of rows in the Tensor Memory; size indicates the amount of data ... across the
//! columns"). 256 bits per lane are 8 columns of 32-bit cells, 128 bits are 4.
//!
//! The source is read through the shared-memory descriptor as a canonical layout in units of
//! 128-bit elements (T = 1): row `r` (0..R) and 16-byte chunk `c` (0..size/128). `tcgen05.cp` has
//! no instruction descriptor to choose the major-ness, so the rows are taken as the stride
//! dimension (8-row core matrices, SBO apart) and the 16-byte chunks as the leading dimension
//! (LBO apart without swizzle, contiguous within the swizzle atom row otherwise): the K-major
//! canonical layout of §9.7.16.3.3 ([`Assumption::SourceIsKMajor`], address function
//! [`SmemDesc::kmajor_chunk_addr`]).
//!
//! Chunk `c` of row `r` lands in columns `col0 + 4c .. col0 + 4c + 3` of the lane(s) receiving
//! row `r`; word `w` of the chunk (bytes `4w..4w+3`, little-endian) is column `col0 + 4c + w`
//! ([`Assumption::ChunkWordsLittleEndian`]).
//!
//! Lanes receiving row `r` (`lane0` = taddr's lane):
//! - `.128x256b`, `.128x128b`, `.4x256b`: lane `lane0 + r` ([`Assumption::RowsFromTaddrLane`]).
//! - `.64x128b.warpx2::02_13`: pairs {0,2} and {1,3} each receive the whole 64 rows, each warp of a
//!   pair half of them: rows 0-31 go to the first warp of each pair (warps 0 and 1), rows 32-63 to
//!   the second (warps 2 and 3); row `r` → lanes `32·w + r%32` ([`Assumption::WarpPairHalvesByRow`]).
//! - `.64x128b.warpx2::01_23`: pairs {0,1} and {2,3}: rows 0-31 → warps 0 and 2, rows 32-63 →
//!   warps 1 and 3.
//! - `.32x128b.warpx4`: row `r` → lanes `r`, `32 + r`, `64 + r`, `96 + r`.
//!
//! Multicast shapes address whole warp quarters, so taddr's lane must be 0
//! ([`Assumption::MulticastLaneZero`]).
//!
//! Decompression (§9.7.16.9.1): a 16-byte source chunk holds 16 × 4-bit elements + 8 bytes of
//! padding, or 16 × 6-bit elements + 4 bytes of padding, and becomes 16 × 8-bit elements: again 16
//! bytes, so the placement above is unchanged and applies per chunk ([`Assumption::DecompressPerChunk`]).

use super::desc::SmemDesc;
use super::tmem::{Cell, CellWrite, TAddr, Tmem, COLUMNS, LANES};
use crate::ptx::common::CtaGroup;
use crate::ptx::tcgen05::{Cp, CpShape, Multicast, SrcFmt};
use crate::sem::mutant::{self, Mutant as M};
use crate::sem::ub::Ub;
use crate::sem::ub::{
    TCGEN05_CP_COLUMN_RANGE, TCGEN05_CP_LANE_RANGE, TCGEN05_CP_MULTICAST_LANE,
    TCGEN05_CP_PEER_INACTIVE, TCGEN05_CP_SHAPE_MULTICAST, TCGEN05_CP_SMEM_RANGE,
};

/// Positions taken where the manual gives the fact only in a figure or not at all. Each is an
/// open question for hardware (reports/tcgen05-open-questions.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Assumption {
    /// The descriptor is read as the K-major canonical layout, rows = lanes (stride dimension),
    /// 16-byte chunks = columns (leading dimension).
    SourceIsKMajor,
    /// Word `w` of a 16-byte chunk = its bytes `4w..4w+3` little-endian, in column `col0 + 4c + w`.
    ChunkWordsLittleEndian,
    /// Non-multicast shapes put row `r` in lane `taddr.lane + r`; any start lane is allowed as
    /// long as every lane is below 128.
    RowsFromTaddrLane,
    /// Multicast shapes (`.64x128b`, `.32x128b`) need taddr's lane to be 0.
    MulticastLaneZero,
    /// `.warpx2`: the two 32-row halves of the 64 rows go to the two warps of each pair (lower
    /// half to the lower-numbered warp).
    WarpPairHalvesByRow,
    /// `.cta_group::2`: both CTAs receive the bytes read from the *issuing* CTA's shared memory
    /// (the literal reading of "the data is copied into the Tensor Memory of both the current and
    /// the peer CTAs"). [`PeerSource::OwnSmem`] is the alternative.
    PeerGetsIssuerData,
    /// No alignment is required of taddr's column; every column must be below 512 and allocated.
    ColumnUnaligned,
    /// Decompression maps each 16-byte source chunk to a 16-byte destination chunk.
    DecompressPerChunk,
    /// `.b4x16_p64`: element `i` is bits `4i..4i+3` of the chunk read as a little-endian integer
    /// (byte `i/2`, low nibble first); the 8 padding bytes are bytes 8..15.
    Fp4ElementOrder,
    /// `.b6x16_p32`: element `i` is bits `6i..6i+5` of the chunk read as a little-endian integer;
    /// the 4 padding bytes are bytes 12..15.
    Fp6ElementOrder,
    /// A 4-bit element sits in bits 2..5 of its 8-bit container and a 6-bit element in bits
    /// 2..7, the other bits zero (Figures 195, 197, 198 are not available as text).
    ContainerShift2,
    /// The LBO mode bit does not affect tcgen05.cp: absolute mode is only legal with 128B
    /// swizzling, where the K-major layout does not use LBO.
    LboModeIrrelevant,
}

/// Where the peer CTA's copy (`.cta_group::2`) reads its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PeerSource {
    /// [`Assumption::PeerGetsIssuerData`]: the issuing CTA's shared memory, for both CTAs.
    #[default]
    IssuerSmem,
    /// Each CTA's Tensor Memory receives the same descriptor's data from its own shared memory.
    OwnSmem,
}

/// The value-level form of a tcgen05.cp (the qualifiers, without operands).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CpForm {
    pub cta: CtaGroup,
    pub shape: CpShape,
    pub multicast: Option<Multicast>,
    pub decompress: Option<SrcFmt>,
}

impl CpForm {
    pub fn of(cp: &Cp) -> CpForm {
        CpForm {
            cta: cp.cta,
            shape: cp.shape,
            multicast: cp.multicast,
            decompress: cp.decompress,
        }
    }
    /// Rows (source rows = destination lanes per warp copy) of the shape.
    pub fn rows(self) -> u32 {
        match self.shape {
            CpShape::S128x256b | CpShape::S128x128b => 128,
            CpShape::S4x256b => 4,
            CpShape::S64x128b => 64,
            CpShape::S32x128b => 32,
        }
    }
    /// 16-byte chunks per row.
    pub fn chunks(self) -> u32 {
        match self.shape {
            CpShape::S128x256b | CpShape::S4x256b if !mutant::on(M::Tcgen05WideShapeOneChunk) => 2,
            _ => 1,
        }
    }
    /// §9.7.16.9.2 "Some of the .shape qualifiers require certain .multicast qualifiers": the
    /// syntax model rejects the others statically; an executor handed one gets UB, not a panic.
    fn check(self) -> Result<(), Ub> {
        let ok = match (self.shape, self.multicast) {
            (CpShape::S64x128b, Some(Multicast::Warpx2_01_23 | Multicast::Warpx2_02_13)) => true,
            (CpShape::S32x128b, Some(Multicast::Warpx4)) => true,
            (CpShape::S64x128b | CpShape::S32x128b, _) | (_, Some(_)) => false,
            _ => true,
        };
        if ok {
            Ok(())
        } else {
            Err(Ub::new(
                &TCGEN05_CP_SHAPE_MULTICAST,
                format!(
                    "shape .{} with multicast {:?}",
                    self.shape.ptx(),
                    self.multicast
                ),
            ))
        }
    }
    /// The lanes receiving source row `row`, given taddr's lane.
    pub fn lanes_of_row(self, lane0: u32, row: u32) -> Vec<u32> {
        let (h, i) = (row / 32, row % 32);
        let swapped = mutant::on(M::Tcgen05MulticastPairsSwapped);
        let multicast = match self.multicast {
            Some(Multicast::Warpx2_02_13) if swapped => Some(Multicast::Warpx2_01_23),
            Some(Multicast::Warpx2_01_23) if swapped => Some(Multicast::Warpx2_02_13),
            m => m,
        };
        let warps: Vec<u32> = match multicast {
            None => return vec![lane0 + row],
            Some(Multicast::Warpx4) => vec![0, 1, 2, 3],
            // pairs {0,2},{1,3}: half h goes to warp h·2 of pair A and h·2+1 of pair B.
            Some(Multicast::Warpx2_02_13) => vec![2 * h, 2 * h + 1],
            // pairs {0,1},{2,3}: half h goes to warp h of pair A and 2+h of pair B.
            Some(Multicast::Warpx2_01_23) => vec![h, 2 + h],
        };
        warps.into_iter().map(|w| lane0 + 32 * w + i).collect()
    }
}

/// Which CTA's Tensor Memory a cell belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dest {
    Own,
    Peer,
}

/// One destination cell and where its 32 bits come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Placement {
    pub dest: Dest,
    pub lane: u32,
    pub column: u32,
    pub row: u32,
    pub chunk: u32,
    /// 0..4: the word of the 16-byte (destination) chunk.
    pub word: u32,
    /// Byte address (shared::cta offset) of the 16-byte source chunk.
    pub chunk_addr: u32,
}

/// Every destination cell of the copy, with its source chunk. UB: bad shape/multicast, lanes or
/// columns outside Tensor Memory, multicast with a non-zero lane.
pub fn placements(form: CpForm, taddr: u32, desc: &SmemDesc) -> Result<Vec<Placement>, Ub> {
    form.check()?;
    let t = TAddr::from_u32(taddr);
    if form.multicast.is_some() && t.lane != 0 {
        // Assumption::MulticastLaneZero
        return Err(Ub::new(
            &TCGEN05_CP_MULTICAST_LANE,
            format!("multicast copy to lane {}: must start at lane 0", t.lane),
        ));
    }
    let last_lane = form
        .multicast
        .map(|_| LANES - 1)
        .unwrap_or(t.lane + form.rows() - 1);
    if last_lane >= LANES {
        return Err(Ub::new(
            &TCGEN05_CP_LANE_RANGE,
            format!(
                ".{} at lane {} reaches lane {last_lane}",
                form.shape.ptx(),
                t.lane
            ),
        ));
    }
    let last_col = t.column + 4 * form.chunks() - 1;
    if last_col >= COLUMNS {
        return Err(Ub::new(
            &TCGEN05_CP_COLUMN_RANGE,
            format!(
                ".{} at column {} reaches column {last_col}",
                form.shape.ptx(),
                t.column
            ),
        ));
    }
    let dests: &[Dest] = match form.cta {
        CtaGroup::One => &[Dest::Own],
        CtaGroup::Two => &[Dest::Own, Dest::Peer],
    };
    let mut out = Vec::new();
    for row in 0..form.rows() {
        for chunk in 0..form.chunks() {
            let chunk_addr = desc.kmajor_chunk_addr(row, chunk).ok_or_else(|| {
                Ub::new(
                    &TCGEN05_CP_SMEM_RANGE,
                    format!("source chunk ({row}, {chunk}) leaves the address space"),
                )
            })?;
            for lane in form.lanes_of_row(t.lane, row) {
                for word in 0..4 {
                    for &dest in dests {
                        out.push(Placement {
                            dest,
                            lane,
                            column: t.column + 4 * chunk + word,
                            row,
                            chunk,
                            word,
                            chunk_addr,
                        });
                    }
                }
            }
        }
    }
    Ok(out)
}

/// A shared-memory address outside the CTA's window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfWindow;

/// A shared-memory window the copy reads (shared::cta offsets): `Err` outside the window (UB),
/// `Ok(None)` for a byte whose value is undefined.
pub trait SmemView {
    fn byte(&self, addr: u32) -> Result<Option<u8>, OutOfWindow>;
    /// The 16 bytes from `addr`; `Err` names the first byte outside the window. A view whose
    /// byte reads are costly answers a chunk at once.
    fn chunk(&self, addr: u32) -> Result<[Option<u8>; 16], u32> {
        chunk_bytewise(self, addr)
    }
}

/// [`SmemView::chunk`] from its byte reads.
pub fn chunk_bytewise<V: SmemView + ?Sized>(v: &V, addr: u32) -> Result<[Option<u8>; 16], u32> {
    let mut b = [None; 16];
    for (i, slot) in b.iter_mut().enumerate() {
        let a = addr + i as u32;
        *slot = v.byte(a).map_err(|OutOfWindow| a)?;
    }
    Ok(b)
}

/// A plain byte vector at offset 0 (`None` = undefined byte).
impl SmemView for Vec<Option<u8>> {
    fn byte(&self, addr: u32) -> Result<Option<u8>, OutOfWindow> {
        self.get(addr as usize).copied().ok_or(OutOfWindow)
    }
}

/// Reads a 16-byte chunk.
fn read_chunk(smem: &dyn SmemView, addr: u32) -> Result<[Option<u8>; 16], Ub> {
    smem.chunk(addr).map_err(|a| {
        Ub::new(
            &TCGEN05_CP_SMEM_RANGE,
            format!("source byte {a:#x} is outside the shared-memory window"),
        )
    })
}

/// The destination word `word` (0..4) of a source chunk, decompressed or not. `Unwritten` when a
/// byte it depends on is undefined.
pub fn chunk_word(fmt: Option<SrcFmt>, src: &[Option<u8>; 16], word: u32) -> Cell {
    let w = word as usize;
    // Source bytes the word depends on: the four bytes, or the payload of elements 4w..4w+3.
    let deps = match fmt {
        None => 4 * w..4 * w + 4,
        Some(SrcFmt::B4x16P64) => 2 * w..2 * w + 2,
        Some(SrcFmt::B6x16P32) => 3 * w..3 * w + 3,
    };
    if src[deps].iter().any(|b| b.is_none()) {
        return Cell::Unwritten;
    }
    let bytes: [u8; 16] = src.map(|b| b.unwrap_or(0));
    let out = match fmt {
        None => bytes,
        Some(f) => decompress(f, &bytes),
    };
    Cell::Known(u32::from_le_bytes([
        out[4 * w],
        out[4 * w + 1],
        out[4 * w + 2],
        out[4 * w + 3],
    ]))
}

/// Bits of the payload of a 4-/6-bit chunk.
fn element_bits(fmt: SrcFmt) -> u32 {
    match fmt {
        SrcFmt::B4x16P64 => 4,
        SrcFmt::B6x16P32 => 6,
    }
}

/// [`Assumption::ContainerShift2`].
pub const CONTAINER_SHIFT: u32 = 2;

/// §9.7.16.9.1: 16 × 4- or 6-bit elements (plus padding) → 16 × 8-bit elements
/// ([`Assumption::Fp4ElementOrder`], [`Assumption::Fp6ElementOrder`], [`Assumption::ContainerShift2`]).
pub fn decompress(fmt: SrcFmt, src: &[u8; 16]) -> [u8; 16] {
    let n = element_bits(fmt);
    let payload = u128::from_le_bytes(*src);
    let mut out = [0u8; 16];
    for (i, o) in out.iter_mut().enumerate() {
        let e = (payload >> (n * i as u32)) & ((1 << n) - 1);
        *o = (e as u8) << CONTAINER_SHIFT;
    }
    out
}

/// The inverse packing (for tests and for building inputs): 16 elements of 4 or 6 bits (higher
/// bits ignored), padding zero.
pub fn pack(fmt: SrcFmt, elems: &[u8; 16]) -> [u8; 16] {
    let n = element_bits(fmt);
    let mut payload = 0u128;
    for (i, &e) in elems.iter().enumerate() {
        payload |= ((e as u128) & ((1 << n) - 1)) << (n * i as u32);
    }
    payload.to_le_bytes()
}

/// What a copy writes, per destination CTA.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpEffect {
    pub own: Vec<CellWrite>,
    pub peer: Vec<CellWrite>,
}

/// Computes a tcgen05.cp's writes from the descriptor `sdesc` and shared memory. `peer_smem` is
/// consulted only for `.cta_group::2` with [`PeerSource::OwnSmem`].
pub fn cp_effect(
    form: CpForm,
    taddr: u32,
    sdesc: u64,
    own_smem: &dyn SmemView,
    peer_smem: Option<&dyn SmemView>,
    peer_source: PeerSource,
) -> Result<CpEffect, Ub> {
    let desc = SmemDesc::decode(sdesc)?;
    let mut eff = CpEffect::default();
    // A chunk's placements are adjacent (every lane, word and destination of it): its bytes
    // are read and its four words decoded once, for the last (window, chunk) seen.
    let mut last: Option<((bool, u32), [Cell; 4])> = None;
    for p in placements(form, taddr, &desc)? {
        let from_peer = p.dest == Dest::Peer && peer_source == PeerSource::OwnSmem;
        let key = (from_peer, p.chunk_addr);
        let words = match last {
            Some((k, words)) if k == key => words,
            _ => {
                let smem = if from_peer {
                    peer_smem.ok_or_else(|| {
                        Ub::new(
                            &TCGEN05_CP_PEER_INACTIVE,
                            "cta_group::2 copy without a peer CTA's shared memory",
                        )
                    })?
                } else {
                    own_smem
                };
                let src = read_chunk(smem, p.chunk_addr)?;
                let words = [0, 1, 2, 3].map(|w| chunk_word(form.decompress, &src, w));
                last = Some((key, words));
                words
            }
        };
        let w = CellWrite {
            lane: p.lane,
            column: p.column,
            value: words[p.word as usize],
        };
        match p.dest {
            Dest::Own => eff.own.push(w),
            Dest::Peer => eff.peer.push(w),
        }
    }
    Ok(eff)
}

/// The distinct 16-byte source chunks a copy reads (for the executor's async-proxy race checks),
/// ascending.
pub fn source_chunks(placements: &[Placement]) -> Vec<u32> {
    let mut v: Vec<u32> = placements.iter().map(|p| p.chunk_addr).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// One call for the executor at the copy's completion: reads the source, checks, writes both
/// CTAs' Tensor Memory all-or-nothing, and returns what was written.
#[allow(clippy::too_many_arguments)]
pub fn execute_cp(
    own: &mut Tmem,
    peer: Option<&mut Tmem>,
    cp: &Cp,
    taddr: u32,
    sdesc: u64,
    own_smem: &dyn SmemView,
    peer_smem: Option<&dyn SmemView>,
    peer_source: PeerSource,
) -> Result<CpEffect, Ub> {
    let form = CpForm::of(cp);
    let eff = cp_effect(form, taddr, sdesc, own_smem, peer_smem, peer_source)?;
    apply_cp(own, peer, form, &eff)?;
    Ok(eff)
}

/// Applies a copy's effect at completion: checks allocation in each CTA, then writes. The
/// executor calls this when the async copy completes (see [`super::commit`]).
pub fn apply_cp(
    own: &mut Tmem,
    peer: Option<&mut Tmem>,
    form: CpForm,
    eff: &CpEffect,
) -> Result<(), Ub> {
    if form.cta == CtaGroup::Two {
        let peer = peer.ok_or_else(|| {
            // §9.7.16.5 Table 46: "the peer CTA should be active and should not have exited".
            Ub::new(
                &TCGEN05_CP_PEER_INACTIVE,
                "cta_group::2 copy while the peer CTA is not active",
            )
        })?;
        for w in &eff.peer {
            peer.check_cell(w.lane, w.column)?;
        }
        own.apply(&eff.own)?;
        peer.apply(&eff.peer)
    } else {
        own.apply(&eff.own)
    }
}

#[cfg(test)]
mod tests;
