//! The crate's integration tests, one binary: each file below was its own test binary, and
//! every binary links the whole crate graph again (link time and disk on a 2-core CI host).

mod architecture;
mod build_label;
mod cli_check;
mod cli_explain;
mod cli_legality;
mod cli_run;
mod cli_syntax;
mod emit_cli;
mod litmus_cli;
mod run_cli;
mod shard_merge;
mod tensormap;
