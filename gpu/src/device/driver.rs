//! The CUDA driver, wrapped: this module and its parts (`error`, `memory`, `module`) and the
//! tensor-map encoders beside it ([`super::tensormap`]) are the only code that calls the driver.
//! Every raw call we need appears there once, wrapped in a small safe type; every `unsafe` block
//! carries a SAFETY comment.
//!
//! Position taken: the worker uses the device's *primary* context (retain/release) rather than
//! `cuCtxCreate_v4`, because one context per worker process is all we need and a trap kills the
//! process anyway.
//!
//! cudarc's `dynamic-loading` stubs panic when libcuda or a symbol is missing, so:
//! - [`Driver::load`] checks `is_culib_present()` before any other call;
//! - the tensor-map encoders resolve their symbol themselves ([`symbol_present`]) and call it
//!   through a local function-pointer type whose enum arguments are plain `u32`. That lets a
//!   conformance test pass an out-of-range enum value to the driver (constructing an invalid Rust
//!   enum would be undefined behaviour) and turns a missing `cuTensorMapEncodeIm2colWide` (drivers
//!   older than 12.8) into [`crate::device::EncodeError::Unavailable`] instead of a panic.

use std::ffi::{c_char, c_int, CStr};

use cudarc::driver::sys;
use serde::{Deserialize, Serialize};

mod error;
mod memory;
mod module;

use error::check;
pub(crate) use error::error_name;
pub use error::{sticky, DriverError, SyncError, TrapKind};
pub use memory::{DeviceBuffer, PinnedBuffer};
pub use module::{
    Function, LaunchDims, Module, ModuleError, ParamImage, DEFAULT_DYNAMIC_SMEM_LIMIT,
    PORTABLE_CLUSTER_SIZE,
};

/// Look a driver symbol up without cudarc's panicking loader.
///
/// # Safety
/// `F` must be the exact C signature of the symbol, and libcuda must be present.
pub(crate) unsafe fn lookup<F: Copy>(name: &[u8]) -> Option<F> {
    // SAFETY: the caller guarantees libcuda is present (so `culib()` does not panic) and that `F`
    // matches the symbol's C signature; `get` only resolves the address.
    unsafe { sys::culib().get::<F>(name).ok().map(|s| *s) }
}

/// Whether the loaded driver exports `name` (e.g. `"cuTensorMapEncodeIm2colWide"`).
pub fn symbol_present(_driver: &Driver, name: &str) -> bool {
    let mut z = name.as_bytes().to_vec();
    z.push(0);
    // SAFETY: a `Driver` exists, so libcuda is present; the pointer type is irrelevant because we
    // never call it.
    unsafe { lookup::<unsafe extern "C" fn()>(&z).is_some() }
}
/// Static facts about the device, gathered once per worker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceInfo {
    pub ordinal: i32,
    pub name: String,
    /// Compute capability, e.g. (9, 0) for H100.
    pub compute_capability: (i32, i32),
    /// `cuDriverGetVersion`, e.g. 13000 for CUDA 13.0.
    pub driver_version: i32,
    pub sm_count: i32,
    /// `MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`: the most dynamic shared memory a kernel may opt into.
    pub max_shared_per_block_optin: i32,
    pub cluster_launch: bool,
}

impl DeviceInfo {
    /// The CUDA version the driver supports, as reports print it ("CUDA 13.0").
    pub fn cuda(&self) -> String {
        format!(
            "CUDA {}.{}",
            self.driver_version / 1000,
            (self.driver_version % 1000) / 10
        )
    }
}

/// Proof that libcuda is loaded and `cuInit` succeeded.
#[derive(Debug)]
pub struct Driver(());

impl Driver {
    /// Load libcuda and initialise it. Never panics: a missing library is an error.
    pub fn load() -> Result<Driver, String> {
        // SAFETY: `is_culib_present` only tries to dlopen candidate library names.
        if !unsafe { sys::is_culib_present() } {
            return Err("no CUDA driver found".into());
        }
        // SAFETY: libcuda is present, so the stub resolves `cuInit`; flags must be 0.
        check("cuInit", unsafe { sys::cuInit(0) }).map_err(|e| e.to_string())?;
        Ok(Driver(()))
    }

    pub fn version(&self) -> Result<i32, DriverError> {
        let mut v: c_int = 0;
        // SAFETY: `v` is a valid out-pointer for the duration of the call.
        check("cuDriverGetVersion", unsafe {
            sys::cuDriverGetVersion(&mut v)
        })?;
        Ok(v)
    }

    /// How many CUDA devices this process sees (after `CUDA_VISIBLE_DEVICES`).
    pub fn device_count(&self) -> Result<i32, DriverError> {
        let mut n: c_int = 0;
        // SAFETY: `n` is a valid out-pointer; cuInit has run (we hold a `Driver`).
        check("cuDeviceGetCount", unsafe { sys::cuDeviceGetCount(&mut n) })?;
        Ok(n)
    }

    pub fn device(&self, ordinal: i32) -> Result<Device, DriverError> {
        let mut d: sys::CUdevice = 0;
        // SAFETY: `d` is a valid out-pointer; cuInit has run (we hold a `Driver`).
        check("cuDeviceGet", unsafe { sys::cuDeviceGet(&mut d, ordinal) })?;
        Ok(Device { raw: d, ordinal })
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Device {
    raw: sys::CUdevice,
    ordinal: i32,
}

impl Device {
    fn attribute(
        &self,
        a: sys::CUdevice_attribute,
        call: &'static str,
    ) -> Result<i32, DriverError> {
        let mut v: c_int = 0;
        // SAFETY: `v` is a valid out-pointer and `self.raw` came from `cuDeviceGet`.
        check(call, unsafe {
            sys::cuDeviceGetAttribute(&mut v, a, self.raw)
        })?;
        Ok(v)
    }

    pub fn info(&self, driver: &Driver) -> Result<DeviceInfo, DriverError> {
        use sys::CUdevice_attribute as A;
        let mut buf = [0 as c_char; 256];
        // SAFETY: the buffer is 256 bytes and we pass its length; the driver NUL-terminates.
        check("cuDeviceGetName", unsafe {
            sys::cuDeviceGetName(buf.as_mut_ptr(), buf.len() as c_int, self.raw)
        })?;
        // SAFETY: zero-initialised buffer whose last byte the driver never overwrites past `len`,
        // so a NUL terminator exists within it.
        let name = unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        Ok(DeviceInfo {
            ordinal: self.ordinal,
            name,
            compute_capability: (
                self.attribute(
                    A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                    "cuDeviceGetAttribute(CC_MAJOR)",
                )?,
                self.attribute(
                    A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                    "cuDeviceGetAttribute(CC_MINOR)",
                )?,
            ),
            driver_version: driver.version()?,
            sm_count: self.attribute(
                A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                "cuDeviceGetAttribute(SM_COUNT)",
            )?,
            max_shared_per_block_optin: self.attribute(
                A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)",
            )?,
            cluster_launch: self.attribute(
                A::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH,
                "cuDeviceGetAttribute(CLUSTER_LAUNCH)",
            )? != 0,
        })
    }

    /// Retain the primary context and make it current on this thread.
    pub fn context(&self) -> Result<Context, DriverError> {
        let mut ctx: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: `ctx` is a valid out-pointer; `self.raw` is a valid device.
        check("cuDevicePrimaryCtxRetain", unsafe {
            sys::cuDevicePrimaryCtxRetain(&mut ctx, self.raw)
        })?;
        let c = Context {
            raw: ctx,
            dev: self.raw,
        };
        // SAFETY: `ctx` was just retained and is alive until `c` drops.
        check("cuCtxSetCurrent", unsafe { sys::cuCtxSetCurrent(ctx) })?;
        Ok(c)
    }
}

/// The primary context, current on the thread that created it. Not `Send`: CUDA contexts are
/// per-thread current, and the worker is single-threaded.
#[derive(Debug)]
pub struct Context {
    /// Kept to document ownership; the context is used implicitly as the current one.
    #[allow(dead_code)]
    raw: sys::CUcontext,
    dev: sys::CUdevice,
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: we retained the primary context of `dev` once; release it once. Errors (e.g. a
        // poisoned context) are irrelevant at teardown.
        let _ = unsafe { sys::cuDevicePrimaryCtxRelease_v2(self.dev) };
    }
}
