pub mod cli;
pub mod kernel;
pub mod legality;
pub mod ptxas;
