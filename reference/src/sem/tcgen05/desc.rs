//! The 64-bit shared-memory matrix descriptor (§9.7.16.4.1, Table 40) and the canonical-layout
//! address function it describes (§9.7.16.3, §9.7.16.10.6).
//!
//! Bit fields (Table 40):
//!
//! | bits  | field |
//! |-------|-------|
//! | 0-13  | start address, `(x & 0x3FFFF) >> 4` |
//! | 14-15 | reserved |
//! | 16-29 | leading-dimension byte offset (or absolute address), encoded likewise |
//! | 30-31 | reserved |
//! | 32-45 | stride-dimension byte offset, encoded likewise |
//! | 46-48 | fixed `0b001` |
//! | 49-51 | matrix base offset |
//! | 52    | LBO mode: 0 relative, 1 absolute |
//! | 53-60 | fixed 0 (the manual prints "0xb00000000", read as `0b00000000`) |
//! | 61-63 | swizzle: 0 none, 1 128B with 32B atomicity, 2 128B, 4 64B, 6 32B; 3, 5, 7 invalid |

use crate::sem::mutant::{self, Mutant as M};
use crate::sem::ub::Ub;
use crate::sem::ub::{
    TCGEN05_DESC_FIXED_46_48, TCGEN05_DESC_FIXED_53_60, TCGEN05_DESC_LBO_ABSOLUTE_BASE_OFFSET,
    TCGEN05_DESC_LBO_ABSOLUTE_SWIZZLE, TCGEN05_DESC_LBO_ABSOLUTE_TARGET, TCGEN05_DESC_RESERVED,
    TCGEN05_DESC_START_MISALIGNED, TCGEN05_DESC_SWIZZLE_INVALID,
};
use crate::target::{Target, TargetClass};

/// Positions taken where the manual is silent or gives the fact only in a figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Assumption {
    /// Reserved bits 14-15 and 30-31 must be zero; a set reserved bit makes the descriptor invalid.
    ReservedBitsMustBeZero,
    /// Bits 53-60: the manual's "Fixed constant value of 0xb00000000" is read as eight zero bits.
    FixedBits53To60AreZero,
    /// The swizzle XOR uses the absolute shared-memory address bits, corrected by the base offset:
    /// the 16-byte chunk index within a 128-byte row is XORed with `((addr >> 7) - base_offset)`
    /// masked to the pattern's period, so a pattern whose first row sits at `P` (with
    /// `base_offset = (P >> 7) & 7`, Table 41 formula) swizzles as if it started on the boundary.
    SwizzlePhaseFromAddressMinusBaseOffset,
    /// Mode 1 (128B swizzle with 32-byte atomicity) is CuTe's `Swizzle<2,5,2>` on byte addresses
    /// (the 32-byte unit index within the 128-byte row, bits 5-6, XOR bits 7-8): the PTX manual
    /// shows it only in Figure 219; the function is taken from CUTLASS's
    /// `Layout_MN_SW128_32B_Atom` definition (a public fact, not the manual).
    Swizzle128B32BAtomIsSw252,
    /// Mode 1 requires a 32-byte-aligned start address (its atom is 32 bytes).
    Swizzle128B32BStartAligned32,
    /// With no swizzling the base offset has no effect (any value accepted).
    BaseOffsetIgnoredWithoutSwizzle,
    /// Source addresses are `start + offsets` without wrapping at 2^18 (the width of the encoded
    /// fields); an address outside the shared-memory window is UB of the reading instruction.
    NoAddressWrap,
}

/// Swizzle mode, bits 61-63.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Swizzle {
    None,
    /// 128-byte swizzle with 32-byte atomicity (encoding 1).
    B128Atom32,
    B128,
    B64,
    B32,
}

impl Swizzle {
    pub const ALL: [Swizzle; 5] = [
        Swizzle::None,
        Swizzle::B128Atom32,
        Swizzle::B128,
        Swizzle::B64,
        Swizzle::B32,
    ];
    pub fn code(self) -> u8 {
        match self {
            Swizzle::None => 0,
            Swizzle::B128Atom32 => 1,
            Swizzle::B128 => 2,
            Swizzle::B64 => 4,
            Swizzle::B32 => 6,
        }
    }
    pub fn from_code(c: u8) -> Option<Swizzle> {
        Swizzle::ALL.into_iter().find(|s| s.code() == c)
    }
    /// Width in bytes of one row of the swizzle atom (the row stride of a K-major atom); 16 for none.
    pub fn row_bytes(self) -> u32 {
        match self {
            Swizzle::None => 16,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 | Swizzle::B128Atom32 => 128,
        }
    }
    /// Table 41: the repeating pattern's alignment (1024 / 512 / 256 bytes). Mode 1 is not in the
    /// table; its `Swizzle<2,5,2>` period is 512 bytes.
    pub fn pattern_bytes(self) -> u32 {
        match self {
            Swizzle::None => 16,
            Swizzle::B32 => 256,
            Swizzle::B64 => 512,
            Swizzle::B128 => 1024,
            Swizzle::B128Atom32 => 512,
        }
    }
    /// The swizzle as a byte-address permutation, `base_offset` correcting the row phase
    /// ([`Assumption::SwizzlePhaseFromAddressMinusBaseOffset`]).
    pub fn apply(self, addr: u32, base_offset: u8) -> u32 {
        // CuTe Swizzle<B, M, S>: bits [M, M+B) ^= bits [M+S, M+S+B); here the high bits are the
        // 128-byte row index (bit 7 up), corrected by the base offset.
        let (bits, unit_shift) = match self {
            Swizzle::None => return addr,
            Swizzle::B32 => (1, 4),
            Swizzle::B64 => (2, 4),
            Swizzle::B128 => (3, 4),
            Swizzle::B128Atom32 => (2, 5),
        };
        let mask = (1u32 << bits) - 1;
        let base_offset = if mutant::on(M::Tcgen05SwizzleBaseOffsetIgnored) {
            0
        } else {
            base_offset
        };
        let phase = (addr >> 7).wrapping_sub(base_offset as u32) & mask;
        addr ^ (phase << unit_shift)
    }
}

/// Leading-dimension stride mode, bit 52.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LboMode {
    Relative,
    /// §9.7.16.3.1.2: absolute address of the second chunk (sm_103a, tcgen05.mma with K = 48 B).
    Absolute,
}

/// The descriptor's raw bit fields, exactly as stored: every `u64` decodes and re-encodes to itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RawDesc {
    pub start: u16,
    pub reserved_14: u8,
    pub lbo: u16,
    pub reserved_30: u8,
    pub sbo: u16,
    pub fixed_46: u8,
    pub base_offset: u8,
    pub lbo_mode: bool,
    pub fixed_53: u8,
    pub swizzle: u8,
}

fn bits(x: u64, lo: u32, n: u32) -> u64 {
    (x >> lo) & ((1u64 << n) - 1)
}

impl RawDesc {
    pub fn decode(x: u64) -> RawDesc {
        RawDesc {
            start: bits(x, 0, 14) as u16,
            reserved_14: bits(x, 14, 2) as u8,
            lbo: bits(x, 16, 14) as u16,
            reserved_30: bits(x, 30, 2) as u8,
            sbo: bits(x, 32, 14) as u16,
            fixed_46: bits(x, 46, 3) as u8,
            base_offset: bits(x, 49, 3) as u8,
            lbo_mode: bits(x, 52, 1) == 1,
            fixed_53: bits(x, 53, 8) as u8,
            swizzle: bits(x, 61, 3) as u8,
        }
    }
    /// Packs the fields, masking each to its width.
    pub fn encode(&self) -> u64 {
        let f = |v: u64, lo: u32, n: u32| (v & ((1u64 << n) - 1)) << lo;
        f(self.start as u64, 0, 14)
            | f(self.reserved_14 as u64, 14, 2)
            | f(self.lbo as u64, 16, 14)
            | f(self.reserved_30 as u64, 30, 2)
            | f(self.sbo as u64, 32, 14)
            | f(self.fixed_46 as u64, 46, 3)
            | f(self.base_offset as u64, 49, 3)
            | f(self.lbo_mode as u64, 52, 1)
            | f(self.fixed_53 as u64, 53, 8)
            | f(self.swizzle as u64, 61, 3)
    }
}

/// A valid descriptor, fields in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SmemDesc {
    /// Matrix start address (shared::cta offset), a multiple of 16 below 2^18.
    pub start: u32,
    /// Leading-dimension byte offset (or absolute address), a multiple of 16 below 2^18.
    pub lbo: u32,
    /// Stride-dimension byte offset, a multiple of 16 below 2^18.
    pub sbo: u32,
    /// 0..=7.
    pub base_offset: u8,
    pub lbo_mode: LboMode,
    pub swizzle: Swizzle,
}

/// `matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4`.
pub fn md_encode(x: u32) -> u16 {
    ((x & 0x3FFFF) >> 4) as u16
}

impl SmemDesc {
    /// Decodes and classifies a 64-bit descriptor. Invalid encodings are UB of the instruction
    /// that uses the descriptor.
    pub fn decode(x: u64) -> Result<SmemDesc, Ub> {
        let r = RawDesc::decode(x);
        if r.fixed_46 != 0b001 {
            return Err(Ub::new(
                &TCGEN05_DESC_FIXED_46_48,
                format!(
                    "bits 46-48 are {:#05b}, must be the fixed constant 0b001",
                    r.fixed_46
                ),
            ));
        }
        // Assumption::FixedBits53To60AreZero
        if r.fixed_53 != 0 {
            return Err(Ub::new(
                &TCGEN05_DESC_FIXED_53_60,
                format!(
                    "bits 53-60 are {:#x}, must be the fixed constant 0",
                    r.fixed_53
                ),
            ));
        }
        // Assumption::ReservedBitsMustBeZero
        if r.reserved_14 != 0 || r.reserved_30 != 0 {
            return Err(Ub::new(
                &TCGEN05_DESC_RESERVED,
                "reserved bits 14-15 / 30-31 are set",
            ));
        }
        let swizzle = Swizzle::from_code(r.swizzle).ok_or_else(|| {
            Ub::new(
                &TCGEN05_DESC_SWIZZLE_INVALID,
                format!("swizzle mode {} is invalid (3, 5 and 7 are)", r.swizzle),
            )
        })?;
        let lbo_mode = if r.lbo_mode {
            LboMode::Absolute
        } else {
            LboMode::Relative
        };
        let d = SmemDesc {
            start: (r.start as u32) << 4,
            lbo: (r.lbo as u32) << 4,
            sbo: (r.sbo as u32) << 4,
            base_offset: r.base_offset,
            lbo_mode,
            swizzle,
        };
        d.check()?;
        Ok(d)
    }

    /// The semantic restrictions beyond the bit encoding.
    pub fn check(&self) -> Result<(), Ub> {
        // Assumption::Swizzle128B32BStartAligned32
        if self.swizzle == Swizzle::B128Atom32 && !self.start.is_multiple_of(32) {
            return Err(Ub::new(&TCGEN05_DESC_START_MISALIGNED, format!("start address {:#x} is not 32-byte aligned, as 128B swizzling with 32B atomicity needs", self.start),
            ));
        }
        if self.lbo_mode == LboMode::Absolute {
            // §9.7.16.3.1.2.1: only 128B swizzle (16B atomicity); base offset must be 0.
            if self.swizzle != Swizzle::B128 {
                return Err(Ub::new(
                    &TCGEN05_DESC_LBO_ABSOLUTE_SWIZZLE,
                    "absolute leading-dimension mode needs 128B swizzling (16B atomicity)",
                ));
            }
            if self.base_offset != 0 {
                return Err(Ub::new(
                    &TCGEN05_DESC_LBO_ABSOLUTE_BASE_OFFSET,
                    "absolute leading-dimension mode needs base offset 0",
                ));
            }
        }
        Ok(())
    }

    /// §9.7.16.4.1.1: "The byte address mode for the leading dimension stride is supported on
    /// sm_103a" (taken literally: the arch-specific target only). ptxas cannot check it: it does
    /// not look inside descriptor values, even immediate ones.
    pub fn check_target(&self, t: Target) -> Result<(), Ub> {
        if self.lbo_mode == LboMode::Absolute && !TargetClass::Arch(103).contains(t) {
            return Err(Ub::new(
                &TCGEN05_DESC_LBO_ABSOLUTE_TARGET,
                format!(
                    "absolute leading-dimension mode on sm_{}: supported on sm_103a only",
                    t.sm
                ),
            ));
        }
        Ok(())
    }

    /// Encodes (fields are assumed in range: multiples of 16 below 2^18, base offset < 8).
    pub fn encode(&self) -> u64 {
        RawDesc {
            start: md_encode(self.start),
            reserved_14: 0,
            lbo: md_encode(self.lbo),
            reserved_30: 0,
            sbo: md_encode(self.sbo),
            fixed_46: 0b001,
            base_offset: self.base_offset & 7,
            lbo_mode: self.lbo_mode == LboMode::Absolute,
            fixed_53: 0,
            swizzle: self.swizzle.code(),
        }
        .encode()
    }

    /// Byte address of the 16-byte chunk at `(row, chunk)` of a K-major canonical layout in units
    /// of 128-bit elements (T = 1), §9.7.16.3.3:
    ///
    /// - no swizzle `((8,m),(1,2k)):((1T,SBO),(1,LBO))`: `start + (row%8)·16 + (row/8)·SBO + chunk·LBO`;
    /// - swizzled `((8,m),(1,2k)):((sT,SBO),(1,T))` with s = row bytes / 16:
    ///   `start + (row%8)·row_bytes + (row/8)·SBO + chunk·16`, then the swizzle permutation.
    ///
    /// `None` when the address leaves the 32-bit range.
    pub fn kmajor_chunk_addr(&self, row: u32, chunk: u32) -> Option<u32> {
        let (r0, r1) = (row % 8, row / 8);
        let linear = match self.swizzle {
            Swizzle::None => {
                let (sbo, lbo) = if mutant::on(M::Tcgen05LboSboSwapped) {
                    (self.lbo, self.sbo)
                } else {
                    (self.sbo, self.lbo)
                };
                (self.start as u64)
                    + 16 * r0 as u64
                    + sbo as u64 * r1 as u64
                    + lbo as u64 * chunk as u64
            }
            s => {
                (self.start as u64)
                    + (s.row_bytes() * r0) as u64
                    + self.sbo as u64 * r1 as u64
                    + 16 * chunk as u64
            }
        };
        let linear = u32::try_from(linear).ok()?;
        Some(self.swizzle.apply(linear, self.base_offset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn valid() -> SmemDesc {
        SmemDesc {
            start: 0x400,
            lbo: 0x80,
            sbo: 0x100,
            base_offset: 0,
            lbo_mode: LboMode::Relative,
            swizzle: Swizzle::None,
        }
    }

    #[test]
    fn field_positions() {
        let x = valid().encode();
        assert_eq!(x & 0x3FFF, 0x40);
        assert_eq!((x >> 16) & 0x3FFF, 0x8);
        assert_eq!((x >> 32) & 0x3FFF, 0x10);
        assert_eq!((x >> 46) & 7, 1);
        let d = SmemDesc {
            swizzle: Swizzle::B32,
            base_offset: 5,
            ..valid()
        };
        assert_eq!(d.encode() >> 61, 6);
        assert_eq!((d.encode() >> 49) & 7, 5);
        // manual example (Figure 188): LBO 64·4 B encodes as 16, SBO 32·4 B as 8
        assert_eq!(md_encode(64 * 4), 16);
        assert_eq!(md_encode(32 * 4), 8);
        assert_eq!(md_encode(0x40010), 1, "the encode keeps 18 bits only");
    }

    #[test]
    fn invalid_encodings() {
        let x = valid().encode();
        assert_eq!(
            SmemDesc::decode(x & !(1 << 46)).unwrap_err().rule,
            "tcgen05.desc.fixed_46_48"
        );
        assert_eq!(
            SmemDesc::decode(x | (1 << 47)).unwrap_err().rule,
            "tcgen05.desc.fixed_46_48"
        );
        assert_eq!(
            SmemDesc::decode(x | (1 << 57)).unwrap_err().rule,
            "tcgen05.desc.fixed_53_60"
        );
        assert_eq!(
            SmemDesc::decode(x | (1 << 14)).unwrap_err().rule,
            "tcgen05.desc.reserved_bits"
        );
        assert_eq!(
            SmemDesc::decode(x | (1 << 31)).unwrap_err().rule,
            "tcgen05.desc.reserved_bits"
        );
        for bad in [3u64, 5, 7] {
            assert_eq!(
                SmemDesc::decode(x | (bad << 61)).unwrap_err().rule,
                "tcgen05.desc.swizzle_invalid"
            );
        }
        let m = SmemDesc {
            start: 0x410,
            swizzle: Swizzle::B128Atom32,
            ..valid()
        };
        assert_eq!(
            SmemDesc::decode(m.encode()).unwrap_err().rule,
            "tcgen05.desc.start_misaligned"
        );
        let a = SmemDesc {
            lbo_mode: LboMode::Absolute,
            swizzle: Swizzle::B64,
            ..valid()
        };
        assert_eq!(
            SmemDesc::decode(a.encode()).unwrap_err().rule,
            "tcgen05.desc.lbo_absolute_swizzle"
        );
        let a = SmemDesc {
            lbo_mode: LboMode::Absolute,
            swizzle: Swizzle::B128,
            base_offset: 1,
            ..valid()
        };
        assert_eq!(
            SmemDesc::decode(a.encode()).unwrap_err().rule,
            "tcgen05.desc.lbo_absolute_base_offset"
        );
        let a = SmemDesc {
            lbo_mode: LboMode::Absolute,
            swizzle: Swizzle::B128,
            ..valid()
        };
        assert!(SmemDesc::decode(a.encode()).is_ok());
    }

    #[test]
    fn absolute_mode_target() {
        use crate::target::Suffix;
        let a = SmemDesc {
            lbo_mode: LboMode::Absolute,
            swizzle: Swizzle::B128,
            ..valid()
        };
        assert!(a.check_target(Target::new(103, Suffix::Arch)).is_ok());
        assert_eq!(
            a.check_target(Target::SM_100A).unwrap_err().rule,
            "tcgen05.desc.lbo_absolute_target"
        );
        assert!(valid().check_target(Target::SM_100A).is_ok());
    }

    /// §9.7.16.3.3 Figure 188: K-major, no swizzle, tf32 (T = 4), exact layout
    /// `((8,2),(4,4)):((4,32),(1,64))` in elements, LBO = 256 B, SBO = 128 B.
    #[test]
    fn figure_188_k_major_no_swizzle_tf32() {
        let d = SmemDesc {
            start: 0,
            lbo: 64 * 4,
            sbo: 32 * 4,
            ..valid()
        };
        assert_eq!(md_encode(d.lbo), 16);
        assert_eq!(md_encode(d.sbo), 8);
        for i in 0..16u32 {
            for j in 0..16u32 {
                let exact = (i % 8) * 4 + (i / 8) * 32 + (j % 4) + (j / 4) * 64;
                assert_eq!(
                    d.kmajor_chunk_addr(i, j / 4).unwrap() + 4 * (j % 4),
                    4 * exact,
                    "({i},{j})"
                );
            }
        }
    }

    /// Figure 189: K-major, 32B swizzle, tf32, `Swizzle<1,4,3> o ((8,2),(4,4)):((8,64),(1,4))`,
    /// SBO = 256 B. Only the first atom column (j < 8) is checked: the printed layout maps
    /// (i=1, j=0) and (i=0, j=8) to the same offset 8 (a documentation error).
    #[test]
    fn figure_189_k_major_32b_swizzle_tf32() {
        let d = SmemDesc {
            start: 0,
            sbo: 64 * 4,
            swizzle: Swizzle::B32,
            ..valid()
        };
        assert_eq!(md_encode(d.sbo), 16);
        for i in 0..16u32 {
            for j in 0..8u32 {
                let exact = 4 * ((i % 8) * 8 + (i / 8) * 64 + (j % 4) + (j / 4) * 4);
                let swizzled = exact ^ (((exact >> 7) & 1) << 4);
                assert_eq!(
                    d.kmajor_chunk_addr(i, j / 4).unwrap() + 4 * (j % 4),
                    swizzled,
                    "({i},{j})"
                );
            }
        }
        let offset = |i: u32, j: u32| (i % 8) * 8 + (i / 8) * 64 + (j % 4) + (j / 4) * 4;
        assert_eq!(
            offset(1, 0),
            offset(0, 8),
            "the manual's exact layout is not injective"
        );
    }

    #[test]
    fn swizzle_128b_is_chunk_xor_row() {
        // row 3 of a 1024-aligned pattern: chunk c lands at chunk c ^ 3
        for c in 0..8 {
            assert_eq!(
                Swizzle::B128.apply(1024 + 3 * 128 + 16 * c, 0),
                1024 + 3 * 128 + 16 * (c ^ 3)
            );
        }
        // pattern starting at 1024 + 256: base offset 2 makes its first row unswizzled
        let p = 1024 + 256;
        assert_eq!(Swizzle::B128.apply(p + 16 * 5, 2), p + 16 * 5);
        assert_eq!(Swizzle::B128.apply(p + 16 * 5, 0), p + 16 * (5 ^ 2));
        // 32B swizzle: bit 4 ^= bit 7
        assert_eq!(Swizzle::B32.apply(128, 0), 128 + 16);
        assert_eq!(Swizzle::B32.apply(256, 0), 256);
        // 128B/32B atom: 32-byte unit ^= row % 4
        assert_eq!(
            Swizzle::B128Atom32.apply(3 * 128 + 32, 0),
            3 * 128 + 32 * (1 ^ 3)
        );
        assert_eq!(Swizzle::None.apply(12345, 3), 12345);
    }

    fn arb_desc() -> impl Strategy<Value = SmemDesc> {
        (
            0u32..1 << 14,
            0u32..1 << 14,
            0u32..1 << 14,
            0u8..8,
            any::<bool>(),
            0usize..5,
        )
            .prop_map(|(s, l, b, bo, abs, sw)| {
                let swizzle = Swizzle::ALL[sw];
                let mut d = SmemDesc {
                    start: s << 4,
                    lbo: l << 4,
                    sbo: b << 4,
                    base_offset: bo,
                    lbo_mode: if abs {
                        LboMode::Absolute
                    } else {
                        LboMode::Relative
                    },
                    swizzle,
                };
                if swizzle == Swizzle::B128Atom32 {
                    d.start &= !31;
                }
                if abs {
                    d.swizzle = Swizzle::B128;
                    d.base_offset = 0;
                }
                d
            })
    }

    proptest! {
        #[test]
        fn raw_roundtrip_every_u64(x in any::<u64>()) {
            prop_assert_eq!(RawDesc::decode(x).encode(), x);
        }

        #[test]
        fn decode_encode_roundtrip(d in arb_desc()) {
            prop_assert_eq!(SmemDesc::decode(d.encode()), Ok(d));
        }

        #[test]
        fn valid_iff_encoding_rules(x in any::<u64>()) {
            let r = RawDesc::decode(x);
            let plausible = r.fixed_46 == 1 && r.fixed_53 == 0 && r.reserved_14 == 0 && r.reserved_30 == 0
                && Swizzle::from_code(r.swizzle).is_some();
            if !plausible {
                prop_assert!(SmemDesc::decode(x).is_err());
            }
            if let Ok(d) = SmemDesc::decode(x) {
                prop_assert_eq!(d.encode(), x);
            }
        }

        #[test]
        fn swizzle_is_an_involution_within_its_pattern(addr in 0u32..1 << 18, bo in 0u8..8, sw in 0usize..5) {
            let s = Swizzle::ALL[sw];
            let y = s.apply(addr, bo);
            prop_assert_eq!(s.apply(y, bo), addr);
            prop_assert_eq!(y / s.pattern_bytes().max(128), addr / s.pattern_bytes().max(128));
            prop_assert_eq!(y % 16, addr % 16);
        }
    }
}
