//! Subcommand implementations that are not a module of their own.

pub mod check;
pub mod coverage;
pub mod emit;
pub mod explain;
pub mod field_reference;
pub mod mutants;
pub mod new;
pub mod rules;
pub mod rules_evidence;
pub mod schema;
pub mod syntax;
pub mod tensormaps;
