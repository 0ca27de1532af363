//! The `ptxconform` command line: subcommands ([`commands`], [`run`], [`fuzz`], [`bench`],
//! [`litmus`], [`sweep`], [`merge`], the ptxas [`legality`] differential), the campaigns behind
//! them, the result files ([`journal`], [`report`], [`shard`]), and Ctrl-C ([`interrupt`]).

pub mod bench;
pub mod commands;
pub mod evidence;
pub mod fuzz;
pub mod interrupt;
pub mod journal;
pub mod legality;
pub mod litmus;
pub mod merge;
pub mod report;
pub mod run;
pub mod schema_version;
pub mod shard;
pub mod sweep;
