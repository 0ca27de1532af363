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
            CpShape::S128x256b | CpShape::S4x256b => 2,
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
        let warps: Vec<u32> = match self.multicast {
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
}

/// A plain byte vector at offset 0 (`None` = undefined byte).
impl SmemView for Vec<Option<u8>> {
    fn byte(&self, addr: u32) -> Result<Option<u8>, OutOfWindow> {
        self.get(addr as usize).copied().ok_or(OutOfWindow)
    }
}

/// Reads a 16-byte chunk.
fn read_chunk(smem: &dyn SmemView, addr: u32) -> Result<[Option<u8>; 16], Ub> {
    let mut b = [None; 16];
    for (i, slot) in b.iter_mut().enumerate() {
        *slot = smem.byte(addr + i as u32).map_err(|OutOfWindow| {
            Ub::new(
                &TCGEN05_CP_SMEM_RANGE,
                format!(
                    "source byte {:#x} is outside the shared-memory window",
                    addr + i as u32
                ),
            )
        })?;
    }
    Ok(b)
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
    for p in placements(form, taddr, &desc)? {
        let smem = match (p.dest, peer_source) {
            (Dest::Peer, PeerSource::OwnSmem) => peer_smem.ok_or_else(|| {
                Ub::new(
                    &TCGEN05_CP_PEER_INACTIVE,
                    "cta_group::2 copy without a peer CTA's shared memory",
                )
            })?,
            _ => own_smem,
        };
        let src = read_chunk(smem, p.chunk_addr)?;
        let w = CellWrite {
            lane: p.lane,
            column: p.column,
            value: chunk_word(form.decompress, &src, p.word),
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
mod tests {
    use super::super::desc::{LboMode, Swizzle};
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashSet;

    const SMEM: usize = 1 << 18;

    fn fill(addr: u32) -> u8 {
        (addr.wrapping_mul(2_654_435_761) >> 13) as u8 ^ (addr as u8)
    }

    fn smem() -> Vec<Option<u8>> {
        (0..SMEM as u32).map(|a| Some(fill(a))).collect()
    }

    fn form(cta: CtaGroup, shape: CpShape, mc: Option<Multicast>, dc: Option<SrcFmt>) -> CpForm {
        CpForm {
            cta,
            shape,
            multicast: mc,
            decompress: dc,
        }
    }

    /// Every legal (shape, multicast) pair.
    fn legal_forms() -> Vec<(CpShape, Option<Multicast>)> {
        CpShape::ALL
            .iter()
            .flat_map(|&s| s.legal_multicasts().iter().map(move |&m| (s, m)))
            .collect()
    }

    // ---- the independent computation: from (lane, column) back to a byte address ----

    /// Which source row a lane holds, from first principles of the multicast rules.
    fn row_of_lane(f: CpForm, lane0: u32, lane: u32) -> Option<u32> {
        let (w, i) = (lane / 32, lane % 32);
        match f.multicast {
            None => (lane >= lane0 && lane < lane0 + f.rows()).then(|| lane - lane0),
            Some(Multicast::Warpx4) => Some(i),
            // 02_13: warps 0,1 hold rows 0-31 (first of pairs {0,2},{1,3}); warps 2,3 rows 32-63.
            Some(Multicast::Warpx2_02_13) => Some(if w < 2 { i } else { 32 + i }),
            // 01_23: warps 0,2 hold rows 0-31; warps 1,3 rows 32-63.
            Some(Multicast::Warpx2_01_23) => Some(if w % 2 == 0 { i } else { 32 + i }),
        }
    }

    /// Byte address of (row, chunk) written out via the swizzle atom geometry.
    fn indep_chunk_addr(d: &SmemDesc, row: u32, chunk: u32) -> u32 {
        if d.swizzle == Swizzle::None {
            return d.start + 16 * (row % 8) + d.sbo * (row / 8) + d.lbo * chunk;
        }
        let width = match d.swizzle {
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            _ => 128,
        };
        let (unit, period) = match d.swizzle {
            Swizzle::B32 => (16, 2),
            Swizzle::B64 => (16, 4),
            Swizzle::B128 => (16, 8),
            _ => (32, 4),
        };
        let logical = d.start + d.sbo * (row / 8) + width * (row % 8) + 16 * chunk;
        let line = logical / 128;
        let within = logical % 128;
        let phase = (line + 8 - d.base_offset as u32) % period;
        line * 128 + ((within / unit) ^ phase) * unit + within % unit
    }

    fn indep_cell(
        f: CpForm,
        taddr: u32,
        d: &SmemDesc,
        lane: u32,
        col: u32,
        mem: &[Option<u8>],
    ) -> Option<u32> {
        let t = TAddr::from_u32(taddr);
        let row = row_of_lane(f, t.lane, lane)?;
        if col < t.column || col >= t.column + 4 * f.chunks() {
            return None;
        }
        let (chunk, word) = ((col - t.column) / 4, (col - t.column) % 4);
        let a = indep_chunk_addr(d, row, chunk) as usize;
        let b: Vec<u8> = mem[a..a + 16].iter().map(|x| x.unwrap()).collect();
        Some(match f.decompress {
            None => u32::from_le_bytes([
                b[4 * word as usize],
                b[4 * word as usize + 1],
                b[4 * word as usize + 2],
                b[4 * word as usize + 3],
            ]),
            Some(fmt) => {
                // element k of 16: bit offset n·k in the little-endian chunk, placed at bit 2.
                let n = if fmt == SrcFmt::B4x16P64 { 4 } else { 6 };
                let mut v = 0u32;
                for j in 0..4 {
                    let k = 4 * word + j;
                    let mut e = 0u32;
                    for bit in 0..n {
                        let pos = n * k + bit;
                        e |= (((b[(pos / 8) as usize] >> (pos % 8)) & 1) as u32) << bit;
                    }
                    v |= (e << 2) << (8 * j);
                }
                v
            }
        })
    }

    fn arb_case() -> impl Strategy<Value = (CpForm, u32, SmemDesc)> {
        (
            0usize..6,
            0u32..3,
            0u32..4,
            0u32..126,
            0u32..8,
            0u32..64,
            0u32..64,
            0u8..8,
            0usize..5,
            any::<bool>(),
        )
            .prop_map(|(fi, dc, lane_sel, col, start, lbo, sbo, bo, sw, two)| {
                let (shape, mc) = legal_forms()[fi];
                let decompress =
                    [None, Some(SrcFmt::B4x16P64), Some(SrcFmt::B6x16P32)][dc as usize];
                let f = form(
                    if two { CtaGroup::Two } else { CtaGroup::One },
                    shape,
                    mc,
                    decompress,
                );
                let lane = if f.multicast.is_none() && f.rows() == 4 {
                    lane_sel * 31
                } else {
                    0
                };
                let swizzle = Swizzle::ALL[sw];
                let d = SmemDesc {
                    start: 1024 * start
                        + if swizzle == Swizzle::B128Atom32 {
                            32
                        } else {
                            48
                        },
                    lbo: 16 * lbo,
                    sbo: 128 * sbo,
                    base_offset: bo,
                    lbo_mode: LboMode::Relative,
                    swizzle,
                };
                (
                    f,
                    TAddr {
                        lane,
                        column: col * 3,
                    }
                    .to_u32(),
                    d,
                )
            })
    }

    proptest! {
        #[test]
        fn placement_matches_independent_computation((f, taddr, d) in arb_case()) {
            let mem = smem();
            let eff = cp_effect(f, taddr, d.encode(), &mem, None, PeerSource::IssuerSmem).unwrap();
            let replication = match f.multicast { None => 1, Some(Multicast::Warpx4) => 4, Some(_) => 2 };
            let n = (f.rows() * f.chunks() * 4 * replication) as usize;
            prop_assert_eq!(eff.own.len(), n);
            let cells: HashSet<(u32, u32)> = eff.own.iter().map(|w| (w.lane, w.column)).collect();
            prop_assert_eq!(cells.len(), n, "no cell written twice");
            for w in &eff.own {
                let want = indep_cell(f, taddr, &d, w.lane, w.column, &mem);
                prop_assert_eq!(Some(w.value), want.map(Cell::Known), "lane {} column {}", w.lane, w.column);
            }
            // Multicast shapes cover all 128 lanes; the others exactly their rows.
            let lanes: HashSet<u32> = eff.own.iter().map(|w| w.lane).collect();
            prop_assert_eq!(lanes.len() as u32, f.rows() * replication);
            match f.cta {
                CtaGroup::One => prop_assert!(eff.peer.is_empty()),
                CtaGroup::Two => prop_assert_eq!(&eff.peer, &eff.own),
            }
        }

        #[test]
        fn fp4_roundtrip(elems in prop::array::uniform16(0u8..16), pad in prop::array::uniform8(any::<u8>())) {
            let mut src = pack(SrcFmt::B4x16P64, &elems);
            prop_assert!(src[8..].iter().all(|&b| b == 0));
            src[8..].copy_from_slice(&pad);
            let out = decompress(SrcFmt::B4x16P64, &src);
            for i in 0..16 {
                prop_assert_eq!(out[i] >> CONTAINER_SHIFT, elems[i]);
                prop_assert_eq!(out[i] & 0b1100_0011, 0);
            }
        }

        #[test]
        fn fp6_roundtrip(elems in prop::array::uniform16(0u8..64), pad in prop::array::uniform4(any::<u8>())) {
            let mut src = pack(SrcFmt::B6x16P32, &elems);
            prop_assert!(src[12..].iter().all(|&b| b == 0));
            src[12..].copy_from_slice(&pad);
            let out = decompress(SrcFmt::B6x16P32, &src);
            for i in 0..16 {
                prop_assert_eq!(out[i] >> CONTAINER_SHIFT, elems[i]);
                prop_assert_eq!(out[i] & 0b11, 0);
            }
        }
    }

    fn plain_desc() -> SmemDesc {
        SmemDesc {
            start: 0x1000,
            lbo: 0x800,
            sbo: 0x80,
            base_offset: 0,
            lbo_mode: LboMode::Relative,
            swizzle: Swizzle::None,
        }
    }

    #[test]
    fn k_major_no_swizzle_128x256b_addresses() {
        let f = form(CtaGroup::One, CpShape::S128x256b, None, None);
        let ps = placements(f, 0, &plain_desc()).unwrap();
        let find = |lane, col| {
            ps.iter()
                .find(|p| p.lane == lane && p.column == col)
                .unwrap()
                .chunk_addr
        };
        assert_eq!(find(0, 0), 0x1000);
        assert_eq!(find(1, 3), 0x1010);
        assert_eq!(find(7, 0), 0x1070);
        assert_eq!(find(8, 0), 0x1080); // next core matrix: SBO
        assert_eq!(find(0, 4), 0x1800); // second chunk: LBO
        assert_eq!(find(9, 5), 0x1890);
    }

    #[test]
    fn warp_pair_placement() {
        let f = form(
            CtaGroup::One,
            CpShape::S64x128b,
            Some(Multicast::Warpx2_02_13),
            None,
        );
        assert_eq!(f.lanes_of_row(0, 5), vec![5, 37]);
        assert_eq!(f.lanes_of_row(0, 37), vec![69, 101]);
        let f = form(
            CtaGroup::One,
            CpShape::S64x128b,
            Some(Multicast::Warpx2_01_23),
            None,
        );
        assert_eq!(f.lanes_of_row(0, 5), vec![5, 69]);
        assert_eq!(f.lanes_of_row(0, 37), vec![37, 101]);
        let f = form(
            CtaGroup::One,
            CpShape::S32x128b,
            Some(Multicast::Warpx4),
            None,
        );
        assert_eq!(f.lanes_of_row(0, 31), vec![31, 63, 95, 127]);
    }

    #[test]
    fn range_and_form_ub() {
        let d = plain_desc();
        let f = form(CtaGroup::One, CpShape::S128x128b, None, None);
        assert_eq!(
            placements(f, 0x0001_0000, &d).unwrap_err().rule,
            "tcgen05.cp.lane_range"
        );
        assert_eq!(
            placements(f, 509, &d).unwrap_err().rule,
            "tcgen05.cp.column_range"
        );
        assert!(placements(f, 508, &d).is_ok());
        let f4 = form(CtaGroup::One, CpShape::S4x256b, None, None);
        assert!(placements(f4, 124 << 16, &d).is_ok());
        assert_eq!(
            placements(f4, 125 << 16, &d).unwrap_err().rule,
            "tcgen05.cp.lane_range"
        );
        let m = form(
            CtaGroup::One,
            CpShape::S32x128b,
            Some(Multicast::Warpx4),
            None,
        );
        assert_eq!(
            placements(m, 32 << 16, &d).unwrap_err().rule,
            "tcgen05.cp.multicast_lane"
        );
        let bad = form(CtaGroup::One, CpShape::S32x128b, None, None);
        assert_eq!(
            placements(bad, 0, &d).unwrap_err().rule,
            "tcgen05.cp.shape_multicast"
        );
        let bad = form(
            CtaGroup::One,
            CpShape::S128x128b,
            Some(Multicast::Warpx4),
            None,
        );
        assert_eq!(
            placements(bad, 0, &d).unwrap_err().rule,
            "tcgen05.cp.shape_multicast"
        );
    }

    #[test]
    fn invalid_descriptor_and_smem_window() {
        let f = form(CtaGroup::One, CpShape::S4x256b, None, None);
        let mem = smem();
        let e = cp_effect(f, 0, 0, &mem, None, PeerSource::IssuerSmem).unwrap_err();
        assert_eq!(e.rule, "tcgen05.desc.fixed_46_48");
        let small: Vec<Option<u8>> = vec![Some(0); 0x1000];
        let e = cp_effect(
            f,
            0,
            plain_desc().encode(),
            &small,
            None,
            PeerSource::IssuerSmem,
        )
        .unwrap_err();
        assert_eq!(e.rule, "tcgen05.cp.smem_range");
    }

    #[test]
    fn undefined_bytes_give_undefined_cells_only_where_they_land() {
        let f = form(CtaGroup::One, CpShape::S4x256b, None, None);
        let mut mem = smem();
        mem[0x1005] = None; // row 0, chunk 0, word 1
        let e = cp_effect(
            f,
            0,
            plain_desc().encode(),
            &mem,
            None,
            PeerSource::IssuerSmem,
        )
        .unwrap();
        for w in &e.own {
            assert_eq!(
                w.value == Cell::Unwritten,
                w.lane == 0 && w.column == 1,
                "{w:?}"
            );
        }
        // fp4 padding bytes do not matter; payload bytes do
        let f = form(
            CtaGroup::One,
            CpShape::S4x256b,
            None,
            Some(SrcFmt::B4x16P64),
        );
        let mut mem = smem();
        mem[0x100c] = None; // padding of row 0 chunk 0
        mem[0x1012] = None; // row 1 chunk 0 payload byte 2 → word 1
        let e = cp_effect(
            f,
            0,
            plain_desc().encode(),
            &mem,
            None,
            PeerSource::IssuerSmem,
        )
        .unwrap();
        for w in &e.own {
            assert_eq!(
                w.value == Cell::Unwritten,
                w.lane == 1 && w.column == 1,
                "{w:?}"
            );
        }
    }

    #[test]
    fn cta_pair_sources_and_apply() {
        let f = form(CtaGroup::Two, CpShape::S4x256b, None, None);
        let mem = smem();
        let other: Vec<Option<u8>> = vec![Some(0xAB); SMEM];
        let d = plain_desc().encode();
        let e = cp_effect(f, 0, d, &mem, Some(&other), PeerSource::IssuerSmem).unwrap();
        assert_eq!(e.own, e.peer);
        let e = cp_effect(f, 0, d, &mem, Some(&other), PeerSource::OwnSmem).unwrap();
        assert!(e.peer.iter().all(|w| w.value == Cell::Known(0xABAB_ABAB)));
        assert_eq!(
            cp_effect(f, 0, d, &mem, None, PeerSource::OwnSmem)
                .unwrap_err()
                .rule,
            "tcgen05.cp.peer_inactive"
        );

        let (mut a, mut b) = (Tmem::new(), Tmem::new());
        a.alloc(32).unwrap();
        assert_eq!(
            apply_cp(&mut a, None, f, &e).unwrap_err().rule,
            "tcgen05.cp.peer_inactive"
        );
        // peer not allocated: nothing written anywhere
        assert_eq!(
            apply_cp(&mut a, Some(&mut b), f, &e).unwrap_err().rule,
            "tcgen05.tmem.unallocated"
        );
        assert_eq!(a.read(0, 0), Cell::Unwritten);
        b.alloc(32).unwrap();
        apply_cp(&mut a, Some(&mut b), f, &e).unwrap();
        assert_eq!(b.read(3, 7), Cell::Known(0xABAB_ABAB));
        assert_eq!(a.read(0, 0), e.own[0].value);
    }

    #[test]
    fn decompress_known_vector() {
        // elements 0..16 of 4 bits: byte k = (2k+1) << 4 | 2k
        let src = pack(SrcFmt::B4x16P64, &core::array::from_fn(|i| i as u8));
        assert_eq!(src[0], 0x10);
        assert_eq!(src[7], 0xFE);
        let out = decompress(SrcFmt::B4x16P64, &src);
        assert_eq!(out[15], 15 << 2);
        // 6-bit: element 1 straddles bytes 0 and 1
        let mut e = [0u8; 16];
        e[1] = 0b11_1111;
        let src = pack(SrcFmt::B6x16P32, &e);
        assert_eq!(src[0], 0b1100_0000);
        assert_eq!(src[1], 0b0000_1111);
        assert_eq!(decompress(SrcFmt::B6x16P32, &src)[1], 0b1111_1100);
    }

    #[test]
    fn from_parsed_instruction() {
        use crate::ptx::operand::Value;
        use crate::ptx::tcgen05::TmemRef;
        let cp = Cp {
            cta: CtaGroup::One,
            shape: CpShape::S64x128b,
            multicast: Some(Multicast::Warpx2_01_23),
            decompress: Some(SrcFmt::B6x16P32),
            taddr: TmemRef::reg("t"),
            sdesc: Value::reg("d"),
        };
        let f = CpForm::of(&cp);
        assert_eq!((f.rows(), f.chunks()), (64, 1));
        let ps = placements(f, 0, &plain_desc()).unwrap();
        assert_eq!(ps.len(), 64 * 2 * 4);
        // 64 rows of one chunk: 8 core matrices of 8 × 16 B, SBO = 128 B apart = contiguous.
        assert_eq!(
            source_chunks(&ps),
            (0..64).map(|r| 0x1000 + 16 * r).collect::<Vec<_>>()
        );

        let mut t = Tmem::new();
        t.alloc(32).unwrap();
        let mem = smem();
        let e = execute_cp(
            &mut t,
            None,
            &cp,
            8,
            plain_desc().encode(),
            &mem,
            None,
            PeerSource::IssuerSmem,
        )
        .unwrap();
        assert_eq!(e.own.len(), 64 * 2 * 4);
        // 01_23: row 5 → lanes 5 and 69 (warps 0, 2), row 37 → lanes 37 and 101 (warps 1, 3).
        assert!(matches!(t.read(5, 10), Cell::Known(_)));
        assert_eq!(t.read(5, 10), t.read(69, 10));
        assert_eq!(t.read(37, 10), t.read(101, 10));
        assert_ne!(t.read(5, 10), t.read(37, 10));
        assert_eq!(t.read(0, 7), Cell::Unwritten);
        assert_eq!(t.read(0, 12), Cell::Unwritten);
    }
}
