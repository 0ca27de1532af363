//! The `ptxconform` command line: subcommands ([`commands`], [`run`], [`fuzz`], [`bench`],
//! [`litmus`], [`sweep`], [`merge`], the ptxas [`legality`] differential), the campaigns behind
//! them, the result files ([`journal`], [`report`], [`shard`], the sweeps' [`records`]), Ctrl-C ([`interrupt`]), and standard
//! output whose reader may leave ([`stdout`]).

// `print!` and `println!` for every module below: std's panic when stdout's reader is gone;
// these end the process quietly instead (see `stdout`). Unit tests keep std's, which the test
// harness captures; `cli/tests/suite/cli_run.rs` checks these through the binary.
#[cfg(not(test))]
macro_rules! print {
    ($($arg:tt)*) => {
        $crate::stdout::print(format_args!($($arg)*))
    };
}
#[cfg(not(test))]
macro_rules! println {
    () => {
        $crate::stdout::print(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::stdout::print(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub mod bench;
pub mod commands;
pub mod evidence;
pub mod fuzz;
pub mod interrupt;
pub mod journal;
pub mod legality;
pub mod litmus;
pub mod merge;
pub mod records;
pub mod report;
pub mod run;
pub mod schema_version;
pub mod shard;
pub mod stdout;
pub mod sweep;
