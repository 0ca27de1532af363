//! The differential core of ptxconform, above the reference model and below every backend and
//! command: the result model ([`result`]), known findings ([`known`]), the reference's side of
//! a case ([`evaluate`]), the one [`judge`] of an execution against an observation, and the
//! pipeline that runs a batch through a [`differential::Backend`]. No CUDA, no command line.
#![forbid(unsafe_code)]

pub mod corpus;
pub mod differential;
pub mod evaluate;
pub mod glob;
pub mod hash;
pub mod judge;
pub mod known;
#[cfg(feature = "mutants")]
pub mod mutants;
pub mod pools;
pub mod result;
pub mod trace;
