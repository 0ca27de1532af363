//! Reference semantics mechanisms: the pure building blocks the executor composes.
//!
//! - [`ub`]: undefined behaviour as classified data, and the catalogue of rules.
//! - [`memory`]: byte memory whose bytes may be uncertain (sets of allowed values), with
//!   in-flight asynchronous writes and source-read holds.
//! - [`mbarrier`]: the mbarrier object state machine (§9.7.13.15).
//! - [`groups`]: per-thread cp.async-group and bulk async-group queues (§9.7.9.25.1, .3, .6).
//! - [`reduce`]: cp.reduce.async.bulk element arithmetic and its legality table (§9.7.9.25.4.2).
//! - [`tracking`]: which in-flight copies signal which mbarrier (complete-tx, cp.async arrive-on).

pub mod groups;
pub mod mbarrier;
pub mod memory;
pub mod reduce;
pub mod tracking;
pub mod ub;

pub use ub::{Ub, UbRule};
