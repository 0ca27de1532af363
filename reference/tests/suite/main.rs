//! The crate's integration tests, one binary: each file below was its own test binary, and
//! every binary links the whole crate graph again (link time and disk on a 2-core CI host).
//! Tests that change process-wide state stay binaries of their own (node_limit_env.rs).

mod corpus_executes;
mod corpus_validates;
mod exec_bulk;
mod exec_concurrent;
mod exec_cp_async;
mod exec_errors;
mod exec_mbarrier;
mod exec_proxy;
mod exec_reduce;
mod exec_smoke;
mod exec_support;
mod exec_tensormap;
mod expect_bytes;
mod expect_driver_rejects;
mod fuzz_corpus_replay;
mod gen_reference;
mod gen_stability;
mod gen_valid;
mod large_case;
mod mutants;
mod reduce_special;
mod roundtrip;
mod spec_examples;
mod sync_corpus;
mod tcgen05_corpus;
mod tensor_corpus;
mod ub_silicon;
