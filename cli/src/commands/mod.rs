//! Subcommand implementations that are not a module of their own.

pub mod check;
pub mod coverage;
pub mod emit;
pub mod explain;
pub mod field_reference;
pub mod mutants;
pub mod new;
pub mod rules;
/// The recorded runs behind each rule (a top-level module: `fuzz` counts them too).
pub use crate::evidence as rules_evidence;
pub mod schema;
pub mod syntax;
pub mod tensormaps;
