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

/// Undefined behaviour found by the model: which rule, where the manual states it, and why.
///
/// Local to tcgen05 because no shared `sem::ub` type exists in this tree yet; the lead may fold
/// it into the shared one (same three fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ub {
    /// Stable rule id, e.g. `tcgen05.alloc.ncols`.
    pub rule: &'static str,
    /// Manual section, e.g. `§9.7.16.7.1`.
    pub section: &'static str,
    pub message: String,
}

impl Ub {
    pub(crate) fn new(rule: &'static str, section: &'static str, message: impl Into<String>) -> Ub {
        Ub { rule, section, message: message.into() }
    }
}

impl fmt::Display for Ub {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "undefined behaviour [{}] ({}): {}", self.rule, self.section, self.message)
    }
}

impl std::error::Error for Ub {}
