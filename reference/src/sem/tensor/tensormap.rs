//! The tensor map as the host builds it: the parameters of `cuTensorMapEncodeTiled` /
//! `cuTensorMapEncodeIm2col` / `cuTensorMapEncodeIm2colWide` (spec/09), and the validator that
//! applies every rule the driver page states (plus the few the PTX ISA adds, marked as such).
//!
//! The parameters themselves ([`TensorMapParams`], [`DriverArgs`], the driver's enumerations)
//! are plain data in [`crate::tensor_map`], below the case model and the semantics; they are
//! re-exported here. Parameters are kept raw, so the validator, not the type, decides, and says
//! which rule failed.
//!
//! - `rules`: the validator's rule catalogue ([`rule`]), with what the driver was seen to do.
//! - `validator`: [`validate`], [`validate_as_driver`], [`predict_driver`] → [`ValidatedMap`].
//! - `sweep`: [`param_sweep`], parameter sets near every rule's edge for the driver comparison.

mod rules;
mod sweep;
mod validator;

pub use crate::tensor_map::{
    dense_strides, DataType, DriverArgs, EncodeKind, Interleave, L2Promotion, OobFill, Swizzle,
    TensorMapParams, WideMode,
};
pub use rules::{rule, silicon_when_accepted, Observed, Rule, RuleSource};
pub use sweep::{param_sweep, SplitMix};
pub use validator::{
    corner_limit_of_rank, predict_driver, validate, validate_as_driver, EncodeReject, Geometry,
    Im2colBox, ValidatedMap, GLOBAL_DIM_MAX,
};
