//! The GPU backend of ptxconform: emission of cases as PTX kernels ([`emit`]), compilation
//! ([`ptxas`], [`compile`], the [`builds`] a kernel can be made with), the device through the
//! CUDA driver in isolated worker processes ([`device`]), the [`engine`] that is the
//! differential core's GPU backend, and [`attribution`] of departures across builds.

pub mod attribution;
pub mod builds;
pub mod compile;
pub mod device;
pub mod emit;
pub mod engine;
pub mod ptxas;
pub mod test_kernel;
pub mod test_support;
