//! The case model: what a YAML case is, as data ([`model`]: the schema serde reads and writes),
//! its regions' initial contents ([`init`]), and the names it declares with the parse context of
//! its PTX ([`names`]).
//!
//! This is the layer the semantics and the layout read: it uses only the instruction model, the
//! targets and the tensor map's parameters, never the executor. Loading a case from YAML and
//! validating it (which asks the executor how many orders a concurrent group has) is
//! [`crate::case`], above [`crate::sem`]; `case` re-exports this module's items under their
//! usual paths (`case::Case`, `case::model::…`, `case::init::…`).

pub mod init;
pub mod model;
pub mod names;

pub use model::*;
