//! Reference semantics mechanisms: the pure building blocks the executor composes.
//!
//! - [`ub`]: undefined behaviour as classified data ([`Ub`]), and the catalogue of rules.
//! - [`memory`]: byte memory whose bytes may be uncertain (sets of allowed values), with
//!   in-flight asynchronous writes, asynchronous updates (reductions) and source-read holds.
//! - [`mbarrier`]: the mbarrier object state machine (§9.7.13.15).
//! - [`groups`]: per-thread cp.async-group and bulk async-group queues (§9.7.9.25.1, .3, .6).
//! - [`reduce`]: cp.reduce.async.bulk element arithmetic and its legality tables (§9.7.9.25.4.2).
//! - [`profile`]: the positions where the text and sm_90 silicon differ, with both readings.
//! - [`tracking`]: which in-flight copies signal which mbarrier (complete-tx, cp.async arrive-on).
//! - [`proxy`]: generic vs async proxy, the cross-proxy rules and the notes they leave.
//!
//! How the executor uses them (one instruction at a time, in its chosen interleaving):
//! - copy issue (cp.async / cp.async.bulk{.tensor}): check UB the instruction page names
//!   (sizes, alignment, ranges → `ub::BULK_*`, `ub::ADDRESS_MISALIGNED`, ...); `src =
//!   mem.read(..)`; `hold = mem.hold_source(..)`; `w = mem.begin_async_write(dst, src)`; then
//!   either `queue.issue(AsyncOp{..})` (async-group mechanism) or
//!   `tracking.track_copy(TrackedCopy{barrier, tx_bytes, ..})` (mbarrier mechanism).
//! - cp.reduce.async.bulk issue: `w = mem.begin_async_update(dst, len)`; when it lands,
//!   `mem.complete_update(w, reduce::apply_uncertain(arith, op, ty, &mem.read(dst)?, &src)?.bytes)`.
//! - proxies: a plain store (`mem.write`) and cp.async (`begin_write_in(.., Proxy::Generic)`)
//!   write through the generic proxy, bulk / tensor copies and reductions through the async
//!   proxy; a source is read with `mem.read_in(.., proxy)`, which widens bytes the other proxy
//!   wrote without a fence (the executor notes the `proxy::` rule); `mem.proxy_fence` and
//!   `mem.completion_fence` order them.
//! - plain loads/stores: before reading, `mem.in_flight_overlapping` non-empty →
//!   `ub::ASYNC_DST_READ`; before writing, `mem.holds_overlapping` non-empty →
//!   `ub::ASYNC_SRC_MODIFIED`; a store to a `Slot` holding an object → `ub::MBAR_NON_MBARRIER_ACCESS`.
//! - commit/wait: `queue.commit()`, `queue.wait_group(n)` / `wait_all()` /
//!   `wait_group_read(n)` return a `groups::Release`; `release.apply(&mut mem)`.
//! - mbarrier instructions: `Slot::{init, inval, expect_tx, complete_tx, arrive, test_wait,
//!   test_wait_parity, cp_async_arrive}`, `mbarrier::pending_count`; try_wait is test_wait
//!   (the model has no time: False means "not yet"). Phase completions come back as
//!   `PhaseCompleted`; a wait that returns False while copies tracked by that barrier are in
//!   flight is where the executor may land them (`tracking.land_copies`) — that choice is its
//!   scheduling policy, not a mechanism.
//! - cp.async.mbarrier.arrive: `p = slot.cp_async_arrive(noinc)?;
//!   tracking.track_cp_async_arrive(p, queue.outstanding())`; after copies land,
//!   `tracking.fire_ready_arrives(..)`.
//! - kernel end: `mem.complete_all()` (returns updates still needing a result), then compare
//!   with `mem.matches_region(region, observed)`; `reduce::same_value` for NaN-agnostic checks.

mod byte_map;
pub mod exec;
pub mod groups;
pub mod mbarrier;
pub mod memory;
pub mod mutant;
pub mod profile;
pub mod proxy;
pub mod reduce;
pub mod tcgen05;
pub mod tensor;
pub mod tracking;
pub mod ub;

pub use ub::{Ub, UbRule};
