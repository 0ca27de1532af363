pub mod cli;
pub mod emit;
pub mod gpu;
pub mod journal;
pub mod kernel;
pub mod legality;
pub mod report;
pub mod ptxas;
