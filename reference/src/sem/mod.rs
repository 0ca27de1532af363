//! STUB: semantics.
pub mod tensor;
