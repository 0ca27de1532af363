//! ptxconform reference model: the executable specification of the PTX asynchronous-copy
//! instructions. Pure Rust, no CUDA, no `unsafe`.
//!
//! - [`target`]: targets, PTX ISA versions, static legality as data.
//! - [`ptx`]: the typed instruction model (parse / print / enumerate / legality), one module per family.
//! - [`tensor_map`]: a tensor map's `cuTensorMapEncode*` parameters, as data.
//! - [`case_model`]: the case model (schema, region initialisation, declared names), which the
//!   semantics and the layout read.
//! - [`case`]: the YAML case format: loading with located errors and validation (above the
//!   semantics: it bounds concurrent groups by the executor's orders); re-exports the model.
//! - [`layout`]: where a case's regions, mbarriers and tensor maps live (shared with the emitter).
//! - [`sem`]: semantics — memory with uncertain bytes, mbarriers, async-group queues, reductions,
//!   tensor maps, Tensor Memory, the executor, undefined-behaviour classification, the profiles.
//! - [`gen`]: the structure-aware program generator (fuzzing, sweeps, special-value corpora).
//! - [`build`]: which code generator builds a kernel (`ptxas-13.0-O3`, `jit-O4`), as a name.
//! - [`hex`]: hex text of byte strings.
//! - [`capped`]: a flood of messages cut to the first few and a count.
#![forbid(unsafe_code)]

pub mod build;
pub mod capped;
pub mod case;
pub mod case_model;
pub mod gen;
pub mod hex;
pub mod layout;
pub mod ptx;
pub mod sem;
pub mod target;
pub mod tensor_map;
