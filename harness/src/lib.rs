pub mod cli;
pub mod emit;
pub mod gpu;
pub mod kernel;
pub mod legality;
pub mod ptxas;
