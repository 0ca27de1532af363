//! Reference semantics of the tensor copies (`cp.async.bulk.tensor`): the tensor map and its
//! validator, the shared-memory swizzle patterns, and the address generation of every load and
//! store mode. Pure functions: no case or executor coupling.
//!
//! - [`tensormap`]: `cuTensorMapEncode*` parameters, [`tensormap::validate`], [`tensormap::param_sweep`].
//! - [`swizzle`]: §5.5.7 patterns as address functions.
//! - [`tile`], [`gather`], [`im2col`]: the box's slots per mode.
//! - [`access`]: [`access::load`] / [`access::store`] → [`access::CopyPlan`], complete-tx bytes.
//! - [`assumptions`]: the named positions taken where the documentation is silent.

pub mod access;
pub mod assumptions;
pub mod gather;
pub mod im2col;
pub mod swizzle;
pub mod tensormap;
pub mod tile;

#[cfg(test)]
mod tests;

pub use access::{apply_load, apply_store, complete_tx_bytes, load, store, CopyError, CopyPlan, LoadMode, StoreMode, Transfer};
pub use tensormap::{validate, EncodeReject, TensorMapParams, ValidatedMap};
