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

// UB: the rules live in `crate::sem::ub` (layer `Tcgen05`, ids `tcgen05.*`, consts `TCGEN05_*`).
