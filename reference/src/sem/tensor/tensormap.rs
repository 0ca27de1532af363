//! The tensor map as the host builds it: the parameters of `cuTensorMapEncodeTiled` /
//! `cuTensorMapEncodeIm2col` / `cuTensorMapEncodeIm2colWide` (spec/09), and the validator that
//! applies every rule the driver page states (plus the few the PTX ISA adds, marked as such).
//!
//! Field names are the driver parameter names in snake_case, so a YAML case carries a map as
//! `encode: tiled`, `tensor_data_type: float32`, `global_dim: [...]`, `swizzle: 128b`, ...
//! Parameters are kept raw (any integer, any array length) so that invalid maps are
//! representable: the validator, not the type, decides, and says which rule failed.
//!
//! - `enums`: the driver's enumerations (`CUtensorMapDataType`, interleave, swizzle, ...).
//! - `params`: [`TensorMapParams`] (one encode call's parameters) and [`DriverArgs`].
//! - `rules`: the validator's rule catalogue ([`rule`]), with what the driver was seen to do.
//! - `validator`: [`validate`], [`validate_as_driver`], [`predict_driver`] → [`ValidatedMap`].
//! - `sweep`: [`param_sweep`], parameter sets near every rule's edge for the driver comparison.

mod enums;
mod params;
mod rules;
mod sweep;
mod validator;

pub use enums::{DataType, EncodeKind, Interleave, L2Promotion, OobFill, Swizzle, WideMode};
pub use params::{dense_strides, DriverArgs, TensorMapParams};
pub use rules::{rule, silicon_when_accepted, Observed, Rule, RuleSource};
pub use sweep::{param_sweep, SplitMix};
pub use validator::{
    predict_driver, validate, validate_as_driver, EncodeReject, Geometry, Im2colBox, ValidatedMap,
    GLOBAL_DIM_MAX,
};
