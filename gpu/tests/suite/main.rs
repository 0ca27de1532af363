//! The crate's integration tests, one binary: each file below was its own test binary, and
//! every binary links the whole crate graph again (link time and disk on a 2-core CI host).

mod emit_cases;
mod emit_generated;
mod emit_gpu;
mod emit_mapa;
mod emit_shape;
mod emit_tcgen05;
mod ptxas_skip;
