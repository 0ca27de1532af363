//! The tensor map as the host describes it: the parameters of one `cuTensorMapEncodeTiled` /
//! `cuTensorMapEncodeIm2col` / `cuTensorMapEncodeIm2colWide` call (spec/09), as plain data.
//!
//! Field names are the driver parameter names in snake_case, so a YAML case carries a map as
//! `encode: tiled`, `tensor_data_type: float32`, `global_dim: [...]`, `swizzle: 128b`, ...
//! Parameters are kept raw (any integer, any array length) so that invalid maps are
//! representable: the validator ([`crate::sem::tensor::tensormap::validate`]), not the type,
//! decides which rule a parameter set breaks.
//!
//! This module is data only (no rule, no semantics), below both the case model
//! ([`crate::case_model`], whose tensor-map declarations hold a [`TensorMapParams`]) and the
//! semantics ([`crate::sem::tensor`], which validates and uses them);
//! `sem::tensor::tensormap` re-exports every item, next to the validator.
//!
//! - `enums`: the driver's enumerations (`CUtensorMapDataType`, interleave, swizzle, ...).
//! - `params`: [`TensorMapParams`] (one encode call's parameters) and [`DriverArgs`].

mod enums;
mod params;

pub use enums::{DataType, EncodeKind, Interleave, L2Promotion, OobFill, Swizzle, WideMode};
pub use params::{dense_strides, DriverArgs, TensorMapParams};
