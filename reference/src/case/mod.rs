//! YAML cases: the schema ([`model`]), loading with located errors ([`load`]), validation
//! ([`validate`]) and region initialisation ([`init`]).

pub mod error;
pub mod init;
pub mod load;
mod loc;
pub mod model;
#[cfg(test)]
pub mod strategy;
pub mod validate;

pub use error::CaseError;
pub use load::{
    check_str, load_bytes, load_dir, load_dir_each, load_each, load_file, load_file_each, load_str,
    to_yaml, Checked,
};
pub use loc::Seg;
pub use model::*;

#[cfg(test)]
mod tests;
