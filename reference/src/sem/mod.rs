//! STUB: semantics.

pub mod tcgen05;
