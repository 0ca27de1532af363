//! Shared-memory swizzle patterns of the tensor copies (§5.5.7).
//!
//! Every pattern is an XOR of address bits: some bits of the 16-byte (or 32/64-byte) chunk index
//! inside a 128-byte "line" are XORed with bits of the line index. The function is applied to the
//! *shared-memory address* (equivalently, to the offset from an address aligned to the pattern's
//! repeat, Table "Starting address of the repeating pattern"). The base-offset formulas of §5.5.7
//! are then the line-index bits of `dstMem` itself, which [`Pattern::base_offset`] returns and a
//! test checks against the address form.
//!
//! Derivation from the §5.5.7 tables (cell = 16 bytes, row = 8 cells = 128 bytes; the table gives,
//! for row r, the logical cell stored at each physical position p):
//! - 32B:  row r: p ^ (r & 1)      → addr bit 4 ^= bit 7        = CuTe `Swizzle<1,4,3>`, repeat 256 B
//! - 64B:  row r: p ^ (r & 3)      → addr bits 4-5 ^= bits 7-8  = `Swizzle<2,4,3>`, repeat 512 B
//! - 128B: row r: p ^ (r & 7)      → addr bits 4-6 ^= bits 7-9  = `Swizzle<3,4,3>`, repeat 1024 B
//!   (spec/06 §9.7.16.3.3 names the same three as the canonical-layout swizzles.)
//! - 128B, 32B atomicity: row r (4 cells of 32 B): pair q ^ (r & 3) → bits 5-6 ^= bits 7-8
//!   = `Swizzle<2,5,2>`, repeat 512 B (spec/06 Table 55: the atom is "8x4").
//! - 128B, 64B atomicity: row r (2 halves of 64 B): half h ^ (r & 1) → bit 6 ^= bit 7 = `Swizzle<1,6,1>`, repeat 256 B.
//! - 128B, 32B atomicity + 8B flip: the 32B-atomicity pattern, and "a flip of adjacent 8-bytes
//!   within the 16-byte data at every alternate shared memory line" (Figure 36 only). ASSUMPTION
//!   [`super::assumptions::Assumption::Flip8BOnOddLines`]: the flipped lines are the odd ones
//!   (addr bit 7 set), i.e. additionally bit 3 ^= bit 7.
//! - 96B: the table text is identical to the 32B table (row 1 = 1 0 3 2 5 4 7 6), the repeat is
//!   256 B and its base offset is `(dstMem/128) % 2`. ASSUMPTION
//!   [`super::assumptions::Assumption::Swizzle96BAsTable`]: bit 4 ^= bit 7 (Figure 31 only).

use super::tensormap::Swizzle;
use crate::sem::mutant::{self, Mutant as M};

/// A swizzle pattern, the driver's seven modes plus the PTX-only 96B mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    None,
    B32,
    B64,
    B96,
    B128,
    B128Atom32B,
    B128Atom32BFlip8B,
    B128Atom64B,
}

impl From<Swizzle> for Pattern {
    fn from(s: Swizzle) -> Pattern {
        match s {
            Swizzle::None => Pattern::None,
            Swizzle::B32 => Pattern::B32,
            Swizzle::B64 => Pattern::B64,
            Swizzle::B128 => Pattern::B128,
            Swizzle::B128Atom32B => Pattern::B128Atom32B,
            Swizzle::B128Atom32BFlip8B => Pattern::B128Atom32BFlip8B,
            Swizzle::B128Atom64B => Pattern::B128Atom64B,
        }
    }
}

impl Pattern {
    pub const ALL: [Pattern; 8] = [
        Pattern::None,
        Pattern::B32,
        Pattern::B64,
        Pattern::B96,
        Pattern::B128,
        Pattern::B128Atom32B,
        Pattern::B128Atom32BFlip8B,
        Pattern::B128Atom64B,
    ];

    /// CuTe `Swizzle<B, M, S>` (bits, base, shift) for the XOR part, `None` for no swizzle.
    /// `Swizzle<B,M,S>(a) = a ^ ((a >> S) & (((1<<B)-1) << M))`.
    pub fn cute(self) -> Option<(u32, u32, u32)> {
        match self {
            Pattern::None => None,
            Pattern::B32 if mutant::on(M::Swizzle32BLineBit8) => Some((1, 4, 4)),
            Pattern::B32 | Pattern::B96 => Some((1, 4, 3)),
            Pattern::B64 if mutant::on(M::Swizzle64BThreeBits) => Some((3, 4, 3)),
            Pattern::B64 => Some((2, 4, 3)),
            Pattern::B128 if mutant::on(M::Swizzle128BTwoBits) => Some((2, 4, 3)),
            Pattern::B128 => Some((3, 4, 3)),
            Pattern::B128Atom32B if mutant::on(M::SwizzleAtom32AsPlain128B) => Some((3, 4, 3)),
            Pattern::B128Atom32B | Pattern::B128Atom32BFlip8B => Some((2, 5, 2)),
            Pattern::B128Atom64B => Some((1, 6, 1)),
        }
    }

    /// The address the pattern's cycle starts on (§5.5.7 table; for the atomicity sub-modes the
    /// 128B mode's 1024 B, although their XOR repeats sooner).
    pub fn repeat(self) -> u64 {
        match self {
            Pattern::None => 16,
            Pattern::B32 | Pattern::B96 => 256,
            Pattern::B64 => 512,
            _ => 1024,
        }
    }

    /// §5.5.7: "base offset = (dstMem / 128) % 8" (128B), "% 4" (64B), "% 2" (32B, 96B).
    pub fn base_offset(self, dst: u64) -> u64 {
        match self {
            Pattern::None => 0,
            Pattern::B32 | Pattern::B96 => (dst / 128) % 2,
            Pattern::B64 => (dst / 128) % 4,
            _ => (dst / 128) % 8,
        }
    }

    /// The physical shared-memory address of logical address `a` (an involution).
    pub fn apply(self, a: u64) -> u64 {
        let xored = match self.cute() {
            None => a,
            Some((b, m, s)) => a ^ ((a >> s) & (((1u64 << b) - 1) << m)),
        };
        if self == Pattern::B128Atom32BFlip8B {
            let odd_line = (a >> 7) & 1;
            let flipped = odd_line ^ u64::from(mutant::on(M::SwizzleFlip8BEvenLines));
            xored ^ (flipped << 3)
        } else {
            xored
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Row r of a §5.5.7 table, computed: the logical 16-byte cell at each physical position.
    fn table_row(p: Pattern, r: u64) -> Vec<u64> {
        (0..8)
            .map(|pos| (p.apply(r * 128 + pos * 16) % 128) / 16)
            .collect()
    }

    #[test]
    fn manual_tables() {
        // §5.5.7, transcribed from Part A.
        assert_eq!(table_row(Pattern::None, 1), [0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(table_row(Pattern::B32, 0), [0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(table_row(Pattern::B32, 1), [1, 0, 3, 2, 5, 4, 7, 6]);
        assert_eq!(table_row(Pattern::B32, 2), [0, 1, 2, 3, 4, 5, 6, 7]); // "pattern repeats"
        assert_eq!(table_row(Pattern::B96, 1), [1, 0, 3, 2, 5, 4, 7, 6]);
        let t64 = [
            [0, 1, 2, 3, 4, 5, 6, 7],
            [1, 0, 3, 2, 5, 4, 7, 6],
            [2, 3, 0, 1, 6, 7, 4, 5],
            [3, 2, 1, 0, 7, 6, 5, 4],
        ];
        for (r, row) in t64.iter().enumerate() {
            assert_eq!(table_row(Pattern::B64, r as u64), row);
            assert_eq!(table_row(Pattern::B64, r as u64 + 4), row);
        }
        let t128 = [
            [0, 1, 2, 3, 4, 5, 6, 7],
            [1, 0, 3, 2, 5, 4, 7, 6],
            [2, 3, 0, 1, 6, 7, 4, 5],
            [3, 2, 1, 0, 7, 6, 5, 4],
            [4, 5, 6, 7, 0, 1, 2, 3],
            [5, 4, 7, 6, 1, 0, 3, 2],
            [6, 7, 4, 5, 2, 3, 0, 1],
            [7, 6, 5, 4, 3, 2, 1, 0],
        ];
        for (r, row) in t128.iter().enumerate() {
            assert_eq!(table_row(Pattern::B128, r as u64), row);
            assert_eq!(table_row(Pattern::B128, r as u64 + 8), row);
        }
        let t32a = [
            [0, 1, 2, 3, 4, 5, 6, 7],
            [2, 3, 0, 1, 6, 7, 4, 5],
            [4, 5, 6, 7, 0, 1, 2, 3],
            [6, 7, 4, 5, 2, 3, 0, 1],
        ];
        for (r, row) in t32a.iter().enumerate() {
            assert_eq!(table_row(Pattern::B128Atom32B, r as u64), row);
        }
        assert_eq!(table_row(Pattern::B128Atom64B, 0), [0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(table_row(Pattern::B128Atom64B, 1), [4, 5, 6, 7, 0, 1, 2, 3]);
    }

    #[test]
    fn flip_8b_swaps_halves_on_odd_lines_only() {
        let p = Pattern::B128Atom32BFlip8B;
        for a in (0..1024u64).step_by(8) {
            let q = p.apply(a);
            assert_eq!(q & !15, Pattern::B128Atom32B.apply(a) & !15);
            let flipped = (q & 8) != (a & 8);
            assert_eq!(flipped, (a >> 7) & 1 == 1, "addr {a}");
        }
    }

    #[test]
    fn involution_and_permutation_of_each_repeat() {
        for p in Pattern::ALL {
            let mut seen = [false; 1024 / 8];
            for a in (0..1024u64).step_by(8) {
                assert_eq!(p.apply(p.apply(a)), a, "{p:?}");
                let q = p.apply(a);
                assert!(q < 1024);
                assert!(!seen[(q / 8) as usize]);
                seen[(q / 8) as usize] = true;
                // Bytes inside an 8-byte word stay together, bits above the repeat are untouched.
                assert_eq!(p.apply(a + 5), q + 5);
                assert_eq!(p.apply(a + 4096), q + 4096);
            }
        }
    }

    #[test]
    fn base_offset_is_the_line_index_of_dst() {
        // The address form and the §5.5.7 base-offset form agree: writing offset `o` of a box
        // at `dst` (128-byte aligned) lands where the pattern's row (base_offset + o/128) puts it.
        for p in Pattern::ALL {
            for dst in (0..4096u64).step_by(128) {
                let bo = p.base_offset(dst);
                if dst % p.repeat() == 0 {
                    assert_eq!(bo, 0, "{p:?} at {dst}");
                }
                for o in (0..1024u64).step_by(16) {
                    let via_addr = p.apply(dst + o);
                    let aligned = dst - dst % p.repeat().max(128);
                    let via_base = aligned + p.apply(bo * 128 + o);
                    assert_eq!(via_addr, via_base, "{p:?} dst {dst} off {o}");
                }
            }
        }
    }

    #[test]
    fn atomicity_keeps_atoms_whole() {
        for (p, atom) in [
            (Pattern::B128, 16),
            (Pattern::B128Atom32B, 32),
            (Pattern::B128Atom64B, 64),
        ] {
            for a in (0..1024u64).step_by(atom) {
                let q = p.apply(a);
                assert_eq!(q % atom as u64, 0);
                for i in 0..atom as u64 {
                    assert_eq!(p.apply(a + i), q + i);
                }
            }
        }
    }
}
