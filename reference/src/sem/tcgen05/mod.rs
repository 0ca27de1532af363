//! Reference semantics of Tensor Memory and `tcgen05.cp` (§9.7.16), as pure state machines that
//! an executor drives: no coupling to the case executor, no CUDA.
//!
//! - [`tmem`]: one CTA's Tensor Memory — allocation state, cells that are undefined until written,
//!   the per-warp lane-access rule of tcgen05.ld/st.
//! - [`desc`]: the 64-bit shared-memory matrix descriptor — bit fields, invalid encodings, and the
//!   canonical-layout address function.
//! - [`cp`]: `tcgen05.cp` placement (source 16-byte chunk → (lane, column) cells), multicast,
//!   `.cta_group::2`, and the optional decompression.
//! - [`commit`]: completion tracking — `tcgen05.commit` (arrive-one on an mbarrier) and
//!   `tcgen05.wait::ld` / `::st`.
//!
//! Where the manual gives a fact only in a figure, the modules take a named position
//! ([`cp::Assumption`], [`desc::Assumption`], [`tmem::Assumption`]) listed in
//! `reports/tcgen05-open-questions.md`.

pub mod commit;
pub mod cp;
pub mod desc;
pub mod tmem;

use std::fmt;

/// One undefined-behaviour rule, shaped like `sem::ub::UbRule` on main (minus `layer`: all of
/// these are detected by the tcgen05 mechanisms or the executor calling them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UbRule {
    pub id: &'static str,
    /// Manual section, without the `§`.
    pub section: &'static str,
    pub summary: &'static str,
    /// True where the manual says "must" / "illegal" or is silent and the model classifies the
    /// violation as UB; false where it says "undefined".
    pub assumption: bool,
}

/// A classified occurrence of undefined behaviour, field-for-field `sem::ub::Ub` on main.
///
/// Local because this branch was cut before `sem/ub.rs` existed; on merge, `Ub` can become
/// `crate::sem::ub::Ub` and [`rules::CATALOGUE`] can join its catalogue (with a tcgen05 layer).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ub {
    pub rule: &'static str,
    pub section: &'static str,
    pub detail: String,
}

impl Ub {
    pub fn new(rule: &UbRule, detail: impl Into<String>) -> Ub {
        Ub { rule: rule.id, section: rule.section, detail: detail.into() }
    }
}

impl fmt::Display for Ub {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "undefined behaviour [{}] (§{}): {}", self.rule, self.section, self.detail)
    }
}

impl std::error::Error for Ub {}

/// The tcgen05 UB rules.
pub mod rules {
    use super::UbRule;

    macro_rules! rules {
        ($($name:ident = ($id:literal, $sec:literal, $assume:literal, $summary:literal);)*) => {
            $(pub const $name: UbRule = UbRule { id: $id, section: $sec, summary: $summary, assumption: $assume };)*
            /// Every tcgen05 rule, in declaration order.
            pub const CATALOGUE: &[UbRule] = &[$($name),*];
        };
    }

    rules! {
    ALLOC_NCOLS = ("tcgen05.alloc.ncols_invalid", "9.7.16.7.1", true, "nCols of alloc/dealloc not a power of 2 within [32, 512]");
    ALLOC_NCOLS_INCREASING = ("tcgen05.alloc.ncols_increasing", "9.7.16.7.1", true, "an allocation larger than the CTA's previous one (nCols must not increase)");
    ALLOC_AFTER_RELINQUISH = ("tcgen05.alloc.after_relinquish", "9.7.16.7.1", true, "tcgen05.alloc after the CTA executed tcgen05.relinquish_alloc_permit (\"illegal\")");
    ALLOC_PLACEMENT = ("tcgen05.alloc.placement", "9.7.16.1.2", true, "device-reported allocation is not a free, 32-column-aligned run at lane 0 (model consistency)");
    ALLOC_LEAK = ("tcgen05.alloc.not_deallocated_at_exit", "9.7.16.7.1", true, "Tensor Memory still allocated when the kernel exits");
    DEALLOC_NOT_ALLOCATED = ("tcgen05.dealloc.not_allocated", "9.7.16.7.1", true, "dealloc taddr does not start a live allocation (double dealloc, never allocated)");
    DEALLOC_NCOLS_MISMATCH = ("tcgen05.dealloc.ncols_mismatch", "9.7.16.7.1", true, "dealloc nCols differs from the allocation's (partial dealloc; model position)");
    WARP_OPERAND_NOT_UNIFORM = ("tcgen05.warp_operand_not_uniform", "9.7.16.7.1", false, "threads of the warp disagree on nCols (alloc/dealloc) or taddr (ld/st)");
    TMEM_OUT_OF_RANGE = ("tcgen05.tmem.out_of_range", "9.7.16.1", true, "Tensor Memory cell outside 128 lanes x 512 columns");
    TMEM_UNALLOCATED = ("tcgen05.tmem.unallocated", "9.7.16.1.2", true, "access to a Tensor Memory column that is not allocated (model position)");
    LDST_LANE_ACCESS = ("tcgen05.ldst.lane_access", "9.7.16.8.1", true, "tcgen05.ld/st by warp w touches lanes outside 32*(w%4) .. +31");
    DESC_FIXED_46_48 = ("tcgen05.desc.fixed_46_48", "9.7.16.4.1", true, "descriptor bits 46-48 are not the fixed constant 0b001");
    DESC_FIXED_53_60 = ("tcgen05.desc.fixed_53_60", "9.7.16.4.1", true, "descriptor bits 53-60 are not the fixed constant 0");
    DESC_RESERVED = ("tcgen05.desc.reserved_bits", "9.7.16.4.1", true, "descriptor reserved bits 14-15 / 30-31 set (model position)");
    DESC_SWIZZLE_INVALID = ("tcgen05.desc.swizzle_invalid", "9.7.16.4.1", true, "descriptor swizzle mode 3, 5 or 7");
    DESC_START_MISALIGNED = ("tcgen05.desc.start_misaligned", "9.7.16.4.1", true, "start address not 32-byte aligned with 128B/32B-atom swizzling (model position)");
    DESC_LBO_ABSOLUTE_SWIZZLE = ("tcgen05.desc.lbo_absolute_swizzle", "9.7.16.3.1.2.1", true, "absolute leading-dimension mode without 128B (16B-atom) swizzling");
    DESC_LBO_ABSOLUTE_BASE_OFFSET = ("tcgen05.desc.lbo_absolute_base_offset", "9.7.16.3.1.2.1", true, "absolute leading-dimension mode with a non-zero base offset");
    DESC_LBO_ABSOLUTE_TARGET = ("tcgen05.desc.lbo_absolute_target", "9.7.16.4.1.1", true, "absolute leading-dimension mode on a target other than sm_103a");
    CP_SHAPE_MULTICAST = ("tcgen05.cp.shape_multicast", "9.7.16.9.2", true, "cp shape with a .multicast it does not take (statically rejected by the syntax model)");
    CP_MULTICAST_LANE = ("tcgen05.cp.multicast_lane", "9.7.16.9.2", true, "multicast cp (.64x128b/.32x128b) with taddr lane not 0 (model position)");
    CP_LANE_RANGE = ("tcgen05.cp.lane_range", "9.7.16.9.2", true, "cp destination lanes reach beyond lane 127");
    CP_COLUMN_RANGE = ("tcgen05.cp.column_range", "9.7.16.9.2", true, "cp destination columns reach beyond column 511");
    CP_SMEM_RANGE = ("tcgen05.cp.smem_range", "9.7.16.4.1", true, "cp source bytes outside the shared-memory window");
    CP_PEER_INACTIVE = ("tcgen05.cp.peer_inactive", "9.7.16.5", true, "cta_group::2 operation while the peer CTA is not active");
    CTA_GROUP_MIXED = ("tcgen05.cta_group_mixed", "9.7.16.9.2", true, "tcgen05 instructions of one kernel with different .cta_group");
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use std::collections::HashSet;

        #[test]
        fn ids_unique_sections_numeric() {
            let mut seen = HashSet::new();
            for r in CATALOGUE {
                assert!(seen.insert(r.id), "duplicate {}", r.id);
                assert!(r.id.starts_with("tcgen05."));
                assert!(r.section.starts_with("9.7.16"), "{}", r.section);
            }
        }
    }
}
