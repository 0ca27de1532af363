//! YAML cases: loading with located errors ([`load`]) and validation ([`validate`]), over the
//! case model ([`crate::case_model`]: the schema [`model`], region initialisation [`init`]),
//! which this module re-exports so that `case::Case`, `case::model::…` and `case::init::…` name
//! the model's items.
//!
//! Layering: the model is below the semantics ([`crate::sem`] executes a `Case`,
//! [`crate::layout`] places it); loading and validation are above them, since validation bounds
//! a concurrent group by the orders the executor would run. So every loader validates fully, and
//! the reference crate's modules form no cycle.

pub mod error;
pub mod load;
mod loc;
#[cfg(test)]
pub mod strategy;
pub mod validate;

pub use crate::case_model::{init, model};
pub use error::CaseError;
pub use load::{
    check_str, load_bytes, load_dir, load_dir_each, load_each, load_file, load_file_each, load_str,
    to_yaml, Checked,
};
pub use loc::Seg;
pub use model::*;

#[cfg(test)]
mod tests;
