//! YAML cases: the schema ([`model`]) and loading with located errors.

pub mod model;
pub use model::*;
