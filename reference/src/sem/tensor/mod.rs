//! Reference semantics of the tensor copies (`cp.async.bulk.tensor`): the tensor map and its
//! validator, the shared-memory swizzle patterns, and the address generation of every load and
//! store mode. Pure functions: no case or executor coupling.
//!
//! - [`tensormap`]: `cuTensorMapEncode*` parameters (the data lives in [`crate::tensor_map`],
//!   re-exported there), [`tensormap::validate`] (the documented
//!   contract, one stable rule id per rule), [`tensormap::predict_driver`] (what driver 13.0 on
//!   sm_90 actually returns), [`tensormap::param_sweep`], [`tensormap::TensorMapParams::driver_args`].
//! - [`swizzle`]: §5.5.7 patterns as address functions (CuTe `Swizzle<B,M,S>` correspondence).
//! - [`tile`], [`gather`], [`im2col`]: the box's slots per mode.
//! - [`access`]: [`access::load`] / [`access::store`] → [`access::CopyPlan`] (ordered transfers,
//!   OOB fill, conversions), complete-tx bytes, per-copy rules, `apply_load` / `apply_store`.
//! - [`assumptions`]: the named positions taken where the documentation is silent (several
//!   checked on an H100; the golden images are in `tests/golden.rs`).
//!
//! `driver_check/` holds the two C probes (`driver_check.c` for encode verdicts, `tma_check.c`
//! for copies) used to record the hardware results; see reports/tensor-open-questions.md.

pub mod access;
pub mod assumptions;
pub mod gather;
pub mod im2col;
pub mod swizzle;
pub mod tensormap;
pub mod tile;

#[cfg(test)]
mod tests;

pub use access::{
    apply_load, apply_store, complete_tx_bytes, load, prefetch, store, CopyError, CopyPlan,
    LoadMode, StoreMode, Transfer, SMEM_ALIGN_BYTES,
};
pub use tensormap::{
    predict_driver, validate, validate_as_driver, EncodeReject, TensorMapParams, ValidatedMap,
};
