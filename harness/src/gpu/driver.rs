//! The only file that talks to the CUDA driver. Every raw call we need appears here once, wrapped
//! in a small safe type; every `unsafe` block carries a SAFETY comment.
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
//!   older than 12.8) into [`EncodeError::Unavailable`] instead of a panic.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};

use cudarc::driver::sys;
use serde::{Deserialize, Serialize};

/// A failed driver call: which call, the raw `CUresult`, and the driver's name for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriverError {
    pub call: String,
    pub code: i32,
    pub name: String,
}

impl std::fmt::Display for DriverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} failed: {} ({})", self.call, self.name, self.code)
    }
}

impl std::error::Error for DriverError {}

/// Name of a `CUresult` code as the driver spells it, falling back to our own table. Private:
/// only called once libcuda is known to be present.
pub(crate) fn error_name(code: i32) -> String {
    if code == 0 {
        return "CUDA_SUCCESS".into();
    }
    // SAFETY: only reached after `is_culib_present()` returned true, so `lookup` does not panic;
    // the code goes through a `c_int` parameter (the C ABI of the enum) so an unknown code is not
    // an invalid Rust enum; `cuGetErrorName` stores a pointer to a static NUL-terminated string
    // or fails, and we only read it on success.
    let from_driver = unsafe {
        match lookup::<unsafe extern "C" fn(c_int, *mut *const c_char) -> c_int>(
            b"cuGetErrorName\0",
        ) {
            Some(f) => {
                let mut p: *const c_char = std::ptr::null();
                if f(code, &mut p) == 0 && !p.is_null() {
                    Some(CStr::from_ptr(p).to_string_lossy().into_owned())
                } else {
                    None
                }
            }
            None => None,
        }
    };
    from_driver.unwrap_or_else(|| match TrapKind::from_code(code) {
        Some(k) => k.driver_name().to_string(),
        None => format!("CUresult({code})"),
    })
}

fn check(call: &'static str, r: sys::CUresult) -> Result<(), DriverError> {
    let code = r as i32;
    if code == 0 {
        Ok(())
    } else {
        Err(DriverError {
            call: call.into(),
            code,
            name: error_name(code),
        })
    }
}

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

/// Sticky launch-time errors: after one of these the context is unusable, so the worker reports
/// the job and exits. Codes from `cudaError_enum` (CUDA 13.0 headers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrapKind {
    IllegalAddress,
    LaunchTimeout,
    Assert,
    HardwareStackError,
    IllegalInstruction,
    MisalignedAddress,
    InvalidAddressSpace,
    InvalidPc,
    LaunchFailed,
    TensorMemoryLeak,
    /// Any other 7xx code reported by the synchronize after a launch.
    Other(i32),
}

impl TrapKind {
    const TABLE: [(i32, TrapKind, &'static str); 10] = [
        (700, TrapKind::IllegalAddress, "CUDA_ERROR_ILLEGAL_ADDRESS"),
        (702, TrapKind::LaunchTimeout, "CUDA_ERROR_LAUNCH_TIMEOUT"),
        (710, TrapKind::Assert, "CUDA_ERROR_ASSERT"),
        (
            714,
            TrapKind::HardwareStackError,
            "CUDA_ERROR_HARDWARE_STACK_ERROR",
        ),
        (
            715,
            TrapKind::IllegalInstruction,
            "CUDA_ERROR_ILLEGAL_INSTRUCTION",
        ),
        (
            716,
            TrapKind::MisalignedAddress,
            "CUDA_ERROR_MISALIGNED_ADDRESS",
        ),
        (
            717,
            TrapKind::InvalidAddressSpace,
            "CUDA_ERROR_INVALID_ADDRESS_SPACE",
        ),
        (718, TrapKind::InvalidPc, "CUDA_ERROR_INVALID_PC"),
        (719, TrapKind::LaunchFailed, "CUDA_ERROR_LAUNCH_FAILED"),
        (
            721,
            TrapKind::TensorMemoryLeak,
            "CUDA_ERROR_TENSOR_MEMORY_LEAK",
        ),
    ];

    /// The trap a synchronize error code denotes; `None` for codes that do not poison the context.
    /// Assumption: every 7xx code other than the non-sticky ones below poisons the context.
    pub fn from_code(code: i32) -> Option<TrapKind> {
        if let Some((_, k, _)) = Self::TABLE.iter().find(|(c, _, _)| *c == code) {
            return Some(*k);
        }
        // 701 out of resources, 703 texturing, 704-713 peer/registration/context bookkeeping, and
        // 720 cooperative-too-large are reported at launch and leave the context usable.
        match code {
            701 | 703..=713 | 720 => None,
            700..=799 => Some(TrapKind::Other(code)),
            _ => None,
        }
    }

    pub fn code(self) -> i32 {
        match self {
            TrapKind::Other(c) => c,
            k => Self::TABLE
                .iter()
                .find(|(_, t, _)| *t == k)
                .map_or(0, |(c, _, _)| *c),
        }
    }

    pub fn driver_name(self) -> &'static str {
        Self::TABLE
            .iter()
            .find(|(_, t, _)| *t == self)
            .map_or("CUDA_ERROR_<sticky 7xx>", |(_, _, n)| n)
    }
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

/// Why a module did not load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModuleError {
    /// The PTX text contains a NUL byte and cannot be passed as a C string.
    InteriorNul,
    /// The JIT rejected the PTX: the driver's error plus its error log.
    Jit { error: DriverError, log: String },
}

/// A loaded module. The JIT info log (warnings) is kept for reports.
#[derive(Debug)]
pub struct Module<'c> {
    raw: sys::CUmodule,
    pub info_log: String,
    _ctx: std::marker::PhantomData<&'c Context>,
}

impl Drop for Module<'_> {
    fn drop(&mut self) {
        // SAFETY: `raw` was returned by a successful `cuModuleLoadDataEx` and is unloaded once.
        let _ = unsafe { sys::cuModuleUnload(self.raw) };
    }
}

const JIT_LOG_BYTES: usize = 64 * 1024;

fn log_text(buf: &[u8], used: usize) -> String {
    let used = used.min(buf.len());
    let end = buf[..used].iter().position(|&b| b == 0).unwrap_or(used);
    String::from_utf8_lossy(&buf[..end]).trim_end().to_string()
}

/// Dimensions and shared memory for one launch; `cluster: None` is a plain launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchDims {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    #[serde(default)]
    pub cluster: Option<[u32; 3]>,
    #[serde(default)]
    pub dynamic_smem: u32,
}

/// Above this, a kernel must opt in via `MAX_DYNAMIC_SHARED_SIZE_BYTES`.
pub const DEFAULT_DYNAMIC_SMEM_LIMIT: u32 = 48 * 1024;
/// Portable cluster size limit; larger clusters need `NON_PORTABLE_CLUSTER_SIZE_ALLOWED`.
pub const PORTABLE_CLUSTER_SIZE: u32 = 8;

impl Context {
    /// JIT-compile PTX with `cuModuleLoadDataEx`, capturing the info and error logs.
    pub fn load_module(&self, ptx: &str) -> Result<Module<'_>, ModuleError> {
        self.load_module_at(ptx, None)
    }

    /// [`Context::load_module`] at JIT optimization level `level` (0–4; `None`: the driver's
    /// default).
    pub fn load_module_at(&self, ptx: &str, level: Option<u8>) -> Result<Module<'_>, ModuleError> {
        let image = CString::new(ptx).map_err(|_| ModuleError::InteriorNul)?;
        self.load_image(image.as_bytes_with_nul(), level)
    }

    /// The machine code the driver's JIT makes of `ptx` at `level` (0–4), as a cubin: the same
    /// compiler `cuModuleLoadDataEx` runs, through the linker API (`cuLinkCreate` /
    /// `cuLinkAddData` / `cuLinkComplete`), which hands the image back.
    pub fn jit_cubin(&self, ptx: &str, level: u8) -> Result<Vec<u8>, ModuleError> {
        let image = CString::new(ptx).map_err(|_| ModuleError::InteriorNul)?;
        let mut err = vec![0u8; JIT_LOG_BYTES];
        use sys::CUjit_option as O;
        let mut opts = [
            O::CU_JIT_ERROR_LOG_BUFFER,
            O::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            O::CU_JIT_OPTIMIZATION_LEVEL,
        ];
        let mut vals: [*mut c_void; 3] = [
            err.as_mut_ptr().cast(),
            std::ptr::without_provenance_mut(JIT_LOG_BYTES),
            std::ptr::without_provenance_mut(usize::from(level.min(4))),
        ];
        let fail = |error: DriverError, err: &[u8], used: usize| ModuleError::Jit {
            error,
            log: log_text(err, used),
        };
        let mut state: sys::CUlinkState = std::ptr::null_mut();
        // SAFETY: `opts` and `vals` have equal length 3, the log buffer is JIT_LOG_BYTES long and
        // outlives the link state (destroyed below); the context is current.
        check("cuLinkCreate", unsafe {
            sys::cuLinkCreate_v2(3, opts.as_mut_ptr(), vals.as_mut_ptr(), &mut state)
        })
        .map_err(|e| fail(e, &err, 0))?;
        let bytes = image.as_bytes_with_nul();
        // SAFETY: `bytes` is NUL-terminated PTX alive for the call; the name is a C string; no
        // per-input options.
        let added = check("cuLinkAddData", unsafe {
            sys::cuLinkAddData_v2(
                state,
                sys::CUjitInputType::CU_JIT_INPUT_PTX,
                bytes.as_ptr() as *mut c_void,
                bytes.len(),
                c"kernel.ptx".as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        });
        let mut out: *mut c_void = std::ptr::null_mut();
        let mut size = 0usize;
        // SAFETY: `state` is live; on success the image stays valid until cuLinkDestroy, and it is
        // copied out before that.
        let done = added.and_then(|()| {
            check("cuLinkComplete", unsafe {
                sys::cuLinkComplete(state, &mut out, &mut size)
            })
        });
        let cubin = done.map(|()| {
            // SAFETY: `out` points at `size` bytes owned by the link state, alive until destroyed.
            unsafe { std::slice::from_raw_parts(out as *const u8, size) }.to_vec()
        });
        // SAFETY: created above, destroyed once.
        let _ = unsafe { sys::cuLinkDestroy(state) };
        cubin.map_err(|e| fail(e, &err, vals[1].addr()))
    }

    /// Load a compiled module (a cubin from offline ptxas) with `cuModuleLoadDataEx`.
    pub fn load_cubin(&self, cubin: &[u8]) -> Result<Module<'_>, ModuleError> {
        if cubin.len() < 4 || &cubin[..4] != b"\x7fELF" {
            return Err(ModuleError::Jit {
                error: DriverError {
                    call: "cuModuleLoadDataEx".into(),
                    code: 200,
                    name: "CUDA_ERROR_INVALID_IMAGE".into(),
                },
                log: "not an ELF cubin".into(),
            });
        }
        self.load_image(cubin, None)
    }

    /// `image`: NUL-terminated PTX or an ELF cubin.
    fn load_image(&self, image: &[u8], level: Option<u8>) -> Result<Module<'_>, ModuleError> {
        let mut info = vec![0u8; JIT_LOG_BYTES];
        let mut err = vec![0u8; JIT_LOG_BYTES];
        use sys::CUjit_option as O;
        let mut opts = vec![
            O::CU_JIT_INFO_LOG_BUFFER,
            O::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            O::CU_JIT_ERROR_LOG_BUFFER,
            O::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            O::CU_JIT_LOG_VERBOSE,
        ];
        // Size options are passed by value in the pointer slot and overwritten with bytes used.
        let mut vals: Vec<*mut c_void> = vec![
            info.as_mut_ptr().cast(),
            std::ptr::without_provenance_mut(JIT_LOG_BYTES),
            err.as_mut_ptr().cast(),
            std::ptr::without_provenance_mut(JIT_LOG_BYTES),
            std::ptr::without_provenance_mut(1),
        ];
        if let Some(l) = level {
            opts.push(O::CU_JIT_OPTIMIZATION_LEVEL);
            vals.push(std::ptr::without_provenance_mut(usize::from(l.min(4))));
        }
        let mut m: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: `image` is a NUL-terminated PTX string or a cubin, alive for the call; `opts` and `vals` have
        // equal length (5 or 6); the log buffers are JIT_LOG_BYTES long as declared and outlive the call;
        // this context is current on this thread.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                &mut m,
                image.as_ptr().cast(),
                opts.len() as c_uint,
                opts.as_mut_ptr(),
                vals.as_mut_ptr(),
            )
        };
        let info_log = log_text(&info, vals[1].addr());
        match check("cuModuleLoadDataEx", r) {
            Ok(()) => Ok(Module {
                raw: m,
                info_log,
                _ctx: std::marker::PhantomData,
            }),
            Err(error) => {
                let mut log = log_text(&err, vals[3].addr());
                if !info_log.is_empty() {
                    log = if log.is_empty() {
                        info_log
                    } else {
                        format!("{log}\n{info_log}")
                    };
                }
                Err(ModuleError::Jit { error, log })
            }
        }
    }

    /// Allocate `size` bytes of device global memory (`cuMemAlloc`, never managed memory).
    pub fn alloc(&self, size: usize) -> Result<DeviceBuffer<'_>, DriverError> {
        let mut p: sys::CUdeviceptr = 0;
        // SAFETY: `p` is a valid out-pointer; a zero-size request is rejected by the driver with an
        // error, not UB. The context is current.
        check("cuMemAlloc", unsafe {
            sys::cuMemAlloc_v2(&mut p, size.max(1))
        })?;
        Ok(DeviceBuffer {
            ptr: p,
            size,
            _ctx: std::marker::PhantomData,
        })
    }

    /// Allocate `size` bytes of page-locked host memory (`cuMemAllocHost`): copies between it
    /// and the device go by DMA directly, not through the driver's staging in pieces.
    pub fn alloc_host(&self, size: usize) -> Result<PinnedBuffer<'_>, DriverError> {
        let mut p: *mut std::ffi::c_void = std::ptr::null_mut();
        // SAFETY: `p` is a valid out-pointer; the context is current.
        check("cuMemAllocHost", unsafe {
            sys::cuMemAllocHost_v2(&mut p, size.max(1))
        })?;
        Ok(PinnedBuffer {
            ptr: p.cast(),
            size,
            _ctx: std::marker::PhantomData,
        })
    }

    /// Launch `f` on the default stream. With `dims.cluster` set this is a cluster launch via the
    /// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION` attribute. `params` holds one byte image per kernel
    /// parameter, in order, each at least as large as the kernel's parameter.
    pub fn launch(
        &self,
        f: &Function<'_>,
        dims: &LaunchDims,
        params: &mut [ParamImage],
    ) -> Result<(), DriverError> {
        if dims.dynamic_smem > DEFAULT_DYNAMIC_SMEM_LIMIT {
            f.set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                dims.dynamic_smem as i32,
                "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
            )?;
        }
        if let Some(c) = dims.cluster {
            if c.iter().map(|&v| v as u64).product::<u64>() > PORTABLE_CLUSTER_SIZE as u64 {
                f.set_attribute(
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                    1,
                    "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)",
                )?;
            }
        }
        // SAFETY: an all-zero `CUlaunchAttribute` is a valid value (id IGNORE, zero padding).
        let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        let mut num_attrs = 0;
        if let Some([x, y, z]) = dims.cluster {
            attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            attr.value.clusterDim = sys::CUlaunchAttributeValue_union__bindgen_ty_1 { x, y, z };
            num_attrs = 1;
        }
        let config = sys::CUlaunchConfig {
            gridDimX: dims.grid[0],
            gridDimY: dims.grid[1],
            gridDimZ: dims.grid[2],
            blockDimX: dims.block[0],
            blockDimY: dims.block[1],
            blockDimZ: dims.block[2],
            sharedMemBytes: dims.dynamic_smem,
            hStream: std::ptr::null_mut(),
            attrs: &mut attr,
            numAttrs: num_attrs,
        };
        let mut ptrs: Vec<*mut c_void> = params.iter_mut().map(|p| p.as_mut_ptr()).collect();
        // SAFETY: `config` and `attr` live across the call; `ptrs` has one pointer per kernel
        // parameter into `params`' storage, which outlives the call (the driver copies the values
        // at launch); `extra` is null. Whether the parameter count/sizes match the kernel is the
        // caller's contract: a mismatch makes the kernel read wrong bytes, it does not corrupt host
        // memory because each image is sized at least as large as the declared parameter.
        let r = unsafe {
            sys::cuLaunchKernelEx(
                &config,
                f.raw,
                if ptrs.is_empty() {
                    std::ptr::null_mut()
                } else {
                    ptrs.as_mut_ptr()
                },
                std::ptr::null_mut(),
            )
        };
        check("cuLaunchKernelEx", r)
    }

    /// Wait for all work on the default stream; map a sticky error to a trap.
    pub fn synchronize(&self) -> Result<(), SyncError> {
        // SAFETY: null is the legacy default stream of the current context.
        let r = unsafe { sys::cuStreamSynchronize(std::ptr::null_mut()) };
        check("cuStreamSynchronize", r).map_err(|e| match TrapKind::from_code(e.code) {
            Some(kind) => SyncError::Trap(kind),
            None => SyncError::Other(e),
        })
    }
}

/// Outcome of a failed synchronize.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyncError {
    /// A sticky error: the context is poisoned, the process must not issue more work.
    Trap(TrapKind),
    Other(DriverError),
}

/// One kernel parameter's bytes. Stored in `u128` words so any parameter (including a 128-byte,
/// 64-byte-aligned `CUtensorMap`) is suitably aligned for the driver to copy from.
#[derive(Clone, Debug)]
pub struct ParamImage(Vec<u128>);

impl ParamImage {
    pub fn from_bytes(b: &[u8]) -> ParamImage {
        let mut words = vec![0u128; b.len().div_ceil(16).max(1)];
        for (i, chunk) in b.chunks(16).enumerate() {
            let mut w = [0u8; 16];
            w[..chunk.len()].copy_from_slice(chunk);
            words[i] = u128::from_le_bytes(w);
        }
        ParamImage(words)
    }

    fn as_mut_ptr(&mut self) -> *mut c_void {
        self.0.as_mut_ptr().cast()
    }
}

#[derive(Debug)]
pub struct Function<'m> {
    raw: sys::CUfunction,
    _module: std::marker::PhantomData<&'m Module<'m>>,
}

impl Module<'_> {
    pub fn function(&self, name: &str) -> Result<Function<'_>, DriverError> {
        let cname = CString::new(name).map_err(|_| DriverError {
            call: "cuModuleGetFunction".into(),
            code: 500,
            name: "kernel name contains NUL".into(),
        })?;
        let mut f: sys::CUfunction = std::ptr::null_mut();
        // SAFETY: `cname` is NUL-terminated and alive; `self.raw` is a loaded module.
        check("cuModuleGetFunction", unsafe {
            sys::cuModuleGetFunction(&mut f, self.raw, cname.as_ptr())
        })?;
        Ok(Function {
            raw: f,
            _module: std::marker::PhantomData,
        })
    }
}

impl Function<'_> {
    fn set_attribute(
        &self,
        a: sys::CUfunction_attribute,
        v: i32,
        call: &'static str,
    ) -> Result<(), DriverError> {
        // SAFETY: `self.raw` is a function of a loaded module; `a` is a settable attribute.
        check(call, unsafe { sys::cuFuncSetAttribute(self.raw, a, v) })
    }
}

/// A `cuMemAlloc` allocation, freed on drop.
#[derive(Debug)]
pub struct DeviceBuffer<'c> {
    ptr: sys::CUdeviceptr,
    size: usize,
    _ctx: std::marker::PhantomData<&'c Context>,
}

impl Drop for DeviceBuffer<'_> {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `cuMemAlloc` and is freed exactly once.
        let _ = unsafe { sys::cuMemFree_v2(self.ptr) };
    }
}

/// A `cuMemAllocHost` allocation, freed on drop.
#[derive(Debug)]
pub struct PinnedBuffer<'c> {
    ptr: *mut u8,
    size: usize,
    _ctx: std::marker::PhantomData<&'c Context>,
}

impl Drop for PinnedBuffer<'_> {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `cuMemAllocHost` and is freed exactly once.
        let _ = unsafe { sys::cuMemFreeHost(self.ptr.cast()) };
    }
}

impl PinnedBuffer<'_> {
    pub fn len(&self) -> usize {
        self.size
    }

    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: `ptr` is a live allocation of `size` bytes owned by this value, borrowed
        // mutably here; the driver writes it only inside calls that borrow it.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.size) }
    }
}

impl DeviceBuffer<'_> {
    pub fn addr(&self) -> u64 {
        self.ptr
    }

    pub fn len(&self) -> usize {
        self.size
    }

    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    fn range(&self, offset: usize, len: usize, call: &'static str) -> Result<(), DriverError> {
        match offset.checked_add(len) {
            Some(end) if end <= self.size => Ok(()),
            _ => Err(DriverError {
                call: call.into(),
                code: 1,
                name: "range outside the allocation".into(),
            }),
        }
    }

    pub fn write(&mut self, offset: usize, data: &[u8]) -> Result<(), DriverError> {
        self.range(offset, data.len(), "cuMemcpyHtoD")?;
        if data.is_empty() {
            return Ok(());
        }
        // SAFETY: the destination range lies inside this allocation (checked above); `data` is a
        // valid host slice of `data.len()` bytes.
        check("cuMemcpyHtoD", unsafe {
            sys::cuMemcpyHtoD_v2(self.ptr + offset as u64, data.as_ptr().cast(), data.len())
        })
    }

    pub fn fill(&mut self, byte: u8) -> Result<(), DriverError> {
        // SAFETY: the range [ptr, ptr+size) is this allocation.
        check("cuMemsetD8", unsafe {
            sys::cuMemsetD8_v2(self.ptr, byte, self.size)
        })
    }

    pub fn read(&self, offset: usize, len: usize) -> Result<Vec<u8>, DriverError> {
        let mut out = vec![0u8; len];
        self.read_into(offset, &mut out)?;
        Ok(out)
    }

    /// Copy `out.len()` bytes from `offset` into `out`.
    pub fn read_into(&self, offset: usize, out: &mut [u8]) -> Result<(), DriverError> {
        let len = out.len();
        self.range(offset, len, "cuMemcpyDtoH")?;
        if len == 0 {
            return Ok(());
        }
        // SAFETY: the source range lies inside this allocation; `out` has `len` writable bytes.
        check("cuMemcpyDtoH", unsafe {
            sys::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), self.ptr + offset as u64, len)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trap_codes_round_trip_and_non_sticky_codes_are_not_traps() {
        for (code, kind, _) in TrapKind::TABLE {
            assert_eq!(TrapKind::from_code(code), Some(kind));
            assert_eq!(kind.code(), code);
        }
        assert_eq!(TrapKind::from_code(715), Some(TrapKind::IllegalInstruction));
        assert_eq!(
            TrapKind::from_code(701),
            None,
            "out of resources is a launch error"
        );
        assert_eq!(TrapKind::from_code(720), None);
        assert_eq!(TrapKind::from_code(1), None);
        assert_eq!(
            TrapKind::from_code(912),
            None,
            "invalid cluster size is a launch error"
        );
        assert_eq!(TrapKind::from_code(799), Some(TrapKind::Other(799)));
        assert_eq!(TrapKind::Other(799).code(), 799);
    }

    #[test]
    fn jit_log_is_cut_at_nul_and_used_length() {
        let mut b = b"ptxas error: bad\n\0garbage".to_vec();
        b.resize(64, 0);
        assert_eq!(log_text(&b, 64), "ptxas error: bad");
        assert_eq!(log_text(&b, 5), "ptxas");
        assert_eq!(log_text(&b, 1000), "ptxas error: bad");
    }

    #[test]
    fn param_image_is_aligned_and_zero_padded() {
        let mut p = ParamImage::from_bytes(&[1, 2, 3]);
        assert_eq!(p.as_mut_ptr() as usize % 16, 0);
        assert_eq!(
            p.0,
            vec![u128::from_le_bytes([
                1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
            ])]
        );
        assert_eq!(ParamImage::from_bytes(&[0u8; 128]).0.len(), 8);
        assert_eq!(ParamImage::from_bytes(&[]).0.len(), 1);
    }
}
