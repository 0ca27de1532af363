//! Tests of tcgen05.cp: placement against an independent computation, decompression round
//! trips, worked addresses and the undefined-behaviour checks.

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
            let decompress = [None, Some(SrcFmt::B4x16P64), Some(SrcFmt::B6x16P32)][dc as usize];
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
