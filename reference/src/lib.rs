//! ptxconform reference model: the executable specification of the PTX asynchronous-copy
//! instructions. Pure Rust, no CUDA.
//!
//! - [`target`]: targets, PTX ISA versions, static legality as data.
//! - [`ptx`]: the typed instruction model (parse / print / enumerate / legality), one module per family.
//! - [`case`]: the YAML case format.
//! - [`sem`]: semantics — memory with uncertain bytes, mbarriers, async-group queues, the executor.

pub mod case;
pub mod gen;
pub mod hex;
pub mod layout;
pub mod ptx;
pub mod sem;
pub mod target;
